// fusegen_cuda.cu - the host services of the generated CUDA kernels
// (fusegen_cuda_internal.h): one copy in libfusegen_cuda.a instead of one per
// generated source.  Host code only (no kernels); compiled by nvcc with the
// other .cu sources (build-aux/device.mk).
#include <atomic>
#include <mutex>
#include <vector>
#include <stdint.h>
#include <string.h>

#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include "fusegen_cuda_internal.h"

// Devices 0..FG_CUDA_MAX_DEVICES-1 have cached facts.
static bool in_cache(int dev) { return dev >= 0 && dev < FG_CUDA_MAX_DEVICES; }

// The caller's zero-initialised C structs, used as atomics: GCC's builtins
// work on plain objects (the host compiler of nvcc is GCC or Clang).
static bool bit_test(const fg_cuda_once* once, int dev) {
  return in_cache(dev) && (__atomic_load_n(&once->bits, __ATOMIC_ACQUIRE) >> dev) & 1ull;
}
static void bit_set(fg_cuda_once* once, int dev) {
  if (in_cache(dev)) __atomic_fetch_or(&once->bits, 1ull << dev, __ATOMIC_RELEASE);
}

#if CUDART_VERSION >= 12000
// One ticket buffer per (device, stream).  A named namespace: the vector's
// members are weak symbols that a program's own types must not meet.
namespace fusegen_cuda_detail {
struct ticket_buf {
  int dev;
  unsigned long long stream_id;
  unsigned* p;
  size_t n;
};
}  // namespace fusegen_cuda_detail
using fusegen_cuda_detail::ticket_buf;
#endif

extern "C" fg_status fg_cuda_sm_count(int dev, int* sms, const char* entry) {
  static std::atomic<int> cache[FG_CUDA_MAX_DEVICES];
  if (in_cache(dev)) {
    const int c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) {
      *sms = c;
      return FG_OK;
    }
  }
  int n = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess || n <= 0) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "%s: cannot read the SM count of device %d: %s", entry, dev,
                        cudaGetErrorString(e));
  }
  if (in_cache(dev)) cache[dev].store(n, std::memory_order_relaxed);
  *sms = n;
  return FG_OK;
}

extern "C" int fg_cuda_tune_table(const fg_tune_table* tables, int n, int dev, fg_cuda_per_device* cache) {
  if (n <= 0) return -1;
  if (in_cache(dev)) {
    const int c = __atomic_load_n(&cache->value[dev], __ATOMIC_RELAXED);
    if (c > 0) return c - 2;
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;  // not cached: the next launch asks again
  }
  const int t = fg_tune_table_for(tables, n, prop.name, prop.multiProcessorCount);
  if (in_cache(dev)) __atomic_store_n(&cache->value[dev], t + 2, __ATOMIC_RELAXED);
  return t;
}

extern "C" fg_status fg_cuda_smem_optin(const void* kernel, size_t bytes, fg_cuda_once* done, int dev,
                                        const char* entry) {
  if (bit_test(done, dev)) return FG_OK;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: this device cannot give the kernel %zu bytes of shared memory: %s",
                        entry, bytes, cudaGetErrorString(e));
  }
  bit_set(done, dev);
  return FG_OK;
}

extern "C" int fg_cuda_occupancy(const void* kernel, int threads, size_t smem, int dev, fg_cuda_per_device* cache) {
  int occ = in_cache(dev) ? __atomic_load_n(&cache->value[dev], __ATOMIC_RELAXED) : 0;
  if (occ <= 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&occ, kernel, threads, smem, cudaOccupancyDefault) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      occ = 1;
    }
    if (occ < 1) occ = 1;
    if (in_cache(dev)) __atomic_store_n(&cache->value[dev], occ, __ATOMIC_RELAXED);
  }
  return occ;
}

