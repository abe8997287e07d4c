/* masks.c - tile classification from where(cond, x, -inf).
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
static bool node_exact(const fg_mask_node *n, bool *lo0, bool *hin)
{
    bool l0, lh, r0, rh;
    switch (n->op) {
    case MASK_TRUE:
        *lo0 = *hin = true;
        return true;
    case MASK_ATOM:
        *lo0 = n->atom.a_col >= 0;
        *hin = n->atom.a_col <= 0;
        return true;
    case MASK_AND:
    case MASK_OR:
        if (!node_exact(n->lhs, &l0, &lh) || !node_exact(n->rhs, &r0, &rh))
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
    bool exact = m->present && m->root && m->col_extent && node_exact(m->root, &lo0, &hin);
    if (from0)
        *from0 = exact && lo0;
    return exact;
}

/* ------------------------------------------------------------------ */
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
