plan t
dim B, M, N[b]
axis b: B, m: M, n: N
input A105[b]: f32
input I2[b]: f32
input I3[b]: f32
input I4[b]: f32
input I5[b]: f32
input I6[b]: f32
input I7[b]: f32
input I8[b]: f32
input I9[b]: f32
input I10[b]: f32
input I11[b]: f32
input I12[b]: f32
input I13[b]: f32
input I14[b]: f32
X[b, m] = sum(n: n * 1.0) * 2 + sum(n: n * 2.0)
output X: f32
