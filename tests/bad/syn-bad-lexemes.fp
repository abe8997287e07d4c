# Characters and numbers the lexer rejects.
plan lexemes
dim R, C
axis r: R, c: C
input X[r, c]: f32
Y[r, c] = X & 1 | 2
Z[r, c] = X @ 3abc + 3000000000
