# Causal attention that also returns each row's largest logit.  MuonClip (the
# QK-clip of Kimi K2's training) rescales the query and key weights of a head
# whose largest attention logit passes a threshold, and takes that logit from
# the forward pass; the log-sum-exp is kept for the backward pass.  Both are
# values per row the kernels write beside O: Mx, a running value, as it is,
# and LSE from the final max and sum.
plan maxlogit
doc "Causal attention returning O, the log-sum-exp and each row's largest logit (MuonClip's QK-clip reads the largest)."

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
LSE[b, h, m]  = Mx + log(L)

output O: bf16, LSE: f32, Mx: f32

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
