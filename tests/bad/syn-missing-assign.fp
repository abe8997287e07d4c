# Statements without '='.
plan missing_assign
dim R, C
axis r: R, c: C
input X[r, c]: f32
Mx[r] max(c: X)
L[r] := sum(c: X)
