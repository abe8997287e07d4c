/* kernel_score.c - the attention score in the exp2 domain: constant
 * factors hoisted (per launch on the host, or per head) and log2(e)
 * folded into them, and the chain of statements that compute it, for the
 * kernel model (kernel.c matches the roles first). */
#include "kernel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The score in the exp2 domain, constants hoisted                     */
/* ------------------------------------------------------------------ */

/* Whether e reads the row or key axis only in the indices of reads of
 * inputs, and reads one (a table at a clamped distance): such a term can be
 * one value over a whole tile. */
static bool rowkey_in_reads_only(kb *c, const fg_expr *e, bool *reads)
{
    if (e->kind == E_AXIS)
        return e->ref != c->ax_m && e->ref != c->ax_n;
    if (e->kind == E_TENSOR) {
        *reads = true;
        return true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!rowkey_in_reads_only(c, e->args[i], reads))
            return false;
    return true;
}

#define LOG2E 1.4426950408889634

/* 0: a host constant (numbers, dims, scalar params); 1: per head (reads the
 * head axis or a per-head param); 2: varies per element. */
int kb_constness(kb *c, const fg_expr *e)
{
    switch (e->kind) {
    case E_NUM: case E_INF: case E_DIM: return 0;
    case E_PARAM: return c->p->params[e->ref].index_axis >= 0 ? 1 : 0;
    case E_AXIS: return e->ref == c->ax_h ? 1 : 2;
    case E_TENSOR: return 2;
    default: {
        int k = 0;
        for (int i = 0; i < e->nargs; i++) {
            int x = kb_constness(c, e->args[i]);
            if (x > k)
                k = x;
        }
        return k;
    }
    }
}

void kb_collect(const fg_expr *e, bool den, factors *f)
{
    if (e->kind == E_MUL && e->type == T_FLOAT) {
        kb_collect(e->args[0], den, f);
        kb_collect(e->args[1], den, f);
    } else if (e->kind == E_DIV && e->type == T_FLOAT) {
        kb_collect(e->args[0], den, f);
        kb_collect(e->args[1], !den, f);
    } else if (den) {
        if (f->nden < 32)
            f->den[f->nden++] = e;
        else
            f->ok = false;
    } else {
        if (f->nnum < 32)
            f->num[f->nnum++] = e;
        else
            f->ok = false;
    }
}

static fg_expr *fnum(fg_arena *a, double v)
{
    fg_expr *e = expr_num(a, v);
    e->type = T_FLOAT;
    return e;
}

static fg_expr *fbin(fg_arena *a, fg_expr_kind kind, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_binary(a, kind, x, y);
    e->type = T_FLOAT;
    e->axes = x->axes | y->axes;
    return e;
}

/* A hoisted constant: the product of the constant factors of f (times
 * log2(e) when l2), as a new E_KCONST leaf; NULL when the table is full. */
static fg_expr *hoist(kb *c, const factors *f, bool l2, bool per_head)
{
    fg_kernel *k = c->k;
    if (k->nconsts >= FG_MAX_KCONSTS)
        return NULL;
    fg_expr *e = NULL;
    fg_strbuf why = {c->a, NULL, 0, 0};
    for (int i = 0; i < f->nnum; i++)
        if (kb_constness(c, f->num[i]) < 2) {
            fg_expr *x = expr_clone(c->a, f->num[i]);
            strbuf_printf(&why, "%s%s", e ? " * " : "", expr_to_string(c->a, c->p, x));
            e = e ? fbin(c->a, E_MUL, e, x) : x;
        }
    if (!e) {
        e = fnum(c->a, 1.0);
        strbuf_puts(&why, "1");
    }
    for (int i = 0; i < f->nden; i++)
        if (kb_constness(c, f->den[i]) < 2) {
            fg_expr *x = expr_clone(c->a, f->den[i]);
            strbuf_printf(&why, " / %s", expr_to_string(c->a, c->p, x));
            e = fbin(c->a, E_DIV, e, x);
        }
    if (l2) {
        e = fbin(c->a, E_MUL, e, fnum(c->a, LOG2E));
        strbuf_puts(&why, " * log2(e)");
    }
    int at = k->nconsts; /* one constant per value: the score and its tile form share it */
    for (int i = 0; i < k->nconsts; i++)
        if (k->consts[i].per_head == per_head && expr_equal(k->consts[i].e, e))
            at = i;
    if (at == k->nconsts)
        k->consts[k->nconsts++] = (fg_kconst){e, strbuf_str(&why), per_head};
    fg_expr *ref = expr_ref(c->a, E_KCONST, at, NULL);
    ref->type = T_FLOAT;
    ref->axes = per_head ? 1u << c->ax_h : 0;
    return ref;
}

