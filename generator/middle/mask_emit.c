/* mask_emit.c - the backends' code for a mask's tree (masks.c builds it):
 * the tile classes as C statements (closed forms, and with span atoms
 * decided from their sides' ranges), the elements of tiles whose span atoms
 * are known, the visible key ranges per row block and per row, and the
 * descriptions --dump=kernel prints. */
#include "generator.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Code for the backends                                               */
/* ------------------------------------------------------------------ */

typedef struct describe_ctx {
    fg_arena *a;
    const fg_plan *p;
} describe_ctx;

static char *print_plan_syntax(void *ctx, const fg_expr *e)
{
    describe_ctx *dc = ctx;
    return expr_to_string(dc->a, dc->p, e);
}

typedef struct emitter {
    fg_arena *a;
    char *s;
    size_t len, cap;
    fg_mask_print_fn print;
    void *ctx;
    int ntemps;
    bool plan_syntax; /* --dump=fused: no casts, plan operators */
    bool spans;       /* span atoms from rlo, rhi, clo, chi (else "maybe") */
} emitter;

static void emit_put(emitter *em, const char *s)
{
    size_t n = strlen(s);
    if (em->len + n + 1 > em->cap) {
        size_t cap = em->cap ? em->cap * 2 : 256;
        while (cap < em->len + n + 1)
            cap *= 2;
        char *p = arena_alloc(em->a, cap);
        if (em->len)
            memcpy(p, em->s, em->len);
        em->s = p;
        em->cap = cap;
    }
    memcpy(em->s + em->len, s, n + 1);
    em->len += n;
}

