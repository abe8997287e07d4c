m4_include([[[common/prelude.m4]]])m4_dnl
m4_dnl cuda/rowreduce.m4 - the row-reduction kernels of one plan (a chain of
m4_dnl running reductions without contractions): the hooks lower_rows.c
m4_dnl computes from the fused schedule, the hand-written skeleton of the
m4_dnl family (gpu/rows.hpp: one row per warp or per CTA, the split form,
m4_dnl their launch; cuda/rowreduce/target.cuh: what it takes from CUDA) and
m4_dnl the host entry point that validates and dispatches.  The hooks
m4_dnl (gpu/rows_hooks.m4) and the skeleton are HIP's too (hip/rowreduce.m4).
fg_c_file_header
/* Kernels: the row-reduction family (plain CUDA, sm_80+), one row per warp
 * (short rows), per CTA (long rows: kept in registers up to 32 elements a
 * thread, else the rolling walk), or split over several CTAs when rows are
 * few and long (partial states merged with the same corrections); 16-byte
 * loads where a row's start allows them.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fg_header_name"
#include "fusegen_internal.h"
#include "fusegen_cuda_internal.h"

#define FG_NS fg_cuda_rows_ns
namespace FG_NS {

m4_include([[[cuda/rowreduce/math.cuh]]])m4_dnl
m4_include([[[gpu/rows_hooks.m4]]])m4_dnl

m4_include([[[cuda/rowreduce/target.cuh]]])m4_dnl
m4_include([[[gpu/rows.hpp]]])m4_dnl
}  // namespace FG_NS

extern "C" fg_status fg_gpu_entry[[[]]](const fg_args_type *args, struct CUstream_st *stream) {
  using namespace FG_NS;
fg_cuda_rows_validate[[[]]]m4_dnl
  if (args->splits < 0)
    return fg_set_error(FG_ERR_PARAM, "fg_gpu_entry: splits is %d, must be 0 (by shape) or more", args->splits);
  plan_params p;
  memset(&p, 0, sizeof p);
fg_cuda_rows_set[[[]]]m4_dnl
  int dev = 0;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "fg_gpu_entry: no usable CUDA device: %s", cudaGetErrorString(e));
  }
  return rr_dispatch(p, dt_in, args->splits, (cudaStream_t)stream, dev, "fg_gpu_entry");
}
