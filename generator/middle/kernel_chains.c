/* kernel_chains.c - attention plans with independent softmax chains
 * (differential attention: two softmaxes over their own Q.K^T, one O).
 *
 * The running values of a plan fall into chains: two values are in one
 * chain when one reads the other, or both read one tile statement.  A plan
 * of several chains is matched one chain at a time, each through the
 * single-chain matcher of kernel.c on a view of the plan: the chain's
 * running values and tile statements, the other chains' tensors left
 * outside, and one output O_c = O_sum / L of its own.  The chains must
 * then be one kernel up to their tensors (the same score, mask, grouping
 * and corrections), and O a sum of a scalar coefficient times each
 * chain's O_sum / L.  The GPU kernels run once per chain with its Q, K and
 * V; each pass's epilogue adds its term to O (the first one writes it).
 */
#define _POSIX_C_SOURCE 200809L
#include "kernel_internal.h"

#include <string.h>

static int find(int *up, int x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

/* Join t with every tile statement and running value e reads. */
static void join_reads(const fg_fused *fz, int *up, int t, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return;
    if ((e->kind == E_TENSOR || e->kind == E_PREV) && e->ref >= 0 &&
        (fz->role[e->ref] == ROLE_TILE || fz->role[e->ref] == ROLE_RUNNING))
        up[find(up, e->ref)] = find(up, t);
    for (int i = 0; i < e->nargs; i++)
        join_reads(fz, up, t, e->args[i], depth + 1);
}

/* The chain of each tensor (its representative), in up[]; the number of
 * chains among the running values. */
static int chains_of(const fg_fused *fz, int *up)
{
    const fg_plan *p = fz->plan;
    for (int i = 0; i < p->ntensors; i++)
        up[i] = i;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (fz->role[i] != ROLE_TILE && fz->role[i] != ROLE_RUNNING)
            continue;
        join_reads(fz, up, i, t->body ? t->body : t->rhs, 0);
    }
    int n = 0;
    for (int i = 0; i < fz->nrunning; i++) {
        int r = find(up, fz->running[i].tensor);
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= find(up, fz->running[j].tensor) == r;
        n += !seen;
    }
    return n;
}

/* The number of independent chains when there are several and each is a
 * softmax chain (a max, a sum and a contraction); 1 when they are not all
 * chains under a max (the single-chain matcher says what the plan is); -1
 * with the reason when a chain under a max lacks its sum or contraction. */
int kb_count_chains(kb *c)
{
    const fg_fused *fz = c->fz;
    int *up = ARENA_ARRAY(c->a, int, c->p->ntensors + 1);
    int n = chains_of(fz, up);
    for (int i = 0; i < fz->nrunning && n > 1; i++) { /* a chain without one max: not softmax */
        int r = find(up, fz->running[i].tensor), mx = 0;
        for (int j = 0; j < fz->nrunning; j++)
            mx += find(up, fz->running[j].tensor) == r && fz->running[j].op == R_MAX;
        if (mx != 1)
            return 1;
    }
    for (int i = 0; i < fz->nrunning && n > 1; i++) {
        int r = find(up, fz->running[i].tensor), l = 0, os = 0;
        for (int j = 0; j < fz->nrunning; j++) {
            const fg_running *x = &fz->running[j];
            if (find(up, x->tensor) != r)
                continue;
            l += x->op == R_SUM && c->p->tensors[x->tensor].cls != CLASS_CONTRACTION;
            os += x->op == R_SUM && c->p->tensors[x->tensor].cls == CLASS_CONTRACTION;
        }
        if (l != 1 || os != 1) {
            const fg_plan *p = c->p;
            int mt = fz->running[i].tensor;
            for (int j = 0; j < fz->nrunning; j++)
                if (find(up, fz->running[j].tensor) == r && fz->running[j].op == R_MAX)
                    mt = fz->running[j].tensor;
            const char *mname = plan_user_name(p, mt);
            const char *tname = p->tensors[mt].body ? expr_to_string(c->a, p, p->tensors[mt].body)
                                                    : "T";
            return kb_fail(c, p->sched.present ? p->sched.loc : p->name_loc,
                           arena_printf(c->a, "plan '%s' has %d independent chains, and the "
                                              "chain of '%s' keeps %d running sums, %d of them "
                                              "contractions W * V: each chain of the attention "
                                              "kernel keeps one sum of P and one contraction "
                                              "P * V (give P = exp(%s - %s) a statement of its "
                                              "own)",
                                        p->name, n, mname, l + os, os, tname, mname));
        }
    }
    return n;
}

