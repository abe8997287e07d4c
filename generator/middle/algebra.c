/* algebra.c - expression algebra: canonical forms, and the
 * corrections that break a dependency between reductions over one axis.
 *
 * A running reduction whose body is g(r, c) (r = values of reductions that
 * are still running, c = complete values) accumulates t = (+) g(r, c).  When
 * r moves to r', t is repaired by h(t, r, r') = g(r', g_c^-1(r, t)), which is
 * exact when h distributes over the reducer.  Two shapes of body have such
 * an h that is cheap to apply:
 *
 *   g = F(c) * G(r)   ->  h(t) = t * G(r') / G(r)     (CORR_SCALE)
 *   g = F(c) + G(r)   ->  h(t) = t + G(r') - G(r)     (CORR_SHIFT)
 *
 * The body is flattened into a product of factors base^p (exp of a sum
 * becomes a product of exp of each term) and into a sum of signed terms; a
 * shape applies when every factor (term) reads either no running value or
 * only running values and constants.  Every correction is then checked
 * numerically at random points before it is returned. */
#include "algebra_internal.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What an expression reads                                            */
/* ------------------------------------------------------------------ */

bool alg_is_running(const alg *g, int ref)
{
    return ref >= 0 && ref < 64 && (g->running >> ref & 1u);
}

/* Bits of the running values e reads. */
uint64_t alg_reads(const alg *g, const fg_expr *e)
{
    if (!e)
        return 0;
    uint64_t bits = 0;
    if ((e->kind == E_TENSOR || e->kind == E_PREV) && alg_is_running(g, e->ref))
        bits |= (uint64_t)1 << e->ref;
    for (int i = 0; i < e->nargs; i++)
        bits |= alg_reads(g, e->args[i]);
    return bits;
}

static bool index_mentions_axis(const fg_plan *p, const fg_expr *e, int axis)
{
    if (!e)
        return false;
    if (e->kind == E_AXIS && e->ref == axis)
        return true;
    if (e->kind == E_NAME && e->name && axis < p->naxes && p->axes[axis].name &&
        strcmp(e->name, p->axes[axis].name) == 0)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (index_mentions_axis(p, e->args[i], axis))
            return true;
    return false;
}

/* Does tensor ref carry the axis (so its value changes along it)? */
bool alg_tensor_has_axis(const fg_plan *p, int ref, int axis)
{
    if (!p || ref < 0 || ref >= p->ntensors || axis < 0)
        return true;
    const fg_ir_tensor *t = &p->tensors[ref];
    if (t->kind == TENSOR_STMT && t->naxes > 0 && t->axes) {
        for (int i = 0; i < t->naxes; i++)
            if (t->axes[i] == axis)
                return true;
        return false;
    }
    if (t->kind == TENSOR_INPUT && t->nindex > 0 && t->index) {
        for (int i = 0; i < t->nindex; i++)
            if (index_mentions_axis(p, t->index[i], axis))
                return true;
        return false;
    }
    if (t->axis_mask)
        return axis < 32 && (t->axis_mask >> axis & 1u);
    return true;
}

/* Does e take different values along the fused axis (for a fixed row)? */
static bool varies(const alg *g, const fg_expr *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case E_AXIS:
        return e->ref == g->axis;
    case E_NAME:
        return true;
    case E_TENSOR:
        if (!alg_is_running(g, e->ref) && alg_tensor_has_axis(g->p, e->ref, g->axis))
            return true;
        break;
    case E_PARAM:
        if (g->p && e->ref >= 0 && e->ref < g->p->nparams &&
            g->p->params[e->ref].index_axis == g->axis && g->axis >= 0 &&
            g->p->params[e->ref].index_name)
            return true;
        break;
    default:
        break;
    }
    for (int i = 0; i < e->nargs; i++)
        if (varies(g, e->args[i]))
            return true;
    return false;
}

static int expr_size(const fg_expr *e)
{
    if (!e)
        return 0;
    int n = 1;
    for (int i = 0; i < e->nargs; i++)
        n += expr_size(e->args[i]);
    return n;
}

static bool const_value(const fg_expr *e, double *v)
{
    if (!e)
        return false;
    if (e->kind == E_NUM) {
        *v = e->num;
        return true;
    }
    if (e->kind == E_NEG && const_value(e->args[0], v)) {
        *v = -*v;
        return true;
    }
    return false;
}

static bool is_inf_const(const fg_expr *e)
{
    if (!e)
        return false;
    if (e->kind == E_INF)
        return true;
    return e->kind == E_NEG && is_inf_const(e->args[0]);
}

static bool is_integer(double v)
{
    return isfinite(v) && v == floor(v);
}

/* ------------------------------------------------------------------ */
/* Sign analysis                                                       */
/* ------------------------------------------------------------------ */

static bool nonneg(const fg_plan *p, const fg_expr *e, int depth);

static bool tensor_nonneg(const fg_plan *p, int ref, int depth)
{
    if (!p || ref < 0 || ref >= p->ntensors || depth > 64)
        return false;
    const fg_ir_tensor *t = &p->tensors[ref];
    if (t->kind != TENSOR_STMT)
        return false;
    if ((t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION) && t->body)
        return nonneg(p, t->body, depth + 1);
    return t->rhs && nonneg(p, t->rhs, depth + 1);
}

