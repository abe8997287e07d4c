/* weight_cuda.c - the weight of attention without a softmax chain
 * (sigmoid attention), as the GPU hooks take it: plan_weight from the
 * masked score, the weight's reads of extra inputs at the key alone
 * (plan_key_values, plan_weight_kv: a per-key gate, which the sm_90a
 * kernel's producer group loads into a ring in shared memory), and for
 * sigmoid(X) times such values the reciprocal form (plan_kv_recip).  Split
 * from lower_cuda.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"
#include "lower_cuda_internal.h"

/* Without a softmax chain, a key's weight from its masked score x. */
static void leaf_weight(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    if (e->kind == E_ACC)
        strbuf_puts(b, "x");
    else
        leaf_device(pr, b, e);
}

/* Whether index expression e reads the key axis and nothing that varies
 * otherwise: numbers, dims, scalar params, the key, operators on them
 * (plan_key_values has j and p only). */
static bool key_index(const cu *c, const fg_expr *e)
{
    switch (e->kind) {
    case E_NUM: case E_DIM:
        return true;
    case E_AXIS:
        return e->ref == c->at->ax_n;
    case E_PARAM:
        return c->p->params[e->ref].index_axis < 0;
    case E_TENSOR: case E_ACC: case E_PREV: case E_REDUCE: case E_NAME: case E_KCONST:
        return false;
    default:
        for (int i = 0; i < e->nargs; i++)
            if (!key_index(c, e->args[i]))
                return false;
        return true;
    }
}

/* Whether e is a read of a float extra input whose indices not folded per
 * CTA (every read of it has the batch or the head alone there) are key
 * indices: one value a key (a per-key gate). */
static bool key_only_read(const cu *c, const fg_expr *e)
{
    int x = e->kind == E_TENSOR ? aux_index(c, e->ref) : -1;
    if (x < 0 || c->p->tensors[e->ref].dtype == DT_INT)
        return false;
    for (int k = 0; k < e->nargs; k++)
        if (c->afold[x][k] < 0 && !key_index(c, e->args[k]))
            return false;
    return true;
}

/* The weight's key-only reads into c->kv, each once. */
static void collect_key_values(cu *c, const fg_expr *e)
{
    if (key_only_read(c, e)) {
        for (int i = 0; i < c->nkv; i++)
            if (expr_equal(c->kv[i], e))
                return;
        if (c->nkv < FG_MAX_AUX)
            c->kv[c->nkv++] = e;
        return;
    }
    for (int i = 0; i < e->nargs; i++)
        collect_key_values(c, e->args[i]);
}

/* Whether e reads an extra input other than from kv[] (a key-only read
 * past the FG_MAX_AUX that c->kv holds is read in place, clamped). */
static bool reads_aux_besides_keys(const cu *c, const fg_expr *e)
{
    for (int i = 0; i < c->nkv; i++)
        if (expr_equal(c->kv[i], e))
            return false;
    if (e->kind == E_TENSOR && aux_index(c, e->ref) >= 0)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_aux_besides_keys(c, e->args[i]))
            return true;
    return false;
}

/* The weight with its key-only reads taken from kv[] (plan_weight_kv). */
static void leaf_weight_kv(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    cu *c = pr->ctx;
    if (e->kind == E_TENSOR)
        for (int i = 0; i < c->nkv; i++)
            if (expr_equal(c->kv[i], e)) {
                strbuf_printf(b, "kv[%d]", i);
                return;
            }
    leaf_weight(pr, b, e);
}

/* Whether e is an expression of the key values alone: key-only reads held
 * in kv[], numbers, dims, scalar params and arithmetic on them
 * (plan_key_factor has kv[] and p). */
static bool kv_factor(const cu *c, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (key_only_read(c, e)) {
        for (int i = 0; i < c->nkv; i++)
            if (expr_equal(c->kv[i], e))
                return true;
        return false; /* past the FG_MAX_AUX values kv holds: read in place, with j */
    }
    switch (e->kind) {
    case E_NUM: case E_DIM:
        return true;
    case E_PARAM:
        return c->p->params[e->ref].index_axis < 0;
    case E_NEG: case E_ADD: case E_SUB: case E_MUL: case E_DIV:
        for (int i = 0; i < e->nargs; i++)
            if (!kv_factor(c, e->args[i], depth + 1))
                return false;
        return true;
    default:
        return false;
    }
}

/* Whether e holds the weight's masked score (the hole, E_ACC). */
static bool has_hole(const fg_expr *e)
{
    if (e->kind == E_ACC)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (has_hole(e->args[i]))
            return true;
    return false;
}

/* Whether the product e is sigmoid(X) times factors of the key values
 * alone (kv_factor), X holding the masked score and no extra input: X in
 * *sx, the factors in f[0..*nf). */
