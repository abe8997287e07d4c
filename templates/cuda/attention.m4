m4_include([[[common/prelude.m4]]])m4_dnl
m4_dnl cuda/attention.m4 - the tensor-core attention kernels of one plan: the
m4_dnl hand-written skeleton of the sm_80 family (sm80/common.cuh, rolling.cuh,
m4_dnl split.cuh) around the hooks lower_cuda.c computes from the fused
m4_dnl schedule, the launchers (sm80/launch.m4) and the host entry point that
m4_dnl validates and dispatches.  Host services shared by every plan (device
m4_dnl facts, workspace pool, tickets) are the runtime's fusegen_cuda.cu.
fg_c_file_header
/* Kernels: fg_cuda_split_if([[[split form (FlashDecoding): split kernel + combine kernel]]], [[[rolling form (FlashAttention-2): one CTA walks the key tiles of its query rows]]]),
 * bf16 and fp16 each, sm_80+ (mma.sync, ldmatrix, cp.async)fg_cuda_sm90_if([[[; on a device of compute
 * capability 9.0, when the library was built for 90a, the sm_90a family (wgmma, tensor
 * memory accelerator, warp specialisation) instead; FUSEGEN_CUDA_FAMILY=sm80 in the
 * environment keeps the sm_80 family everywhere]]], [[[]]]):
fg_cuda_config_summary[[[]]]m4_dnl
 */
#include <type_traits>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fg_header_name"
#include "fusegen_internal.h"
#include "fusegen_cuda_internal.h"

// The kernel body declares state that some configurations leave unused.
#pragma nv_diag_suppress 177
#define FG_NS fg_cuda_ns
m4_include([[[cuda/sm80/common.cuh]]])m4_dnl
// ============================ PLAN HOOKS BEGIN ============================
// Generated from the fused schedule of plan fg_plan_name.
__device__ __forceinline__ float plan_sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

// Per-launch scalars, filled by the entry point below; plan_head_setup runs on
// a private copy per CTA (per query row in the decode kernel).
struct plan_params {
fg_cuda_params_fields[[[]]]m4_dnl
};
fg_cuda_vector_fns[[[]]]m4_dnl

// CTA order: 0 = row blocks fastest; 1 = heaviest row block first (masked plans).
constexpr int plan_schedule = fg_cuda_schedule;
// The score is qk times a constant > 0 (checked on the host): the kernel takes
// the row max on raw qk and folds the constant into one FFMA per element.
constexpr bool plan_score_is_scaled_qk = fg_cuda_fold_if([[[true]]], [[[false]]]);
__device__ __forceinline__ float plan_score_scale(const plan_params& p) { return fg_cuda_fold_scale; }

__device__ __forceinline__ void plan_head_setup(plan_params& p, int h) {
fg_cuda_head_setup[[[]]]m4_dnl
}

// The score in the exp2 domain (times log2(e)), from the plan's statements
fg_cuda_score_chain[[[]]]m4_dnl
// with qk = the contraction (plan line fg_cuda_plan_line_S), i, j, h = the row, key and head.
__device__ __forceinline__ float plan_score(float qk, int i, int j, int h, const plan_params& p) {
  return fg_cuda_score;
}

// The mask (fg_cuda_mask_origin).
__device__ __forceinline__ bool plan_visible(int i, int j, const plan_params& p) {
  return fg_cuda_visible;
}

