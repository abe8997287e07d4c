# A reduction over the tiled query axis while the plan fuses over keys.
plan twoaxes
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K)
Mx[b, h, m]   = max(n: S)
Cm[b, h, n]   = max(m: S)
L[b, h, m]    = sum(n: exp(S - Mx))

output L: f32, Cm: f32

schedule {
  reduce n: rolling
  tile m = 64, n = 64
  target c
}
