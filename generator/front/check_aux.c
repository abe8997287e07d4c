/* check_aux.c - the sums a power sum about a running value carries.
 *
 * Over the schedule's reduced axis, a reduction whose body is a power of a
 * difference from a running value, Var_sum = sum(c: (X - Mean) ^ 2) with
 * Mean = sum(c: X) / C, cannot be repaired from its own accumulator when
 * the running value moves: (x - m')^2 summed is the old sum plus
 * 2 (m - m') sum(x - m) plus n (m - m')^2.  So the checker adds, beside
 * it, the statements it needs: the count n = sum(c: 1) and the sums of the
 * lower powers of the same difference, each of them a power sum too
 * (fg_powsum; algebra.c derives the update, verify.c checks it).
 *
 * A running mean written as a running sum divided by the reduced axis's
 * extent, sum(c: X) / C, is carried as the sum divided by the count so
 * far: at the end the count is C (or the row's own length, for a dim that
 * varies per row), so the result is the same, and in between the
 * reference point is the mean of the elements seen, as in Welford's
 * algorithm, which keeps the carried sums small (no cancellation between
 * n * mean^2 and the sum of squares). */
#include "check_internal.h"

#include <math.h>
#include <string.h>

typedef struct auxer {
    checker *ck;
    fg_plan *p;
    int axis;      /* the schedule's reduced axis */
    bool *dep;     /* per tensor: an elementwise statement that reads a running value */
    fg_vec made;   /* fg_ir_tensor *: the statements made, in order */
} auxer;

static bool running(const auxer *x, int t)
{
    const fg_ir_tensor *ts = &x->p->tensors[t];
    return ts->kind == TENSOR_STMT &&
           (ts->cls == CLASS_REDUCTION || ts->cls == CLASS_CONTRACTION) &&
           ts->red_axis == x->axis;
}

static bool reads_running(const auxer *x, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < x->p->ntensors &&
        (running(x, e->ref) || x->dep[e->ref]))
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_running(x, e->args[i], depth + 1))
            return true;
    return false;
}

/* e with the elementwise statements that read running values written
 * out, as fuse.c inlines them; NULL past the depth limit. */
static fg_expr *inlined(auxer *x, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return NULL;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < x->p->ntensors && x->dep[e->ref] &&
        x->p->tensors[e->ref].rhs)
        return inlined(x, x->p->tensors[e->ref].rhs, depth + 1);
    fg_expr *c = ARENA_NEW(x->ck->a, fg_expr);
    *c = *e;
    c->args = c->nargs ? ARENA_ARRAY(x->ck->a, fg_expr *, c->nargs) : NULL;
    for (int i = 0; i < c->nargs; i++)
        if (!(c->args[i] = inlined(x, e->args[i], depth + 1)))
            return NULL;
    return c;
}

/* Does e split into summands that each either read no running value or
 * read running values only (not the reduced axis)? */
static bool separates(const auxer *x, const fg_expr *e, bool *complete, bool *run)
{
    if (e->kind == E_ADD || e->kind == E_SUB)
        return separates(x, e->args[0], complete, run) && separates(x, e->args[1], complete, run);
    if (e->kind == E_NEG)
        return separates(x, e->args[0], complete, run);
    if (!reads_running(x, e, 0)) {
        *complete |= (e->axes & check_axis_bit(x->axis)) != 0;
        return true;
    }
    if (e->axes & check_axis_bit(x->axis))
        return false;
    *run = true;
    return true;
}

/* The power and its base: B ^ k, pow(B, k) or B * B, k a whole 2 .. 4;
 * else B itself, k = 1 (a sum that shifts needs the count). */
static const fg_expr *power_of(const fg_expr *e, int *k)
{
    double q = 0;
    const fg_expr *base = NULL;
    *k = 1;
    if (e->kind == E_POW && e->args[1]->kind == E_NUM)
        base = e->args[0], q = e->args[1]->num;
    else if (e->kind == E_CALL && e->fn == F_POW && e->args[1]->kind == E_NUM)
        base = e->args[0], q = e->args[1]->num;
    else if (e->kind == E_MUL && expr_equal(e->args[0], e->args[1]))
        base = e->args[0], q = 2;
    if (!base)
        return e;
    if (q != floor(q) || q < 2 || q > FG_MAX_POWER)
        return NULL;
    *k = (int)q;
    return base;
}

/* A running sum divided by the reduced axis's extent reads the count. */
static fg_expr *mean_by_count(auxer *x, fg_expr *e, const fg_expr *count)
{
    int dim = x->p->axes[x->axis].dim;
    if (e->kind == E_DIV && e->args[1]->kind == E_DIM && e->args[1]->ref == dim &&
        e->args[0]->kind == E_TENSOR && e->args[0]->ref >= 0 && running(x, e->args[0]->ref) &&
        x->p->tensors[e->args[0]->ref].op == R_SUM) {
        fg_expr *c = expr_clone(x->ck->a, e);
        c->args[1] = expr_clone(x->ck->a, count);
        return c;
    }
    for (int i = 0; i < e->nargs; i++)
        e->args[i] = mean_by_count(x, e->args[i], count);
    return e;
}

static fg_expr *typed(fg_expr *e, fg_type type, uint32_t axes)
{
    e->type = type;
    e->axes = axes;
    return e;
}