/* True when e is provably >= 0 (or NaN) for every value of its leaves. */
static bool nonneg(const fg_plan *p, const fg_expr *e, int depth)
{
    double v;
    if (!e || depth > 64)
        return false;
    switch (e->kind) {
    case E_NUM:
        return e->num >= 0;
    case E_INF:
    case E_DIM:
    case E_AXIS:
        return true;
    case E_TENSOR:
    case E_PREV:
        return tensor_nonneg(p, e->ref, depth);
    case E_NOT:
    case E_LT:
    case E_LE:
    case E_GT:
    case E_GE:
    case E_EQ:
    case E_NE:
    case E_AND:
    case E_OR:
        return true;
    case E_ADD:
    case E_MUL:
    case E_DIV:
        return nonneg(p, e->args[0], depth + 1) && nonneg(p, e->args[1], depth + 1);
    case E_POW:
        if (const_value(e->args[1], &v) && is_integer(v) && fmod(v, 2.0) == 0)
            return true;
        return nonneg(p, e->args[0], depth + 1);
    case E_WHERE:
        return nonneg(p, e->args[1], depth + 1) && nonneg(p, e->args[2], depth + 1);
    case E_REDUCE:
        return e->nargs > 0 && nonneg(p, e->args[0], depth + 1);
    case E_CALL:
        switch (e->fn) {
        case F_EXP:
        case F_EXP2:
        case F_SQRT:
        case F_RSQRT:
        case F_ABS:
        case F_SIGMOID:
            return true;
        case F_TANH:
            return nonneg(p, e->args[0], depth + 1);
        case F_MAX:
            return nonneg(p, e->args[0], depth + 1) || nonneg(p, e->args[1], depth + 1);
        case F_MIN:
            return nonneg(p, e->args[0], depth + 1) && nonneg(p, e->args[1], depth + 1);
        case F_POW:
            if (const_value(e->args[1], &v) && is_integer(v) && fmod(v, 2.0) == 0)
                return true;
            return nonneg(p, e->args[0], depth + 1);
        default:
            return false;
        }
    default:
        return false;
    }
}

/* ------------------------------------------------------------------ */
/* Building expressions                                                */
/* ------------------------------------------------------------------ */

fg_expr *alg_mk_bin(alg *g, fg_expr_kind kind, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_binary(g->a, kind, x, y);
    e->type = T_FLOAT;
    e->axes = x->axes | y->axes;
    return e;
}

static fg_expr *mk_neg(alg *g, fg_expr *x)
{
    fg_expr *e = expr_unary(g->a, E_NEG, x);
    e->type = T_FLOAT;
    e->axes = x->axes;
    return e;
}

static fg_expr *mk_call(alg *g, fg_func fn, fg_expr *x)
{
    fg_expr *e = expr_call1(g->a, fn, x);
    e->type = T_FLOAT;
    e->axes = x->axes;
    return e;
}

fg_expr *alg_mk_num(alg *g, double v)
{
    fg_expr *e = expr_num(g->a, v);
    e->type = T_FLOAT;
    return e;
}


/* A copy of e; each read of a running value r becomes E_PREV(r), the value
 * r had before it moved (VAL_PREV), or E_TENSOR(r), its new value. */
static fg_expr *subst(alg *g, const fg_expr *e, int which)
{
    if (!e)
        return NULL;
    if (e->kind == E_TENSOR && alg_is_running(g, e->ref)) {
        /* A running value is per row: read without its index list. */
        fg_expr *c = ARENA_NEW(g->a, fg_expr);
        *c = *e;
        c->kind = which == VAL_PREV ? E_PREV : E_TENSOR;
        c->nargs = 0;
        c->args = NULL;
        c->bracketed = false;
        return c;
    }
    if (e->nargs == 0)
        return expr_clone(g->a, e);
    fg_expr *c = ARENA_NEW(g->a, fg_expr);
    *c = *e;
    c->args = ARENA_ARRAY(g->a, fg_expr *, e->nargs);
    for (int i = 0; i < e->nargs; i++)
        c->args[i] = subst(g, e->args[i], which);
    return c;
}

/* base ^ p for p > 0, in the most readable spelling. */
static fg_expr *mk_power(alg *g, fg_expr *base, double p)
{
    if (p == 1)
        return base;
    if (p == 0.5)
        return mk_call(g, F_SQRT, base);
    fg_expr *e = alg_mk_bin(g, E_POW, base, alg_mk_num(g, p));
    e->axes = base->axes;
    return e;
}

/* A growable list of (coefficient, expression) summands. */
typedef struct alg_sum {
    double *coef;
    fg_expr **e;
    int n, cap;
} alg_sum;

static void sum_push(alg *g, alg_sum *s, double coef, fg_expr *e)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        double *c = ARENA_ARRAY(g->a, double, cap);
        fg_expr **x = ARENA_ARRAY(g->a, fg_expr *, cap);
        if (s->n) {
            memcpy(c, s->coef, sizeof *c * (size_t)s->n);
            memcpy(x, s->e, sizeof *x * (size_t)s->n);
        }
        s->coef = c;
        s->e = x;
        s->cap = cap;
    }
    s->coef[s->n] = coef;
    s->e[s->n] = e;
    s->n++;
}

static fg_expr *scaled(alg *g, double k, fg_expr *e)
{
    return k == 1 ? e : alg_mk_bin(g, E_MUL, e, alg_mk_num(g, k));
}

