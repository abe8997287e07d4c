# Tokens where an item or an expression should be.
plan unexpected
dim R, C
axis r: R, c: C
input X[r, c]: f32
= X
Y[r, c] = X * * 2
Z[r, c] = X Y
