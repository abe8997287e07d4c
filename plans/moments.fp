# Row moments in one pass: the mean, the variance and the kurtosis (the
# fourth central moment over the squared variance).  Each power about the
# running mean carries the count and its lower powers (docs/algebra.md).
plan moments
doc "Row mean, variance and kurtosis of a [R, C] matrix in one pass."

dim R, C
axis r: R, c: C

input X[r, c]: bf16

Mean[r] = sum(c: X) / C
Var[r]  = sum(c: (X - Mean) ^ 2) / C
M4[r]   = sum(c: (X - Mean) ^ 4) / C
Kurt[r] = M4 / (Var * Var)

output Mean: f32, Var: f32, Kurt: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
