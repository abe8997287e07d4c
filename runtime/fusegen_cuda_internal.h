/* fusegen_cuda_internal.h - the host services every generated CUDA kernel
 * source calls (runtime/fusegen_cuda.cu, compiled once into
 * libfusegen_cuda.a): per-device facts (SM count, occupancy, the shared
 * memory opt-in of a kernel), the stream-ordered workspace pool, the
 * per-stream ticket buffers of the folded decode combine, and the copies of
 * the caller's per-head parameter vectors.  Not installed: the generated
 * entry points are the public interface.
 *
 * Thread safe; graph capture is handled here (the pool is created in relaxed
 * capture mode; a capturing stream gets no ticket buffer).  Devices
 * 0..FG_CUDA_MAX_DEVICES-1 have their facts cached; others are served
 * uncached, except by fg_cuda_pool (and so the workspace), which refuses
 * them.  Functions that return fg_status have recorded the message
 * (fg_set_error) when they fail, naming `entry`.
 *
 * C11 and C++ compatible (needs the CUDA runtime headers, not nvcc). */
#ifndef FUSEGEN_CUDA_INTERNAL_H
#define FUSEGEN_CUDA_INTERNAL_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "fusegen_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices whose facts are cached (more are served, uncached). */
#define FG_CUDA_MAX_DEVICES 64

/* A bit per device, set once something was done there for one kernel (its
 * shared-memory opt-in).  Zero-initialise it (a static object is). */
typedef struct fg_cuda_once {
    unsigned long long bits;
} fg_cuda_once;

/* A value per device cached for one kernel (its occupancy); zero-initialise
 * it. */
typedef struct fg_cuda_per_device {
    int value[FG_CUDA_MAX_DEVICES];
} fg_cuda_per_device;

/* The number of SMs of device dev, queried once per device. */
fg_status fg_cuda_sm_count(int dev, int *sms, const char *entry);

/* Dynamic shared memory above 48 KB needs an opt-in per kernel and device:
 * sets cudaFuncAttributeMaxDynamicSharedMemorySize of `kernel` (the address
 * of a __global__ function) to `bytes` on the current device dev, once per
 * device (the bit in *done; two threads racing on the first call both set
 * it, which is harmless).  FG_ERR_UNSUPPORTED when the device cannot give
 * that much. */
fg_status fg_cuda_smem_optin(const void *kernel, size_t bytes, fg_cuda_once *done, int dev,
                             const char *entry);

/* CTAs of `kernel` (threads per CTA, dynamic shared memory bytes) that fit
 * on one SM of device dev, at least 1 (1 when the query fails); cached per
 * device in *cache. */
int fg_cuda_occupancy(const void *kernel, int threads, size_t smem, int dev,
                      fg_cuda_per_device *cache);

/* Device buffers of a launch (split partials, per-head params, tickets) come
 * from a stream-ordered pool per device (cudaMallocFromPoolAsync /
 * cudaFreeAsync on the caller's stream): nothing is shared between streams
 * in flight, and the pool keeps its memory for the next launch.  Made on the
 * first call for the device, also while the caller captures a graph. */
fg_status fg_cuda_pool(int dev, cudaMemPool_t *pool, const char *entry);

/* The tickets of the folded decode combine: n uint32 counters, all 0 between
 * launches (the CTA that draws the last ticket of a counter puts it back to
 * 0).  Launches on one stream run in order, so each (device, stream) gets
 * one buffer, found by the stream's unique id, kept for the life of the
 * process and grown (in stream order) when a launch needs more; made from
 * the pool and zeroed in stream order.  NULL when the stream is being
 * captured into a graph (the graph could be replayed on any stream,
 * concurrently), before CUDA 12 (no stream ids), or when memory runs out:
 * the caller then launches the combine kernel. */
unsigned *fg_cuda_tickets(int dev, cudaStream_t stream, size_t n, const char *entry);

