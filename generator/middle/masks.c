/* masks.c - tile classification from where(cond, x, -inf); mask_emit.c
 * prints what it finds as the backends' code.
 *
 * The condition of a masking where is turned into a tree of linear atoms
 *     a_row*row + a_col*col + c  (< or <=)  0
 * over the tiled row axis (m) and the fused axis (n), c an int expression of
 * dims and params.  Negations are pushed down to the atoms (an atom negates
 * exactly), so the tree holds only AND, OR, atoms, TRUE and OPAQUE leaves
 * (anything not linear in row and col).  On a tile box an atom is always
 * true, never true or maybe, decided at the box's corners; AND and OR combine
 * the three values as min and max of 0 (never), 1 (maybe), 2 (always), which
 * are exactly TILE_SKIP, TILE_PARTIAL and TILE_FULL.  OPAQUE is maybe. */
#include "generator.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Linear forms                                                        */
/* ------------------------------------------------------------------ */

#define LIN_MAX_TERMS 16
#define LIN_MAX_COEF 1000000000L

typedef struct lin_term {
    long coef;
    const fg_expr *e; /* an int expression free of row and col */
} lin_term;

/* a_row*row + a_col*col + sum(coef*e) + k */
typedef struct lin_form {
    long a_row, a_col, k;
    int nterms;
    lin_term terms[LIN_MAX_TERMS];
} lin_form;

typedef struct mask_ctx {
    fg_arena *a;
    const fg_plan *p;
    int row, col;
    fg_mask *out; /* where span atoms are listed */
} mask_ctx;

static bool coef_ok(long v)
{
    return v > -LIN_MAX_COEF && v < LIN_MAX_COEF;
}

static bool lin_add_term(lin_form *f, long coef, const fg_expr *e)
{
    for (int i = 0; i < f->nterms; i++) {
        if (expr_equal(f->terms[i].e, e)) {
            f->terms[i].coef += coef;
            return coef_ok(f->terms[i].coef);
        }
    }
    if (f->nterms == LIN_MAX_TERMS)
        return false;
    f->terms[f->nterms].coef = coef;
    f->terms[f->nterms].e = e;
    f->nterms++;
    return true;
}

/* f += s * g */
static bool lin_axpy(lin_form *f, long s, const lin_form *g)
{
    f->a_row += s * g->a_row;
    f->a_col += s * g->a_col;
    f->k += s * g->k;
    if (!coef_ok(f->a_row) || !coef_ok(f->a_col) || !coef_ok(f->k))
        return false;
    for (int i = 0; i < g->nterms; i++)
        if (!lin_add_term(f, s * g->terms[i].coef, g->terms[i].e))
            return false;
    return true;
}

static bool lin_is_number(const lin_form *f)
{
    if (f->a_row || f->a_col)
        return false;
    for (int i = 0; i < f->nterms; i++)
        if (f->terms[i].coef)
            return false;
    return true;
}

static bool is_integral(double v)
{
    return isfinite(v) && v == floor(v) && fabs(v) < (double)LIN_MAX_COEF;
}

/* An int expression of dims, int params and integer literals only: it can
 * stand as one term of c. */
static bool is_int_constant(const mask_ctx *m, const fg_expr *e)
{
    switch (e->kind) {
    case E_NUM:
        return is_integral(e->num);
    case E_DIM:
        return true;
    case E_PARAM:
        return e->nargs == 0 && e->ref >= 0 && e->ref < m->p->nparams &&
               m->p->params[e->ref].dtype == DT_INT;
    case E_NEG:
    case E_ADD:
    case E_SUB:
    case E_MUL:
    case E_DIV:
        for (int i = 0; i < e->nargs; i++)
            if (!is_int_constant(m, e->args[i]))
                return false;
        return true;
    case E_CALL:
        if (e->fn != F_MIN && e->fn != F_MAX && e->fn != F_ABS)
            return false;
        for (int i = 0; i < e->nargs; i++)
            if (!is_int_constant(m, e->args[i]))
                return false;
        return true;
    default:
        return false;
    }
}