static fg_expr *score_l2(kb *c, const fg_expr *e, bool l2);

/* A float product chain with constant factors: the varying factors times
 * one hoisted constant; NULL when e is not such a chain. */
static fg_expr *score_product(kb *c, const fg_expr *e, bool l2)
{
    if (!(e->type == T_FLOAT && (e->kind == E_MUL || e->kind == E_DIV)))
        return NULL;
    factors f = {.ok = true};
    kb_collect(e, false, &f);
    if (!f.ok)
        return NULL;
    int nconst = 0, nvar = 0, worst = 0;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < (side ? f.nden : f.nnum); i++) {
            int k = kb_constness(c, side ? f.den[i] : f.num[i]);
            if (k < 2) {
                nconst++;
                worst = k > worst ? k : worst;
            } else
                nvar++;
        }
    if (nvar == 0 || (nconst == 0 && !l2))
        return NULL;
    fg_expr *kc = hoist(c, &f, l2, worst == 1);
    if (!kc)
        return NULL;
    fg_expr *v = NULL;
    for (int i = 0; i < f.nnum; i++)
        if (kb_constness(c, f.num[i]) == 2) {
            fg_expr *x = score_l2(c, f.num[i], false);
            v = v ? fbin(c->a, E_MUL, v, x) : x;
        }
    for (int i = 0; i < f.nden; i++)
        if (kb_constness(c, f.den[i]) == 2)
            v = fbin(c->a, E_DIV, v ? v : fnum(c->a, 1.0), score_l2(c, f.den[i], false));
    return fbin(c->a, E_MUL, v, kc);
}

/* The score (times log2(e) when l2), constant factors hoisted where they
 * multiply; the elementwise functions keep their argument's hoisting. */
static fg_expr *score_l2(kb *c, const fg_expr *e, bool l2)
{
    if (e->type == T_FLOAT && kb_constness(c, e) == 2) {
        if ((e->kind == E_ADD || e->kind == E_SUB) && l2) {
            fg_expr *x = score_l2(c, e->args[0], true), *y;
            const fg_expr *r = e->args[1];
            if (r->type == T_FLOAT && kb_constness(c, r) == 2)
                y = score_l2(c, r, true);
            else {
                factors f = {.ok = true};
                f.num[f.nnum++] = r;
                y = r->type == T_FLOAT ? hoist(c, &f, true, kb_constness(c, r) == 1) : NULL;
                if (!y)
                    y = fbin(c->a, E_MUL, expr_clone(c->a, r), fnum(c->a, LOG2E));
            }
            return fbin(c->a, e->kind, x, y);
        }
        if (e->kind == E_NEG && l2) {
            fg_expr *n = expr_unary(c->a, E_NEG, score_l2(c, e->args[0], true));
            n->type = T_FLOAT;
            return n;
        }
        fg_expr *prod = score_product(c, e, l2);
        if (prod)
            return prod;
        if (e->kind == E_CALL && !l2 && e->nargs == 1 && e->args[0]->type != T_INT &&
            e->fn != F_MIN && e->fn != F_MAX && e->fn != F_ABS && e->fn != F_POW &&
            e->fn != F_SIGMOID) {
            fg_expr *n = expr_clone(c->a, e);
            n->args[0] = score_l2(c, e->args[0], false);
            return n;
        }
    }
    if (l2)
        return fbin(c->a, E_MUL, expr_clone(c->a, e), fnum(c->a, LOG2E));
    return expr_clone(c->a, e);
}

/* qk * c or qk / c (c a host constant), or qk alone: the kernels' fold of
 * the scale into one FFMA.  The constant's expression, or NULL. */
