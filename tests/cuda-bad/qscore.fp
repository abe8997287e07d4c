# A score that reads Q outside the contraction: the attention kernels load Q
# tiles for Q.K only (other inputs may be read by the score and the mask).
plan qscore
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S[b, h, m, n] = sum(d: Q * K) + Q[b, h, m, 0]
Mx[b, h, m] = max(n: S)
P[b, h, m, n] = exp(S - Mx)
L[b, h, m] = sum(n: P)
O[b, h, m, d] = sum(n: P * V) / L
output O: bf16
schedule {
  reduce n: rolling
}