/* The linear form of e in row and col, or false when e is not linear. */
static bool lin_of(const mask_ctx *m, const fg_expr *e, lin_form *out)
{
    memset(out, 0, sizeof *out);
    lin_form x, y;
    switch (e->kind) {
    case E_NUM:
        if (!is_integral(e->num))
            return false;
        out->k = (long)e->num;
        return true;
    case E_AXIS:
        if (e->ref == m->row && m->row >= 0)
            out->a_row = 1;
        else if (e->ref == m->col)
            out->a_col = 1;
        else
            return false;
        return true;
    case E_NEG:
        return lin_of(m, e->args[0], &x) && lin_axpy(out, -1, &x);
    case E_ADD:
    case E_SUB:
        return lin_of(m, e->args[0], &x) && lin_of(m, e->args[1], &y) &&
               lin_axpy(out, 1, &x) && lin_axpy(out, e->kind == E_ADD ? 1 : -1, &y);
    case E_MUL:
        if (!lin_of(m, e->args[0], &x) || !lin_of(m, e->args[1], &y)) {
            break;
        }
        if (lin_is_number(&x))
            return lin_axpy(out, x.k, &y);
        if (lin_is_number(&y))
            return lin_axpy(out, y.k, &x);
        break;
    default:
        break;
    }
    /* Products of dims, divisions, min/max: one term, if free of row/col. */
    if (is_int_constant(m, e))
        return lin_add_term(out, 1, e);
    return false;
}

/* ------------------------------------------------------------------ */
/* Building the tree                                                   */
/* ------------------------------------------------------------------ */

static fg_expr *int_num(fg_arena *a, long v)
{
    fg_expr *e = expr_num(a, (double)v);
    e->is_int = true;
    e->type = T_INT;
    return e;
}

static fg_expr *int_binary(fg_arena *a, fg_expr_kind k, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_binary(a, k, x, y);
    e->type = T_INT;
    return e;
}

static fg_expr *scaled_term(fg_arena *a, long coef, const fg_expr *e)
{
    fg_expr *t = expr_clone(a, e);
    if (coef == 1)
        return t;
    return int_binary(a, E_MUL, int_num(a, coef), t);
}

/* c = sign * (terms + k), as an expression: positive terms first. */
static fg_expr *lin_constant(fg_arena *a, const lin_form *f, long sign)
{
    fg_expr *c = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < f->nterms; i++) {
            long coef = sign * f->terms[i].coef;
            if (coef == 0 || (pass == 0) != (coef > 0))
                continue;
            long mag = coef > 0 ? coef : -coef;
            fg_expr *t = scaled_term(a, mag, f->terms[i].e);
            if (!c)
                c = coef > 0 ? t : expr_unary(a, E_NEG, t);
            else
                c = int_binary(a, coef > 0 ? E_ADD : E_SUB, c, t);
            c->type = T_INT;
        }
    }
    long k = sign * f->k;
    if (!c)
        return int_num(a, k);
    if (k > 0)
        c = int_binary(a, E_ADD, c, int_num(a, k));
    else if (k < 0)
        c = int_binary(a, E_SUB, c, int_num(a, -k));
    return c;
}

static fg_mask_node *node_new(fg_arena *a, fg_mask_op op, const fg_expr *src)
{
    fg_mask_node *n = ARENA_NEW(a, fg_mask_node);
    n->op = op;
    n->expr = src;
    return n;
}

/* sign*(f) (<|<=) 0 */
static fg_mask_node *atom_node(const mask_ctx *m, const lin_form *f, long sign, bool strict,
                               const fg_expr *src)
{
    fg_mask_node *n = node_new(m->a, MASK_ATOM, src);
    n->atom.a_row = (int)(sign * f->a_row);
    n->atom.a_col = (int)(sign * f->a_col);
    n->atom.c = lin_constant(m->a, f, sign);
    n->atom.strict = strict;
    return n;
}