/* A copy of node e whose arguments are still e's (the callers replace them). */
static fg_expr *node_copy(fg_arena *a, const fg_expr *e)
{
    fg_expr *r = ARENA_NEW(a, fg_expr);
    *r = *e;
    if (e->nargs > 0) {
        r->args = ARENA_ARRAY(a, fg_expr *, e->nargs);
        memcpy(r->args, e->args, (size_t)e->nargs * sizeof *r->args);
    }
    return r;
}

/* e with the tensors from[i] read as to[i]. */
static fg_expr *renamed(fg_arena *a, const fg_expr *e, const int *from, const int *to, int n)
{
    fg_expr *r = node_copy(a, e);
    if ((r->kind == E_TENSOR || r->kind == E_PREV || r->kind == E_ACC) && r->ref >= 0)
        for (int i = 0; i < n; i++)
            if (r->ref == from[i]) {
                r->ref = to[i];
                break;
            }
    for (int i = 0; i < r->nargs; i++)
        r->args[i] = renamed(a, e->args[i], from, to, n);
    return r;
}

/* The epilogue statements O reads, inlined (read at their own axes). */
static fg_expr *inline_epilogue(kb *c, const fg_expr *e, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return NULL;
    if (e->kind == E_TENSOR && c->fz->role[e->ref] == ROLE_EPILOGUE && c->p->tensors[e->ref].rhs) {
        const fg_ir_tensor *t = &c->p->tensors[e->ref];
        for (int k = 0; k < e->nargs; k++)
            if (k >= t->naxes || !is_axis(e->args[k], t->axes[k]))
                return NULL;
        return inline_epilogue(c, t->rhs, depth + 1);
    }
    fg_expr *n = node_copy(c->a, e);
    for (int i = 0; i < e->nargs; i++)
        if (!(n->args[i] = inline_epilogue(c, e->args[i], depth + 1)))
            return NULL;
    return n;
}

typedef struct chains {
    int n;
    kb m[FG_MAX_CHAINS];  /* each chain as kernel.c matched it */
    int o;                /* the output */
    fg_expr *coef[FG_MAX_CHAINS];
} chains;

