/* dump_kernel.c - the kernel model as text (fusegen --dump=kernel).
 *
 * Stable, golden-tested output: what every backend reads, in plan syntax.
 */
#include "generator.h"

#include <string.h>

static const char *axis_name(const fg_plan *p, int ax)
{
    return ax >= 0 && ax < p->naxes ? p->axes[ax].name : "-";
}

static void dump_axes(FILE *f, const fg_plan *p, uint32_t axes)
{
    bool any = false;
    for (int i = 0; i < p->naxes; i++)
        if (axes & (1u << i)) {
            fprintf(f, "%s%s", any ? ", " : "", p->axes[i].name);
            any = true;
        }
    if (!any)
        fputs("none", f);
}

static void dump_schedule(FILE *f, const fg_kernel *k)
{
    const fg_plan *p = k->plan;
    const fg_ksched *s = &k->sched;
    fprintf(f, "schedule: reduce %s (%s), tile %s = %d, %s = %d, warps %d, stages %d",
            axis_name(p, s->reduced_axis), fg_form_names[s->form],
            s->row_axis >= 0 ? axis_name(p, s->row_axis) : "rows", s->tile_rows,
            axis_name(p, s->reduced_axis), s->tile_keys, s->warps, s->stages);
    if (s->form == FORM_SPLIT) {
        if (s->splits)
            fprintf(f, ", splits %d", s->splits);
        else
            fputs(", splits auto", f);
    }
    fputs("\n  rows outside the row tile: ", f);
    dump_axes(f, p, s->outer);
    fputs("\n  targets:", f);
    static const char *const names[] = {"cuda", "hip", "c"};
    for (int i = 0; i < 3; i++)
        if (s->targets & (1u << i))
            fprintf(f, " %s", names[i]);
    fputc('\n', f);
}

static void dump_values(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    fputs("running values (producers first):\n", f);
    for (int i = 0; i < k->nvalues; i++) {
        const fg_kvalue *v = &k->values[i];
        const fg_ir_tensor *t = &p->tensors[v->tensor];
        fprintf(f, "  %s = %s  [%s, identity %s]\n", t->name, expr_to_string(a, p, t->rhs),
                v->role, v->op == R_SUM ? "0" : v->op == R_MAX ? "-inf" : "inf");
        const fg_correction *c = v->corr;
        if (c->kind == CORR_NONE) {
            fputs("    correction: none (its body reads no running value)\n", f);
            continue;
        }
        fprintf(f, "    correction: t %s %s, derived from %s%s\n",
                c->kind == CORR_SCALE ? "*" : "+", expr_to_string(a, p, c->factor),
                c->origin >= 0 ? p->tensors[c->origin].name : "its body",
                c->verified ? ", verified numerically" : "");
        if (c->why)
            fprintf(f, "    why: %s\n", c->why);
        if (k->sched.form == FORM_SPLIT)
            fprintf(f, "    combine: the same factor with %s_prev = a split's partial, %s = the "
                       "merged value\n",
                    p->tensors[c->producers ? __builtin_ctzll(c->producers) : v->tensor].name,
                    p->tensors[c->producers ? __builtin_ctzll(c->producers) : v->tensor].name);
    }
}

static void dump_epilogue(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    const fg_fused *fz = k->fz;
    if (!fz->nepilogue)
        return;
    fputs("epilogue (final running values):\n", f);
    for (int i = 0; i < fz->nepilogue; i++) {
        const fg_ir_tensor *t = &p->tensors[fz->epilogue[i]];
        fprintf(f, "  %s = %s%s\n", t->name, expr_to_string(a, p, t->rhs),
                t->is_output ? "  [output]" : "");
    }
}

static void dump_rules(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    fputs("masked rows (rules.c):", f);
    bool any = false;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || !t->rhs)
            continue;
        const fg_expr *e = t->rhs;
        if (e->kind == E_DIV && rule_masked_div(p, e)) {
            fprintf(f, "\n  %s: %s reads 0 where %s is 0", t->name,
                    expr_to_string(a, p, e), expr_to_string(a, p, e->args[1]));
            any = true;
        }
    }
    for (int i = 0; i < k->nvalues; i++)
        if (rule_masked_minmax(&p->tensors[k->values[i].tensor])) {
            fprintf(f, "\n  %s reads 0 in a row with no visible key",
                    p->tensors[k->values[i].tensor].name);
            any = true;
        }
    fputs(any ? "\n" : " none apply\n", f);
}