static fg_mask_node *pair_node(const mask_ctx *m, fg_mask_op op, fg_mask_node *l,
                               fg_mask_node *r, const fg_expr *src)
{
    fg_mask_node *n = node_new(m->a, op, src);
    n->lhs = l;
    n->rhs = r;
    return n;
}

static fg_mask_node *opaque_node(const mask_ctx *m, const fg_expr *e, bool negate)
{
    fg_mask_node *n = node_new(m->a, MASK_OPAQUE, e);
    if (!negate)
        return n;
    fg_mask_node *neg = node_new(m->a, MASK_NOT, e);
    neg->lhs = n;
    return neg;
}

static uint32_t expr_axis_bits(const fg_plan *p, const fg_expr *e);

/* An int expression a kernel can evaluate at one row or key: arithmetic of
 * axes, dims, params and reads of inputs, nothing computed by the plan. */
static bool span_side_ok(const mask_ctx *m, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH || e->type != T_INT)
        return false;
    switch (e->kind) {
    case E_NUM:
    case E_DIM:
    case E_AXIS:
        return true;
    case E_PARAM:
        if (e->nargs != 0)
            return false;
        break;
    case E_TENSOR:
        if (e->ref < 0 || e->ref >= m->p->ntensors ||
            m->p->tensors[e->ref].kind != TENSOR_INPUT)
            return false;
        break;
    case E_NEG:
    case E_ADD:
    case E_SUB:
    case E_MUL:
    case E_DIV:
        break;
    case E_CALL:
        if (e->fn != F_MIN && e->fn != F_MAX && e->fn != F_ABS)
            return false;
        break;
    default:
        return false;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!span_side_ok(m, e->args[i], depth + 1))
            return false;
    return true;
}

/* lhs k rhs as a span atom (row side k' col side), or NULL: both sides int
 * expressions, one free of col and the other free of row. */
static fg_mask_node *span_node(const mask_ctx *m, fg_expr_kind k, const fg_expr *lhs,
                               const fg_expr *rhs, const fg_expr *src)
{
    static const fg_expr_kind mirror[] = {
        [E_LT] = E_GT, [E_LE] = E_GE, [E_GT] = E_LT,
        [E_GE] = E_LE, [E_EQ] = E_EQ, [E_NE] = E_NE,
    };
    fg_mask *out = m->out;
    if (!out || out->nspans == FG_MAX_SPANS || m->row < 0 || !span_side_ok(m, lhs, 0) ||
        !span_side_ok(m, rhs, 0))
        return NULL;
    uint32_t row = 1u << m->row, col = 1u << m->col;
    uint32_t lb = expr_axis_bits(m->p, lhs), rb = expr_axis_bits(m->p, rhs);
    if ((lb & col) && !(lb & row) && !(rb & col)) {
        const fg_expr *t = lhs;
        lhs = rhs;
        rhs = t;
        k = mirror[k];
    } else if ((lb & col) || (rb & row)) {
        return NULL;
    }
    fg_mask_node *n = node_new(m->a, MASK_SPAN, src);
    n->span.cmp = k;
    n->span.row = lhs;
    n->span.col = rhs;
    n->span.id = out->nspans;
    out->spans[out->nspans++] = &n->span;
    return n;
}

