/* fuse.c - the fused schedule: break the dependencies between the
 * reductions over the plan's reduced axis.
 *
 * Every statement gets a role (input, prologue, per-tile, running state,
 * epilogue).  Each running reduction's body is rewritten with the statements
 * that read running values inlined, so that the algebra sees the whole
 * function of the running values it accumulates, and derive_correction finds
 * the correction that repairs the state when those values move (rolling
 * form) or when partial states of splits are merged (split form: the same
 * correction with E_PREV meaning a split's partial value and E_TENSOR the
 * combined one).  Masks come from masks.c. */
#include "generator.h"

#include <math.h>
#include <string.h>

typedef struct fuser {
    fg_arena *a;
    const fg_plan *p;
    fg_diag *d;
    fg_fused *fz;
    int axis;
    bool *dep_running; /* per tensor: depends (transitively) on running values */
    bool *feeds;       /* per tensor: read (through per-tile statements) by a running reduction */
    long budget;       /* nodes the inlining in progress may still make */
} fuser;

/* Inlining copies a statement's right side at every read, so a chain of
 * statements that each read the previous one twice doubles the body at
 * every step: the bodies the algebra and the mask check work on are capped
 * at this many nodes (real plans stay in the hundreds). */
#define FUSE_MAX_INLINED_NODES 4096

static uint32_t bit(int i)
{
    return 1u << i;
}

static bool is_stmt(const fg_plan *p, int t)
{
    return t >= 0 && t < p->ntensors && p->tensors[t].kind == TENSOR_STMT;
}

static bool is_reduction(const fg_ir_tensor *t)
{
    return t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION;
}

static uint32_t tensor_axes(const fg_ir_tensor *t)
{
    uint32_t m = t->axis_mask;
    for (int i = 0; i < t->naxes && t->axes; i++)
        if (t->axes[i] >= 0)
            m |= bit(t->axes[i]);
    return m;
}

static bool carries(const fuser *fu, int t)
{
    return (tensor_axes(&fu->p->tensors[t]) & bit(fu->axis)) != 0;
}

/* Does e read running state, or a tensor t with mark[t] set? */
static bool reads_marked(const fuser *fu, const fg_expr *e, const bool *mark, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < fu->p->ntensors) {
        if (fu->fz->role[e->ref] == ROLE_RUNNING || (mark && mark[e->ref]))
            return true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (reads_marked(fu, e->args[i], mark, depth + 1))
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Roles                                                               */
/* ------------------------------------------------------------------ */

static const char *axis_name(const fg_plan *p, int axis)
{
    return axis >= 0 && axis < p->naxes ? p->axes[axis].name : "?";
}

static fg_loc stmt_loc(const fg_ir_tensor *t)
{
    return t->rhs && t->rhs->loc.line ? t->rhs->loc : t->loc;
}

static bool axis_is_tiled(const fg_plan *p, int axis)
{
    for (int i = 0; i < p->sched.ntiles; i++)
        if (p->sched.tiles[i].axis == axis)
            return true;
    return false;
}

static void assign_roles(fuser *fu)
{
    const fg_plan *p = fu->p;
    fg_fused *fz = fu->fz;
    for (int t = 0; t < p->ntensors; t++) {
        const fg_ir_tensor *ts = &p->tensors[t];
        if (ts->kind == TENSOR_INPUT)
            fz->role[t] = ROLE_INPUT;
        else if (is_reduction(ts) && ts->red_axis == fu->axis)
            fz->role[t] = ROLE_RUNNING;
        else
            fz->role[t] = ROLE_PROLOGUE; /* settled below */
    }
    /* Dependence on running values, producers first. */
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        if (is_stmt(p, t) && fz->role[t] != ROLE_RUNNING)
            fu->dep_running[t] = reads_marked(fu, p->tensors[t].rhs, fu->dep_running, 0);
    }
    /* What feeds a running reduction, consumers first. */
    for (int i = p->norder - 1; i >= 0; i--) {
        int t = p->order[i];
        if (!is_stmt(p, t) || fz->role[t] == ROLE_RUNNING)
            continue;
        for (int k = i + 1; k < p->norder && !fu->feeds[t]; k++) {
            int u = p->order[k];
            if (!is_stmt(p, u) || !expr_reads(p->tensors[u].rhs, t))
                continue;
            if (fz->role[u] == ROLE_RUNNING || (carries(fu, u) && fu->feeds[u]))
                fu->feeds[t] = true;
        }
    }
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        if (!is_stmt(p, t) || fz->role[t] == ROLE_RUNNING)
            continue;
        if (carries(fu, t))
            fz->role[t] = fu->dep_running[t] && !fu->feeds[t] ? ROLE_EPILOGUE : ROLE_TILE;
        else
            fz->role[t] = fu->dep_running[t] ? ROLE_EPILOGUE : ROLE_PROLOGUE;
    }
}

