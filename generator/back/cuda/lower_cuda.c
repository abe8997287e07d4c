/* lower_cuda.c - the CUDA backend: the kernel model as the hooks of the
 * sm_80 tensor-core attention skeletons (templates/cuda/sm80/).
 *
 * The kernel bodies are hand-written skeletons in templates/cuda/sm80/; the
 * kernel model (kernel.c) decided that the plan is attention as they
 * compute it and bound its roles.  This file prints what they call per
 * plan: the per-launch parameter struct, the score in the exp2 domain with
 * its hoisted constants, the mask as `visible`, the key range and tile
 * classes from masks.c, the corrections of the running state as derived,
 * the epilogue, and the host entry point's validation.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"
#include "lower_cuda_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */



/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const char *const cu_reserved[] = {
    "M", "N", "Hq", "Hkv", "off", "auto", "break", "case", "char", "const", "continue",
    "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "bool", "true", "false", "class", "template", "this", "new", "delete", "private",
    "public", "namespace", "operator", "friend", "virtual", "using", "min", "max", "p", NULL,
};

static const char *field_name(fg_arena *a, const char *name)
{
    size_t n = strlen(name);
    bool bad = n == 0 || name[n - 1] == '_';
    for (int i = 0; !bad && cu_reserved[i]; i++)
        bad = !strcmp(cu_reserved[i], name);
    return bad ? arena_printf(a, "%s_v", name) : name;
}


/* The positions of extra input number i that every read in e indexes by
 * the batch or the head axis alone: folded into the input's offset once
 * per CTA (plan_head_setup). */
static void aux_folds(cu *c, int i, const fg_expr *e)
{
    if (e->kind == E_TENSOR && e->ref == c->at->aux[i])
        for (int k = 0; k < e->nargs && k < FG_MAX_INDICES; k++) {
            const fg_expr *x = e->args[k];
            int ax = x->kind == E_AXIS && (x->ref == c->at->ax_b || x->ref == c->at->ax_h)
                         ? x->ref
                         : -1;
            c->afold[i][k] = c->afold[i][k] == -2 || c->afold[i][k] == ax ? ax : -1;
        }
    for (int k = 0; k < e->nargs; k++)
        aux_folds(c, i, e->args[k]);
}

int aux_index(const cu *c, int t)
{
    for (int i = 0; i < c->at->naux; i++)
        if (c->at->aux[i] == t)
            return i;
    return -1;
}

static void cu_names(cu *c)
{
    const fg_plan *p = c->p;
    c->dfield = ARENA_ARRAY(c->a, const char *, p->ndims + 1);
    c->pfield = ARENA_ARRAY(c->a, const char *, p->nparams + 1);
    for (int i = 0; i < p->ndims; i++) {
        if (i == c->at->dim_m)
            c->dfield[i] = "M";
        else if (i == c->at->dim_n)
            c->dfield[i] = "N";
        else if (i == c->at->dim_h)
            c->dfield[i] = "Hq";
        else if (i == c->at->dim_hkv)
            c->dfield[i] = "Hkv";
        else
            c->dfield[i] = field_name(c->a, p->dims[i].name);
    }
    for (int i = 0; i < p->nparams; i++) {
        const char *f = field_name(c->a, p->params[i].name);
        for (int k = 0; k < p->ndims; k++)
            if (!strcmp(c->dfield[k], f))
                f = arena_printf(c->a, "%s_v", f);
        c->pfield[i] = f;
    }
    /* extra inputs: fields NAME_ (data), NAME_w_ and NAME_m_ (its dtype, for
     * plan_aux_float), NAME_s_[] and NAME_o_;
     * no dim or param field ends in '_' (field_name) */
    c->afield = ARENA_ARRAY(c->a, const char *, p->ntensors + 1);
    c->afold = ARENA_ARRAY(c->a, fold_row, c->at->naux + 1);
    for (int i = 0; i < c->at->naux; i++) {
        c->afield[c->at->aux[i]] = p->tensors[c->at->aux[i]].name;
        for (int k = 0; k < FG_MAX_INDICES; k++)
            c->afold[i][k] = -2; /* no read seen yet */
        aux_folds(c, i, c->at->score);
        if (c->at->cond)
            aux_folds(c, i, c->at->cond);
        if (c->at->weight)
            aux_folds(c, i, c->at->weight);
    }
}

/* ------------------------------------------------------------------ */
/* Expressions: device code, host code, the exp2 domain                */
/* ------------------------------------------------------------------ */

/* Device leaves: dims and params from plan_params p, the row, key and head
 * indices i, j, h, Q.K^T as qk, hoisted constants as p.cN_ / p.hcN_. */
void leaf_device(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    cu *c = pr->ctx;
    const fg_kattn *at = c->at;
    switch (e->kind) {
    case E_DIM:
        strbuf_printf(b, "p.%s", c->dfield[e->ref]);
        break;
    case E_AXIS:
        strbuf_puts(b, e->ref == at->ax_m   ? "i"
                       : e->ref == at->ax_n ? "j"
                       : e->ref == at->ax_h ? "h"
                       : e->ref == at->ax_b ? "p.b_"
                                            : c->p->axes[e->ref].name);
        break;
    case E_PARAM:
        if (c->p->params[e->ref].index_axis >= 0)
            strbuf_printf(b, "plan_%s_at(p, h)", c->pfield[e->ref]);
        else
            strbuf_printf(b, "p.%s", c->pfield[e->ref]);
        break;
    case E_TENSOR: {
        int x = aux_index(c, e->ref);
        if (x < 0) {
            strbuf_puts(b, e->ref == at->s ? "qk" : c->p->tensors[e->ref].name);
            break;
        }
        /* an extra input: its load at the indices not folded per CTA */
        fg_printer sub = *pr;
        sub.leaf = leaf_device;
        sub.ctx = c;
        strbuf_printf(b, "plan_%s_at(p", c->afield[e->ref]);
        for (int k = 0; k < e->nargs; k++)
            if (c->afold[x][k] < 0) {
                strbuf_puts(b, ", ");
                code_expr(&sub, b, e->args[k], 0);
            }
        strbuf_puts(b, ")");
        break;
    }
    case E_KCONST:
        strbuf_printf(b, c->k->consts[e->ref].per_head ? "p.hc%d_" : "p.c%d_", e->ref);
        break;
    default:
        pr->errors++;
        strbuf_puts(b, "0");
        break;
    }
}

/* Host leaves (defaults, hoisted constants): dims as double where the
 * expression is float. */
