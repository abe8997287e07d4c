// bench/probe/decode_probe.cu - how fast an H100/H200 can stream the K and V
// of a decode step (one query row a head, [B, Hkv, N, 128] bf16 each), by
// plain 16-byte loads and by the tensor memory accelerator's bulk copies
// into shared memory: the ceiling a Hopper decode kernel with TMA loads
// could reach, beside fusegen's split decode kernels timed in the same call
// (issue 10; bench/NOTES.md, 2026-11-27, twenty-second session).  Not part
// of the build: a device call compiles it with
//   nvcc -O3 -arch=sm_90a -o decode_probe bench/probe/decode_probe.cu
// and runs it with B Hkv N; it prints GB/s (K and V bytes read once / the
// median time of 30 launches) for every split count tried, each kernel's
// best, and checks each kernel's total against the host's (positive data:
// a lost tile of keys fails it).  K and V are the same buffers
// every launch, so a shape under the L2's size (50 MB on an H200) would time
// the L2: the decode cases' shapes are 134 MB to 2.1 GB.
//   ldg   grid (splits, B x Hkv), 128 threads: each CTA reads its keys'
//         K and V rows with 16-byte loads, 4 x 2 of a thread's in flight
//   tma   the same grid, 160 threads: one thread of warp 0 copies tiles of 32
//         keys of K and V (8 KiB each) into a ring of 4 stages by
//         cp.async.bulk, completing on an mbarrier a stage; warps 1-4 sum
//         a stage from shared memory and give it back on a second mbarrier
//   ringW.S  the split decode kernel's organisation (templates/cuda/sm80/
//         split.cuh): W warps, each with its own ring of S slots of 16 keys
//         of K and V in padded rows (D + 8 elements), filled by its lanes'
//         16-byte cp.async copies, the warps taking the CTA's tiles in turn;
//         a tile is waited for, the copy S - 1 tiles ahead issued, then the
//         tile summed (ring8.2 is CD128_8W's)
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <algorithm>
#include <vector>
#include <cuda_bf16.h>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int ROW = 256;  // bytes of one key's row: 128 bf16

__host__ __device__ __forceinline__ long long lmin(long long a, long long b) { return a < b ? a : b; }

__device__ __forceinline__ float sum16(const uint4& u) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 4; i++) s += __uint_as_float(w[i] << 16) + __uint_as_float(w[i] & 0xffff0000u);
  return s;
}

__device__ float block_sum(float s, float* sh, int nthreads, int t) {
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __syncthreads();
  if ((t & 31) == 0) sh[t >> 5] = s;
  __syncthreads();
  float r = 0.f;
  if (t == 0)
    for (int w = 0; w < nthreads / 32; w++) r += sh[w];
  return r;
}

