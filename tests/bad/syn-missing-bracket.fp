# Index lists without their closing ']'.
plan missing_bracket
dim R, C
axis r: R, c: C
input X[r, c: f32
Mx[r = max(c: X)
