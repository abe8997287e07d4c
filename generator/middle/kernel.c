/* kernel.c - the kernel model: a fused plan as the backends read it.
 *
 * Runs once per plan after fuse (and masks, which fuse runs).  Everything a
 * backend needs that is not the backend's own business is decided here,
 * once, as data (fg_kernel in generator.h):
 *   - the family and the role of every tensor, axis and dim: whether the
 *     plan is attention as the GPU kernels compute it is decided here and
 *     nowhere else (match_attention; a located reason when it is not);
 *   - the resolved schedule: tiles, warps, stages, splits, targets, which
 *     axis is the row tile and which rows loop outside it;
 *   - the running values with their derived corrections (fuse.c's, not
 *     re-derived);
 *   - the score of the attention family in the exp2 domain with its
 *     constant factors hoisted (per launch on the host, or per head), as an
 *     expression tree whose E_KCONST leaves name fg_kernel.consts;
 *   - the mask's use (tile classes over rows and keys, skippable tiles),
 *     divisibility facts, per-head param vectors.
 * `fusegen --dump=kernel` prints it (dump_kernel.c).
 */
#include "kernel_internal.h"

#include <math.h>
#include <string.h>

const char *const fg_family_names[2] = {"attention", "rowreduce"};

int kb_fail(kb *c, fg_loc loc, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->why_loc = loc;
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Matching the attention structure                                    */
/* ------------------------------------------------------------------ */

/* The GPU attention kernels compute S_sum = sum(d: Q * K), a chain of
 * elementwise statements that ends in T (optionally where(cond, X, -inf)),
 * Mx = max(n: T), P = exp(T - Mx), L = sum(n: P), O = sum(n: P * V) / L,
 * LSE = Mx + log(L) (optional), with the corrections exp(Mx_prev - Mx);
 * or, without the softmax chain, O = sum(n: W(T) * V) alone, W a function
 * of T that is 0 where T is -inf (sigmoid attention). */


/* e with every elementwise tile statement inlined; S_sum and running values
 * stay references. */
static fg_expr *inline_tiles(kb *c, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH + c->p->ntensors)
        return NULL;
    if (e->kind == E_TENSOR) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
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

/* exp(X - Mx), or exp2 in base 2 */
static bool is_exp_shift(kb *c, const fg_expr *e)
{
    return e->kind == E_CALL && e->fn == (c->base2 ? F_EXP2 : F_EXP) && e->nargs == 1 &&
           e->args[0]->kind == E_SUB &&
           expr_equal(e->args[0]->args[0], c->tval) && is_tensor(e->args[0]->args[1], c->mx);
}

/* exp(Mx_prev - Mx), or exp2 in base 2 */
static bool is_rescale(kb *c, const fg_correction *k)
{
    const fg_expr *f = k->factor;
    return k->kind == CORR_SCALE && f && f->kind == E_CALL && f->fn == (c->base2 ? F_EXP2 : F_EXP) &&
           f->nargs == 1 &&
           f->args[0]->kind == E_SUB && f->args[0]->args[0]->kind == E_PREV &&
           f->args[0]->args[0]->ref == c->mx && is_tensor(f->args[0]->args[1], c->mx);
}

/* L_prev / L * exp(Mx_prev - Mx): the FlashAttention-1 form, the P.V sum
 * kept divided by the running sum L (its tensor in *l).  The kernels keep
 * it undivided and divide once after the last tile: the same value. */
static bool is_fa1_rescale(kb *c, const fg_correction *k, int *l)
{
    const fg_expr *f = k->factor;
    if (k->kind != CORR_SCALE || !f || f->kind != E_MUL)
        return false;
    for (int s = 0; s < 2; s++) {
        const fg_expr *r = f->args[s];
        fg_correction rest = {.kind = CORR_SCALE, .factor = f->args[1 - s]};
        if (r->kind == E_DIV && r->args[0]->kind == E_PREV &&
            is_tensor(r->args[1], r->args[0]->ref) && is_rescale(c, &rest)) {
            *l = r->args[0]->ref;
            return true;
        }
    }
    return false;
}

/* e = W / L * V or W * V / L, the sum L in the FlashAttention-1 form: W * V. */
static fg_expr *undivided(kb *c, fg_expr *e)
{
    if (c->fa1_l < 0 || !e)
        return e;
    if (e->kind == E_DIV && is_tensor(e->args[1], c->fa1_l))
        return e->args[0];
    if (e->kind != E_MUL)
        return e;
    for (int s = 0; s < 2; s++) {
        fg_expr *d = e->args[s];
        if (d->kind == E_DIV && is_tensor(d->args[1], c->fa1_l)) {
            fg_expr *n = expr_clone(c->a, e);
            n->args[s] = d->args[0];
            return n;
        }
    }
    return e;
}

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

/* The score may read qk, the batch, row, key and head axes, dims, scalar
 * params, params indexed by the head axis, and inputs other than Q and K
 * (kept in c->aux) at indices over those axes.  The weight of a plan
 * without a softmax chain (c->in_weight) may read the same, with its
 * masked score (E_ACC) in place of qk. */
static int check_score_expr(kb *c, const fg_expr *e, int depth)
{
    const char *what = c->in_weight ? "weight" : "score";
    if (depth > FG_MAX_EXPR_DEPTH)
        return kb_fail(c, e->loc,
                       arena_printf(c->a, "the %s expression is nested too deeply", what));
    switch (e->kind) {
    case E_TENSOR: {
        if (e->ref == c->ssum && c->in_weight)
            return kb_fail(c, e->loc,
                           "the weight reads Q.K outside its masked score: the attention "
                           "kernel gives the weight the masked score alone");
        if (e->ref == c->ssum)
            return 0;
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
        if (t->kind != TENSOR_INPUT)
            return kb_fail(c, e->loc,
                           arena_printf(c->a, "the %s reads '%s': the attention kernel's "
                                              "%s reads only Q.K, the indices, dims, params "
                                              "and inputs",
                                        what, t->name, what));
        if (e->ref == c->q || e->ref == c->k_)
            return kb_fail(c, e->loc,
                           arena_printf(c->a, "the %s reads '%s' outside Q.K: the attention "
                                              "kernel reads Q and K only in the contraction",
                                        what, t->name));
        if (c->in_weight && e->ref == c->v)
            return kb_fail(c, e->loc,
                           arena_printf(c->a, "the weight reads '%s': the attention kernel "
                                              "reads V only in the contraction W * V",
                                        t->name));
        int i = 0;
        while (i < c->naux && c->aux[i] != e->ref)
            i++;
        if (i == c->naux) {
            if (c->naux == FG_MAX_AUX)
                return kb_fail(c, e->loc,
                               arena_printf(c->a, "the score, the mask and the weight read more "
                                                  "than %d inputs besides Q, K and V",
                                            FG_MAX_AUX));
            c->aux[c->naux++] = e->ref;
        }
        for (int k = 0; k < e->nargs; k++)
            if (check_score_expr(c, e->args[k], depth + 1) < 0)
                return -1;
        return 0;
    }
    case E_AXIS:
        if (e->ref == c->ax_m || e->ref == c->ax_n || e->ref == c->ax_h || e->ref == c->ax_b)
            return 0;
        return kb_fail(c, e->loc,
                       arena_printf(c->a, "the %s reads axis '%s': the attention kernel's "
                                          "%s sees only the batch, row, key and head indices",
                                    what, c->p->axes[e->ref].name, what));
    case E_PARAM: {
        const fg_param *pa = &c->p->params[e->ref];
        if (pa->index_axis < 0)
            return 0;
        if (pa->index_axis != c->ax_h || (e->nargs > 0 && !is_axis(e->args[0], c->ax_h)))
            return kb_fail(c, e->loc,
                           arena_printf(c->a, "param '%s' is read at another index than the "
                                              "head axis '%s'",
                                        pa->name, c->p->axes[c->ax_h].name));
        return 0;
    }
    case E_ACC:
        if (c->in_weight && e->ref == c->osum) /* the weight's masked score */
            return 0;
        return kb_fail(c, e->loc,
                       arena_printf(c->a, "the %s holds a reduction or a running value", what));
    case E_PREV: case E_NAME: case E_REDUCE: case E_COUNT:
        return kb_fail(c, e->loc,
                       arena_printf(c->a, "the %s holds a reduction or a running value", what));
    default:
        for (int i = 0; i < e->nargs; i++)
            if (check_score_expr(c, e->args[i], depth + 1) < 0)
                return -1;
        return 0;
    }
}

static int role_axis(const fg_expr *e) { return e && e->kind == E_AXIS ? e->ref : -1; }

static int match_running(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    (void)at;

    /* one contraction alone: no softmax chain (match_weighted) */
    c->softmax = !(fz->nrunning == 1 && fz->running[0].op == R_SUM);
    if (!c->softmax) {
        c->osum = fz->running[0].tensor;
        return 0;
    }
    /* the running state: one max and two sums, one of them a contraction */
    if (fz->nrunning != 3)
        return kb_fail(c, at,
                       arena_printf(c->a, "the attention kernel keeps 3 running reductions "
                                          "(max, sum, and the P.V contraction), or one "
                                          "contraction sum(n: W * V) without a softmax chain; "
                                          "plan '%s' has %d",
                                    p->name, fz->nrunning));
    /* a running sum corrected otherwise than by the online-softmax rescale
     * (the FlashAttention-1 form, normalised inside the sum) */
    for (int i = 0; i < fz->nrunning && c->mx < 0; i++)
        if (fz->running[i].op == R_MAX)
            c->mx = fz->running[i].tensor;
    /* base 2 when the first sum's correction is exp2(...): the kernels'
     * domain, so the score and the corrections print without log2(e) */
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_expr *f = fz->running[i].corr.factor;
        if (fz->running[i].op == R_SUM && f) {
            c->base2 = f->kind == E_CALL && f->fn == F_EXP2;
            break;
        }
    }
    for (int i = 0; i < fz->nrunning && c->mx >= 0; i++) {
        const fg_running *r = &fz->running[i];
        int l = -1;
        if (r->op == R_SUM && p->tensors[r->tensor].cls == CLASS_CONTRACTION &&
            is_fa1_rescale(c, &r->corr, &c->fa1_l))
            continue;
        if (r->op == R_SUM && is_fa1_rescale(c, &r->corr, &l)) /* inline: not P.V */
            return kb_fail(c, p->tensors[r->tensor].loc,
                           arena_printf(c->a, "'%s' is kept divided by '%s' (the "
                                              "FlashAttention-1 form), but its body is not a "
                                              "contraction W * V: give the weight a statement "
                                              "of its own (W = P / %s, %s = sum(%s: W * V)), as "
                                              "plans/fa1.fp does",
                                        plan_user_name(p, r->tensor), plan_user_name(p, l),
                                        plan_user_name(p, l), plan_user_name(p, r->tensor),
                                        p->axes[fz->axis].name));
        if (r->op == R_SUM && r->corr.kind != CORR_NONE && r->corr.factor && !is_rescale(c, &r->corr))
            return kb_fail(c, p->tensors[r->tensor].loc,
                           arena_printf(c->a, "the correction of '%s' is %s, not the "
                                              "online-softmax rescale %s(%s_prev - %s): the "
                                              "attention kernel keeps its sums unnormalised and "
                                              "divides once after the last tile",
                                        plan_user_name(p, r->tensor),
                                        expr_to_string(c->a, p, r->corr.factor),
                                        c->base2 ? "exp2" : "exp", p->tensors[c->mx].name,
                                        p->tensors[c->mx].name));
    }
    c->mx = -1;
    for (int i = 0; i < fz->nrunning; i++) {
        int t = fz->running[i].tensor;
        const fg_ir_tensor *ts = &p->tensors[t];
        if (fz->running[i].op == R_MAX && c->mx < 0)
            c->mx = t;
        else if (fz->running[i].op == R_SUM && ts->cls == CLASS_CONTRACTION && c->osum < 0)
            c->osum = t;
        else if (fz->running[i].op == R_SUM && ts->cls == CLASS_REDUCTION && c->l < 0)
            c->l = t;
        else
            return kb_fail(c, ts->loc,
                           arena_printf(c->a, "running reduction '%s' is not one of the "
                                              "attention kernel's max, sum and P.V contraction",
                                        plan_user_name(p, t)));
    }
    if (c->mx < 0 || c->l < 0 || c->osum < 0)
        return kb_fail(c, at, "the attention kernel needs a running max, a running sum and a "
                              "running contraction P.V");
    if (c->fa1_l >= 0 && c->fa1_l != c->l)
        return kb_fail(c, p->tensors[c->osum].loc,
                       arena_printf(c->a, "'%s' is kept divided by '%s', not by the running "
                                          "sum '%s' of the softmax chain",
                                    plan_user_name(p, c->osum), plan_user_name(p, c->fa1_l),
                                    plan_user_name(p, c->l)));
    return 0;
}

