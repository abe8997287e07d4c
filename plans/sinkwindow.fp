# StreamingLLM attention (Xiao et al., 2024): a sliding causal window of the
# last W keys plus the first S keys (the attention sinks), which every query
# keeps seeing however long the stream grows.
plan sinkwindow
doc "Sliding-window causal attention with S attention-sink keys: key n is visible to query m when n <= m + N - M and (n < S or m + N - M - n < W)."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param S: int = 4
param W: int = 4096

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

Sc[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n]  = where(n <= m + N - M && (n < S || m + N - M - n < W), Sc, -inf)
Mx[b, h, m]    = max(n: T)
Pw[b, h, m, n] = exp(T - Mx)
L[b, h, m]     = sum(n: Pw)
O[b, h, m, d]  = sum(n: Pw * V) / L
LSE[b, h, m]   = Mx + log(L)

output O: bf16, LSE: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
