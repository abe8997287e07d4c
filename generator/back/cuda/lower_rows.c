/* lower_rows.c - the rowreduce family of the GPU backends: the kernel model
 * as the hooks of the row kernels (templates/gpu/rows_hooks.m4 around the
 * skeleton templates/gpu/rows.hpp), printed for CUDA (cuda/rowreduce.m4)
 * or for HIP (hip/rowreduce.m4): the same text in the backend's dialect
 * (print.c) and with its few device words (rows_target below).
 *
 * The skeleton walks each row along the fused axis in chunks of V elements
 * (one 16-byte load per input), keeps the running state in registers, merges
 * the states of the threads of a row (and of the CTAs of a split row), then
 * computes the row's epilogue and writes the outputs.  What it calls per
 * plan is printed here from kernel_rows.c's binding, generically: the
 * running state and its identity, one chunk's step (each value's correction
 * as fuse.c derived it, then the chunk's contribution, producers first),
 * the merge of two states with the same corrections, the row statements
 * before and after the walk, and the per-element outputs.  The host entry
 * checks its arguments with the CPU entry's own checks (validate_c.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <math.h>
#include <string.h>

typedef fg_strbuf cb;

typedef enum rsite {
    RS_ELEM,  /* per element of a chunk: x[k][e], c_, s.V, V_prev_ */
    RS_ROW,   /* row setup and epilogue: s.V, r.*, f.* */
    RS_MERGE  /* the merge: TENSOR = a.V, PREV = o.V or b.V; the rebase: s.V, own.V */
} rsite;

/* What differs between the backends in the printed hooks: the template,
 * the dialect of the math functions, and three device words. */
typedef struct rows_target {
    const char *tmpl;       /* the plan's main template */
    fg_dialect_id dialect;
    const char *shfl;       /* lane (this lane xor o)'s copy of the float %s */
    const char *load_w;     /* float %d of a partial state saved at w by another CTA */
    const char *rcp;        /* the correctly rounded reciprocal (a function) */
    const char *entry;      /* the entry point, %s: the plan's name */
} rows_target;

static const rows_target rows_cuda = {"cuda/rowreduce.m4", DIALECT_CUDA,
                                      "__shfl_xor_sync(0xffffffffu, %s, o)", "__ldcg(w + %d)",
                                      "__frcp_rn", "fg_%s"};
/* HIP: the headers' __shfl_xor (ds_bpermute over the wavefront), plain
 * loads after the merge's acquire fence, hip/rowreduce/math.hpp's rcp. */
static const rows_target rows_hip = {"hip/rowreduce.m4", DIALECT_HIP, "__shfl_xor(%s, o)",
                                     "w[%d]", "plan_rcp_rn", "fg_%s_hip"};

typedef struct rw {
    fg_arena *a;
    const rows_target *tg;
    const fg_kernel *k;
    const fg_plan *p;
    const fg_krows *r;
    const char **tf, **af, **df, **pf; /* field names per tensor, axis, dim, param */
    int *in_c;                         /* per tensor: its index among in_c, or -1 */
    bool *running, *fin;
    rsite site;
    const char *prev_obj; /* RS_MERGE: "o" or "b" ("own": the rebase) */
    const char *cur_obj;  /* RS_MERGE: "a" ("s": the rebase) */
    bool used_c;
    /* chunk_step's hoisted parts: NULL, locals of the chunk (h0_, ...);
     * else fields of plan_lc named by this prefix (v3_0, ...), computed
     * once a level by plan_level_consts, declared in *hfields */
    const char *hpfx;
    fg_strbuf *hfields;
    int errors;
} rw;

/* Words the skeleton uses as fields or locals, and C++'s own. */
static const char *const reserved[] = {
    "any", "rows", "ncols", "ext", "vec", "in", "in_sc", "in_rs", "out", "out_dt", "out_sc",
    "out_rs", "rin", "rin_dt", "rin_rs", "rout", "rout_dt", "rout_rs", "in_off", "out_off",
    "rin_off", "rout_off", "p", "r", "s", "f", "x", "y", "e", "n", "a", "b", "o", "own", "c0",
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "class",
    "template", "this", "new", "delete", "private", "public", "namespace", "operator",
    "friend", "virtual", "using", "min", "max", NULL,
};

static const char *field(fg_arena *a, const char *name)
{
    size_t n = strlen(name);
    bool bad = n == 0 || name[n - 1] == '_';
    for (int i = 0; !bad && reserved[i]; i++)
        bad = !strcmp(reserved[i], name);
    return bad ? arena_printf(a, "%s_v", name) : name;
}

/* The backend's dialect with the masked-row division
 * (docs/plan-language.md) and squares as products. */
static fg_dialect rows_dialect(const rw *w)
{
    fg_dialect dl = fg_dialects[w->tg->dialect];
    dl.div0 = "plan_div0";
    dl.square = "plan_sq";
    return dl;
}