static int match_qk(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    (void)at;
    /* the contraction Q.K^T among the tile statements */
    for (int i = 0; i < fz->ntile; i++) {
        int t = fz->tile[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        if (ts->cls == CLASS_CONTRACTION) {
            if (c->ssum >= 0)
                return kb_fail(c, ts->loc, "a second contraction per key tile: the attention "
                                           "kernel has one (Q.K^T)");
            c->ssum = t;
        } else if (ts->cls != CLASS_ELEMENTWISE)
            return kb_fail(c, ts->loc, "a reduction per key tile that is not Q.K^T");
        if (ts->is_output)
            return kb_fail(c, ts->output_loc,
                           arena_printf(c->a, "'%s' is an output per key: the attention kernel "
                                              "writes only O and LSE",
                                        ts->name));
    }
    if (c->ssum < 0)
        return kb_fail(c, at, "no contraction Q.K^T = sum(d: Q * K) per key tile");
    const fg_ir_tensor *S = &p->tensors[c->ssum];
    const fg_expr *body = S->body;
    if (S->op != R_SUM || !body || body->kind != E_MUL || body->args[0]->kind != E_TENSOR ||
        body->args[1]->kind != E_TENSOR ||
        p->tensors[body->args[0]->ref].kind != TENSOR_INPUT ||
        p->tensors[body->args[1]->ref].kind != TENSOR_INPUT)
        return kb_fail(c, S->loc, "the contraction per key tile is not sum(d: Q * K) of two inputs");
    c->ax_d = S->red_axis;
    c->ax_n = fz->axis;
    /* Q is the input without the key axis */
    int x = body->args[0]->ref, y = body->args[1]->ref;
    const fg_ir_tensor *tx = &p->tensors[x], *ty = &p->tensors[y];
    bool x_has_n = false, y_has_n = false;
    for (int k = 0; k < tx->nindex; k++)
        x_has_n |= (tx->index[k]->axes >> c->ax_n) & 1u;
    for (int k = 0; k < ty->nindex; k++)
        y_has_n |= (ty->index[k]->axes >> c->ax_n) & 1u;
    if (x_has_n == y_has_n)
        return kb_fail(c, S->loc, "of the contraction's inputs exactly one (K) must carry the key axis");
    c->q = x_has_n ? y : x;
    c->k_ = x_has_n ? x : y;
    const fg_ir_tensor *Q = &p->tensors[c->q], *K = &p->tensors[c->k_];

    /* Q[b, h, m, d] */
    if (Q->nindex != 4 || !is_axis(Q->index[3], c->ax_d) || role_axis(Q->index[0]) < 0 ||
        role_axis(Q->index[1]) < 0 || role_axis(Q->index[2]) < 0)
        return kb_fail(c, Q->loc,
                       arena_printf(c->a, "the attention kernel reads %s[batch, head, row, %s]: "
                                          "four axes, the contracted one last",
                                    Q->name, p->axes[c->ax_d].name));
    c->ax_b = Q->index[0]->ref;
    c->ax_h = Q->index[1]->ref;
    c->ax_m = Q->index[2]->ref;
    if (c->ax_m == c->ax_n || c->ax_b == c->ax_h || c->ax_h == c->ax_m || c->ax_b == c->ax_m)
        return kb_fail(c, Q->loc, "Q's batch, head and row axes must differ");
    /* K[b, h or h / G, n, d] */
    if (K->nindex != 4 || !is_axis(K->index[0], c->ax_b) || !is_axis(K->index[2], c->ax_n) ||
        !is_axis(K->index[3], c->ax_d))
        return kb_fail(c, K->loc,
                       arena_printf(c->a, "the attention kernel reads %s[%s, kv head, %s, %s]",
                                    K->name, p->axes[c->ax_b].name, p->axes[c->ax_n].name,
                                    p->axes[c->ax_d].name));
    c->kv_head = K->index[1];
    const fg_expr *kh = c->kv_head;
    /* G an int param (a dim would need a role of its own: match_dims) */
    bool grouped = kh->kind == E_DIV && is_axis(kh->args[0], c->ax_h) &&
                   kh->args[1]->kind == E_PARAM && kh->args[1]->type == T_INT &&
                   p->params[kh->args[1]->ref].index_axis < 0;
    if (!is_axis(kh, c->ax_h) && !grouped)
        return kb_fail(c, kh->loc,
                       arena_printf(c->a, "the kv head of %s must be %s or %s / G (an int "
                                          "param)",
                                    K->name, p->axes[c->ax_h].name, p->axes[c->ax_h].name));
    return 0;
}

static int match_dims(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    (void)at;
    const fg_ir_tensor *K = &p->tensors[c->k_];
    bool grouped = c->kv_head->kind == E_DIV;
    /* dims */
    c->dim_b = p->axes[c->ax_b].dim;
    c->dim_h = p->axes[c->ax_h].dim;
    c->dim_m = p->axes[c->ax_m].dim;
    c->dim_n = p->axes[c->ax_n].dim;
    c->dim_d = p->axes[c->ax_d].dim;
    c->dim_hkv = c->dim_h;
    if (grouped) {
        if (!K->extent_dims)
            return kb_fail(c, K->loc,
                           arena_printf(c->a, "%s is read at a grouped head: give its stored "
                                              "extents (%s[B, Hkv, N, D])",
                                        K->name, K->name));
        c->dim_hkv = K->extent_dims[1];
    }
    if (K->extent_dims &&
        (K->extent_dims[0] != c->dim_b || K->extent_dims[2] != c->dim_n || K->extent_dims[3] != c->dim_d))
        return kb_fail(c, K->loc, "K's stored extents must be [batch, kv heads, keys, head dim]");
    int dims_seen[6] = {c->dim_b, c->dim_h, c->dim_hkv, c->dim_m, c->dim_n, c->dim_d};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (dims_seen[i] == dims_seen[j] && !(i == 1 && j == 2 && !grouped))
                return kb_fail(c, p->dims[dims_seen[i]].loc,
                               arena_printf(c->a, "dim '%s' has two roles in the attention kernel",
                                            p->dims[dims_seen[i]].name));
    /* per-sequence lengths: only the keys, per batch, in the split kernel */
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        if (i != c->dim_n || dm->index_axis != c->ax_b)
            return kb_fail(c, dm->loc,
                           arena_printf(c->a, "dim '%s' varies per '%s': the attention kernel "
                                              "takes per-sequence lengths of the keys per batch "
                                              "only (%s[%s])",
                                        dm->name, p->axes[dm->index_axis].name,
                                        p->dims[c->dim_n].name, p->axes[c->ax_b].name));
        if (fz->form != FORM_SPLIT)
            return kb_fail(c, dm->loc,
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
        /* an extent of another input (a bias table's length): bound from
         * its shape on the host, a plain dim of the kernels */
        for (int t = 0; t < p->ntensors && !used; t++) {
            const fg_ir_tensor *ts = &p->tensors[t];
            if (ts->kind != TENSOR_INPUT || t == c->q || t == c->k_ || p->dims[i].index_axis >= 0)
                continue;
            for (int k = 0; k < ts->nindex; k++) /* its stored extents, declared or by axis */
                used |= ts->extent_dims && ts->extent_dims[k] >= 0
                            ? ts->extent_dims[k] == i
                            : ts->index[k]->kind == E_AXIS && p->axes[ts->index[k]->ref].dim == i;
        }
        if (!used)
            return kb_fail(c, p->dims[i].loc,
                           arena_printf(c->a, "dim '%s' is not batch, heads, rows, keys or head "
                                              "dim: the attention kernel cannot bind it",
                                        p->dims[i].name));
    }
    return 0;
}

/* V[b, kv head, n, d] read at K's indices, and O_sum[b, h, m, d]. */
static int match_pv(kb *c, const fg_ir_tensor *OS, int vi)
{
    const fg_plan *p = c->p;
    c->v = vi;
    const fg_ir_tensor *V = &p->tensors[c->v];
    if (V->nindex != 4 || !is_axis(V->index[0], c->ax_b) || !expr_equal(V->index[1], c->kv_head) ||
        !is_axis(V->index[2], c->ax_n) || role_axis(V->index[3]) != c->ax_d)
        return kb_fail(c, V->loc,
                       arena_printf(c->a, "the attention kernel reads %s at the indices of K "
                                          "(same kv head and head dim)",
                                    V->name));
    if (OS->naxes != 4 || OS->axes[0] != c->ax_b || OS->axes[1] != c->ax_h ||
        OS->axes[2] != c->ax_m || OS->axes[3] != c->ax_d)
        return kb_fail(c, OS->loc,
                       arena_printf(c->a, "'%s' must be [%s, %s, %s, %s]", OS->name,
                                    p->axes[c->ax_b].name, p->axes[c->ax_h].name,
                                    p->axes[c->ax_m].name, p->axes[c->ax_d].name));
    return 0;
}

/* The outermost masks where(cond, X, -inf) in *slot: how many, the last
 * one's place in *found. */
static int mask_wheres(fg_expr **slot, fg_expr ***found, int depth)
{
    fg_expr *e = *slot;
    if (depth > FG_MAX_EXPR_DEPTH)
        return 2;
    if (e->kind == E_WHERE && e->args[2]->kind == E_NEG && e->args[2]->args[0]->kind == E_INF) {
        *found = slot;
        return 1;
    }
    int n = 0;
    for (int i = 0; i < e->nargs; i++)
        n += mask_wheres(&e->args[i], found, depth + 1);
    return n;
}

/* In the product *slot (nested E_MUL), a factor that is an input read at
 * [.., .., key, head dim] (V): the product node holding it (*at) and its
 * side. */
static bool find_value(kb *c, fg_expr **slot, fg_expr ***at, int *side, int depth)
{
    fg_expr *e = *slot;
    if (depth > FG_MAX_EXPR_DEPTH || e->kind != E_MUL)
        return false;
    for (int s = 0; s < 2; s++) {
        const fg_expr *f = e->args[s];
        if (f->kind == E_TENSOR && c->p->tensors[f->ref].kind == TENSOR_INPUT && f->nargs == 4 &&
            is_axis(f->args[2], c->ax_n) && is_axis(f->args[3], c->ax_d)) {
            *at = slot;
            *side = s;
            return true;
        }
    }
    for (int s = 0; s < 2; s++)
        if (find_value(c, &e->args[s], at, side, depth + 1))
            return true;
    return false;
}

/* Without a softmax chain: O = sum(n: W * V), V an input and W a function
 * of the score T = where(cond, X, -inf) (or X, unmasked) that is 0 where
 * T is -inf, so that a masked key adds nothing (sigmoid attention). */
static int match_weighted(kb *c)
{
    const fg_plan *p = c->p;
    const fg_ir_tensor *OS = &p->tensors[c->osum];
    if (c->fz->form == FORM_SPLIT)
        return kb_fail(c, p->sched.reduce_loc,
                       arena_printf(c->a, "without a softmax chain the attention kernels take "
                                          "the rolling form: write 'reduce %s: rolling'",
                                    p->axes[c->fz->axis].name));
    fg_expr *ob = inline_tiles(c, OS->body, 0);
    /* V: the input factor of the product read at the key and the head dim
     * (in any place: sigmoid(T) * V * g), else an input factor beside one
     * that reads the score (match_pv then says what V lacks); W: the other
     * factors */
    fg_expr **at = NULL;
    int side = -1;
    if (ob && !find_value(c, &ob, &at, &side, 0))
        for (int s = 0; ob->kind == E_MUL && s < 2 && side < 0; s++)
            if (ob->args[s]->kind == E_TENSOR &&
                p->tensors[ob->args[s]->ref].kind == TENSOR_INPUT &&
                expr_reads(ob->args[1 - s], c->ssum))
                at = &ob, side = s;
    const int vref = side < 0 ? -1 : (*at)->args[side]->ref;
    if (side >= 0)
        *at = (*at)->args[1 - side]; /* ob is the weight alone */
    if (side < 0 || !expr_reads(ob, c->ssum))
        return kb_fail(c, OS->loc,
                       arena_printf(c->a, "the contraction '%s' must be sum(%s: W * V), V an "
                                          "input and W a weight of the score Q.K^T (or a "
                                          "softmax chain)",
                                    OS->name, p->axes[c->ax_n].name));
    fg_expr **slot = &ob, **mask = NULL;
    int nm = mask_wheres(slot, &mask, 0);
    if (nm > 1)
        return kb_fail(c, OS->loc,
                       arena_printf(c->a, "the weight in '%s' masks the score in %d places: "
                                          "the attention kernel takes one where(cond, score, "
                                          "-inf)",
                                    OS->name, nm));
    c->tstmt = c->fz->mask.present && c->fz->mask.stmt >= 0 ? c->fz->mask.stmt : c->ssum;
    c->tval = nm ? *mask : *slot;
    c->cond = nm ? (*mask)->args[0] : NULL;
    c->score = nm ? (*mask)->args[1] : *slot;
    fg_expr *hole = expr_ref(c->a, E_ACC, c->osum, NULL);
    hole->type = T_FLOAT;
    *(nm ? mask : slot) = hole;
    c->weight = *slot;
    /* the weight reads what the score may (an extra input at the key, a
     * per-key gate; the indices; per-head params) besides its masked score */
    c->v = vref;
    c->in_weight = true;
    int bad = check_score_expr(c, c->weight, 0);
    c->in_weight = false;
    if (bad < 0)
        return -1;
    if (c->cond && !c->fz->mask_skippable)
        return kb_fail(c, OS->loc,
                       arena_printf(c->a, "the weight in '%s' is not 0 at a masked key "
                                          "(score -inf): the attention kernel adds nothing "
                                          "for masked keys",
                                    OS->name));
    if (check_score_expr(c, c->score, 0) < 0 || (c->cond && check_score_expr(c, c->cond, 0) < 0))
        return -1;
    return match_pv(c, OS, vref);
}

/* Notes output t, written as e of the final Mx and L, as a value per row
 * besides O (once). */
static int add_row(kb *c, int t, const fg_expr *e)
{
    for (int i = 0; i < c->nrows; i++)
        if (c->row_t[i] == t)
            return 0;
    if (c->nrows == FG_MAX_ROW_OUTS)
        return kb_fail(c, c->p->tensors[t].output_loc,
                       arena_printf(c->a, "output '%s': the attention kernel writes O and at "
                                          "most %d values per row",
                                    c->p->tensors[t].name, FG_MAX_ROW_OUTS));
    c->row_t[c->nrows] = t;
    c->row_e[c->nrows++] = e;
    return 0;
}

static int match_softmax(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    (void)at;
    /* Mx = max(n: T), L = sum(n: exp(T - Mx)), O_sum = sum(n: exp(T - Mx) * V) */
    const fg_ir_tensor *MX = &p->tensors[c->mx];
    if (MX->body->kind != E_TENSOR || p->tensors[MX->body->ref].kind != TENSOR_STMT)
        return kb_fail(c, MX->loc, "the running max must reduce a statement (T)");
    c->tstmt = MX->body->ref;
    c->tval = inline_tiles(c, MX->body, 0);
    if (!c->tval)
        return kb_fail(c, MX->loc, "the score chain is nested too deeply");
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
    const fg_ir_tensor *LT = &p->tensors[c->l];
    fg_expr *lb = inline_tiles(c, LT->body, 0);
    if (!lb || !is_exp_shift(c, lb))
        return kb_fail(c, LT->loc,
                       arena_printf(c->a, "the running sum '%s' must add exp(%s - %s): the "
                                          "attention kernel's body is exp(T - Mx)",
                                    LT->name, p->tensors[c->tstmt].name, MX->name));
    const fg_ir_tensor *OS = &p->tensors[c->osum];
    fg_expr *ob = undivided(c, inline_tiles(c, OS->body, 0));
    int vi = -1;
    if (ob && ob->kind == E_MUL) {
        if (is_exp_shift(c, ob->args[0]) && ob->args[1]->kind == E_TENSOR)
            vi = ob->args[1]->ref;
        else if (is_exp_shift(c, ob->args[1]) && ob->args[0]->kind == E_TENSOR)
            vi = ob->args[0]->ref;
    }
    if (vi < 0 || p->tensors[vi].kind != TENSOR_INPUT)
        return kb_fail(c, OS->loc,
                       arena_printf(c->a, "the second contraction '%s' must be P.V: sum(%s: "
                                          "exp(T - %s) * V) with V an input",
                                    OS->name, p->axes[c->ax_n].name, MX->name));
    if (match_pv(c, OS, vi) < 0)
        return -1;
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_running *r = &fz->running[i];
        if (r->tensor == c->mx) {
            if (r->corr.kind != CORR_NONE)
                return kb_fail(c, MX->loc, "the running max must need no correction");
        } else if (!is_rescale(c, &r->corr) && !(r->tensor == c->osum && c->fa1_l == c->l)) {
            return kb_fail(c, p->tensors[r->tensor].loc,
                           arena_printf(c->a, "the correction of '%s' is not the online-softmax "
                                              "rescale %s(%s_prev - %s)",
                                        plan_user_name(p, r->tensor), c->base2 ? "exp2" : "exp",
                                        MX->name, MX->name));
        }
        /* the max or the sum as an output: a value per row besides O */
        if (p->tensors[r->tensor].is_output && r->tensor != c->osum) {
            fg_expr *e = expr_ref(c->a, E_TENSOR, r->tensor, NULL);
            e->type = T_FLOAT;
            if (add_row(c, r->tensor, e) < 0)
                return -1;
        } else if (p->tensors[r->tensor].is_output && c->fa1_l < 0)
            return kb_fail(c, p->tensors[r->tensor].output_loc,
                           arena_printf(c->a, "the running value '%s' is an output: the "
                                              "attention kernel writes O = %s / %s, not %s",
                                        plan_user_name(p, r->tensor), OS->name,
                                        p->tensors[c->l].name, OS->name));
    }
    return 0;
}