/* O = sum over the chains of coef * O_sum / L, each chain once. */
static int split_terms(kb *c, chains *ch, const fg_expr *e, double sign, int depth)
{
    const fg_plan *p = c->p;
    const fg_ir_tensor *O = &p->tensors[ch->o];
    if (depth > FG_MAX_EXPR_DEPTH)
        return kb_fail(c, O->loc, "the output's expression is nested too deeply");
    if (e->kind == E_ADD || e->kind == E_SUB) {
        if (split_terms(c, ch, e->args[0], sign, depth + 1) < 0)
            return -1;
        return split_terms(c, ch, e->args[1], e->kind == E_SUB ? -sign : sign, depth + 1);
    }
    if (e->kind == E_NEG)
        return split_terms(c, ch, e->args[0], -sign, depth + 1);
    factors f = {.ok = true};
    kb_collect(e, false, &f);
    int at = -1, os = -1, l = -1;
    for (int i = 0; f.ok && i < f.nnum; i++)
        for (int k = 0; k < ch->n && os < 0; k++)
            if (is_tensor(f.num[i], ch->m[k].osum))
                os = i, at = k;
    for (int i = 0; f.ok && at >= 0 && i < f.nden && l < 0; i++)
        if (is_tensor(f.den[i], ch->m[at].l))
            l = i;
    if (!f.ok || at < 0 || l < 0)
        return kb_fail(c, e->loc.line ? e->loc : O->loc,
                       arena_printf(c->a, "'%s' of the independent chains must be a sum of "
                                          "terms c * O_sum / L, one per chain, c a number per "
                                          "launch; '%s' is not",
                                    O->name, expr_to_string(c->a, p, e)));
    if (ch->coef[at])
        return kb_fail(c, e->loc.line ? e->loc : O->loc,
                       arena_printf(c->a, "'%s' reads the chain of '%s' in two terms",
                                    O->name, p->tensors[ch->m[at].l].name));
    /* the other factors, numbers per launch; a float first where one is an
     * integer or a divisor, so that the factors regrouped never divide
     * integers */
    fg_expr *cf = NULL;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < (side ? f.nden : f.nnum); i++) {
            const fg_expr *x = side ? f.den[i] : f.num[i];
            if (i == (side ? l : os))
                continue;
            if (kb_constness(c, x) != 0)
                return kb_fail(c, x->loc.line ? x->loc : O->loc,
                               arena_printf(c->a, "the coefficient of the chain of '%s' in '%s' "
                                                  "reads '%s': the attention kernel takes one "
                                                  "number per launch (scalar params, dims and "
                                                  "numbers)",
                                            p->tensors[ch->m[at].mx].name, O->name,
                                            expr_to_string(c->a, p, x)));
            fg_expr *y = expr_clone(c->a, x);
            if (!cf && (side || y->type == T_INT))
                cf = expr_num(c->a, 1.0), cf->type = T_FLOAT;
            cf = cf ? expr_binary(c->a, side ? E_DIV : E_MUL, cf, y) : y;
            cf->type = T_FLOAT;
        }
    if (!cf)
        cf = expr_num(c->a, 1.0), cf->type = T_FLOAT;
    if (sign < 0)
        cf = expr_unary(c->a, E_NEG, cf), cf->type = T_FLOAT;
    ch->coef[at] = cf;
    return 0;
}

/* The view of chain r (its representative in up[]): running values and
 * tile statements of the chain, and O_c = O_sum / L its one output. */