static void leaf(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    rw *w = pr->ctx;
    const fg_plan *p = w->p;
    switch (e->kind) {
    case E_DIM:
        strbuf_printf(b, "p.%s", w->df[e->ref]);
        return;
    case E_PARAM:
        strbuf_printf(b, "p.%s", w->pf[e->ref]);
        return;
    case E_AXIS:
        if (e->ref == w->k->sched.reduced_axis && w->site == RS_ELEM) {
            w->used_c = true;
            strbuf_puts(b, "c_");
        } else if (w->r->row_axes & (1u << e->ref))
            strbuf_printf(b, "r.%s", w->af[e->ref]);
        else
            break;
        return;
    case E_TENSOR: {
        const fg_ir_tensor *t = &p->tensors[e->ref];
        if (t->kind == TENSOR_INPUT) {
            if (w->in_c[e->ref] >= 0 && w->site == RS_ELEM)
                strbuf_printf(b, "x[%d][e]", w->in_c[e->ref]);
            else if (w->in_c[e->ref] < 0)
                strbuf_printf(b, "r.%s", w->tf[e->ref]);
            else
                break;
        } else if (w->running[e->ref]) {
            const char *obj = w->site == RS_MERGE ? w->cur_obj : "s";
            if (rule_masked_minmax(t))
                strbuf_printf(b, "plan_safe(%s.%s)", obj, w->tf[e->ref]);
            else
                strbuf_printf(b, "%s.%s", obj, w->tf[e->ref]);
        } else if (w->fin[e->ref])
            strbuf_printf(b, "f.%s", w->tf[e->ref]);
        else
            strbuf_printf(b, "r.%s", w->tf[e->ref]); /* a row statement before the walk */
        return;
    }
    case E_KCONST: /* a value hoisted out of the chunk's loop (hoist_per_chunk) */
        strbuf_puts(b, e->name);
        return;
    case E_PREV:
        if (w->site == RS_MERGE)
            strbuf_printf(b, "%s.%s", w->prev_obj, w->tf[e->ref]);
        else
            strbuf_printf(b, "%s_prev_", w->tf[e->ref]);
        return;
    default:
        break;
    }
    w->errors++;
    strbuf_puts(b, "0");
}

static char *text(rw *w, rsite site, const fg_expr *e)
{
    fg_dialect dl = rows_dialect(w);
    w->site = site;
    fg_printer pr = {.a = w->a, .p = w->p, .dl = &dl, .leaf = leaf, .ctx = w, .masked_div = true};
    char *s = code_expr_text(&pr, e);
    w->errors += pr.errors;
    return s;
}

static char *plan_text(rw *w, const fg_expr *e)
{
    return comment_safe(w->a, expr_to_string(w->a, w->p, e));
}

static char *stmt_line(rw *w, int t)
{
    const fg_ir_tensor *ts = &w->p->tensors[t];
    if (ts->hoisted && ts->hoisted_from >= 0)
        return arena_printf(w->a, "%s = %s (inside %s), plan line %d", ts->name,
                            plan_text(w, ts->rhs), w->p->tensors[ts->hoisted_from].name,
                            ts->loc.line);
    return arena_printf(w->a, "%s = %s, plan line %d", ts->name, plan_text(w, ts->rhs),
                        ts->loc.line);
}

static const char *identity(fg_reduce_op op)
{
    return op == R_SUM ? "0.f" : op == R_MAX ? "-INFINITY" : "INFINITY";
}

static char *combine(rw *w, fg_reduce_op op, const char *x, const char *y)
{
    if (op == R_SUM)
        return arena_printf(w->a, "%s + %s", x, y);
    const fg_dialect *dl = &fg_dialects[w->tg->dialect];
    return arena_printf(w->a, "%s(%s, %s)", dl->fn[op == R_MAX ? F_MAX : F_MIN], x, y);
}

/* ------------------------------------------------------------------ */
/* Device hooks                                                        */
/* ------------------------------------------------------------------ */

static void state_defs(rw *w, fg_defs *defs)
{
    const fg_kernel *k = w->k;
    cb fields = {w->a, NULL, 0, 0}, init = {w->a, NULL, 0, 0}, shfl = {w->a, NULL, 0, 0};
    cb save = {w->a, NULL, 0, 0}, load = {w->a, NULL, 0, 0};
    for (int i = 0; i < k->nvalues; i++) {
        const char *n = w->tf[k->values[i].tensor];
        strbuf_printf(&fields, "  float %s; // %s\n", n,
                      comment_safe(w->a, stmt_line(w, k->values[i].tensor)));
        strbuf_printf(&init, "  s.%s = %s;\n", n, identity(k->values[i].op));
        strbuf_printf(&shfl, "  t.%s = %s;\n", n,
                      arena_printf(w->a, w->tg->shfl, arena_printf(w->a, "s.%s", n)));
        strbuf_printf(&save, "  w[%d] = s.%s;\n", i, n);
        strbuf_printf(&load, "  s.%s = %s;\n", n, arena_printf(w->a, w->tg->load_w, i));
    }
    strbuf_printf(&shfl, "  t.any = %s;\n", arena_printf(w->a, w->tg->shfl, "s.any"));
    strbuf_printf(&save, "  w[%d] = s.any;\n", k->nvalues);
    strbuf_printf(&load, "  s.any = %s;\n", arena_printf(w->a, w->tg->load_w, k->nvalues));
    fg_def_code(defs, "cuda_rows_state_fields", strbuf_str(&fields));
    fg_def_code(defs, "cuda_rows_state_init", strbuf_str(&init));
    fg_def_code(defs, "cuda_rows_state_shfl", strbuf_str(&shfl));
    fg_def_code(defs, "cuda_rows_state_save", strbuf_str(&save));
    fg_def_code(defs, "cuda_rows_state_load", strbuf_str(&load));
    fg_def_int(defs, "cuda_rows_nstate", k->nvalues + 1);
}

/* The comment of a running value: its reducer and its correction. */
static char *value_comment(rw *w, const fg_kvalue *v)
{
    const fg_plan *p = w->p;
    const fg_ir_tensor *t = &p->tensors[v->tensor];
    cb b = {w->a, NULL, 0, 0};
    strbuf_printf(&b, "%s: running %s over %s, %s", t->name, fg_reduce_names[v->op],
                  p->axes[w->k->sched.reduced_axis].name,
                  comment_safe(w->a, stmt_line(w, v->tensor)));
    if (v->corr->kind != CORR_NONE && v->corr->factor) {
        strbuf_printf(&b, "; correction %s %s", v->corr->kind == CORR_SCALE ? "*" : "+",
                      plan_text(w, v->corr->factor));
        if (v->corr->origin >= 0)
            strbuf_printf(&b, " derived from %s (plan line %d)", p->tensors[v->corr->origin].name,
                          p->tensors[v->corr->origin].loc.line);
    }
    return strbuf_str(&b);
}

