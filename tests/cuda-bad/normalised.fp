# The FlashAttention-1 form with the weight inline: O is normalised inside
# the sum, but its body is not a contraction W * V of a statement and V.
plan normalised
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K)
Mx[b, h, m] = max(n: S)
L[b, h, m] = sum(n: exp(S - Mx))
O[b, h, m, d] = sum(n: exp(S - Mx) / L * V)
output O: bf16
schedule {
  reduce n: rolling
  target cuda
}
