# The entry point takes the lengths as N_len: no other name may take it.
plan ragged_len
dim B, H, M, N[b], D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
param N_len: f32 = 1
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
output O: bf16
schedule {
  reduce n: split
}