/* Whether e is the same at every element of a chunk: no input element, not
 * the reduced axis (running values, params, dims, row values). */
static bool per_chunk(rw *w, const fg_expr *e)
{
    if (e->kind == E_AXIS)
        return e->ref != w->k->sched.reduced_axis;
    if (e->kind == E_TENSOR && w->p->tensors[e->ref].kind == TENSOR_INPUT)
        return w->in_c[e->ref] < 0;
    for (int i = 0; i < e->nargs; i++)
        if (!per_chunk(w, e->args[i]))
            return false;
    return true;
}

/* A copy of e with each largest part that is the same at every element (a
 * running mean S / N, a division by a running value) computed once per
 * chunk into a local, declared in *decl: ptxas does not take a division
 * with its slow path out of the guarded loop over the elements. */
static fg_expr *hoist_per_chunk(rw *w, const fg_expr *e, cb *decl, int *n)
{
    if (e->nargs > 0 && e->kind != E_WHERE && per_chunk(w, e)) {
        const char *name;
        if (w->hpfx) {
            strbuf_printf(w->hfields, "  float %s%d;\n", w->hpfx, *n);
            name = arena_printf(w->a, "h.%s%d", w->hpfx, (*n)++);
            strbuf_printf(decl, "%s = %s;\n", name, text(w, RS_ELEM, e));
        } else {
            name = arena_printf(w->a, "h%d_", (*n)++);
            strbuf_printf(decl, "const float %s = %s;\n", name, text(w, RS_ELEM, e));
        }
        fg_expr *r = expr_ref(w->a, E_KCONST, -1, name);
        r->type = T_FLOAT;
        return r;
    }
    fg_expr *c = expr_clone(w->a, e);
    for (int i = 0; i < e->nargs; i++)
        c->args[i] = hoist_per_chunk(w, e->args[i], decl, n);
    return c;
}

/* A copy of e where each exp(a - b) with b the same at every element (a
 * row's max, hoisted or not) prints as plan_exp_sub(a, b): one FFMA and the
 * exponential unit's 2^x, b * log2(e) computed once (the FlashAttention
 * fold, in rowreduce.m4), where __expf(a - b) is a subtraction, a product
 * and 2^x per element.  At an element site only. */
static fg_expr *fold_exp(rw *w, const fg_expr *e)
{
    if (e->kind == E_CALL && e->fn == F_EXP && e->nargs == 1 && e->args[0]->kind == E_SUB &&
        per_chunk(w, e->args[0]->args[1]) && !per_chunk(w, e->args[0]->args[0])) {
        const fg_expr *d = e->args[0];
        fg_expr *r = expr_ref(w->a, E_KCONST, -1,
                              arena_printf(w->a, "plan_exp_sub(%s, %s)",
                                           text(w, RS_ELEM, fold_exp(w, d->args[0])),
                                           text(w, RS_ELEM, d->args[1])));
        r->type = T_FLOAT;
        return r;
    }
    fg_expr *c = expr_clone(w->a, e);
    for (int i = 0; i < e->nargs; i++)
        c->args[i] = fold_exp(w, e->args[i]);
    return c;
}

/* Value i's contribution of one chunk (its parts that are the same at every
 * element computed first, into *pre where pre is given: see rw.hpfx),
 * added to s, each line indented by ind. */
static void chunk_step(rw *w, int i, cb *out, cb *pre, const char *ind)
{
    const fg_kvalue *v = &w->k->values[i];
    const char *n = w->tf[v->tensor];
    cb hoisted = {w->a, NULL, 0, 0};
    int nh = 0;
    /* from here: whether the element's position c_ is read (fold_exp
     * prints the folded exponential's arguments, which may read it) */
    w->used_c = false;
    const fg_expr *bi = fold_exp(w, hoist_per_chunk(w, w->r->body[i], &hoisted, &nh));
    if (nh)
        strbuf_puts(pre ? pre : out, text_indented(w->a, strbuf_str(&hoisted), pre ? 4 : (int)strlen(ind)));
    char *body = text(w, RS_ELEM, bi);
    /* the element's term first, then the sum: acc_ + (X - h) rounds the
     * centred term, (acc_ + X) - h the uncentred sum */
    if (v->op == R_SUM && (bi->kind == E_ADD || bi->kind == E_SUB))
        body = arena_printf(w->a, "(%s)", body);
    strbuf_printf(out, "%sfloat acc_ = %s;\n#pragma unroll\n%sfor (int e = 0; e < V; e++) {\n", ind,
                  identity(v->op), ind);
    if (w->used_c)
        strbuf_printf(out, "%s  const long long c_ = c0 + e;\n", ind);
    strbuf_printf(out, "%s  if (e < n) acc_ = %s;\n%s}\n%ss.%s = %s;\n", ind,
                  combine(w, v->op, "acc_", body), ind, ind, n,
                  combine(w, v->op, arena_printf(w->a, "s.%s", n), "acc_"));
}

