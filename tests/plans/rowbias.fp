# A per-row bias, a scalar param and the element's position in the running
# bodies, over two row axes.
plan rowbias
doc "Per (b, r): the max of X + B[b, r] + t * c and the sum of exp of it below the max."

dim N, R, C
axis b: N, r: R, c: C

param t: f32 = 0.5

input X[b, r, c]: f32
input B[b, r]: f32

S[b, r, c] = X + B + t * c
Mx[b, r] = max(c: S)
L[b, r]  = sum(c: exp(S - Mx))
LSE[b, r] = Mx + log(L)

output LSE: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