// keys [k0, k1) of (b, hkv) = blockIdx.y; K and V contiguous rows
__global__ void __launch_bounds__(128) ldg(const uint4* K, const uint4* V, long long n, int chunk, float* out) {
  __shared__ float sh[4];
  const long long base = (long long)blockIdx.y * n * (ROW / 16);
  const long long k0 = (long long)blockIdx.x * chunk, k1 = lmin(k0 + chunk, n);
  const int t = threadIdx.x;
  float s = 0.f;
  // a step: 8 keys (128 threads x 16 bytes = 2048 bytes) of K and of V;
  // four steps in flight
  long long i = k0 * (ROW / 16) + t, end = k1 * (ROW / 16);
  for (; i + 3 * 128 < end; i += 4 * 128) {
    uint4 a[4], b[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      a[u] = __ldg(K + base + i + u * 128);
      b[u] = __ldg(V + base + i + u * 128);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) s += sum16(a[u]) + sum16(b[u]);
  }
  for (; i < end; i += 128) s += sum16(__ldg(K + base + i)) + sum16(__ldg(V + base + i));
  s = block_sum(s, sh, 128, t);
  if (t == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bar_init(uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_expect(uint32_t bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bar_wait(uint32_t bar, unsigned phase) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, unsigned bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

constexpr int TK = 32;  // keys a stage
constexpr int ST = 4;   // stages

__global__ void __launch_bounds__(160) tma(const char* K, const char* V, long long n, int chunk, float* out) {
  extern __shared__ __align__(128) char sm[];  // ST stages of K then V, TK rows each
  __shared__ __align__(8) unsigned long long full[ST], empty[ST];
  __shared__ float sh[5];
  const int t = threadIdx.x;
  const long long base = (long long)blockIdx.y * n * ROW;
  const long long k0 = (long long)blockIdx.x * chunk, k1 = lmin(k0 + chunk, n);
  const int tiles = k1 > k0 ? (int)((k1 - k0 + TK - 1) / TK) : 0;
  if (t == 0) {
    for (int s = 0; s < ST; s++) {
      bar_init(smem_addr(&full[s]), 1);
      bar_init(smem_addr(&empty[s]), 4);  // one arrive a consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  float s = 0.f;
  if (t < 32) {  // the producer: one thread
    if (t == 0)
      for (int it = 0; it < tiles; it++) {
        const int st = it % ST;
        if (it >= ST) bar_wait(smem_addr(&empty[st]), ((it / ST) - 1) & 1);
        const long long a = k0 + (long long)it * TK;
        const unsigned bytes = (unsigned)(lmin(TK, k1 - a) * ROW);
        const uint32_t f = smem_addr(&full[st]);
        bar_expect(f, 2 * bytes);
        bulk_load(smem_addr(sm + st * 2 * TK * ROW), K + base + a * ROW, bytes, f);
        bulk_load(smem_addr(sm + st * 2 * TK * ROW + TK * ROW), V + base + a * ROW, bytes, f);
      }
  } else {
    const int c = t - 32;  // 0..127
    for (int it = 0; it < tiles; it++) {
      const int st = it % ST;
      bar_wait(smem_addr(&full[st]), (it / ST) & 1);
      const long long a = k0 + (long long)it * TK;
      const int rows = (int)lmin(TK, k1 - a);
      const uint4* kk = reinterpret_cast<const uint4*>(sm + st * 2 * TK * ROW);
      const uint4* vv = reinterpret_cast<const uint4*>(sm + st * 2 * TK * ROW + TK * ROW);
      for (int i = c; i < rows * (ROW / 16); i += 128) s += sum16(kk[i]) + sum16(vv[i]);
      __syncwarp();
      if ((c & 31) == 0) bar_arrive(smem_addr(&empty[st]));
    }
  }
  s = block_sum(s, sh, 160, t);
  if (t == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

__device__ __forceinline__ void cp16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
template <int N>
__device__ __forceinline__ void cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

constexpr int RK = 16;         // keys a warp tile
constexpr int SROW = ROW + 16;  // padded smem row, bytes

template <int W, int S>
__global__ void __launch_bounds__(W * 32) ring(const char* K, const char* V, long long n, int chunk, float* out) {
  extern __shared__ __align__(128) char sm[];  // W rings of S slots: K rows then V rows
  __shared__ float sh[W];
  const int t = threadIdx.x, w = t >> 5, lane = t & 31;
  const long long base = (long long)blockIdx.y * n * ROW;
  const long long k0 = (long long)blockIdx.x * chunk, k1 = lmin(k0 + chunk, n);
  const int tiles = k1 > k0 ? (int)((k1 - k0 + RK - 1) / RK) : 0;
  const int ntw = tiles > w ? (tiles - w + W - 1) / W : 0;  // this warp's tiles: w, w + W, ...
  char* myring = sm + (size_t)w * S * 2 * RK * SROW;
  auto load = [&](int it) {  // the warp's it-th tile into slot it % S
    const long long a = k0 + (long long)(w + it * W) * RK;
    char* slot = myring + (it % S) * 2 * RK * SROW;
    for (int c = lane; c < RK * (ROW / 16); c += 32) {
      const int r = c / (ROW / 16), q = c % (ROW / 16);
      if (a + r < k1) {
        cp16((uint32_t)__cvta_generic_to_shared(slot + r * SROW + q * 16), K + base + (a + r) * ROW + q * 16);
        cp16((uint32_t)__cvta_generic_to_shared(slot + (RK + r) * SROW + q * 16), V + base + (a + r) * ROW + q * 16);
      }
    }
  };
  for (int i = 0; i < S - 1; i++) {
    if (i < ntw) load(i);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  float s = 0.f;
  for (int it = 0; it < ntw; it++) {
    cp_wait<S - 2>();
    __syncwarp();
    if (it + S - 1 < ntw) load(it + S - 1);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    const long long a = k0 + (long long)(w + it * W) * RK;
    const int rows = (int)lmin(RK, k1 - a);
    const char* slot = myring + (it % S) * 2 * RK * SROW;
    for (int c = lane; c < rows * (ROW / 16); c += 32) {
      const int r = c / (ROW / 16), q = c % (ROW / 16);
      s += sum16(*reinterpret_cast<const uint4*>(slot + r * SROW + q * 16)) +
           sum16(*reinterpret_cast<const uint4*>(slot + (RK + r) * SROW + q * 16));
    }
    __syncwarp();
  }
  cp_wait<0>();
  s = block_sum(s, sh, W * 32, t);
  if (t == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

template <typename F>
static float time_ms(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; i++) launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> v;
  for (int i = 0; i < 30; i++) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: decode_probe B HKV N\n");
    return 2;
  }
  const long long B = atoll(argv[1]), H = atoll(argv[2]), N = atoll(argv[3]);
  const long long rows = B * H * N, bytes = rows * ROW;
  std::vector<uint16_t> hk(rows * 128), hv(rows * 128);
  srand(5);
  double want = 0;
  for (long long i = 0; i < rows * 128; i++) {
    // bf16 of positive eighths (exact), so that nothing lost cancels out
    const float a = (float)(1 + rand() % 8) / 8.f, b = (float)(1 + rand() % 8) / 8.f;
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    hk[i] = (uint16_t)(ua >> 16);
    hv[i] = (uint16_t)(ub >> 16);
    want += (double)a + b;
  }
  char *K, *V;
  float* out;
  CK(cudaMalloc(&K, bytes));
  CK(cudaMalloc(&V, bytes));
  CK(cudaMalloc(&out, 4 << 20));
  CK(cudaMemcpy(K, hk.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(V, hv.data(), bytes, cudaMemcpyHostToDevice));
  const int smem = ST * 2 * TK * ROW;
  CK(cudaFuncSetAttribute(tma, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // the ring kernels: name, launch, shared memory
  struct rk {
    const char* name;
    void (*fn)(const char*, const char*, long long, int, float*);
    int warps, smem;
  };
  const rk rings[] = {
      {"ring8.2", ring<8, 2>, 8, 8 * 2 * 2 * RK * SROW},
      {"ring8.3", ring<8, 3>, 8, 8 * 3 * 2 * RK * SROW},
      {"ring4.2", ring<4, 2>, 4, 4 * 2 * 2 * RK * SROW},
      {"ring4.4", ring<4, 4>, 4, 4 * 4 * 2 * RK * SROW},
  };
  const int nk = 2 + (int)(sizeof rings / sizeof rings[0]);
  for (const rk& r : rings) CK(cudaFuncSetAttribute(r.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double gbytes = 2.0 * (double)bytes / 1e9;
  double best[8] = {0};
  int bests[8] = {0};
  int bad = 0;
  for (int splits = 1; splits <= 256; splits *= 2) {
    if (B * H > 65535 || B * H * splits > (4 << 20) / 4 || (splits > 1 && N / splits < 64)) break;
    const int chunk = (int)((N + splits - 1) / splits);
    const dim3 grid(splits, (unsigned)(B * H));
    const int n_out = splits * (int)(B * H);
    for (int k = 0; k < nk; k++) {
      CK(cudaMemset(out, 0, (size_t)n_out * 4));
      auto launch = [&] {
        if (k == 0)
          ldg<<<grid, 128>>>(reinterpret_cast<const uint4*>(K), reinterpret_cast<const uint4*>(V), N, chunk, out);
        else if (k == 1)
          tma<<<grid, 160, smem>>>(K, V, N, chunk, out);
        else
          rings[k - 2].fn<<<grid, rings[k - 2].warps * 32, rings[k - 2].smem>>>(K, V, N, chunk, out);
      };
      launch();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> h(n_out);
      CK(cudaMemcpy(h.data(), out, (size_t)n_out * 4, cudaMemcpyDeviceToHost));
      double got = 0;
      for (float x : h) got += x;
      // the partial sums of eighths are exact below 2^21; the CTAs' last
      // adds round by a few 2^-24 of the total; a lost tile of 16 keys
      // (the ring kernels') moves it by at least 16 x 256 / 8 = 512, more
      // than 2^-21 of the largest shape's total (6.0e8: 288)
      const bool ok = std::abs(got - want) <= 1.0 + want / 2097152.0;
      bad += !ok;
      const float ms = time_ms(launch);
      const double gbs = gbytes / (ms * 1e-3);
      if (gbs > best[k]) best[k] = gbs, bests[k] = splits;
      printf("B %lld Hkv %lld N %lld splits %3d (%6d CTAs, %.1f a SM) %s %8.4f ms %7.1f GB/s%s\n", B, H, N, splits,
             n_out, (double)n_out / sms, k == 0 ? "ldg" : k == 1 ? "tma" : rings[k - 2].name, ms, gbs,
             ok ? "" : "  SUM WRONG");
    }
  }
  printf("best: B %lld Hkv %lld N %lld  ldg %.1f (%d)  tma %.1f (%d)", B, H, N, best[0], bests[0], best[1], bests[1]);
  for (int k = 2; k < nk; k++) printf("  %s %.1f (%d)", rings[k - 2].name, best[k], bests[k]);
  printf(" GB/s (splits)%s\n", bad ? "  (some sums wrong)" : "");
  return bad ? 1 : 0;
}