static bool sigmoid_times_keys(const cu *c, const fg_expr *e, const fg_expr **sx,
                               const fg_expr **f, int *nf, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_MUL)
        return sigmoid_times_keys(c, e->args[0], sx, f, nf, depth + 1) &&
               sigmoid_times_keys(c, e->args[1], sx, f, nf, depth + 1);
    if (e->kind == E_CALL && e->fn == F_SIGMOID && has_hole(e->args[0])) {
        if (*sx || reads_aux(c, e->args[0]))
            return false;
        *sx = e->args[0];
        return true;
    }
    if (*nf == FG_MAX_EXPR_DEPTH || has_hole(e) || !kv_factor(c, e, 0))
        return false;
    f[(*nf)++] = e;
    return true;
}

/* plan_kv_recip and its hooks: for a weight sigmoid(X) * F, F of the key
 * values alone, the sm_90a kernel takes 1 / F once a key and the weight as
 * plan_sigmoid_recip(X, 1 / F), an FFMA in place of the multiply by F.
 * Whether the weight has that form. */
static bool kv_recip_defs(cu *c, fg_defs *defs, fg_printer *pr, fg_printer *prk)
{
    const fg_expr *sx = NULL, *f[FG_MAX_EXPR_DEPTH];
    int nf = 0;
    bool on = c->nkv > 0 && sigmoid_times_keys(c, c->at->weight, &sx, f, &nf, 0) && sx && nf > 0;
    cb fac = {c->a, NULL, 0, 0};
    for (int i = 0; on && i < nf; i++)
        cb_printf(&fac, "%s(%s)", i ? " * " : "", code_expr_text(prk, f[i]));
    fg_def_bool(defs, "cuda_kv_recip", on);
    fg_def_str(defs, "cuda_key_factor", on ? cb_str(&fac) : "1.f");
    fg_def_str(defs, "cuda_weight_kv_recip",
               on ? arena_printf(c->a, "plan_sigmoid_recip(%s, finv)",
                                 code_expr_text(pr, sx))
                  : "x");
    return on;
}

void cu_weight_defs(cu *c, fg_defs *defs)
{
    const fg_plan *p = c->p;
    const fg_kattn *at = c->at;
    if (at->softmax) {
        fg_def_str(defs, "cuda_weight", "x");
        fg_def_int(defs, "cuda_nkeyvals", 0);
        fg_def_code(defs, "cuda_key_values", "");
        fg_def_str(defs, "cuda_weight_kv", "x");
        fg_def_code(defs, "cuda_aux_clamp_weight_kv", "");
        fg_def_bool(defs, "cuda_kv_recip", false);
        fg_def_str(defs, "cuda_key_factor", "1.f");
        fg_def_str(defs, "cuda_weight_kv_recip", "x");
        fg_def_str(defs, "cuda_weight_plan", "(the softmax chain: exp(T - max))");
        return;
    }
    fg_printer pr = {.a = c->a, .p = p, .dl = &fg_dialects[c->dialect], .leaf = leaf_weight,
                     .ctx = c};
    fg_def_str(defs, "cuda_weight", code_expr_text(&pr, at->weight));
    /* the key-only reads, loaded once a key (plan_key_values) and read
     * back by plan_weight_kv */
    collect_key_values(c, at->weight);
    cb kvs = {c->a, NULL, 0, 0};
    if (c->nkv > 0)
        cb_printf(&kvs,
                  "  // a padding key reads the last real one\n"
                  "  j = %s(j, p.N - 1);\n",
                  fg_dialects[c->dialect].int_min);
    for (int i = 0; i < c->nkv; i++)
        cb_printf(&kvs, "  kv[%d] = %s;\n", i, code_expr_text(&pr, c->kv[i]));
    fg_printer prk = pr;
    prk.leaf = leaf_weight_kv;
    fg_def_int(defs, "cuda_nkeyvals", c->nkv);
    fg_def_code(defs, "cuda_key_values", cb_str(&kvs));
    fg_def_str(defs, "cuda_weight_kv", code_expr_text(&prk, at->weight));
    fg_def_code(defs, "cuda_aux_clamp_weight_kv",
                reads_aux_besides_keys(c, at->weight) ? aux_clamp_text(c) : "");
    /* the sm_90a ring's floats a key: 1 / F alone, or each key value */
    const bool recip = kv_recip_defs(c, defs, &pr, &prk);
    c->ring_floats = c->nkv == 0 ? 0 : recip ? 1 : c->nkv;
    fg_def_str(defs, "cuda_weight_plan",
               comment_safe(c->a, arena_printf(c->a, "%s, t (x in the hook) the masked score %s",
                                               expr_to_string(c->a, p, at->weight),
                                               expr_to_string(c->a, p, at->tval))));
}