static const fg_expr *scaled_qk(kb *c, const fg_expr *e, bool *is_div)
{
    *is_div = false;
    if (is_tensor(e, c->ssum))
        return e;
    if (e->kind == E_MUL) {
        if (is_tensor(e->args[0], c->ssum) && kb_constness(c, e->args[1]) == 0)
            return e->args[1];
        if (is_tensor(e->args[1], c->ssum) && kb_constness(c, e->args[0]) == 0)
            return e->args[0];
    }
    if (e->kind == E_DIV && is_tensor(e->args[0], c->ssum) && kb_constness(c, e->args[1]) == 0) {
        *is_div = true;
        return e->args[1];
    }
    return NULL;
}

/* The hoisted constant (times log2(e) unless the chain is in base 2) of
 * the scale qc that scaled_qk found in x (NULL when x is qk alone). */
static fg_expr *hoist_qk_scale(kb *c, const fg_expr *x, const fg_expr *qc, bool is_div)
{
    factors f = {.ok = true};
    if (qc != x && qc->kind != E_TENSOR) {
        if (is_div)
            f.den[f.nden++] = qc;
        else
            f.num[f.nnum++] = qc;
    }
    return hoist(c, &f, !c->base2, false);
}

/* The score as a product of constant and varying factors (qk * scale, qk /
 * c, qk alone, cap * tanh(S / cap), qk * G[n]): its varying part in the
 * kernels' form (qk; the elementwise functions' constants hoisted; no
 * log2(e)), the constant factors into *cf and their plan expression into
 * *kexpr (NULL when there are none).  NULL when the score is no such
 * product, a factor is constant per head only, or no factor varies.  The
 * kernels take the row max on the varying part and fold the constants
 * (times log2(e)) into the exp2 argument's FFMA: one multiply an element
 * fewer, and the same order of operations as qk * scale has always had. */
static fg_expr *fold_inner(kb *c, const fg_expr *e, factors *cf, const fg_expr **kexpr)
{
    *kexpr = NULL;
    if (is_tensor(e, c->ssum)) {
        fg_expr *qk = expr_ref(c->a, E_TENSOR, c->ssum, NULL);
        qk->type = T_FLOAT;
        return qk;
    }
    if (!(e->type == T_FLOAT && (e->kind == E_MUL || e->kind == E_DIV)))
        return NULL;
    factors f = {.ok = true};
    kb_collect(e, false, &f);
    if (!f.ok)
        return NULL;
    fg_expr *v = NULL, *k = NULL;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < (side ? f.nden : f.nnum); i++) {
            const fg_expr *x = side ? f.den[i] : f.num[i];
            int cn = kb_constness(c, x);
            if (cn == 1)
                return NULL;
            fg_expr *y;
            if (cn == 0) {
                if (side)
                    cf->den[cf->nden++] = x;
                else
                    cf->num[cf->nnum++] = x;
                y = expr_clone(c->a, x);
                k = k ? fbin(c->a, side ? E_DIV : E_MUL, k, y) : side ? fbin(c->a, E_DIV, fnum(c->a, 1.0), y) : y;
                continue;
            }
            if (is_tensor(x, c->ssum)) {
                y = expr_ref(c->a, E_TENSOR, c->ssum, NULL);
                y->type = T_FLOAT;
            } else
                y = score_l2(c, x, false);
            v = v ? fbin(c->a, side ? E_DIV : E_MUL, v, y) : side ? fbin(c->a, E_DIV, fnum(c->a, 1.0), y) : y;
        }
    if (!v)
        return NULL;
    *kexpr = k;
    return v;
}

/* The coefficient of the key axis in e, an integer expression that reads
 * no input and no head and is linear in the key (the key only under +, -
 * and times an integer literal); false when it is not.  *coef receives the
 * coefficient (0: e is free of the key). */
static bool key_linear(kb *c, const fg_expr *e, long *coef)
{
    *coef = 0;
    if (e->type != T_INT || e->kind == E_TENSOR)
        return false;
    if (e->kind == E_AXIS) {
        *coef = e->ref == c->ax_n;
        return e->ref != c->ax_h; /* plan_keylin_int(i, j, p) has no head */
    }
    long a = 0, b = 0;
    switch (e->kind) {
    case E_ADD:
    case E_SUB:
        if (!key_linear(c, e->args[0], &a) || !key_linear(c, e->args[1], &b))
            return false;
        *coef = e->kind == E_ADD ? a + b : a - b;
        return *coef >= -1024 && *coef <= 1024;
    case E_NEG:
        if (!key_linear(c, e->args[0], &a))
            return false;
        *coef = -a;
        return true;
    case E_MUL: /* times an integer literal */
        if (!key_linear(c, e->args[0], &a) || !key_linear(c, e->args[1], &b))
            return false;
        if (a != 0 && b != 0)
            return false;
        if (a || b) {
            const fg_expr *k = e->args[a ? 1 : 0];
            if (k->kind != E_NUM || fabs(k->num) > 1024)
                return false;
            *coef = (a ? a : b) * (long)k->num;
        }
        return *coef >= -1024 && *coef <= 1024;
    default:
        for (int i = 0; i < e->nargs; i++)
            if (!key_linear(c, e->args[i], &a) || a != 0)
                return false;
        return true;
    }
}

