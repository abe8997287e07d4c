# A shift under a sum: sum(c: X - Mx) carries the count of its terms, so
# a move of the running max by d shifts it by the count times d.
plan shiftsum
dim R, C
axis r: R, c: C

input X[r, c]: f32

Mx[r] = max(c: X)
L[r]  = sum(c: X - Mx)

output L: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
