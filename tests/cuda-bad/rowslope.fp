# A row softmax with a temperature per row: the row kernels take scalar
# params only.
plan rowslope
dim R, C
axis r: R, c: C
param temp[r]: f32 = 1
input X[r, c]: f32
Mx[r] = max(c: X / temp)
L[r] = sum(c: exp(X / temp - Mx))
Y[r, c] = exp(X / temp - Mx) / L
output Y: f32
schedule {
  reduce c: rolling
}