/* One chunk's step and the merge of two states, producers first. */
static void step_defs(rw *w, fg_defs *defs)
{
    const fg_kernel *k = w->k;
    cb acc = {w->a, NULL, 0, 0}, merge = {w->a, NULL, 0, 0};
    uint64_t saved = 0;
    for (int i = 0; i < k->nvalues; i++)
        if (k->values[i].corr->kind != CORR_NONE)
            saved |= k->values[i].corr->producers;
    for (int i = 0; i < k->nvalues && i < 64; i++) {
        int t = k->values[i].tensor;
        if (t < 64 && (saved & (1ull << t)))
            strbuf_printf(&acc, "  const float %s_prev_ = s.%s;\n", w->tf[t], w->tf[t]);
    }
    strbuf_puts(&merge, "  if (b.any == 0.f) return;\n"
                        "  if (a.any == 0.f) {\n    a = b;\n    return;\n  }\n"
                        "  const plan_state o = a;\n");
    for (int i = 0; i < k->nvalues; i++) {
        const fg_kvalue *v = &k->values[i];
        const char *n = w->tf[v->tensor];
        const fg_correction *cr = v->corr;
        bool corr = cr->kind != CORR_NONE && cr->factor;
        const char *cop = cr->kind == CORR_SCALE ? "*" : "+";
        strbuf_printf(&acc, "  // %s\n  {\n", value_comment(w, v));
        if (corr)
            strbuf_printf(&acc, "    if (s.any != 0.f) s.%s %s= %s;\n", n, cop,
                          text(w, RS_ELEM, cr->factor));
        chunk_step(w, i, &acc, NULL, "    ");
        strbuf_puts(&acc, "  }\n");
        /* merge: each side corrected to the merged producers */
        const char *x = arena_printf(w->a, "o.%s", n), *y = arena_printf(w->a, "b.%s", n);
        if (corr) {
            w->prev_obj = "o";
            x = arena_printf(w->a, "o.%s %s (%s)", n, cop, text(w, RS_MERGE, cr->factor));
            w->prev_obj = "b";
            y = arena_printf(w->a, "b.%s %s (%s)", n, cop, text(w, RS_MERGE, cr->factor));
        }
        strbuf_printf(&merge, "  a.%s = %s;  // %s\n", n, combine(w, v->op, x, y),
                      corr ? "each side corrected to the merged values" : fg_reduce_names[v->op]);
    }
    strbuf_puts(&acc, "  s.any = 1.f;\n");
    fg_def_code(defs, "cuda_rows_accumulate", strbuf_str(&acc));
    fg_def_code(defs, "cuda_rows_merge", strbuf_str(&merge));
}

/* Whether e reads tensor t's current value (not its value before the step). */
static bool reads_current(const fg_expr *e, int t)
{
    if (!e)
        return false;
    if (e->kind == E_TENSOR && e->ref == t)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_current(e->args[i], t))
            return true;
    return false;
}

/* The kept forms (a row in registers) take the running values one level at
 * a time: a value's level is one more than the highest of the values its
 * body reads (0: it reads none).  Level by level, each thread adds its kept
 * chunks with the lower levels already final for the whole row, and the row
 * merges the level with the plain reducer: no correction is ever applied
 * there, and a value that only corrections read (the first power about the
 * running mean that keeps a variance's correction exact) is not computed,
 * except for the rebase of two levels below. */
