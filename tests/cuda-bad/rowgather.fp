# A row log-sum-exp of a row read backwards (X read at other indices than
# declared, a gather): the row kernels read inputs as declared only.
plan rowgather
dim R, C
axis r: R, c: C
input X[r, c]: f32
Mx[r] = max(c: X[r, C - 1 - c])
L[r] = sum(c: exp(X[r, C - 1 - c] - Mx))
LSE[r] = Mx + log(L)
output LSE: f32
schedule {
  reduce c: rolling
}
