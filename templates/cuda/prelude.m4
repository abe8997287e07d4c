m4_dnl cuda/prelude.m4 - what every CUDA kernel source shares: host helpers
m4_dnl for the parameter defaults, the per-device facts and the stream-ordered
m4_dnl workspace pool.  Included inside the plan's namespace.
// Host versions of the plan's functions, for parameter defaults.
static inline double plan_rsqrt_host(double x) { return 1.0 / sqrt(x); }
static inline double plan_sigmoid_host(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline long plan_min_host(long x, long y) { return x < y ? x : y; }
static inline long plan_max_host(long x, long y) { return x > y ? x : y; }

// Devices whose facts are cached (more are served, uncached).
constexpr int PLAN_MAX_DEVICES = 64;

// A bit per device: set once the attribute of one kernel instantiation is
// set there.  Setting it twice (two threads racing on the first call) is
// harmless, so an atomic bit set is all the synchronisation needed.
static inline bool plan_device_bit_test(const std::atomic<unsigned long long>& bits, int dev) {
  return dev >= 0 && dev < PLAN_MAX_DEVICES && (bits.load(std::memory_order_acquire) >> dev) & 1ull;
}
static inline void plan_device_bit_set(std::atomic<unsigned long long>& bits, int dev) {
  if (dev >= 0 && dev < PLAN_MAX_DEVICES) bits.fetch_or(1ull << dev, std::memory_order_release);
}

// Dynamic shared memory above 48 KB needs an opt-in per kernel and device.
template <typename K>
static fg_status plan_set_smem(K kernel, size_t smem, std::atomic<unsigned long long>& done, int dev,
                               const char* entry) {
  if (plan_device_bit_test(done, dev)) return FG_OK;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: this device cannot give the kernel %zu bytes of shared memory: %s",
                        entry, smem, cudaGetErrorString(e));
  }
  plan_device_bit_set(done, dev);
  return FG_OK;
}

// The number of SMs of a device, queried once per device.
static inline fg_status plan_sm_count(int dev, int* sms, const char* entry) {
  static std::atomic<int> cache[PLAN_MAX_DEVICES];
  if (dev >= 0 && dev < PLAN_MAX_DEVICES) {
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
  if (dev >= 0 && dev < PLAN_MAX_DEVICES) cache[dev].store(n, std::memory_order_relaxed);
  *sms = n;
  return FG_OK;
}

// Device buffers of a launch (split partials, per-head params) come from a
// stream-ordered pool per device (cudaMallocFromPoolAsync / cudaFreeAsync on the
// caller's stream): nothing is shared between streams, and the pool keeps its
// memory for the next launch.
static inline fg_status plan_pool(int dev, cudaMemPool_t* pool, const char* entry) {
  static std::mutex lock;
  static cudaMemPool_t pools[PLAN_MAX_DEVICES];
  if (dev < 0 || dev >= PLAN_MAX_DEVICES)
    return fg_set_error(FG_ERR_DEVICE, "%s: device %d is beyond the %d this library serves", entry, dev, PLAN_MAX_DEVICES);
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

