# Each statement reads the one before twice: written out in the running
# sum, the body doubles at every step (2^11 copies of exp(X - Mx)).
plan doubling
dim R, C
axis r: R, c: C
input X[r, c]: f32
Mx[r] = max(c: X)
T0[r, c] = exp(X - Mx)
T1[r, c] = T0 + T0 * 3
T2[r, c] = T1 + T1 * 3
T3[r, c] = T2 + T2 * 3
T4[r, c] = T3 + T3 * 3
T5[r, c] = T4 + T4 * 3
T6[r, c] = T5 + T5 * 3
T7[r, c] = T6 + T6 * 3
T8[r, c] = T7 + T7 * 3
T9[r, c] = T8 + T8 * 3
T10[r, c] = T9 + T9 * 3
T11[r, c] = T10 + T10 * 3
L[r] = sum(c: T11)
output L: f32