static void emit_fmt(emitter *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit_fmt(emitter *em, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    emit_put(em, buf);
}

/* "coef*var" appended to a sum being written; first says whether the sum
 * is still empty. */
static void emit_scaled(emitter *em, long coef, const char *var, bool *first)
{
    if (coef == 0)
        return;
    long mag = coef < 0 ? -coef : coef;
    if (*first)
        emit_put(em, coef < 0 ? "-" : "");
    else
        emit_put(em, coef < 0 ? " - " : " + ");
    if (mag != 1)
        emit_fmt(em, "%ld * ", mag);
    emit_put(em, var);
    *first = false;
}

static void emit_constant(emitter *em, const fg_expr *c, long extra, bool *first)
{
    bool zero = c->kind == E_NUM && c->num == 0;
    if (!zero && em->plan_syntax) {
        const char *text = em->print(em->ctx, c);
        if (*first)
            emit_put(em, text);
        else if (text[0] == '-')
            emit_fmt(em, " - %s", text + 1);
        else
            emit_fmt(em, " + %s", text);
        *first = false;
    } else if (!zero) {
        if (!*first)
            emit_put(em, " + ");
        emit_fmt(em, "(long)(%s)", em->print(em->ctx, c));
        *first = false;
    }
    if (extra)
        emit_scaled(em, extra, "1", first);
    if (*first)
        emit_put(em, "0");
}

static void emit_linear(emitter *em, const fg_mask_atom *at, const char *rv, const char *cv)
{
    bool first = true;
    emit_scaled(em, at->a_row, rv, &first);
    emit_scaled(em, at->a_col, cv, &first);
    emit_constant(em, at->c, 0, &first);
}

/* Span k (row side a in [rlo[k], rhi[k]], col side b in [clo[k], chi[k]])
 * as t<t>: 2 when a OP b at every pair, 0 at none, else 1. */
static void emit_span_state(emitter *em, const fg_mask_span *sp, int t)
{
    static const char *const op[] = {
        [E_LT] = "<", [E_LE] = "<=", [E_GT] = ">", [E_GE] = ">=", [E_EQ] = "==", [E_NE] = "!=",
    };
    int k = sp->id;
    emit_fmt(em, "    /* span %d: rows' %s %s keys' %s */\n", k, em->print(em->ctx, sp->row),
             op[sp->cmp], em->print(em->ctx, sp->col));
    const char *always, *never;
    switch (sp->cmp) {
    case E_LT: /* a < b */
        always = "rhi[%d] < clo[%d]";
        never = "rlo[%d] >= chi[%d]";
        break;
    case E_LE:
        always = "rhi[%d] <= clo[%d]";
        never = "rlo[%d] > chi[%d]";
        break;
    case E_GT: /* a > b */
        always = "rlo[%d] > chi[%d]";
        never = "rhi[%d] <= clo[%d]";
        break;
    case E_GE:
        always = "rlo[%d] >= chi[%d]";
        never = "rhi[%d] < clo[%d]";
        break;
    default: /* E_EQ, E_NE: disjoint ranges, or one and the same value */
        emit_fmt(em,
                 "    int t%d = rhi[%d] < clo[%d] || chi[%d] < rlo[%d] ? 0\n"
                 "            : rlo[%d] == rhi[%d] && clo[%d] == chi[%d] && rlo[%d] == clo[%d] ? 2 : 1;\n",
                 t, k, k, k, k, k, k, k, k, k, k);
        if (sp->cmp == E_NE)
            emit_fmt(em, "    t%d = 2 - t%d;\n", t, t);
        return;
    }
    emit_fmt(em, "    int t%d = ", t);
    emit_fmt(em, always, k, k);
    emit_put(em, " ? 2 : ");
    emit_fmt(em, never, k, k);
    emit_put(em, " ? 0 : 1;\n");
}

static int emit_state_node(emitter *em, const fg_mask_node *n)
{
    int t, x, y;
    switch (n->op) {
    case MASK_ATOM: {
        const fg_mask_atom *at = &n->atom;
        t = em->ntemps++;
        emit_fmt(em, "    long v%d_lo = ", t);
        emit_linear(em, at, at->a_row > 0 ? "r0" : "(r1 - 1)", at->a_col > 0 ? "c0" : "(c1 - 1)");
        emit_fmt(em, ";\n    long v%d_hi = ", t);
        emit_linear(em, at, at->a_row > 0 ? "(r1 - 1)" : "r0", at->a_col > 0 ? "(c1 - 1)" : "c0");
        const char *cmp = at->strict ? "<" : "<=";
        emit_fmt(em, ";\n    int t%d = v%d_hi %s 0 ? 2 : v%d_lo %s 0 ? 1 : 0;\n", t, t, cmp, t,
                 cmp);
        return t;
    }
    case MASK_AND:
    case MASK_OR:
        x = emit_state_node(em, n->lhs);
        y = emit_state_node(em, n->rhs);
        t = em->ntemps++;
        emit_fmt(em, "    int t%d = t%d %s t%d ? t%d : t%d; /* %s */\n", t, x,
                 n->op == MASK_AND ? "<" : ">", y, x, y, n->op == MASK_AND ? "and" : "or");
        return t;
    case MASK_NOT:
        x = emit_state_node(em, n->lhs);
        t = em->ntemps++;
        emit_fmt(em, "    int t%d = 2 - t%d;\n", t, x);
        return t;
    case MASK_TRUE:
        t = em->ntemps++;
        emit_fmt(em, "    int t%d = 2;\n", t);
        return t;
    case MASK_SPAN:
        if (em->spans) {
            t = em->ntemps++;
            emit_span_state(em, &n->span, t);
            return t;
        }
        /* without the ranges, maybe */
        __attribute__((fallthrough));
    default:
        t = em->ntemps++;
        emit_fmt(em, "    int t%d = 1; /* not linear in the tile indices */\n", t);
        return t;
    }
}

static char *emit_tile_state(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx,
                             bool spans)
{
    emitter em = {.a = a, .print = print, .ctx = ctx, .spans = spans};
    emit_put(&em, "    /* 0: no element visible (skip), 1: some (mask), 2: all (no mask) */\n");
    emit_put(&em, "    if (r1 <= r0 || c1 <= c0)\n        return 0;\n");
    if (!m->present || !m->root) {
        emit_put(&em, "    return 2;\n");
        return em.s;
    }
    int t = emit_state_node(&em, m->root);
    emit_fmt(&em, "    return t%d;\n", t);
    return em.s;
}

/* Whether the tree has no opaque leaf: every leaf is TRUE, a linear atom or
 * a span atom (build_node pushes negations into the comparisons, so a NOT
 * only ever sits over an opaque leaf).  On a tile where each span atom's
 * state is known (all pairs or none), an element of the tile (a real row
 * and key: the ranges cover those) is then decided exactly by the spans'
 * states and its linear atoms. */
static bool node_decided(const fg_mask_node *n)
{
    switch (n->op) {
    case MASK_TRUE:
    case MASK_ATOM:
    case MASK_SPAN:
        return true;
    case MASK_AND:
    case MASK_OR:
        return node_decided(n->lhs) && node_decided(n->rhs);
    case MASK_NOT:
        return node_decided(n->lhs);
    default: /* MASK_OPAQUE */
        return false;
    }
}

bool mask_decided_by_spans(const fg_mask *m)
{
    return m->present && m->root && m->nspans > 0 && node_decided(m->root);
}

char *mask_emit_spans_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    emitter em = {.a = a, .print = print, .ctx = ctx, .spans = true};
    emit_put(&em, "    /* each span atom holds at all pairs of the tile or at none; bit k of\n"
                  "       *truth: span k holds */\n");
    emit_put(&em, "    bool known = true;\n    unsigned bits = 0;\n");
    for (int k = 0; k < m->nspans; k++) {
        int t = em.ntemps++;
        emit_span_state(&em, m->spans[k], t);
        emit_fmt(&em, "    known = known && t%d != 1;\n", t);
        emit_fmt(&em, "    bits |= t%d == 2 ? %uu : 0u;\n", t, 1u << k);
    }
    emit_put(&em, "    *truth = bits;\n    return known;\n");
    return em.s;
}

