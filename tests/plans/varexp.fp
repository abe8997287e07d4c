# Three levels of running values, one reading a row statement of another:
# the mean, the variance about it, and a sum of exponentials shifted by the
# variance (Var, a row statement over Var_sum).  The row kernels take the
# sum's body with Var as it stands during the walk (Var_sum / C), never the
# row's final Var, which exists only after it; the merge's correction reads
# the dim C.
plan varexp
doc "A row's mean, its variance, and the sum of exp(X - variance)."

dim R, C
axis r: R, c: C

input X[r, c]: f32

Mean[r] = sum(c: X) / C
Var[r]  = sum(c: (X - Mean) ^ 2) / C
Z[r]    = sum(c: exp(X - Var))

output Z: f32, Var: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