static void leaf_host(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    cu *c = pr->ctx;
    if (e->kind == E_DIM) {
        strbuf_printf(b, e->type != T_INT ? "(double)p.%s" : "p.%s", c->dfield[e->ref]);
        return;
    }
    if (e->kind == E_PARAM && c->p->params[e->ref].index_axis < 0) {
        strbuf_printf(b, "p.%s", c->pfield[e->ref]);
        return;
    }
    leaf_device(pr, b, e);
}

char *cu_text(cu *c, const fg_expr *e, bool host)
{
    fg_printer pr = {.a = c->a, .p = c->p, .dl = &fg_dialects[host ? DIALECT_HOST : c->dialect],
                     .leaf = host ? leaf_host : leaf_device, .ctx = c};
    return code_expr_text(&pr, e);
}

/* Plan syntax of an expression, for comments. */
char *plan_expr(cu *c, const fg_expr *e)
{
    return comment_safe(c->a, expr_to_string(c->a, c->p, e));
}

/* A correction or epilogue term in the exp2 domain of the kernels, whose
 * running max holds Mx * log2(e): the names the hook's arguments bind. */
typedef struct l2ctx {
    cu *c;
    const char *prev, *cur; /* Mx_prev and Mx, already times log2(e) (base e) */
    const char *sum;        /* the running sum L */
    bool base2;             /* a plan in base 2: the kernels' domain is the plan's */
} l2ctx;

static void leaf_l2(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    l2ctx *x = pr->ctx;
    const fg_kattn *at = x->c->at;
    if ((e->kind == E_PREV || e->kind == E_TENSOR) && e->ref == at->mx)
        strbuf_printf(b, x->base2 ? "%s" : "(%s * 0.6931471805599453f)",
                      e->kind == E_PREV ? x->prev : x->cur);
    else if (e->kind == E_TENSOR && e->ref == at->l)
        strbuf_puts(b, x->sum);
    else {
        pr->ctx = x->c;
        leaf_device(pr, b, e);
        pr->ctx = x;
    }
}

/* Times log2(e): exact for sums and differences of the running max. */
static void print_l2(fg_printer *pr, fg_strbuf *b, const fg_expr *e, int prec)
{
    l2ctx *x = pr->ctx;
    const fg_kattn *at = x->c->at;
    if (x->base2) { /* the plan's domain is the kernels' */
        code_expr(pr, b, e, prec);
    } else if ((e->kind == E_PREV || e->kind == E_TENSOR) && e->ref == at->mx) {
        strbuf_puts(b, e->kind == E_PREV ? x->prev : x->cur);
    } else if (e->kind == E_ADD || e->kind == E_SUB) {
        bool paren = code_prec(e->kind) < prec;
        strbuf_puts(b, paren ? "(" : "");
        print_l2(pr, b, e->args[0], 4);
        strbuf_puts(b, e->kind == E_ADD ? " + " : " - ");
        print_l2(pr, b, e->args[1], 5);
        strbuf_puts(b, paren ? ")" : "");
    } else if (e->kind == E_NEG) {
        strbuf_puts(b, "-");
        print_l2(pr, b, e->args[0], 7);
    } else if (e->kind == E_CALL && e->fn == F_LOG) {
        strbuf_puts(b, pr->dl->fn[F_LOG2]);
        strbuf_puts(b, "(");
        code_expr(pr, b, e->args[0], 0);
        strbuf_puts(b, ")");
    } else {
        strbuf_puts(b, prec > 5 ? "(" : "");
        code_expr(pr, b, e, 5);
        strbuf_puts(b, " * 1.44269504f");
        strbuf_puts(b, prec > 5 ? ")" : "");
    }
}

/* A derived correction factor as device code: exp(X) becomes fa_ex2 of X
 * times log2(e); what is not exp(...) prints as it is. */
static char *correction_text(cu *c, const fg_expr *factor, const char *prev, const char *cur)
{
    l2ctx x = {c, prev, cur, "l", c->at->base2};
    fg_printer pr = {.a = c->a, .p = c->p, .dl = &fg_dialects[c->dialect], .leaf = leaf_l2,
                     .ctx = &x};
    fg_strbuf b = {c->a, NULL, 0, 0};
    if (factor->kind == E_CALL && factor->fn == (x.base2 ? F_EXP2 : F_EXP)) {
        strbuf_puts(&b, "fa_ex2(");
        print_l2(&pr, &b, factor->args[0], 0);
        strbuf_puts(&b, ")");
    } else
        code_expr(&pr, &b, factor, 0);
    return strbuf_str(&b);
}

/* The value per row besides O (the log-sum-exp LSE = Mx + log(L), the max
 * or the sum themselves, ...) from the kernels' m and l: in base e, where
 * m holds Mx times log2(e), a term of m in the exp2 domain and then times
 * ln(2); otherwise as written, m read as Mx. */
static char *lse_text(cu *c, const fg_expr *e)
{
    l2ctx x = {c, "m", "m", "l", c->at->base2};
    fg_printer pr = {.a = c->a, .p = c->p, .dl = &fg_dialects[c->dialect], .leaf = leaf_l2,
                     .ctx = &x};
    fg_strbuf b = {c->a, NULL, 0, 0};
    if (x.base2 || !expr_reads(e, c->at->mx)) {
        code_expr(&pr, &b, e, 0);
        return strbuf_str(&b);
    }
    strbuf_puts(&b, "(");
    print_l2(&pr, &b, e, 0);
    strbuf_puts(&b, ") * 0.6931471805599453f");
    return strbuf_str(&b);
}

static char *mask_print_cuda(void *ctx, const fg_expr *e)
{
    return cu_text(ctx, e, false);
}

/* The statement as written on its plan line, for comments. */
char *plan_line(cu *c, int t)
{
    const fg_ir_tensor *ts = &c->p->tensors[t];
    const char *rhs = ts->rhs ? expr_to_string(c->a, c->p, ts->rhs) : "";
    return comment_safe(c->a, arena_printf(c->a, "%s = %s, plan line %d", ts->name, rhs,
                                           ts->loc.line));
}
/* ------------------------------------------------------------------ */
/* The definitions                                                     */
/* ------------------------------------------------------------------ */

/* What an epilogue statement reads in a row with no visible key: the
 * masked-row rules (rules.c) give the max 0 and the sum 0; NAN when it
 * reads anything else. */
typedef struct masked_env {
    const fg_kattn *at;
} masked_env;

static double masked_leaf(void *ctx, const fg_expr *e)
{
    const masked_env *m = ctx;
    if (e->kind == E_TENSOR && (e->ref == m->at->mx || e->ref == m->at->l))
        return 0.0;
    return NAN;
}

/* e with the masked-row rule for divisions applied: a float division by a
 * reduction that is 0 in a row with no key is 0 there (rules.c). */
