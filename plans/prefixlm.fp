# Prefix-LM attention (T5's and UL2's prefix language models, PaLM's
# non-causal prefix): the first P keys (the prompt) are visible to every
# query, the rest causally.
plan prefixlm
doc "Prefix-LM attention: key n is visible to query m when n < P (the prefix) or n <= m + N - M."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param P: int = 0

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n < P || n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
Pw[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: Pw)
O[b, h, m, d] = sum(n: Pw * V) / L
LSE[b, h, m]  = Mx + log(L)

output O: bf16, LSE: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