/* The first running value e reads, directly or through the statements it
 * reads that depend on running values; -1 if none. */
static int first_running_read(const fuser *fu, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return -1;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < fu->p->ntensors) {
        if (fu->fz->role[e->ref] == ROLE_RUNNING)
            return e->ref;
        if (fu->dep_running[e->ref])
            return first_running_read(fu, fu->p->tensors[e->ref].rhs, depth + 1);
    }
    for (int i = 0; i < e->nargs; i++) {
        int r = first_running_read(fu, e->args[i], depth + 1);
        if (r >= 0)
            return r;
    }
    return -1;
}

/* The plan shapes fusion cannot take; located errors, several per run. */
static int check_shapes(fuser *fu)
{
    const fg_plan *p = fu->p;
    fg_fused *fz = fu->fz;
    int errors = 0;
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        if (!is_stmt(p, t))
            continue;
        if (is_reduction(ts) && ts->red_axis != fu->axis && axis_is_tiled(p, ts->red_axis)) {
            diag_error(fu->d, stmt_loc(ts),
                       "cannot fuse '%s': it reduces over the tiled axis '%s' while the plan "
                       "fuses over '%s'; fusing two axes at once is not supported",
                       plan_user_name(p, t), axis_name(p, ts->red_axis), axis_name(p, fu->axis));
            errors++;
        }
        if (fz->role[t] == ROLE_RUNNING && t >= 64) {
            diag_error(fu->d, stmt_loc(ts),
                       "cannot fuse '%s': a plan may have at most 64 statements before its "
                       "last running reduction",
                       plan_user_name(p, t));
            errors++;
        }
        if (fz->role[t] == ROLE_TILE && fu->dep_running[t] && ts->is_output) {
            int r = first_running_read(fu, ts->rhs, 0);
            diag_error(fu->d, ts->output_loc.line ? ts->output_loc : ts->loc,
                       "cannot fuse output '%s': it carries '%s' and reads the running value "
                       "'%s' before the last tile, because it also feeds a running reduction; "
                       "compute the output in a statement of its own",
                       ts->name, axis_name(p, fu->axis), r >= 0 ? plan_user_name(p, r) : "?");
            errors++;
        }
        /* A running contraction is (a per-tile value) * (an input): the
         * checker makes every other product over the fused axis a row
         * reduction (check_fused_contractions). */
    }
    return errors ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Running state                                                       */
/* ------------------------------------------------------------------ */

/* e with every read of a (non-running) statement that depends on running
 * values replaced by that statement's right side, recursively; NULL when
 * that takes more than fu->budget nodes. */
static fg_expr *inline_running(fuser *fu, const fg_expr *e, int depth)
{
    if (--fu->budget < 0)
        return NULL;
    if (depth > FG_MAX_EXPR_DEPTH)
        return expr_clone(fu->a, e);
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < fu->p->ntensors &&
        fu->fz->role[e->ref] != ROLE_RUNNING && fu->dep_running[e->ref] &&
        fu->p->tensors[e->ref].rhs)
        return inline_running(fu, fu->p->tensors[e->ref].rhs, depth + 1);
    fg_expr *c = ARENA_NEW(fu->a, fg_expr);
    *c = *e;
    c->args = c->nargs ? ARENA_ARRAY(fu->a, fg_expr *, c->nargs) : NULL;
    for (int i = 0; i < c->nargs; i++)
        if (!(c->args[i] = inline_running(fu, e->args[i], depth + 1)))
            return NULL;
    return c;
}

/* The statement whose definition brought the running values into a body:
 * the first read of a statement that depends on them, else the reduction. */
