/* check_order.c - the second half of the checker: classify statements
 * (elementwise, reduction, contraction), put them in dependency order
 * (reporting cycles), check the outputs, the schedule and the per-sequence
 * extents.  check.c resolves and types the plan before this runs.
 */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Classification                                                      */
/* ------------------------------------------------------------------ */

/* Collects the factors of a product that depend on `axis` into reads[]
 * (at most 8 kept, all counted); returns -1 if one of them is not a plain
 * tensor read. */
static int collect_contracted_reads(const fg_expr *e, int axis, const fg_expr **reads, int n)
{
    if (e->kind == E_MUL) {
        int x = collect_contracted_reads(e->args[0], axis, reads, n);
        return x < 0 ? -1 : collect_contracted_reads(e->args[1], axis, reads, x);
    }
    if (!(e->axes & check_axis_bit(axis)))
        return n; /* a scalar factor along the contraction */
    if (e->kind != E_TENSOR)
        return -1;
    if (n < 8)
        reads[n] = e;
    return n + 1;
}

/* A sum of a product of reads of at least two different tensors that carry
 * the reduced axis is a contraction (sum(d: Q * K)); a tensor times itself
 * (sum(c: X * X)) is a square, a row reduction like sum(c: X ^ 2). */
void check_classify(fg_ir_tensor *t)
{
    t->cls = CLASS_ELEMENTWISE;
    t->red_axis = -1;
    t->body = NULL;
    if (!t->rhs || t->rhs->type == T_NONE || t->rhs->kind != E_REDUCE)
        return;
    t->op = t->rhs->op;
    t->red_axis = t->rhs->ref;
    t->body = t->rhs->args[0];
    bool contraction = false;
    if (t->op == R_SUM) {
        const fg_expr *reads[8];
        int n = collect_contracted_reads(t->body, t->red_axis, reads, 0);
        for (int i = 1; i < n && i < 8 && !contraction; i++)
            contraction = reads[i]->ref != reads[0]->ref;
    }
    t->cls = contraction ? CLASS_CONTRACTION : CLASS_REDUCTION;
}

/* Over the schedule's fused axis, a contraction is (a per-key statement) *
 * (an input), as P.V in attention: the running state of a matrix product.
 * Any other product there (K * V of two inputs, or of two statements) is
 * an ordinary row reduction of its per-element body. */
void check_fused_contractions(checker *ck)
{
    fg_plan *p = ck->p;
    int axis = p->sched.reduce_axis;
    if (axis < 0)
        return;
    for (int i = 0; i < p->ntensors; i++) {
        fg_ir_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || t->cls != CLASS_CONTRACTION || t->red_axis != axis)
            continue;
        const fg_expr *reads[8];
        int n = collect_contracted_reads(t->body, axis, reads, 0);
        int inputs = 0;
        for (int k = 0; k < n && k < 8; k++)
            inputs += p->tensors[reads[k]->ref].kind == TENSOR_INPUT;
        if (n != 2 || inputs != 1)
            t->cls = CLASS_REDUCTION;
    }
}

/* ------------------------------------------------------------------ */
/* Order                                                               */
/* ------------------------------------------------------------------ */

/* The statements a right side reads, in the order they are met (children
 * before parents, left to right); not below the depth check_expr stops at. */
static void collect_deps(checker *ck, const fg_expr *e, fg_vec *deps, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return;
    for (int i = 0; i < e->nargs; i++)
        collect_deps(ck, e->args[i], deps, depth + 1);
    if (e->kind == E_TENSOR && e->ref >= 0 && ck->p->tensors[e->ref].kind == TENSOR_STMT)
        vec_push(ck->a, deps, &ck->p->tensors[e->ref]);
}

static void report_cycle(checker *ck, const int *path, int len)
{
    enum { SHOWN = 8 }; /* a long cycle shows its first statements and its last */
    const fg_plan *p = ck->p;
    /* Start at the statement written first, so each cycle reads one way. */
    int first = 0;
    for (int i = 1; i < len; i++)
        if (check_loc_before(p->tensors[path[i]].loc, p->tensors[path[first]].loc))
            first = i;
    const char *text = "";
    for (int k = 0; k <= len; k++) {
        if (len > SHOWN + 1 && k == SHOWN) {
            text = arena_printf(ck->a, "%s -> ... (%d more)", text, len - SHOWN - 1);
            k = len - 1;
        }
        const char *name = p->tensors[path[(first + k) % len]].name;
        text = arena_printf(ck->a, "%s%s%s", text, k ? " -> " : "", name);
    }
    diag_error(ck->d, p->tensors[path[first]].loc, "cycle between statements: %s", text);
}

/* Depth-first, with an explicit stack (a plan may chain thousands of
 * statements): each statement after the statements it reads. */
