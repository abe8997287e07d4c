# Row log-sum-exp over the last axis, in one pass with a running maximum.
plan logsumexp
doc "Row log-sum-exp of a [R, C] matrix: Mx + log(sum(exp(X - Mx)))."

dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r]  = max(c: X)
L[r]   = sum(c: exp(X - Mx))
LSE[r] = Mx + log(L)

output LSE: f32

schedule {
  reduce c: split
  tile r = 4, c = 256
  splits = 4
  target cuda, hip, c
}