/* The coefficients of the row and the key in e, an integer expression
 * affine in them (under +, -, negation and times an integer literal);
 * false when it is not, or reads an input. */
static bool rowkey_affine(kb *c, const fg_expr *e, long *cm, long *cn, int depth)
{
    *cm = *cn = 0;
    if (e->type != T_INT || e->kind == E_TENSOR || depth > FG_MAX_EXPR_DEPTH)
        return false;
    long am = 0, an = 0, bm = 0, bn = 0;
    switch (e->kind) {
    case E_AXIS:
        *cm = e->ref == c->ax_m;
        *cn = e->ref == c->ax_n;
        return true;
    case E_NUM: case E_DIM: case E_PARAM:
        return e->nargs == 0;
    case E_NEG:
        if (!rowkey_affine(c, e->args[0], &am, &an, depth + 1))
            return false;
        *cm = -am;
        *cn = -an;
        return true;
    case E_ADD:
    case E_SUB:
        if (!rowkey_affine(c, e->args[0], &am, &an, depth + 1) ||
            !rowkey_affine(c, e->args[1], &bm, &bn, depth + 1))
            return false;
        *cm = e->kind == E_ADD ? am + bm : am - bm;
        *cn = e->kind == E_ADD ? an + bn : an - bn;
        return labs(*cm) <= 1024 && labs(*cn) <= 1024;
    case E_MUL: {
        if (!rowkey_affine(c, e->args[0], &am, &an, depth + 1) ||
            !rowkey_affine(c, e->args[1], &bm, &bn, depth + 1))
            return false;
        if ((am || an) && (bm || bn))
            return false;
        if (!(am || an || bm || bn))
            return true;
        const fg_expr *k = e->args[am || an ? 1 : 0];
        if (k->kind != E_NUM || fabs(k->num) > 1024 || k->num != (double)(long)k->num)
            return false;
        *cm = (am + bm) * (long)k->num;
        *cn = (an + bn) * (long)k->num;
        return labs(*cm) <= 1024 && labs(*cn) <= 1024; /* nested products stay bounded */
    }
    default:
        return false;
    }
}

/* Whether e reads the row and the key only through their difference: e at
 * (m + t, n + t) is e at (m, n) for every t (a table read at a clamped
 * distance).  Each part of e that names them is either an affine integer
 * expression in which they have opposite coefficients, or a function of
 * parts that are. */
static bool diagonal_only(kb *c, const fg_expr *e, int depth)
{
    long cm, cn;
    if (depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_AXIS)
        return e->ref != c->ax_m && e->ref != c->ax_n;
    if (rowkey_affine(c, e, &cm, &cn, 0) && cm == -cn)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (!diagonal_only(c, e->args[i], depth + 1))
            return false;
    return true;
}

/* qk * c + a * E or qk * c - a * E, with a constant (per launch or per
 * head) and E an integer expression linear in the key (key_linear): the
 * kernel model's keylin form.  False when the score is not so. */