void check_order_statements(checker *ck)
{
    fg_plan *p = ck->p;
    int n = p->ntensors;
    fg_vec *deps = ck->deps = ARENA_ARRAY(ck->a, fg_vec, n + 1);
    int *state = ARENA_ARRAY(ck->a, int, n + 1); /* 0 new, 1 on the path, 2 done */
    int *path = ARENA_ARRAY(ck->a, int, n + 1);
    int *next = ARENA_ARRAY(ck->a, int, n + 1); /* per path entry: the next dep */
    p->order = ARENA_ARRAY(ck->a, int, n + 1);
    p->norder = 0;
    for (int t = 0; t < n; t++)
        if (p->tensors[t].kind == TENSOR_STMT && p->tensors[t].rhs)
            collect_deps(ck, p->tensors[t].rhs, &deps[t], 0);
    for (int root = 0; root < n; root++) {
        if (p->tensors[root].kind != TENSOR_STMT || state[root] != 0)
            continue;
        int depth = 0;
        path[depth] = root;
        next[depth++] = 0;
        state[root] = 1;
        while (depth > 0) {
            int t = path[depth - 1];
            if (next[depth - 1] == deps[t].len) {
                state[t] = 2;
                p->order[p->norder++] = t;
                depth--;
                continue;
            }
            int dep = (int)((fg_ir_tensor *)deps[t].items[next[depth - 1]++] - p->tensors);
            if (state[dep] == 1) {
                int from = depth - 1;
                while (path[from] != dep)
                    from--;
                report_cycle(ck, path + from, depth - from);
            } else if (state[dep] == 0) {
                state[dep] = 1;
                path[depth] = dep;
                next[depth++] = 0;
            }
        }
    }
}

/* Hops through statement reads that a walk of the later passes can take:
 * each hop is at least one level of its depth, and none goes deeper than
 * FG_MAX_EXPR_DEPTH + 64 (rules.c's masked_to_inf). */
#define WRITTEN_OUT_HOPS (FG_MAX_EXPR_DEPTH + 64)

/* The operations in e, down to the depth the parser allows. */
static long own_nodes(const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return 0;
    long n = 1;
    for (int i = 0; i < e->nargs; i++)
        n += own_nodes(e->args[i], depth + 1);
    return n;
}

/* Fusion, the algebra and the kernels inline a statement wherever it is
 * read, and many of their walks follow the reads the same way, down to a
 * depth: statements that each read the one before more than once
 * (T1 = T0 + T0 * 3, T2 = T1 + T1 * 3, ...) double at every step, so thirty
 * of them would take 2^30 operations, where a chain of thousands that read
 * the one before once is cut at the depth.  For each statement, in
 * dependency order, w[h] counts the operations written out through at
 * most h reads (saturated past FG_MAX_WRITTEN_OUT); refused at the first
 * statement whose count at WRITTEN_OUT_HOPS passes the bound, so that no
 * later walk does.  Each count lives until its last reader is done. */
bool check_written_out(checker *ck)
{
    fg_plan *p = ck->p;
    enum { H = WRITTEN_OUT_HOPS };
    const long cap = FG_MAX_WRITTEN_OUT + 1L;
    int n = p->ntensors;
    const fg_vec *refs = ck->deps; /* the reads, from check_order_statements */
    long *own = ARENA_ARRAY(ck->a, long, n + 1);
    int *last = ARENA_ARRAY(ck->a, int, n + 1); /* order index of the last reader, or -1 */
    int *len = ARENA_ARRAY(ck->a, int, n + 1);  /* entries of w[t]: past them, w[t] is flat */
    long **w = ARENA_ARRAY(ck->a, long *, n + 1);
    for (int t = 0; t < n; t++)
        last[t] = -1;
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        if (!p->tensors[t].rhs)
            continue;
        own[t] = own_nodes(p->tensors[t].rhs, 0);
        for (int k = 0; k < refs[t].len; k++)
            last[(fg_ir_tensor *)refs[t].items[k] - p->tensors] = i;
    }
    bool ok = true;
    for (int i = 0; i < p->norder && ok; i++) {
        int t = p->order[i];
        if (!p->tensors[t].rhs)
            continue;
        /* w[t][h] stops changing past the longest chain of reads below t */
        len[t] = 1;
        for (int k = 0; k < refs[t].len; k++) {
            int u = (int)((fg_ir_tensor *)refs[t].items[k] - p->tensors);
            if (w[u] && len[u] + 1 > len[t])
                len[t] = len[u] + 1 < H + 1 ? len[u] + 1 : H + 1;
        }
        w[t] = malloc(sizeof(long) * (size_t)len[t]);
        if (!w[t]) {
            fputs("fusegen: out of memory\n", stderr);
            abort();
        }
        for (int h = 0; h < len[t]; h++)
            w[t][h] = own[t];
        long top = own[t]; /* w[t][H] */
        for (int k = 0; k < refs[t].len; k++) {
            int u = (int)((fg_ir_tensor *)refs[t].items[k] - p->tensors);
            const long *wu = w[u];
            if (!wu)
                continue; /* read back along a cycle (reported) */
            for (int h = 1; h < len[t]; h++) {
                long x = wu[h - 1 < len[u] ? h - 1 : len[u] - 1];
                w[t][h] = w[t][h] + x < cap ? w[t][h] + x : cap;
            }
            long x = wu[H - 1 < len[u] ? H - 1 : len[u] - 1];
            top = top + x < cap ? top + x : cap;
        }
        if (top >= cap) {
            diag_error(ck->d, p->tensors[t].loc,
                       "cannot write out '%s': with the statements it reads written out, it "
                       "has more than %d operations (fusegen inlines a statement wherever it "
                       "is read)",
                       p->tensors[t].name, FG_MAX_WRITTEN_OUT);
            ok = false;
        }
        for (int k = 0; k < refs[t].len; k++) {
            int u = (int)((fg_ir_tensor *)refs[t].items[k] - p->tensors);
            if (last[u] == i && w[u]) {
                free(w[u]);
                w[u] = NULL;
            }
        }
        if (last[t] <= i) { /* read by no later statement */
            free(w[t]);
            w[t] = NULL;
        }
    }
    for (int t = 0; t < n; t++)
        free(w[t]);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Outputs and schedule                                                */
