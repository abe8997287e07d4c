# FlashAttention-1 form (Dao et al., 2022, Algorithm 1): the output is kept
# normalised inside the sum, so its correction reads two running producers,
# the maximum and the sum; the kernels keep it undivided and divide once.
plan fa1
doc "Attention with a normalised running output (FlashAttention-1)."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale
Mx[b, h, m]   = max(n: S)
P[b, h, m, n] = exp(S - Mx)
L[b, h, m]    = sum(n: P)
W[b, h, m, n] = P / L
O[b, h, m, d] = sum(n: W * V)

output O: bf16

schedule {
  reduce n: rolling
  tile m = 64, n = 64
  target cuda, hip, c
}
