/* lower_cuda.c - the CUDA backend: the fused schedule as the hooks of the
 * tensor-core attention kernels (templates/cuda/).
 *
 * The kernel bodies are hand-written skeletons (templates/cuda/sm80/), the
 * same for every plan.  Everything that depends on the plan is computed here and
 * handed to the template as text: the per-launch parameter struct, the score
 * as one expression of qk = Q.K^T (in the exp2 domain, host constants folded),
 * the mask as `visible`, the key range and tile classes from masks.c, the
 * correction of the running state, and the host entry point's validation.
 *
 * A plan qualifies when its fused schedule is attention as the kernels
 * compute it: S_sum = sum(d: Q * K), a chain of elementwise statements that
 * ends in T (optionally where(cond, X, -inf)), Mx = max(n: T), P = exp(T - Mx),
 * L = sum(n: P), O = sum(n: P * V) / L, LSE = Mx + log(L) (optional), with the
 * corrections exp(Mx_prev - Mx).  lower_cuda_supported says why a plan does
 * not, located at the statement that differs.
 */
#define _POSIX_C_SOURCE 200809L
#include "fusegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

typedef fg_strbuf cb;
#define cb_putn strbuf_putn
#define cb_puts strbuf_puts
#define cb_printf strbuf_printf
#define cb_str strbuf_str

/* Text for a C comment: no comment terminator inside. */
static char *comment_text(fg_arena *a, const char *s)
{
    cb b = {a, NULL, 0, 0};
    for (; *s; s++) {
        if ((s[0] == '*' && s[1] == '/') || (s[0] == '/' && s[1] == '*')) {
            cb_putn(&b, s, 1);
            cb_puts(&b, " ");
        } else
            cb_putn(&b, s, 1);
    }
    return cb_str(&b);
}

/* ------------------------------------------------------------------ */
/* Matching the attention structure                                    */
/* ------------------------------------------------------------------ */

#define CU_MAX_HOIST 16

typedef struct cu {
    fg_arena *a;
    const fg_fused *fz;
    const fg_plan *p;
    /* the statements */
    int q, k, v;       /* inputs */
    int ssum;          /* S_sum = sum(d: Q * K) */
    int mx, l, osum;   /* running */
    int o, lse;        /* epilogue outputs (lse -1: none) */
    int tstmt;         /* the statement Mx reduces (T) */
    /* the axes and their dims */
    int ax_b, ax_h, ax_m, ax_n, ax_d;
    int dim_b, dim_h, dim_hkv, dim_m, dim_n, dim_d;
    const fg_expr *kv_head; /* K's head index: AXIS h, or h / G */
    const fg_expr *tval;    /* T with the tile statements inlined */
    const fg_expr *score;   /* the value T selects (tval without the where) */
    const fg_expr *cond;    /* the where's condition, or NULL */
    /* names of the plan_params fields */
    const char **dfield, **pfield;
    /* hoisted constants: host (double, on the host) and per head (device) */
    int nhost, nhead;
    const char *host_expr[CU_MAX_HOIST], *host_why[CU_MAX_HOIST];
    const char *head_expr[CU_MAX_HOIST], *head_why[CU_MAX_HOIST];
    /* why the plan does not fit */
    fg_loc why_loc;
    const char *why;
} cu;

static int cu_fail(cu *c, fg_loc loc, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->why_loc = loc;
    }
    return -1;
}

static bool is_axis(const fg_expr *e, int ax) { return e && e->kind == E_AXIS && e->ref == ax; }
static bool is_tensor(const fg_expr *e, int t) { return e && e->kind == E_TENSOR && e->ref == t; }

/* e with every elementwise tile statement inlined; S_sum and running values
 * stay references. */
static fg_expr *inline_tiles(cu *c, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH + c->p->ntensors)
        return NULL;
    if (e->kind == E_TENSOR) {
        const fg_tensor *t = &c->p->tensors[e->ref];
        if (t->kind == TENSOR_STMT && c->fz->role[e->ref] == ROLE_TILE &&
            t->cls == CLASS_ELEMENTWISE && t->rhs)
            return inline_tiles(c, t->rhs, depth + 1);
    }
    fg_expr *n = expr_clone(c->a, e);
    for (int i = 0; i < e->nargs; i++) {
        n->args[i] = inline_tiles(c, e->args[i], depth + 1);
        if (!n->args[i])
            return NULL;
    }
    return n;
}

/* exp(X - Mx) */
static bool is_exp_shift(cu *c, const fg_expr *e)
{
    return e->kind == E_CALL && e->fn == F_EXP && e->nargs == 1 && e->args[0]->kind == E_SUB &&
           expr_equal(e->args[0]->args[0], c->tval) && is_tensor(e->args[0]->args[1], c->mx);
}

/* exp(Mx_prev - Mx) */
static bool is_rescale(cu *c, const fg_correction *k)
{
    const fg_expr *f = k->factor;
    return k->kind == CORR_SCALE && f && f->kind == E_CALL && f->fn == F_EXP && f->nargs == 1 &&
           f->args[0]->kind == E_SUB && f->args[0]->args[0]->kind == E_PREV &&
           f->args[0]->args[0]->ref == c->mx && is_tensor(f->args[0]->args[1], c->mx);
}

/* The score may read qk, the row, key and head axes, dims, scalar params
 * and params indexed by the head axis. */
/* Whether a score calls a function (tanh, exp, ...): such scores keep the
 * 4-warp configuration, the 8-warp one measured slower for them. */
static bool score_calls(const fg_expr *e)
{
    if (e->kind == E_CALL)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (score_calls(e->args[i]))
            return true;
    return false;
}

static int check_score_expr(cu *c, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return cu_fail(c, e->loc, "the score expression is nested too deeply");
    switch (e->kind) {
    case E_TENSOR:
        if (e->ref == c->ssum)
            return 0;
        return cu_fail(c, e->loc,
                       arena_printf(c->a, "the score reads '%s': the attention kernel's score "
                                          "reads only Q.K, the row, key and head indices, dims "
                                          "and params",
                                    c->p->tensors[e->ref].name));
    case E_AXIS:
        if (e->ref == c->ax_m || e->ref == c->ax_n || e->ref == c->ax_h)
            return 0;
        return cu_fail(c, e->loc,
                       arena_printf(c->a, "the score reads axis '%s': the attention kernel's "
                                          "score sees only the row, key and head indices",
                                    c->p->axes[e->ref].name));
    case E_PARAM: {
        const fg_param *pa = &c->p->params[e->ref];
        if (pa->index_axis < 0)
            return 0;
        if (pa->index_axis != c->ax_h || (e->nargs > 0 && !is_axis(e->args[0], c->ax_h)))
            return cu_fail(c, e->loc,
                           arena_printf(c->a, "param '%s' is read at another index than the "
                                              "head axis '%s'",
                                        pa->name, c->p->axes[c->ax_h].name));
        return 0;
    }
    case E_PREV: case E_ACC: case E_NAME: case E_REDUCE: case E_COUNT:
        return cu_fail(c, e->loc, "the score holds a reduction or a running value");
    default:
        for (int i = 0; i < e->nargs; i++)
            if (check_score_expr(c, e->args[i], depth + 1) < 0)
                return -1;
        return 0;
    }
}

static int role_axis(const fg_expr *e) { return e && e->kind == E_AXIS ? e->ref : -1; }

