# Differential attention (Ye et al., 2024, "Differential Transformer"): the
# difference of two softmax attention maps over their own queries and keys,
# applied to one V, cancels the attention noise both maps share.  The two
# softmax chains are independent: the kernels run once per chain, and the
# second pass subtracts its term from the output the first one wrote.
plan diffattn
doc "Differential attention: O = softmax(Q1.K1^T * scale) V - lam * softmax(Q2.K2^T * scale) V, causal."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param lam: f32 = 0.8

input Q1[b, h, m, d]: bf16
input K1[b, h, n, d]: bf16
input Q2[b, h, m, d]: bf16
input K2[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S1[b, h, m, n] = where(n <= m + N - M, sum(d: Q1 * K1) * scale, -inf)
M1[b, h, m]    = max(n: S1)
P1[b, h, m, n] = exp(S1 - M1)
L1[b, h, m]    = sum(n: P1)
S2[b, h, m, n] = where(n <= m + N - M, sum(d: Q2 * K2) * scale, -inf)
M2[b, h, m]    = max(n: S2)
P2[b, h, m, n] = exp(S2 - M2)
L2[b, h, m]    = sum(n: P2)
O[b, h, m, d]  = sum(n: P1 * V) / L1 - lam * sum(n: P2 * V) / L2

output O: bf16

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  tune {
    tile m = {64, 128}, n = {32, 64, 128, 176}
    warps = {4, 8}
    stages = {2, 3}
    pingpong = {0, 1}
  }
  target cuda, hip, c
}
