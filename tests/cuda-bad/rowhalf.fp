# The value per row stored in bf16: the attention kernels write it as f32.
plan rowhalf
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
LSE[b, h, m] = Mx + log(L)
output O: bf16, LSE: bf16
schedule {
  reduce n: rolling
}
