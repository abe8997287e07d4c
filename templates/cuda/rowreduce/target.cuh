// ---------------------------------------------------------------------------
// cuda/rowreduce/target.cuh - what the row skeleton (gpu/rows.hpp) takes
// from CUDA: the warp's width, the 16-bit element types and their
// conversions, the read-only 16-byte load, the kernels' attributes, and the
// host services of the runtime (fusegen_cuda.cu: SM count, memory pool,
// tickets).  hip/rowreduce/target.hpp is the same layer for HIP.  Same
// conventions as the skeleton (templates/README.md).
// ---------------------------------------------------------------------------

// Lanes of a warp: one row per warp in the warp form, the shuffles' span.
constexpr int RR_WARP = 32;
// The kernels take plan_params in the constant bank (no local copy).
#define RR_GRID_CONST __grid_constant__
// At most NT threads a CTA; _MIN: and at least MINB CTAs an SM (ptxas
// holds the registers to it).
#define RR_BOUNDS(NT) __launch_bounds__(NT)
#define RR_BOUNDS_MIN(NT, MINB) __launch_bounds__(NT, MINB)

typedef __nv_bfloat16 rr_bf16;
typedef __half rr_fp16;
typedef cudaStream_t rr_stream;

__device__ __forceinline__ float rr_to_float(float x) { return x; }
__device__ __forceinline__ float rr_to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float rr_to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ __nv_bfloat16 rr_to_bf16(float x) { return __float2bfloat16_rn(x); }
__device__ __forceinline__ __half rr_to_fp16(float x) { return __float2half_rn(x); }
// Two 16-bit elements packed in 32 bits (the first in the low half) as
// floats: bf16 by its bits (a shift and an AND, where __bfloat162float of
// the high half takes two instructions), fp16 by one conversion of the pair.
// The pointer only picks the type.
__device__ __forceinline__ void rr_unpack2(const __nv_bfloat16*, unsigned w, float& a, float& b) {
  a = __uint_as_float(w << 16);
  b = __uint_as_float(w & 0xffff0000u);
}
__device__ __forceinline__ void rr_unpack2(const __half*, unsigned w, float& a, float& b) {
  const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w));
  a = f.x;
  b = f.y;
}

// Chunks a thread loads a step in the rolling walk (its first walk, rows.hpp's
// rr_roll, keeps two steps in flight).
constexpr int RR_UNROLL = 4;

// The thread's index in its CTA, the CTA's in the grid.
__device__ __forceinline__ int rr_tid() { return (int)threadIdx.x; }
__device__ __forceinline__ unsigned rr_bid_x() { return blockIdx.x; }
__device__ __forceinline__ unsigned rr_bid_y() { return blockIdx.y; }

// The CTA's ticket on *ctr (one thread draws it): its writes before the
// ticket are seen by the CTA that draws the last, which sees the others'.
__device__ __forceinline__ unsigned rr_ticket(unsigned* ctr) {
  __threadfence();  // release: this CTA's partial before its ticket
  const unsigned t = atomicAdd(ctr, 1u);
  __threadfence();  // acquire: the other CTAs' partials after their tickets
  return t;
}

// Every thread of the CTA here, and their shared-memory writes visible.
__device__ __forceinline__ void rr_sync() { __syncthreads(); }

// 16 bytes of an input, through the read-only path.
__device__ __forceinline__ uint4 rr_ldg(const uint4* q) { return __ldg(q); }

// Two outputs rounded to bf16 (dt FG_BF16) or fp16 and packed in 32 bits:
// one conversion instruction for both.
__device__ __forceinline__ unsigned rr_pack2(int dt, float a, float b) {
  if (dt == FG_BF16) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<const unsigned*>(&h);
  }
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const unsigned*>(&h);
}

// Pairs of 16-bit elements, for a first level that is one max or min of an
// input as loaded (plan_pair_input): one instruction for two elements, as
// fmaxf and fminf treat NaN (the other operand).
constexpr bool rr_pairs = true;
__device__ __forceinline__ __nv_bfloat162 rr_pair_fill(__nv_bfloat16, float v) { return __floats2bfloat162_rn(v, v); }
__device__ __forceinline__ __half2 rr_pair_fill(__half, float v) { return __floats2half2_rn(v, v); }
__device__ __forceinline__ __nv_bfloat162 rr_pair_mm(__nv_bfloat162 a, __nv_bfloat162 b) {
  return plan_pair_max ? __hmax2(a, b) : __hmin2(a, b);
}
__device__ __forceinline__ __half2 rr_pair_mm(__half2 a, __half2 b) {
  return plan_pair_max ? __hmax2(a, b) : __hmin2(a, b);
}

// ---------------------------------------------------------------- host side

static fg_status rr_launched(const char* entry) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, cudaGetErrorString(e));
  return FG_OK;
}

static fg_status rr_sm_count(int dev, int* sms, const char* entry) { return fg_cuda_sm_count(dev, sms, entry); }

// bytes of device memory from the device's pool, in stream order.
static fg_status rr_alloc(int dev, cudaStream_t st, size_t bytes, void** ws, const char* entry) {
  cudaMemPool_t pool;
  const fg_status s = fg_cuda_pool(dev, &pool, entry);
  if (s != FG_OK) return s;
  if (cudaMallocFromPoolAsync(ws, bytes, pool, st) != cudaSuccess) {
    const cudaError_t e = cudaGetLastError();
    return fg_set_error(FG_ERR_NOMEM, "%s: no device memory for %zu bytes of partial states: %s", entry, bytes,
                        cudaGetErrorString(e));
  }
  return FG_OK;
}

static void rr_free(cudaStream_t st, void* ws) {
  if (ws) (void)cudaFreeAsync(ws, st);
}

// n tickets, 0 between launches, in *ctr: the runtime's, kept per device
// and stream (NULL while the stream is captured into a graph, or where they
// cannot be had: the merge kernel then).  *own: what rr_free releases after
// the launches (none here).
static fg_status rr_tickets(int dev, cudaStream_t st, size_t n, const char* entry, unsigned** ctr, void** own) {
  *own = nullptr;
  *ctr = fg_cuda_tickets(dev, st, n, entry);
  return FG_OK;
}