static int match_attention(cu *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    c->q = c->k = c->v = c->ssum = c->mx = c->l = c->osum = c->o = c->lse = c->tstmt = -1;

    /* the running state: one max and two sums, one of them a contraction */
    if (fz->nrunning != 3)
        return cu_fail(c, at,
                       arena_printf(c->a, "the attention kernel keeps 3 running reductions "
                                          "(max, sum, and the P.V contraction); plan '%s' has %d",
                                    p->name, fz->nrunning));
    /* a running sum corrected otherwise than by the online-softmax rescale
     * (the FlashAttention-1 form, normalised inside the sum) */
    for (int i = 0; i < fz->nrunning && c->mx < 0; i++)
        if (fz->running[i].op == R_MAX)
            c->mx = fz->running[i].tensor;
    for (int i = 0; i < fz->nrunning && c->mx >= 0; i++) {
        const fg_running *r = &fz->running[i];
        if (r->op == R_SUM && r->corr.kind != CORR_NONE && r->corr.factor && !is_rescale(c, &r->corr))
            return cu_fail(c, p->tensors[r->tensor].loc,
                           arena_printf(c->a, "the correction of '%s' is %s, not the "
                                              "online-softmax rescale exp(%s_prev - %s): the "
                                              "attention kernel keeps its sums unnormalised and "
                                              "divides once after the last tile",
                                        p->tensors[r->tensor].name,
                                        expr_to_string(c->a, p, r->corr.factor),
                                        p->tensors[c->mx].name, p->tensors[c->mx].name));
    }
    c->mx = -1;
    for (int i = 0; i < fz->nrunning; i++) {
        int t = fz->running[i].tensor;
        const fg_tensor *ts = &p->tensors[t];
        if (fz->running[i].op == R_MAX && c->mx < 0)
            c->mx = t;
        else if (fz->running[i].op == R_SUM && ts->cls == CLASS_CONTRACTION && c->osum < 0)
            c->osum = t;
        else if (fz->running[i].op == R_SUM && ts->cls == CLASS_REDUCTION && c->l < 0)
            c->l = t;
        else
            return cu_fail(c, ts->loc,
                           arena_printf(c->a, "running reduction '%s' is not one of the "
                                              "attention kernel's max, sum and P.V contraction",
                                        ts->name));
    }
    if (c->mx < 0 || c->l < 0 || c->osum < 0)
        return cu_fail(c, at, "the attention kernel needs a running max, a running sum and a "
                              "running contraction P.V");

    /* the contraction Q.K^T among the tile statements */
    for (int i = 0; i < fz->ntile; i++) {
        int t = fz->tile[i];
        const fg_tensor *ts = &p->tensors[t];
        if (ts->cls == CLASS_CONTRACTION) {
            if (c->ssum >= 0)
                return cu_fail(c, ts->loc, "a second contraction per key tile: the attention "
                                           "kernel has one (Q.K^T)");
            c->ssum = t;
        } else if (ts->cls != CLASS_ELEMENTWISE)
            return cu_fail(c, ts->loc, "a reduction per key tile that is not Q.K^T");
        if (ts->is_output)
            return cu_fail(c, ts->output_loc,
                           arena_printf(c->a, "'%s' is an output per key: the attention kernel "
                                              "writes only O and LSE",
                                        ts->name));
    }
    if (c->ssum < 0)
        return cu_fail(c, at, "no contraction Q.K^T = sum(d: Q * K) per key tile");
    const fg_tensor *S = &p->tensors[c->ssum];
    const fg_expr *body = S->body;
    if (S->op != R_SUM || !body || body->kind != E_MUL || body->args[0]->kind != E_TENSOR ||
        body->args[1]->kind != E_TENSOR ||
        p->tensors[body->args[0]->ref].kind != TENSOR_INPUT ||
        p->tensors[body->args[1]->ref].kind != TENSOR_INPUT)
        return cu_fail(c, S->loc, "the contraction per key tile is not sum(d: Q * K) of two inputs");
    c->ax_d = S->red_axis;
    c->ax_n = fz->axis;
    /* Q is the input without the key axis */
    int x = body->args[0]->ref, y = body->args[1]->ref;
    const fg_tensor *tx = &p->tensors[x], *ty = &p->tensors[y];
    bool x_has_n = false, y_has_n = false;
    for (int k = 0; k < tx->nindex; k++)
        x_has_n |= (tx->index[k]->axes >> c->ax_n) & 1u;
    for (int k = 0; k < ty->nindex; k++)
        y_has_n |= (ty->index[k]->axes >> c->ax_n) & 1u;
    if (x_has_n == y_has_n)
        return cu_fail(c, S->loc, "of the contraction's inputs exactly one (K) must carry the key axis");
    c->q = x_has_n ? y : x;
    c->k = x_has_n ? x : y;
    const fg_tensor *Q = &p->tensors[c->q], *K = &p->tensors[c->k];

    /* Q[b, h, m, d] */
    if (Q->nindex != 4 || !is_axis(Q->index[3], c->ax_d) || role_axis(Q->index[0]) < 0 ||
        role_axis(Q->index[1]) < 0 || role_axis(Q->index[2]) < 0)
        return cu_fail(c, Q->loc,
                       arena_printf(c->a, "the attention kernel reads %s[batch, head, row, %s]: "
                                          "four axes, the contracted one last",
                                    Q->name, p->axes[c->ax_d].name));
    c->ax_b = Q->index[0]->ref;
    c->ax_h = Q->index[1]->ref;
    c->ax_m = Q->index[2]->ref;
    if (c->ax_m == c->ax_n || c->ax_b == c->ax_h || c->ax_h == c->ax_m || c->ax_b == c->ax_m)
        return cu_fail(c, Q->loc, "Q's batch, head and row axes must differ");
    /* K[b, h or h / G, n, d] */
    if (K->nindex != 4 || !is_axis(K->index[0], c->ax_b) || !is_axis(K->index[2], c->ax_n) ||
        !is_axis(K->index[3], c->ax_d))
        return cu_fail(c, K->loc,
                       arena_printf(c->a, "the attention kernel reads %s[%s, kv head, %s, %s]",
                                    K->name, p->axes[c->ax_b].name, p->axes[c->ax_n].name,
                                    p->axes[c->ax_d].name));
    c->kv_head = K->index[1];
    const fg_expr *kh = c->kv_head;
    bool grouped = kh->kind == E_DIV && is_axis(kh->args[0], c->ax_h) &&
                   (kh->args[1]->kind == E_PARAM || kh->args[1]->kind == E_DIM) &&
                   kh->args[1]->type == T_INT &&
                   !(kh->args[1]->kind == E_PARAM && p->params[kh->args[1]->ref].index_axis >= 0);
    if (!is_axis(kh, c->ax_h) && !grouped)
        return cu_fail(c, kh->loc,
                       arena_printf(c->a, "the kv head of %s must be %s or %s / G (an int "
                                          "param or dim)",
                                    K->name, p->axes[c->ax_h].name, p->axes[c->ax_h].name));
    /* dims */
    c->dim_b = p->axes[c->ax_b].dim;
    c->dim_h = p->axes[c->ax_h].dim;
    c->dim_m = p->axes[c->ax_m].dim;
    c->dim_n = p->axes[c->ax_n].dim;
    c->dim_d = p->axes[c->ax_d].dim;
    c->dim_hkv = c->dim_h;
    if (grouped) {
        if (!K->extent_dims)
            return cu_fail(c, K->loc,
                           arena_printf(c->a, "%s is read at a grouped head: give its stored "
                                              "extents (%s[B, Hkv, N, D])",
                                        K->name, K->name));
        c->dim_hkv = K->extent_dims[1];
    }
    if (K->extent_dims &&
        (K->extent_dims[0] != c->dim_b || K->extent_dims[2] != c->dim_n || K->extent_dims[3] != c->dim_d))
        return cu_fail(c, K->loc, "K's stored extents must be [batch, kv heads, keys, head dim]");
    int dims_seen[6] = {c->dim_b, c->dim_h, c->dim_hkv, c->dim_m, c->dim_n, c->dim_d};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (dims_seen[i] == dims_seen[j] && !(i == 1 && j == 2 && !grouped))
                return cu_fail(c, p->dims[dims_seen[i]].loc,
                               arena_printf(c->a, "dim '%s' has two roles in the attention kernel",
                                            p->dims[dims_seen[i]].name));
    /* per-sequence lengths: only the keys, per batch, in the split kernel */
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        if (i != c->dim_n || dm->index_axis != c->ax_b)
            return cu_fail(c, dm->loc,
                           arena_printf(c->a, "dim '%s' varies per '%s': the attention kernel "
                                              "takes per-sequence lengths of the keys per batch "
                                              "only (%s[%s])",
                                        dm->name, p->axes[dm->index_axis].name,
                                        p->dims[c->dim_n].name, p->axes[c->ax_b].name));
        if (fz->form != FORM_SPLIT)
            return cu_fail(c, dm->loc,
                           arena_printf(c->a, "dim '%s' varies per '%s': per-sequence key "
                                              "lengths need the split (decode) kernel; write "
                                              "'reduce %s: split' in the schedule",
                                        dm->name, p->axes[dm->index_axis].name,
                                        p->axes[c->ax_n].name));
    }
    for (int i = 0; i < p->ndims; i++) {
        bool used = false;
        for (int j = 0; j < 6; j++)
            used |= dims_seen[j] == i;
        if (!used)
            return cu_fail(c, p->dims[i].loc,
                           arena_printf(c->a, "dim '%s' is not batch, heads, rows, keys or head "
                                              "dim: the attention kernel cannot bind it",
                                        p->dims[i].name));
    }

    /* Mx = max(n: T), L = sum(n: exp(T - Mx)), O_sum = sum(n: exp(T - Mx) * V) */
    const fg_tensor *MX = &p->tensors[c->mx];
    if (MX->body->kind != E_TENSOR || p->tensors[MX->body->ref].kind != TENSOR_STMT)
        return cu_fail(c, MX->loc, "the running max must reduce a statement (T)");
    c->tstmt = MX->body->ref;
    c->tval = inline_tiles(c, MX->body, 0);
    if (!c->tval)
        return cu_fail(c, MX->loc, "the score chain is nested too deeply");
    const fg_expr *tv = c->tval;
    if (tv->kind == E_WHERE && tv->args[2]->kind == E_NEG && tv->args[2]->args[0]->kind == E_INF) {
        c->cond = tv->args[0];
        c->score = tv->args[1];
    } else {
        c->cond = NULL;
        c->score = tv;
    }
    if (check_score_expr(c, c->score, 0) < 0)
        return -1;
    if (c->cond && check_score_expr(c, c->cond, 0) < 0)
        return -1;
    const fg_tensor *LT = &p->tensors[c->l];
    fg_expr *lb = inline_tiles(c, LT->body, 0);
    if (!lb || !is_exp_shift(c, lb))
        return cu_fail(c, LT->loc,
                       arena_printf(c->a, "the running sum '%s' must add exp(%s - %s): the "
                                          "attention kernel's body is exp(T - Mx)",
                                    LT->name, p->tensors[c->tstmt].name, MX->name));
    const fg_tensor *OS = &p->tensors[c->osum];
    fg_expr *ob = inline_tiles(c, OS->body, 0);
    int vi = -1;
    if (ob && ob->kind == E_MUL) {
        if (is_exp_shift(c, ob->args[0]) && ob->args[1]->kind == E_TENSOR)
            vi = ob->args[1]->ref;
        else if (is_exp_shift(c, ob->args[1]) && ob->args[0]->kind == E_TENSOR)
            vi = ob->args[0]->ref;
    }
    if (vi < 0 || p->tensors[vi].kind != TENSOR_INPUT)
        return cu_fail(c, OS->loc,
                       arena_printf(c->a, "the second contraction '%s' must be P.V: sum(%s: "
                                          "exp(T - %s) * V) with V an input",
                                    OS->name, p->axes[c->ax_n].name, MX->name));
    c->v = vi;
    const fg_tensor *V = &p->tensors[c->v];
    if (V->nindex != 4 || !is_axis(V->index[0], c->ax_b) || !expr_equal(V->index[1], c->kv_head) ||
        !is_axis(V->index[2], c->ax_n) || role_axis(V->index[3]) != c->ax_d)
        return cu_fail(c, V->loc,
                       arena_printf(c->a, "the attention kernel reads %s at the indices of K "
                                          "(same kv head and head dim)",
                                    V->name));
    if (OS->naxes != 4 || OS->axes[0] != c->ax_b || OS->axes[1] != c->ax_h ||
        OS->axes[2] != c->ax_m || OS->axes[3] != c->ax_d)
        return cu_fail(c, OS->loc,
                       arena_printf(c->a, "'%s' must be [%s, %s, %s, %s]", OS->name,
                                    p->axes[c->ax_b].name, p->axes[c->ax_h].name,
                                    p->axes[c->ax_m].name, p->axes[c->ax_d].name));
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_running *r = &fz->running[i];
        if (r->tensor == c->mx) {
            if (r->corr.kind != CORR_NONE)
                return cu_fail(c, MX->loc, "the running max must need no correction");
        } else if (!is_rescale(c, &r->corr)) {
            return cu_fail(c, p->tensors[r->tensor].loc,
                           arena_printf(c->a, "the correction of '%s' is not the online-softmax "
                                              "rescale exp(%s_prev - %s)",
                                        p->tensors[r->tensor].name, MX->name, MX->name));
        }
        if (p->tensors[r->tensor].is_output)
            return cu_fail(c, p->tensors[r->tensor].output_loc,
                           arena_printf(c->a, "the running value '%s' is an output: the "
                                              "attention kernel writes only O and LSE",
                                        p->tensors[r->tensor].name));
    }

    /* epilogue: O = O_sum / L, LSE = Mx + log(L) */
    for (int i = 0; i < fz->nepilogue; i++) {
        int t = fz->epilogue[i];
        const fg_tensor *ts = &p->tensors[t];
        const fg_expr *e = ts->rhs;
        if (e->kind == E_DIV && is_tensor(e->args[0], c->osum) && is_tensor(e->args[1], c->l) &&
            c->o < 0 && ts->naxes == 4 && !memcmp(ts->axes, OS->axes, 4 * sizeof(int))) {
            c->o = t;
            continue;
        }
        const fg_expr *lg = NULL, *mm = NULL;
        if (e->kind == E_ADD) {
            mm = e->args[0];
            lg = e->args[1];
            if (!is_tensor(mm, c->mx)) {
                mm = e->args[1];
                lg = e->args[0];
            }
        }
        if (mm && is_tensor(mm, c->mx) && lg->kind == E_CALL && lg->fn == F_LOG &&
            is_tensor(lg->args[0], c->l) && c->lse < 0 && ts->naxes == 3 &&
            ts->axes[0] == c->ax_b && ts->axes[1] == c->ax_h && ts->axes[2] == c->ax_m) {
            c->lse = t;
            continue;
        }
        return cu_fail(c, ts->loc,
                       arena_printf(c->a, "epilogue statement '%s' is neither O = %s / %s nor "
                                          "LSE = %s + log(%s)",
                                    ts->name, OS->name, LT->name, MX->name, LT->name));
    }
    if (c->o < 0 || !p->tensors[c->o].is_output)
        return cu_fail(c, at, "the attention kernel writes O = O_sum / L: the plan must output it");
    if (c->lse >= 0 && !p->tensors[c->lse].is_output)
        c->lse = -1;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->is_output && i != c->o && i != c->lse)
            return cu_fail(c, t->output_loc,
                           arena_printf(c->a, "output '%s': the attention kernel writes only "
                                              "O and LSE",
                                        t->name));
        if (t->kind == TENSOR_INPUT && i != c->q && i != c->k && i != c->v)
            return cu_fail(c, t->loc,
                           arena_printf(c->a, "input '%s': the attention kernel reads only Q, K "
                                              "and V",
                                        t->name));
    }
    if (fz->nprologue > 0)
        return cu_fail(c, p->tensors[fz->prologue[0]].loc,
                       "a statement before the key loop: the attention kernel has none");
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0 && pa->index_axis != c->ax_h)
            return cu_fail(c, pa->loc,
                           arena_printf(c->a, "param '%s' has one value per %s: the attention "
                                              "kernel takes per-head vectors only",
                                        pa->name, p->axes[pa->index_axis].name));
        if (pa->index_axis >= 0 && !pa->deflt)
            return cu_fail(c, pa->loc,
                           arena_printf(c->a, "param vector '%s' needs a default", pa->name));
    }
    return 0;
}