static void level_defs(rw *w, fg_defs *defs)
{
    const fg_kernel *k = w->k;
    const fg_krows *r = w->r;
    const fg_plan *p = w->p;
    const int nv = k->nvalues;
    int *level = ARENA_ARRAY(w->a, int, nv + 1);
    bool *live = ARENA_ARRAY(w->a, bool, nv + 1);
    for (int i = 0; i < nv; i++) {
        const int t = k->values[i].tensor;
        for (int j = 0; j < r->nfin; j++)
            live[i] = live[i] || expr_reads(p->tensors[r->fin[j]].rhs, t);
        for (int j = 0; j < r->nout_c; j++)
            live[i] = live[i] || expr_reads(r->out_value[j], t);
        for (int j = 0; j < r->nout_row; j++)
            live[i] = live[i] || r->out_row[j] == t;
    }
    /* what live values read is live; levels from the producers up (a
     * value's body reads running values of lower levels only: nv passes) */
    for (int pass = 0; pass < nv; pass++)
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < nv; j++)
                if (j != i && expr_reads(r->body[i], k->values[j].tensor)) {
                    live[j] = live[j] || live[i];
                    if (level[j] + 1 > level[i])
                        level[i] = level[j] + 1;
                }
    /* Two levels, the first of maxima or minima: each thread takes both
     * over its own chunks before the row merges the first, its second
     * level against its own first (a softmax's sums against the thread's
     * own max), so that the exponentials run while other warps' loads are
     * still arriving instead of after the first merge.  The row then
     * merges the first level, and each thread rebases its second level to
     * the row's first by the derived correction (plan_level_rebase: the
     * merge's correction of one side, once a thread), after which the
     * second level merges plainly (gpu/rows.hpp, rr_levels_kept).  This takes
     * every value at level 0 or 1, each of level 1 with a correction, and
     * computes the values those corrections read.  A first level of sums
     * (layer norm's mean, then the variance about it) would qualify as
     * well, but its rebase measured slower on an H200 (3.09-3.13 TB/s
     * against 3.29 on 32k bf16 rows, bench/NOTES.md): the first power it
     * must carry costs more than the earlier start gains, with no
     * exponentials to hide. */
    bool rebase = nv > 0;
    bool lv0 = false, lv1 = false;
    for (int i = 0; i < nv && rebase; i++) {
        const fg_correction *cr = k->values[i].corr;
        if (level[i] == 0)
            rebase = cr->kind == CORR_NONE &&
                     (k->values[i].op == R_MAX || k->values[i].op == R_MIN),
            lv0 = true;
        else
            rebase = level[i] == 1 && cr->kind != CORR_NONE && cr->factor, lv1 = true;
        /* its correction reads the first level as merged, the second as
         * the thread had it: s holds exactly that when the rebase runs */
        for (int j = 0; j < nv && rebase; j++)
            if (level[j] == 1 && reads_current(cr->factor, k->values[j].tensor))
                rebase = false;
    }
    rebase = rebase && lv0 && lv1;
    if (rebase)
        for (int pass = 0; pass < nv; pass++)
            for (int i = 0; i < nv; i++)
                for (int j = 0; j < nv && live[i]; j++)
                    if (expr_reads(k->values[i].corr->factor, k->values[j].tensor))
                        live[j] = true;
    int nlevels = 0;
    for (int i = 0; i < nv; i++)
        if (live[i] && level[i] + 1 > nlevels)
            nlevels = level[i] + 1;
    rebase = rebase && nlevels == 2;
    cb acc = {w->a, NULL, 0, 0}, shfl = {w->a, NULL, 0, 0}, init = {w->a, NULL, 0, 0},
       reb = {w->a, NULL, 0, 0}, pre = {w->a, NULL, 0, 0}, fields = {w->a, NULL, 0, 0};
    for (int l = 0; l < nlevels; l++) {
        strbuf_printf(&acc, "  if constexpr (L == %d) {\n", l);
        strbuf_printf(&pre, "  if constexpr (L == %d) {\n", l);
        strbuf_printf(&shfl, "  if constexpr (L == %d) {\n", l);
        strbuf_printf(&init, "  if constexpr (L == %d) {\n", l);
        for (int i = 0; i < nv; i++) {
            if (!live[i] || level[i] != l)
                continue;
            const fg_kvalue *v = &k->values[i];
            const char *n = w->tf[v->tensor];
            strbuf_printf(&acc, "    // %s (%s)\n    {\n",
                          comment_safe(w->a, stmt_line(w, v->tensor)), fg_reduce_names[v->op]);
            w->hpfx = arena_printf(w->a, "v%d_", i);
            w->hfields = &fields;
            chunk_step(w, i, &acc, &pre, "      ");
            w->hpfx = NULL;
            strbuf_puts(&acc, "    }\n");
            strbuf_printf(&shfl, "    s.%s = %s;\n", n,
                          combine(w, v->op, arena_printf(w->a, "s.%s", n),
                                  arena_printf(w->a, w->tg->shfl, arena_printf(w->a, "s.%s", n))));
            strbuf_printf(&init, "    s.%s = %s;\n", n, identity(v->op));
            if (rebase && l == 1) {
                const fg_correction *cr = v->corr;
                w->prev_obj = "own";
                w->cur_obj = "s";
                strbuf_printf(&reb, "  s.%s = own.%s %s (%s);\n", n, n,
                              cr->kind == CORR_SCALE ? "*" : "+", text(w, RS_MERGE, cr->factor));
                w->cur_obj = "a";
            }
        }
        strbuf_puts(&acc, "  }\n");
        strbuf_puts(&shfl, "  }\n");
        strbuf_puts(&init, "  }\n");
        strbuf_puts(&pre, "  }\n");
    }
    for (int i = 0; i < nv; i++)
        if (!live[i])
            strbuf_printf(&acc, "  // %s: read by corrections only, not computed here\n",
                          w->tf[k->values[i].tensor]);
    if (!rebase)
        strbuf_puts(&reb, "  (void)s;\n  (void)own;\n");
    /* A first level of one value, the max or min of an input as loaded
     * (softmax's Mx = max(c: X)): on 16-bit inputs the kept forms take it
     * from the packed pairs, one instruction for two elements and no
     * unpacking (gpu/rows.hpp, rr_level_add). */
    int pair_in = -1, pair_v = -1, nl0 = 0;
    for (int i = 0; i < nv; i++)
        if (live[i] && level[i] == 0) {
            nl0++;
            pair_v = i;
        }
    if (nl0 == 1) {
        const fg_expr *b = r->body[pair_v];
        const fg_reduce_op op = k->values[pair_v].op;
        if ((op == R_MAX || op == R_MIN) && b->kind == E_TENSOR &&
            p->tensors[b->ref].kind == TENSOR_INPUT && w->in_c[b->ref] >= 0)
            pair_in = w->in_c[b->ref];
    }
    const char *pn = pair_in >= 0 ? w->tf[k->values[pair_v].tensor] : NULL;
    fg_def_int(defs, "cuda_rows_pair_input", pair_in);
    fg_def_code(defs, "cuda_rows_pair_max",
                pair_in >= 0 && k->values[pair_v].op == R_MIN ? "false" : "true");
    fg_def_code(defs, "cuda_rows_pair_set",
                pn ? arena_printf(w->a, "  s.%s = %s;\n", pn,
                                  combine(w, k->values[pair_v].op, arena_printf(w->a, "s.%s", pn), "m"))
                   : "  (void)s;\n  (void)m;\n");
    fg_def_int(defs, "cuda_rows_nlevels", nlevels);
    fg_def_code(defs, "cuda_rows_rebase", rebase ? "true" : "false");
    fg_def_code(defs, "cuda_rows_level_accumulate", strbuf_str(&acc));
    fg_def_code(defs, "cuda_rows_level_consts", strbuf_str(&pre));
    fg_def_code(defs, "cuda_rows_level_fields", fields.len ? strbuf_str(&fields) : "  float none_;\n");
    fg_def_code(defs, "cuda_rows_level_shfl", strbuf_str(&shfl));
    fg_def_code(defs, "cuda_rows_level_init", strbuf_str(&init));
    fg_def_code(defs, "cuda_rows_level_rebase", strbuf_str(&reb));
}

