/* algebra_internal.h - what algebra.c (canonical forms, derivation) and
 * verify.c (the numeric check of a correction) share. */
#ifndef ALGEBRA_INTERNAL_H
#define ALGEBRA_INTERNAL_H

#include "generator.h"

/* The derivation's context: the plan, the running values (bit per tensor),
 * the fused axis and the statement being derived. */
typedef struct alg {
    fg_arena *a;
    const fg_plan *p;
    uint64_t running;
    int axis; /* the fused (reduced) axis, or -1 */
    int stmt;
} alg;

bool alg_is_running(const alg *g, int ref);
bool alg_tensor_has_axis(const fg_plan *p, int ref, int axis);
const char *alg_tensor_name(const fg_plan *p, int ref);
int alg_producer_op(const fg_plan *p, const fg_expr *e, int depth);
const char *alg_plain_str(alg *g, const fg_expr *e);
int alg_verify(alg *g, const fg_expr *body, fg_reduce_op op, fg_correction *corr,
                  fg_loc loc, fg_diag *d);

/* Which value of a running value an expression reads (subst). */
enum { VAL_NEW, VAL_PREV };

#endif /* ALGEBRA_INTERNAL_H */
