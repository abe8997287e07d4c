/* fusegen_registry.h - the list of generated plans, for programs that pick a
 * plan at run time (tests, benchmarks, language bindings).
 *
 * The generated fusegen_plans.c defines fg_plan_list: one fg_plan_info per
 * plan of the run that generated it, NULL-terminated.  Each gives the plan's
 * dims, inputs, outputs and params in declaration order, and a generic CPU
 * entry point that takes them as arrays.  C11 and C++ compatible.
 */
#ifndef FUSEGEN_REGISTRY_H
#define FUSEGEN_REGISTRY_H

#include "fusegen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An input or output: its plan dtype, its rank, and per position the index
 * (into fg_plan_info.dims) of the dim that is its extent. */
typedef struct fg_plan_tensor_info {
    const char *name;
    fg_dtype dtype;
    int rank;
    int dims[FG_MAX_RANK];
} fg_plan_tensor_info;

/* A parameter: int or f32, whether it has a default, and for a parameter
 * with one value per index of an axis (param slope[h]) that axis and its
 * dim (-1 and -1 for a scalar). */
typedef struct fg_plan_param_info {
    const char *name;
    int is_int;
    int has_default;
    int axis;
    int axis_dim;
} fg_plan_param_info;

/* The generic CPU entry: inputs[] and outputs[] in declaration order;
 * params[k], has_params[k] (scalar params) and param_vectors[k] (per-index
 * params, NULL for the default) indexed by param; any of the three may be
 * NULL (every param at its default).  lens[k], indexed by dim: for a
 * per-sequence dim (dim N[b], fg_plan_info.dim_over[k] >= 0) its lengths,
 * the args struct's N_len; lens or any entry may be NULL (full extents).
 * splits: see the plan's args struct. */
typedef fg_status (*fg_plan_cpu_fn)(const fg_tensor *inputs, const fg_tensor *outputs,
                                    const double *params, const int *has_params,
                                    const float *const *param_vectors,
                                    const int32_t *const *lens, int splits);

/* The role of a dim in the plan's kernel family (the kernel model's
 * binding, so that a program need not know the plan's dim names). */
typedef enum fg_dim_role {
    FG_ROLE_NONE = -1,   /* another dim (a plan-specific extent) */
    FG_ROLE_BATCH = 0,   /* attention: batch */
    FG_ROLE_HEADS,       /* attention: query heads (also the kv heads when not grouped) */
    FG_ROLE_KV_HEADS,    /* attention: kv heads of a grouped plan */
    FG_ROLE_ROWS,        /* query rows; a row reduction's rows (the row tile) */
    FG_ROLE_KEYS,        /* keys: the reduced (fused) axis */
    FG_ROLE_HEAD_DIM     /* attention: the head dim */
} fg_dim_role;

typedef struct fg_plan_info {
    const char *name;
    const char *form;   /* "rolling" or "split" */
    const char *family; /* "attention" or "rowreduce" */
    int ndims;
    const char *const *dims;
    const int *dim_role; /* per dim: an fg_dim_role */
    /* Per dim: -1, or for a per-sequence dim N[b] the index of the dim of b
     * (its lengths are an int32 array of that many values). */
    const int *dim_over;
    int ninputs;
    const fg_plan_tensor_info *inputs;
    int noutputs;
    const fg_plan_tensor_info *outputs;
    int nparams;
    const fg_plan_param_info *params;
    fg_plan_cpu_fn cpu;
} fg_plan_info;

extern const fg_plan_info *const fg_plan_list[];

/* The generic CUDA entry (libfusegen_cuda.a, generated fusegen_plans_cuda.c):
 * the arguments of fg_plan_cpu_fn, then the stream (a cudaStream_t, NULL for
 * the default stream).  Inputs, outputs and lens are device memory; per-index
 * params (param_vectors) are host memory, copied into the launch.  It
 * validates as fg_NAME does and launches asynchronously. */
typedef fg_status (*fg_plan_cuda_fn)(const fg_tensor *inputs, const fg_tensor *outputs,
                                     const double *params, const int *has_params,
                                     const float *const *param_vectors,
                                     const int32_t *const *lens, int splits, void *stream);

typedef struct fg_plan_cuda_entry {
    const char *name; /* the plan, as in fg_plan_list */
    fg_plan_cuda_fn fn;
} fg_plan_cuda_entry;

/* One entry per plan that has a CUDA kernel; ends with {NULL, NULL}. */
extern const fg_plan_cuda_entry fg_plan_cuda_list[];

/* The generic HIP entry (libfusegen_hip.a, generated fusegen_plans_hip.c):
 * as fg_plan_cuda_fn, the stream a hipStream_t. */
typedef fg_plan_cuda_fn fg_plan_hip_fn;

typedef struct fg_plan_hip_entry {
    const char *name; /* the plan, as in fg_plan_list */
    fg_plan_hip_fn fn;
} fg_plan_hip_entry;

/* One entry per plan that has a HIP kernel; ends with {NULL, NULL}. */
extern const fg_plan_hip_entry fg_plan_hip_list[];

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_REGISTRY_H */
