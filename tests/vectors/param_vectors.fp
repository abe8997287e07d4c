# Three per-head param vectors, for the CPU entry's error paths
# (tests/param-vectors.sh): bias[h] and shift[h] have defaults, which the
# entry fills into buffers of its own when the caller passes none; gain[h]
# has none, so NULL is an error, taken after bias's buffer exists; and an
# allocation that fails for shift's buffer must free bias's.
plan param_vectors
doc "Attention with per-head params: S = gain * Q.K + bias + shift."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param bias[h]: f32 = 0.25 * h
param gain[h]: f32
param shift[h]: f32 = 0.5 - 0.125 * h

input Q[b, h, m, d]: f32
input K[b, h, n, d]: f32
input V[b, h, n, d]: f32

S[b, h, m, n] = sum(d: Q * K) * gain + bias + shift
Mx[b, h, m]   = max(n: S)
P[b, h, m, n] = exp(S - Mx)
L[b, h, m]    = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L

output O: f32

schedule {
  reduce n: rolling
  tile m = 16, n = 16
  target c
}