static bool bind_keylin(kb *c, fg_kattn *at)
{
    const fg_expr *e = c->score;
    if (e->kind != E_ADD && e->kind != E_SUB)
        return false;
    for (int side = 0; side < 2; side++) {
        if (side == 1 && e->kind == E_SUB)
            break;
        bool is_div = false;
        const fg_expr *qc = scaled_qk(c, e->args[side], &is_div);
        const fg_expr *g = e->args[1 - side];
        if (!qc || expr_reads(g, c->ssum) || g->type != T_FLOAT)
            continue;
        factors f = {.ok = true}, kf = {.ok = true};
        kb_collect(g, false, &f);
        const fg_expr *term = NULL;
        bool per_head = false, ok = f.ok;
        for (int i = 0; i < f.nnum && ok; i++) {
            int k = kb_constness(c, f.num[i]);
            if (k < 2) {
                kf.num[kf.nnum++] = f.num[i];
                per_head |= k == 1;
            } else if (!term)
                term = f.num[i];
            else
                ok = false;
        }
        for (int i = 0; i < f.nden && ok; i++) {
            int k = kb_constness(c, f.den[i]);
            ok = k < 2;
            kf.den[kf.nden++] = f.den[i];
            per_head |= k == 1;
        }
        long step = 0;
        if (!ok || !term || !key_linear(c, term, &step) || step == 0)
            continue;
        fg_expr *kq = hoist_qk_scale(c, e->args[side], qc, is_div);
        fg_expr *ks = kq ? hoist(c, &kf, !c->base2, per_head) : NULL;
        if (!ks)
            return false;
        if (side == 0 && e->kind == E_SUB) {
            ks = expr_unary(c->a, E_NEG, ks);
            ks->type = T_FLOAT;
        }
        at->keylin = true;
        at->keylin_qk = kq;
        at->keylin_qk_expr = qc != e->args[side] ? qc : NULL;
        at->keylin_qk_div = is_div;
        at->keylin_slope = ks;
        at->keylin_int = term;
        at->keylin_step = (int)step;
        return true;
    }
    return false;
}

/* A bound on |e| for the score's varying part in the kernels' form: tanh
 * and sigmoid are within 1 whatever their argument, a product of bounded
 * factors within the product of the bounds, a literal its magnitude; 0
 * when no bound is known (qk itself, a hoisted constant, any other form). */
static double inner_bound(const fg_expr *e)
{
    switch (e->kind) {
    case E_CALL:
        return e->nargs == 1 && (e->fn == F_TANH || e->fn == F_SIGMOID) ? 1.0 : 0.0;
    case E_NUM:
        return fabs(e->num);
    case E_NEG:
        return inner_bound(e->args[0]);
    case E_MUL: {
        double a = inner_bound(e->args[0]), b = inner_bound(e->args[1]);
        return a > 0 && b > 0 ? a * b : 0.0;
    }
    default:
        return 0.0;
    }
}

void kb_bind_score(kb *c, fg_kattn *at)
{
    if (!c->softmax) { /* the score as it is: its weight is no exp of a difference */
        at->score_l2 = score_l2(c, c->score, false);
        return;
    }
    factors cf = {.ok = true};
    const fg_expr *kexpr = NULL;
    fg_expr *inner = fold_inner(c, c->score, &cf, &kexpr);
    fg_expr *kc = inner ? hoist(c, &cf, !c->base2, false) : NULL;
    if (kc) {
        at->fold = true;
        at->fold_const = kc->ref;
        at->fold_inner = inner;
        at->fold_expr = kexpr;
        at->fold_bound = inner_bound(inner);
        at->score_l2 = fbin(c->a, E_MUL, expr_clone(c->a, inner), kc);
        return;
    }
    at->score_l2 = score_l2(c, c->score, !c->base2);
    if (bind_keylin(c, at))
        return;
    bool is_div = false;
    const fg_expr *fold;
    /* qk * c + G or qk * c - G, G free of qk: affine per tile where G is */
    const fg_expr *e = c->score;
    for (int side = 0; side < 2 && (e->kind == E_ADD || e->kind == E_SUB); side++) {
        if (side == 1 && e->kind == E_SUB)
            break;
        const fg_expr *g = e->args[1 - side];
        fold = scaled_qk(c, e->args[side], &is_div);
        bool reads = false;
        if (!fold || expr_reads(g, c->ssum) || !rowkey_in_reads_only(c, g, &reads) || !reads)
            continue;
        fg_expr *kc = hoist_qk_scale(c, e->args[side], fold, is_div);
        if (!kc)
            continue;
        at->tile_fold = true;
        at->tile_fold_const = kc->ref;
        const fg_expr *bias = g;
        if (e->kind == E_SUB) {
            fg_expr *neg = expr_unary(c->a, E_NEG, expr_clone(c->a, g));
            neg->type = g->type;
            bias = neg;
        }
        at->score_bias_l2 = score_l2(c, bias, !c->base2);
        at->tile_diag = diagonal_only(c, g, 0);
        break;
    }
}