/* The sum, positive summands first, written with '-' for negative ones. */
static fg_expr *sum_expr(alg *g, const alg_sum *s)
{
    fg_expr *acc = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < s->n; i++) {
            double k = s->coef[i];
            if ((pass == 0) != (k > 0))
                continue;
            if (!acc)
                acc = k > 0 ? scaled(g, k, s->e[i]) : mk_neg(g, scaled(g, -k, s->e[i]));
            else if (k > 0)
                acc = alg_mk_bin(g, E_ADD, acc, scaled(g, k, s->e[i]));
            else
                acc = alg_mk_bin(g, E_SUB, acc, scaled(g, -k, s->e[i]));
        }
    }
    return acc ? acc : alg_mk_num(g, 0);
}

/* ------------------------------------------------------------------ */
/* Canonical forms                                                     */
/* ------------------------------------------------------------------ */

/* A complete multiplier or divisor distributed over a sum. */
typedef struct alg_op alg_op;
struct alg_op {
    fg_expr_kind kind; /* E_MUL or E_DIV */
    const fg_expr *by;
    const alg_op *next; /* the enclosing (outer) one */
};

/* coef * e (*|/ op ...), innermost op first. */
typedef struct alg_term {
    double coef;
    const fg_expr *e;
    const alg_op *ops;
    const fg_expr *src; /* the sub-expression it came from, for messages */
} alg_term;

typedef struct alg_terms {
    alg_term *v;
    int n, cap;
} alg_terms;

/* base ^ pow */
typedef struct alg_factor {
    const fg_expr *base;
    double pow;
    const fg_expr *src;
} alg_factor;

typedef struct alg_product {
    double coef;
    alg_factor *f;
    int nf, capf;
    alg_terms exps, exp2s; /* exp(sum of exps) * exp2(sum of exp2s) */
} alg_product;

enum part_class { PART_COMPLETE, PART_RUNNING, PART_MIXED };

static void terms_push(alg *g, alg_terms *ts, alg_term t)
{
    if (ts->n == ts->cap) {
        int cap = ts->cap ? 2 * ts->cap : 8;
        alg_term *v = ARENA_ARRAY(g->a, alg_term, cap);
        if (ts->n)
            memcpy(v, ts->v, sizeof *v * (size_t)ts->n);
        ts->v = v;
        ts->cap = cap;
    }
    ts->v[ts->n++] = t;
}

static void factor_push(alg *g, alg_product *pr, const fg_expr *base, double pw,
                        const fg_expr *src)
{
    /* x * x is x ^ 2: equal bases combine, so powers are seen as powers. */
    for (int i = 0; i < pr->nf; i++) {
        if (expr_equal(pr->f[i].base, base)) {
            pr->f[i].pow += pw;
            return;
        }
    }
    if (pr->nf == pr->capf) {
        int cap = pr->capf ? 2 * pr->capf : 8;
        alg_factor *v = ARENA_ARRAY(g->a, alg_factor, cap);
        if (pr->nf)
            memcpy(v, pr->f, sizeof *v * (size_t)pr->nf);
        pr->f = v;
        pr->capf = cap;
    }
    pr->f[pr->nf++] = (alg_factor){base, pw, src};
}

static bool ops_vary(const alg *g, const alg_op *op)
{
    for (; op; op = op->next)
        if (varies(g, op->by))
            return true;
    return false;
}

static bool ops_equal(const alg_op *x, const alg_op *y)
{
    for (; x && y; x = x->next, y = y->next)
        if (x->kind != y->kind || !expr_equal(x->by, y->by))
            return false;
    return !x && !y;
}

static int classify(const alg *g, const fg_expr *e, const alg_op *ops)
{
    if (!alg_reads(g, e))
        return PART_COMPLETE;
    return varies(g, e) || ops_vary(g, ops) ? PART_MIXED : PART_RUNNING;
}

static fg_expr *apply_ops(alg *g, fg_expr *e, const alg_op *ops)
{
    for (; ops; ops = ops->next)
        e = alg_mk_bin(g, ops->kind, e, subst(g, ops->by, VAL_NEW));
    return e;
}

/* The summands of class `cls` as one expression (NULL if there are none). */
static fg_expr *terms_expr(alg *g, const alg_terms *ts, int cls, int which)
{
    alg_sum s = {0};
    for (int i = 0; i < ts->n; i++) {
        const alg_term *t = &ts->v[i];
        if (classify(g, t->e, t->ops) == cls)
            sum_push(g, &s, t->coef, apply_ops(g, subst(g, t->e, which), t->ops));
    }
    return s.n ? sum_expr(g, &s) : NULL;
}

static void add_flatten(alg *g, const fg_expr *e, double k, const alg_op *ops,
                        const fg_expr *anchor, alg_terms *out);

/* where(c, x, -inf) with a complete c: where(c, F, -inf) + G(r), since G is
 * finite wherever the where selects x. */
static bool add_flatten_where(alg *g, const fg_expr *e, alg_terms *out)
{
    alg_terms sub = {0};
    add_flatten(g, e->args[1], 1, NULL, NULL, &sub);
    fg_expr *c = terms_expr(g, &sub, PART_COMPLETE, VAL_NEW);
    fg_expr *w = expr_new(g->a, E_WHERE, e->loc, 3);
    w->type = T_FLOAT;
    w->axes = e->axes;
    w->args[0] = subst(g, e->args[0], VAL_NEW);
    w->args[1] = c ? c : alg_mk_num(g, 0);
    w->args[2] = subst(g, e->args[2], VAL_NEW);
    terms_push(g, out, (alg_term){1, w, NULL, e});
    for (int i = 0; i < sub.n; i++)
        if (classify(g, sub.v[i].e, sub.v[i].ops) != PART_COMPLETE)
            terms_push(g, out, sub.v[i]);
    return true;
}