/* A statement sum(axis: body) over the row axes of `like`, named after it. */
static int make_sum(auxer *x, const fg_ir_tensor *like, const char *suffix, fg_expr *body)
{
    checker *ck = x->ck;
    const char *base = arena_printf(ck->a, "%s_%s", like->name, suffix);
    const char *name = base;
    for (int n = 2; check_name_taken(ck, name); n++)
        name = arena_printf(ck->a, "%s_%d", base, n);
    fg_ir_tensor *t = ARENA_NEW(ck->a, fg_ir_tensor);
    *t = *like;
    t->name = name;
    t->is_output = false;
    t->hoisted = false;
    t->hoisted_from = -1;
    fg_expr *r = expr_new(ck->a, E_REDUCE, like->rhs->loc, 1);
    *r = *like->rhs;
    r->args = ARENA_ARRAY(ck->a, fg_expr *, 1);
    r->args[0] = body;
    t->rhs = r;
    t->body = body;
    t->cls = CLASS_REDUCTION;
    int ti = x->p->ntensors + x->made.len;
    vec_push(ck->a, &x->made, t);
    check_table_add(ck->a, &ck->names, name, NAME_HOISTED, ti);
    return ti;
}

/* Adds the carried sums of statement t when its body is such a power. */
static void carry_sums(auxer *x, int ti)
{
    checker *ck = x->ck;
    fg_ir_tensor *t = &x->p->tensors[ti];
    fg_expr *body = inlined(x, t->body, 0);
    int k = 0;
    const fg_expr *base = body ? power_of(body, &k) : NULL;
    bool complete = false, run = false;
    if (!base || !separates(x, base, &complete, &run) || !complete || !run)
        return;
    fg_expr *one = typed(expr_num(ck->a, 1), T_FLOAT, 0);
    one->is_int = true;
    int aux[FG_MAX_POWER];
    for (int i = 0; i < FG_MAX_POWER; i++)
        aux[i] = -1; /* the powers k .. FG_MAX_POWER - 1: none */
    aux[0] = make_sum(x, t, "count", one);
    fg_expr *count = check_stmt_read(ck, aux[0], x->made.items[x->made.len - 1], t->rhs->axes,
                                     t->rhs->loc);
    fg_expr *b = mean_by_count(x, expr_clone(ck->a, base), count);
    for (int i = 1; i < k; i++) {
        fg_expr *bi = b;
        if (i > 1)
            bi = typed(expr_binary(ck->a, E_POW, b, typed(expr_num(ck->a, i), T_FLOAT, 0)),
                       T_FLOAT, b->axes);
        if (i > 1)
            bi->args[1]->is_int = true;
        aux[i] = make_sum(x, t, arena_printf(ck->a, "pow%d", i), bi);
    }
    fg_expr *bk = b;
    if (k > 1) {
        bk = typed(expr_binary(ck->a, E_POW, b, typed(expr_num(ck->a, k), T_FLOAT, 0)), T_FLOAT,
                   b->axes);
        bk->args[1]->is_int = true;
    }
    fg_expr *r = expr_new(ck->a, E_REDUCE, t->rhs->loc, 1);
    *r = *t->rhs;
    r->args = ARENA_ARRAY(ck->a, fg_expr *, 1);
    r->args[0] = bk;
    for (int i = 0; i < k; i++) {
        fg_powsum *ps = ARENA_NEW(ck->a, fg_powsum);
        ps->k = i;
        memcpy(ps->aux, aux, sizeof aux);
        ps->of = ti;
        int made = aux[i] - x->p->ntensors;
        ((fg_ir_tensor *)x->made.items[made])->powsum = ps;
    }
    fg_powsum *ps = ARENA_NEW(ck->a, fg_powsum);
    ps->k = k;
    memcpy(ps->aux, aux, sizeof aux);
    ps->of = ti;
    t->powsum = ps;
    t->rhs = r;
    t->body = bk;
}

/* The plan's order with each power sum's carried sums just before it. */
static void reorder(auxer *x, int nold)
{
    fg_plan *p = x->p;
    int *order = ARENA_ARRAY(x->ck->a, int, p->ntensors + 1);
    int n = 0;
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        const fg_powsum *ps = p->tensors[t].powsum;
        if (t < nold && ps && ps->k > 0)
            for (int j = 0; j < ps->k; j++)
                order[n++] = ps->aux[j];
        order[n++] = t;
    }
    p->order = order;
    p->norder = n;
}

void check_power_sums(checker *ck)
{
    fg_plan *p = ck->p;
    if (!p->sched.present || p->sched.reduce_axis < 0 || p->sched.reduce_axis >= p->naxes)
        return;
    auxer x = {ck, p, p->sched.reduce_axis, ARENA_ARRAY(ck->a, bool, p->ntensors + 1), {0}};
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        if (ts->kind == TENSOR_STMT && ts->cls == CLASS_ELEMENTWISE && ts->rhs)
            x.dep[t] = reads_running(&x, ts->rhs, 0);
    }
    int nold = p->ntensors;
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        if (ts->kind == TENSOR_STMT && ts->cls == CLASS_REDUCTION && ts->op == R_SUM &&
            ts->red_axis == x.axis && ts->body)
            carry_sums(&x, t);
    }
    if (x.made.len == 0)
        return;
    int n = nold + x.made.len;
    fg_ir_tensor *all = ARENA_ARRAY(ck->a, fg_ir_tensor, n);
    memcpy(all, p->tensors, sizeof *all * (size_t)nold);
    for (int i = 0; i < x.made.len; i++)
        all[nold + i] = *(fg_ir_tensor *)x.made.items[i];
    bool *bad = ARENA_ARRAY(ck->a, bool, n);
    memcpy(bad, ck->decl_bad, sizeof *bad * (size_t)nold);
    ck->decl_bad = bad;
    p->tensors = all;
    p->ntensors = n;
    reorder(&x, nold);
}
