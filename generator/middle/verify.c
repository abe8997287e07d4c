/* verify.c - the numeric check of a derived correction: g(r', c) ==
 * h(g(r, c)), h(x (+) y) == h(x) (+) h(y) and a folded row, each at random
 * points in double precision, before any correction is emitted. */
#include "algebra_internal.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Numeric verification                                                */
/* ------------------------------------------------------------------ */

enum { CHECK_POINTS = 200, CHECK_TRIES = 20000 };
#define CHECK_TOLERANCE 1e-9

typedef struct check_env {
    alg *g;
    uint64_t rng;
    int which;         /* VAL_NEW or VAL_PREV: what a running read gives */
    double *tensor;    /* complete tensor values, per tensor */
    double *prev, *cur; /* running values, per tensor */
    double *dim, *axis, *param;
    double acc;
} check_env;

static double rnd(check_env *c)
{
    /* splitmix64: deterministic, so a failure reproduces. */
    uint64_t z = (c->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double uniform(check_env *c, double lo, double hi)
{
    return lo + (hi - lo) * rnd(c);
}

static double check_leaf(void *ctx, const fg_expr *e)
{
    check_env *c = ctx;
    const fg_plan *p = c->g->p;
    switch (e->kind) {
    case E_TENSOR:
        if (e->ref < 0 || e->ref >= p->ntensors)
            return NAN;
        if (alg_is_running(c->g, e->ref))
            return c->which == VAL_PREV ? c->prev[e->ref] : c->cur[e->ref];
        return c->tensor[e->ref];
    case E_PREV:
        return e->ref >= 0 && e->ref < p->ntensors ? c->prev[e->ref] : NAN;
    case E_DIM:
        return e->ref >= 0 && e->ref < p->ndims ? c->dim[e->ref] : NAN;
    case E_AXIS:
        return e->ref >= 0 && e->ref < p->naxes ? c->axis[e->ref] : NAN;
    case E_PARAM:
        return e->ref >= 0 && e->ref < p->nparams ? c->param[e->ref] : NAN;
    case E_ACC:
        return c->acc;
    default:
        return NAN;
    }
}

static double axis_extent(check_env *c, int ax)
{
    const fg_plan *p = c->g->p;
    int d = p->axes[ax].dim;
    return d >= 0 && d < p->ndims ? c->dim[d] : 64;
}

/* New values for everything (all = true), or only for what changes along
 * the fused axis (a new element of the same row). */
static void sample(check_env *c, bool all)
{
    alg *g = c->g;
    const fg_plan *p = g->p;
    if (all) {
        for (int i = 0; i < p->ndims; i++)
            c->dim[i] = floor(uniform(c, 1, 65));
        for (int i = 0; i < p->ntensors; i++) {
            if (!alg_is_running(g, i))
                continue;
            int op = alg_producer_op(p, &(fg_expr){.kind = E_TENSOR, .ref = i}, 0);
            if (op == R_SUM) {
                c->prev[i] = uniform(c, 0.1, 8);
                c->cur[i] = c->prev[i] + uniform(c, 0, 8);
            } else if (op == R_MAX) {
                c->prev[i] = uniform(c, -4, 4);
                c->cur[i] = c->prev[i] + uniform(c, 0, 4);
            } else if (op == R_MIN) {
                c->prev[i] = uniform(c, -4, 4);
                c->cur[i] = c->prev[i] - uniform(c, 0, 4);
            } else {
                c->prev[i] = uniform(c, -4, 4);
                c->cur[i] = uniform(c, -4, 4);
            }
        }
    }
    for (int i = 0; i < p->naxes; i++)
        if (all || i == g->axis)
            c->axis[i] = floor(uniform(c, 0, axis_extent(c, i)));
    for (int i = 0; i < p->nparams; i++) {
        bool vary = g->axis >= 0 && p->params[i].index_name && p->params[i].index_axis == g->axis;
        if (all || vary)
            c->param[i] = p->params[i].dtype == DT_INT ? floor(uniform(c, 1, 3))
                                                       : uniform(c, 0.5, 2);
    }
    for (int i = 0; i < p->ntensors; i++)
        if (!alg_is_running(g, i) && (all || alg_tensor_has_axis(p, i, g->axis)))
            c->tensor[i] = uniform(c, -4, 4);
}

/* The values of a check, in the arena; the same seed for every check, so a
 * failure reproduces. */
static check_env env_for(alg *g)
{
    const fg_plan *p = g->p;
    check_env c = {.g = g, .rng = 0x5eedf00du};
    c.tensor = ARENA_ARRAY(g->a, double, p->ntensors + 1);
    c.prev = ARENA_ARRAY(g->a, double, p->ntensors + 1);
    c.cur = ARENA_ARRAY(g->a, double, p->ntensors + 1);
    c.dim = ARENA_ARRAY(g->a, double, p->ndims + 1);
    c.axis = ARENA_ARRAY(g->a, double, p->naxes + 1);
    c.param = ARENA_ARRAY(g->a, double, p->nparams + 1);
    return c;
}

static double eval_with(check_env *c, const fg_expr *e, int which)
{
    fg_eval_env env = {check_leaf, c};
    c->which = which;
    return expr_eval(e, &env);
}

static double combine(fg_reduce_op op, double x, double y)
{
    return op == R_SUM ? x + y : op == R_MAX ? fmax(x, y) : fmin(x, y);
}

static double apply_corr(fg_corr_kind kind, double t, double f)
{
    return kind == CORR_SCALE ? t * f : kind == CORR_SHIFT ? t + f : t;
}

/* A point where the body has a value at both r and r' (an overflow on one
 * side only says nothing about the correction). */
static bool in_domain(double at_new, double at_prev)
{
    return !isnan(at_new) && !isnan(at_prev) && !isinf(at_new) == !isinf(at_prev);
}

/* A factor that can be applied: finite, and not 0 against an infinite t
 * (an underflow would turn the infinity into NaN). */
static bool usable(fg_corr_kind kind, double t, double f)
{
    return isfinite(f) && !(kind == CORR_SCALE && isinf(t) && f == 0);
}

/* Near the ends of the double range, where a body's intermediate results
 * overflow or underflow. */
static bool extreme(double x)
{
    return isfinite(x) && x != 0 && (fabs(x) < 1e-100 || fabs(x) > 1e100);
}

static double rel_err(double got, double want, double scale)
{
    if (got == want)
        return 0;
    if (!isfinite(got) || !isfinite(want))
        return INFINITY;
    double den = fmax(fmax(fabs(got), fabs(want)), fmax(scale, 1e-300));
    return fabs(got - want) / den;
}

/* g(r', c) == h(g(r, c)) per element, h(x (+) y) == h(x) (+) h(y), and a
 * whole row of several elements folded both ways, each at CHECK_POINTS
 * random points.  Returns 0, or -1 after an internal error. */
int alg_verify(alg *g, const fg_expr *body, fg_reduce_op op, fg_correction *corr,
                  fg_loc loc, fg_diag *d)
{
    const fg_plan *p = g->p;
    check_env c = env_for(g);
    const char *name = alg_tensor_name(p, g->stmt);
    const char *what[3] = {"g(r', c) == h(g(r, c))", "h(x (+) y) == h(x) (+) h(y)",
                           "a folded row"};
    double worst = 0;
    for (int test = 0; test < 3; test++) {
        int good = 0;
        for (int tries = 0; good < CHECK_POINTS && tries < CHECK_TRIES; tries++) {
            sample(&c, true);
            double got, want, scale = 0, t = 0, f = 0;
            if (test == 0) {
                want = eval_with(&c, body, VAL_NEW);
                t = eval_with(&c, body, VAL_PREV);
                f = corr->factor ? eval_with(&c, corr->factor, VAL_NEW) : 0;
                if (!in_domain(want, t) || !usable(corr->kind, t, f))
                    continue;
                got = apply_corr(corr->kind, t, f);
                if (corr->kind == CORR_SHIFT)
                    scale = fabs(t) + fabs(f);
            } else if (test == 1) {
                f = corr->factor ? eval_with(&c, corr->factor, VAL_NEW) : 0;
                double x = uniform(&c, -4, 4), y = uniform(&c, -4, 4);
                if (!isfinite(f))
                    continue;
                want = apply_corr(corr->kind, combine(op, x, y), f);
                double hx = apply_corr(corr->kind, x, f), hy = apply_corr(corr->kind, y, f);
                if (!isfinite(want) || !isfinite(hx) || !isfinite(hy))
                    continue; /* an overflow, not a property of h */
                got = combine(op, hx, hy);
                if (corr->kind == CORR_SHIFT)
                    scale = fabs(x) + fabs(y) + 2 * fabs(f);
                scale = op == R_SUM ? fabs(x * f) + fabs(y * f) : 0;
            } else {
                int k = 2 + (int)(rnd(&c) * 5);
                t = op == R_SUM ? 0 : op == R_MAX ? -INFINITY : INFINITY;
                double ref = t;
                bool bad = false;
                for (int i = 0; i < k; i++) {
                    sample(&c, false);
                    double gn = eval_with(&c, body, VAL_NEW), gp = eval_with(&c, body, VAL_PREV);
                    bad |= !in_domain(gn, gp);
                    ref = combine(op, ref, gn);
                    t = combine(op, t, gp);
                    scale += fabs(gn);
                }
                /* The factor must not depend on the element: a fresh one. */
                sample(&c, false);
                f = corr->factor ? eval_with(&c, corr->factor, VAL_NEW) : 0;
                if (bad || !in_domain(ref, t) || !usable(corr->kind, t, f))
                    continue;
                want = ref;
                got = apply_corr(corr->kind, t, f);
                if (op != R_SUM)
                    scale = 0;
                if (corr->kind == CORR_SHIFT)
                    scale = fmax(scale, fabs(t) + fabs(f));
            }
            if (got != want && (extreme(got) || extreme(want) || extreme(t) || extreme(f)))
                continue; /* underflow or overflow inside the body, not a property of h */
            double err = rel_err(got, want, scale);
            if (!(err <= CHECK_TOLERANCE)) {
                diag_internal(d, loc,
                              "derived correction for '%s' failed its numeric check: %s "
                              "gives %.17g where %.17g was expected (relative error %.3g)",
                              name, what[test], got, want, err);
                return -1;
            }
            if (err > worst)
                worst = err;
            good++;
        }
        if (good < CHECK_POINTS && corr->kind == CORR_NONE) {
            /* The identity, for a body that reads no running value, is
             * exact by construction even where the body is undefined. */
            break;
        }
        if (good < CHECK_POINTS) {
            diag_error(d, loc,
                       "cannot fuse '%s' over '%s': its body '%s' is undefined or overflows at "
                       "%d of %d random points, so its correction '%s' cannot be checked",
                       name, g->axis >= 0 ? p->axes[g->axis].name : "?", alg_plain_str(g, body),
                       CHECK_TRIES - good, CHECK_TRIES, alg_plain_str(g, corr->factor));
            return -1;
        }
    }
    corr->verified = true;
    corr->max_rel_err = worst;
    return 0;
}

/* A power sum's shift at rows of 0 to 5 elements: the carried sums as the
 * row makes them at r (the count also as the running value the difference
 * may read), the power sum at r' computed directly. */
int alg_verify_powsum(alg *g, const fg_expr *base, int k, const int *aux, fg_correction *corr,
                      fg_loc loc, fg_diag *d)
{
    const fg_plan *p = g->p;
    check_env c = env_for(g);
    double worst = 0;
    for (int point = 0; point < CHECK_POINTS; point++) {
        sample(&c, true);
        int n = (int)(rnd(&c) * 6);
        double t[FG_MAX_POWER + 1] = {0}, want = 0, scale = 0;
        c.prev[aux[0]] = n;
        for (int e = 0; e < n; e++) {
            sample(&c, false);
            double dp = eval_with(&c, base, VAL_PREV), dn = eval_with(&c, base, VAL_NEW);
            for (int i = 0; i <= k; i++)
                t[i] += pow(dp, i);
            want += pow(dn, k);
            scale += fabs(pow(dn, k)) + fabs(pow(dp, k));
        }
        for (int i = 0; i < k; i++)
            c.prev[aux[i]] = t[i];
        double f = eval_with(&c, corr->factor, VAL_NEW);
        double got = t[k] + f;
        double err = rel_err(got, want, scale + fabs(f));
        if (!(err <= CHECK_TOLERANCE)) {
            diag_internal(d, loc,
                          "derived correction for '%s' failed its numeric check: a row of %d "
                          "gives %.17g where %.17g was expected (relative error %.3g)",
                          alg_tensor_name(p, g->stmt), n, got, want, err);
            return -1;
        }
        if (err > worst)
            worst = err;
    }
    corr->verified = true;
    corr->max_rel_err = worst;
    return 0;
}

/* The numeric check on its own (also for corrections built elsewhere). */
int verify_correction(fg_arena *a, const fg_plan *p, const fg_expr *body, fg_reduce_op op,
                      uint64_t running, int stmt, fg_loc loc, fg_correction *corr,
                      fg_diag *d)
{
    if (!p || !body || !corr || stmt < 0 || stmt >= p->ntensors || (unsigned)op > R_MIN ||
        (corr->kind != CORR_NONE && !corr->factor)) {
        diag_internal(d, loc, "verify_correction called without a plan, a body or a factor");
        return -1;
    }
    int axis = p->tensors[stmt].red_axis;
    alg g = {a, p, running, axis >= 0 && axis < p->naxes ? axis : -1, stmt};
    corr->verified = false;
    corr->max_rel_err = 0;
    return alg_verify(&g, body, op, corr, loc, d);
}

