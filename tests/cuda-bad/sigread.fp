# A weight that reads an extra input at the head dim: the kernels weigh
# each key by one number (its masked score, and extra inputs at the batch,
# head, row and key), not by a vector along d.
plan sigread
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input G[b, d]: f32
S[b, h, m, n] = sum(d: Q * K) * rsqrt(D)
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
O[b, h, m, d] = sum(n: sigmoid(T) * G * V)
output O: bf16
schedule {
  reduce n: rolling
  target cuda
}
