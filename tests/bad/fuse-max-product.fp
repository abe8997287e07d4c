# A maximum of a product with a running maximum: the factor Mx may be
# negative, so rescaling does not distribute over max.
plan maxproduct
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r] = max(c: X)
Z[r]  = max(c: X * Mx)

output Z: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
