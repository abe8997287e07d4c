m4_include([[[common/prelude.m4]]])m4_dnl
fg_run_c_header
/* The generic HIP entries (libfusegen_hip.a): per plan with a HIP kernel,
 * a wrapper that takes the registry's arrays (runtime/fusegen_registry.h). */
#include <stddef.h>
#include <string.h>

#include "fusegen_plans.h"
#include "fusegen_internal.h"

fg_registry_entries[[[]]]m4_dnl
const fg_plan_hip_entry fg_plan_hip_list[] = {
fg_plan_entries[[[]]]m4_dnl
    {NULL, NULL},
};