static fg_expr *masked_divs(cu *c, const fg_expr *e, const fg_eval_env *env, int depth)
{
    fg_expr *n = expr_clone(c->a, e);
    for (int i = 0; i < e->nargs && depth < FG_MAX_EXPR_DEPTH; i++)
        n->args[i] = masked_divs(c, e->args[i], env, depth + 1);
    if (e->kind == E_DIV && rule_masked_div(c->p, e) && expr_eval(n->args[1], env) == 0.0) {
        fg_expr *z = expr_num(c->a, 0.0);
        z->type = T_FLOAT;
        return z;
    }
    return n;
}

/* Value k per row in a row that sees no key: a running value output as it
 * is keeps its identity there (the max -inf, the sum 0); the masked-row
 * rules hold where epilogue statements read them (the max and the sum 0, a
 * division by a sum that is 0 gives 0).  NaN where that is no number. */
static double row_masked_value(cu *c, int k)
{
    const fg_kattn *at = c->at;
    masked_env m = {at};
    fg_eval_env env = {masked_leaf, &m};
    int t = at->row_t[k];
    return t == at->mx  ? -INFINITY
           : t == at->l ? 0.0
                        : expr_eval(masked_divs(c, at->row_e[k], &env, 0), &env);
}

/* Value k per row besides O as plan_rowval returns it: its value in a
 * row that sees no key first, where that is a number. */
static char *row_value_text(cu *c, int k)
{
    const fg_expr *e = c->at->row_e[k];
    double masked = row_masked_value(c, k);
    fg_strbuf b = {c->a, NULL, 0, 0};
    if (!isnan(masked)) {
        strbuf_puts(&b, "(l == 0.f) ? ");
        print_float(&b, masked, "f");
        strbuf_puts(&b, " : ");
    }
    strbuf_puts(&b, lse_text(c, e));
    return strbuf_str(&b);
}

/* The epilogue hooks: O's scale 1 / L and the values per row, each with
 * its value in a row that sees no key, printed from the plan's
 * statements; and the entry's checks of those values' tensors. */
static void epilogue_defs(cu *c, fg_defs *defs)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    cb store = {c->a, NULL, 0, 0}, setup = {c->a, NULL, 0, 0}, any = {c->a, NULL, 0, 0};
    for (int k = 0; k < at->nrows; k++) {
        const char *name = p->tensors[at->row_t[k]].name;
        cb_printf(&store, "  if (k == %d) return %s;  // %s\n", k, row_value_text(c, k),
                  plan_line(c, at->row_t[k]));
        cb_printf(&setup,
                  "  if ((st = fg_check_row_output(&args->%s, plan_entry, \"%s\", B, Hq, M, "
                  "&rowvals.p[%d])) != FG_OK)\n    return st;\n",
                  name, name, k);
        cb_printf(&any, "%sr.p[%d] != nullptr", k ? " || " : "", k);
    }
    fg_def_int(defs, "cuda_nrowvals", at->nrows);
    cb_puts(&store, "  return 0.f;\n");
    fg_def_code(defs, "cuda_rowvals_value", cb_str(&store));
    fg_def_code(defs, "cuda_rowvals_setup", cb_str(&setup));
    fg_def_str(defs, "cuda_rowvals_any", at->nrows ? cb_str(&any) : "false");
    if (!at->softmax) { /* O = sum(n: W * V) as it is */
        fg_def_str(defs, "cuda_sum_name", "(none: no softmax chain)");
        fg_def_str(defs, "cuda_out_scale", "1.f");
        return;
    }
    /* O_sum / L (match_epilogue); or O = sum(n: P / L * V) itself (the
     * FlashAttention-1 form), which is 0, its identity, in a row without
     * keys; or independent chains' terms c * O_sum / L, each a division by
     * a running sum (kernel_chains.c), 0 there by the same rule */
    const fg_expr *o = p->tensors[at->o].rhs;
    fg_def_str(defs, "cuda_sum_name", p->tensors[at->l].name);
    fg_def_str(defs, "cuda_out_scale",
               at->o == at->osum || at->nchains > 1 || rule_masked_div(p, o)
                   ? "(l == 0.f) ? 0.f : 1.0f / l"
                   : "1.0f / l");
}

/* "[b, n]": a tensor's declared indices, for comments. */
static char *decl_index(cu *c, const fg_ir_tensor *t)
{
    cb b = {c->a, NULL, 0, 0};
    for (int k = 0; k < t->nindex; k++)
        cb_printf(&b, "%s%s", k ? ", " : "[", expr_to_string(c->a, c->p, t->index[k]));
    cb_puts(&b, t->nindex ? "]" : "");
    return cb_str(&b);
}

/* Whether e reads an extra input. */
bool reads_aux(const cu *c, const fg_expr *e)
{
    if (e->kind == E_TENSOR && aux_index(c, e->ref) >= 0)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_aux(c, e->args[i]))
            return true;
    return false;
}

/* Whether e reads axis ax (in an extra input's index too; not in the
 * indices of a statement, which are its own axes). */
bool reads_axis(const cu *c, const fg_expr *e, int ax)
{
    if (e->kind == E_AXIS && e->ref == ax)
        return true;
    if (e->kind == E_TENSOR && aux_index(c, e->ref) < 0)
        return false;
    for (int i = 0; i < e->nargs; i++)
        if (reads_axis(c, e->args[i], ax))
            return true;
    return false;
}

/* Whether e has one value for every head: it reads the head axis nowhere
 * (an extra input's index included), no parameter vector (read at the head)
 * and no per-head constant.  A mask with span atoms that is (ids per batch
 * and key) has its launch's workspace made once a batch for all heads
 * (plan_span_head_free). */
static bool head_free(const cu *c, const fg_expr *e)
{
    if (e->kind == E_AXIS && e->ref == c->at->ax_h)
        return false;
    if (e->kind == E_PARAM && c->p->params[e->ref].index_axis >= 0)
        return false;
    if (e->kind == E_KCONST && c->k->consts[e->ref].per_head)
        return false;
    if (e->kind == E_TENSOR && aux_index(c, e->ref) < 0)
        return false; /* not an extra input: not a span's side (conservative) */
    for (int i = 0; i < e->nargs; i++)
        if (!head_free(c, e->args[i]))
            return false;
    return true;
}

/* The clamp of a hook that reads an extra input: padding rows and keys
 * read the last real ones. */
const char *aux_clamp_text(const cu *c)
{
    const char *imin = fg_dialects[c->dialect].int_min;
    return arena_printf(c->a,
                        "  // extra inputs are read in range: a padding row or key "
                        "reads the last real one\n"
                        "  i = %s(i, p.M - 1);\n  j = %s(j, p.N - 1);\n",
                        imin, imin);
}