static int cu_init(cu *c, fg_arena *a, const fg_fused *fz)
{
    memset(c, 0, sizeof *c);
    c->a = a;
    c->fz = fz;
    c->p = fz->plan;
    return match_attention(c);
}

int lower_cuda_supported(fg_arena *a, const fg_fused *fz, fg_loc *loc, const char **why)
{
    cu c;
    if (cu_init(&c, a, fz) == 0)
        return 0;
    if (loc)
        *loc = c.why_loc;
    if (why)
        *why = c.why;
    return -1;
}

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

static void cu_names(cu *c)
{
    const fg_plan *p = c->p;
    c->dfield = ARENA_ARRAY(c->a, const char *, p->ndims + 1);
    c->pfield = ARENA_ARRAY(c->a, const char *, p->nparams + 1);
    for (int i = 0; i < p->ndims; i++) {
        if (i == c->dim_m)
            c->dfield[i] = "M";
        else if (i == c->dim_n)
            c->dfield[i] = "N";
        else if (i == c->dim_h)
            c->dfield[i] = "Hq";
        else if (i == c->dim_hkv)
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
}

/* ------------------------------------------------------------------ */
/* Expressions as CUDA (device) and as C++ on the host                 */
/* ------------------------------------------------------------------ */

typedef enum cu_site { CS_DEVICE, CS_HOST } cu_site;

static int cu_prec(fg_expr_kind k)
{
    switch (k) {
    case E_OR: return 1;
    case E_AND: return 2;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE: return 3;
    case E_ADD: case E_SUB: return 4;
    case E_MUL: case E_DIV: return 5;
    case E_NEG: case E_NOT: return 6;
    default: return 7;
    }
}

static const char *cu_binop(fg_expr_kind k)
{
    switch (k) {
    case E_OR: return " || ";
    case E_AND: return " && ";
    case E_LT: return " < ";
    case E_LE: return " <= ";
    case E_GT: return " > ";
    case E_GE: return " >= ";
    case E_EQ: return " == ";
    case E_NE: return " != ";
    case E_ADD: return " + ";
    case E_SUB: return " - ";
    case E_MUL: return " * ";
    case E_DIV: return " / ";
    default: return " ? ";
    }
}

static void cu_float(cb *b, double v, cu_site s)
{
    if (isinf(v)) {
        cb_puts(b, v > 0 ? "INFINITY" : "-INFINITY");
        return;
    }
    char t[64];
    snprintf(t, sizeof t, "%.9g", v);
    if (!strpbrk(t, ".eEn"))
        strcat(t, ".0");
    cb_puts(b, t);
    if (s == CS_DEVICE)
        cb_puts(b, "f");
}

static void cu_pe(cu *c, cb *b, const fg_expr *e, int prec, cu_site s);

static void cu_args(cu *c, cb *b, const fg_expr *e, cu_site s)
{
    for (int i = 0; i < e->nargs; i++) {
        if (i)
            cb_puts(b, ", ");
        if (e->args[i]->type == T_INT) {
            cb_puts(b, s == CS_DEVICE ? "(float)(" : "(double)(");
            cu_pe(c, b, e->args[i], 0, s);
            cb_puts(b, ")");
        } else
            cu_pe(c, b, e->args[i], 0, s);
    }
}

static void cu_pe(cu *c, cb *b, const fg_expr *e, int prec, cu_site s)
{
    const fg_plan *p = c->p;
    int my = cu_prec(e->kind);
    bool paren = my < prec;
    if (paren)
        cb_puts(b, "(");
    switch (e->kind) {
    case E_NUM:
        if (e->type == T_INT || (e->is_int && e->type != T_FLOAT))
            cb_printf(b, "%ld", (long)e->num);
        else
            cu_float(b, e->num, s);
        break;
    case E_INF:
        cb_puts(b, "INFINITY");
        break;
    case E_DIM:
        cb_printf(b, s == CS_HOST && e->type != T_INT ? "(double)p.%s" : "p.%s",
                  c->dfield[e->ref]);
        break;
    case E_AXIS:
        if (e->ref == c->ax_m)
            cb_puts(b, "i");
        else if (e->ref == c->ax_n)
            cb_puts(b, "j");
        else if (e->ref == c->ax_h)
            cb_puts(b, "h");
        else
            cb_puts(b, p->axes[e->ref].name);
        break;
    case E_PARAM:
        if (p->params[e->ref].index_axis >= 0)
            cb_printf(b, s == CS_HOST ? "p.%s[h]" : "plan_%s_at(p, h)", c->pfield[e->ref]);
        else
            cb_printf(b, "p.%s", c->pfield[e->ref]);
        break;
    case E_TENSOR:
        cb_puts(b, e->ref == c->ssum ? "qk" : p->tensors[e->ref].name);
        break;
    case E_NEG:
        cb_puts(b, "-");
        cu_pe(c, b, e->args[0], 7, s);
        break;
    case E_NOT:
        cb_puts(b, "!");
        cu_pe(c, b, e->args[0], 7, s);
        break;
    case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_OR: case E_AND:
        cu_pe(c, b, e->args[0], my, s);
        cb_puts(b, cu_binop(e->kind));
        cu_pe(c, b, e->args[1], my + 1, s);
        break;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
        cu_pe(c, b, e->args[0], my + 1, s);
        cb_puts(b, cu_binop(e->kind));
        cu_pe(c, b, e->args[1], my + 1, s);
        break;
    case E_POW:
        cb_puts(b, s == CS_DEVICE ? "powf(" : "pow(");
        cu_args(c, b, e, s);
        cb_puts(b, ")");
        break;
    case E_CALL: {
        bool all_int = true;
        for (int i = 0; i < e->nargs; i++)
            all_int = all_int && e->args[i]->type == T_INT;
        bool dev = s == CS_DEVICE;
        const char *f = "?";
        bool int_fn = all_int && (e->fn == F_ABS || e->fn == F_MIN || e->fn == F_MAX);
        switch (e->fn) {
        case F_EXP: f = dev ? "__expf" : "exp"; break;
        case F_EXP2: f = dev ? "exp2f" : "exp2"; break;
        case F_LOG: f = dev ? "__logf" : "log"; break;
        case F_LOG2: f = dev ? "__log2f" : "log2"; break;
        case F_TANH: f = dev ? "fa_tanh" : "tanh"; break;
        case F_SIGMOID: f = dev ? "plan_sigmoid" : "plan_sigmoid_host"; break;
        case F_SQRT: f = dev ? "sqrtf" : "sqrt"; break;
        case F_RSQRT: f = dev ? "rsqrtf" : "plan_rsqrt_host"; break;
        case F_ABS: f = int_fn ? "abs" : dev ? "fabsf" : "fabs"; break;
        case F_MIN: f = int_fn ? "min" : dev ? "fminf" : "fmin"; break;
        case F_MAX: f = int_fn ? "max" : dev ? "fmaxf" : "fmax"; break;
        case F_POW: f = dev ? "powf" : "pow"; break;
        case F_COUNT: break;
        }
        if (int_fn && s == CS_HOST)
            f = e->fn == F_ABS ? "labs" : e->fn == F_MIN ? "plan_min_host" : "plan_max_host";
        cb_printf(b, "%s(", f);
        if (int_fn) {
            for (int i = 0; i < e->nargs; i++) {
                if (i)
                    cb_puts(b, ", ");
                cu_pe(c, b, e->args[i], 0, s);
            }
        } else
            cu_args(c, b, e, s);
        cb_puts(b, ")");
        break;
    }
    case E_WHERE:
        if (paren)
            b->len--, b->s[b->len] = '\0', paren = false;
        cb_puts(b, "(");
        cu_pe(c, b, e->args[0], 2, s);
        cb_puts(b, " ? ");
        cu_pe(c, b, e->args[1], 1, s);
        cb_puts(b, " : ");
        cu_pe(c, b, e->args[2], 1, s);
        cb_puts(b, ")");
        break;
    default:
        cb_puts(b, "0");
        break;
    }
    if (paren)
        cb_puts(b, ")");
}

static char *cu_text(cu *c, const fg_expr *e, cu_site s)
{
    cb b = {c->a, NULL, 0, 0};
    cu_pe(c, &b, e, 0, s);
    return cb_str(&b);
}

/* Plan syntax of an expression, for comments. */
static char *plan_expr(cu *c, const fg_expr *e)
{
    return comment_text(c->a, expr_to_string(c->a, c->p, e));
}

/* ------------------------------------------------------------------ */
/* The score in the exp2 domain                                        */
/* ------------------------------------------------------------------ */

/* 0: a host constant (numbers, dims, scalar params); 1: per head (reads the
 * head axis or a per-head param); 2: varies per element. */
static int constness(cu *c, const fg_expr *e)
{
    switch (e->kind) {
    case E_NUM: case E_INF: case E_DIM: return 0;
    case E_PARAM: return c->p->params[e->ref].index_axis >= 0 ? 1 : 0;
    case E_AXIS: return e->ref == c->ax_h ? 1 : 2;
    case E_TENSOR: return 2;
    default: {
        int k = 0;
        for (int i = 0; i < e->nargs; i++) {
            int x = constness(c, e->args[i]);
            if (x > k)
                k = x;
        }
        return k;
    }
    }
}

/* The factors of a product/quotient chain: numerators and denominators. */
typedef struct factors {
    const fg_expr *num[32], *den[32];
    int nnum, nden;
    bool ok;
} factors;

static void collect(const fg_expr *e, bool den, factors *f)
{
    if (e->kind == E_MUL && e->type == T_FLOAT) {
        collect(e->args[0], den, f);
        collect(e->args[1], den, f);
    } else if (e->kind == E_DIV && e->type == T_FLOAT) {
        collect(e->args[0], den, f);
        collect(e->args[1], !den, f);
    } else if (den) {
        if (f->nden < 32)
            f->den[f->nden++] = e;
        else
            f->ok = false;
    } else {
        if (f->nnum < 32)
            f->num[f->nnum++] = e;
        else
            f->ok = false;
    }
}

/* A hoisted constant: the product of the constant factors (times
 * log2(e) when l2); its field name.  Host constants are computed in double
 * on the host, per-head ones on the device in plan_head_setup. */
static const char *hoist(cu *c, factors *f, bool l2, bool per_head)
{
    cb b = {c->a, NULL, 0, 0}, why = {c->a, NULL, 0, 0};
    cu_site s = per_head ? CS_DEVICE : CS_HOST;
    int n = 0;
    for (int i = 0; i < f->nnum; i++)
        if (constness(c, f->num[i]) < 2) {
            if (n++) {
                cb_puts(&b, " * ");
                cb_puts(&why, " * ");
            }
            cu_pe(c, &b, f->num[i], 6, s);
            cb_puts(&why, plan_expr(c, f->num[i]));
        }
    if (!n) {
        cb_puts(&b, s == CS_HOST ? "1.0" : "1.0f");
        cb_puts(&why, "1");
    }
    for (int i = 0; i < f->nden; i++)
        if (constness(c, f->den[i]) < 2) {
            cb_puts(&b, " / ");
            cu_pe(c, &b, f->den[i], 6, s);
            cb_printf(&why, " / %s", plan_expr(c, f->den[i]));
        }
    if (l2) {
        cb_puts(&b, s == CS_HOST ? " * 1.4426950408889634" : " * 1.44269504f");
        cb_puts(&why, " * log2(e)");
    }
    if (per_head) {
        if (c->nhead >= CU_MAX_HOIST)
            return NULL;
        c->head_expr[c->nhead] = cb_str(&b);
        c->head_why[c->nhead] = cb_str(&why);
        return arena_printf(c->a, "hc%d_", c->nhead++);
    }
    if (c->nhost >= CU_MAX_HOIST)
        return NULL;
    c->host_expr[c->nhost] = cb_str(&b);
    c->host_why[c->nhost] = cb_str(&why);
    return arena_printf(c->a, "c%d_", c->nhost++);
}

static void score_pe(cu *c, cb *b, const fg_expr *e, int prec, bool l2);

/* A float product chain with constant factors: the varying factors times
 * one hoisted constant. */
static bool score_product(cu *c, cb *b, const fg_expr *e, int prec, bool l2)
{
    if (!(e->type == T_FLOAT && (e->kind == E_MUL || e->kind == E_DIV)))
        return false;
    factors f = {.ok = true};
    collect(e, false, &f);
    if (!f.ok)
        return false;
    int nconst = 0, nvar = 0, worst = 0;
    for (int i = 0; i < f.nnum; i++) {
        int k = constness(c, f.num[i]);
        if (k < 2) {
            nconst++;
            worst = k > worst ? k : worst;
        } else
            nvar++;
    }
    for (int i = 0; i < f.nden; i++) {
        int k = constness(c, f.den[i]);
        if (k < 2) {
            nconst++;
            worst = k > worst ? k : worst;
        } else
            nvar++;
    }
    if (nvar == 0 || (nconst == 0 && !l2))
        return false;
    const char *k = hoist(c, &f, l2, worst == 1);
    if (!k)
        return false;
    bool paren = 5 < prec;
    if (paren)
        cb_puts(b, "(");
    int n = 0;
    for (int i = 0; i < f.nnum; i++)
        if (constness(c, f.num[i]) == 2) {
            if (n++)
                cb_puts(b, " * ");
            score_pe(c, b, f.num[i], 6, false);
        }
    for (int i = 0; i < f.nden; i++)
        if (constness(c, f.den[i]) == 2) {
            cb_puts(b, " / ");
            score_pe(c, b, f.den[i], 6, false);
        }
    cb_printf(b, " * p.%s", k);
    if (paren)
        cb_puts(b, ")");
    return true;
}

/* The score (times log2(e) when l2), constants hoisted where they multiply. */
static void score_pe(cu *c, cb *b, const fg_expr *e, int prec, bool l2)
{
    if (e->type == T_FLOAT && constness(c, e) == 2) {
        if ((e->kind == E_ADD || e->kind == E_SUB) && l2) {
            bool paren = 4 < prec;
            if (paren)
                cb_puts(b, "(");
            score_pe(c, b, e->args[0], 4, true);
            cb_puts(b, cu_binop(e->kind));
            if (e->args[1]->type == T_FLOAT && constness(c, e->args[1]) == 2)
                score_pe(c, b, e->args[1], 5, true);
            else {
                factors f = {.ok = true};
                f.num[f.nnum++] = e->args[1];
                if (constness(c, e->args[1]) < 2 && e->args[1]->type == T_FLOAT) {
                    const char *k = hoist(c, &f, true, constness(c, e->args[1]) == 1);
                    if (k) {
                        cb_printf(b, "p.%s", k);
                        if (paren)
                            cb_puts(b, ")");
                        return;
                    }
                }
                cb_puts(b, "(");
                cu_pe(c, b, e->args[1], 0, CS_DEVICE);
                cb_puts(b, ") * 1.44269504f");
            }
            if (paren)
                cb_puts(b, ")");
            return;
        }
        if (e->kind == E_NEG && l2) {
            cb_puts(b, "-");
            score_pe(c, b, e->args[0], 7, true);
            return;
        }
        if (score_product(c, b, e, prec, l2))
            return;
        if (e->kind == E_CALL && !l2) {
            bool dev_int = false;
            for (int i = 0; i < e->nargs; i++)
                dev_int |= e->args[i]->type == T_INT;
            if (!dev_int && e->fn != F_MIN && e->fn != F_MAX && e->fn != F_ABS &&
                e->fn != F_POW && e->fn != F_SIGMOID) {
                cb tmp = {c->a, NULL, 0, 0};
                cu_pe(c, &tmp, e, 0, CS_DEVICE);
                /* the function name, then its argument through score_pe */
                const char *open = strchr(cb_str(&tmp), '(');
                cb_putn(b, tmp.s, (size_t)(open - tmp.s) + 1);
                score_pe(c, b, e->args[0], 0, false);
                cb_puts(b, ")");
                return;
            }
        }
    }
    if (l2) {
        bool paren = 5 < prec;
        if (paren)
            cb_puts(b, "(");
        cb_puts(b, "(");
        cu_pe(c, b, e, 0, CS_DEVICE);
        cb_puts(b, ") * 1.44269504f");
        if (paren)
            cb_puts(b, ")");
        return;
    }
    cu_pe(c, b, e, prec, CS_DEVICE);
}

/* qk * c or qk / c (c a host constant), or qk alone: the kernel's FFMA fold. */
static const fg_expr *scaled_qk(cu *c, const fg_expr *e, bool *is_div)
{
    *is_div = false;
    if (is_tensor(e, c->ssum))
        return e;
    if (e->kind == E_MUL) {
        if (is_tensor(e->args[0], c->ssum) && constness(c, e->args[1]) == 0)
            return e->args[1];
        if (is_tensor(e->args[1], c->ssum) && constness(c, e->args[0]) == 0)
            return e->args[0];
    }
    if (e->kind == E_DIV && is_tensor(e->args[0], c->ssum) && constness(c, e->args[1]) == 0) {
        *is_div = true;
        return e->args[1];
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* The definitions                                                     */
/* ------------------------------------------------------------------ */

static char *mask_print_cuda(void *ctx, const fg_expr *e)
{
    cu *c = ctx;
    return cu_text(c, e, CS_DEVICE);
}

/* The statement as written on its plan line, for comments. */
static char *plan_line(cu *c, int t)
{
    const fg_tensor *ts = &c->p->tensors[t];
    const char *rhs = ts->rhs ? expr_to_string(c->a, c->p, ts->rhs) : "";
    return comment_text(c->a, arena_printf(c->a, "%s = %s, plan line %d", ts->name, rhs,
                                           ts->loc.line));
}

static bool divides_by(const fg_expr *e, int param, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_DIV && e->args[1]->kind == E_PARAM && e->args[1]->ref == param)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (divides_by(e->args[i], param, depth + 1))
            return true;
    return false;
}

static bool plan_divides_by(const fg_plan *p, int param)
{
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        for (int k = 0; k < t->nindex; k++)
            if (divides_by(t->index[k], param, 0))
                return true;
        if (t->rhs && divides_by(t->rhs, param, 0))
            return true;
    }
    for (int i = 0; i < p->nparams; i++)
        if (p->params[i].deflt && divides_by(p->params[i].deflt, param, 0))
            return true;
    return false;
}

int lower_cuda(fg_arena *a, const fg_fused *fz, fg_defs *defs, const char **template_rel,
               fg_diag *d)
{
    cu c;
    if (cu_init(&c, a, fz) < 0) {
        diag_error(d, c.why_loc, "plan '%s' does not fit the CUDA attention kernel: %s",
                   fz->plan->name, c.why);
        return -1;
    }
    cu_names(&c);
    const fg_plan *p = fz->plan;
    const char *entry = arena_printf(a, "fg_%s", p->name);
    *template_rel = "cuda/attention.m4";
    bool split = fz->form == FORM_SPLIT;
    fg_def_bool(defs, "cuda_split", split);
    fg_def_str(defs, "cuda_ns", arena_printf(a, "attn_%s", p->name));
    fg_def_str(defs, "cuda_entry_name", entry);

    /* ---- the score, in the exp2 domain */
    bool is_div = false;
    const fg_expr *fold = scaled_qk(&c, c.score, &is_div);
    cb score = {a, NULL, 0, 0};
    const char *fold_k = NULL;
    if (fold) {
        factors f = {.ok = true};
        if (fold != c.score && fold->kind != E_TENSOR)
            (is_div ? f.den : f.num)[is_div ? f.nden++ : f.nnum++] = fold;
        fold_k = hoist(&c, &f, true, false);
        cb_printf(&score, "qk * p.%s", fold_k);
    } else
        score_pe(&c, &score, c.score, 0, true);

    /* ---- plan_params fields */
    cb fields = {a, NULL, 0, 0};
    cb_puts(&fields, "    int M, N;   /* query rows and keys (the decode kernel sets them per sequence) */\n");
    cb_puts(&fields, "    int Hq, Hkv; /* query and kv heads */\n");
    cb_puts(&fields, "    int off;    /* N - M: query i sits at key position i + off */\n");
    for (int i = 0; i < p->ndims; i++)
        if (i != c.dim_m && i != c.dim_n && i != c.dim_h && i != c.dim_hkv)
            cb_printf(&fields, "    int %s; /* dim %s */\n", c.dfield[i], p->dims[i].name);
    bool has_vectors = false;
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0) {
            has_vectors = true;
            cb_printf(&fields,
                      "    const float *%s; /* param %s[%s]: the caller's values in device "
                      "memory, NULL: the default */\n",
                      c.pfield[i], pa->name, p->axes[pa->index_axis].name);
        } else
            cb_printf(&fields, "    %s %s; /* param %s */\n", pa->dtype == DT_INT ? "int" : "float",
                      c.pfield[i], pa->name);
    }
    for (int i = 0; i < c.nhost; i++)
        cb_printf(&fields, "    float c%d_; /* %s */\n", i, c.host_why[i]);
    for (int i = 0; i < c.nhead; i++)
        cb_printf(&fields, "    float hc%d_; /* %s, this CTA's head */\n", i, c.head_why[i]);
    fg_def_code(defs, "cuda_params_fields", cb_str(&fields));
    fg_def_bool(defs, "cuda_vectors", has_vectors);

    /* ---- hooks */
    fg_def_int(defs, "cuda_schedule", c.cond ? 1 : 0);
    fg_def_bool(defs, "cuda_fold", fold != NULL);
    fg_def_str(defs, "cuda_fold_scale", fold_k ? arena_printf(a, "p.%s", fold_k) : "1.f");
    cb hs = {a, NULL, 0, 0};
    for (int i = 0; i < c.nhead; i++)
        cb_printf(&hs, "    p.hc%d_ = %s; /* %s */\n", i, c.head_expr[i], c.head_why[i]);
    if (!c.nhead)
        cb_puts(&hs, "    (void)p;\n    (void)h;\n");
    fg_def_code(defs, "cuda_head_setup", cb_str(&hs));
    fg_def_code(defs, "cuda_score", cb_str(&score));
    /* the statements of the score chain, for the comment */
    cb chain = {a, NULL, 0, 0};
    for (int k = 0; k < p->norder; k++) {
        int t = p->order[k];
        if (t < 0 || t >= p->ntensors || fz->role[t] != ROLE_TILE)
            continue;
        if (t == c.ssum || t == c.tstmt ||
            (p->tensors[t].cls == CLASS_ELEMENTWISE &&
             !(inline_tiles(&c, p->tensors[t].rhs, 0) &&
               is_exp_shift(&c, inline_tiles(&c, p->tensors[t].rhs, 0)))))
            cb_printf(&chain, "//   %s\n", plan_line(&c, t));
    }
    fg_def_code(defs, "cuda_score_chain", cb_str(&chain));
    fg_def_str(defs, "cuda_visible",
               c.cond ? cu_text(&c, c.cond, CS_DEVICE) : "true");
    fg_def_str(defs, "cuda_mask_origin",
               c.cond ? plan_line(&c, fz->mask.stmt >= 0 ? fz->mask.stmt : c.tstmt)
                      : "no mask: every key visible");
    /* Tiles are classified from masks.c's analysis when it is over the row
     * and key axes; otherwise every tile applies the condition. */
    bool mask = fz->mask.present && c.cond && fz->mask.row_axis == c.ax_m &&
                fz->mask.col_axis == c.ax_n;
    fg_def_bool(defs, "cuda_mask", mask);
    fg_def_bool(defs, "cuda_masked", c.cond != NULL);
    /* the tile configurations and the dispatch over them (cuda_configs.c) */
    cuda_config_defs(a, defs, split, !score_calls(c.score), mask);
    fg_def_bool(defs, "cuda_mask_skip", mask && fz->mask_skippable);
    fg_def_code(defs, "cuda_tile_state",
                mask ? mask_emit_tile_state(a, &fz->mask, mask_print_cuda, &c) : "");
    /* The kernels call plan_key_range with every lane of each warp: the
     * lanes split the rows of masks.c's walk and merge their ranges. */
    char *kr = mask && fz->mask_skippable ? mask_emit_key_range(a, &fz->mask, mask_print_cuda, &c)
                                          : "";
    static const char walk[] = "for (long row = r0; row < r1; ++row) {";
    char *at = strstr(kr, walk);
    bool lanes = at && !strstr(at + 1, walk);
    if (lanes)
        kr = arena_printf(a, "%.*sfor (long row = r0 + lane; row < r1; row += 32) {%s",
                          (int)(at - kr), kr, at + strlen(walk));
    fg_def_code(defs, "cuda_key_range", kr);
    fg_def_bool(defs, "cuda_key_range_lanes", lanes);
    const fg_running *rl = NULL;
    for (int i = 0; i < fz->nrunning; i++)
        if (fz->running[i].tensor == c.l)
            rl = &fz->running[i];
    const fg_tensor *MX = &p->tensors[c.mx];
    fg_def_str(defs, "cuda_correction_origin",
               comment_text(a, arena_printf(a, "%s and %s: running sums under a moving max; "
                                               "correction %s from %s, plan line %d (%s)",
                                            p->tensors[c.l].name, p->tensors[c.osum].name,
                                            expr_to_string(a, p, rl->corr.factor),
                                            rl->corr.origin >= 0
                                                ? p->tensors[rl->corr.origin].name
                                                : "P",
                                            rl->corr.origin >= 0
                                                ? p->tensors[rl->corr.origin].loc.line
                                                : p->tensors[c.l].loc.line,
                                            rl->corr.why ? rl->corr.why : "")));
    fg_def_str(defs, "cuda_max_name", MX->name);
    fg_def_str(defs, "cuda_epilogue_origin",
               comment_text(a, arena_printf(a, "%s (plan line %d)%s%s", plan_line(&c, c.o),
                                            p->tensors[c.o].loc.line, c.lse >= 0 ? "; " : "",
                                            c.lse >= 0 ? plan_line(&c, c.lse) : "")));

    /* ---- host: binding dims, params, validation */
    const fg_tensor *Q = &p->tensors[c.q], *K = &p->tensors[c.k], *V = &p->tensors[c.v];
    const fg_tensor *O = &p->tensors[c.o];
    fg_def_str(defs, "cuda_Q", Q->name);
    fg_def_str(defs, "cuda_K", K->name);
    fg_def_str(defs, "cuda_V", V->name);
    fg_def_str(defs, "cuda_O", O->name);
    fg_def_bool(defs, "cuda_lse", c.lse >= 0);
    fg_def_str(defs, "cuda_LSE", c.lse >= 0 ? p->tensors[c.lse].name : "");
    fg_def_str(defs, "cuda_dim_B", p->dims[c.dim_b].name);
    fg_def_str(defs, "cuda_dim_H", p->dims[c.dim_h].name);
    fg_def_str(defs, "cuda_dim_Hkv", p->dims[c.dim_hkv].name);
    fg_def_str(defs, "cuda_dim_M", p->dims[c.dim_m].name);
    fg_def_str(defs, "cuda_dim_N", p->dims[c.dim_n].name);
    /* splits = N in the schedule: what args.splits = 0 asks for (else auto) */
    int plan_splits = p->sched.form == FORM_SPLIT ? p->sched.splits : 0;
    fg_def_int(defs, "cuda_plan_splits", plan_splits);
    fg_def_str(defs, "cuda_plan_splits_text",
               plan_splits ? arena_printf(a, "%d", plan_splits) : "auto");
    fg_def_str(defs, "cuda_kv_len",
               p->dims[c.dim_n].index_axis >= 0
                   ? arena_printf(a, "args->%s_len", p->dims[c.dim_n].name)
                   : "nullptr");
    fg_def_str(defs, "cuda_dim_D", p->dims[c.dim_d].name);
    cb dimset = {a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        if (i == c.dim_m || i == c.dim_n || i == c.dim_h || i == c.dim_hkv)
            continue;
        const char *src = i == c.dim_b ? "B" : i == c.dim_d ? "D" : "0";
        cb_printf(&dimset, "  p.%s = (int)%s;\n", c.dfield[i], src);
    }
    /* params in declaration order: given, or the default */
    cb params = {a, NULL, 0, 0}, vec_fns = {a, NULL, 0, 0}, vec_copy = {a, NULL, 0, 0};
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        const char *f = c.pfield[i];
        if (pa->index_axis >= 0) {
            cb_printf(&vec_fns,
                      "/* param %s[%s], default %s */\n"
                      "__device__ __forceinline__ float plan_%s_at(const plan_params& p, int h) {\n"
                      "  return p.%s ? p.%s[h] : (float)(%s);\n}\n",
                      pa->name, p->axes[pa->index_axis].name, plan_expr(&c, pa->deflt), f, f, f,
                      cu_text(&c, pa->deflt, CS_DEVICE));
            cb_printf(&vec_copy, "  { args->%s, &p.%s, \"%s\" },\n", pa->name, f, pa->name);
            continue;
        }
        const char *de = pa->deflt ? cu_text(&c, pa->deflt, CS_HOST) : NULL;
        if (pa->dtype == DT_INT) {
            if (de)
                cb_printf(&params, "  p.%s = args->has_%s ? args->%s : (int)(%s);\n", f,
                          pa->name, pa->name, de);
            else
                cb_printf(&params,
                          "  if (!args->has_%s)\n"
                          "    return fg_set_error(FG_ERR_PARAM, \"%s: param %s is required\");\n"
                          "  p.%s = args->%s;\n",
                          pa->name, entry, pa->name, f, pa->name);
            if (plan_divides_by(p, i))
                cb_printf(&params,
                          "  if (p.%s <= 0)\n"
                          "    return fg_set_error(FG_ERR_PARAM, \"%s: param %s = %%d: it "
                          "divides, so it must be > 0\", p.%s);\n",
                          f, entry, pa->name, f);
        } else {
            if (de)
                cb_printf(&params, "  p.%s = args->has_%s ? args->%s : (float)(%s);\n", f,
                          pa->name, pa->name, de);
            else
                cb_printf(&params,
                          "  if (!args->has_%s)\n"
                          "    return fg_set_error(FG_ERR_PARAM, \"%s: param %s is required\");\n"
                          "  p.%s = args->%s;\n",
                          pa->name, entry, pa->name, f, pa->name);
        }
    }
    /* the kernel maps query head h to kv head h / (Hq / Hkv) */
    if (c.kv_head->kind != E_DIV)
        cb_printf(&params,
                  "  if (Hkv != Hq)\n"
                  "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s has %%lld heads, %s has %%lld: "
                  "they read the same head %s\", (long long)Hkv, (long long)Hq);\n",
                  entry, K->name, Q->name, p->axes[c.ax_h].name);
    if (c.kv_head->kind == E_DIV) {
        const char *g = cu_text(&c, c.kv_head->args[1], CS_HOST);
        cb_printf(&params,
                  "  if ((long)(%s) * Hkv != Hq)\n"
                  "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s = %%ld query heads, %s = "
                  "%%ld kv heads and %s = %%ld: the kernel needs %s = %s * %s\", (long)Hq, "
                  "(long)Hkv, (long)(%s));\n",
                  g, entry, p->dims[c.dim_h].name, p->dims[c.dim_hkv].name,
                  expr_to_string(a, p, c.kv_head->args[1]), p->dims[c.dim_h].name,
                  expr_to_string(a, p, c.kv_head->args[1]), p->dims[c.dim_hkv].name, g);
    }
    for (int i = 0; i < c.nhost; i++)
        cb_printf(&params, "  p.c%d_ = (float)(%s); /* %s */\n", i, c.host_expr[i],
                  c.host_why[i]);
    if (fold && fold_k)
        cb_printf(&params,
                  "  if (!(p.%s > 0.0f) || isinf(p.%s))\n"
                  "    return fg_set_error(FG_ERR_PARAM, \"%s: the score is Q.K times %s = "
                  "%%g: the kernel takes the row max before scaling, so it must be finite and "
                  "> 0\", (double)p.%s);\n",
                  fold_k, fold_k, entry,
                  comment_text(a, expr_to_string(a, p, fold == c.score ? c.score : fold)), fold_k);
    fg_def_code(defs, "cuda_set_dims", cb_str(&dimset));
    fg_def_code(defs, "cuda_vector_fns", cb_str(&vec_fns));
    fg_def_code(defs, "cuda_vector_copies", cb_str(&vec_copy));
    fg_def_code(defs, "cuda_set_params", cb_str(&params));
    fg_def_str(defs, "cuda_plan_line_S", arena_printf(a, "%d", p->tensors[c.ssum].loc.line));
    fg_def_str(defs, "cuda_T_name", p->tensors[c.tstmt].name);
    return 0;
}

