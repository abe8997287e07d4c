# Packed documents behind a shared prefix (tests/cuda-hooks.sh): key n is
# visible to query m when it is causal and in m's document or in document 0
# (a system prompt every document sees).  Its mask is an OR of two span
# atoms (== and <) under an AND with a linear atom, for the host
# simulation of the span hooks beside docmask's single AND.
plan sharedoc
doc "Causal attention over packed documents that all see document 0."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input seg[b, n]: i32

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where((seg[b, n] == seg[b, m + N - M] || seg[b, n] < 1) && n <= m + N - M, S, -inf)
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
  target cuda
}
