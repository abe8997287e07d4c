/* fusegen_hip_internal.h - the host services every generated HIP kernel
 * source calls (runtime/fusegen_hip.hip, compiled once into
 * libfusegen_hip.a): per-device facts (the CU count, cached), the
 * stream-ordered workspace (hipMallocAsync / hipFreeAsync on the caller's
 * stream, from the device's default pool, which keeps freed memory for the
 * next launch) and the copies of the caller's per-head parameter vectors.
 * Not installed: the generated entry points fg_PLAN_hip are the public
 * interface.  The argument checks are CUDA's (templates/gpu/validate.m4);
 * the status codes are fusegen.h's.  Functions that return fg_status have
 * recorded the message (fg_set_error) when they fail, naming `entry`.
 *
 * C11 and C++ compatible (needs the HIP runtime headers, not hipcc). */
#ifndef FUSEGEN_HIP_INTERNAL_H
#define FUSEGEN_HIP_INTERNAL_H

#include <stddef.h>

#include <hip/hip_runtime_api.h>

#include "fusegen_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices whose facts are cached (more are served, uncached). */
#define FG_HIP_MAX_DEVICES 64

/* The number of compute units of device dev, queried once per device. */
fg_status fg_hip_cu_count(int dev, int *cus, const char *entry);

/* bytes of device memory for one launch, in stream order on `stream`
 * (hipMallocAsync from the device's default pool, whose release threshold
 * is raised once per device so that it keeps its memory between launches).
 * FG_ERR_NOMEM when there is none. */
fg_status fg_hip_alloc(int dev, hipStream_t stream, size_t bytes, void **p, const char *entry);
/* Free p (NULL: nothing) in stream order, after the launches that use it. */
void fg_hip_free(hipStream_t stream, void *p);

/* A per-head parameter vector of the caller (host memory, `count` floats, or
 * NULL for the default), copied to the device for one launch: *dev is set to
 * the device copy. */
typedef struct fg_hip_param_vector {
    const float *host;
    const float **dev;
    const char *name;
} fg_hip_param_vector;

/* Copy the non-NULL vectors of v[0..n) to the device in stream order;
 * bufs[0..n) (zero-initialised by the caller) receive the buffers, each to
 * be released with fg_hip_free after the launches, also on failure. */
fg_status fg_hip_params_to_device(int dev, hipStream_t stream, const fg_hip_param_vector *v, int n,
                                  size_t count, void **bufs, const char *entry);

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_HIP_INTERNAL_H */
