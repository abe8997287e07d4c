# A softmax weighted per column, the weight declared before the input: the
# running values read X only, so the row kernels take X as their first input
# along the row (loaded by the first walk and kept) and W as the second
# (loaded by the second walk alone).
plan wsoftmax
doc "Softmax of each row of X times a weight per column."

dim R, C
axis r: R, c: C

input W[c]: f32
input X[r, c]: f32

Mx[r]   = max(c: X)
E[r, c] = exp(X - Mx)
L[r]    = sum(c: E)
Y[r, c] = W * E / L

output Y: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
