# Decode: Causal attention, bottom-right aligned: query m sits at position m + N - M.
plan causal_decode
doc "Decode (split over keys): Causal attention: key n is visible to query m when n <= m + N - M."

dim B, H, M, N[b], D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(n <= m + 999999999 * 999999999 * 999999999, S, -inf)
Mx[b, h, m]   = max(n: T)
P[b, h, m, n] = exp(T - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
LSE[b, h, m]  = Mx + log(L)

output O: bf16, LSE: f32

schedule {
  reduce n: split
  tile m = 16, n = 64
  warps = 4
  stages = 2
  splits = auto
  tune {
    tile n = {32, 64, 128}
    warps = {4, 8}
    splits = {1, 2, 4, 8, 16, 32, 64}
  }
  target cuda, hip, c
}