static void dump_mask(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    const fg_mask *m = k->mask;
    if (!m->present) {
        fputs("mask: none (every key visible, every tile full)\n", f);
        return;
    }
    fprintf(f, "mask: %s, plan line %d: visible when %s\n", p->tensors[m->stmt].name,
            m->loc.line, expr_to_string(a, p, m->cond));
    fprintf(f, "  rows %s, keys %s; %s\n", axis_name(p, m->row_axis), axis_name(p, m->col_axis),
            mask_describe_tiles(a, p, m));
    fprintf(f, "  tiles classified by rows and keys: %s; fully masked tiles %s\n",
            k->mask_rows_keys ? "yes (key ranges per row block from masks.c)"
                              : "no (every tile applies the condition)",
            k->mask_skip ? "skipped (every running body adds its identity there)"
                         : "visited");
    static const char *const op[] = {
        [E_LT] = "<", [E_LE] = "<=", [E_GT] = ">", [E_GE] = ">=", [E_EQ] = "==", [E_NE] = "!=",
    };
    for (int i = 0; i < m->nspans; i++)
        fprintf(f, "  span %d: rows' %s %s keys' %s (the CUDA rolling kernels decide it per tile "
                   "from the ranges of both sides and narrow the key range)\n",
                i, expr_to_string(a, p, m->spans[i]->row), op[m->spans[i]->cmp],
                expr_to_string(a, p, m->spans[i]->col));
    if (m->nspans)
        fprintf(f, "  masked tiles with every span known (all pairs or none), in the CUDA sm_90a "
                   "rolling kernel: %s\n",
                mask_decided_by_spans(m)
                    ? "each element from the spans' truth and its linear atoms (no ids read)"
                    : "each element's ids read (the mask has other leaves)");
}

static void dump_names(FILE *f, const fg_plan *p, const char *what, int n, const int *list)
{
    fprintf(f, "%s", what);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? ", " : " ", p->tensors[list[i]].name);
    fputs(n ? "\n" : " none\n", f);
}

/* The rowreduce family's binding (kernel_rows.c). */
static void dump_rows(FILE *f, const fg_kernel *k)
{
    const fg_plan *p = k->plan;
    const fg_krows *r = &k->rows;
    if (!k->rows_ok) {
        fprintf(f, "gpu row kernels: no, line %d: %s\n", k->rows_why_loc.line, k->rows_why);
        return;
    }
    fputs("gpu row kernels: yes\n  rows over", f);
    for (int i = 0; i < r->nrow_axes; i++)
        fprintf(f, "%s%s", i ? ", " : " ", p->axes[r->row_axis[i]].name);
    fputs(r->nrow_axes ? "\n" : " nothing (one row)\n", f);
    dump_names(f, p, "  read per element:", r->nin_c, r->in_c);
    dump_names(f, p, "  read per row:", r->nin_row, r->in_row);
    dump_names(f, p, "  row statements before the walk:", r->npro, r->pro);
    dump_names(f, p, "  row statements after the walk:", r->nfin, r->fin);
    dump_names(f, p, "  outputs per row:", r->nout_row, r->out_row);
    dump_names(f, p, "  outputs per element (second walk):", r->nout_c, r->out_c);
}

/* The values per row written beside O, "(none)" without. */
static const char *row_names(fg_arena *a, const fg_kattn *at, const fg_plan *p)
{
    const char *s = at->nrows ? "" : "(none)";
    for (int i = 0; i < at->nrows; i++)
        s = arena_printf(a, "%s%s%s", s, i ? ", " : "", p->tensors[at->row_t[i]].name);
    return s;
}

