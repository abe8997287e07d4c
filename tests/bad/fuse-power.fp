# The fifth power of the distance to a running mean: the checker carries
# the sums of powers up to the fourth only.
plan power
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mean[r] = sum(c: X) / C
Var[r]  = sum(c: (X - Mean)^5) / C

output Var: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
