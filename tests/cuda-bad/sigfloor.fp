# A weight that is not 0 at a masked key (1 + sigmoid(-inf) = 1): the kernels
# skip masked keys, so they would add nothing where the plan adds V.
plan sigfloor
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) * rsqrt(D)
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
O[b, h, m, d] = sum(n: (1 + sigmoid(T)) * V)
output O: bf16
schedule {
  reduce n: rolling
  target cuda
}