/* A per-head parameter vector of the caller (host memory, `count` floats, or
 * NULL for the default), copied to the device for one launch: *dev is set to
 * the device copy. */
typedef struct fg_cuda_param_vector {
    const float *host;
    const float **dev;
    const char *name;
} fg_cuda_param_vector;

/* Copy the non-NULL vectors of v[0..n) to the device in stream order (from
 * the pool); bufs[0..n) (zero-initialised by the caller) receive the
 * buffers.  FG_ERR_NOMEM (or the pool's error) stops at the first failure;
 * fg_cuda_params_free must run in either case. */
fg_status fg_cuda_params_to_device(int dev, cudaStream_t stream, const fg_cuda_param_vector *v,
                                   int n, size_t count, void **bufs, const char *entry);
/* Free the buffers of fg_cuda_params_to_device in stream order, after the
 * launches that read them. */
void fg_cuda_params_free(cudaStream_t stream, void **bufs, int n);

/* The tuned table (fg_tune_table_for) of device dev among tables[0..n):
 * its name and SM count as cudaGetDeviceProperties gives them; -1 when no
 * table is the device's (the default rules serve).  Cached per device in
 * *cache (a failed query is not). */
int fg_cuda_tune_table(const fg_tune_table *tables, int n, int dev, fg_cuda_per_device *cache);
/* Which kernel family serves launches on device dev: 1 for the sm_90a
 * family (Hopper: wgmma, the tensor memory accelerator) when the device has
 * compute capability 9.0 and the image the runtime loads for it is the
 * sm_90a one: `code_flag` is the address of a __device__ int of the caller's
 * source that is 1 only in its sm_90a image (a build for 90 without 90a has
 * an empty kernel there); else 0 (the sm_80 family).  FUSEGEN_CUDA_FAMILY=sm80
 * in the environment (read once per process) makes it 0 everywhere, to
 * compare the families.  A definite answer is cached per device in *cache;
 * a failed query is not (the next launch asks again). */
int fg_cuda_sm90a(const void *code_flag, int dev, fg_cuda_per_device *cache);

/* Whether the sm_90a launch of a mask with span atoms leaves out the summary
 * of the ids (fh_span_sum_kernel): 1 where FUSEGEN_SPAN_SUMMARY=off in the
 * environment (read once per process), so that a check can run the path a
 * launch takes without workspace (each CTA's scan reads the ids
 * themselves: the same results, a longer scan); else 0. */
int fg_cuda_span_summary_off(void);

/* The L2 cache of device dev in bytes, queried once per device; 0 when the
 * query fails (not cached: the next call asks again). */
long long fg_cuda_l2_bytes(int dev);

/* The head groups of the heaviest-first sm_90a launches (the launcher's
 * plan_head_group), from FUSEGEN_HEAD_GROUPS (read once per process): -1
 * for "off" (no groups: heads fastest over all heads), k for a whole number
 * k from 1 to 65535 (groups of k kv heads, whatever their size: what a
 * check sets to run the grouped order at small shapes), 0 otherwise (unset,
 * or any other value: groups sized to the L2). */
int fg_cuda_head_groups(void);

/* A tensor map of the copy engine (a CUtensorMap: 128 bytes at map, 64-byte
 * aligned) for a rank-4 tensor of 16-bit elements (bf16 when bf16 is
 * non-zero, else fp16) at base: extents ext[0] (contiguous) .. ext[3],
 * strides stride[1..3] in elements (stride[0] is 1); boxes of box0 x box1
 * elements in the 128-byte swizzled layout, zeros outside the tensor.
 * 0 when made; -1 when the driver cannot make it (a stride or base it does
 * not take, no driver entry point, a CUDA runtime before 12): the caller
 * then uses a kernel without tensor maps.  Made through the runtime's driver entry point, so the
 * library does not link libcuda. */
int fg_cuda_tensor_map(void *map, int bf16, const void *base, const long long ext[4],
                       const long long stride[4], int box0, int box1);

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_CUDA_INTERNAL_H */
