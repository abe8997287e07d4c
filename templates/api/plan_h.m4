m4_include([[[common/prelude.m4]]])m4_dnl
fg_c_file_header
#ifndef fg_guard
#define fg_guard

#include "fusegen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The arguments of plan fg_plan_name.  Dims are bound from the tensor shapes;
 * every tensor may have any non-negative strides. */
typedef struct fg_args_type {
fg_args_fields[[[]]]m4_dnl
} fg_args_type;

/* The fused schedule on the CPU (libfusegen_cpu.a).  Validates every
 * argument before any work; on failure fg_last_error() says which. */
fg_status fg_cpu_entry[[[]]](const fg_args_type *args);

fg_has_cuda_if([[[m4_dnl
#ifndef FUSEGEN_NO_CUDA
struct CUstream_st;
/* The CUDA kernels (libfusegen_cuda.a); stream is a cudaStream_t.  Tensors
 * are device memory, per-head params host memory; every argument is
 * validated before the asynchronous launch (fg_last_error() says which).
fg_rowreduce_if([[[ * Row kernels (plain CUDA, sm_80 and later; templates/gpu/rows.hpp): one
 * row per warp, per CTA, or split over several CTAs when rows are few and
 * long (splits 0), their partial states from a per-device memory pool in
 * stream order on `stream`; inputs along the row in one dtype, f32, bf16
 * or fp16. */]]], [[[fg_split_if([[[ * The splits' partial states come from a per-device memory pool, allocated
 * and freed in stream order on `stream`: no workspace argument. */]]], [[[ * One CTA walks all keys of its rows: splits has no effect here.
 * Kernel family, chosen per device on its first launch and cached: on
 * compute capability 9.0, when the library was built for 90a (the default
 * architectures are 80,90a), the sm_90a kernels (wgmma, tensor memory
 * accelerator, warp specialisation) for every head dim that is a multiple
 * of 8 up to 256; elsewhere, with FUSEGEN_CUDA_FAMILY=sm80 in the
 * environment, or for strides the copy engine cannot take, the sm_80
 * kernels (mma.sync) for head dims 64, 96, 128 and 256. */]]])]]])
fg_status fg_gpu_entry[[[]]](const fg_args_type *args, struct CUstream_st *stream);
#endif
]]], [[[m4_dnl
/* No CUDA kernel: the attention kernels cannot express this plan, or the
 * run did not target cuda. */
]]])m4_dnl
fg_has_hip_if([[[m4_dnl
#ifndef FUSEGEN_NO_HIP
struct ihipStream_t;
/* The HIP kernels for AMD CDNA, gfx90a and gfx942 (libfusegen_hip.a); stream
 * is a hipStream_t.  Tensors are device memory, per-head params host memory;
 * the arguments are checked as by fg_gpu_entry (one validation source) and
 * the same fg_status codes come back.
fg_rowreduce_if([[[ * Row kernels (wave64; templates/gpu/rows.hpp on hip/rowreduce/): one row per
 * wavefront, per workgroup, or split over several workgroups when rows are
 * few and long (splits 0), their partial states and tickets allocated in
 * stream order on `stream`; inputs along the row in one dtype, f32, bf16 or
 * fp16. */]]], [[[ * Head dims 64, 96, 128 and 256, bf16 or fp16; wave64 MFMA kernels
 * (templates/hip/cdna/).
fg_split_if([[[ * The splits' partial states and the combine's tickets come from the
 * device's memory pool in stream order on `stream`: no workspace argument. */]]], [[[ * One workgroup walks all keys of its rows: splits has no effect here. */]]])]]])
fg_status fg_gpu_entry[[[]]]_hip(const fg_args_type *args, struct ihipStream_t *stream);
#endif
]]], [[[m4_dnl
]]])m4_dnl

#ifdef __cplusplus
}
#endif

#endif /* fg_guard */
