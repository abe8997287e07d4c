# Several syntax errors: the parser recovers at each line and goes on.
plan several
dim R, C $
axis r: R c: C
param eps: f32 = 1e-
input X[r, c]: f64
Y[r, c] = exp(X - ) / 2
Z[r, c] = sum(X)
W[r, c] = softplus(X)
V[r, c] = X < 1 < 2
schedule {
  reduce c: sideways
  tile r = 4, c = -1
  warps = 4
  warps = 8
  gpus = 2
  target cuda, tpu
}
