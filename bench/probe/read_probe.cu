// bench/probe/read_probe.cu - how fast an H100/H200 reads 32k-element rows,
// by three plain kernels, beside fusegen's logsumexp (bench/NOTES.md,
// 2026-11-24, tenth session).  Not part of the build: a device call compiles
// it with  nvcc -O3 -arch=sm_90a -o read_probe bench/probe/read_probe.cu
// and runs it; it prints GB/s (bytes read / median time of 30 launches).
//   flat     the whole tensor as one stream: a grid of 4 CTAs of 512 threads
//            per SM, each thread 4 16-byte loads in flight per step, a sum
//   row      one row per CTA of 512 threads, all of a thread's 16-byte loads
//            in flight at once, a sum merged by the CTA (fusegen's kept form
//            with one level)
//   row2     the same rows by one persistent CTA of 512 threads per SM, the
//            next row's loads issued before this row is summed (registers
//            double-buffered; bf16 only)
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_bf16.h>

template <typename T> __device__ __forceinline__ float sum16(const uint4& u);
template <> __device__ __forceinline__ float sum16<float>(const uint4& u) {
  return __uint_as_float(u.x) + __uint_as_float(u.y) + __uint_as_float(u.z) + __uint_as_float(u.w);
}
template <> __device__ __forceinline__ float sum16<__nv_bfloat16>(const uint4& u) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
  float s = 0.f;
  for (int i = 0; i < 4; i++) s += __uint_as_float(w[i] << 16) + __uint_as_float(w[i] & 0xffff0000u);
  return s;
}

__device__ float block_sum(float s, float* sh) {
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = s;
  __syncthreads();
  float t = threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x] : 0.f;
  for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
  return t;
}

template <typename T>
__global__ void __launch_bounds__(512) flat(const uint4* x, long long n16, float* out) {
  __shared__ float sh[16];
  float s = 0.f;
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = __ldg(x + i), b = __ldg(x + i + stride), c = __ldg(x + i + 2 * stride), d = __ldg(x + i + 3 * stride);
    s += sum16<T>(a) + sum16<T>(b) + sum16<T>(c) + sum16<T>(d);
  }
  for (; i < n16; i += stride) s += sum16<T>(__ldg(x + i));
  s = block_sum(s, sh);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template <typename T, int K>
__global__ void __launch_bounds__(512, 2) row(const uint4* x, float* out) {
  __shared__ float sh[16];
  const uint4* r = x + (long long)blockIdx.x * 512 * K;
  uint4 u[K];
#pragma unroll
  for (int k = 0; k < K; k++) u[k] = __ldg(r + k * 512 + threadIdx.x);
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < K; k++) s += sum16<T>(u[k]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template <typename T, int K>
__global__ void __launch_bounds__(512, 1) row2(const uint4* x, long long rows, float* out) {
  __shared__ float sh[16];
  uint4 a[K], b[K];
  long long rw = blockIdx.x;
  auto load = [&](long long q, uint4 (&u)[K]) {
    const uint4* r = x + q * 512 * K;
#pragma unroll
    for (int k = 0; k < K; k++) u[k] = __ldg(r + k * 512 + threadIdx.x);
  };
  auto use = [&](long long q, const uint4 (&u)[K]) {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < K; k++) s += sum16<T>(u[k]);
    s = block_sum(s, sh);
    if (threadIdx.x == 0) out[q] = s;
  };
  if (rw < rows) load(rw, a);
  for (; rw < rows; rw += 2 * gridDim.x) {
    const long long r1 = rw + gridDim.x, r2 = r1 + gridDim.x;
    if (r1 < rows) load(r1, b);
    use(rw, a);
    if (r1 >= rows) break;
    if (r2 < rows) load(r2, a);
    use(r1, b);
  }
}

template <typename F>
static float time_ms(F f) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int i = 0; i < 3; i++) f();
  std::vector<float> ts;
  for (int i = 0; i < 30; i++) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const size_t bytes = 256u << 20;
  uint4* x;
  float* out;
  cudaMalloc(&x, bytes);
  cudaMalloc(&out, 1 << 20);
  cudaMemset(x, 0x3c, bytes);
  const long long n16 = bytes / 16;
  struct { const char* name; float ms; } res[5];
  res[0] = {"flat bf16", time_ms([&] { flat<__nv_bfloat16><<<sms * 4, 512>>>(x, n16, out); })};
  res[1] = {"flat f32", time_ms([&] { flat<float><<<sms * 4, 512>>>(x, n16, out); })};
  res[2] = {"row bf16 4096x32768", time_ms([&] { row<__nv_bfloat16, 8><<<4096, 512>>>(x, out); })};
  res[3] = {"row f32 2048x32768", time_ms([&] { row<float, 16><<<2048, 512>>>(x, out); })};
  res[4] = {"row2 bf16 4096x32768", time_ms([&] { row2<__nv_bfloat16, 8><<<sms, 512>>>(x, 4096, out); })};
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
  for (auto& r : res) printf("%-22s %.4f ms  %.0f GB/s\n", r.name, r.ms, bytes / (r.ms * 1e6));
  return 0;
}
