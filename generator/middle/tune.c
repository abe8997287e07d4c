/* tune.c - what ahead-of-time tuning gives a plan's kernel (docs/tuning.md).
 *
 * tune_space turns the plan's `tune {}` block into candidate variants of the
 * sm_90a rolling skeleton (templates/cuda/sm90/): the cross product of its
 * row tiles (128, and 64 where named), key tiles, stages and ping-pong
 * switch for every compiled head dim,
 * keeping those the skeleton can hold (shared memory, registers).  The
 * split form's knob is the split count, an argument of every launch: it
 * needs no compiled candidate.
 *
 * tune_attach keeps, of the wisdom files given, the rows that are this
 * plan's (same name and source hash) and name a candidate it has; fusegen
 * --tuning compiles every candidate with a hook that forces one
 * (fusegen-tune's tuning library), a plain run only the winners of the
 * rows, each looked up per device and shape bucket (back/cuda/configs.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <stdlib.h>
#include <string.h>

/* The sm_90a skeleton's limits (templates/cuda/sm90/rolling.cuh): a
 * consumer thread of 240 registers (232 at 64 rows) holds the S tile (bn/2
 * floats), P as half pairs (bn/4) and the O tile (d/2); 227 KB of shared
 * memory (config_smem, variants.c). */
#define SM90_REG_BUDGET 200
#define SM90_SMEM (227L * 1024)
/* two CTAs a SM (64 query rows): 228 KB a SM less 1 KB reserved a CTA, halved */
#define SM90_SMEM_HALF (113L * 1024)

static const fg_tune_knob *knob(const fg_plan *p, const char *name, int axis)
{
    for (int i = 0; i < p->sched.nknobs; i++) {
        const fg_tune_knob *kb = &p->sched.knobs[i];
        if (!strcmp(kb->knob, name) && (axis < 0 || kb->axis == axis))
            return kb;
    }
    return NULL;
}

static bool has_value(const fg_tune_knob *kb, int v)
{
    for (int i = 0; kb && i < kb->nvalues; i++)
        if (kb->values[i] == v)
            return true;
    return false;
}

int tune_space(fg_arena *a, const fg_kernel *k, const int *dims, int ndims, fg_cuda_config **out)
{
    *out = NULL;
    if (!k->attn_ok || k->sched.form == FORM_SPLIT)
        return 0;
    const fg_plan *p = k->plan;
    const fg_tune_knob *kn = knob(p, "tile", k->sched.reduced_axis);
    const fg_tune_knob *km = knob(p, "tile", k->sched.row_axis);
    const fg_tune_knob *ks = knob(p, "stages", -1);
    const fg_tune_knob *kp = knob(p, "pingpong", -1);
    if (km && !has_value(km, 128))
        return 0; /* the skeleton's row tile is 128 */
    int ds[16];
    const int nd =
        config_dims(CUDA_FAMILY_ROLLING, "sm90", k->attn.affine_score, config_masking(k), ds, 16);
    fg_vec v = {0};
    for (int di = 0; di < nd; di++) {
        const int d = ds[di];
        bool wanted = ndims <= 0;
        for (int j = 0; j < ndims; j++)
            wanted |= dims[j] == d;
        if (!wanted)
            continue;
        /* without a knob, the values of the default rows of this dim */
        int bns[16], nbn = 0, sts[8], nst = 0;
        for (int i = 0; kn && i < kn->nvalues && nbn < 16; i++)
            bns[nbn++] = kn->values[i];
        for (int i = 0; ks && i < ks->nvalues && nst < 8; i++)
            sts[nst++] = ks->values[i];
        for (int i = 0; i < fg_cuda_nconfigs; i++) {
            const fg_cuda_config *c = &fg_cuda_configs[i];
            /* rows this plan takes, of the candidates' 128 query rows (so
             * never H128D's 64 rows and 64-key tiles) */
            if (!config_in_arch(c, CUDA_FAMILY_ROLLING, "sm90") || c->d != d || c->bm != 128 ||
                config_admits(c, k->attn.affine_score, config_masking(k)) < 0)
                continue;
            bool seen = false;
            for (int j = 0; j < nbn; j++)
                seen |= bns[j] == c->bn;
            if (!kn && !seen && nbn < 16)
                bns[nbn++] = c->bn;
            seen = false;
            for (int j = 0; j < nst; j++)
                seen |= sts[j] == c->stages;
            if (!ks && !seen && nst < 8)
                sts[nst++] = c->stages;
        }
        const int npp = kp ? kp->nvalues : 1;
        /* 128 query rows (two consumer groups), and where the row tile's
         * knob names 64, 64 (one consumer group, two CTAs a SM: one CTA's
         * first tiles and epilogue beside the other's tiles; no ping-pong,
         * which takes two groups; half of a SM's shared memory each) */
        const int nbm = km && has_value(km, 64) ? 2 : 1;
        for (int mi = 0; mi < nbm; mi++)
        for (int bi = 0; bi < nbn; bi++)
            for (int si = 0; si < nst; si++)
                for (int pi = 0; pi < npp; pi++) {
                    const int bm = mi ? 64 : 128, bn = bns[bi], st = sts[si];
                    const bool pp = kp ? kp->values[pi] != 0 : false;
                    if (bn % 16 || bn < 64 || bn > 256 || st < 2 || st > 4 || (bm == 64 && pp))
                        continue;
                    /* a weight without a softmax chain may read values at the
                     * key, which the kernel rings in shared memory wherever
                     * 227 KB leave room (fh_cfg::KVG): past the half a 64-row
                     * CTA has, so none of those at 64 rows */
                    if (bm == 64 && !k->attn.softmax)
                        continue;
                    fg_cuda_config shape = {.arch = "sm90", .d = d, .bm = bm, .bn = bn,
                                            .stages = st};
                    /* no ring of key values counted: the kernel takes one only where it fits */
                    if (3 * bn / 4 + d / 2 > SM90_REG_BUDGET ||
                        config_smem(&shape, config_nspans(k), 0) > (bm == 64 ? SM90_SMEM_HALF : SM90_SMEM))
                        continue;
                    fg_cuda_config *c = ARENA_NEW(a, fg_cuda_config);
                    *c = (fg_cuda_config){
                        .family = CUDA_FAMILY_ROLLING,
                        .arch = "sm90",
                        .name = arena_printf(a, "T%d_%d_%d%s%s", d, bn, st, pp ? "P" : "", bm == 64 ? "M64" : ""),
                        .d = d,
                        .bm = bm,
                        .bn = bn,
                        .warps = bm == 64 ? 8 : 12,
                        .stages = st,
                        .pingpong = pp,
                        .dtypes = CUDA_CFG_BF16 | CUDA_CFG_FP16,
                        .note = bm == 64 ? arena_printf(a, "64 query rows (one consumer group, two CTAs a SM), "
                                                           "wgmma 64x%d tiles, %d K/V stages", bn, st)
                                         : arena_printf(a, "wgmma 64x%d tiles, %d K/V stages%s", bn, st,
                                                        pp ? ", ping-pong" : ""),
                        .origin = "a candidate of the plan's tune block",
                    };
                    vec_push(a, &v, c);
                }
    }
    if (!v.len)
        return 0;
    fg_cuda_config *arr = ARENA_ARRAY(a, fg_cuda_config, v.len);
    for (int i = 0; i < v.len; i++)
        arr[i] = *(fg_cuda_config *)v.items[i];
    *out = arr;
    return v.len;
}