static int match_chain(kb *c, kb *m, const int *up, int r, int idx)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    int n = p->ntensors;
    fg_fused *v = ARENA_NEW(c->a, fg_fused);
    *v = *fz;
    v->role = ARENA_ARRAY(c->a, fg_role, n + 1);
    memcpy(v->role, fz->role, (size_t)n * sizeof *v->role);
    v->running = ARENA_ARRAY(c->a, fg_running, fz->nrunning + 1);
    v->nrunning = 0;
    v->tile = ARENA_ARRAY(c->a, int, fz->ntile + 1);
    v->ntile = 0;
    uint8_t *foreign = ARENA_ARRAY(c->a, uint8_t, n + 1);
    int osum = -1, l = -1;
    for (int i = 0; i < fz->nrunning; i++) {
        int t = fz->running[i].tensor;
        if (find((int *)up, t) != r)
            continue;
        v->running[v->nrunning++] = fz->running[i];
        if (fz->running[i].op == R_SUM && p->tensors[t].cls == CLASS_CONTRACTION)
            osum = t;
        else if (fz->running[i].op == R_SUM)
            l = t;
    }
    for (int i = 0; i < fz->ntile; i++)
        if (find((int *)up, fz->tile[i]) == r)
            v->tile[v->ntile++] = fz->tile[i];
    fg_plan *pc = ARENA_NEW(c->a, fg_plan);
    *pc = *p;
    pc->tensors = ARENA_ARRAY(c->a, fg_ir_tensor, n + 1);
    memcpy(pc->tensors, p->tensors, (size_t)n * sizeof *pc->tensors);
    for (int i = 0; i < n; i++) {
        fg_ir_tensor *t = &pc->tensors[i];
        t->is_output = false; /* the chain's output is O_c alone */
        bool mine = (fz->role[i] == ROLE_TILE || fz->role[i] == ROLE_RUNNING) && find((int *)up, i) == r;
        if ((fz->role[i] == ROLE_TILE || fz->role[i] == ROLE_RUNNING || fz->role[i] == ROLE_EPILOGUE) &&
            !mine) {
            foreign[i] = 1;
            v->role[i] = ROLE_PROLOGUE; /* outside the view: never read by it */
        }
    }
    /* inputs: the chain's own and the ones no chain reads in its tiles
     * (bias tables) stay; another chain's Q and K are outside */
    for (int i = 0; i < n; i++) {
        if (p->tensors[i].kind != TENSOR_INPUT)
            continue;
        bool other = false, own = false;
        for (int j = 0; j < n; j++) {
            if (fz->role[j] != ROLE_TILE && fz->role[j] != ROLE_RUNNING)
                continue;
            const fg_expr *e = p->tensors[j].body ? p->tensors[j].body : p->tensors[j].rhs;
            if (!expr_reads(e, i))
                continue;
            if (find((int *)up, j) == r)
                own = true;
            else
                other = true;
        }
        foreign[i] = other && !own;
    }
    const fg_ir_tensor *O = &p->tensors[c->o];
    fg_ir_tensor *oc = &pc->tensors[n];
    *oc = *O;
    oc->name = arena_printf(c->a, "%s (chain %d)", O->name, idx + 1);
    /* kb_count_chains found one sum and one contraction in the chain */
    fg_expr *os = expr_ref(c->a, E_TENSOR, osum, p->tensors[osum].name);
    fg_expr *ls = expr_ref(c->a, E_TENSOR, l, p->tensors[l].name);
    os->type = ls->type = T_FLOAT;
    oc->rhs = expr_binary(c->a, E_DIV, os, ls);
    oc->rhs->type = T_FLOAT;
    oc->is_output = true;
    oc->powsum = NULL;
    pc->ntensors = n + 1;
    v->plan = pc;
    v->role[n] = ROLE_EPILOGUE;
    v->epilogue = ARENA_ARRAY(c->a, int, 1);
    v->epilogue[0] = n;
    v->nepilogue = 1;
    *m = (kb){.a = c->a, .fz = v, .p = pc, .k = c->k, .foreign = foreign};
    if (kb_match_attention(m) < 0) {
        c->why = m->why;
        c->why_loc = m->why_loc;
        return -1;
    }
    return 0;
}

