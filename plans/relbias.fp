# Causal attention with a learned relative-position bias table per head
# (T5 and its descendants): the score of query m and key n adds
# table[h, clamp(m + N - M - n, 0, R - 1)], one entry per distance back to
# the key, the last entry standing for every distance from R - 1 on.  The
# clamp keeps every read inside the table whatever the sizes.
plan relbias
doc "Causal attention plus a per-head relative-position bias table, table[h, clamp(distance, 0, R - 1)]."

dim B, H, M, N, D, R
axis b: B, h: H, m: M, n: N, d: D, r: R

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input table[h, r]: f32

S[b, h, m, n] = sum(d: Q * K) * scale + table[h, clamp(m + N - M - n, 0, R - 1)]
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
LSE[b, h, m]  = Mx + log(L)

output O: bf16, LSE: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