static int find_origin(const fuser *fu, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return -1;
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < fu->p->ntensors &&
        fu->fz->role[e->ref] != ROLE_RUNNING && fu->dep_running[e->ref])
        return e->ref;
    for (int i = 0; i < e->nargs; i++) {
        int o = find_origin(fu, e->args[i], depth + 1);
        if (o >= 0)
            return o;
    }
    return -1;
}

static int derive_running(fuser *fu)
{
    const fg_plan *p = fu->p;
    fg_fused *fz = fu->fz;
    uint64_t before = 0;
    int status = 0;
    for (int k = 0; k < fz->nrunning; k++) {
        fg_running *r = &fz->running[k];
        const fg_ir_tensor *t = &p->tensors[r->tensor];
        r->op = t->op;
        r->identity = t->op == R_SUM ? 0.0 : t->op == R_MAX ? -INFINITY : INFINITY;
        fu->budget = FUSE_MAX_INLINED_NODES;
        r->body_inlined = inline_running(fu, t->body, 0);
        if (!r->body_inlined) {
            diag_error(fu->d, stmt_loc(t),
                       "cannot fuse '%s' over '%s': with the statements it reads written out, "
                       "its body has more than %d operations",
                       plan_user_name(p, r->tensor), axis_name(p, fu->axis),
                       FUSE_MAX_INLINED_NODES);
            status = -1;
        } else if (derive_correction(fu->a, p, r->body_inlined, t->op, before, r->tensor, stmt_loc(t),
                              &r->corr, fu->d) != 0) {
            status = -1;
        } else {
            int origin = find_origin(fu, t->body, 0);
            r->corr.origin = origin >= 0 ? origin : r->tensor;
        }
        before |= r->tensor < 64 ? (uint64_t)1 << r->tensor : 0;
    }
    return status;
}

/* ------------------------------------------------------------------ */
/* Skipping masked tiles                                               */
/* ------------------------------------------------------------------ */

static bool is_neg_inf(const fg_expr *e)
{
    if (e->kind == E_NUM)
        return isinf(e->num) && e->num < 0;
    return e->kind == E_NEG && e->args[0]->kind == E_INF;
}

/* e with every non-running statement inlined and every masking where
 * replaced by -inf: the value at an element that no mask lets through.
 * NULL when too deep or over fu->budget nodes. */
static fg_expr *masked_value(fuser *fu, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH || --fu->budget < 0)
        return NULL;
    if (e->kind == E_WHERE && e->nargs == 3 && (is_neg_inf(e->args[1]) || is_neg_inf(e->args[2])))
        return expr_unary(fu->a, E_NEG, expr_new(fu->a, E_INF, e->loc, 0));
    if (e->kind == E_TENSOR && is_stmt(fu->p, e->ref) && fu->fz->role[e->ref] != ROLE_RUNNING &&
        fu->p->tensors[e->ref].rhs)
        return masked_value(fu, fu->p->tensors[e->ref].rhs, depth + 1);
    fg_expr *c = ARENA_NEW(fu->a, fg_expr);
    *c = *e;
    c->args = c->nargs ? ARENA_ARRAY(fu->a, fg_expr *, c->nargs) : NULL;
    for (int i = 0; i < c->nargs; i++)
        if (!(c->args[i] = masked_value(fu, e->args[i], depth + 1)))
            return NULL;
    return c;
}

typedef struct skip_env {
    uint64_t rng;
} skip_env;

static double skip_leaf(void *ctx, const fg_expr *e)
{
    skip_env *s = ctx;
    s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(s->rng >> 11) / 9007199254740992.0; /* [0, 1) */
    if (e->kind == E_DIM || e->kind == E_AXIS)
        return (double)(1 + (int)(u * 100));
    return 8.0 * u - 4.0;
}

/* Does every running body add exactly its identity at a fully masked
 * element?  Checked at random values of everything else (a reduction left
 * in a body, such as sum(d: Q * K), reads as one random value). */
