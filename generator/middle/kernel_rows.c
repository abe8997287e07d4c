/* kernel_rows.c - the rowreduce family of the kernel model: a chain of
 * running reductions without contractions (softmax, log-sum-exp,
 * normalisation statistics) as the GPU row kernels compute it.
 *
 * A row is one index of the running state's axes; the kernels walk its
 * elements along the fused axis in chunks, keep the running values with the
 * corrections fuse.c derived, merge the states of threads (and of the CTAs
 * of a split row) with the same corrections, then compute the row's
 * epilogue and, when an output carries the fused axis, walk the row again
 * to write it.  Whether a plan fits is decided here, once, with a located
 * reason when it does not (lower_cuda_supported reports it).
 */
#include "generator.h"

#include <string.h>

typedef struct rb {
    fg_arena *a;
    fg_kernel *k;
    const fg_plan *p;
    const fg_fused *fz;
    bool *running;
    long nodes; /* inlined so far */
    fg_loc why_loc;
    const char *why;
} rb;

static int rb_fail(rb *c, fg_loc loc, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->why_loc = loc;
    }
    return -1;
}

static bool carries(const fg_ir_tensor *t, int ax) { return (t->axis_mask >> ax) & 1u; }

/* The axes an input's declared indices name (each must be a plain axis). */
static int input_axes(rb *c, const fg_ir_tensor *t, uint32_t *mask)
{
    *mask = 0;
    for (int i = 0; i < t->nindex; i++) {
        if (t->index[i]->kind != E_AXIS)
            return rb_fail(c, t->index[i]->loc,
                           arena_printf(c->a, "input '%s' is indexed by an expression: the row "
                                              "kernels read inputs at plain axes only",
                                        t->name));
        *mask |= 1u << t->index[i]->ref;
    }
    return 0;
}

/* Every read of an input at its declared indices (no gather). */
static int check_reads(rb *c, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return 0;
    if (e->kind == E_TENSOR && c->p->tensors[e->ref].kind == TENSOR_INPUT) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
        for (int i = 0; i < e->nargs && i < t->nindex; i++)
            if (!expr_equal(e->args[i], t->index[i]))
                return rb_fail(c, e->loc,
                               arena_printf(c->a, "'%s' is read at other indices than declared "
                                                  "(a gather): the row kernels read inputs at "
                                                  "their declared indices only",
                                            t->name));
        return 0;
    }
    if (e->kind == E_REDUCE)
        return rb_fail(c, e->loc, "a nested reduction the row kernels cannot place");
    for (int i = 0; i < e->nargs; i++)
        if (check_reads(c, e->args[i], depth + 1) < 0)
            return -1;
    return 0;
}

/* Nodes the inlined expressions of one plan may hold: a statement read
 * twice by the next, and so on, doubles at each step. */
#define ROWS_MAX_NODES 20000

/* e with every statement along the fused axis that is not running inlined
 * (NULL: nested too deeply, or past ROWS_MAX_NODES).  With fin, the row
 * statements of running values as well (a variance Var = Var_sum / C read
 * by another running value's body): a running body sees the running values
 * as they stand, never the row's final ones, which exist only after the
 * walk. */
static fg_expr *inline_elems(rb *c, const fg_expr *e, bool fin, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH || ++c->nodes > ROWS_MAX_NODES)
        return NULL;
    if (e->kind == E_TENSOR) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
        if (t->kind == TENSOR_STMT && !c->running[e->ref] && t->rhs &&
            (carries(t, c->fz->axis) || (fin && c->fz->role[e->ref] != ROLE_PROLOGUE)))
            return inline_elems(c, t->rhs, fin, depth + 1);
    }
    fg_expr *n = ARENA_NEW(c->a, fg_expr);
    *n = *e;
    if (e->nargs > 0)
        n->args = ARENA_ARRAY(c->a, fg_expr *, e->nargs);
    for (int i = 0; i < e->nargs; i++) {
        n->args[i] = inline_elems(c, e->args[i], fin, depth + 1);
        if (!n->args[i])
            return NULL;
    }
    return n;
}

static int add_role(rb *c, int *n, int *list, int t, const char *what)
{
    if (*n >= FG_KROWS_MAX)
        return rb_fail(c, c->p->tensors[t].loc,
                       arena_printf(c->a, "more than %d %s: the row kernels take at most %d",
                                    FG_KROWS_MAX, what, FG_KROWS_MAX));
    list[(*n)++] = t;
    return 0;
}

