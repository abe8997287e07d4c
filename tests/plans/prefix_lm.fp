# Prefix-LM attention: the first P keys are visible to every query, the
# rest causally (bottom-right aligned).
plan prefix_lm
doc "Prefix-LM attention: key n is visible to query m when n < P or n <= m + N - M."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param P: int
param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n < P || n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P2[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P2)
O[b, h, m, d] = sum(n: P2 * V) / L

output O: bf16

schedule {
  reduce n: rolling
  tile m = 64, n = 64
  target c
}