/* The tree of cond (of !cond when negate), negations pushed to the atoms. */
static fg_mask_node *build_node(const mask_ctx *m, const fg_expr *e, bool negate, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return opaque_node(m, e, negate);
    switch (e->kind) {
    case E_AND:
    case E_OR: {
        fg_mask_node *l = build_node(m, e->args[0], negate, depth + 1);
        fg_mask_node *r = build_node(m, e->args[1], negate, depth + 1);
        bool is_and = (e->kind == E_AND) != negate;
        return pair_node(m, is_and ? MASK_AND : MASK_OR, l, r, e);
    }
    case E_NOT:
        return build_node(m, e->args[0], !negate, depth + 1);
    case E_LT:
    case E_LE:
    case E_GT:
    case E_GE:
    case E_EQ:
    case E_NE: {
        lin_form l, r, diff; /* diff = lhs - rhs */
        memset(&diff, 0, sizeof diff);
        static const fg_expr_kind opposite[] = {
            [E_LT] = E_GE, [E_LE] = E_GT, [E_GT] = E_LE,
            [E_GE] = E_LT, [E_EQ] = E_NE, [E_NE] = E_EQ,
        };
        fg_expr_kind k = negate ? opposite[e->kind] : e->kind;
        if (!lin_of(m, e->args[0], &l) || !lin_of(m, e->args[1], &r) ||
            !lin_axpy(&diff, 1, &l) || !lin_axpy(&diff, -1, &r)) {
            fg_mask_node *sp = span_node(m, k, e->args[0], e->args[1], e);
            return sp ? sp : opaque_node(m, e, negate);
        }
        switch (k) {
        case E_LT: return atom_node(m, &diff, 1, true, e);
        case E_LE: return atom_node(m, &diff, 1, false, e);
        case E_GT: return atom_node(m, &diff, -1, true, e);
        case E_GE: return atom_node(m, &diff, -1, false, e);
        case E_EQ:
            return pair_node(m, MASK_AND, atom_node(m, &diff, 1, false, e),
                             atom_node(m, &diff, -1, false, e), e);
        default: /* E_NE */
            return pair_node(m, MASK_OR, atom_node(m, &diff, 1, true, e),
                             atom_node(m, &diff, -1, true, e), e);
        }
    }
    default:
        return opaque_node(m, e, negate);
    }
}

/* ------------------------------------------------------------------ */
/* Finding the masks                                                   */
/* ------------------------------------------------------------------ */

static bool is_neg_inf(const fg_expr *e)
{
    if (e->kind == E_NUM)
        return isinf(e->num) && e->num < 0;
    return e->kind == E_NEG && e->args[0]->kind == E_INF;
}

static uint32_t expr_axis_bits(const fg_plan *p, const fg_expr *e)
{
    uint32_t bits = 0;
    if (e->kind == E_AXIS && e->ref >= 0)
        bits |= 1u << e->ref;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < p->ntensors && e->nargs == 0)
        bits |= p->tensors[e->ref].axis_mask;
    for (int i = 0; i < e->nargs; i++)
        bits |= expr_axis_bits(p, e->args[i]);
    if (e->kind == E_REDUCE && e->ref >= 0)
        bits &= ~(1u << e->ref);
    return bits;
}

typedef struct where_found {
    int stmt;
    const fg_expr *where;
    const fg_expr *visible; /* the condition under which x is kept */
    fg_loc loc;
} where_found;

static void find_wheres(fg_arena *a, const fg_expr *e, int stmt, fg_vec *out, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return;
    if (e->kind == E_WHERE && e->nargs == 3) {
        const fg_expr *vis = NULL;
        if (is_neg_inf(e->args[2]))
            vis = e->args[0];
        else if (is_neg_inf(e->args[1]))
            vis = expr_unary(a, E_NOT, expr_clone(a, e->args[0]));
        if (vis) {
            where_found *w = ARENA_NEW(a, where_found);
            w->stmt = stmt;
            w->where = e;
            w->visible = vis;
            w->loc = e->loc;
            vec_push(a, out, w);
        }
    }
    for (int i = 0; i < e->nargs; i++)
        find_wheres(a, e->args[i], stmt, out, depth + 1);
}