/* The element (i, j) of a tree that mask_decided_by_spans accepts, with
 * span k's value bit k of `truth`. */
static void emit_elem_node(emitter *em, const fg_mask_node *n)
{
    switch (n->op) {
    case MASK_TRUE:
        emit_put(em, "true");
        return;
    case MASK_ATOM:
        emit_put(em, "(");
        emit_linear(em, &n->atom, "(long)i", "(long)j");
        emit_put(em, n->atom.strict ? " < 0)" : " <= 0)");
        return;
    case MASK_AND:
    case MASK_OR:
        emit_put(em, "(");
        emit_elem_node(em, n->lhs);
        emit_put(em, n->op == MASK_AND ? " && " : " || ");
        emit_elem_node(em, n->rhs);
        emit_put(em, ")");
        return;
    case MASK_NOT:
        emit_put(em, "!");
        emit_elem_node(em, n->lhs);
        return;
    case MASK_SPAN:
        emit_fmt(em, "((truth & %uu) != 0)", 1u << n->span.id);
        return;
    default: /* MASK_OPAQUE: mask_decided_by_spans refuses it */
        emit_put(em, "false");
        return;
    }
}

char *mask_emit_visible_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    emitter em = {.a = a, .print = print, .ctx = ctx, .spans = true};
    if (!mask_decided_by_spans(m))
        return "";
    emit_put(&em, "  return ");
    emit_elem_node(&em, m->root);
    emit_put(&em, ";\n");
    return em.s;
}

char *mask_emit_tile_state(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    return emit_tile_state(a, m, print, ctx, false);
}

char *mask_emit_tile_state_spans(fg_arena *a, const fg_mask *m, fg_mask_print_fn print,
                                 void *ctx)
{
    return emit_tile_state(a, m, print, ctx, true);
}

