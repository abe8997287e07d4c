# A shift under a sum: sum(c: X - Mx) needs the count of terms.
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
  target c
}
