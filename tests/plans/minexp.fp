# A row minimum, then a sum of exponentials below it: the kept forms' rebase
# with a first level of minima.
plan minexp
doc "Row minimum of X and the sum of exp(Mn - X)."

dim R, C
axis r: R, c: C

input X[r, c]: f32

Mn[r] = min(c: X)
L[r]  = sum(c: exp(Mn - X))
Y[r, c] = exp(Mn - X) / L

output Mn: f32, L: f32, Y: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