/* A value per row of the final Mx and L (numbers and functions of them;
 * other epilogue statements inlined), or NULL: plan_rowval reads
 * nothing else. */
static const fg_expr *row_value(kb *c, const fg_expr *e, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH)
        return NULL;
    if (e->kind == E_TENSOR && (e->ref == c->mx || e->ref == c->l))
        return e;
    if (e->kind == E_TENSOR && c->fz->role[e->ref] == ROLE_EPILOGUE && c->p->tensors[e->ref].rhs) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref]; /* read at its own axes only */
        for (int k = 0; k < e->nargs; k++)
            if (k >= t->naxes || !is_axis(e->args[k], t->axes[k]))
                return NULL;
        return row_value(c, t->rhs, depth + 1);
    }
    if (e->kind == E_TENSOR || e->kind == E_AXIS || e->kind == E_PREV || e->kind == E_ACC ||
        e->kind == E_REDUCE || e->kind == E_PARAM || e->kind == E_DIM || e->kind == E_NAME)
        return NULL;
    fg_expr *n = expr_clone(c->a, e);
    for (int i = 0; i < e->nargs; i++)
        if (!(n->args[i] = (fg_expr *)row_value(c, e->args[i], depth + 1)))
            return NULL;
    return n;
}

static int match_epilogue(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    (void)at;
    const fg_ir_tensor *OS = &p->tensors[c->osum];
    if (!c->softmax) { /* O = sum(n: W * V) as it is */
        if (fz->nepilogue > 0)
            return kb_fail(c, p->tensors[fz->epilogue[0]].loc,
                           arena_printf(c->a, "epilogue statement '%s': without a softmax chain "
                                              "the attention kernel writes %s as it is",
                                        p->tensors[fz->epilogue[0]].name, OS->name));
        c->o = c->osum;
    }
    if (c->fa1_l >= 0) /* O = sum(n: P / L * V) is the output itself */
        c->o = c->osum;
    const fg_ir_tensor *MX = c->softmax ? &p->tensors[c->mx] : OS;
    const fg_ir_tensor *LT = c->softmax ? &p->tensors[c->l] : OS;
    /* epilogue: O = O_sum / L, LSE = Mx + log(L) */
    for (int i = 0; i < fz->nepilogue && c->softmax; i++) {
        int t = fz->epilogue[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        const fg_expr *e = ts->rhs;
        if (e->kind == E_DIV && is_tensor(e->args[0], c->osum) && is_tensor(e->args[1], c->l) &&
            c->o < 0 && ts->naxes == 4 && !memcmp(ts->axes, OS->axes, 4 * sizeof(int))) {
            c->o = t;
            continue;
        }
        if (!ts->is_output) /* read by the outputs that use it (row_value) */
            continue;
        const fg_expr *rv = ts->naxes == 3 && ts->axes[0] == c->ax_b && ts->axes[1] == c->ax_h &&
                                    ts->axes[2] == c->ax_m
                                ? row_value(c, e, 0)
                                : NULL;
        if (rv) {
            if (add_row(c, t, rv) < 0)
                return -1;
            continue;
        }
        return kb_fail(c, ts->loc,
                       arena_printf(c->a, "epilogue statement '%s' is neither O = %s / %s nor "
                                          "a value per row of %s and %s (LSE = %s + log(%s))",
                                    ts->name, OS->name, LT->name, MX->name, LT->name, MX->name,
                                    LT->name));
    }
    if (c->o < 0 || !p->tensors[c->o].is_output)
        return kb_fail(c, c->o >= 0 ? p->tensors[c->o].loc : at,
                       c->softmax ? "the attention kernel writes O = O_sum / L: the plan must "
                                    "output it"
                                  : "the attention kernel writes O = sum(n: W * V): the plan "
                                    "must output it");
    for (int i = 0; i < c->nrows; i++)
        if (p->tensors[c->row_t[i]].out_dtype != DT_F32)
            return kb_fail(c, p->tensors[c->row_t[i]].output_loc,
                           arena_printf(c->a, "output '%s' is not f32: the attention kernel "
                                              "writes its values per row as f32",
                                        p->tensors[c->row_t[i]].name));
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (c->foreign && c->foreign[i]) /* another chain's (kernel_chains.c) */
            continue;
        bool row = false;
        for (int k = 0; k < c->nrows; k++)
            row |= c->row_t[k] == i;
        if (t->is_output && i != c->o && !row)
            return kb_fail(c, t->output_loc,
                           arena_printf(c->a, "output '%s': the attention kernel writes O and "
                                              "values per row of the max and the sum",
                                        t->name));
        bool aux = false;
        for (int k = 0; k < c->naux; k++)
            aux |= c->aux[k] == i;
        if (i == c->v && aux)
            return kb_fail(c, t->loc,
                           arena_printf(c->a, "the score reads '%s': the attention kernel reads "
                                              "V only in the P.V contraction",
                                        t->name));
        if (t->kind == TENSOR_INPUT && i != c->q && i != c->k_ && i != c->v && !aux)
            return kb_fail(c, t->loc,
                           arena_printf(c->a, "input '%s': the attention kernel reads Q, K and "
                                              "V, and other inputs only in the score, the mask "
                                              "and the weight",
                                        t->name));
    }
    if (fz->nprologue > 0)
        return kb_fail(c, p->tensors[fz->prologue[0]].loc,
                       "a statement before the key loop: the attention kernel has none");
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0 && pa->index_axis != c->ax_h)
            return kb_fail(c, pa->loc,
                           arena_printf(c->a, "param '%s' has one value per %s: the attention "
                                              "kernel takes per-head vectors only",
                                        pa->name, p->axes[pa->index_axis].name));
        if (pa->index_axis >= 0 && !pa->deflt)
            return kb_fail(c, pa->loc,
                           arena_printf(c->a, "param vector '%s' needs a default", pa->name));
    }
    return 0;
}

