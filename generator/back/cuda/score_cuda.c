/* score_cuda.c - the forms of the score the GPU kernels take apart from the
 * element-wise hook: qk times a constant plus one value over a tile
 * (plan_score_tile_bias, relbias's band tiles), the term once a diagonal
 * (plan_score_diag) and the term linear in the key (plan_keylin_*, ALiBi).
 * Split from lower_cuda.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"
#include "lower_cuda_internal.h"

/* The interval of an int index expression over the tile rows [m0, m1) x
 * keys [n0, n1): statements defining long lo<t> and hi<t>; t, or -1 when
 * the expression is beyond these rules (+, -, *, min, max of the row, the
 * key and values fixed per CTA). */
static int tile_interval(cu *c, cb *out, const fg_expr *e, int *nt, int depth)
{
    const fg_kattn *at = c->at;
    int t, x, y;
    if (depth > FG_MAX_EXPR_DEPTH || e->type != T_INT)
        return -1;
    switch (e->kind) {
    case E_AXIS:
        t = (*nt)++;
        if (e->ref == at->ax_m)
            cb_printf(out, "  const long lo%d = m0, hi%d = m1 - 1;\n", t, t);
        else if (e->ref == at->ax_n)
            cb_printf(out, "  const long lo%d = n0, hi%d = n1 - 1;\n", t, t);
        else
            cb_printf(out, "  const long lo%d = %s, hi%d = lo%d;\n", t, cu_text(c, e, false), t, t);
        return t;
    case E_NUM:
    case E_DIM:
    case E_PARAM:
        if (e->nargs)
            return -1;
        t = (*nt)++;
        cb_printf(out, "  const long lo%d = %s, hi%d = lo%d;\n", t, cu_text(c, e, false), t, t);
        return t;
    case E_NEG:
        if ((x = tile_interval(c, out, e->args[0], nt, depth + 1)) < 0)
            return -1;
        t = (*nt)++;
        cb_printf(out, "  const long lo%d = -hi%d, hi%d = -lo%d;\n", t, x, t, x);
        return t;
    case E_ADD:
    case E_SUB:
    case E_MUL:
        break;
    case E_CALL:
        if ((e->fn != F_MIN && e->fn != F_MAX) || e->nargs != 2)
            return -1;
        break;
    default:
        return -1;
    }
    if ((x = tile_interval(c, out, e->args[0], nt, depth + 1)) < 0 ||
        (y = tile_interval(c, out, e->args[1], nt, depth + 1)) < 0)
        return -1;
    t = (*nt)++;
    if (e->kind == E_ADD)
        cb_printf(out, "  const long lo%d = lo%d + lo%d, hi%d = hi%d + hi%d;\n", t, x, y, t, x, y);
    else if (e->kind == E_SUB)
        cb_printf(out, "  const long lo%d = lo%d - hi%d, hi%d = hi%d - lo%d;\n", t, x, y, t, x, y);
    else if (e->kind == E_MUL)
        cb_printf(out,
                  "  const long a%d = lo%d * lo%d, b%d = lo%d * hi%d, c%d = hi%d * lo%d, d%d = hi%d * hi%d;\n"
                  "  const long lo%d = min(min(a%d, b%d), min(c%d, d%d)), hi%d = max(max(a%d, b%d), max(c%d, d%d));\n",
                  t, x, y, t, x, y, t, x, y, t, x, y, t, t, t, t, t, t, t, t, t, t);
    else /* min and max are monotone in both */
        cb_printf(out, "  const long lo%d = %s(lo%d, lo%d), hi%d = %s(hi%d, hi%d);\n", t,
                  e->fn == F_MIN ? "min" : "max", x, y, t, e->fn == F_MIN ? "min" : "max", x, y);
    return t;
}

/* Conditions (" && lo == hi" per index) under which every read of an extra
 * input in e is at one element over the tile; false when e reads the row or
 * key outside such reads, or an index is beyond tile_interval. */
