# Row RMS normalisation (Zhang and Sennrich, 2019): the statistic is a sum
# of squares written as a product of the input with itself.
plan rmsnorm
doc "Row RMS normalisation of a [R, C] matrix: Y = X * rsqrt(sum(X * X) / C + eps), with the inverse RMS per row."

dim R, C
axis r: R, c: C

param eps: f32 = 1e-6

input X[r, c]: bf16

Ss[r]   = sum(c: X * X)
Rstd[r] = rsqrt(Ss / C + eps)
Y[r, c] = X * Rstd

output Y: f32, Rstd: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
