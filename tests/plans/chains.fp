# Three independent softmax chains sharing K and V, and O built from them
# with an int param and a dim in the coefficients (regrouped, they must
# still divide as floats: k / D is 0 in integers for D > k).
plan chains
dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D
param k: int = 3
param lam: f32 = 0.5
input Q1[b, h, m, d]: bf16
input Q2[b, h, m, d]: bf16
input Q3[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16
S1[b, h, m, n] = sum(d: Q1 * K)
M1[b, h, m] = max(n: S1)
P1[b, h, m, n] = exp(S1 - M1)
L1[b, h, m] = sum(n: P1)
S2[b, h, m, n] = sum(d: Q2 * K)
M2[b, h, m] = max(n: S2)
P2[b, h, m, n] = exp(S2 - M2)
L2[b, h, m] = sum(n: P2)
S3[b, h, m, n] = sum(d: Q3 * K)
M3[b, h, m] = max(n: S3)
P3[b, h, m, n] = exp(S3 - M3)
L3[b, h, m] = sum(n: P3)
O1[b, h, m, d] = sum(n: P1 * V) / L1
O[b, h, m, d] = k * O1 / D - lam * sum(n: P2 * V) / L2 + sum(n: P3 * V) / (L3 * 2)
output O: bf16
schedule {
  reduce n: rolling
  target cuda, c
}