static void dump_attention(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    const fg_kattn *at = &k->attn;
    if (!k->attn_ok) {
        fprintf(f, "gpu attention kernels: no, line %d: %s\n", k->attn_why_loc.line,
                k->attn_why);
        if (k->family == FAMILY_ROWREDUCE)
            dump_rows(f, k);
        return;
    }
    fputs("gpu attention kernels: yes\n", f);
    if (at->softmax)
        fprintf(f, "  roles: Q = %s, K = %s, V = %s, S = %s, max %s, sum %s, P.V %s, O = %s, "
                   "per row %s\n",
                p->tensors[at->q].name, p->tensors[at->k].name, p->tensors[at->v].name,
                p->tensors[at->s].name, p->tensors[at->mx].name, p->tensors[at->l].name,
                p->tensors[at->osum].name, p->tensors[at->o].name, row_names(a, at, p));
    else
        fprintf(f, "  roles: Q = %s, K = %s, V = %s, S = %s, no softmax chain: %s = "
                   "sum(%s: W * %s), W = %s, t the masked score\n",
                p->tensors[at->q].name, p->tensors[at->k].name, p->tensors[at->v].name,
                p->tensors[at->s].name, p->tensors[at->o].name, axis_name(p, at->ax_n),
                p->tensors[at->v].name, expr_to_string(a, p, at->weight));
    if (at->nchains > 1) {
        fprintf(f, "  independent chains, one pass of the kernels each, %s built up by their "
                   "epilogues:\n",
                p->tensors[at->o].name);
        for (int i = 0; i < at->nchains; i++) {
            const fg_kchain *ch = &at->chain[i];
            fprintf(f, "    chain %d: Q = %s, K = %s, V = %s, max %s, sum %s, P.V %s; %s += %s * "
                       "%s / %s\n",
                    i + 1, p->tensors[ch->q].name, p->tensors[ch->k].name,
                    p->tensors[ch->v].name, p->tensors[ch->mx].name, p->tensors[ch->l].name,
                    p->tensors[ch->osum].name, p->tensors[at->o].name,
                    expr_to_string(a, p, ch->coef), p->tensors[ch->osum].name,
                    p->tensors[ch->l].name);
        }
    }
    if (at->naux) {
        fprintf(f, "  extra inputs read by the score, the mask or the weight:");
        for (int i = 0; i < at->naux; i++)
            fprintf(f, "%s %s", i ? "," : "", p->tensors[at->aux[i]].name);
        fprintf(f, "\n");
    }
    fprintf(f, "  axes: batch %s, head %s, row %s, key %s, head dim %s; kv head %s%s\n",
            axis_name(p, at->ax_b), axis_name(p, at->ax_h), axis_name(p, at->ax_m),
            axis_name(p, at->ax_n), axis_name(p, at->ax_d), expr_to_string(a, p, at->kv_head),
            at->grouped ? " (grouped)" : "");
    fprintf(f, "  score: %s%s\n", expr_to_string(a, p, at->score),
            at->affine_score ? " (affine in Q.K)" : "");
    fprintf(f, "  score, %s: %s%s\n", at->softmax ? "exp2 domain" : "as the kernels compute it",
            expr_to_string(a, p, at->score_l2),
            at->fold ? " (the constant folds into the exp2 argument)" : "");
    if (at->tile_fold)
        fprintf(f, "  score per tile: %s * k%d + %s; on a tile where the term reads one element "
                   "the scale folds with it as an offset\n",
                p->tensors[at->s].name, at->tile_fold_const, expr_to_string(a, p, at->score_bias_l2));
    if (at->tile_diag)
        fprintf(f, "  score term on diagonals: it reads the row and key only through their "
                   "difference; the sm_90a kernel takes it once a diagonal of a thread's elements\n");
    if (at->keylin)
        fprintf(f, "  score linear in the key: %s * %s + %s * (%s), the integer term %+d a key; "
                   "the sm_90a kernel takes it from one value a tile, shared by a thread's rows\n",
                p->tensors[at->s].name, expr_to_string(a, p, at->keylin_qk),
                expr_to_string(a, p, at->keylin_slope), expr_to_string(a, p, at->keylin_int),
                at->keylin_step);
    if (at->cond)
        fprintf(f, "  visible: %s; GPU tiles %s\n", expr_to_string(a, p, at->cond),
                at->mask_skip    ? "classified, fully masked ones skipped"
                : at->mask_tiles ? "classified"
                                 : "all apply the condition");
    for (int i = 0; i < k->nconsts; i++)
        fprintf(f, "  k%d = %s (%s)\n", i, k->consts[i].why,
                k->consts[i].per_head ? "per head" : "host, per launch");
    fprintf(f, "  configurations the plan's facts admit (variants.c), in dispatch order:\n");
    for (int i = 0; i < k->nconfigs; i++) {
        const fg_cuda_config *cf = k->configs[i];
        if (cf->family == CUDA_FAMILY_ROLLING)
            fprintf(f, "    %s %s: D %d, %d rows x %d keys, %d warps, %d stages%s\n", cf->arch,
                    cf->name, cf->d, cf->bm, cf->bn, cf->warps, cf->stages,
                    cf->nwhen ? " (when its rule holds)" : "");
        else
            fprintf(f, "    %s %s: D %d, %d rows x %d keys per warp tile, %d warps, %d stages%s\n",
                    cf->arch, cf->name, cf->d, 16 * cf->mt, cf->bnw, cf->warps, cf->stages,
                    config_admits(cf, at->affine_score, config_masking(k)) == 0
                        ? " (when its shape rule holds)"
                        : "");
    }
}

static void dump_facts(FILE *f, const fg_kernel *k, fg_arena *a)
{
    const fg_plan *p = k->plan;
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            fprintf(f, "param vector %s[%s], default %s\n", pa->name,
                    axis_name(p, pa->index_axis),
                    pa->deflt ? expr_to_string(a, p, pa->deflt) : "(required)");
        if (k->divides[i])
            fprintf(f, "param %s divides: it must be > 0 at run time\n", pa->name);
    }
}

void dump_kernel(FILE *f, const fg_kernel *k)
{
    fg_arena *a = arena_create();
    fprintf(f, "kernel %s: family %s\n", k->plan->name, fg_family_names[k->family]);
    dump_schedule(f, k);
    dump_values(f, k, a);
    dump_epilogue(f, k, a);
    dump_rules(f, k, a);
    dump_mask(f, k, a);
    dump_attention(f, k, a);
    dump_facts(f, k, a);
    arena_destroy(a);
}