int mask_analyse(fg_arena *a, const fg_plan *p, int row_axis, int col_axis, fg_mask *out,
                 fg_diag *d)
{
    (void)d; /* every condition has a tree: what is not linear is opaque */
    memset(out, 0, sizeof *out);
    out->stmt = -1;
    out->row_axis = row_axis;
    out->col_axis = col_axis;
    if (col_axis < 0 || col_axis >= p->naxes)
        return 0;
    int dim = p->axes[col_axis].dim;
    out->col_extent = expr_ref(a, E_DIM, dim, dim >= 0 && dim < p->ndims ? p->dims[dim].name
                                                                        : NULL);
    out->col_extent->type = T_INT;

    /* Masking wheres whose value varies along col: in per-tile statements,
     * and inside the bodies of reductions over col. */
    fg_vec all = {0}, found = {0};
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_STMT && t->rhs)
            find_wheres(a, t->rhs, i, &all, 0);
    }
    for (int i = 0; i < all.len; i++) {
        where_found *w = all.items[i];
        if (expr_axis_bits(p, w->where) & (1u << col_axis))
            vec_push(a, &found, w);
    }
    if (found.len == 0)
        return 0;

    mask_ctx m = {a, p, row_axis, col_axis, out};
    const fg_expr *cond = NULL;
    fg_mask_node *root = NULL;
    for (int i = 0; i < found.len; i++) {
        const where_found *w = found.items[i];
        fg_mask_node *n = build_node(&m, w->visible, false, 0);
        if (!root) {
            cond = w->visible;
            root = n;
            out->stmt = w->stmt;
            out->loc = w->loc;
        } else {
            cond = expr_binary(a, E_AND, expr_clone(a, cond), expr_clone(a, w->visible));
            root = pair_node(&m, MASK_AND, root, n, cond);
        }
    }
    out->present = true;
    out->cond = cond;
    out->root = root;
    out->nwheres = found.len;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Evaluation                                                          */
/* ------------------------------------------------------------------ */

/* Values an int expression of a mask may take: beyond, it is not
 * evaluated (*ok = false: the callers then answer "maybe", which is always
 * safe), so that neither the arithmetic here nor the atoms' a*row + b*col
 * + c that use the value can overflow. */
#define EVAL_MAX (1L << 53)

static long eval_bounded(long v, bool *ok)
{
    if (v > EVAL_MAX || v < -EVAL_MAX) {
        *ok = false;
        return 0;
    }
    return v;
}

static long eval_double(double v, bool *ok)
{
    if (!(v >= -(double)EVAL_MAX && v <= (double)EVAL_MAX)) {
        *ok = false;
        return 0;
    }
    return (long)llround(v);
}

static long eval_int(const fg_expr *e, const fg_eval_env *env, bool *ok)
{
    long x, y, r;
    switch (e->kind) {
    case E_NUM:
        return eval_double(e->num, ok);
    case E_DIM:
    case E_PARAM:
        return eval_double(env->leaf(env->ctx, e), ok);
    case E_NEG:
        return -eval_int(e->args[0], env, ok);
    case E_ADD:
        x = eval_int(e->args[0], env, ok);
        return eval_bounded(x + eval_int(e->args[1], env, ok), ok);
    case E_SUB:
        x = eval_int(e->args[0], env, ok);
        return eval_bounded(x - eval_int(e->args[1], env, ok), ok);
    case E_MUL:
        x = eval_int(e->args[0], env, ok);
        y = eval_int(e->args[1], env, ok);
        if (__builtin_mul_overflow(x, y, &r)) {
            *ok = false;
            return 0;
        }
        return eval_bounded(r, ok);
    case E_DIV:
        x = eval_int(e->args[0], env, ok);
        y = eval_int(e->args[1], env, ok);
        if (y == 0) {
            *ok = false;
            return 0;
        }
        return x / y;
    case E_CALL:
        x = eval_int(e->args[0], env, ok);
        if (e->fn == F_ABS)
            return x < 0 ? -x : x;
        y = eval_int(e->args[1], env, ok);
        return e->fn == F_MIN ? (x < y ? x : y) : (x > y ? x : y);
    default:
        *ok = false;
        return 0;
    }
}