extern "C" fg_status fg_cuda_pool(int dev, cudaMemPool_t* pool, const char* entry) {
  static std::mutex lock;
  static cudaMemPool_t pools[FG_CUDA_MAX_DEVICES];
  if (!in_cache(dev))
    return fg_set_error(FG_ERR_DEVICE, "%s: device %d is beyond the %d this library serves", entry, dev,
                        FG_CUDA_MAX_DEVICES);
  std::lock_guard<std::mutex> g(lock);
  if (!pools[dev]) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t np;
    // The first call may come while the caller captures a graph: creating a
    // pool is not a stream operation, so this thread may make it then
    // (relaxed capture mode for the call, the caller's mode restored after).
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    cudaError_t e = cudaMemPoolCreate(&np, &props);
    if (e == cudaSuccess) {
      uint64_t keep = UINT64_MAX;  // keep freed workspace for reuse
      (void)cudaMemPoolSetAttribute(np, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return fg_set_error(FG_ERR_DEVICE, "%s: cannot create the workspace pool of device %d: %s", entry, dev,
                          cudaGetErrorString(e));
    }
    pools[dev] = np;
  }
  *pool = pools[dev];
  return FG_OK;
}

extern "C" unsigned* fg_cuda_tickets(int dev, cudaStream_t st, size_t n, const char* entry) {
#if CUDART_VERSION >= 12000
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  if (cudaStreamIsCapturing(st, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone ||
      cudaStreamGetId(st, &id) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  static std::mutex lock;
  static std::vector<ticket_buf> bufs;
  std::lock_guard<std::mutex> g(lock);
  ticket_buf* b = nullptr;
  for (auto& x : bufs)
    if (x.dev == dev && x.stream_id == id) b = &x;
  if (b && b->n >= n) return b->p;
  cudaMemPool_t pool;
  void* p = nullptr;
  if (fg_cuda_pool(dev, &pool, entry) != FG_OK ||
      cudaMallocFromPoolAsync(&p, n * sizeof(unsigned), pool, st) != cudaSuccess ||
      cudaMemsetAsync(p, 0, n * sizeof(unsigned), st) != cudaSuccess) {
    (void)cudaGetLastError();
    if (p) (void)cudaFreeAsync(p, st);
    return nullptr;
  }
  if (b) {
    (void)cudaFreeAsync(b->p, st);  // after the launches that used it, in stream order
    b->p = static_cast<unsigned*>(p);
    b->n = n;
  } else {
    bufs.push_back(ticket_buf{dev, id, static_cast<unsigned*>(p), n});
  }
  return static_cast<unsigned*>(p);
#else
  (void)dev;
  (void)st;
  (void)n;
  (void)entry;
  return nullptr;  // no stream ids before CUDA 12: the combine kernel
#endif
}

extern "C" fg_status fg_cuda_params_to_device(int dev, cudaStream_t st, const fg_cuda_param_vector* v, int n,
                                              size_t count, void** bufs, const char* entry) {
  for (int k = 0; k < n; k++) {
    if (!v[k].host) continue;
    cudaMemPool_t pool;
    fg_status s = fg_cuda_pool(dev, &pool, entry);
    if (s != FG_OK) return s;
    const size_t bytes = sizeof(float) * count;
    if (cudaMallocFromPoolAsync(&bufs[k], bytes, pool, st) != cudaSuccess ||
        cudaMemcpyAsync(bufs[k], v[k].host, bytes, cudaMemcpyHostToDevice, st) != cudaSuccess) {
      const cudaError_t e = cudaGetLastError();
      return fg_set_error(FG_ERR_NOMEM, "%s: cannot copy param %s to the device: %s", entry, v[k].name,
                          cudaGetErrorString(e));
    }
    *v[k].dev = static_cast<const float*>(bufs[k]);
  }
  return FG_OK;
}

extern "C" void fg_cuda_params_free(cudaStream_t st, void** bufs, int n) {
  for (int k = 0; k < n; k++)
    if (bufs[k]) (void)cudaFreeAsync(bufs[k], st);
}

extern "C" int fg_cuda_span_summary_off(void) {
  static const int off = [] {
    const char* f = getenv("FUSEGEN_SPAN_SUMMARY");
    return f != nullptr && strcmp(f, "off") == 0;
  }();
  return off;
}

extern "C" long long fg_cuda_l2_bytes(int dev) {
  static std::atomic<long long> cache[FG_CUDA_MAX_DEVICES];
  if (in_cache(dev)) {
    const long long c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) return c;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrL2CacheSize, dev) != cudaSuccess || n <= 0) {
    (void)cudaGetLastError();  // not the launch's error; not cached
    return 0;
  }
  if (in_cache(dev)) cache[dev].store(n, std::memory_order_relaxed);
  return n;
}