/* The position of axis ax among an input's indices or an output's axes. */
static int position(const fg_ir_tensor *t, int ax)
{
    if (t->kind == TENSOR_INPUT) {
        for (int i = 0; i < t->nindex; i++)
            if (t->index[i]->ref == ax)
                return i;
        return -1;
    }
    for (int i = 0; i < t->naxes; i++)
        if (t->axes[i] == ax)
            return i;
    return -1;
}

/* The row: its axes from the row number, each tensor's row offset, the
 * inputs read once per row, the row statements before the walk. */
static void row_defs(rw *w, fg_defs *defs)
{
    const fg_krows *r = w->r;
    const fg_plan *p = w->p;
    cb fields = {w->a, NULL, 0, 0}, setup = {w->a, NULL, 0, 0};
    if (r->nrow_axes)
        strbuf_puts(&setup, "  long long t_ = row;\n");
    else
        strbuf_puts(&setup, "  (void)row;\n");
    for (int j = r->nrow_axes - 1; j >= 0; j--) {
        const char *n = w->af[r->row_axis[j]];
        strbuf_printf(&fields, "  long long %s; // axis %s\n", n, p->axes[r->row_axis[j]].name);
        if (j > 0)
            strbuf_printf(&setup, "  r.%s = t_ %% p.ext[%d];\n  t_ /= p.ext[%d];\n", n, j, j);
        else
            strbuf_printf(&setup, "  r.%s = t_;\n", n);
    }
    struct {
        const char *arr;
        int n;
        const int *list;
    } groups[] = {{"in", r->nin_c, r->in_c},
                  {"rin", r->nin_row, r->in_row},
                  {"out", r->nout_c, r->out_c},
                  {"rout", r->nout_row, r->out_row}};
    for (int g = 0; g < 4; g++)
        for (int i = 0; i < groups[g].n; i++) {
            strbuf_printf(&setup, "  r.%s_off[%d] = 0", groups[g].arr, i);
            for (int j = 0; j < r->nrow_axes; j++)
                strbuf_printf(&setup, " + r.%s * p.%s_rs[%d][%d]", w->af[r->row_axis[j]],
                              groups[g].arr, i, j);
            strbuf_printf(&setup, "; // %s\n", p->tensors[groups[g].list[i]].name);
        }
    for (int i = 0; i < r->nin_row; i++) {
        const char *n = w->tf[r->in_row[i]];
        strbuf_printf(&fields, "  float %s; // input %s, read once per row\n", n,
                      p->tensors[r->in_row[i]].name);
        strbuf_printf(&setup, "  r.%s = rr_load1(p.rin[%d], p.rin_dt[%d], r.rin_off[%d]);\n", n,
                      i, i, i);
    }
    for (int i = 0; i < r->npro; i++) {
        int t = r->pro[i];
        strbuf_printf(&fields, "  float %s; // %s\n", w->tf[t], comment_safe(w->a, stmt_line(w, t)));
        strbuf_printf(&setup, "  r.%s = %s;\n", w->tf[t], text(w, RS_ROW, p->tensors[t].rhs));
    }
    fg_def_code(defs, "cuda_rows_row_fields", strbuf_str(&fields));
    fg_def_code(defs, "cuda_rows_row_setup", strbuf_str(&setup));
}

/* A copy of the element output e where each masked-row division by a value
 * of the row (a running sum, a row statement) prints as plan_div0_r(x, y,
 * f.rN_), the reciprocal f.rN_ computed once per row in plan_finish (its
 * field and statement appended to *fields and *fin): the element loop of
 * the second walk then has a product, not a reciprocal per chunk. */
static fg_expr *hoist_rcp(rw *w, const fg_expr *e, cb *fields, cb *fin, int *n)
{
    if (e->kind == E_DIV && rule_masked_div(w->p, e) && per_chunk(w, e->args[1]) &&
        !per_chunk(w, e->args[0])) {
        const char *name = arena_printf(w->a, "r%d_", (*n)++);
        const char *y = text(w, RS_ROW, e->args[1]);
        strbuf_printf(fields, "  float %s; // 1 / (%s)\n", name, comment_safe(w->a, y));
        strbuf_printf(fin, "  f.%s = %s(%s);\n", name, w->tg->rcp, y);
        fg_expr *x = fold_exp(w, hoist_rcp(w, e->args[0], fields, fin, n));
        fg_expr *r = expr_ref(w->a, E_KCONST, -1,
                              arena_printf(w->a, "plan_div0_r(%s, %s, f.%s)",
                                           text(w, RS_ELEM, x), text(w, RS_ELEM, e->args[1]),
                                           name));
        r->type = T_FLOAT;
        return r;
    }
    fg_expr *c = expr_clone(w->a, e);
    for (int i = 0; i < e->nargs; i++)
        c->args[i] = hoist_rcp(w, e->args[i], fields, fin, n);
    return c;
}