/* 0 never, 1 maybe, 2 always: an atom on the box, decided at its corners. */
static int atom_state(const fg_mask_atom *at, long c, long r0, long r1, long c0, long c1)
{
    long rl = at->a_row > 0 ? r0 : r1 - 1, rh = at->a_row > 0 ? r1 - 1 : r0;
    long cl = at->a_col > 0 ? c0 : c1 - 1, ch = at->a_col > 0 ? c1 - 1 : c0;
    long lo = at->a_row * rl + at->a_col * cl + c;
    long hi = at->a_row * rh + at->a_col * ch + c;
    long t = at->strict ? 1 : 0; /* v < 0  <=>  v + 1 <= 0 on integers */
    if (hi + t <= 0)
        return 2;
    if (lo + t <= 0)
        return 1;
    return 0;
}

static int node_state(const fg_mask_node *n, long r0, long r1, long c0, long c1,
                      const fg_eval_env *env)
{
    int x, y;
    bool ok = true;
    long c;
    switch (n->op) {
    case MASK_TRUE:
        return 2;
    case MASK_ATOM:
        c = eval_int(n->atom.c, env, &ok);
        return ok ? atom_state(&n->atom, c, r0, r1, c0, c1) : 1;
    case MASK_AND:
    case MASK_OR:
        x = node_state(n->lhs, r0, r1, c0, c1, env);
        y = node_state(n->rhs, r0, r1, c0, c1, env);
        return n->op == MASK_AND ? (x < y ? x : y) : (x > y ? x : y);
    case MASK_NOT:
        return 2 - node_state(n->lhs, r0, r1, c0, c1, env);
    default: /* MASK_OPAQUE */
        return 1;
    }
}

fg_tile_state mask_classify(const fg_mask *m, long r0, long r1, long c0, long c1,
                            const fg_eval_env *env)
{
    if (r1 <= r0 || c1 <= c0)
        return TILE_SKIP;
    if (!m->present || !m->root)
        return TILE_FULL;
    return (fg_tile_state)node_state(m->root, r0, r1, c0, c1, env);
}

static long floor_div(long x, long b) /* b > 0 */
{
    return x >= 0 ? x / b : -((-x + b - 1) / b);
}

static long ceil_div(long x, long b) /* b > 0 */
{
    return -floor_div(-x, b);
}

/* The hull [lo, hi) of the columns of row r the node can see, clipped to
 * [0, ncols); lo >= hi when none. */
static void node_range(const fg_mask_node *n, long r, long ncols, const fg_eval_env *env,
                       long *lo, long *hi)
{
    long l1, h1, l2, h2;
    bool ok = true;
    *lo = 0;
    *hi = ncols;
    switch (n->op) {
    case MASK_ATOM: {
        const fg_mask_atom *at = &n->atom;
        long x = at->a_row * r + eval_int(at->c, env, &ok) + (at->strict ? 1 : 0);
        if (!ok)
            break;
        /* a_col*col + x <= 0 */
        if (at->a_col > 0)
            *hi = floor_div(-x, at->a_col) + 1;
        else if (at->a_col < 0)
            *lo = ceil_div(x, -at->a_col);
        else if (x > 0)
            *hi = 0;
        break;
    }
    case MASK_AND:
    case MASK_OR:
        node_range(n->lhs, r, ncols, env, &l1, &h1);
        node_range(n->rhs, r, ncols, env, &l2, &h2);
        if (n->op == MASK_AND) {
            *lo = l1 > l2 ? l1 : l2;
            *hi = h1 < h2 ? h1 : h2;
        } else if (l1 >= h1) {
            *lo = l2;
            *hi = h2;
        } else if (l2 >= h2) {
            *lo = l1;
            *hi = h1;
        } else {
            *lo = l1 < l2 ? l1 : l2;
            *hi = h1 > h2 ? h1 : h2;
        }
        break;
    default: /* TRUE; OPAQUE and NOT(OPAQUE) may see anything */
        break;
    }
    if (*lo < 0)
        *lo = 0;
    if (*hi > ncols)
        *hi = ncols;
}