static int emit_range_node(emitter *em, const fg_mask_node *n)
{
    int t = -1, x, y;
    switch (n->op) {
    case MASK_ATOM: {
        const fg_mask_atom *at = &n->atom;
        t = em->ntemps++;
        emit_fmt(em, "        long x%d = ", t);
        bool first = true;
        emit_scaled(em, at->a_row, "row", &first);
        emit_constant(em, at->c, at->strict ? 1 : 0, &first);
        emit_put(em, ";\n");
        long b = at->a_col < 0 ? -(long)at->a_col : at->a_col;
        if (at->a_col > 0 && b == 1)
            emit_fmt(em, "        long lo%d = 0, hi%d = 1 - x%d;\n", t, t, t);
        else if (at->a_col > 0)
            emit_fmt(em,
                     "        long lo%d = 0, hi%d = (x%d <= 0 ? -x%d / %ld : -((x%d + %ld) / %ld)) "
                     "+ 1;\n",
                     t, t, t, t, b, t, b - 1, b);
        else if (at->a_col < 0 && b == 1)
            emit_fmt(em, "        long lo%d = x%d, hi%d = n_keys;\n", t, t, t);
        else if (at->a_col < 0)
            emit_fmt(em,
                     "        long lo%d = x%d >= 0 ? (x%d + %ld) / %ld : -(-x%d / %ld), hi%d = "
                     "n_keys;\n",
                     t, t, t, b - 1, b, t, b, t);
        else
            emit_fmt(em, "        long lo%d = 0, hi%d = x%d <= 0 ? n_keys : 0;\n", t, t, t);
        emit_fmt(em, "        if (lo%d < 0)\n            lo%d = 0;\n", t, t);
        emit_fmt(em, "        if (hi%d > n_keys)\n            hi%d = n_keys;\n", t, t);
        return t;
    }
    case MASK_AND:
        x = emit_range_node(em, n->lhs);
        y = emit_range_node(em, n->rhs);
        t = em->ntemps++;
        emit_fmt(em, "        long lo%d = lo%d > lo%d ? lo%d : lo%d; /* and */\n", t, x, y, x, y);
        emit_fmt(em, "        long hi%d = hi%d < hi%d ? hi%d : hi%d;\n", t, x, y, x, y);
        return t;
    case MASK_OR:
        x = emit_range_node(em, n->lhs);
        y = emit_range_node(em, n->rhs);
        t = em->ntemps++;
        emit_fmt(em, "        long lo%d = lo%d, hi%d = hi%d; /* or: the hull of the nonempty */\n",
                 t, x, t, x);
        emit_fmt(em, "        if (lo%d >= hi%d) {\n            lo%d = lo%d;\n            hi%d = hi%d;\n",
                 t, t, t, y, t, y);
        emit_fmt(em, "        } else if (lo%d < hi%d) {\n", y, y);
        emit_fmt(em, "            lo%d = lo%d < lo%d ? lo%d : lo%d;\n", t, x, y, x, y);
        emit_fmt(em, "            hi%d = hi%d > hi%d ? hi%d : hi%d;\n        }\n", t, x, y, x, y);
        return t;
    default:
        t = em->ntemps++;
        if (n->op == MASK_SPAN && em->spans) { /* its truth given: every key or none */
            emit_fmt(em, "        long lo%d = 0, hi%d = (truth & %uu) != 0 ? n_keys : 0; /* span %d */\n", t,
                     t, 1u << n->span.id, n->span.id);
            return t;
        }
        emit_fmt(em, "        long lo%d = 0, hi%d = n_keys;%s\n", t, t,
                 n->op == MASK_TRUE ? "" : " /* not linear in the tile indices */");
        return t;
    }
}

char *mask_emit_key_range(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    return mask_emit_key_range_strided(a, m, print, ctx, "r0", 1, NULL);
}

