# A contraction over the fused axis of two inputs: there is no per-tile
# value to multiply with an input.
plan kvsum
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K)
Mx[b, h, m]   = max(n: S)
KV[b, h, d]   = sum(n: K * V)
O[b, h, m, d] = KV * Mx

output O: f32

schedule {
  reduce n: rolling
  tile m = 64, n = 64
  target c
}
