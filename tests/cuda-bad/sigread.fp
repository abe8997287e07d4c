# A weight that reads a per-key gate besides its score: the kernels weigh
# each key by a function of its masked score alone.
plan sigread
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input G[b, n]: f32
S[b, h, m, n] = sum(d: Q * K) * rsqrt(D)
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
O[b, h, m, d] = sum(n: sigmoid(T) * G * V)
output O: bf16
schedule {
  reduce n: rolling
  target cuda
}