char *mask_emit_key_range_strided(fg_arena *a, const fg_mask *m, fg_mask_print_fn print,
                                  void *ctx, const char *first, int step, bool *walks)
{
    emitter em = {.a = a, .print = print, .ctx = ctx};
    if (walks)
        *walks = false;
    emit_put(&em, "    /* [c_lo, c_hi): the keys that rows [r0, r1) can see (empty: 0, 0) */\n");
    if (!m->present || !m->root || !m->col_extent) {
        emit_put(&em, "    c_lo = 0;\n");
        emit_fmt(&em, "    c_hi = r1 > r0 ? (long)(%s) : 0;\n",
                 m->col_extent ? print(ctx, m->col_extent) : "0");
        return em.s;
    }
    emit_fmt(&em, "    const long n_keys = (long)(%s);\n", print(ctx, m->col_extent));
    emit_put(&em, "    c_lo = 0;\n    c_hi = 0;\n");
    if (step == 1)
        emit_fmt(&em, "    for (long row = %s; row < r1; ++row) {\n", first);
    else
        emit_fmt(&em, "    for (long row = %s; row < r1; row += %d) {\n", first, step);
    if (walks)
        *walks = true;
    int t = emit_range_node(&em, m->root);
    emit_fmt(&em, "        if (lo%d >= hi%d)\n            continue;\n", t, t);
    emit_fmt(&em, "        if (c_lo >= c_hi) {\n            c_lo = lo%d;\n            c_hi = hi%d;\n", t,
             t);
    emit_fmt(&em, "        } else {\n            c_lo = c_lo < lo%d ? c_lo : lo%d;\n", t, t);
    emit_fmt(&em, "            c_hi = c_hi > hi%d ? c_hi : hi%d;\n        }\n", t, t);
    emit_put(&em, "    }\n");
    return em.s;
}

char *mask_emit_row_keys(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    emitter em = {.a = a, .print = print, .ctx = ctx};
    emit_put(&em, "    /* [k_lo, k_hi): the keys row `row` can see (k_lo >= k_hi: none) */\n");
    emit_fmt(&em, "    const long n_keys = (long)(%s);\n", print(ctx, m->col_extent));
    int t = emit_range_node(&em, m->root);
    emit_fmt(&em, "    k_lo = lo%d;\n    k_hi = hi%d;\n", t, t);
    return em.s;
}

char *mask_emit_row_keys_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx)
{
    emitter em = {.a = a, .print = print, .ctx = ctx, .spans = true};
    if (!mask_rows_exact_known(m))
        return "";
    emit_put(&em, "    /* [k_lo, k_hi): the keys row `row` sees on a tile whose span atoms are\n"
                  "       known (bit k of truth: span k holds); k_lo >= k_hi: none */\n");
    emit_fmt(&em, "    const long n_keys = (long)(%s);\n", print(ctx, m->col_extent));
    int t = emit_range_node(&em, m->root);
    emit_fmt(&em, "    k_lo = lo%d;\n    k_hi = hi%d;\n", t, t);
    return em.s;
}

/* One bound of plan_span_keys_sorted: 0 (the first key), 1 (the first key
 * whose side is >= v), 2 (the first > v), 3 (the key count). */
static void emit_sorted_bound(emitter *em, const char *name, int kind, int k)
{
    if (kind == 0)
        emit_fmt(em, "    *%s = 0;\n", name);
    else if (kind == 3)
        emit_fmt(em, "    *%s = p.N;\n", name);
    else
        emit_fmt(em, "    *%s = plan_span_search<%s>(%d, v, h, p);\n", name, kind == 2 ? "true" : "false",
                 k);
}

char *mask_emit_span_keys_sorted(fg_arena *a, const fg_mask *m)
{
    emitter em = {.a = a};
    if (!mask_rows_sorted(m))
        return "";
    emit_put(&em, "  /* the keys where span k holds for a row of side v, each key side\n"
                  "     nondecreasing: plan_span_search<false> finds the first key >= v,\n"
                  "     <true> the first > v */\n");
    for (int k = 0; k < m->nspans; k++) {
        int lo = 0, hi = 3;
        const char *op;
        switch (m->spans[k]->cmp) {
        case E_EQ:
            lo = 1, hi = 2, op = "==";
            break;
        case E_LT: /* row < key: the keys past v */
            lo = 2, op = "<";
            break;
        case E_LE:
            lo = 1, op = "<=";
            break;
        case E_GT: /* row > key: the keys below v */
            hi = 1, op = ">";
            break;
        default: /* E_GE (mask_rows_sorted refuses !=) */
            hi = 2, op = ">=";
            break;
        }
        emit_fmt(&em, "  if (k == %d) { /* row %s key */\n", k, op);
        emit_sorted_bound(&em, "lo", lo, k);
        emit_sorted_bound(&em, "hi", hi, k);
        emit_put(&em, "    return;\n  }\n");
    }
    return em.s;
}

