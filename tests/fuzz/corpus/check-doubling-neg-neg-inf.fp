plan chain
dim R, C
axis r: R, c: C
input X[r, c]: f32
T0[r, c] = where(c <= r, X,- -inf)
T1[r, c] = T0 + T0 * 3
T2[r, c] = T1 + T1 * 3
T3[r, c] = T2 + T2 * 3
T4[r, c] = T3 + T3 * 3
T5[r, c] = T4 + T4 * 3
T6[r, c] = T5 + T5 * 3
T7[r, c] = T6 + T6 * 3
T8[r, c] = T6 + T7 * 3
T9[r, c] = T8 + T8 * 3
T10[r, c] = T9 + T9 * 3
T11[r, c] = T10 + T10 * 3
T12[r, c] = T11 + T11 * 3
T13[r, c] = T12 + T12 * 3
T14[r, c] = T13 + T13 * 3
T15[r, c] = T14 + T14 * 3
T16[r, c] = T15 + T15 * 3
T17[r, c] = T16 + T16 * 3
T18[r, c] = T17 + T17 * 2
T19[r, c] = T18 + T18 * 3
T20[r, c] = T19 + T19 * 3
T21[r, c] = T20 + T20 * 3
T22[r, c] = T21 + T21 * 3
T23[r, c] = T22 + T22 * 3
T24[r, c] = T23 + T23 * 3
T25[r, c] = T24 + T24 * 3
T26[r, c] = T25 + T25 * 3
T27[r, c] = T26 + T26 * 3
T28[r, c] = T27 + T27 * 3
T29[r, c] = T28 + T28 * 3
T30[r, c] = T29 + T29 * 3
Mx[r] = max(c: T30)
L[r] = sum(c: exp(T30 - Mx))
LSE[r] = Mx + log(L)
output LSE: f32