int kb_match_chains(kb *c)
{
    const fg_fused *fz = c->fz;
    const fg_plan *p = c->p;
    fg_loc at = p->sched.present ? p->sched.loc : p->name_loc;
    int *up = ARENA_ARRAY(c->a, int, p->ntensors + 1);
    chains *ch = ARENA_NEW(c->a, chains);
    ch->n = chains_of(fz, up);
    if (ch->n > FG_MAX_CHAINS)
        return kb_fail(c, at,
                       arena_printf(c->a, "plan '%s' has %d independent chains: the attention "
                                          "kernel runs up to %d",
                                    p->name, ch->n, FG_MAX_CHAINS));
    if (fz->form == FORM_SPLIT)
        return kb_fail(c, at,
                       arena_printf(c->a, "plan '%s' has %d independent chains: the attention "
                                          "kernel runs them in the rolling form only (write "
                                          "'reduce %s: rolling')",
                                    p->name, ch->n, p->axes[fz->axis].name));
    /* the one output O, at the chains' rows and head dim */
    ch->o = -1;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (!t->is_output)
            continue;
        if (ch->o >= 0 || fz->role[i] != ROLE_EPILOGUE || t->naxes != 4)
            return kb_fail(c, t->output_loc,
                           arena_printf(c->a, "output '%s': with independent chains the "
                                              "attention kernel writes one output, O[batch, "
                                              "head, row, head dim], and no value per row",
                                        t->name));
        ch->o = i;
    }
    if (ch->o < 0)
        return kb_fail(c, at, "the attention kernel writes O: the plan must output it");
    c->o = ch->o;
    int reps[FG_MAX_CHAINS], nr = 0;
    for (int i = 0; i < fz->nrunning; i++) {
        int r = find(up, fz->running[i].tensor);
        bool seen = false;
        for (int j = 0; j < nr; j++)
            seen |= reps[j] == r;
        if (!seen)
            reps[nr++] = r;
    }
    for (int i = 0; i < ch->n; i++)
        if (match_chain(c, &ch->m[i], up, reps[i], i) < 0)
            return -1;
    /* one kernel up to the chains' tensors */
    const kb *m0 = &ch->m[0];
    for (int i = 1; i < ch->n; i++) {
        const kb *mi = &ch->m[i];
        int from[3] = {mi->ssum, mi->q, mi->k_}, to[3] = {m0->ssum, m0->q, m0->k_};
        const fg_expr *t = renamed(c->a, mi->tval, from, to, 3);
        const char *what = NULL;
        if (!mi->softmax || mi->fa1_l >= 0 || m0->fa1_l >= 0)
            what = "a softmax chain divided once after the last tile (O_sum / L)";
        else if (mi->base2 != m0->base2)
            what = "the same base of exp";
        else if (!expr_equal(t, m0->tval))
            what = arena_printf(c->a, "the same score and mask up to its tensors: the max of "
                                      "'%s' is taken over %s, that of '%s' over %s",
                                p->tensors[m0->mx].name, expr_to_string(c->a, p, m0->tval),
                                p->tensors[mi->mx].name, expr_to_string(c->a, p, mi->tval));
        else if (!expr_equal(mi->kv_head, m0->kv_head) || mi->ax_m != m0->ax_m ||
                 mi->ax_d != m0->ax_d || mi->ax_b != m0->ax_b || mi->ax_h != m0->ax_h ||
                 mi->dim_hkv != m0->dim_hkv)
            what = "the same axes and kv heads";
        else if (mi->naux != m0->naux || memcmp(mi->aux, m0->aux, sizeof mi->aux))
            what = "the same extra inputs";
        if (what)
            return kb_fail(c, p->tensors[mi->mx].loc,
                           arena_printf(c->a, "the chain of '%s' is not the chain of '%s' up to "
                                              "its tensors: the attention kernel runs every "
                                              "independent chain through one kernel, so each "
                                              "needs %s",
                                        p->tensors[mi->mx].name, p->tensors[m0->mx].name, what));
    }
    const fg_expr *oe = inline_epilogue(c, p->tensors[ch->o].rhs, 0);
    if (!oe)
        return kb_fail(c, p->tensors[ch->o].loc,
                       arena_printf(c->a, "'%s' reads an epilogue statement at other indices",
                                    p->tensors[ch->o].name));
    if (split_terms(c, ch, oe, 1.0, 0) < 0)
        return -1;
    for (int i = 0; i < ch->n; i++)
        if (!ch->coef[i])
            return kb_fail(c, p->tensors[ch->o].loc,
                           arena_printf(c->a, "'%s' does not read the chain of '%s'",
                                        p->tensors[ch->o].name, p->tensors[ch->m[i].mx].name));
    /* the kernel is chain 0's; O and the chains are the plan's */
    kb_bind_attention(&ch->m[0]);
    fg_kattn *ka = &c->k->attn;
    ka->o = ch->o;
    ka->nchains = ch->n;
    for (int i = 0; i < ch->n; i++) {
        const kb *mi = &ch->m[i];
        ka->chain[i] = (fg_kchain){mi->q, mi->k_, mi->v, mi->mx, mi->l, mi->osum, ch->coef[i]};
    }
    for (int i = 0; i < c->k->nvalues; i++)
        for (int j = 0; j < ch->n; j++) {
            const fg_kchain *k = &ka->chain[j];
            int t = c->k->values[i].tensor;
            if (t == k->mx || t == k->l || t == k->osum)
                c->k->values[i].role = t == k->mx ? "max" : t == k->l ? "sum" : "contraction";
        }
    return 0;
}
