# Causal sigmoid attention with a per-key gate: each visible key weighs in
# by sigmoid(score + bias), as in plans/sigmoid.fp, times a gate g[b, n] of
# its own (a soft key-padding mask, or a learned importance per token).  The
# gate is an extra input that the weight reads at the key: the GPU kernels
# load it beside the score, after the mask, so a masked key adds nothing.
plan siggate
doc "Causal sigmoid attention with a per-key gate: O = sum over visible keys of sigmoid(Q.K * scale + bias) * g[b, n] * V."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param bias: f32 = -log(N)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input g[b, n]: f32

S[b, h, m, n] = sum(d: Q * K) * scale + bias
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
W[b, h, m, n] = sigmoid(T) * g
O[b, h, m, d] = sum(n: W * V)

output O: bf16

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
