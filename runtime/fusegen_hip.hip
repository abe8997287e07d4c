// fusegen_hip.hip - the host services of the generated HIP kernels
// (fusegen_hip_internal.h): one copy in libfusegen_hip.a instead of one per
// generated source.  Host code only (no kernels).
#include <atomic>
#include <stdint.h>

#include <hip/hip_runtime.h>

#include "fusegen_hip_internal.h"

static bool in_cache(int dev) { return dev >= 0 && dev < FG_HIP_MAX_DEVICES; }

extern "C" fg_status fg_hip_cu_count(int dev, int* cus, const char* entry) {
  static std::atomic<int> cache[FG_HIP_MAX_DEVICES];
  if (in_cache(dev)) {
    const int c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) {
      *cus = c;
      return FG_OK;
    }
  }
  int n = 0;
  const hipError_t e = hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, dev);
  if (e != hipSuccess || n <= 0) {
    (void)hipGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "%s: cannot read the CU count of device %d: %s", entry, dev,
                        hipGetErrorString(e));
  }
  if (in_cache(dev)) cache[dev].store(n, std::memory_order_relaxed);
  *cus = n;
  return FG_OK;
}

extern "C" fg_status fg_hip_alloc(int dev, hipStream_t st, size_t bytes, void** p, const char* entry) {
  static std::atomic<int> kept[FG_HIP_MAX_DEVICES];
  if (in_cache(dev) && !kept[dev].load(std::memory_order_relaxed)) {
    hipMemPool_t pool;
    if (hipDeviceGetDefaultMemPool(&pool, dev) == hipSuccess) {
      uint64_t keep = UINT64_MAX;  // keep freed workspace for the next launch
      (void)hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep);
    }
    (void)hipGetLastError();
    kept[dev].store(1, std::memory_order_relaxed);
  }
  *p = nullptr;
  if (hipMallocAsync(p, bytes, st) != hipSuccess) {
    const hipError_t e = hipGetLastError();
    *p = nullptr;
    return fg_set_error(FG_ERR_NOMEM, "%s: no device memory for %zu bytes of workspace: %s", entry, bytes,
                        hipGetErrorString(e));
  }
  return FG_OK;
}

extern "C" void fg_hip_free(hipStream_t st, void* p) {
  if (p) (void)hipFreeAsync(p, st);
}

extern "C" fg_status fg_hip_params_to_device(int dev, hipStream_t st, const fg_hip_param_vector* v, int n,
                                             size_t count, void** bufs, const char* entry) {
  for (int k = 0; k < n; k++) {
    if (!v[k].host) continue;
    const size_t bytes = sizeof(float) * count;
    fg_status s = fg_hip_alloc(dev, st, bytes, &bufs[k], entry);
    if (s != FG_OK) return s;
    if (hipMemcpyAsync(bufs[k], v[k].host, bytes, hipMemcpyHostToDevice, st) != hipSuccess) {
      const hipError_t e = hipGetLastError();
      return fg_set_error(FG_ERR_NOMEM, "%s: cannot copy param %s to the device: %s", entry, v[k].name,
                          hipGetErrorString(e));
    }
    *v[k].dev = static_cast<const float*>(bufs[k]);
  }
  return FG_OK;
}
