# Two independent chains over one row: log-sum-exp of X, and a sum of Y
# normalised inside the sum by a running maximum (a ratio correction,
# P_prev / P, which the C entry applies only once a tile has added to the
# state: before, the max holds its identity -inf).
plan twochains
doc "Per row: log-sum-exp of X, the largest Y^2 + 1 and the sum of Y over it."

dim R, C
axis r: R, c: C

input X[r, c]: f32
input Y[r, c]: f32

Mx[r]  = max(c: X)
L[r]   = sum(c: exp(X - Mx))
LSE[r] = Mx + log(L)
P[r]   = max(c: Y * Y + 1)
Q[r]   = sum(c: Y / P)
Z[r, c] = X - LSE + Y

output LSE: f32, P: f32, Q: f32, Z: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
