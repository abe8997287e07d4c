# The mean of X under the row's softmax, normalised inside the sum (a ratio
# correction of a running sum times an exponential one, on a third level),
# beside a sum shifted by a per-row input (no correction).
plan softmean
doc "Per row: the softmax-weighted mean of X, and the sum of exp(X - B)."

dim R, C
axis r: R, c: C

input X[r, c]: f32
input B[r]: f32

Mx[r] = max(c: X)
L[r]  = sum(c: exp(X - Mx))
E1[r] = sum(c: exp(X - Mx) * X / L)
K[r]  = sum(c: exp(X - B))

output E1: f32, K: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
