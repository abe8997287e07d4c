# Packed documents whose ids differ by head (tests/cuda-hooks.sh): docmask
# with seg[b, h, n] for seg[b, n].  The mask reads seg at the head, so the
# sm_90a launch makes its span workspace (the ids' summary, the row blocks'
# key ranges, the rows' keys) once a (batch, head); docmask's, whose ids are
# the same for every head, once a batch (plan_span_head_free).
plan headdoc
doc "Causal attention over packed documents: key n is visible to query m when seg[b, h, n] == seg[b, h, m + N - M] and n <= m + N - M."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
input seg[b, h, n]: i32

S[b, h, m, n] = sum(d: Q * K) * scale
T[b, h, m, n] = where(seg[b, h, n] == seg[b, h, m + N - M] && n <= m + N - M, S, -inf)
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