static int bind(rb *c)
{
    const fg_plan *p = c->p;
    const fg_fused *fz = c->fz;
    fg_kernel *k = c->k;
    fg_krows *r = &k->rows;
    const int cax = fz->axis;
    if (k->family != FAMILY_ROWREDUCE)
        return rb_fail(c, p->name_loc, "a contraction: the plan is attention, not a row reduction");
    for (int i = 0; i < p->ndims; i++)
        if (p->dims[i].index_axis >= 0)
            return rb_fail(c, p->dims[i].index_loc,
                           arena_printf(c->a, "dim '%s' varies per '%s': the row kernels take "
                                              "one extent per dim",
                                        p->dims[i].name, p->dims[i].index_name));
    for (int i = 0; i < p->nparams; i++)
        if (p->params[i].index_axis >= 0)
            return rb_fail(c, p->params[i].loc,
                           arena_printf(c->a, "param '%s' has one value per '%s': the row "
                                              "kernels take scalar params only",
                                        p->params[i].name, p->params[i].index_name));
    if (fz->nrunning == 0)
        return rb_fail(c, p->name_loc, "no reduction over the fused axis");
    /* the rows: the axes of the running state, the same for every value */
    uint32_t rows = p->tensors[fz->running[0].tensor].axis_mask;
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_ir_tensor *t = &p->tensors[fz->running[i].tensor];
        if (t->axis_mask != rows)
            return rb_fail(c, t->loc,
                           arena_printf(c->a, "'%s' is over other axes than '%s': the row "
                                              "kernels keep one running state per row",
                                        plan_user_name(p, fz->running[i].tensor),
                                        plan_user_name(p, fz->running[0].tensor)));
    }
    r->row_axes = rows;
    for (int ax = 0; ax < p->naxes; ax++)
        if (rows & (1u << ax))
            r->row_axis[r->nrow_axes++] = ax;
    const uint32_t elem = rows | (1u << cax);
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT) {
            uint32_t m;
            if (input_axes(c, t, &m) < 0)
                return -1;
            if (t->dtype == DT_INT)
                return rb_fail(c, t->loc,
                               arena_printf(c->a, "input '%s' holds integers: the row kernels "
                                                  "read floating-point inputs only",
                                            t->name));
            if (m & ~elem)
                return rb_fail(c, t->loc,
                               arena_printf(c->a, "input '%s' has an axis that is neither a row "
                                                  "axis nor '%s'",
                                            t->name, p->axes[cax].name));
            if (add_role(c, m & (1u << cax) ? &r->nin_c : &r->nin_row,
                         m & (1u << cax) ? r->in_c : r->in_row, i, "inputs of one kind") < 0)
                return -1;
            continue;
        }
        if (t->axis_mask & ~elem)
            return rb_fail(c, t->loc,
                           arena_printf(c->a, "'%s' has an axis that is neither a row axis nor "
                                              "'%s': the row kernels loop over nothing else",
                                        plan_user_name(p, i), p->axes[cax].name));
        if ((t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION) && t->red_axis != cax)
            return rb_fail(c, t->loc,
                           arena_printf(c->a, "'%s' reduces over '%s': the row kernels reduce "
                                              "over '%s' only",
                                        plan_user_name(p, i), p->axes[t->red_axis].name,
                                        p->axes[cax].name));
        const fg_expr *v = t->cls == CLASS_REDUCTION ? t->body : t->rhs;
        if (v && check_reads(c, v, 0) < 0)
            return -1;
        if (t->is_output) {
            bool along = carries(t, cax);
            if ((t->axis_mask & rows) != rows)
                return rb_fail(c, t->output_loc,
                               arena_printf(c->a, "output '%s' lacks a row axis: each row "
                                                  "writes its own elements",
                                            t->name));
            if (add_role(c, along ? &r->nout_c : &r->nout_row, along ? r->out_c : r->out_row, i,
                         "outputs of one kind") < 0)
                return -1;
        }
    }
    if (r->nin_c == 0)
        return rb_fail(c, p->name_loc,
                       arena_printf(c->a, "no input along '%s': nothing to read per element",
                                    p->axes[cax].name));
    /* row statements before and after the walk, in dependency order */
    for (int o = 0; o < p->norder; o++) {
        int t = p->order[o];
        if (t < 0 || t >= p->ntensors || carries(&p->tensors[t], cax) || c->running[t])
            continue;
        if (fz->role[t] == ROLE_PROLOGUE) {
            if (add_role(c, &r->npro, r->pro, t, "row statements before the walk") < 0)
                return -1;
        } else if (add_role(c, &r->nfin, r->fin, t, "row statements after the walk") < 0)
            return -1;
    }
    r->body = ARENA_ARRAY(c->a, fg_expr *, k->nvalues + 1);
    for (int i = 0; i < k->nvalues; i++) {
        const fg_ir_tensor *t = &p->tensors[k->values[i].tensor];
        r->body[i] = inline_elems(c, t->body, true, 0);
        if (!r->body[i])
            return rb_fail(c, t->loc, "its per-element statements nest too deeply, or inline "
                                      "to too many operations, for the row kernels");
    }
    r->out_value = ARENA_ARRAY(c->a, fg_expr *, r->nout_c + 1);
    for (int i = 0; i < r->nout_c; i++) {
        const fg_ir_tensor *t = &p->tensors[r->out_c[i]];
        fg_expr *e = inline_elems(c, t->rhs, false, 0);
        if (!e)
            return rb_fail(c, t->loc, "its per-element statements nest too deeply, or inline "
                                      "to too many operations, for the row kernels");
        r->out_value[i] = e;
    }
    return 0;
}

void kernel_bind_rows(fg_arena *a, fg_kernel *k)
{
    const fg_fused *fz = k->fz;
    rb c = {.a = a, .k = k, .p = k->plan, .fz = fz};
    c.running = ARENA_ARRAY(a, bool, k->plan->ntensors + 1);
    for (int i = 0; i < fz->nrunning; i++)
        c.running[fz->running[i].tensor] = true;
    memset(&k->rows, 0, sizeof k->rows);
    if (bind(&c) == 0) {
        k->rows_ok = true;
        return;
    }
    k->rows_ok = false;
    k->rows_why = c.why;
    k->rows_why_loc = c.why_loc;
}
