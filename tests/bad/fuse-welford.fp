# Variance around a running mean (Welford): not supported yet.
plan welford
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mean[r] = sum(c: X) / C
Var[r]  = sum(c: (X - Mean)^2) / C

output Var: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