/* e * k as a sum of signed terms: sums and differences open up, and
 * multiplication or division by complete values distributes over them. */
static void add_flatten(alg *g, const fg_expr *e, double k, const alg_op *ops,
                        const fg_expr *anchor, alg_terms *out)
{
    double v;
    if (alg_reads(g, e)) {
        switch (e->kind) {
        case E_ADD:
        case E_SUB:
            add_flatten(g, e->args[0], k, ops, anchor, out);
            add_flatten(g, e->args[1], e->kind == E_SUB ? -k : k, ops, anchor, out);
            return;
        case E_NEG:
            add_flatten(g, e->args[0], -k, ops, anchor, out);
            return;
        case E_MUL:
            for (int i = 0; i < 2; i++) {
                const fg_expr *by = e->args[i], *x = e->args[1 - i];
                if (alg_reads(g, by))
                    continue;
                if (const_value(by, &v)) {
                    add_flatten(g, x, k * v, ops, anchor, out);
                } else {
                    alg_op *op = ARENA_NEW(g->a, alg_op);
                    *op = (alg_op){E_MUL, by, ops};
                    add_flatten(g, x, k, op, anchor ? anchor : e, out);
                }
                return;
            }
            break;
        case E_DIV:
            if (alg_reads(g, e->args[1]))
                break;
            if (const_value(e->args[1], &v) && v != 0) {
                add_flatten(g, e->args[0], k / v, ops, anchor, out);
            } else {
                alg_op *op = ARENA_NEW(g->a, alg_op);
                *op = (alg_op){E_DIV, e->args[1], ops};
                add_flatten(g, e->args[0], k, op, anchor ? anchor : e, out);
            }
            return;
        case E_WHERE:
            if (k == 1 && !ops && !alg_reads(g, e->args[0]) && is_inf_const(e->args[2]) &&
                add_flatten_where(g, e, out))
                return;
            break;
        default:
            break;
        }
    }
    terms_push(g, out, (alg_term){k, e, ops, anchor ? anchor : e});
}

static void mul_flatten(alg *g, const fg_expr *e, double pw, alg_product *out);

static bool product_has_running(const alg *g, const alg_product *pr)
{
    for (int i = 0; i < pr->nf; i++)
        if (alg_reads(g, pr->f[i].base))
            return true;
    for (int i = 0; i < pr->exps.n; i++)
        if (alg_reads(g, pr->exps.v[i].e))
            return true;
    for (int i = 0; i < pr->exp2s.n; i++)
        if (alg_reads(g, pr->exp2s.v[i].e))
            return true;
    return false;
}

static void product_merge(alg *g, alg_product *out, const alg_product *x)
{
    out->coef *= x->coef;
    for (int i = 0; i < x->nf; i++)
        factor_push(g, out, x->f[i].base, x->f[i].pow, x->f[i].src);
    for (int i = 0; i < x->exps.n; i++)
        terms_push(g, &out->exps, x->exps.v[i]);
    for (int i = 0; i < x->exp2s.n; i++)
        terms_push(g, &out->exp2s, x->exp2s.v[i]);
}

static fg_expr *product_expr(alg *g, const alg_product *pr, int cls, int which);

/* (x)^q with x a product: distributes when q is an integer or when every
 * part of x is >= 0 (otherwise (a*b)^0.5 != a^0.5 * b^0.5). */
static void power_flatten(alg *g, const fg_expr *node, const fg_expr *base, double q,
                          alg_product *out)
{
    bool composite = false;
    switch (base->kind) {
    case E_MUL:
    case E_DIV:
    case E_NEG:
    case E_POW:
    case E_NUM:
        composite = true;
        break;
    case E_CALL:
        composite = base->fn == F_EXP || base->fn == F_EXP2 || base->fn == F_SQRT ||
                    base->fn == F_RSQRT || base->fn == F_POW;
        break;
    default:
        break;
    }
    if (composite) {
        alg_product sub = {.coef = 1};
        mul_flatten(g, base, q, &sub);
        bool ok = is_integer(q) || sub.coef >= 0;
        for (int i = 0; ok && !is_integer(q) && i < sub.nf; i++) {
            double pw = sub.f[i].pow;
            ok = (is_integer(pw) && fmod(pw, 2.0) == 0) || nonneg(g->p, sub.f[i].base, 0);
        }
        if (ok) {
            product_merge(g, out, &sub);
            return;
        }
    }
    factor_push(g, out, base, q, node);
}

/* where(c, x, 0) with a complete c: where(c, F, 0) * G(r). */
static void mul_flatten_where(alg *g, const fg_expr *e, alg_product *out)
{
    alg_product sub = {.coef = 1};
    mul_flatten(g, e->args[1], 1, &sub);
    fg_expr *w = expr_new(g->a, E_WHERE, e->loc, 3);
    w->type = T_FLOAT;
    w->axes = e->axes;
    w->args[0] = subst(g, e->args[0], VAL_NEW);
    w->args[1] = product_expr(g, &sub, PART_COMPLETE, VAL_NEW);
    w->args[2] = subst(g, e->args[2], VAL_NEW);
    factor_push(g, out, w, 1, e);
    alg_product run = {.coef = 1};
    for (int i = 0; i < sub.nf; i++)
        if (alg_reads(g, sub.f[i].base))
            factor_push(g, &run, sub.f[i].base, sub.f[i].pow, sub.f[i].src);
    for (int i = 0; i < sub.exps.n; i++)
        if (alg_reads(g, sub.exps.v[i].e))
            terms_push(g, &run.exps, sub.exps.v[i]);
    for (int i = 0; i < sub.exp2s.n; i++)
        if (alg_reads(g, sub.exp2s.v[i].e))
            terms_push(g, &run.exp2s, sub.exp2s.v[i]);
    product_merge(g, out, &run);
}

