# Several independent errors in one run; reads of a failed statement stay silent.
plan several
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, q, n] = sum(d: Q * K) * scale
T[b, h, m, n] = S[b, m] + exp(S) + scal
Mx[b, h, m]   = max(n: T) + sum(n: m)
output T: f32, Mx: f32
schedule {
  reduce n: rolling
  tile m = 96, n = 64
}
