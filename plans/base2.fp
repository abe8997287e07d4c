# Causal attention written in base 2, the way FlashAttention-3 computes it
# inside: the score is pre-scaled by log2(e), the weights are exp2(T - Mx),
# and the log-sum-exp comes out in log2 units (LSE2 = Mx + log2(L)); the
# derived corrections are exp2(Mx_prev - Mx).
plan base2
doc "Causal attention in base 2: P = exp2(T - Mx), O = sum(P * V) / L, LSE2 = Mx + log2(L) (log2 units)."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * (scale * 1.4426950408889634)
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp2(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
LSE2[b, h, m] = Mx + log2(L)

output O: bf16, LSE2: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