/* The first read of Q, K or V at indices other than their declared ones (a
 * gather, or a read at another axis), or NULL. */
static const fg_expr *qkv_gather(const kb *c, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return NULL;
    if (e->kind == E_TENSOR && (e->ref == c->q || e->ref == c->k_ || e->ref == c->v)) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
        for (int k = 0; k < e->nargs && k < t->nindex; k++)
            if (!expr_equal(e->args[k], t->index[k]))
                return e;
    }
    for (int i = 0; i < e->nargs; i++) {
        const fg_expr *g = qkv_gather(c, e->args[i], depth + 1);
        if (g)
            return g;
    }
    return NULL;
}

int kb_match_attention(kb *c)
{
    c->q = c->k_ = c->v = c->ssum = c->mx = c->l = c->osum = c->o = c->tstmt = -1;
    c->fa1_l = -1;
    c->nrows = 0;
    c->naux = 0;
    if (match_running(c) < 0 || match_qk(c) < 0 || match_dims(c) < 0 ||
        (c->softmax ? match_softmax(c) : match_weighted(c)) < 0 || match_epilogue(c) < 0)
        return -1;
    /* the kernels load Q, K and V tiles at their declared indices only;
     * other inputs are read by the score, the mask and the weight at any
     * index */
    for (int i = 0; i < c->p->ntensors; i++) {
        const fg_expr *g = qkv_gather(c, c->p->tensors[i].rhs, 0);
        if (!g)
            continue;
        const char *at = "";
        for (int k = 0; k < g->nargs; k++)
            at = arena_printf(c->a, "%s%s%s", at, k ? ", " : "",
                              expr_to_string(c->a, c->p, g->args[k]));
        return kb_fail(c, g->loc,
                       arena_printf(c->a, "'%s' is read at [%s], not at its declared indices: "
                                          "the attention kernel loads Q, K and V tiles as "
                                          "declared",
                                    c->p->tensors[g->ref].name, at));
    }
    return 0;
}

