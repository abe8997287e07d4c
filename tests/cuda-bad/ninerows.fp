# Nine values per row besides O: the attention kernels write at most eight.
plan ninerows
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K)
Mx[b, h, m] = max(n: S)
P[b, h, m, n] = exp(S - Mx)
L[b, h, m] = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
R1[b, h, m] = Mx + log(L)
R2[b, h, m] = Mx * 2
R3[b, h, m] = Mx * 3
R4[b, h, m] = Mx * 4
R5[b, h, m] = Mx * 5
R6[b, h, m] = Mx * 6
R7[b, h, m] = 1 / L
output O: bf16, Mx: f32, L: f32, R1: f32, R2: f32, R3: f32, R4: f32, R5: f32, R6: f32, R7: f32
schedule {
  reduce n: rolling
}