/* ------------------------------------------------------------------ */

void check_outputs(checker *ck)
{
    fg_plan *p = ck->p;
    bool any = false;
    for (int i = 0; i < p->ntensors; i++) {
        fg_ir_tensor *t = &p->tensors[i];
        if (!t->is_output)
            continue;
        any = true;
        if (t->kind == TENSOR_INPUT)
            diag_error(ck->d, t->output_loc, "output '%s' is an input, not a statement", t->name);
    }
    if (!any)
        diag_error(ck->d, p->name_loc, "plan '%s' has no output", p->name);
}

/* The axis over a per-sequence dim (dim N[b]): every tensor that carries it
 * or reduces over it carries b too, no output carries it, it is the
 * schedule's reduced axis, and the entry point's length array NAME_len
 * names nothing else. */
void check_ragged(checker *ck)
{
    fg_plan *p = ck->p;
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        int ax = -1;
        for (int a = 0; a < p->naxes && ax < 0; a++)
            if (p->axes[a].dim == i)
                ax = a;
        if (ax < 0)
            continue;
        const char *an = p->axes[ax].name, *bn = p->axes[dm->index_axis].name;
        const fg_schedule *s = &p->sched;
        if (s->reduce_axis >= 0 && s->reduce_axis != ax) {
            diag_error(ck->d, dm->loc,
                       "dim '%s' varies per '%s', so its axis '%s' must be the schedule's reduced "
                       "axis (the schedule reduces over '%s')",
                       dm->name, bn, an, p->axes[s->reduce_axis].name);
            continue;
        }
        for (int ti = 0; ti < p->ntensors; ti++) {
            const fg_ir_tensor *t = &p->tensors[ti];
            if (ck->decl_bad[ti])
                continue;
            uint32_t carried = 0, owner = 0;
            if (t->kind == TENSOR_INPUT) {
                for (int k = 0; k < t->nindex; k++)
                    carried |= t->index[k]->axes;
            } else {
                carried = t->axis_mask;
                if (t->red_axis >= 0 && t->cls != CLASS_ELEMENTWISE)
                    carried |= check_axis_bit(t->red_axis);
            }
            owner = carried & check_axis_bit(dm->index_axis);
            if (!(carried & check_axis_bit(ax)))
                continue;
            if (!owner)
                diag_error(ck->d, t->loc,
                           "'%s' %s '%s', whose extent %s varies per '%s', so it must carry '%s' "
                           "too",
                           t->kind == TENSOR_STMT ? plan_user_name(p, ti) : t->name,
                           t->kind == TENSOR_INPUT || (t->axis_mask & check_axis_bit(ax)) ? "carries"
                                                                                   : "reduces over",
                           an, dm->name, bn, bn);
            else if (t->is_output && t->kind == TENSOR_STMT && (t->axis_mask & check_axis_bit(ax)))
                diag_error(ck->d, t->output_loc.line ? t->output_loc : t->loc,
                           "output '%s' carries '%s', whose extent %s varies per '%s'; outputs "
                           "over a per-sequence extent are not supported",
                           t->name, an, dm->name, bn);
        }
        const char *len = arena_printf(ck->a, "%s_len", dm->name);
        int idx;
        if (check_lookup(ck, len, &idx) != NAME_NONE)
            diag_error(ck->d, dm->loc,
                       "dim '%s' varies per '%s', so the entry point takes its lengths as '%s', "
                       "but that name is taken",
                       dm->name, bn, len);
    }
}

