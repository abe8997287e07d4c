# Row log-softmax: Y = X - (Mx + log(sum(exp(X - Mx)))).
plan logsoftmax
doc "Numerically stable row log-softmax of a [R, C] matrix."

dim R, C
axis r: R, c: C

input X[r, c]: bf16

Mx[r]   = max(c: X)
L[r]    = sum(c: exp(X - Mx))
Y[r, c] = X - Mx - log(L)

output Y: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
