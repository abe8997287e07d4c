# Causal sigmoid attention (Ramapuram et al., 2024): each visible key
# weighs in by sigmoid(score + bias), with no softmax normalisation, so
# there is no running maximum: the only running value, O, carries the head
# dim d, which the score reduces over.
plan sigmoid
doc "Causal sigmoid attention: O = sum over visible keys of sigmoid(Q.K * scale + bias) * V, bias -log(N)."

dim B, H, M, N, D
axis b: B, h: H, m: M, n: N, d: D

param scale: f32 = rsqrt(D)
param bias: f32 = -log(N)

input Q[b, h, m, d]: bf16
input K[b, h, n, d]: bf16
input V[b, h, n, d]: bf16

S[b, h, m, n] = sum(d: Q * K) * scale + bias
T[b, h, m, n] = where(n <= m + N - M, S, -inf)
W[b, h, m, n] = sigmoid(T)
O[b, h, m, d] = sum(n: W * V)

output O: bf16

schedule {
  reduce n: rolling
  tile m = 128, n = 64
  warps = 4
  stages = 2
  target cuda, hip, c
}
