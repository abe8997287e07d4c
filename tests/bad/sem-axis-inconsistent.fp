# A tensor read with its axes swapped: tensors are never transposed on read.
plan transposed
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = S[b, h, n, m] * 2
output T: f32
