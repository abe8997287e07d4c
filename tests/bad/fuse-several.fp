# Two running sums that cannot be corrected: both are reported in one run.
plan several
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r] = max(c: X)
A[r]  = sum(c: (X - Mx)^5)
B[r]  = sum(c: tanh(X - Mx))

output A: f32, B: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
