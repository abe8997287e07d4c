# Softmax-like row reductions without contractions: not attention.
plan rowmax
dim R, C
axis r: R, c: C
input X[r, c]: f32
Mx[r] = max(c: X)
L[r] = sum(c: exp(X - Mx))
LSE[r] = Mx + log(L)
output LSE: f32
schedule {
  reduce c: rolling
}
