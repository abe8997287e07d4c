# A sum normalised inside by a masked running maximum: while the mask has
# hidden every key so far the maximum is -inf, and the terms added then
# cannot be rescaled by a ratio of it.
plan maskedratio
dim R, C
axis r: R, c: C

input Y[r, c]: f32

P[r] = max(c: where(Y > 0, Y, -inf))
Q[r] = sum(c: Y / P)

output P: f32, Q: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target c
}