/* The extra inputs the score, the mask and the weight read: their fields,
 * their offset per CTA (the positions indexed by the batch or head axis
 * alone), one load function each, and the clamp of padding rows and keys
 * onto real ones. */
static void aux_defs(cu *c, fg_defs *defs, cb *fields, cb *hs)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    bool uses_b = reads_axis(c, at->score, at->ax_b) ||
                  (at->cond && reads_axis(c, at->cond, at->ax_b)) ||
                  (at->weight && reads_axis(c, at->weight, at->ax_b));
    if (uses_b) {
        cb_puts(fields, "    int b_; /* this CTA's batch (plan_head_setup) */\n");
        cb_puts(hs, "    p.b_ = b;\n");
    }
    cb fns = {c->a, NULL, 0, 0}, set = {c->a, NULL, 0, 0};
    for (int i = 0; i < at->naux; i++) {
        const fg_ir_tensor *t = &p->tensors[at->aux[i]];
        const char *f = c->afield[at->aux[i]];
        const int rank = plan_tensor_rank(t);
        const bool is_int = t->dtype == DT_INT;
        const char *decl = comment_safe(c->a, arena_printf(c->a, "input %s%s: %s", t->name,
                                                           decl_index(c, t),
                                                           is_int ? "i32" : "f32, bf16 or fp16"));
        cb_printf(fields, "    const void *%s_; /* %s, device memory */\n", f, decl);
        if (!is_int)
            cb_printf(fields,
                      "    int %s_w_; /* its 16-bit words an element: 2 (f32) or 1 */\n"
                      "    unsigned %s_m_[2]; /* all ones if f32, if fp16 (plan_aux_dtype) */\n",
                      f, f);
        cb_printf(fields,
                  "    long long %s_s_[%d]; /* its strides, in elements */\n"
                  "    long long %s_o_; /* the offset of this CTA's batch and head */\n",
                  f, rank, f);
        cb_printf(&set, "  p.%s_ = args->%s.data;\n", f, t->name);
        if (!is_int)
            cb_printf(&set, "  plan_aux_dtype(args->%s.dtype, &p.%s_w_, p.%s_m_);\n", t->name, f,
                      f);
        for (int k = 0; k < rank; k++)
            cb_printf(&set, "  p.%s_s_[%d] = args->%s.stride[%d];\n", f, k, t->name, k);
        cb folded = {c->a, NULL, 0, 0}, params = {c->a, NULL, 0, 0}, off = {c->a, NULL, 0, 0};
        for (int k = 0; k < rank; k++) {
            int ax = c->afold[i][k];
            if (ax >= 0)
                cb_printf(&folded, " + (long long)%s * p.%s_s_[%d]", ax == at->ax_b ? "b" : "h", f,
                          k);
            else {
                cb_printf(&params, ", long long x%d", k);
                cb_printf(&off, " + x%d * p.%s_s_[%d]", k, f, k);
            }
        }
        cb_printf(hs, "    p.%s_o_ = 0%s;\n", f, folded.len ? cb_str(&folded) : "");
        cb_printf(&fns,
                  "/* %s: read by the score, the mask or the weight; the entry checked "
                  "every read is in range */\n"
                  "__device__ __forceinline__ %s plan_%s_at(const plan_params& p%s) {\n"
                  "  return plan_aux_%s(p.%s_, %sp.%s_o_%s);\n}\n",
                  decl, is_int ? "int" : "float", f, params.len ? cb_str(&params) : "",
                  is_int ? "i32" : "float", f,
                  is_int ? "" : arena_printf(c->a, "p.%s_w_, p.%s_m_, ", f, f), f,
                  off.len ? cb_str(&off) : "");
    }
    fg_def_bool(defs, "cuda_aux", at->naux > 0);
    fg_def_code(defs, "cuda_aux_fns", cb_str(&fns));
    fg_def_code(defs, "cuda_set_aux", cb_str(&set));
    /* in the hooks that read one */
    const char *clamp = aux_clamp_text(c);
    fg_def_code(defs, "cuda_aux_clamp_score", reads_aux(c, at->score) ? clamp : "");
    fg_def_code(defs, "cuda_aux_clamp_visible",
                at->cond && reads_aux(c, at->cond) ? clamp : "");
    fg_def_code(defs, "cuda_aux_clamp_weight",
                at->weight && reads_aux(c, at->weight) ? clamp : "");
}

/* plan_params: the kernels' dims, the params, the hoisted constants. */
static void params_defs(cu *c, fg_defs *defs)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    cb fields = {c->a, NULL, 0, 0};
    cb_puts(&fields, "    int M, N;   /* query rows and keys (the decode kernel sets them per sequence) */\n");
    cb_puts(&fields, "    int Hq, Hkv; /* query and kv heads */\n");
    cb_puts(&fields, "    int off;    /* N - M: query i sits at key position i + off */\n");
    for (int i = 0; i < p->ndims; i++)
        if (i != at->dim_m && i != at->dim_n && i != at->dim_h && i != at->dim_hkv)
            cb_printf(&fields, "    int %s; /* dim %s */\n", c->dfield[i], p->dims[i].name);
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            cb_printf(&fields,
                      "    const float *%s; /* param %s[%s]: the caller's values in device "
                      "memory, NULL: the default */\n",
                      c->pfield[i], pa->name, p->axes[pa->index_axis].name);
        else
            cb_printf(&fields, "    %s %s; /* param %s */\n", pa->dtype == DT_INT ? "int" : "float",
                      c->pfield[i], pa->name);
    }
    cb hs = {c->a, NULL, 0, 0};
    cb_puts(&hs, "    (void)p;\n    (void)b;\n    (void)h;\n");
    for (int i = 0; i < c->k->nconsts; i++) {
        const fg_kconst *kc = &c->k->consts[i];
        const char *why = comment_safe(c->a, kc->why);
        if (kc->per_head) {
            cb_printf(&fields, "    float hc%d_; /* %s, this CTA's head */\n", i, why);
            cb_printf(&hs, "    p.hc%d_ = %s; /* %s */\n", i, cu_text(c, kc->e, false), why);
        } else
            cb_printf(&fields, "    float c%d_; /* %s */\n", i, why);
    }
    aux_defs(c, defs, &fields, &hs);
    if (at->nchains > 1)
        cb_printf(&fields,
                  "    int chain;       /* the pass: the independent chain it runs, 0 first */\n"
                  "    float chain_cf;  /* its coefficient in %s */\n"
                  "    float chain_cfs_[%d]; /* every chain's, set by the entry */\n",
                  p->tensors[at->o].name, at->nchains);
    fg_def_code(defs, "cuda_params_fields", cb_str(&fields));
    fg_def_bool(defs, "cuda_vectors", c->k->nvectors > 0);
    fg_def_code(defs, "cuda_head_setup", cb_str(&hs));
}

