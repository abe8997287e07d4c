# A product of two inputs over the fused axis: not the running state of a
# matrix product (a per-key value times an input) but a row reduction of
# its own, beside the running max (it was refused as a contraction).
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
