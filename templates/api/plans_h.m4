m4_include([[[common/prelude.m4]]])m4_dnl
fg_run_c_header
#ifndef FUSEGEN_PLANS_H
#define FUSEGEN_PLANS_H

#include "fusegen_registry.h"

fg_plan_includes[[[]]]m4_dnl

#endif /* FUSEGEN_PLANS_H */