const fg_cuda_config *tune_find(const fg_ktune *t, const char *name)
{
    for (int i = 0; t && i < t->ncands; i++)
        if (!strcmp(t->cands[i].name, name))
            return &t->cands[i];
    return NULL;
}

/* "splits=N" with 1 <= N <= 1024 */
static bool splits_variant(const char *v)
{
    if (strncmp(v, "splits=", 7) != 0)
        return false;
    char *end = NULL;
    long n = strtol(v + 7, &end, 10);
    return end && !*end && n >= 1 && n <= 1024;
}

int tune_attach(fg_arena *a, fg_kernel *k, bool tuning, const int *dims, int ndims,
                const fg_wisdom *const *wisdom, int nw, fg_diag *d)
{
    fg_ktune *t = ARENA_NEW(a, fg_ktune);
    t->tuning = tuning;
    t->ncands = tune_space(a, k, dims, ndims, &t->cands);
    t->wisdom = ARENA_ARRAY(a, const fg_wisdom *, nw + 1);
    t->nrows = ARENA_ARRAY(a, int, nw + 1);
    t->rows = ARENA_ARRAY(a, const fg_wisdom_row **, nw + 1);
    const fg_plan *p = k->plan;
    const bool split = k->sched.form == FORM_SPLIT;
    for (int w = 0; w < nw && k->attn_ok && !tuning; w++) {
        const fg_wisdom *wf = wisdom[w];
        const fg_wisdom_row **rows = ARENA_ARRAY(a, const fg_wisdom_row *, wf->nrows + 1);
        int n = 0, stale = 0, unknown = 0;
        fg_loc first_stale = {0, 0}, first_unknown = {0, 0};
        for (int i = 0; i < wf->nrows; i++) {
            const fg_wisdom_row *r = &wf->rows[i];
            if (strcmp(r->plan, p->name) != 0)
                continue;
            if (strcmp(r->hash, p->hash) != 0) {
                if (!stale++)
                    first_stale = r->loc;
                continue;
            }
            if (strcmp(r->variant, "default") != 0 &&
                (split ? !splits_variant(r->variant) : !tune_find(t, r->variant))) {
                if (!unknown++)
                    first_unknown = r->loc;
                continue;
            }
            rows[n++] = r;
        }
        /* located in the wisdom file */
        fg_diag wd;
        diag_init(&wd, wf->src, d->out);
        if (stale)
            diag_warning(&wd, first_stale,
                         "%d row%s for plan '%s' %s tuned on another version of the plan "
                         "(its hash is not %s): not used",
                         stale, stale == 1 ? "" : "s", p->name, stale == 1 ? "was" : "were",
                         p->hash);
        if (unknown)
            diag_warning(&wd, first_unknown,
                         "%d row%s for plan '%s' name%s a configuration its tune block does "
                         "not have: not used",
                         unknown, unknown == 1 ? "" : "s", p->name, unknown == 1 ? "s" : "");
        d->warnings += wd.warnings;
        if (!n)
            continue;
        /* an earlier file of the same device (name and SM count) serves
         * this plan: the run's order puts user files first */
        const fg_wisdom *over = NULL;
        for (int j = 0; j < t->nwisdom && !over; j++)
            if (!strcmp(t->wisdom[j]->device, wf->device) && t->wisdom[j]->sms == wf->sms)
                over = t->wisdom[j];
        if (over) {
            fprintf(d->out,
                    "fusegen: warning: wisdom file '%s': its %d row%s for plan '%s' %s not "
                    "used: '%s' serves that plan on %s\n",
                    wf->path, n, n == 1 ? "" : "s", p->name, n == 1 ? "is" : "are", over->path,
                    wf->device);
            d->warnings++;
            continue;
        }
        t->wisdom[t->nwisdom] = wf;
        t->nrows[t->nwisdom] = n;
        t->rows[t->nwisdom] = rows;
        t->nwisdom++;
    }
    k->tune = t;
    return 0;
}
