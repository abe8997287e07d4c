m4_include([[[common/prelude.m4]]])m4_dnl
fg_run_c_header
/* The generic CUDA entries (libfusegen_cuda.a): per plan with a CUDA kernel,
 * a wrapper that takes the registry's arrays (runtime/fusegen_registry.h). */
#include <stddef.h>
#include <string.h>

#include "fusegen_plans.h"
#include "fusegen_internal.h"

fg_registry_entries[[[]]]m4_dnl
const fg_plan_cuda_entry fg_plan_cuda_list[] = {
fg_plan_entries[[[]]]m4_dnl
    {NULL, NULL},
};
