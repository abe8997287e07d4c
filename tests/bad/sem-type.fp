# Type errors: a number as a condition, a boolean as a number.
plan types
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(S, 1, 0)
U[b, h, m, n] = exp(n <= m) * S
output T: f32, U: f32