static bool masked_tiles_add_nothing(fuser *fu)
{
    fg_fused *fz = fu->fz;
    skip_env env = {0x2545f4914f6cdd1dull};
    fg_eval_env ev = {skip_leaf, &env};
    for (int k = 0; k < fz->nrunning; k++) {
        const fg_ir_tensor *t = &fu->p->tensors[fz->running[k].tensor];
        fu->budget = FUSE_MAX_INLINED_NODES;
        fg_expr *v = masked_value(fu, t->body, 0);
        if (!v)
            return false;
        for (int trial = 0; trial < 64; trial++)
            if (expr_eval(v, &ev) != fz->running[k].identity)
                return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* The phase                                                           */
/* ------------------------------------------------------------------ */

static int *list_of_role(fuser *fu, fg_role role, int *n)
{
    const fg_plan *p = fu->p;
    int *v = ARENA_ARRAY(fu->a, int, p->norder + 1);
    *n = 0;
    for (int i = 0; i < p->norder; i++)
        if (is_stmt(p, p->order[i]) && fu->fz->role[p->order[i]] == role)
            v[(*n)++] = p->order[i];
    return v;
}

int fuse_plan(fg_arena *a, const fg_plan *p, fg_diag *d, fg_fused **out)
{
    *out = NULL;
    int axis = p->sched.reduce_axis;
    if (axis < 0 || axis >= p->naxes) {
        diag_error(d, p->sched.present ? p->sched.reduce_loc : p->name_loc,
                   "plan '%s' has no reduction to fuse", p->name);
        return -1;
    }
    fg_fused *fz = ARENA_NEW(a, fg_fused);
    fz->plan = p;
    fz->axis = axis;
    fz->form = p->sched.form;
    fz->role = ARENA_ARRAY(a, fg_role, p->ntensors + 1);
    fuser fu = {a, p, d, fz, axis, ARENA_ARRAY(a, bool, p->ntensors + 1),
                ARENA_ARRAY(a, bool, p->ntensors + 1), 0};
    assign_roles(&fu);

    fz->prologue = list_of_role(&fu, ROLE_PROLOGUE, &fz->nprologue);
    fz->tile = list_of_role(&fu, ROLE_TILE, &fz->ntile);
    fz->epilogue = list_of_role(&fu, ROLE_EPILOGUE, &fz->nepilogue);
    int nrun;
    int *run = list_of_role(&fu, ROLE_RUNNING, &nrun);
    fz->nrunning = nrun;
    fz->running = ARENA_ARRAY(a, fg_running, nrun + 1);
    fz->row_axes = nrun ? ~0u : 0;
    for (int k = 0; k < nrun; k++) {
        fz->running[k].tensor = run[k];
        fz->row_axes &= tensor_axes(&p->tensors[run[k]]);
    }
    fz->row_axes &= ~bit(axis);
    /* An axis that a statement reduces over is looped inside a row, not
     * fixed per row: with O[b, h, m, d] = sum(n: G * V) the only running
     * value, d is O's own axis, because S = sum(d: Q * K) reduces over it. */
    for (int t = 0; t < p->ntensors; t++)
        if (is_stmt(p, t) && is_reduction(&p->tensors[t]) && p->tensors[t].red_axis >= 0 &&
            p->tensors[t].red_axis != axis)
            fz->row_axes &= ~bit(p->tensors[t].red_axis);

    if (check_shapes(&fu) != 0)
        return -1;
    if (derive_running(&fu) != 0)
        return -1;

    int row_axis = -1;
    for (int i = 0; i < p->sched.ntiles; i++)
        if (p->sched.tiles[i].axis >= 0 && p->sched.tiles[i].axis != axis && row_axis < 0)
            row_axis = p->sched.tiles[i].axis;
    if (mask_analyse(a, p, row_axis, axis, &fz->mask, d) != 0)
        return -1;
    fz->mask_skippable = fz->mask.present && masked_tiles_add_nothing(&fu);
    *out = fz;
    return 0;
}

/* ------------------------------------------------------------------ */
/* --dump=fused                                                        */
/* ------------------------------------------------------------------ */

static void dump_axes(FILE *f, const fg_plan *p, uint32_t axes)
{
    fputc('[', f);
    bool first = true;
    for (int i = 0; i < p->naxes; i++)
        if (axes & bit(i)) {
            fprintf(f, "%s%s", first ? "" : ", ", p->axes[i].name);
            first = false;
        }
    fputc(']', f);
}

static void dump_lhs(FILE *f, const fg_plan *p, const fg_ir_tensor *t)
{
    fputs(t->name, f);
    if (t->naxes > 0 && t->axes) {
        fputc('[', f);
        for (int i = 0; i < t->naxes; i++)
            fprintf(f, "%s%s", i ? ", " : "", axis_name(p, t->axes[i]));
        fputc(']', f);
    } else {
        dump_axes(f, p, t->axis_mask);
    }
}

static void dump_statement(FILE *f, const fg_fused *fz, int t, fg_arena *a)
{
    const fg_plan *p = fz->plan;
    const fg_ir_tensor *ts = &p->tensors[t];
    fputs("  ", f);
    dump_lhs(f, p, ts);
    fprintf(f, " = %s  #", expr_to_string(a, p, ts->rhs));
    if (is_reduction(ts))
        fprintf(f, " %s over %s,", ts->cls == CLASS_CONTRACTION ? "contraction" : "reduction",
                axis_name(p, ts->red_axis));
    if (fz->mask.present && fz->mask.stmt == t)
        fputs(" mask,", f);
    bool reads_running = false;
    for (int k = 0; k < fz->nrunning; k++)
        if (expr_reads(ts->rhs, fz->running[k].tensor)) {
            fprintf(f, "%s %s", reads_running ? "," : " reads", p->tensors[fz->running[k].tensor].name);
            reads_running = true;
        }
    if (reads_running)
        fputc(',', f);
    fprintf(f, " line %d%s\n", ts->loc.line, ts->hoisted ? " (hoisted)" : "");
}

/* A correction factor with E_PREV(r) printed as r_s: a split's partial. */
static fg_expr *split_names(fg_arena *a, const fg_plan *p, const fg_expr *e)
{
    fg_expr *c = expr_clone(a, e);
    if (c->kind == E_PREV) {
        fg_expr *n = expr_ref(a, E_NAME, -1,
                              arena_printf(a, "%s_s", p->tensors[c->ref].name));
        n->nargs = 0;
        return n;
    }
    for (int i = 0; i < c->nargs; i++)
        c->args[i] = split_names(a, p, e->args[i]);
    return c;
}

static void dump_running(FILE *f, const fg_fused *fz, const fg_running *r, fg_arena *a)
{
    const fg_plan *p = fz->plan;
    const fg_ir_tensor *t = &p->tensors[r->tensor];
    const char *name = t->name;
    const char *body = expr_to_string(a, p, r->body_inlined);
    fputs("  ", f);
    dump_lhs(f, p, t);
    fprintf(f, ": %s over %s, from %s", fg_reduce_names[r->op], axis_name(p, fz->axis),
            r->op == R_SUM ? "0" : r->op == R_MAX ? "-inf" : "inf");
    if (r->corr.kind == CORR_SCALE)
        fprintf(f, "; before adding a tile: %s = %s * %s", name, name,
                expr_to_string(a, p, r->corr.factor));
    else if (r->corr.kind == CORR_SHIFT)
        fprintf(f, "; before adding a tile: %s = %s + %s", name, name,
                expr_to_string(a, p, r->corr.factor));
    if (r->op == R_SUM)
        fprintf(f, "; update %s = %s + %s", name, name, body);
    else
        fprintf(f, "; update %s = %s(%s, %s)", name, fg_reduce_names[r->op], name, body);
    fprintf(f, "  # line %d", t->loc.line);
    if (t->cls == CLASS_CONTRACTION)
        fprintf(f, ", contraction over %s", axis_name(p, fz->axis));
    if (r->corr.kind == CORR_NONE) {
        fputs(", no correction\n", f);
        return;
    }
    const fg_ir_tensor *o = &p->tensors[r->corr.origin];
    if (o == t)
        fprintf(f, "\n      # correction from the body %s, line %d: %s; ",
                expr_to_string(a, p, t->body), t->loc.line, r->corr.why ? r->corr.why : "");
    else
        fprintf(f, "\n      # correction from %s = %s, line %d: %s; ", o->name,
                expr_to_string(a, p, o->rhs), o->loc.line, r->corr.why ? r->corr.why : "");
    if (!r->corr.verified)
        fputs("not verified numerically\n", f);
    else if (r->corr.max_rel_err < 1e-12)
        fputs("verified numerically, max rel err below 1e-12\n", f);
    else
        fprintf(f, "verified numerically, max rel err %.1e\n", r->corr.max_rel_err);
}

static void dump_combine(FILE *f, const fg_fused *fz, fg_arena *a)
{
    const fg_plan *p = fz->plan;
    fputs("combine (split form), the partial states r_s of the splits s:\n", f);
    for (int k = 0; k < fz->nrunning; k++) {
        const fg_running *r = &fz->running[k];
        const char *name = p->tensors[r->tensor].name;
        const char *verb = r->op == R_SUM ? "sum" : fg_reduce_names[r->op];
        if (r->corr.kind == CORR_SHIFT)
            fprintf(f, "  %s = %s over s of (%s_s + %s)", name, verb, name,
                    expr_to_string(a, p, split_names(a, p, r->corr.factor)));
        else
            fprintf(f, "  %s = %s over s of %s_s", name, verb, name);
        if (r->corr.kind == CORR_SCALE)
            fprintf(f, " * %s", expr_to_string(a, p, split_names(a, p, r->corr.factor)));
        fputc('\n', f);
    }
}

static void dump_mask(FILE *f, const fg_fused *fz, fg_arena *a)
{
    const fg_plan *p = fz->plan;
    const fg_mask *m = &fz->mask;
    if (!m->present) {
        fputs("mask: none (every tile is full)\n", f);
        return;
    }
    fprintf(f, "mask (%s, line %d): visible when %s; rows %s, keys %s\n",
            p->tensors[m->stmt].name, m->loc.line, expr_to_string(a, p, m->cond),
            axis_name(p, m->row_axis), axis_name(p, m->col_axis));
    fprintf(f, "  %s\n", mask_describe_tiles(a, p, m));
    if (fz->mask_skippable)
        fputs("  skipped tiles are exact: at a masked element every running body adds its "
              "identity\n",
              f);
    else
        fputs("  tiles are never skipped: some running body adds more than its identity at a "
              "masked element\n",
              f);
}

void dump_fused(FILE *f, const fg_fused *fz)
{
    const fg_plan *p = fz->plan;
    fg_arena *a = arena_create();
    fprintf(f, "fused %s: reduce %s (%s)", p->name, axis_name(p, fz->axis),
            fg_form_names[fz->form]);
    if (p->sched.ntiles > 0) {
        fputs(", tiles", f);
        for (int i = 0; i < p->sched.ntiles; i++)
            fprintf(f, " %s=%d", p->sched.tiles[i].axis_name, p->sched.tiles[i].size);
    }
    if (fz->form == FORM_SPLIT) {
        if (p->sched.splits > 0)
            fprintf(f, ", splits %d", p->sched.splits);
        else
            fputs(", splits auto", f);
    }
    fputc('\n', f);
    if (fz->nprologue > 0) {
        fputs("prologue (once per row block):\n", f);
        for (int i = 0; i < fz->nprologue; i++)
            dump_statement(f, fz, fz->prologue[i], a);
    }
    fprintf(f, "per tile of %s:\n", axis_name(p, fz->axis));
    for (int i = 0; i < fz->ntile; i++)
        dump_statement(f, fz, fz->tile[i], a);
    if (fz->ntile == 0)
        fputs("  (no statements: the running bodies read the inputs)\n", f);
    fputs("running state per row ", f);
    dump_axes(f, p, fz->row_axes);
    fputs(":\n", f);
    for (int k = 0; k < fz->nrunning; k++)
        dump_running(f, fz, &fz->running[k], a);
    bool rows = false, pass = false;
    for (int i = 0; i < fz->nepilogue; i++) {
        bool second = (tensor_axes(&p->tensors[fz->epilogue[i]]) & bit(fz->axis)) != 0;
        rows |= !second;
        pass |= second;
    }
    for (int which = 0; which < 2; which++) {
        if (which == 0 ? !rows : !pass)
            continue;
        if (which == 0)
            fputs("epilogue (after the last tile):\n", f);
        else
            fprintf(f, "epilogue, second pass over the tiles of %s (final running values):\n",
                    axis_name(p, fz->axis));
        for (int i = 0; i < fz->nepilogue; i++) {
            bool second = (tensor_axes(&p->tensors[fz->epilogue[i]]) & bit(fz->axis)) != 0;
            if (second == (which == 1))
                dump_statement(f, fz, fz->epilogue[i], a);
        }
    }
    if (fz->form == FORM_SPLIT)
        dump_combine(f, fz, a);
    dump_mask(f, fz, a);
    arena_destroy(a);
}