/* e ^ pw as a product coef * prod base^pow * exp(sum) * exp2(sum). */
static void mul_flatten(alg *g, const fg_expr *e, double pw, alg_product *out)
{
    double v;
    if (const_value(e, &v) && (is_integer(pw) || v >= 0)) {
        out->coef *= pow(v, pw);
        return;
    }
    if (!alg_reads(g, e)) {
        factor_push(g, out, e, pw, e);
        return;
    }
    switch (e->kind) {
    case E_MUL:
        mul_flatten(g, e->args[0], pw, out);
        mul_flatten(g, e->args[1], pw, out);
        return;
    case E_DIV:
        mul_flatten(g, e->args[0], pw, out);
        mul_flatten(g, e->args[1], -pw, out);
        return;
    case E_NEG:
        if (!is_integer(pw))
            break;
        if (fmod(pw, 2.0) != 0)
            out->coef = -out->coef;
        mul_flatten(g, e->args[0], pw, out);
        return;
    case E_POW:
        if (!const_value(e->args[1], &v))
            break;
        power_flatten(g, e, e->args[0], pw * v, out);
        return;
    case E_WHERE:
        if (pw == 1 && !alg_reads(g, e->args[0]) && const_value(e->args[2], &v) && v == 0) {
            mul_flatten_where(g, e, out);
            return;
        }
        break;
    case E_CALL:
        switch (e->fn) {
        case F_EXP:
            add_flatten(g, e->args[0], pw, NULL, NULL, &out->exps);
            return;
        case F_EXP2:
            add_flatten(g, e->args[0], pw, NULL, NULL, &out->exp2s);
            return;
        case F_SQRT:
            power_flatten(g, e, e->args[0], pw * 0.5, out);
            return;
        case F_RSQRT:
            power_flatten(g, e, e->args[0], pw * -0.5, out);
            return;
        case F_POW:
            if (!const_value(e->args[1], &v))
                break;
            power_flatten(g, e, e->args[0], pw * v, out);
            return;
        default:
            break;
        }
        break;
    default:
        break;
    }
    factor_push(g, out, e, pw, e);
}

/* The parts of class `cls` as one product: numerators, then denominators,
 * then exp and exp2 of the summed exponents.  The numeric coefficient goes
 * with the complete part. */
static fg_expr *product_expr(alg *g, const alg_product *pr, int cls, int which)
{
    fg_expr *num = NULL, *den = NULL;
    for (int i = 0; i < pr->nf; i++) {
        const alg_factor *f = &pr->f[i];
        if (f->pow == 0 || classify(g, f->base, NULL) != cls)
            continue;
        fg_expr *x = mk_power(g, subst(g, f->base, which), fabs(f->pow));
        if (f->pow > 0)
            num = num ? alg_mk_bin(g, E_MUL, num, x) : x;
        else
            den = den ? alg_mk_bin(g, E_MUL, den, x) : x;
    }
    fg_expr *acc = num;
    if (den)
        acc = alg_mk_bin(g, E_DIV, acc ? acc : alg_mk_num(g, 1), den);
    fg_expr *ex = terms_expr(g, &pr->exps, cls, which);
    if (ex) {
        ex = mk_call(g, F_EXP, ex);
        acc = acc ? alg_mk_bin(g, E_MUL, acc, ex) : ex;
    }
    ex = terms_expr(g, &pr->exp2s, cls, which);
    if (ex) {
        ex = mk_call(g, F_EXP2, ex);
        acc = acc ? alg_mk_bin(g, E_MUL, acc, ex) : ex;
    }
    if (cls == PART_COMPLETE && pr->coef != 1) {
        if (pr->coef == -1)
            return mk_neg(g, acc ? acc : alg_mk_num(g, 1));
        return acc ? alg_mk_bin(g, E_MUL, alg_mk_num(g, pr->coef), acc) : alg_mk_num(g, pr->coef);
    }
    return acc ? acc : alg_mk_num(g, 1);
}

/* G(r') - G(r) for the running summands: the previous values with the
 * opposite sign first, then the new ones; a common |coefficient| and a
 * common complete multiplier are factored out:  (Mx_prev - Mx) * 1.44. */
