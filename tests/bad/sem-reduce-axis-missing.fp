# A reduction over an axis its operand does not carry.
plan reduce_axis
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * scale
Mx[b, h, m]   = max(n: S)
L[b, h, m]    = sum(n: exp(Mx))
output L: f32
