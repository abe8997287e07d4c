# A sum of a square of the distance to the running maximum: (S - Mx)^2
# does not separate into a factor or a term of Mx alone.
plan square
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r] = max(c: X)
L[r]  = sum(c: (X - Mx)^2)

output L: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
