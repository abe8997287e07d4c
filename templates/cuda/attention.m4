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

// The kernel body declares state that some configurations leave unused, and
// the entry's checks bind every dim and param where the kernels read only some
// (nvcc counts a (void) cast as no use).
#pragma nv_diag_suppress 177
#pragma nv_diag_suppress 550
#define FG_NS fg_cuda_ns
m4_include([[[cuda/sm80/common.cuh]]])m4_dnl
// Device versions of the plan's functions the hooks call.
// sigmoid(x) = 1 / (1 + 2^(-x log2(e))), the reciprocal approximate (one MUFU
// op, rcp(inf) = 0): the weights of sigmoid attention, two per element.
__device__ __forceinline__ float plan_sigmoid(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + fa_ex2(-x * 1.44269504f)));
  return r;
}
// F sigmoid(x) from finv = 1 / F (plan_weight_kv_recip): the reciprocal of
// finv (1 + 2^(-x log2(e))), plan_sigmoid's two MUFU ops and the multiply by
// F in the FFMA (finv = inf, F = 0, gives 0; finv = 0 gives inf).
__device__ __forceinline__ float plan_sigmoid_recip(float x, float finv) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaf(fa_ex2(-x * 1.44269504f), finv, finv)));
  return r;
}
m4_include([[[gpu/hooks.m4]]])m4_dnl
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
m4_include([[[gpu/chains.m4]]])m4_dnl
}  // namespace FG_NS

// Epilogue of the kernels: fg_cuda_epilogue_origin; a row that sees
// no key gets O = 0, and each value per row its value
// at l = 0 (LSE = -inf).
extern "C" fg_status fg_gpu_entry[[[]]](const fg_args_type *args, struct CUstream_st *stream) {
  using namespace FG_NS;
m4_include([[[gpu/validate.m4]]])m4_dnl
  int dev = 0;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "fg_gpu_entry: no usable CUDA device: %s", cudaGetErrorString(e));
  }
  const cudaStream_t s = (cudaStream_t)stream;
fg_cuda_vectors_if([[[m4_dnl
  // per-head params given by the caller (host memory): copied to the device in stream order
  const fg_cuda_param_vector vecs[] = {
fg_cuda_vector_copies[[[]]]m4_dnl
  };
  constexpr int nvecs = (int)(sizeof vecs / sizeof vecs[0]);
  void* vbuf[nvecs] = {};
  st = fg_cuda_params_to_device(dev, s, vecs, nvecs, (size_t)Hq, vbuf, "fg_gpu_entry");
  if (st == FG_OK) st = fg_cuda_chains_if([[[plan_run(args, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, s, dev)]]], [[[plan_dispatch(tq, tk, tv, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, s, dev)]]]);
  fg_cuda_params_free(s, vbuf, nvecs);
  return st;
]]], [[[m4_dnl
  return fg_cuda_chains_if([[[plan_run(args, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, s, dev)]]], [[[plan_dispatch(tq, tk, tv, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, s, dev)]]]);
]]])m4_dnl
}