static fg_expr *terms_diff(alg *g, const alg_terms *ts)
{
    alg_term run[64];
    int n = 0;
    for (int i = 0; i < ts->n; i++) {
        const alg_term *t = &ts->v[i];
        if (classify(g, t->e, t->ops) != PART_RUNNING)
            continue;
        /* Like terms combine: exp(S - Mx) * exp(S - Mx) shifts by 2 Mx. */
        int j = 0;
        while (j < n && !(expr_equal(run[j].e, t->e) && ops_equal(run[j].ops, t->ops)))
            j++;
        if (j < n) {
            run[j].coef += t->coef;
            continue;
        }
        if (n == 64)
            return NULL;
        run[n++] = *t;
    }
    int live = 0;
    for (int i = 0; i < n; i++)
        if (run[i].coef != 0)
            run[live++] = run[i];
    n = live;
    if (!n)
        return NULL;
    bool common = true;
    for (int i = 1; i < n; i++)
        if (fabs(run[i].coef) != fabs(run[0].coef) || !ops_equal(run[i].ops, run[0].ops))
            common = false;
    alg_sum s = {0};
    for (int which = VAL_PREV, pass = 0; pass < 2; pass++, which = VAL_NEW) {
        for (int i = 0; i < n; i++) {
            double k = which == VAL_PREV ? -run[i].coef : run[i].coef;
            fg_expr *x = subst(g, run[i].e, which);
            if (common)
                sum_push(g, &s, k > 0 ? 1 : -1, x);
            else
                sum_push(g, &s, k, apply_ops(g, x, run[i].ops));
        }
    }
    fg_expr *d = sum_expr(g, &s);
    if (common) {
        d = apply_ops(g, d, run[0].ops);
        d = scaled(g, fabs(run[0].coef), d);
    }
    return d;
}

/* G(r') / G(r) for the running factors. */
static fg_expr *product_ratio(alg *g, const alg_product *pr)
{
    fg_expr *num = NULL, *den = NULL;
    for (int i = 0; i < pr->nf; i++) {
        const alg_factor *f = &pr->f[i];
        if (f->pow == 0 || classify(g, f->base, NULL) != PART_RUNNING)
            continue;
        fg_expr *up = mk_power(g, subst(g, f->base, f->pow > 0 ? VAL_NEW : VAL_PREV),
                               fabs(f->pow));
        fg_expr *down = mk_power(g, subst(g, f->base, f->pow > 0 ? VAL_PREV : VAL_NEW),
                                 fabs(f->pow));
        num = num ? alg_mk_bin(g, E_MUL, num, up) : up;
        den = den ? alg_mk_bin(g, E_MUL, den, down) : down;
    }
    fg_expr *acc = num;
    if (den)
        acc = alg_mk_bin(g, E_DIV, acc, den);
    fg_expr *d = terms_diff(g, &pr->exps);
    if (d) {
        d = mk_call(g, F_EXP, d);
        acc = acc ? alg_mk_bin(g, E_MUL, acc, d) : d;
    }
    d = terms_diff(g, &pr->exp2s);
    if (d) {
        d = mk_call(g, F_EXP2, d);
        acc = acc ? alg_mk_bin(g, E_MUL, acc, d) : d;
    }
    return acc ? acc : alg_mk_num(g, 1);
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

const char *alg_tensor_name(const fg_plan *p, int ref)
{
    if (p && ref >= 0 && ref < p->ntensors && p->tensors[ref].name)
        return plan_user_name(p, ref); /* O for the hoisted O_sum */
    return "?";
}

/* The reducer behind a running value: its own, or that of the reduction it
 * is computed from (Mean = Mean_sum / N reads a running sum); -1 if none. */
int alg_producer_op(const fg_plan *p, const fg_expr *e, int depth)
{
    if (!p || !e || depth > 64)
        return -1;
    if (e->kind == E_REDUCE)
        return (int)e->op;
    if ((e->kind == E_TENSOR || e->kind == E_PREV) && e->ref >= 0 && e->ref < p->ntensors) {
        const fg_ir_tensor *t = &p->tensors[e->ref];
        if (t->kind != TENSOR_STMT)
            return -1;
        if (t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION)
            return (int)t->op;
        if (t->rhs && t->rhs->kind == E_REDUCE)
            return (int)t->rhs->op;
        return alg_producer_op(p, t->rhs, depth + 1);
    }
    for (int i = 0; i < e->nargs; i++) {
        int op = alg_producer_op(p, e->args[i], depth + 1);
        if (op >= 0)
            return op;
    }
    return -1;
}

static const char *running_noun(const fg_plan *p, int ref)
{
    static const char *const nouns[3] = {"running sum", "running maximum", "running minimum"};
    if (!p || ref < 0 || ref >= p->ntensors || p->tensors[ref].kind != TENSOR_STMT)
        return "running value";
    const fg_ir_tensor *t = &p->tensors[ref];
    int op = -1;
    if (t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION)
        op = (int)t->op;
    else if (t->rhs && t->rhs->kind == E_REDUCE)
        op = (int)t->rhs->op;
    return op >= 0 && op < 3 ? nouns[op] : "running value";
}

static int lowest_bit(uint64_t bits)
{
    for (int i = 0; i < 64; i++)
        if (bits >> i & 1u)
            return i;
    return -1;
}

/* A power of a sum that mixes a complete value with a running value: a
 * power sum that check_aux.c does not carry (above FG_MAX_POWER, or not a
 * whole power). */
static bool is_power_sum(alg *g, const fg_expr *src)
{
    const fg_expr *base = NULL;
    double q = 1;
    if (src->kind == E_POW && const_value(src->args[1], &q))
        base = src->args[0];
    else if (src->kind == E_CALL && src->fn == F_POW && const_value(src->args[1], &q))
        base = src->args[0];
    else if (src->kind == E_MUL && expr_equal(src->args[0], src->args[1]))
        base = src->args[0], q = 2;
    if (!base || q < 2 || (q == floor(q) && q <= FG_MAX_POWER))
        return false; /* a reciprocal; or a power that a power sum carries */
    alg_terms ts = {0};
    add_flatten(g, base, 1, NULL, NULL, &ts);
    bool has_complete = false, has_running = false;
    for (int i = 0; i < ts.n; i++) {
        int cls = classify(g, ts.v[i].e, ts.v[i].ops);
        if (cls == PART_COMPLETE && varies(g, ts.v[i].e))
            has_complete = true;
        else if (cls == PART_RUNNING)
            has_running = true;
    }
    return has_complete && has_running;
}


static bool product_mixed(const alg *g, const alg_product *pr)
{
    for (int i = 0; i < pr->nf; i++)
        if (classify(g, pr->f[i].base, NULL) == PART_MIXED)
            return true;
    const alg_terms *lists[2] = {&pr->exps, &pr->exp2s};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l]->n; i++)
            if (classify(g, lists[l]->v[i].e, lists[l]->v[i].ops) == PART_MIXED)
                return true;
    return false;
}