/* After the walk: the row statements, the row outputs, the element outputs. */
static void epilogue_defs(rw *w, fg_defs *defs)
{
    const fg_krows *r = w->r;
    const fg_plan *p = w->p;
    cb fields = {w->a, NULL, 0, 0}, fin = {w->a, NULL, 0, 0}, store = {w->a, NULL, 0, 0};
    cb elem = {w->a, NULL, 0, 0};
    for (int i = 0; i < r->nfin; i++) {
        int t = r->fin[i];
        const char *line = comment_safe(w->a, stmt_line(w, t));
        strbuf_printf(&fields, "  float %s; // %s\n", w->tf[t], line);
        strbuf_printf(&fin, "  f.%s = %s;  // %s\n", w->tf[t], text(w, RS_ROW, p->tensors[t].rhs),
                      line);
    }
    /* the element outputs first: their reciprocals join plan_fin */
    int nrcp = 0;
    const fg_expr **outv = ARENA_ARRAY(w->a, const fg_expr *, r->nout_c + 1);
    for (int i = 0; i < r->nout_c; i++)
        outv[i] = fold_exp(w, hoist_rcp(w, r->out_value[i], &fields, &fin, &nrcp));
    if (!r->nfin && !nrcp)
        strbuf_puts(&fields, "  float unused_;\n");
    strbuf_puts(&fin, "  (void)f;\n  (void)s;\n  (void)p;\n  (void)r;\n");
    for (int i = 0; i < r->nout_row; i++) {
        int t = r->out_row[i];
        /* a running output is its final value (a max or min stays +-inf) */
        const char *v = w->running[t] ? arena_printf(w->a, "s.%s", w->tf[t])
                                      : arena_printf(w->a, "f.%s", w->tf[t]);
        strbuf_printf(&store, "  if (p.rout[%d]) rr_store1(p.rout[%d], p.rout_dt[%d], r.rout_off[%d], %s);  // %s\n",
                      i, i, i, i, v, p->tensors[t].name);
    }
    strbuf_puts(&store, "  (void)f;\n  (void)s;\n  (void)p;\n  (void)r;\n");
    if (r->nout_c) {
        bool used = false;
        cb vals = {w->a, NULL, 0, 0};
        for (int i = 0; i < r->nout_c; i++) {
            w->used_c = false;
            char *v = text(w, RS_ELEM, outv[i]);
            used |= w->used_c;
            strbuf_printf(&vals, "    y[%d][e] = %s;  // %s\n", i, v,
                          comment_safe(w->a, stmt_line(w, r->out_c[i])));
        }
        strbuf_puts(&elem, "#pragma unroll\n  for (int e = 0; e < V; e++) {\n");
        if (used)
            strbuf_puts(&elem, "    const long long c_ = c0 + e;\n");
        strbuf_puts(&elem, strbuf_str(&vals));
        strbuf_puts(&elem, "  }\n");
    }
    strbuf_puts(&elem, "  (void)y;\n  (void)x;\n  (void)c0;\n  (void)f;\n  (void)s;\n  (void)p;\n  (void)r;\n");
    fg_def_code(defs, "cuda_rows_fin_fields", strbuf_str(&fields));
    fg_def_code(defs, "cuda_rows_finish", strbuf_str(&fin));
    fg_def_code(defs, "cuda_rows_store_row", strbuf_str(&store));
    fg_def_code(defs, "cuda_rows_elementwise", strbuf_str(&elem));
}

/* ------------------------------------------------------------------ */
/* Host                                                                */
/* ------------------------------------------------------------------ */

static void params_defs(rw *w, fg_defs *defs)
{
    const fg_plan *p = w->p;
    cb fields = {w->a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++)
        strbuf_printf(&fields, "  long long %s; // dim %s\n", w->df[i], p->dims[i].name);
    for (int i = 0; i < p->nparams; i++)
        strbuf_printf(&fields, "  %s %s; // param %s\n",
                      p->params[i].dtype == DT_INT ? "long long" : "float", w->pf[i],
                      p->params[i].name);
    fg_def_code(defs, "cuda_rows_params_fields", strbuf_str(&fields));
}

/* The entry: the CPU entry's checks, then plan_params from the arguments. */
static int host_defs(rw *w, fg_defs *defs, const char *entry, fg_diag *d)
{
    const fg_krows *r = w->r;
    const fg_plan *p = w->p;
    const char *const *tn, *const *dn, *const *pn;
    char *check = lower_c_validation(w->a, w->k, entry, d, &tn, &dn, &pn);
    if (!check)
        return -1;
    fg_def_code(defs, "cuda_rows_validate", text_indented(w->a, check, 2));
    const int cax = w->k->sched.reduced_axis;
    const char *cdim = dn[p->axes[cax].dim];
    cb set = {w->a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++)
        strbuf_printf(&set, "  p.%s = %s;\n", w->df[i], dn[i]);
    for (int i = 0; i < p->nparams; i++)
        strbuf_printf(&set, "  p.%s = %s;\n", w->pf[i], pn[i]);
    strbuf_printf(&set, "  p.ncols = %s;\n  p.rows = 1", cdim);
    for (int j = 0; j < r->nrow_axes; j++)
        strbuf_printf(&set, " * (long long)%s", dn[p->axes[r->row_axis[j]].dim]);
    strbuf_puts(&set, ";\n");
    for (int j = 0; j < r->nrow_axes; j++)
        strbuf_printf(&set, "  p.ext[%d] = %s;\n", j, dn[p->axes[r->row_axis[j]].dim]);
    struct {
        const char *arr;
        int n;
        const int *list;
        bool along, out;
    } groups[] = {{"in", r->nin_c, r->in_c, true, false},
                  {"rin", r->nin_row, r->in_row, false, false},
                  {"out", r->nout_c, r->out_c, true, true},
                  {"rout", r->nout_row, r->out_row, false, true}};
    for (int g = 0; g < 4; g++)
        for (int i = 0; i < groups[g].n; i++) {
            int t = groups[g].list[i];
            const fg_ir_tensor *ts = &p->tensors[t];
            const char *a = groups[g].arr, *n = tn[t];
            strbuf_printf(&set, "  p.%s[%d] = args->%s.data;\n", a, i, n);
            if (g != 0)
                strbuf_printf(&set, "  p.%s_dt[%d] = (int)args->%s.dtype;\n", a, i, n);
            if (groups[g].along)
                strbuf_printf(&set, "  p.%s_sc[%d] = args->%s.stride[%d];\n", a, i, n,
                              position(ts, cax));
            for (int j = 0; j < r->nrow_axes; j++) {
                int pos = position(ts, r->row_axis[j]);
                if (pos >= 0)
                    strbuf_printf(&set, "  p.%s_rs[%d][%d] = args->%s.stride[%d];\n", a, i, j, n,
                                  pos);
            }
        }
    /* one dtype for the inputs read per element: the kernels' template */
    const char *first = tn[r->in_c[0]];
    strbuf_printf(&set, "  const fg_dtype dt_in = args->%s.dtype;\n", first);
    for (int i = 1; i < r->nin_c; i++)
        strbuf_printf(&set,
                      "  if (args->%s.dtype != dt_in)\n"
                      "    return fg_set_error(FG_ERR_DTYPE, \"%s: %s is %%s and %s %%s: the row "
                      "kernels read the inputs along %s in one dtype\", fg_dtype_name(dt_in), "
                      "fg_dtype_name(args->%s.dtype));\n",
                      tn[r->in_c[i]], entry, first, tn[r->in_c[i]], p->axes[cax].name,
                      tn[r->in_c[i]]);
    fg_def_code(defs, "cuda_rows_set", strbuf_str(&set));
    return 0;
}

