m4_include([[[common/prelude.m4]]])m4_dnl
m4_dnl hip/rowreduce.m4 - the row-reduction kernels of one plan for AMD CDNA
m4_dnl (gfx90a, gfx942): the hooks lower_rows.c computes, printed in the HIP
m4_dnl dialect (gpu/rows_hooks.m4, the same text as CUDA's), the skeleton of
m4_dnl the family (gpu/rows.hpp, CUDA's, on hip/rowreduce/target.hpp: a
m4_dnl wavefront of 64 lanes) and the host entry point, whose checks are the
m4_dnl CUDA entry's.
fg_c_file_header
/* Kernels: the row-reduction family (HIP, AMD CDNA: gfx90a, gfx942; wave64),
 * one row per wavefront (short rows), per workgroup (long rows: kept in
 * registers up to 32 elements a thread, else the rolling walk), or split over
 * several workgroups when rows are few and long (partial states merged with
 * the same corrections); 16-byte loads where a row's start allows them.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime.h>

#include "fg_header_name"
#include "fusegen_internal.h"
#include "fusegen_hip_internal.h"

#define FG_NS fg_cuda_rows_ns
namespace FG_NS {

m4_include([[[hip/rowreduce/math.hpp]]])m4_dnl
m4_include([[[gpu/rows_hooks.m4]]])m4_dnl

m4_include([[[hip/rowreduce/target.hpp]]])m4_dnl
m4_include([[[gpu/rows.hpp]]])m4_dnl
}  // namespace FG_NS

extern "C" fg_status fg_gpu_entry[[[]]]_hip(const fg_args_type *args, hipStream_t stream) {
  using namespace FG_NS;
fg_cuda_rows_validate[[[]]]m4_dnl
  if (args->splits < 0)
    return fg_set_error(FG_ERR_PARAM, "fg_gpu_entry[[[]]]_hip: splits is %d, must be 0 (by shape) or more", args->splits);
  plan_params p;
  memset(&p, 0, sizeof p);
fg_cuda_rows_set[[[]]]m4_dnl
  int dev = 0;
  const hipError_t e = hipGetDevice(&dev);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    return fg_set_error(FG_ERR_DEVICE, "fg_gpu_entry[[[]]]_hip: no usable HIP device: %s", hipGetErrorString(e));
  }
  return rr_dispatch(p, dt_in, args->splits, stream, dev, "fg_gpu_entry[[[]]]_hip");
}
