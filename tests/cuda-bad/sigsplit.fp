# Sigmoid attention in the split (decode) form: without a softmax chain the
# kernels take the rolling form only.
plan sigsplit
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * rsqrt(D)
O[b, h, m, d] = sum(n: sigmoid(S) * V)
output O: bf16
schedule {
  reduce n: split
  target cuda
}