extern "C" int fg_cuda_head_groups(void) {
  // "off": -1; a whole number k >= 1: k; unset, empty or anything else: 0
  static const int v = [] {
    const char* f = getenv("FUSEGEN_HEAD_GROUPS");
    if (f == nullptr) return 0;
    if (strcmp(f, "off") == 0) return -1;
    char* end = nullptr;
    const long k = strtol(f, &end, 10);
    return end != f && *end == '\0' && k >= 1 && k <= 65535 ? (int)k : 0;
  }();
  return v;
}

extern "C" int fg_cuda_sm90a(const void* code_flag, int dev, fg_cuda_per_device* cache) {
  // FUSEGEN_CUDA_FAMILY=sm80: the sm_80 family everywhere (read once)
  static const int forced_sm80 = [] {
    const char* f = getenv("FUSEGEN_CUDA_FAMILY");
    return f != nullptr && strcmp(f, "sm80") == 0;
  }();
  if (forced_sm80) return 0;
  int v = in_cache(dev) ? __atomic_load_n(&cache->value[dev], __ATOMIC_RELAXED) : 0;
  if (v != 0) return v == 2;  // 1: no, 2: yes
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;  // not cached: the next launch asks again
  }
  if (major != 9 || minor != 0) {
    v = 1;
  } else {
    // The flag is 1 only in the sm_90a image of the caller's source; the
    // module the runtime loads for this device says whether that is the one
    // (an sm_90 image, built without 90a, holds 0 and an empty kernel).
    // Relaxed capture mode: the first launch may come inside a capture.
    int flag = 0;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    const cudaError_t e = cudaMemcpyFromSymbol(&flag, code_flag, sizeof flag, 0, cudaMemcpyDeviceToHost);
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;  // not cached
    }
    v = flag == 1 ? 2 : 1;
  }
  if (in_cache(dev)) __atomic_store_n(&cache->value[dev], v, __ATOMIC_RELAXED);
  return v == 2;
}

#if CUDART_VERSION >= 12000
typedef CUresult (*fg_encode_fn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// cuTensorMapEncodeTiled from the driver, looked up once (thread-safe static
// initialisation); null when the driver has none.
static fg_encode_fn encode_fn() {
  static const fg_encode_fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<fg_encode_fn>(p);
  }();
  return fn;
}
#endif

extern "C" int fg_cuda_tensor_map(void* map, int bf16, const void* base, const long long ext[4],
                                  const long long stride[4], int box0, int box1) {
#if CUDART_VERSION >= 12000
  const fg_encode_fn fn = encode_fn();
  if (!fn) return -1;
  cuuint64_t dims[4], strides[3];
  for (int i = 0; i < 4; i++) {
    if (ext[i] <= 0) return -1;
    dims[i] = (cuuint64_t)ext[i];
  }
  for (int i = 1; i < 4; i++) {
    // an extent of 1 is never stepped over: any stride the engine takes will do
    long long st = ext[i] == 1 ? 16 : stride[i] * 2;
    if (st <= 0 || st % 16 != 0) return -1;
    strides[i - 1] = (cuuint64_t)st;
  }
  const cuuint32_t box[4] = {(cuuint32_t)box0, (cuuint32_t)box1, 1, 1};
  const cuuint32_t estride[4] = {1, 1, 1, 1};
  const CUresult r = fn(reinterpret_cast<CUtensorMap*>(map),
                        bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
                        const_cast<void*>(base), dims, strides, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : -1;
#else
  (void)map; (void)bf16; (void)base; (void)ext; (void)stride; (void)box0; (void)box1;
  return -1;  // no tensor maps before CUDA 12
#endif
}
