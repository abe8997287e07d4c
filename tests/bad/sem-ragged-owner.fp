# An input over the keys that does not carry b: its length would be undefined.
plan ragged_owner
dim B, H, M, N[b], D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input Bias[n]: f32
S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n <= m + N - M, S + Bias, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
output O: bf16
schedule {
  reduce n: split
}
