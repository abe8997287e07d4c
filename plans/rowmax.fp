# Causal attention that returns the row max of the scores beside O, as some
# backward passes and attention-statistics probes want it (instead of the
# log-sum-exp): a running value of the softmax chain is itself an output.
plan rowmax
doc "Causal attention with the row max of the scaled scores as an output: O = softmax(Q.K * scale) V, Mx = max over visible keys."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L

output O: bf16, Mx: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