/* The key-range walk of masks.c, its rows split across the lanes of a warp
 * (32) or wavefront (64): the kernels call plan_key_range with every lane
 * together. */
static void key_range_defs(cu *c, fg_defs *defs)
{
    const fg_kernel *k = c->k;
    fg_def_bool(defs, "cuda_mask", c->at->mask_tiles);
    fg_def_bool(defs, "cuda_mask_skip", c->at->mask_skip);
    fg_def_code(defs, "cuda_tile_state",
                c->at->mask_tiles ? mask_emit_tile_state(c->a, k->mask, mask_print_cuda, c) : "");
    bool lanes = false;
    const char *kr = c->at->mask_skip ? mask_emit_key_range_strided(c->a, k->mask, mask_print_cuda, c,
                                                                "r0 + lane", c->wave, &lanes)
                                  : "";
    fg_def_bool(defs, "cuda_key_range_lanes", lanes);
    fg_def_code(defs, "cuda_key_range", kr);
    /* a mask whose rows each see one interval of keys (causal, window,
     * prefix-LM): the masked step compares each key with its row's bounds
     * instead of evaluating plan_visible */
    bool from0 = false;
    const bool intervals = c->at->mask_skip && mask_rows_exact(k->mask, &from0);
    fg_def_bool(defs, "cuda_mask_rows", intervals);
    fg_def_bool(defs, "cuda_mask_rows_from0", intervals && from0);
    fg_def_code(defs, "cuda_row_keys",
                intervals ? mask_emit_row_keys(c->a, k->mask, mask_print_cuda, c) : "");
    /* span atoms (an id read at the row against one read at the key): the
     * kernels that take them classify tiles and narrow key ranges from the
     * values' ranges; they need skippable tiles */
    const int nspans = config_nspans(k); /* the count config_smem reads too */
    cb rows = {c->a, NULL, 0, 0}, cols = {c->a, NULL, 0, 0};
    /* the whole mask one for every head (its spans among it): the launch's
     * summary, its key ranges per row block and DR's rows, made once a
     * batch, serve every head */
    const bool spans_head_free = nspans > 0 && c->at->cond && head_free(c, c->at->cond);
    for (int i = 0; i < nspans; i++) {
        const fg_mask_span *sp = k->mask->spans[i];
        cb_printf(&rows, "  if (k == %d) return (long)(%s); /* %s */\n", i, cu_text(c, sp->row, false),
                  plan_expr(c, sp->row));
        cb_printf(&cols, "  if (k == %d) return (long)(%s); /* %s */\n", i, cu_text(c, sp->col, false),
                  plan_expr(c, sp->col));
    }
    fg_def_bool(defs, "cuda_spans", nspans > 0);
    fg_def_bool(defs, "cuda_spans_head_free", spans_head_free);
    fg_def_int(defs, "cuda_nspans", nspans);
    fg_def_code(defs, "cuda_span_rows", cb_str(&rows));
    fg_def_code(defs, "cuda_span_cols", cb_str(&cols));
    fg_def_code(defs, "cuda_tile_state_spans",
                nspans ? mask_emit_tile_state_spans(c->a, k->mask, mask_print_cuda, c) : "");
    fg_def_bool(defs, "cuda_spans_decide", nspans > 0 && mask_decided_by_spans(k->mask));
    fg_def_code(defs, "cuda_spans_known",
                nspans ? mask_emit_spans_known(c->a, k->mask, mask_print_cuda, c) : "");
    fg_def_code(defs, "cuda_visible_known",
                nspans ? mask_emit_visible_known(c->a, k->mask, mask_print_cuda, c) : "");
    /* and where, its span atoms known, each row sees one interval of keys
     * (docmask: causal inside a document): the masked step of such a tile
     * compares each key with its row's bounds, as plan_mask_rows does */
    const bool known_rows = nspans > 0 && mask_rows_exact_known(k->mask);
    fg_def_bool(defs, "cuda_known_rows", known_rows);
    fg_def_code(defs, "cuda_row_keys_known",
                known_rows ? mask_emit_row_keys_known(c->a, k->mask, mask_print_cuda, c) : "");
    /* and where that is its span atoms ANDed with the rest: with sorted key
     * sides (checked at run time), each row's keys by binary searches (DR) */
    const bool sorted_rows = known_rows && mask_rows_sorted(k->mask);
    fg_def_bool(defs, "cuda_sorted_rows", sorted_rows);
    fg_def_code(defs, "cuda_span_keys_sorted",
                sorted_rows ? mask_emit_span_keys_sorted(c->a, k->mask) : "");
}

/* The running sums' correction (the softmax chain's, as derived), or none. */
static void correction_defs(cu *c, fg_defs *defs)
{
    const fg_plan *p = c->p;
    const fg_kernel *k = c->k;
    const fg_kattn *at = c->at;
    fg_def_bool(defs, "cuda_softmax", at->softmax);
    fg_def_str(defs, "cuda_score_domain", at->base2 ? "the plan's own: base 2" : "times log2(e)");
    cu_weight_defs(c, defs);
    if (!at->softmax) {
        fg_def_str(defs, "cuda_correction_origin",
                   comment_safe(c->a, arena_printf(c->a, "%s: one running sum, no softmax chain",
                                                   plan_line(c, at->osum))));
        fg_def_str(defs, "cuda_correction", "1.f");
        fg_def_str(defs, "cuda_correction_plan", "1 (no running max)");
        fg_def_str(defs, "cuda_max_held", "nothing: no softmax chain");
        return;
    }
    /* the corrections of L and O_sum (match_attention: one factor) */
    const fg_kvalue *vl = NULL;
    for (int i = 0; i < k->nvalues; i++)
        if (k->values[i].tensor == at->l)
            vl = &k->values[i];
    const fg_correction *cr = vl->corr;
    fg_def_str(defs, "cuda_correction_origin",
               comment_safe(c->a, arena_printf(c->a, "%s and %s: running sums under a moving max; "
                                                     "correction %s from %s, plan line %d (%s)",
                                               p->tensors[at->l].name, p->tensors[at->osum].name,
                                               expr_to_string(c->a, p, cr->factor),
                                               cr->origin >= 0 ? p->tensors[cr->origin].name : "P",
                                               cr->origin >= 0 ? p->tensors[cr->origin].loc.line
                                                               : p->tensors[at->l].loc.line,
                                               cr->why ? cr->why : "")));
    fg_def_str(defs, "cuda_correction", correction_text(c, cr->factor, "m_prev", "m_new_safe"));
    fg_def_str(defs, "cuda_correction_plan", plan_expr(c, cr->factor));
    fg_def_str(defs, "cuda_max_held",
               arena_printf(c->a, at->base2 ? "%s: the plan is in base 2, the kernels' domain"
                                            : "%s * log2(e)",
                            p->tensors[at->mx].name));
}

