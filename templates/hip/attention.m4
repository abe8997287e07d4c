m4_include([[[common/prelude.m4]]])m4_dnl
m4_dnl hip/attention.m4 - the MFMA attention kernels of one plan for AMD CDNA
m4_dnl (gfx90a, gfx942): the hand-written skeleton (cdna/common.hpp,
m4_dnl rolling.hpp, split.hpp) around the plan hooks (gpu/hooks.m4, the same
m4_dnl as CUDA's, printed by lower_hip.c in the HIP dialect), the launchers
m4_dnl (cdna/launch.m4) and the host entry point, whose checks are CUDA's
m4_dnl (gpu/validate.m4).  Host services shared by every plan (CU count,
m4_dnl workspace pool, parameter copies) are the runtime's fusegen_hip.hip.
fg_c_file_header
/* Kernels: fg_cuda_split_if([[[split form (FlashDecoding): split kernel, the last workgroup of a row group combines]]], [[[rolling form (FlashAttention-2): one workgroup walks the key tiles of its query rows]]]),
 * bf16 and fp16 each, AMD CDNA (gfx90a, gfx942: wave64, MFMA, LDS):
fg_cuda_config_summary[[[]]]m4_dnl
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fg_header_name"
#include "fusegen_internal.h"
#include "fusegen_hip_internal.h"

#define FG_NS fg_cuda_ns
m4_include([[[hip/cdna/common.hpp]]])m4_dnl
// Device versions of the plan's functions the hooks call (builtins only).
m4_include([[[hip/plan_math.hpp]]])m4_dnl
m4_include([[[gpu/hooks.m4]]])m4_dnl
m4_include([[[hip/cdna/rolling.hpp]]])m4_dnl
fg_cuda_split_if([[[m4_include([[[hip/cdna/split.hpp]]])]]])m4_dnl

// ---------------------------------------------------------------- host side
m4_include([[[cuda/prelude.m4]]])m4_dnl
m4_include([[[hip/cdna/launch.m4]]])m4_dnl
m4_include([[[gpu/chains.m4]]])m4_dnl
}  // namespace FG_NS

// Epilogue of the kernels: fg_cuda_epilogue_origin; a row that sees
// no key gets O = 0, and each value per row its value
// at l = 0 (LSE = -inf).
extern "C" fg_status fg_cuda_entry[[[]]](const fg_args_type *args, hipStream_t stream) {
  using namespace FG_NS;
m4_include([[[gpu/validate.m4]]])m4_dnl
  int dev = 0;
  const hipError_t e = hipGetDevice(&dev);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "fg_cuda_entry: no usable HIP device: %s", hipGetErrorString(e));
  }
fg_cuda_vectors_if([[[m4_dnl
  // per-head params given by the caller (host memory): copied to the device in stream order
  const fg_hip_param_vector vecs[] = {
fg_cuda_vector_copies[[[]]]m4_dnl
  };
  constexpr int nvecs = (int)(sizeof vecs / sizeof vecs[0]);
  void* vbuf[nvecs] = {};
  st = fg_hip_params_to_device(dev, stream, vecs, nvecs, (size_t)Hq, vbuf, "fg_cuda_entry");
  if (st == FG_OK) st = fg_cuda_chains_if([[[plan_run(args, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, stream, dev)]]], [[[plan_dispatch(tq, tk, tv, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, stream, dev)]]]);
  for (int k = 0; k < nvecs; k++) fg_hip_free(stream, vbuf[k]);
  return st;
]]], [[[m4_dnl
  return fg_cuda_chains_if([[[plan_run(args, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, stream, dev)]]], [[[plan_dispatch(tq, tk, tv, to, rowvals, fg_cuda_kv_len, p, (int)D, splits, stream, dev)]]]);
]]])m4_dnl
}