int mask_key_range(const fg_mask *m, long r0, long r1, long ncols, const fg_eval_env *env,
                   long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    if (r1 <= r0 || ncols <= 0)
        return 0;
    if (!m->present || !m->root) {
        *hi = ncols;
        return 0;
    }
    for (long r = r0; r < r1; r++) {
        long l, h;
        node_range(m->root, r, ncols, env, &l, &h);
        if (l >= h)
            continue;
        if (*lo >= *hi) {
            *lo = l;
            *hi = h;
        } else {
            if (l < *lo)
                *lo = l;
            if (h > *hi)
                *hi = h;
        }
    }
    if (*lo >= *hi)
        *lo = *hi = 0;
    return 0;
}

/* Whether each row sees exactly the interval node_range gives it, not only
 * columns within it.  A linear atom is a half-line of columns (*lo0: it
 * starts at column 0; *hin: it ends at the last); TRUE is every column; an
 * AND of intervals is an interval; an OR of two is one when both start at
 * column 0, or both end at the last, or one side is all or nothing (a
 * condition on the row alone), since node_range takes the hull of the
 * nonempty sides.  Opaque leaves and span atoms are not intervals. */
static bool node_exact_spans(const fg_mask_node *n, bool spans, bool *lo0, bool *hin)
{
    bool l0, lh, r0, rh;
    switch (n->op) {
    case MASK_TRUE:
        *lo0 = *hin = true;
        return true;
    case MASK_SPAN:
        /* with its truth given (a tile whose span atoms are known): every
         * key or none, which an AND or an OR takes as exactly as TRUE */
        *lo0 = *hin = true;
        return spans;
    case MASK_ATOM:
        *lo0 = n->atom.a_col >= 0;
        *hin = n->atom.a_col <= 0;
        return true;
    case MASK_AND:
    case MASK_OR:
        if (!node_exact_spans(n->lhs, spans, &l0, &lh) || !node_exact_spans(n->rhs, spans, &r0, &rh))
            return false;
        *lo0 = l0 && r0;
        *hin = lh && rh;
        return n->op == MASK_AND || (l0 && r0) || (lh && rh) || (l0 && lh) || (r0 && rh);
    default:
        return false;
    }
}

bool mask_rows_exact(const fg_mask *m, bool *from0)
{
    bool lo0 = true, hin = true;
    bool exact = m->present && m->root && m->col_extent && node_exact_spans(m->root, false, &lo0, &hin);
    if (from0)
        *from0 = exact && lo0;
    return exact;
}

bool mask_rows_exact_known(const fg_mask *m)
{
    bool lo0 = true, hin = true;
    return m->present && m->root && m->col_extent && m->nspans > 0 && mask_decided_by_spans(m) &&
           node_exact_spans(m->root, true, &lo0, &hin);
}


/* Whether n holds a span atom. */
static bool node_has_span(const fg_mask_node *n)
{
    if (n->op == MASK_SPAN)
        return true;
    return (n->op == MASK_AND || n->op == MASK_OR || n->op == MASK_NOT) &&
           ((n->lhs && node_has_span(n->lhs)) || (n->rhs && node_has_span(n->rhs)));
}

/* Whether every span atom of n is a conjunct of n (reached through ANDs
 * only) and none compares with !=. */
static bool spans_conjunct(const fg_mask_node *n)
{
    switch (n->op) {
    case MASK_SPAN:
        return n->span.cmp != E_NE;
    case MASK_AND:
        return spans_conjunct(n->lhs) && spans_conjunct(n->rhs);
    default:
        return !node_has_span(n);
    }
}

bool mask_rows_sorted(const fg_mask *m)
{
    return mask_rows_exact_known(m) && spans_conjunct(m->root);
}
