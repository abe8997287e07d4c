# Causal attention over packed documents (sequence packing): several
# documents share one sequence, and a query sees only the keys of its own
# document.  seg holds an i32 document id per key position; the queries are
# the last M positions, so query m's document is seg[b, m + N - M]: the same
# input read at the key axis in one place and at the query axis in another.
plan docmask
doc "Causal attention over packed documents: key n is visible to query m when seg[b, n] == seg[b, m + N - M] and n <= m + N - M."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input seg[b, n]: i32

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(seg[b, n] == seg[b, m + N - M] && n <= m + N - M, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
LSE[b, h, m]  = Mx + log(L)

output O: bf16, LSE: f32

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  tune {
    tile m = {64, 128}, n = {32, 64, 128, 176}
    warps = {4, 8}
    stages = {2, 3}
    pingpong = {0, 1}
  }
  target cuda, hip, c
}
