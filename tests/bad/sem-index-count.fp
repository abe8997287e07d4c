# A tensor read with fewer indices than it was defined with.
plan index_count
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * scale
Mx[b, h, m]   = max(n: S[b, h, n])
output Mx: f32
