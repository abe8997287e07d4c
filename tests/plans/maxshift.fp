# A maximum under an additive shift by a running sum: max(c: X - S1)
# follows S1 by a shift, a correction the Neptune rules do not cover.
plan maxshift
doc "Row maximum of X - sum(X), in one pass."

dim R, C
axis r: R, c: C

input X[r, c]: f32

S1[r] = sum(c: X)
Z[r]  = max(c: X - S1)

output Z: f32

schedule {
  reduce c: split
  tile r = 4, c = 64
  splits = 3
  target cuda, hip, c
}
