# A name defined twice: a statement named like an input.
plan duplicate
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * scale
K[b, h, m, n] = S * 2
output S: f32