static bool is_power_of_two(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static void check_tile_size(checker *ck, fg_loc loc, const char *axis, int size)
{
    if (!is_power_of_two(size) || size > 1024)
        diag_error(ck->d, loc, "tile size %d for '%s' must be a power of two from 1 to 1024", size,
                   axis);
}

static void default_schedule(checker *ck)
{
    fg_schedule *s = &ck->p->sched;
    s->form = FORM_ROLLING;
    s->reduce_axis = -1;
    for (int i = 0; i < ck->p->norder; i++) {
        const fg_ir_tensor *t = &ck->p->tensors[ck->p->order[i]];
        if (t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION)
            s->reduce_axis = t->red_axis;
    }
    if (s->reduce_axis >= 0)
        s->reduce_axis_name = ck->p->axes[s->reduce_axis].name;
}

void check_schedule(checker *ck)
{
    fg_plan *p = ck->p;
    fg_schedule *s = &p->sched;
    if (!s->present) {
        default_schedule(ck);
        return;
    }
    s->reduce_axis = -1;
    if (!s->reduce_axis_name) {
        diag_error(ck->d, s->loc, "the schedule needs 'reduce AXIS: rolling' or 'split'");
    } else if ((s->reduce_axis = check_resolve_axis(ck, s->reduce_axis_name, s->reduce_loc)) >= 0) {
        bool reduced = false;
        for (int i = 0; i < p->ntensors; i++)
            if (p->tensors[i].kind == TENSOR_STMT && p->tensors[i].red_axis == s->reduce_axis &&
                p->tensors[i].cls != CLASS_ELEMENTWISE)
                reduced = true;
        if (!reduced)
            diag_error(ck->d, s->reduce_loc, "the schedule reduces over '%s', but no statement does",
                       s->reduce_axis_name);
    }
    uint32_t tiled = 0;
    for (int i = 0; i < s->ntiles; i++) {
        fg_tile_size *ts = &s->tiles[i];
        ts->axis = check_resolve_axis(ck, ts->axis_name, ts->loc);
        if (ts->axis >= 0 && (tiled & check_axis_bit(ts->axis)))
            diag_error(ck->d, ts->loc, "tile size for '%s' given twice", ts->axis_name);
        if (ts->axis >= 0)
            tiled |= check_axis_bit(ts->axis);
        check_tile_size(ck, ts->loc, ts->axis_name, ts->size);
    }
    for (int i = 0; i < s->nknobs; i++) {
        fg_tune_knob *kb = &s->knobs[i];
        bool tile = kb->axis_name != NULL;
        kb->axis = tile ? check_resolve_axis(ck, kb->axis_name, kb->loc) : -1;
        if (strcmp(kb->knob, "splits") == 0 && s->form != FORM_SPLIT)
            diag_error(ck->d, kb->loc, "'splits' can be tuned only in a 'split' schedule");
        for (int v = 0; v < kb->nvalues; v++) {
            if (tile && (kb->values[v] > 1024 ||
                         (!is_power_of_two(kb->values[v]) && kb->values[v] % 16 != 0)))
                /* candidates of a tuner: the sm_90a skeleton takes any multiple of 16 keys */
                diag_error(ck->d, kb->loc,
                           "tune tile size %d for '%s' must be a power of two or a multiple of "
                           "16, at most 1024",
                           kb->values[v], kb->axis_name);
            else if (strcmp(kb->knob, "pingpong") == 0 && kb->values[v] > 1)
                diag_error(ck->d, kb->loc, "tune value %d for 'pingpong' must be 0 (off) or 1 (on)",
                           kb->values[v]);
            else if (strcmp(kb->knob, "pingpong") != 0 && kb->values[v] <= 0)
                diag_error(ck->d, kb->loc, "tune value %d for '%s' must be positive",
                           kb->values[v], kb->knob);
        }
    }
    if (s->splits != 0 && s->form != FORM_SPLIT)
        diag_error(ck->d, s->loc, "'splits' is given, but the schedule is not 'split'");
    if (s->splits < 0)
        diag_error(ck->d, s->loc, "'splits' must be positive");
    if (s->warps < 0 || s->stages < 0)
        diag_error(ck->d, s->loc, "'warps' and 'stages' must be positive");
    if (s->targets & ~(unsigned)(TARGET_CUDA | TARGET_HIP | TARGET_C))
        diag_internal(ck->d, s->loc, "unknown target bits 0x%x", s->targets);
}

