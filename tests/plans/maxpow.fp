# A sum of a cube of the distance to the running maximum: the checker
# carries the count and the sums of the first and second powers of X - Mx
# beside it, and each tile shifts them all by the binomial theorem.
plan maxpow
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r] = max(c: X)
L[r]  = sum(c: (X - Mx)^3)

output L: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