/* Leaves of a value per row with the running max shifted by d and the
 * sum scaled to match (Mx + d, L * base^-d: what a fixed offset in place of
 * the max gives); NaN for any other leaf. */
typedef struct {
    const fg_kattn *at;
    double m, l, d;
} shift_env;
static double shift_leaf(void *ctx, const fg_expr *e)
{
    const shift_env *s = ctx;
    if (e->kind == E_TENSOR && e->ref == s->at->mx)
        return s->m + s->d;
    if (e->kind == E_TENSOR && e->ref == s->at->l)
        return s->l * (s->at->base2 ? exp2(-s->d) : exp(-s->d));
    return NAN;
}

/* Whether e is built of the smooth operations alone (arithmetic, exp,
 * log and roots over numbers and the running values): no comparison, no
 * where, no min, max or abs, whose value may change at some offset that a
 * few points do not reach. */
static bool row_smooth(const fg_expr *e)
{
    switch (e->kind) {
    case E_NUM:
    case E_TENSOR:
        return true;
    case E_NEG:
    case E_ADD:
    case E_SUB:
    case E_MUL:
    case E_DIV:
        break;
    case E_CALL:
        if (e->fn != F_EXP && e->fn != F_EXP2 && e->fn != F_LOG && e->fn != F_LOG2 && e->fn != F_SQRT &&
            e->fn != F_RSQRT)
            return false;
        break;
    default:
        return false;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!row_smooth(e->args[i]))
            return false;
    return true;
}

/* Whether every value per row is the same for any offset of the running
 * max (LSE = Mx + log(L) is; Mx itself, or L, is not): built of smooth
 * operations (row_smooth), with a number as its value in a row that sees
 * no key (the kernels print that value there, not one from the offset),
 * and the same value at eight points and offsets from -120 to 120, in
 * double precision.  Then the kernels may hold the max at another value:
 * a fixed offset where the score is bounded (plan_score_bound), a lagging
 * one elsewhere (plan_max_free). */
static bool rows_shift_free(cu *c)
{
    static const double pts[][3] = {{0.3, 1.7, 3.1},       {-2.1, 13.2, -7.4}, {5.7, 1024.5, 41.0},
                                    {47.0, 2.5, 7.4},      {-60.0, 3.0, 120.0}, {90.0, 1.0, -120.0},
                                    {300.0, 77.0, -30.0}, {-300.0, 5e6, 30.0}};
    for (int k = 0; k < c->at->nrows; k++) {
        if (!row_smooth(c->at->row_e[k]) || isnan(row_masked_value(c, k)))
            return false;
        for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
            shift_env s0 = {c->at, pts[i][0], pts[i][1], 0.0}, s1 = s0;
            s1.d = pts[i][2];
            fg_eval_env e0 = {shift_leaf, &s0}, e1 = {shift_leaf, &s1};
            double v0 = expr_eval(c->at->row_e[k], &e0), v1 = expr_eval(c->at->row_e[k], &e1);
            if (!isfinite(v0) || !(fabs(v1 - v0) <= 1e-9 * (1.0 + fabs(v0))))
                return false;
        }
    }
    return true;
}

/* The score, the mask and the corrections, as derived. */
static void hooks_defs(cu *c, fg_defs *defs)
{
    const fg_plan *p = c->p;
    const fg_kernel *k = c->k;
    const fg_kattn *at = c->at;
    fg_def_int(defs, "cuda_schedule", at->cond ? 1 : 0);
    fg_def_bool(defs, "cuda_fold", at->fold);
    fg_def_str(defs, "cuda_fold_scale", at->fold ? arena_printf(c->a, "p.c%d_", at->fold_const) : "1.f");
    fg_def_code(defs, "cuda_score_inner", at->fold ? cu_text(c, at->fold_inner, false) : "qk");
    /* Several chains: each pass adds its term c * O_sum / L, the same for
     * any offset of its max; a value per row would be each pass's own
     * (kernel_chains.c refuses them with several chains), so only a plan
     * without them qualifies. */
    const bool max_free = (at->nchains == 1 || at->nrows == 0) && rows_shift_free(c);
    fg_def_bool(defs, "cuda_max_free", max_free);
    fg_strbuf bound = {c->a, NULL, 0, 0};
    print_float(&bound, at->fold && max_free ? at->fold_bound : 0.0, "f");
    fg_def_str(defs, "cuda_fold_bound", strbuf_str(&bound));
    fg_def_code(defs, "cuda_score", cu_text(c, at->score_l2, false));
    cb chain = {c->a, NULL, 0, 0};
    for (int i = 0; i < at->nscore_chain; i++)
        cb_printf(&chain, "//   %s\n", plan_line(c, at->score_chain[i]));
    fg_def_code(defs, "cuda_score_chain", cb_str(&chain));
    fg_def_str(defs, "cuda_visible", at->cond ? cu_text(c, at->cond, false) : "true");
    fg_def_str(defs, "cuda_mask_origin",
               at->cond ? plan_line(c, k->mask->stmt >= 0 ? k->mask->stmt : at->t)
                        : "no mask: every key visible");
    fg_def_bool(defs, "cuda_masked", at->cond != NULL);
    key_range_defs(c, defs);
    cu_score_form_defs(c, defs);
    correction_defs(c, defs);
    const char *origin = plan_line(c, at->o);
    for (int k = 0; k < at->nrows; k++)
        origin = arena_printf(c->a, "%s; %s", origin, plan_line(c, at->row_t[k]));
    fg_def_str(defs, "cuda_epilogue_origin", comment_safe(c->a, origin));
    epilogue_defs(c, defs);
    fg_def_str(defs, "cuda_plan_line_S", arena_printf(c->a, "%d", p->tensors[at->s].loc.line));
    fg_def_str(defs, "cuda_T_name", p->tensors[at->t].name);
}

/* Host: a scalar param into plan_params, as the plan's checks resolved it
 * (given or its default, finite, positive where it divides). */
static void param_set(cu *c, cb *b, int i)
{
    const fg_param *pa = &c->p->params[i];
    cb_printf(b, "  p.%s = (%s)plan_param%d_;\n", c->pfield[i], pa->dtype == DT_INT ? "int" : "float",
              i);
}

/* Host: the hoisted constants and the fold's sign (the head grouping is
 * the plan's checks': K's head extent against h or h / G). */
