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
/* Bits of the running values e reads (E_TENSOR or E_PREV). */
uint64_t alg_reads(const alg *g, const fg_expr *e);
/* Typed f32 nodes: x KIND y, and a number. */
fg_expr *alg_mk_bin(alg *g, fg_expr_kind kind, fg_expr *x, fg_expr *y);
fg_expr *alg_mk_num(alg *g, double v);
bool alg_tensor_has_axis(const fg_plan *p, int ref, int axis);
const char *alg_tensor_name(const fg_plan *p, int ref);
int alg_producer_op(const fg_plan *p, const fg_expr *e, int depth);
const char *alg_plain_str(alg *g, const fg_expr *e);
int alg_verify(alg *g, const fg_expr *body, fg_reduce_op op, fg_correction *corr,
                  fg_loc loc, fg_diag *d);

/* algebra.c: G(r') - G(r) for e = F(c) + G(r), a sum of summands that read
 * no running value or only running values; NULL when one mixes both (then
 * *mixed is that summand) or none reads a running value. */
fg_expr *alg_shift(alg *g, const fg_expr *e, const fg_expr **mixed);
/* powsum.c: the correction of a power sum (fg_powsum); verify.c: its
 * numeric check, rows of 0 to 5 elements with the carried sums as they
 * would be. */
int alg_derive_powsum(alg *g, const fg_expr *body, fg_correction *out, fg_loc loc, fg_diag *d);
int alg_verify_powsum(alg *g, const fg_expr *base, int k, const int *aux, fg_correction *corr,
                      fg_loc loc, fg_diag *d);

/* Which value of a running value an expression reads (subst). */
enum { VAL_NEW, VAL_PREV };

#endif /* ALGEBRA_INTERNAL_H */
