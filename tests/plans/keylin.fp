# A position bias linear in the key, written the other way round (tests/test_cuda.c):
# the bias subtracted, the key counted twice; the kernel model's keylin form
# takes it with the slope negated and a step of -2 a key.
plan keylin
doc "Causal attention with a subtracted position bias slope[h] * ((m + N - M) - 2 n)."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param slope[h]: f32 = exp2(-8.0 * (h + 1) / H)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
A[b, h, m, n] = S - slope * ((m + N - M) - 2 * n)
T[b, h, m, n] = where(n <= m + N - M, A, -inf)
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
