// ---------------------------------------------------------------------------
// hip/rowreduce/target.hpp - what the row skeleton (gpu/rows.hpp) takes from
// HIP on AMD CDNA (gfx90a, gfx942): a wavefront of 64 lanes, the 16-bit
// element types (bf16 as its bits, fp16 as _Float16) and their conversions,
// the kernels' attributes, and the host services of the runtime
// (fusegen_hip.hip: CU count, stream-ordered allocations).  The same layer
// for CUDA is cuda/rowreduce/target.cuh.  Device code: compiler builtins and
// the HIP headers' inline functions only, no device-library call.  Same
// conventions as the skeleton (templates/README.md).
// ---------------------------------------------------------------------------

// Lanes of a wavefront: one row per wavefront in the warp form, the
// shuffles' span (the hooks' __shfl_xor: ds_bpermute over 64 lanes).
constexpr int RR_WARP = 64;
// plan_params by value in the kernel arguments.
#define RR_GRID_CONST
// At most NT threads a workgroup (HIP's second bound counts wavefronts per
// execution unit, not workgroups: _MIN's is not given).
#define RR_BOUNDS(NT) __launch_bounds__(NT)
#define RR_BOUNDS_MIN(NT, MINB) __launch_bounds__(NT)

// bf16 as stored: the upper half of a float's bits.
struct rr_bf16 {
  unsigned short u;
  rr_bf16() = default;
  __device__ explicit rr_bf16(float x) {  // round to nearest even; NaN stays NaN
    const unsigned b = __builtin_bit_cast(unsigned, x);
    u = (b & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((b >> 16) | 0x40u)
                                         : (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  }
};
typedef _Float16 rr_fp16;
typedef hipStream_t rr_stream;

__device__ __forceinline__ float rr_to_float(float x) { return x; }
__device__ __forceinline__ float rr_to_float(rr_bf16 x) { return __builtin_bit_cast(float, (unsigned)x.u << 16); }
__device__ __forceinline__ float rr_to_float(_Float16 x) { return (float)x; }
__device__ __forceinline__ rr_bf16 rr_to_bf16(float x) { return rr_bf16(x); }
__device__ __forceinline__ _Float16 rr_to_fp16(float x) { return (_Float16)x; }
// Two 16-bit elements packed in 32 bits (the first in the low half) as
// floats (the pointer only picks the type).
__device__ __forceinline__ void rr_unpack2(const rr_bf16*, unsigned w, float& a, float& b) {
  a = __builtin_bit_cast(float, w << 16);
  b = __builtin_bit_cast(float, w & 0xffff0000u);
}
__device__ __forceinline__ void rr_unpack2(const _Float16*, unsigned w, float& a, float& b) {
  a = (float)__builtin_bit_cast(_Float16, (unsigned short)(w & 0xffffu));
  b = (float)__builtin_bit_cast(_Float16, (unsigned short)(w >> 16));
}

// Chunks a thread loads a step in the rolling walk (its first walk, rr_roll,
// keeps two steps in flight): 4, or 2 for a running
// state of more than 8 values (moments' 9 at 4 took an SGPR spill and a
// scratch slot on gfx942: tests/hip-compile.sh refuses scratch).
constexpr int RR_UNROLL = plan_nstate > 8 ? 2 : 4;

// The thread's index in its workgroup, the workgroup's in the grid (the
// builtins: HIP's threadIdx and blockIdx call the device library).
__device__ __forceinline__ int rr_tid() { return (int)__builtin_amdgcn_workitem_id_x(); }
__device__ __forceinline__ unsigned rr_bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ __forceinline__ unsigned rr_bid_y() { return __builtin_amdgcn_workgroup_id_y(); }

// The workgroup's ticket on *ctr (one thread draws it): its writes before
// the ticket are seen by the workgroup that draws the last, which sees the
// others' (agent-scope fences: HIP's __threadfence calls the device library).
__device__ __forceinline__ unsigned rr_ticket(unsigned* ctr) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");  // this workgroup's partial before its ticket
  const unsigned t = __hip_atomic_fetch_add(ctr, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");  // the others' partials after their tickets
  return t;
}

// Every wavefront of the workgroup here, and their LDS writes visible (the
// builtins: HIP's __syncthreads calls the device library's fence).
__device__ __forceinline__ void rr_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// 16 bytes of an input (global_load_dwordx4).
__device__ __forceinline__ uint4 rr_ldg(const uint4* q) { return *q; }

// Two outputs rounded to bf16 (dt FG_BF16) or fp16 and packed in 32 bits.
__device__ __forceinline__ unsigned rr_pack2(int dt, float a, float b) {
  if (dt == FG_BF16) return (unsigned)rr_bf16(a).u | (unsigned)rr_bf16(b).u << 16;
  return (unsigned)__builtin_bit_cast(unsigned short, (_Float16)a) |
         (unsigned)__builtin_bit_cast(unsigned short, (_Float16)b) << 16;
}

// No packed pairs for the first level's max or min: the elements are
// unpacked (CDNA has no packed bf16 max).
constexpr bool rr_pairs = false;

// ---------------------------------------------------------------- host side

static fg_status rr_launched(const char* entry) {
  const hipError_t e = hipGetLastError();
  if (e != hipSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, hipGetErrorString(e));
  return FG_OK;
}

static fg_status rr_sm_count(int dev, int* cus, const char* entry) { return fg_hip_cu_count(dev, cus, entry); }

// bytes of device memory, in stream order (the device's pool).
static fg_status rr_alloc(int dev, hipStream_t st, size_t bytes, void** ws, const char* entry) {
  return fg_hip_alloc(dev, st, bytes, ws, entry);
}

static void rr_free(hipStream_t st, void* ws) { fg_hip_free(st, ws); }

// n tickets in *ctr, cleared in stream order before the launch; *own: the
// allocation rr_free releases after the launches (the last workgroup of a
// row puts its ticket back to 0 as on CUDA, but the allocation is per launch).
static fg_status rr_tickets(int dev, hipStream_t st, size_t n, const char* entry, unsigned** ctr, void** own) {
  *ctr = nullptr;
  const fg_status s = fg_hip_alloc(dev, st, n * sizeof(unsigned), own, entry);
  if (s != FG_OK) return s;
  if (hipMemsetAsync(*own, 0, n * sizeof(unsigned), st) != hipSuccess) {
    const hipError_t e = hipGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "%s: cannot clear the merge's tickets: %s", entry, hipGetErrorString(e));
  }
  *ctr = static_cast<unsigned*>(*own);
  return FG_OK;
}