/* The tile statements the score comes from (for comments): Q.K^T, the
 * chain up to T, not P = exp(T - Mx). */
static void bind_score_chain(kb *c, fg_kattn *at)
{
    const fg_plan *p = c->p;
    at->score_chain = ARENA_ARRAY(c->a, int, p->norder + 1);
    for (int k = 0; k < p->norder; k++) {
        int t = p->order[k];
        if (t < 0 || t >= p->ntensors || c->fz->role[t] != ROLE_TILE)
            continue;
        const fg_expr *in = p->tensors[t].cls == CLASS_ELEMENTWISE
                                ? inline_tiles(c, p->tensors[t].rhs, 0)
                                : NULL;
        if (t == c->ssum || t == c->tstmt ||
            (p->tensors[t].cls == CLASS_ELEMENTWISE && c->softmax && !(in && is_exp_shift(c, in))) ||
            (!c->softmax && in && expr_holds(c->tval, in)))
            at->score_chain[at->nscore_chain++] = t;
    }
}

void kb_bind_attention(kb *c)
{
    fg_kernel *k = c->k;
    fg_kattn *at = &k->attn;
    at->q = c->q, at->k = c->k_, at->v = c->v, at->s = c->ssum, at->mx = c->mx;
    at->l = c->l, at->osum = c->osum, at->o = c->o, at->t = c->tstmt;
    at->ax_b = c->ax_b, at->ax_h = c->ax_h, at->ax_m = c->ax_m, at->ax_n = c->ax_n;
    at->ax_d = c->ax_d;
    at->dim_b = c->dim_b, at->dim_h = c->dim_h, at->dim_hkv = c->dim_hkv;
    at->dim_m = c->dim_m, at->dim_n = c->dim_n, at->dim_d = c->dim_d;
    at->kv_head = c->kv_head;
    at->grouped = c->kv_head->kind == E_DIV;
    at->tval = c->tval;
    at->score = c->score;
    at->cond = c->cond;
    at->softmax = c->softmax;
    at->weight = c->weight;
    at->base2 = c->base2;
    at->nrows = c->nrows;
    memcpy(at->row_t, c->row_t, sizeof at->row_t);
    memcpy(at->row_e, c->row_e, sizeof at->row_e);
    /* extra inputs' loads cost registers as a function call does: the
     * 176-key sm_90a tiles spilled with docmask's two id loads (ptxas, 68
     * bytes), so they take the configurations of a non-affine score */
    at->affine_score = !score_calls(c->score) && c->naux == 0;
    at->naux = c->naux;
    memcpy(at->aux, c->aux, sizeof at->aux);
    kb_bind_score(c, at);
    bind_score_chain(c, at);
    /* the GPU kernels classify tiles by the mask when it is over rows and keys */
    at->mask_tiles = k->mask->present && c->cond && k->mask->row_axis == c->ax_m &&
                     k->mask->col_axis == c->ax_n;
    at->mask_skip = at->mask_tiles && c->fz->mask_skippable;
    for (int i = 0; i < k->nvalues; i++)
        k->values[i].role = k->values[i].tensor == c->mx   ? "max"
                            : k->values[i].tensor == c->l  ? "sum"
                                                           : "contraction";
    at->nchains = 1;
    at->chain[0] = (fg_kchain){c->q, c->k_, c->v, c->mx, c->l, c->osum, NULL};
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

fg_expr *kernel_inline_tiles(fg_arena *a, const fg_fused *fz, const fg_expr *e)
{
    kb c = {.a = a, .fz = fz, .p = fz->plan};
    return inline_tiles(&c, e, 0);
}

int kernel_build(fg_arena *a, const fg_fused *fz, fg_diag *d, fg_kernel **out)
{
    const fg_plan *p = fz->plan;
    fg_kernel *k = ARENA_NEW(a, fg_kernel);
    k->fz = fz;
    k->plan = p;
    k->mask = &fz->mask;
    k->family = FAMILY_ROWREDUCE;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].cls == CLASS_CONTRACTION)
            k->family = FAMILY_ATTENTION;
    kernel_resolve_schedule(k);
    if (kernel_check_placement(k, d) < 0)
        return -1;
    const fg_mask *m = k->mask;
    k->mask_rows_keys = m->present && m->root && m->col_axis == k->sched.reduced_axis &&
                        (m->row_axis == k->sched.row_axis ||
                         (m->row_axis >= 0 && (k->sched.outer & (1u << m->row_axis))));
    k->mask_skip = k->mask_rows_keys && fz->mask_skippable;
    k->nvalues = fz->nrunning;
    k->values = ARENA_ARRAY(a, fg_kvalue, fz->nrunning + 1);
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_running *r = &fz->running[i];
        k->values[i] = (fg_kvalue){r->tensor, r->op, r->identity, &r->corr,
                                   r->op == R_MAX ? "max" : r->op == R_MIN ? "min" : "sum"};
    }
    k->divides = ARENA_ARRAY(a, bool, p->nparams + 1);
    for (int i = 0; i < p->nparams; i++) {
        k->divides[i] = kernel_divides_by(p, i);
        k->nvectors += p->params[i].index_axis >= 0;
    }
    kb c = {.a = a, .fz = fz, .p = p, .k = k};
    /* several independent chains: matched one by one (kernel_chains.c) */
    int nch = k->family == FAMILY_ATTENTION ? kb_count_chains(&c) : 1;
    bool chains = nch > 1;
    if (nch >= 1 && (chains ? kb_match_chains(&c) == 0 : kb_match_attention(&c) == 0)) {
        k->attn_ok = true;
        if (!chains)
            kb_bind_attention(&c);
        kernel_resolve_configs(k, a);
    } else {
        k->attn_why = c.why;
        k->attn_why_loc = c.why_loc;
        kernel_bind_rows(a, k);
    }
    *out = k;
    return 0;
}
