# An output that carries the fused axis and reads the running maximum
# while it also feeds the running sum: its values would be stale.
plan staleout
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r]   = max(c: X)
E[r, c] = exp(X - Mx)
L[r]    = sum(c: E)

output E: f32, L: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