static bool terms_mixed(const alg *g, const alg_terms *ts)
{
    for (int i = 0; i < ts->n; i++)
        if (classify(g, ts->v[i].e, ts->v[i].ops) == PART_MIXED)
            return true;
    return false;
}

/* Would this part, taken alone, separate one way or the other?  Then it is
 * not where the body stops separating (exp(S - Mx) in exp(S - Mx) + 1). */
static bool separates_alone(alg *g, const fg_expr *src)
{
    alg_product pr = {.coef = 1};
    mul_flatten(g, src, 1, &pr);
    if (!product_mixed(g, &pr))
        return true;
    alg_terms ts = {0};
    add_flatten(g, src, 1, NULL, NULL, &ts);
    return !terms_mixed(g, &ts);
}

static void consider_mixed(alg *g, const fg_expr **best, const fg_expr *src)
{
    if (*best && expr_size(src) >= expr_size(*best))
        return;
    if (!separates_alone(g, src))
        *best = src;
}

/* Where the body stops separating: the smallest mixed part of either form
 * that does not separate alone, or NULL (then the body is).  A factor with
 * a power but no node of its own (x * x, 1 / x) is left to an enclosing
 * node. */
static const fg_expr *smallest_mixed(alg *g, const alg_product *pr, const alg_terms *ts)
{
    const fg_expr *best = NULL;
    for (int i = 0; i < pr->nf; i++) {
        const alg_factor *f = &pr->f[i];
        if (classify(g, f->base, NULL) == PART_MIXED && !(f->src == f->base && f->pow != 1))
            consider_mixed(g, &best, f->src);
    }
    const alg_terms *lists[3] = {&pr->exps, &pr->exp2s, ts};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < lists[l]->n; i++)
            if (classify(g, lists[l]->v[i].e, lists[l]->v[i].ops) == PART_MIXED)
                consider_mixed(g, &best, lists[l]->v[i].src);
    return best;
}

/* A copy for messages: tensors and params without their index lists (a
 * read is always at the declared indices), so 'S - Mx' rather than
 * 'S[b, h, m, n] - Mx[b, h, m]'; a read of a reduction the checker hoisted
 * (Mean_sum out of Mean = sum(c: X) / C) as the reduction the user wrote. */
static fg_expr *plain(alg *g, const fg_expr *e)
{
    if (!e)
        return NULL;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < g->p->ntensors &&
        g->p->tensors[e->ref].hoisted && g->p->tensors[e->ref].rhs)
        return plain(g, g->p->tensors[e->ref].rhs);
    fg_expr *c = ARENA_NEW(g->a, fg_expr);
    *c = *e;
    if ((e->kind == E_TENSOR || e->kind == E_PARAM) && e->bracketed) {
        c->bracketed = false;
        c->nargs = 0;
        c->args = NULL;
        return c;
    }
    if (e->nargs > 0) {
        c->args = ARENA_ARRAY(g->a, fg_expr *, e->nargs);
        for (int i = 0; i < e->nargs; i++)
            c->args[i] = plain(g, e->args[i]);
    }
    return c;
}

const char *alg_plain_str(alg *g, const fg_expr *e)
{
    return expr_to_string(g->a, g->p, plain(g, e));
}

/* ------------------------------------------------------------------ */
/* Derivation                                                          */
/* ------------------------------------------------------------------ */

fg_expr *alg_shift(alg *g, const fg_expr *e, const fg_expr **mixed)
{
    alg_terms ts = {0};
    add_flatten(g, e, 1, NULL, NULL, &ts);
    for (int i = 0; i < ts.n; i++)
        if (classify(g, ts.v[i].e, ts.v[i].ops) == PART_MIXED) {
            *mixed = ts.v[i].src;
            return NULL;
        }
    return terms_diff(g, &ts);
}