/* A linear atom in plan syntax, for --dump=fused: "-m + n + M - N <= 0". */
char *mask_atom_to_string(fg_arena *a, const fg_plan *p, const fg_mask *m,
                          const fg_mask_atom *at)
{
    const char *rn = m->row_axis >= 0 && m->row_axis < p->naxes ? p->axes[m->row_axis].name : "row";
    const char *cn = m->col_axis >= 0 && m->col_axis < p->naxes ? p->axes[m->col_axis].name : "col";
    describe_ctx dc = {a, p};
    emitter em = {.a = a, .print = print_plan_syntax, .ctx = &dc, .plan_syntax = true};
    emit_linear(&em, at, rn, cn);
    emit_fmt(&em, " %s 0", at->strict ? "<" : "<=");
    return em.s;
}

/* ------------------------------------------------------------------ */
/* Describing the tile classification (--dump=fused)                   */
/* ------------------------------------------------------------------ */

static const char ALWAYS[] = "always";

/* The condition, on r0, r1, c0, c1, under which the node is never true on
 * the box (want_full: always true); NULL when that cannot be told. */
static const char *describe_node(emitter *em, const fg_mask_node *n, bool want_full)
{
    const char *x, *y;
    switch (n->op) {
    case MASK_TRUE:
        return want_full ? ALWAYS : NULL;
    case MASK_ATOM: {
        const fg_mask_atom *at = &n->atom;
        emitter sub = {.a = em->a, .print = em->print, .ctx = em->ctx, .plan_syntax = true};
        bool hi = want_full;
        emit_linear(&sub, at, (at->a_row > 0) == hi ? "(r1 - 1)" : "r0",
                    (at->a_col > 0) == hi ? "(c1 - 1)" : "c0");
        if (want_full)
            emit_put(&sub, at->strict ? " < 0" : " <= 0");
        else
            emit_put(&sub, at->strict ? " >= 0" : " > 0");
        return sub.s;
    }
    case MASK_AND:
    case MASK_OR: {
        x = describe_node(em, n->lhs, want_full);
        y = describe_node(em, n->rhs, want_full);
        /* skip of AND and full of OR need one side; the others need both */
        bool any = (n->op == MASK_AND) != want_full;
        if (any) {
            if (!x || !y)
                return x ? x : y;
            if (x == ALWAYS || y == ALWAYS)
                return ALWAYS;
            return arena_printf(em->a, "(%s) || (%s)", x, y);
        }
        if (!x || !y)
            return NULL;
        if (x == ALWAYS)
            return y;
        if (y == ALWAYS)
            return x;
        return arena_printf(em->a, "(%s) && (%s)", x, y);
    }
    default: /* OPAQUE, NOT(OPAQUE) */
        return NULL;
    }
}

char *mask_describe_tiles(fg_arena *a, const fg_plan *p, const fg_mask *m)
{
    describe_ctx dc = {a, p};
    emitter em = {.a = a, .print = print_plan_syntax, .ctx = &dc, .plan_syntax = true};
    if (!m->present || !m->root)
        return arena_strdup(a, "every tile is full");
    const char *skip = describe_node(&em, m->root, false);
    const char *full = describe_node(&em, m->root, true);
    return arena_printf(a, "tile rows [r0, r1) x keys [c0, c1): skip when %s; no mask code when %s",
                        skip ? skip : "never", full ? full : "never");
}