/* The plan's entry in fusegen_plans_cuda.c: a wrapper that takes the
 * registry's arrays. */
int lower_cuda_registry_entry(fg_arena *a, const fg_fused *fz, char **code, char **entry_name,
                              fg_diag *d)
{
    const fg_plan *p = fz->plan;
    const char *n = p->name;
    (void)d;
    cb b = {a, NULL, 0, 0};
    cb_printf(&b,
              "static fg_status %s_cuda_(const fg_tensor *inputs, const fg_tensor *outputs,\n"
              "                          const double *params, const int *has_params,\n"
              "                          const float *const *param_vectors,\n"
              "                          const int32_t *const *lens, int splits, void *stream)\n{\n"
              "    fg_%s_args a_;\n    memset(&a_, 0, sizeof a_);\n"
              "    (void)params;\n    (void)has_params;\n    (void)param_vectors;\n"
              "    (void)lens;\n"
              "    if (!inputs || !outputs)\n"
              "        return fg_set_error(FG_ERR_NULL, \"%s: inputs or outputs is NULL\");\n",
              n, n, n);
    int ki = 0, ko = 0;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == TENSOR_INPUT)
            cb_printf(&b, "    a_.%s = inputs[%d];\n", p->tensors[i].name, ki++);
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].is_output)
            cb_printf(&b, "    a_.%s = outputs[%d];\n", p->tensors[i].name, ko++);
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            cb_printf(&b, "    a_.%s = param_vectors ? param_vectors[%d] : NULL;\n", pa->name, i);
        else
            cb_printf(&b,
                      "    if (params && has_params && has_params[%d]) {\n"
                      "        a_.%s = (%s)params[%d];\n        a_.has_%s = 1;\n    }\n",
                      i, pa->name, pa->dtype == DT_INT ? "int" : "float", i, pa->name);
    }
    for (int i = 0; i < p->ndims; i++)
        if (p->dims[i].index_axis >= 0)
            cb_printf(&b, "    a_.%s_len = lens ? lens[%d] : NULL;\n", p->dims[i].name, i);
    cb_printf(&b,
              "    a_.splits = splits;\n"
              "    return fg_%s(&a_, (struct CUstream_st *)stream);\n}\n",
              n);
    *code = cb_str(&b);
    *entry_name = arena_printf(a, "%s_cuda_", n);
    return 0;
}
