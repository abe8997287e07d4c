# Row softmax over the last axis: Y = exp(X - max) / sum(exp(X - max)).
plan softmax
doc "Numerically stable row softmax of a [R, C] matrix."

dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r]   = max(c: X)
E[r, c] = exp(X - Mx)
L[r]    = sum(c: E)
Y[r, c] = E / L

output Y: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 256
  target cuda, hip, c
}
