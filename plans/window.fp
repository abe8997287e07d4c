# Sliding-window causal GQA attention with soft-capping (window W, cap 50).
plan window
doc "Causal GQA attention over a sliding window of W keys, scores soft-capped at 50."

dim B, Hq, Hkv, M, N, D
axis b: B, h: Hq, m: M, n: N, d: D

param G: int = Hq / Hkv
param W: int = 4096
param scale: f32 = rsqrt(D)
param cap: f32 = 50

input Q[b, h, m, d]: bf16
input K[b, h / G, n, d]: bf16[B, Hkv, N, D]
input V[b, h / G, n, d]: bf16[B, Hkv, N, D]

S[b, h, m, n] = sum(d: Q * K) * scale
C[b, h, m, n] = cap * tanh(S / cap)
T[b, h, m, n] = where(n <= m + N - M && m + N - M - n < W, C, -inf)
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
