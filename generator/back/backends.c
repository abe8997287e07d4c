/* backends.c - the table of backends, the one place emit.c learns them.
 *
 * Each backend reads the kernel model (kernel.c) and nothing above it:
 * `supported` says whether it can serve a plan (with a located reason when
 * not), `lower` writes the m4 definitions of the plan's kernel source and
 * picks its template, `registry_entry` writes the plan's part of the
 * backend's registry file.  A backend whose template folder is missing in
 * the templates tree is skipped (or an error when asked for by name).
 */
#include "generator.h"

const fg_backend fg_backends[FG_NBACKENDS] = {
    {
        .name = "c",
        .title = "C",
        .target = TARGET_C,
        .ext = ".c",
        .suffix = "_cpu",
        .sources_var = "FG_CPU_KERNEL_FILES",
        .templates = "c/fused.m4",
        .supported = NULL,
        .lower = lower_c,
        .registry_entry = lower_c_registry_entry,
        .registry_template = "api/plans_c.m4",
        .registry_file = "fusegen_plans.c",
        .registry_always = true,
    },
    {
        .name = "cuda",
        .title = "CUDA",
        .target = TARGET_CUDA,
        .ext = ".cu",
        .suffix = "_cuda",
        .sources_var = "FG_CUDA_KERNEL_FILES",
        .templates = "cuda/attention.m4",
        .supported = lower_cuda_supported,
        .lower = lower_cuda,
        .registry_entry = lower_cuda_registry_entry,
        .registry_template = "api/plans_cuda_c.m4",
        .registry_file = "fusegen_plans_cuda.c",
        .registry_always = false,
    },
    {
        .name = "hip",
        .title = "HIP",
        .target = TARGET_HIP,
        .ext = ".hip",
        .suffix = "_hip",
        .sources_var = "FG_HIP_KERNEL_FILES",
        .templates = "hip/attention.m4",
        .supported = lower_cuda_supported, /* the same kernel model: every CUDA plan */
        .lower = lower_hip,
        .registry_entry = lower_hip_registry_entry,
        .registry_template = "api/plans_hip_c.m4",
        .registry_file = "fusegen_plans_hip.c",
        .registry_always = false,
    },
};
