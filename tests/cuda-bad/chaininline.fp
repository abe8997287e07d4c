# Two independent softmax chains, the second with its weight exp(S2 - M2)
# written inside its sums: each chain of the kernels needs P as a statement
# (the P.V contraction), and the reason names the chain.
plan chaininline
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q1[b, h, m, d]: bf16
input K1[b, h, n, d]: bf16
input Q2[b, h, m, d]: bf16
input K2[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S1[b, h, m, n] = sum(d: Q1 * K1)
M1[b, h, m] = max(n: S1)
P1[b, h, m, n] = exp(S1 - M1)
L1[b, h, m] = sum(n: P1)
S2[b, h, m, n] = sum(d: Q2 * K2)
M2[b, h, m] = max(n: S2)
L2[b, h, m] = sum(n: exp(S2 - M2))
O[b, h, m, d] = sum(n: P1 * V) / L1 - sum(n: exp(S2 - M2) * V) / L2
output O: bf16
schedule {
  reduce n: rolling
}