/* The plan's statements, as comment lines of the hooks. */
static char *chain(rw *w)
{
    cb b = {w->a, NULL, 0, 0};
    for (int o = 0; o < w->p->norder; o++) {
        int t = w->p->order[o];
        if (t >= 0 && t < w->p->ntensors && w->p->tensors[t].rhs)
            strbuf_printf(&b, "//   %s\n", comment_safe(w->a, stmt_line(w, t)));
    }
    return strbuf_str(&b);
}

static int lower_rows(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                      const rows_target *tg, fg_diag *d)
{
    const fg_plan *p = k->plan;
    if (!k->rows_ok) {
        diag_error(d, k->rows_why_loc, "plan '%s' does not fit the %s row kernels: %s", p->name,
                   tg->dialect == DIALECT_HIP ? "HIP" : "CUDA", k->rows_why);
        return -1;
    }
    /* The inputs along the axis that a running value reads come first (the
     * first walk loads and the kept forms keep only those); the others (a
     * layer norm's weights) are read by the second walk alone. */
    fg_krows *rr = ARENA_NEW(a, fg_krows);
    *rr = k->rows;
    int nin1 = 0, n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < k->rows.nin_c; i++) {
            bool first = false;
            for (int j = 0; j < k->nvalues; j++)
                first = first || expr_reads(k->rows.body[j], k->rows.in_c[i]);
            if (first == (pass == 0)) {
                rr->in_c[n++] = k->rows.in_c[i];
                nin1 += first;
            }
        }
    rw w = {.a = a, .tg = tg, .k = k, .p = p, .r = rr, .cur_obj = "a"};
    w.tf = ARENA_ARRAY(a, const char *, p->ntensors + 1);
    w.af = ARENA_ARRAY(a, const char *, p->naxes + 1);
    w.df = ARENA_ARRAY(a, const char *, p->ndims + 1);
    w.pf = ARENA_ARRAY(a, const char *, p->nparams + 1);
    w.in_c = ARENA_ARRAY(a, int, p->ntensors + 1);
    w.running = ARENA_ARRAY(a, bool, p->ntensors + 1);
    w.fin = ARENA_ARRAY(a, bool, p->ntensors + 1);
    for (int i = 0; i < p->ntensors; i++) {
        w.tf[i] = field(a, p->tensors[i].name);
        w.in_c[i] = -1;
    }
    for (int i = 0; i < p->naxes; i++)
        w.af[i] = field(a, p->axes[i].name);
    for (int i = 0; i < p->ndims; i++)
        w.df[i] = field(a, p->dims[i].name);
    for (int i = 0; i < p->nparams; i++)
        w.pf[i] = field(a, p->params[i].name);
    for (int i = 0; i < rr->nin_c; i++)
        w.in_c[rr->in_c[i]] = i;
    for (int i = 0; i < k->nvalues; i++)
        w.running[k->values[i].tensor] = true;
    for (int i = 0; i < k->rows.nfin; i++)
        w.fin[k->rows.fin[i]] = true;
    *template_rel = tg->tmpl;
    const fg_krows *r = rr;
    fg_def_str(defs, "cuda_rows_ns", arena_printf(a, "rows_%s", p->name));
    fg_def_int(defs, "cuda_rows_nin", r->nin_c);
    fg_def_int(defs, "cuda_rows_nin1", nin1);
    fg_def_int(defs, "cuda_rows_nrin", r->nin_row);
    fg_def_int(defs, "cuda_rows_nout", r->nout_c);
    fg_def_int(defs, "cuda_rows_nrout", r->nout_row);
    fg_def_int(defs, "cuda_rows_naxes", r->nrow_axes);
    fg_def_str(defs, "cuda_rows_axis", p->axes[k->sched.reduced_axis].name);
    fg_def_code(defs, "cuda_rows_chain", chain(&w));
    params_defs(&w, defs);
    state_defs(&w, defs);
    step_defs(&w, defs);
    level_defs(&w, defs);
    row_defs(&w, defs);
    epilogue_defs(&w, defs);
    if (host_defs(&w, defs, arena_printf(a, tg->entry, p->name), d) < 0)
        return -1;
    if (w.errors) {
        diag_internal(d, p->name_loc, "lower_rows: an expression the row kernels cannot read");
        return -1;
    }
    return 0;
}

int lower_cuda_rows(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                    fg_diag *d)
{
    return lower_rows(a, k, defs, template_rel, &rows_cuda, d);
}

int lower_hip_rows(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                   fg_diag *d)
{
    return lower_rows(a, k, defs, template_rel, &rows_hip, d);
}
