# A masked row maximum beside an unmasked row sum: the sum sees every key,
# so key tiles that the mask hides completely must still be visited.
plan masked_rowsum
doc "Lower-triangular row maximum of X and the full row sum of X."

dim R, C
axis r: R, c: C

input X[r, c]: f32

T[r, c] = where(c <= r, X, -inf)
Mx[r]   = max(c: T)
Sm[r]   = sum(c: X)

output Mx: f32, Sm: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 64
  target cuda, hip, c
}