// The keys [*n_begin, *n_end) that rows [m0, m1) can see.
__device__ __forceinline__ void plan_key_range(int m0, int m1, const plan_params& p, int* n_begin, int* n_end) {
fg_cuda_mask_skip_if([[[m4_dnl
  const long r0 = m0, r1 = m1;
  long c_lo, c_hi;
fg_cuda_key_range_lanes_if([[[m4_dnl
  // The kernels call this with all 32 lanes of each warp together (at the top,
  // outside any branch): each lane walks every 32nd row, then the lanes merge.
  const int lane = threadIdx.x & 31;
fg_cuda_key_range[[[]]]m4_dnl
  int any = c_lo < c_hi;
  for (int o = 16; o > 0; o >>= 1) {
    const long lo_o = __shfl_xor_sync(0xffffffffu, c_lo, o);
    const long hi_o = __shfl_xor_sync(0xffffffffu, c_hi, o);
    const int any_o = __shfl_xor_sync(0xffffffffu, any, o);
    if (any_o) {
      c_lo = any ? (c_lo < lo_o ? c_lo : lo_o) : lo_o;
      c_hi = any ? (c_hi > hi_o ? c_hi : hi_o) : hi_o;
      any = 1;
    }
  }
  if (!any) c_lo = c_hi = 0;
]]], [[[m4_dnl
fg_cuda_key_range[[[]]]m4_dnl
]]])m4_dnl
  *n_begin = (int)c_lo;
  *n_end = (int)c_hi;
]]], [[[m4_dnl
  (void)m0;
  (void)m1;
  *n_begin = 0;
  *n_end = p.N;
]]])m4_dnl
}

