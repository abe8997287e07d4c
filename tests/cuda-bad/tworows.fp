# Two values per row besides O (the max and the log-sum-exp): the attention
# kernels write O and one value per row.
plan tworows
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K)
Mx[b, h, m] = max(n: S)
P[b, h, m, n] = exp(S - Mx)
L[b, h, m] = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
LSE[b, h, m] = Mx + log(L)
output O: bf16, Mx: f32, LSE: f32
schedule {
  reduce n: rolling
}