static bool tile_const_reads(cu *c, cb *out, cb *cond, const fg_expr *e, int *nt, int depth)
{
    const fg_kattn *at = c->at;
    if (depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_AXIS)
        return e->ref != at->ax_m && e->ref != at->ax_n;
    if (e->kind == E_TENSOR) {
        for (int k = 0; k < e->nargs; k++) {
            if (!reads_axis(c, e->args[k], at->ax_m) && !reads_axis(c, e->args[k], at->ax_n))
                continue;
            int t = tile_interval(c, out, e->args[k], nt, 0);
            if (t < 0)
                return false;
            cb_printf(cond, " && lo%d == hi%d", t, t);
        }
        return true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!tile_const_reads(c, out, cond, e->args[i], nt, depth + 1))
            return false;
    return true;
}

/* plan_score_tile_bias: whether the score is qk * scale + bias over the
 * whole tile (kernel.c's tile_fold, and the term's reads fixed there). */
static void tile_bias_defs(cu *c, fg_defs *defs)
{
    const fg_kattn *at = c->at;
    cb body = {c->a, NULL, 0, 0}, cond = {c->a, NULL, 0, 0};
    int nt = 0;
    bool ok = at->tile_fold && tile_const_reads(c, &body, &cond, at->score_bias_l2, &nt, 0);
    if (ok)
        cb_printf(&body,
                  "  if (!(true%s))\n    return false;\n"
                  "  const int i = m0, j = n0; /* any element of the tile: the term is one value */\n"
                  "  (void)i;\n  (void)j;\n"
                  "  *scale = p.c%d_;\n  *bias = %s;\n"
                  "  return *scale > 0.0f && !isinf(*scale); /* the row max on raw qk */\n",
                  cond.len ? cb_str(&cond) : "", at->tile_fold_const,
                  cu_text(c, at->score_bias_l2, false));
    fg_def_bool(defs, "cuda_tile_affine", ok);
    fg_def_code(defs, "cuda_tile_bias", ok ? cb_str(&body) : "");
    fg_def_str(defs, "cuda_tile_bias_plan", ok ? plan_expr(c, at->score_bias_l2) : "");
    /* plan_score_diag: the term on diagonals (kernel_score.c's tile_diag) */
    bool diag = at->tile_fold && at->tile_diag;
    fg_def_bool(defs, "cuda_tile_diag", diag);
    fg_def_str(defs, "cuda_tile_qk_scale", diag ? arena_printf(c->a, "p.c%d_", at->tile_fold_const) : "1.f");
    fg_def_code(defs, "cuda_tile_diag_bias", diag ? cu_text(c, at->score_bias_l2, false) : "0.f");
    fg_def_str(defs, "cuda_tile_diag_plan", diag ? plan_expr(c, at->score_bias_l2) : "");
}

/* plan_keylin_*: the score as qk times a constant plus a constant times an
 * integer term linear in the key (kernel.c's keylin). */
static void keylin_defs(cu *c, fg_defs *defs)
{
    const fg_kattn *at = c->at;
    bool ok = at->keylin;
    fg_def_bool(defs, "cuda_keylin", ok);
    fg_def_str(defs, "cuda_keylin_qk", ok ? cu_text(c, at->keylin_qk, false) : "1.f");
    fg_def_str(defs, "cuda_keylin_slope", ok ? cu_text(c, at->keylin_slope, false) : "0.f");
    fg_def_str(defs, "cuda_keylin_int", ok ? cu_text(c, at->keylin_int, false) : "0");
    fg_def_str(defs, "cuda_keylin_step", arena_printf(c->a, "%d", ok ? at->keylin_step : 0));
    fg_def_str(defs, "cuda_keylin_plan", ok ? plan_expr(c, at->keylin_int) : "");
}

void cu_score_form_defs(cu *c, fg_defs *defs)
{
    tile_bias_defs(c, defs);
    keylin_defs(c, defs);
}
