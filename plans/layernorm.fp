# Layer normalisation (Ba, Kiros and Hinton, 2016): the row's mean and
# variance in one pass over the row.
plan layernorm
doc "Layer normalisation of a [R, C] matrix: Y = (X - mean) * rsqrt(var + eps) * G + B, with the mean and the inverse standard deviation per row."

dim R, C
axis r: R, c: C

param eps: f32 = 1e-5

input X[r, c]: bf16
input G[c]: f32
input B[c]: f32

Mean[r] = sum(c: X) / C
Var[r]  = sum(c: (X - Mean) ^ 2) / C
Rstd[r] = rsqrt(Var + eps)
Y[r, c] = (X - Mean) * Rstd * G + B

output Y: bf16, Mean: f32, Rstd: f32

schedule {
  reduce c: rolling
  tile r = 4, c = 128
  target cuda, hip, c
}
