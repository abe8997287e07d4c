/* powsum.c - the correction of a power sum about a running value.
 *
 * T_k = sum(a: D ^ k) with D = c + g(r) (check_aux.c made the count T_0
 * and the sums T_1 .. T_{k-1} of the lower powers of the same D beside
 * it).  When r moves to r', every element's D moves by the same
 * d = g(r') - g(r), so by the binomial theorem
 *
 *     sum (D + d)^k = sum over i <= k of binomial(k, i) * T_i * d^(k - i)
 *
 * and the correction adds the terms i < k, each T_i taken before it moved
 * (E_PREV).  It is linear in the T_i, so two partial states corrected to
 * the same r' add up (the split form's merge).  An empty state (count 0)
 * adds nothing: the guard keeps a first tile's undefined d (0 / 0 for a
 * running mean) out of it. */
#include "algebra_internal.h"

#include <math.h>

static fg_expr *prev(alg *g, int t)
{
    fg_expr *e = expr_ref(g->a, E_PREV, t, g->p->tensors[t].name);
    e->type = T_FLOAT;
    return e;
}

static double binomial(int k, int i)
{
    double b = 1;
    for (int j = 1; j <= i; j++)
        b = b * (k - i + j) / j;
    return b;
}

int alg_derive_powsum(alg *g, const fg_expr *body, fg_correction *out, fg_loc loc, fg_diag *d)
{
    const fg_plan *p = g->p;
    const fg_powsum *ps = p->tensors[g->stmt].powsum;
    int k = ps->k;
    const char *name = plan_user_name(p, g->stmt);
    const char *axis = g->axis >= 0 ? p->axes[g->axis].name : "?";
    const fg_expr *base = k == 1 ? body : body->kind == E_POW ? body->args[0] : NULL;
    for (int i = 0; i < k; i++)
        if (!alg_is_running(g, ps->aux[i]))
            base = NULL; /* the carried sums must come first */
    if (!base) {
        diag_internal(d, loc, "the power sum '%s' lost its shape or its carried sums", name);
        return -1;
    }
    const fg_expr *mixed = NULL;
    fg_expr *delta = alg_shift(g, base, &mixed);
    if (!delta) {
        diag_error(d, loc,
                   "cannot fuse '%s' over '%s': its body reads the running values inside '%s', "
                   "which does not separate into a term of '%s' alone",
                   name, axis, alg_plain_str(g, mixed ? mixed : base), axis);
        return -1;
    }
    fg_expr *sum = NULL;
    for (int i = 0; i < k; i++) {
        fg_expr *dk = k - i == 1 ? delta : alg_mk_bin(g, E_POW, delta, alg_mk_num(g, k - i));
        fg_expr *term = alg_mk_bin(g, E_MUL, prev(g, ps->aux[i]), dk);
        double c = binomial(k, i);
        if (c != 1)
            term = alg_mk_bin(g, E_MUL, alg_mk_num(g, c), term);
        sum = sum ? alg_mk_bin(g, E_ADD, sum, term) : term;
    }
    fg_expr *w = expr_new(g->a, E_WHERE, loc, 3);
    w->type = T_FLOAT;
    w->args[0] = alg_mk_bin(g, E_GT, prev(g, ps->aux[0]), alg_mk_num(g, 0));
    w->args[0]->type = T_BOOL;
    w->args[1] = sum;
    w->args[2] = alg_mk_num(g, 0);
    out->kind = CORR_SHIFT;
    out->factor = w;
    out->producers = alg_reads(g, w);
    out->why = arena_printf(
        g->a,
        "a power %d of %s, which moves by %s with the running values; the count and the sums "
        "of its lower powers are carried beside it, and the binomial theorem gives the shift "
        "(Welford's update, and Chan's combine for two partial states)",
        k, alg_plain_str(g, base), alg_plain_str(g, delta));
    return alg_verify_powsum(g, base, k, ps->aux, out, loc, d);
}