// Tile rows [m0, m1) x keys [n0, n1): 0 = nothing visible (skipped), 1 = some
// (mask applied), 2 = all (no mask code).
__device__ __forceinline__ int plan_tile_class(int m0, int m1, int n0, int n1, const plan_params& p) {
fg_cuda_mask_if([[[m4_dnl
  const long r0 = m0, r1 = m1, c0 = n0, c1 = n1;
  const int state = [&]() -> int {
fg_cuda_tile_state[[[]]]m4_dnl
  }();
fg_cuda_mask_skip_if([[[m4_dnl
  return state;
]]], [[[m4_dnl
  return state == 0 ? 1 : state;  // a masked element may still count: never skip
]]])m4_dnl
]]], [[[m4_dnl
  (void)m0; (void)m1; (void)n0; (void)n1; (void)p;
  return fg_cuda_masked_if([[[1;  // no tile analysis of the mask: every tile applies it]]], [[[2;]]])
]]])m4_dnl
}

// fg_cuda_correction_origin.
// The derived factor fg_cuda_correction_plan, printed in the exp2 domain of the
// kernels (their running max m holds fg_cuda_max_name * log2(e)); the combine of
// the split form merges partials with the same factor.
__device__ __forceinline__ float plan_correction(float m_prev, float m_new_safe) {
  return fg_cuda_correction;
}

// The epilogue, fg_cuda_epilogue_origin:
// O = O_sum * plan_out_scale(l), l the final running sum fg_cuda_sum_name; a row that
// sees no key reads the masked-row values (docs/plan-language.md).
__device__ __forceinline__ float plan_out_scale(float l) {
  return fg_cuda_out_scale;
}
// The log-sum-exp output from the final m (fg_cuda_max_name * log2(e)) and l.
__device__ __forceinline__ float plan_lse(float m, float l) {
  return fg_cuda_lse_value;
}
// ============================= PLAN HOOKS END =============================
m4_include([[[cuda/sm80/rolling.cuh]]])m4_dnl
fg_cuda_split_if([[[m4_include([[[cuda/sm80/split.cuh]]])]]])m4_dnl
fg_cuda_sm90_if([[[m4_dnl

// ================================ sm_90a family ================================
m4_include([[[cuda/sm90/common.cuh]]])m4_dnl
m4_include([[[cuda/sm90/wgmma.m4]]])m4_dnl
m4_include([[[cuda/sm90/rolling.cuh]]])m4_dnl
]]])m4_dnl

// ---------------------------------------------------------------- host side
m4_include([[[cuda/prelude.m4]]])m4_dnl
m4_include([[[cuda/sm80/launch.m4]]])m4_dnl
}  // namespace FG_NS

// Epilogue of the kernels: fg_cuda_epilogue_origin; a row that sees
// no key gets O = 0 and LSE = -inf.
extern "C" fg_status fg_gpu_entry[[[]]](const fg_args_type *args, struct CUstream_st *stream) {
  using namespace FG_NS;
  if (!args) return fg_set_error(FG_ERR_NULL, "fg_gpu_entry: args is NULL");
  const unsigned halfs = FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16);
  fg_status st;
  if ((st = fg_check_tensor(&args->fg_cuda_Q, "fg_gpu_entry: fg_cuda_Q", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_K, "fg_gpu_entry: fg_cuda_K", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_V, "fg_gpu_entry: fg_cuda_V", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_O, "fg_gpu_entry: fg_cuda_O", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  const fg_dtype dt = args->fg_cuda_Q.dtype;
  if (args->fg_cuda_K.dtype != dt || args->fg_cuda_V.dtype != dt || args->fg_cuda_O.dtype != dt)
    return fg_set_error(FG_ERR_DTYPE, "fg_gpu_entry: fg_cuda_Q, fg_cuda_K, fg_cuda_V and fg_cuda_O must have one dtype (bf16 or fp16); they are %s, %s, %s, %s",
                        fg_dtype_name(dt), fg_dtype_name(args->fg_cuda_K.dtype), fg_dtype_name(args->fg_cuda_V.dtype),
                        fg_dtype_name(args->fg_cuda_O.dtype));
  const fg_tensor& tq = args->fg_cuda_Q;
  const fg_tensor& tk = args->fg_cuda_K;
  const fg_tensor& tv = args->fg_cuda_V;
  const fg_tensor& to = args->fg_cuda_O;
  // dims from the shapes: fg_cuda_Q[fg_cuda_dim_B, fg_cuda_dim_H, fg_cuda_dim_M, fg_cuda_dim_D], fg_cuda_K[fg_cuda_dim_B, fg_cuda_dim_Hkv, fg_cuda_dim_N, fg_cuda_dim_D]
  const int64_t B = tq.shape[0], Hq = tq.shape[1], M = tq.shape[2], D = tq.shape[3];
  const int64_t Hkv = tk.shape[1], N = tk.shape[2];
  if (tk.shape[0] != B || tk.shape[3] != D)
    return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_K is [%lld, %lld, %lld, %lld]: its fg_cuda_dim_B and fg_cuda_dim_D must be fg_cuda_Q's (%lld, %lld)",
                        (long long)tk.shape[0], (long long)tk.shape[1], (long long)tk.shape[2], (long long)tk.shape[3],
                        (long long)B, (long long)D);
  for (int k = 0; k < 4; k++)
    if (tv.shape[k] != tk.shape[k])
      return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_V's extent %d is %lld, fg_cuda_K's %lld: they must agree", k,
                          (long long)tv.shape[k], (long long)tk.shape[k]);
  for (int k = 0; k < 4; k++)
    if (to.shape[k] != tq.shape[k])
      return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_O's extent %d is %lld, fg_cuda_Q's %lld: they must agree", k,
                          (long long)to.shape[k], (long long)tq.shape[k]);
  // every extent must be positive, as on the CPU entry (FG_ERR_SHAPE)
  if (B == 0 || Hq == 0 || Hkv == 0 || M == 0 || N == 0 || D == 0)
    return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_Q is [%lld, %lld, %lld, %lld] and fg_cuda_K [%lld, %lld, %lld, %lld]: an empty extent is refused",
                        (long long)B, (long long)Hq, (long long)M, (long long)D, (long long)B, (long long)Hkv,
                        (long long)N, (long long)D);
fg_cuda_lse_if([[[m4_dnl
  const bool want_lse = args->fg_cuda_LSE.data != NULL;  // NULL data: LSE not computed
  if (want_lse) {
    if ((st = fg_check_tensor(&args->fg_cuda_LSE, "fg_gpu_entry: fg_cuda_LSE", 3, FG_DTYPE_BIT(FG_F32) | FG_CHECK_UNIT_INNER, 4)) != FG_OK)
      return st;
    const fg_tensor& tl = args->fg_cuda_LSE;
    if (tl.shape[0] != B || tl.shape[1] != Hq || tl.shape[2] != M)
      return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_LSE is [%lld, %lld, %lld], expected [%lld, %lld, %lld]",
                          (long long)tl.shape[0], (long long)tl.shape[1], (long long)tl.shape[2], (long long)B,
                          (long long)Hq, (long long)M);
    if ((Hq > 1 && tl.stride[1] != M) || (B > 1 && tl.stride[0] != Hq * M))
      return fg_set_error(FG_ERR_STRIDE, "fg_gpu_entry: the kernel writes fg_cuda_LSE densely: strides must be [%lld, %lld, 1]",
                          (long long)(Hq * M), (long long)M);
  }
]]], [[[m4_dnl
  const bool want_lse = false;
]]])m4_dnl
  if (fg_cuda_head_dim_unsupported)
    return fg_set_error(FG_ERR_UNSUPPORTED, "fg_gpu_entry: head dim fg_cuda_dim_D = %lld has no compiled kernel (fg_cuda_head_dims)",
                        (long long)D);
  if (B > INT_MAX || Hq > INT_MAX || M > INT_MAX || N > INT_MAX || B * Hq > INT_MAX)
    return fg_set_error(FG_ERR_UNSUPPORTED, "fg_gpu_entry: sizes beyond the kernel's 32-bit indices");
  if (args->splits < 0)
    return fg_set_error(FG_ERR_PARAM, "fg_gpu_entry: splits is %d, must be 0 (the plan's) or more", args->splits);
  // 0 asks for the schedule's split count: splits = fg_cuda_plan_splits_text
  const int splits = args->splits ? args->splits : fg_cuda_plan_splits;
  if (Hq % Hkv != 0)
    return fg_set_error(FG_ERR_SHAPE, "fg_gpu_entry: fg_cuda_dim_H = %lld query heads is not a multiple of fg_cuda_dim_Hkv = %lld kv heads",
                        (long long)Hq, (long long)Hkv);
  plan_params p;
  memset(&p, 0, sizeof p);
  p.M = (int)M;
  p.N = (int)N;
  p.Hq = (int)Hq;
  p.Hkv = (int)Hkv;
  p.off = (int)(N - M);
fg_cuda_set_dims[[[]]]m4_dnl
fg_cuda_set_params[[[]]]m4_dnl
  int dev = 0;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "fg_gpu_entry: no usable CUDA device: %s", cudaGetErrorString(e));
  }
  float* lse = want_lse ? (float*)args->fg_cuda_lse_if([[[fg_cuda_LSE]]], [[[fg_cuda_O]]]).data : nullptr;
  const cudaStream_t s = (cudaStream_t)stream;
fg_cuda_vectors_if([[[m4_dnl
  // per-head params given by the caller (host memory): copied to the device in stream order
  const fg_cuda_param_vector vecs[] = {
fg_cuda_vector_copies[[[]]]m4_dnl
  };
  constexpr int nvecs = (int)(sizeof vecs / sizeof vecs[0]);
  void* vbuf[nvecs] = {};
  st = fg_cuda_params_to_device(dev, s, vecs, nvecs, (size_t)Hq, vbuf, "fg_gpu_entry");
  if (st == FG_OK) st = plan_dispatch(tq, tk, tv, to, lse, fg_cuda_kv_len, p, (int)D, splits, s, dev);
  fg_cuda_params_free(s, vbuf, nvecs);
  return st;
]]], [[[m4_dnl
  return plan_dispatch(tq, tk, tv, to, lse, fg_cuda_kv_len, p, (int)D, splits, s, dev);
]]])m4_dnl
}
