// micro-benchmark: tanh.approx.f32 x2 against tanh.approx.f16x2 (with the pack
// and unpack) and tanh.approx.bf16x2, values per second on one GPU
#include <cstdio>
#include <cuda_fp16.h>
__device__ __forceinline__ float t32(float x) { float y; asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ void t16x2(float a, float b, float* ya, float* yb) {
  unsigned h, r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(b), "f"(a));
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(r) : "r"(h));
  asm("{.reg .f16 lo, hi;\nmov.b32 {lo, hi}, %2;\ncvt.f32.f16 %0, lo;\ncvt.f32.f16 %1, hi;\n}" : "=f"(*ya), "=f"(*yb) : "r"(r));
}
__device__ __forceinline__ void tb16x2(float a, float b, float* ya, float* yb) {
  unsigned h, r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(b), "f"(a));
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(r) : "r"(h));
  *ya = __uint_as_float(r << 16); *yb = __uint_as_float(r & 0xffff0000u);
}
template <int K>
__global__ void bench(float* out, int iters, float s) {
  float v[16];
  for (int i = 0; i < 16; ++i) v[i] = (threadIdx.x + i) * 1e-3f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < 16; i += 2) {
      float a = v[i] * s + 0.1f, b = v[i + 1] * s - 0.1f;  // one FFMA each, as the score's scale
      if (K == 0) { v[i] = t32(a); v[i + 1] = t32(b); }
      else if (K == 1) t16x2(a, b, &v[i], &v[i + 1]);
      else tb16x2(a, b, &v[i], &v[i + 1]);
    }
  }
  float acc = 0; for (int i = 0; i < 16; ++i) acc += v[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// accuracy over a range against tanhf
__global__ void acc(float* err) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = -8.f + 16.f * i / (gridDim.x * blockDim.x), a, b;
  float e0 = fabsf(t32(x) - tanhf(x));
  t16x2(x, x, &a, &b); float e1 = fabsf(a - tanhf(x));
  tb16x2(x, x, &a, &b); float e2 = fabsf(a - tanhf(x));
  atomicMax((int*)&err[0], __float_as_int(e0)); atomicMax((int*)&err[1], __float_as_int(e1)); atomicMax((int*)&err[2], __float_as_int(e2));
}
int main() {
  float* o; cudaMalloc(&o, 132 * 8 * 1024 * 4 * 4);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char* nm[3] = {"tanh.f32 x2", "tanh.f16x2+cvt", "tanh.bf16x2+cvt"};
  for (int rep = 0; rep < 2; ++rep)
  for (int k = 0; k < 3; ++k) {
    int blocks = 132 * 8, threads = 256, iters = 2000;
    for (int w = 0; w < 2; ++w) {
      cudaEventRecord(e0);
      if (k == 0) bench<0><<<blocks, threads>>>(o, iters, 0.37f);
      if (k == 1) bench<1><<<blocks, threads>>>(o, iters, 0.37f);
      if (k == 2) bench<2><<<blocks, threads>>>(o, iters, 0.37f);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
    }
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double vals = (double)blocks * threads * iters * 16;
    printf("%-18s %8.3f ms  %7.1f Gvalues/s  (%.2f values/clk/SM at 1.98 GHz)\n", nm[k], ms, vals / ms / 1e6, vals / (ms * 1e-3) / 1.98e9 / 132);
  }
  float* err; cudaMalloc(&err, 12); cudaMemset(err, 0, 12);
  acc<<<1024, 256>>>(err); float h[3]; cudaMemcpy(h, err, 12, cudaMemcpyDeviceToHost);
  printf("max abs error on [-8, 8]: f32 %.3g  f16x2 %.3g  bf16x2 %.3g\n", h[0], h[1], h[2]);
  return 0;
}