static void host_checks(cu *c, cb *b, const char *entry)
{
    const fg_kattn *at = c->at;
    for (int i = 0; i < c->k->nconsts; i++)
        if (!c->k->consts[i].per_head)
            cb_printf(b, "  p.c%d_ = (float)(%s); /* %s */\n", i, cu_text(c, c->k->consts[i].e, true),
                      comment_safe(c->a, c->k->consts[i].why));
    if (at->fold && at->fold_expr)
        cb_printf(b,
                  "  if (!(p.c%d_ > 0.0f) || isinf(p.c%d_))\n"
                  "    return fg_set_error(FG_ERR_PARAM, \"%s: the score's constant factor %s = "
                  "%%g: the kernel takes the row max before multiplying by it, so it must be "
                  "finite and > 0\", (double)(%s));\n",
                  at->fold_const, at->fold_const, entry, plan_expr(c, at->fold_expr),
                  cu_text(c, at->fold_expr, true));
    /* keylin: the sm_90a rolling kernels take the row max on qk plus the
     * term over the qk factor (rolling.cuh's LINA), then multiply by the
     * factor (the split form's kernels add the term to each element); the
     * HIP entry, which shares these checks, refuses the same arguments;
     * kb_bind_score binds keylin only with a softmax chain and no fold */
    if (at->keylin && at->keylin_qk_expr && c->k->sched.form != FORM_SPLIT) {
        const char *k = cu_text(c, at->keylin_qk, true);
        const fg_expr *f = at->keylin_qk_expr;
        cb_printf(b,
                  "  if (!(%s > 0.0f) || isinf(%s))\n"
                  "    return fg_set_error(FG_ERR_PARAM, \"%s: the score's %s of qk, %s = %%g: the "
                  "kernel takes the row max before it applies the factor, so that must be "
                  "finite and > 0\", (double)(%s));\n",
                  k, k, entry, at->keylin_qk_div ? "divisor" : "factor", plan_expr(c, f), cu_text(c, f, true));
    }
}

/* Independent chains (kernel_chains.c): each chain's coefficient, its
 * tensors for the passes of plan_run and the kernels' checks of the Q, K
 * and V beyond the first chain's. */
static void chain_defs(cu *c, fg_defs *defs, cb *params, const char *entry)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    fg_def_int(defs, "cuda_nchains", at->nchains);
    fg_def_bool(defs, "cuda_chains", at->nchains > 1);
    cb ts = {c->a, NULL, 0, 0}, checks = {c->a, NULL, 0, 0};
    const char *role[3] = {"q", "k", "v"};
    for (int r = 0; r < 3 && at->nchains > 1; r++) {
        cb_printf(&ts, "  const fg_tensor* const c%s[%d] = {", role[r], at->nchains);
        for (int i = 0; i < at->nchains; i++) {
            const fg_kchain *ch = &at->chain[i];
            int t = r == 0 ? ch->q : r == 1 ? ch->k : ch->v;
            cb_printf(&ts, "%s&args->%s", i ? ", " : "", p->tensors[t].name);
            bool seen = false; /* checked already: the first chain's, or an earlier one's */
            for (int j = 0; j < i; j++) {
                const fg_kchain *cj = &at->chain[j];
                seen |= t == (r == 0 ? cj->q : r == 1 ? cj->k : cj->v);
            }
            if (i == 0 || seen)
                continue;
            const char *n = p->tensors[t].name;
            cb_printf(&checks,
                      "  if ((st = fg_check_tensor(&args->%s, \"%s: %s\", 4, halfs | "
                      "FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;\n"
                      "  if (args->%s.dtype != dt)\n"
                      "    return fg_set_error(FG_ERR_DTYPE, \"%s: %s is %%s, the dtype of %s "
                      "(%%s)\", fg_dtype_name(args->%s.dtype), fg_dtype_name(dt));\n",
                      n, entry, n, n, entry, n, p->tensors[at->chain[0].q].name, n);
        }
        cb_puts(&ts, "};\n");
    }
    for (int i = 0; i < at->nchains && at->nchains > 1; i++) {
        const fg_kchain *ch = &at->chain[i];
        cb_printf(params, "  p.chain_cfs_[%d] = (float)(%s); /* chain %d: %s * %s / %s */\n", i,
                  cu_text(c, ch->coef, true), i + 1, plan_expr(c, ch->coef),
                  p->tensors[ch->osum].name, p->tensors[ch->l].name);
    }
    fg_def_code(defs, "cuda_chain_tensors", cb_str(&ts));
    fg_def_code(defs, "cuda_chain_checks", cb_str(&checks));
}

/* The host entry: the plan's checks (one source with the CPU entry's:
 * validate_c.c), then names, dims and params from the arguments and what
 * the kernels add. */
