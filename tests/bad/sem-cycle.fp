# Statements that depend on each other in a circle.
plan cycle
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param scale: f32 = rsqrt(D)
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
A[b, h, m, d] = Q + C
E[b, h, m, d] = A * 2
C[b, h, m, d] = E - 1
output C: f32