int derive_correction(fg_arena *a, const fg_plan *p, const fg_expr *body,
                      fg_reduce_op op, uint64_t running, int stmt, fg_loc loc,
                      fg_correction *out, fg_diag *d)
{
    alg g = {a, p, running, -1, stmt};
    memset(out, 0, sizeof *out);
    out->origin = stmt;
    if (!p || !body || stmt < 0 || stmt >= p->ntensors || (unsigned)op > R_MIN) {
        diag_internal(d, loc, "derive_correction called without a plan, a body or a statement");
        return -1;
    }
    const fg_ir_tensor *t = &p->tensors[stmt];
    g.axis = t->red_axis >= 0 && t->red_axis < p->naxes ? t->red_axis : -1;
    const char *axis_name = g.axis >= 0 ? p->axes[g.axis].name : "?";
    const char *opname = fg_reduce_names[op];
    if (t->powsum && t->powsum->k > 0 && op == R_SUM)
        return alg_derive_powsum(&g, body, out, loc, d);

    uint64_t prod = alg_reads(&g, body);
    if (!prod) {
        out->kind = CORR_NONE;
        out->why = arena_printf(a, "%s reads no running value: nothing to correct",
                                alg_plain_str(&g, body));
        return alg_verify(&g, body, op, out, loc, d);
    }

    /* A product F(c) * G(r): t rescales by G(r') / G(r). */
    alg_product pr = {.coef = 1};
    mul_flatten(&g, body, 1, &pr);
    const fg_expr *bad_sign = NULL;
    if (!product_mixed(&g, &pr) && product_has_running(&g, &pr)) {
        fg_expr *factor = product_ratio(&g, &pr);
        fg_expr *run = product_expr(&g, &pr, PART_RUNNING, VAL_NEW);
        int mk = op == R_SUM || nonneg(p, factor, 0) ? rule_masked_ratio(p, prod, factor) : -1;
        if (mk >= 0) {
            diag_error(d, loc,
                       "cannot fuse '%s' over '%s': its body '%s' rescales by '%s', a ratio of "
                       "the masked %s '%s', which holds %s while the mask has hidden every key "
                       "so far; the terms added meanwhile would be lost (an exp of the "
                       "difference from it can be corrected, a ratio cannot)",
                       plan_user_name(p, stmt), axis_name, alg_plain_str(&g, body),
                       alg_plain_str(&g, factor), running_noun(p, mk), alg_tensor_name(p, mk),
                       p->tensors[mk].op == R_MAX ? "-inf" : "+inf");
            return -1;
        }
        if (op == R_SUM || nonneg(p, factor, 0)) {
            out->kind = CORR_SCALE;
            out->factor = factor;
            out->producers = prod;
            out->why = arena_printf(
                a, "%s separates into %s * %s; under %s the factor %s rescales by %s",
                alg_plain_str(&g, body), alg_plain_str(&g, product_expr(&g, &pr, PART_COMPLETE, VAL_NEW)),
                alg_plain_str(&g, run), opname, alg_plain_str(&g, run), alg_plain_str(&g, factor));
            return alg_verify(&g, body, op, out, loc, d);
        }
        bad_sign = run;
    }

    /* A sum F(c) + G(r): t shifts by G(r') - G(r). */
    alg_terms ts = {0};
    add_flatten(&g, body, 1, NULL, NULL, &ts);
    bool ts_mixed = terms_mixed(&g, &ts), ts_running = false;
    for (int i = 0; i < ts.n; i++)
        ts_running |= classify(&g, ts.v[i].e, ts.v[i].ops) == PART_RUNNING;
    const char *producer = alg_tensor_name(p, lowest_bit(prod));
    const char *noun = running_noun(p, lowest_bit(prod));
    if (!ts_mixed && ts_running) {
        if (op != R_SUM) {
            fg_expr *shift = terms_diff(&g, &ts);
            fg_expr *run = terms_expr(&g, &ts, PART_RUNNING, VAL_NEW);
            fg_expr *comp = terms_expr(&g, &ts, PART_COMPLETE, VAL_NEW);
            out->kind = CORR_SHIFT;
            out->factor = shift;
            out->producers = prod;
            out->why = arena_printf(
                a, "%s separates into %s + %s; under %s the term %s shifts by %s",
                alg_plain_str(&g, body), comp ? alg_plain_str(&g, comp) : "0", alg_plain_str(&g, run), opname,
                alg_plain_str(&g, run), alg_plain_str(&g, shift));
            return alg_verify(&g, body, op, out, loc, d);
        }
        if (!bad_sign) {
            diag_error(d, loc,
                       "cannot fuse '%s' over '%s': its body '%s' shifts with the %s '%s', "
                       "but a shift under sum needs the count of terms (not supported yet)",
                       plan_user_name(p, stmt), axis_name, alg_plain_str(&g, body), noun, producer);
            return -1;
        }
    }
    if (bad_sign) {
        diag_error(d, loc,
                   "cannot fuse '%s' over '%s': its body '%s' rescales with the %s '%s', "
                   "but the factor '%s' may be negative, so rescaling does not distribute "
                   "over %s",
                   plan_user_name(p, stmt), axis_name, alg_plain_str(&g, body), noun, producer, alg_plain_str(&g, bad_sign), opname);
        return -1;
    }

    const fg_expr *mixed = smallest_mixed(&g, &pr, &ts);
    if (!mixed)
        mixed = body;
    uint64_t mixed_reads = alg_reads(&g, mixed);
    int r = lowest_bit(mixed_reads ? mixed_reads : prod);
    producer = alg_tensor_name(p, r);
    noun = running_noun(p, r);
    if (is_power_sum(&g, mixed)) {
        diag_error(d, loc,
                   "cannot fuse '%s' over '%s': its body reads the %s '%s' inside '%s'; the "
                   "sums of powers of a difference from a running value are carried for whole "
                   "powers up to the power %d",
                   plan_user_name(p, stmt), axis_name, noun, producer, alg_plain_str(&g, mixed),
                   FG_MAX_POWER);
        return -1;
    }
    diag_error(d, loc,
               "cannot fuse '%s' over '%s': its body reads the %s '%s' inside '%s', which "
               "does not separate into a factor or a term of '%s' alone",
               plan_user_name(p, stmt), axis_name, noun, producer, alg_plain_str(&g, mixed), producer);
    return -1;
}