static int host_defs(cu *c, fg_defs *defs, const char *entry, fg_diag *d)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    const char *const *tn, *const *dn, *const *pn;
    char *check = lower_c_validation(c->a, c->k, entry, d, &tn, &dn, &pn);
    if (!check)
        return -1;
    /* the dims outside the kernels' roles (an extra input's extent) leave
     * the block in plan_dims_[] */
    bool extra_dims = false;
    for (int i = 0; i < p->ndims; i++)
        extra_dims |= i != at->dim_b && i != at->dim_h && i != at->dim_hkv && i != at->dim_m &&
                      i != at->dim_n && i != at->dim_d;
    cb shared = {c->a, NULL, 0, 0};
    for (int i = 0; i < p->nparams; i++) /* given or the default, as the checks resolve it */
        if (p->params[i].index_axis < 0)
            cb_printf(&shared, "  %s plan_param%d_; // param %s\n",
                      p->params[i].dtype == DT_INT ? "long" : "float", i, p->params[i].name);
    if (extra_dims)
        cb_printf(&shared, "  long long plan_dims_[%d]; // the plan's dims as these checks bind them\n",
                  p->ndims);
    cb_printf(&shared, "  {\n%s", text_indented(c->a, check, 4));
    for (int i = 0; i < p->ndims && extra_dims; i++)
        cb_printf(&shared, "    plan_dims_[%d] = %s;\n", i, dn[i]);
    for (int i = 0; i < p->ndims && !extra_dims; i++) /* bound again from the shapes below */
        cb_printf(&shared, "    (void)%s;\n", dn[i]);
    for (int i = 0; i < p->nparams; i++)
        if (p->params[i].index_axis < 0)
            cb_printf(&shared, "    plan_param%d_ = %s;\n", i, pn[i]);
    cb_puts(&shared, "  }\n");
    fg_def_code(defs, "cuda_shared_checks", cb_str(&shared));
    fg_def_str(defs, "cuda_Q", p->tensors[at->q].name);
    fg_def_str(defs, "cuda_K", p->tensors[at->k].name);
    fg_def_str(defs, "cuda_V", p->tensors[at->v].name);
    fg_def_str(defs, "cuda_O", p->tensors[at->o].name);
    fg_def_str(defs, "cuda_dim_B", p->dims[at->dim_b].name);
    fg_def_str(defs, "cuda_dim_H", p->dims[at->dim_h].name);
    fg_def_str(defs, "cuda_dim_Hkv", p->dims[at->dim_hkv].name);
    fg_def_str(defs, "cuda_dim_M", p->dims[at->dim_m].name);
    fg_def_str(defs, "cuda_dim_N", p->dims[at->dim_n].name);
    fg_def_str(defs, "cuda_dim_D", p->dims[at->dim_d].name);
    /* splits = N in the schedule: what args.splits = 0 asks for (else auto) */
    int plan_splits = c->k->sched.form == FORM_SPLIT ? c->k->sched.splits : 0;
    fg_def_int(defs, "cuda_plan_splits", plan_splits);
    fg_def_str(defs, "cuda_plan_splits_text",
               plan_splits ? arena_printf(c->a, "%d", plan_splits) : "auto");
    fg_def_str(defs, "cuda_kv_len",
               p->dims[at->dim_n].index_axis >= 0
                   ? arena_printf(c->a, "args->%s_len", p->dims[at->dim_n].name)
                   : "nullptr");
    cb dimset = {c->a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        if (i == at->dim_m || i == at->dim_n || i == at->dim_h || i == at->dim_hkv)
            continue;
        if (i == at->dim_b || i == at->dim_d)
            cb_printf(&dimset, "  p.%s = (int)%s;\n", c->dfield[i], i == at->dim_b ? "B" : "D");
        else
            cb_printf(&dimset,
                      "  if (plan_dims_[%d] > INT_MAX)\n"
                      "    return fg_set_error(FG_ERR_UNSUPPORTED, \"%s: %s = %%lld is beyond "
                      "the kernel's 32-bit indices\", plan_dims_[%d]);\n"
                      "  p.%s = (int)plan_dims_[%d];\n",
                      i, entry, p->dims[i].name, i, c->dfield[i], i);
    }
    /* params in declaration order: given, or the default */
    cb params = {c->a, NULL, 0, 0}, vec_fns = {c->a, NULL, 0, 0}, vec_copy = {c->a, NULL, 0, 0};
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        const char *f = c->pfield[i];
        if (pa->index_axis < 0) {
            param_set(c, &params, i);
            continue;
        }
        cb_printf(&vec_fns,
                  "/* param %s[%s], default %s */\n"
                  "__device__ __forceinline__ float plan_%s_at(const plan_params& p, int h) {\n"
                  "  return p.%s ? p.%s[h] : (float)(%s);\n}\n",
                  pa->name, p->axes[pa->index_axis].name, plan_expr(c, pa->deflt), f, f, f,
                  cu_text(c, pa->deflt, false));
        cb_printf(&vec_copy, "  { args->%s, &p.%s, \"%s\" },\n", pa->name, f, pa->name);
    }
    host_checks(c, &params, entry);
    chain_defs(c, defs, &params, entry);
    fg_def_code(defs, "cuda_set_dims", cb_str(&dimset));
    fg_def_code(defs, "cuda_vector_fns", cb_str(&vec_fns));
    fg_def_code(defs, "cuda_vector_copies", cb_str(&vec_copy));
    fg_def_code(defs, "cuda_set_params", cb_str(&params));
    return 0;
}

/* The attention family serves plans with contractions, the row kernels
 * (lower_rows.c) chains of row reductions; the reason given is the family's. */
int lower_cuda_supported(const fg_kernel *k, fg_loc *loc, const char **why)
{
    bool rows = k->family == FAMILY_ROWREDUCE;
    if (rows ? k->rows_ok : k->attn_ok)
        return 0;
    if (loc)
        *loc = rows ? k->rows_why_loc : k->attn_why_loc;
    if (why)
        *why = rows ? k->rows_why : k->attn_why;
    return -1;
}

/* The definitions both GPU backends share (the hooks, the host entry's
 * names, dims and params): one lowering, printed in the device dialect of
 * the backend, with its lanes per plan_key_range walk (32: a CUDA warp, 64:
 * a CDNA wavefront).  entry names the entry point in messages.  With
 * ring_floats, the floats a key of the sm_90a kernel's ring of key values
 * (0: none), for the configurations' shared memory. */
int gpu_attention_defs(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char *entry,
                       fg_dialect_id dialect, int wave, int *ring_floats, fg_diag *d)
{
    const fg_plan *p = k->plan;
    cu c = {.a = a, .k = k, .p = p, .at = &k->attn, .dialect = dialect, .wave = wave};
    cu_names(&c);
    fg_def_bool(defs, "cuda_split", k->sched.form == FORM_SPLIT);
    fg_def_str(defs, "cuda_ns", arena_printf(a, "attn_%s", p->name));
    fg_def_str(defs, "cuda_entry", entry);
    params_defs(&c, defs);
    hooks_defs(&c, defs);
    if (ring_floats)
        *ring_floats = c.ring_floats;
    return host_defs(&c, defs, entry, d);
}

int lower_cuda(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
               fg_diag *d)
{
    const fg_plan *p = k->plan;
    if (k->family == FAMILY_ROWREDUCE)
        return lower_cuda_rows(a, k, defs, template_rel, d);
    if (!k->attn_ok) {
        diag_error(d, k->attn_why_loc, "plan '%s' does not fit the CUDA attention kernel: %s",
                   p->name, k->attn_why);
        return -1;
    }
    *template_rel = "cuda/attention.m4";
    /* the tile configurations and the dispatch over them (variants.c, back/cuda/configs.c) */
    const bool split = k->sched.form == FORM_SPLIT;
    /* the hooks first: they find the key values whose ring the sm_90a
     * configurations' shared memory counts */
    int ring_floats = 0;
    if (gpu_attention_defs(a, k, defs, arena_printf(a, "fg_%s", p->name), DIALECT_CUDA, 32,
                           &ring_floats, d) < 0)
        return -1;
    cuda_config_defs(a, defs, k, split, k->attn.affine_score, config_masking(k), ring_floats);
    cuda_tuned_defs(a, defs, k, split);
    return 0;
}

/* The plan's entry in fusegen_plans_cuda.c: the generic wrapper. */
int lower_cuda_registry_entry(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                              fg_diag *d)
{
    (void)d;
    const char *n = k->plan->name;
    const char *fn = arena_printf(a, "%s_cuda_", n);
    *code = registry_wrapper(a, k->plan, fn, arena_printf(a, "fg_%s", n), "CUstream_st");
    *list_line = arena_printf(a, "{\"%s\", %s},", n, fn);
    return 0;
}
