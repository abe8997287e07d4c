# Grouped-query causal attention: G query heads share one key/value head.
plan gqa
doc "Causal grouped-query attention: query head h reads key/value head h / G."

dim B, Hq, Hkv, M, N, D
axis b: B, h: Hq, m: M, n: N, d: D

param G: int = Hq / Hkv
param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h / G, n, d]: bf16[B, Hkv, N, D]
input V[b, h / G, n, d]: bf16[B, Hkv, N, D]

S[b, h, m, n] = sum(d: Q * K) * scale
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
  tune {
    tile m = {64, 128}, n = {32, 64, 128, 176}
    warps = {4, 8}
    stages = {2, 3}
    pingpong = {0, 1}
  }
  target cuda, hip, c
}
