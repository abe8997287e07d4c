m4_include([[[common/prelude.m4]]])m4_dnl
fg_run_c_header
#include <stddef.h>
#include <string.h>

#include "fusegen_plans.h"
#include "fusegen_internal.h"

fg_registry_entries[[[]]]m4_dnl
const fg_plan_info *const fg_plan_list[] = {
fg_plan_entries[[[]]]m4_dnl
    NULL,
};
