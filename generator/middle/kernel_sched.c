/* kernel_sched.c - the kernel model's facts and schedule (kernel.c runs
 * them): which params divide somewhere, the resolved schedule (tiles,
 * warps, stages, the row tile and the rows outside it), the placement
 * check, and the tile configurations (variants.c) the facts admit.
 */
#include "generator.h"

/* ------------------------------------------------------------------ */
/* Facts                                                               */
/* ------------------------------------------------------------------ */

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

bool kernel_divides_by(const fg_plan *p, int param)
{
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
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

/* ------------------------------------------------------------------ */
/* The schedule                                                        */
/* ------------------------------------------------------------------ */

/* Rows: the axes of the running state that stay fixed per row; the row
 * tile is the schedule's tiled row axis, else the last row axis one row at
 * a time; the others loop outside. */
void kernel_resolve_schedule(fg_kernel *k)
{
    const fg_fused *fz = k->fz;
    const fg_plan *p = k->plan;
    fg_ksched *s = &k->sched;
    s->form = fz->form;
    s->reduced_axis = fz->axis;
    s->warps = p->sched.warps ? p->sched.warps : 4;
    s->stages = p->sched.stages ? p->sched.stages : 1;
    s->splits = p->sched.splits;
    s->targets = p->sched.targets ? p->sched.targets : (TARGET_C | TARGET_CUDA | TARGET_HIP);
    uint32_t rows = fz->row_axes;
    if (!rows && fz->nrunning) {
        rows = ~0u;
        for (int i = 0; i < fz->nrunning; i++)
            rows &= p->tensors[fz->running[i].tensor].axis_mask;
    }
    rows &= ~(1u << fz->axis);
    s->row_axis = -1;
    s->tile_keys = 64;
    for (int i = 0; i < p->sched.ntiles; i++) {
        const fg_tile_size *ts = &p->sched.tiles[i];
        if (ts->axis == fz->axis)
            s->tile_keys = ts->size;
        else if (ts->axis >= 0 && (rows & (1u << ts->axis))) {
            s->row_axis = ts->axis;
            s->tile_rows = ts->size;
        }
    }
    if (s->row_axis < 0 && rows && fz->nrunning) {
        const fg_ir_tensor *t = &p->tensors[fz->running[0].tensor];
        for (int i = 0; i < t->naxes; i++)
            if (rows & (1u << t->axes[i]))
                s->row_axis = t->axes[i];
        s->tile_rows = 1;
    }
    if (s->tile_rows <= 0)
        s->tile_rows = 1;
    if (s->tile_keys <= 0)
        s->tile_keys = 64;
    s->outer = rows & ~(s->row_axis >= 0 ? 1u << s->row_axis : 0u);
}

/* Every statement's axes must be the fused axis, a row axis (the tile or an
 * outer loop) or an axis of its own; no reduction over a row axis. */
int kernel_check_placement(fg_kernel *k, fg_diag *d)
{
    const fg_plan *p = k->plan;
    const fg_ksched *s = &k->sched;
    uint32_t rows = s->outer | (s->row_axis >= 0 ? 1u << s->row_axis : 0u);
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT)
            continue;
        if ((t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION) &&
            t->red_axis != s->reduced_axis && (rows & (1u << t->red_axis))) {
            diag_error(d, t->loc,
                       "'%s' reduces over row axis '%s', which the fused schedule keeps "
                       "fixed per row",
                       plan_user_name(p, i), p->axes[t->red_axis].name);
            return -1;
        }
    }
    return 0;
}

/* The variants (variants.c) of the plan's family that its facts admit. */
void kernel_resolve_configs(fg_kernel *k, fg_arena *a)
{
    fg_cuda_family fam = k->sched.form == FORM_SPLIT ? CUDA_FAMILY_SPLIT : CUDA_FAMILY_ROLLING;
    k->configs = ARENA_ARRAY(a, const fg_cuda_config *, fg_cuda_nconfigs + 1);
    for (int i = 0; i < fg_cuda_nconfigs; i++) {
        const fg_cuda_config *cf = &fg_cuda_configs[i];
        if (config_in_family(cf, fam) &&
            config_admits(cf, k->attn.affine_score, config_masking(k)) >= 0)
            k->configs[k->nconfigs++] = cf;
    }
}
