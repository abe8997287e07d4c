# A schedule block that is never closed.
plan unclosed
dim R, C
axis r: R, c: C
input X[r, c]: f32
Mx[r] = max(c: X)
output Mx: f32
schedule {
  reduce c: rolling
  tune {
    warps = {4, 8}
  }
  target c
