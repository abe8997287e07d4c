/* test_cpu.c - the CPU numerics harness: every plan in the generated
 * registry (generated/fusegen_plans.c), run through its generated C fused
 * schedule on fresh random inputs at odd sizes, against the reference
 * interpreter (interp_run, double precision) on the same values.
 *
 *   query rows 1, 7, 67; key rows 1, 13, 131, 1000; head dims 32, 64, 80,
 *   128; groups 1 and 4 (grouped plans); batch 2; every plan with splits
 *   0 (the schedule's), 1, 2, 3, 7 in turn.  Small problems run in full; of the large ones a
 *   seeded sample, so that the whole program stays well under a minute
 *   under ASan.  Inputs f32, or bf16 with the reference reading the same
 *   rounded values.  Outputs are poisoned with NaN before each run.
 *
 * Pass: relative error ||out - ref|| / ||ref|| < 1e-5 per output, or, where
 * the output is ill-conditioned (a row mean of values that nearly cancel),
 * ||out - ref|| within 64 times what the reference itself moves when every
 * input value moves by one f32 unit (see sensitivity()); where the
 * reference is exactly 0 or +-inf (fully masked rows: O = 0, LSE = -inf)
 * the output must be identical; no NaN anywhere.  The seed comes from the
 * time (or FG_TEST_SEED) and is printed; a failure names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_reference.h"
#include "fusegen_plans.h"

static uint64_t seed;
static uint64_t rng_state;

/* splitmix64 over *state */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) from *state */
static double uniform_from(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (double)(splitmix(state) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t rng_next(void) { return splitmix(&rng_state); }

static double rng_uniform(double lo, double hi)
{
    return uniform_from(&rng_state, lo, hi);
}

typedef struct harness {
    const fg_plan_info *info;
    ref_plan *plan;
    long runs, skipped_large, refused;
    bool omit_optional; /* outputs after the first passed with NULL data */
} harness;

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* The checked plan behind a registry entry: plans/NAME.fp. */
static ref_plan *load_plan(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/plans/%s.fp", srcdir(), name);
    return ref_load(path);
}

/* Sizes by the dim's role (the registry's binding); G is the group count
 * of a grouped plan (query heads = G * kv heads). */
static long dim_value(int role, long rows, long keys, long hd, long g)
{
    switch (role) {
    case FG_ROLE_BATCH: return 2;
    case FG_ROLE_KV_HEADS: return 2;
    case FG_ROLE_HEADS: return g > 1 ? 2 * g : 2;
    case FG_ROLE_ROWS: return rows;
    case FG_ROLE_KEYS: return keys;
    case FG_ROLE_HEAD_DIM: return hd;
    default: return 3;
    }
}

static float bf16_round(float x) { return fg_bf16_to_float(fg_float_to_bf16(x)); }

typedef struct result {
    double rel_err;
    int ok;
    char why[256];
} result;

/* ||a - b||^2 and ||b||^2 over one output, leaving out the elements the
 * reference gives as exactly 0 or +-inf (checked for identity apart). */
static void diff_norms(const double *r, const double *a, const float *af, size_t n, double *num,
                       double *den)
{
    *num = *den = 0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(r[i]) || r[i] == 0.0)
            continue;
        double e = (af ? (double)af[i] : a[i]) - r[i];
        *num += e * e;
        *den += r[i] * r[i];
    }
}

/* How far the exact result moves when every float input value moves by up
 * to one f32 unit (relative 2^-23, signs at random): the reference run
 * again on the moved values, output by output (sens[k] = ||ref' - ref||).
 * A sum whose terms nearly cancel moves much more than its value's 2^-23;
 * an f32 evaluation of it can be no closer than its rounding of the
 * partial sums, which is of the same order.  Its own generator, so that
 * the seed's sequence of cases does not depend on which case needed it. */
static int sensitivity(const ref_plan *p, const fg_plan_info *info, const long *dims, long **lens,
                       const double *ref_params, double *const *ref_in, const size_t *in_n,
                       const int *in_tensor, double *const *ref_out, const size_t *out_n,
                       const int *out_tensor, double *sens)
{
    double *in2[64] = {0}, *out2[64] = {0};
    uint64_t st = seed ^ 0x5bd1e995u;
    int rc = -1;
    for (int k = 0; k < info->ninputs; k++) {
        int t = in_tensor[k];
        in2[t] = malloc((in_n[k] ? in_n[k] : 1) * sizeof(double));
        if (!in2[t])
            goto out;
        for (size_t i = 0; i < in_n[k]; i++) {
            double v = ref_in[t][i];
            if (info->inputs[k].dtype != FG_I32) {
                v *= 1.0 + uniform_from(&st, -1.0, 1.0) * 0x1p-23;
            }
            in2[t][i] = v;
        }
    }
    for (int k = 0; k < info->noutputs; k++) {
        int t = out_tensor[k];
        out2[t] = calloc(out_n[k] ? out_n[k] : 1, sizeof(double));
        if (!out2[t])
            goto out;
    }
    ref_set_quiet(1);
    rc = ref_run(p, dims, lens, ref_params, in2, out2);
    ref_set_quiet(0);
    for (int k = 0; rc >= 0 && k < info->noutputs; k++) {
        double num, den;
        diff_norms(ref_out[out_tensor[k]], out2[out_tensor[k]], NULL, out_n[k], &num, &den);
        sens[k] = sqrt(num);
    }
out:
    for (int t = 0; t < 64; t++) {
        free(in2[t]);
        free(out2[t]);
    }
    return rc;
}

/* One run: returns 0 on agreement, else prints what differs.  lens: per
 * dim, the lengths of a per-sequence dim (dim N[b]) or NULL; may be NULL. */
static int run_case_lens(harness *h, const long *dims, long **lens, int splits, int bf16,
                         const double *params, const int *has_params)
{
    const fg_plan_info *info = h->info;
    const ref_plan *p = h->plan;
    int fails = 0;
    int nin = info->ninputs, nout = info->noutputs;
    fg_tensor in[8], out[8];
    double *ref_in[64] = {0}, *ref_out[64] = {0};
    void *in_data[8] = {0};
    float *out_data[8] = {0};
    size_t out_n[8] = {0}, in_n[8] = {0};
    int out_tensor[8] = {0}, in_tensor[8] = {0};
    assert_true(nin <= 8 && nout <= 8 && ref_ntensors(p) <= 64);

    for (int k = 0; k < nin; k++) {
        const fg_plan_tensor_info *ti = &info->inputs[k];
        int t = ref_find_tensor(p, ti->name);
        assert_true(t >= 0);
        int64_t shape[FG_MAX_RANK];
        size_t n = 1;
        for (int q = 0; q < ti->rank; q++) {
            shape[q] = dims[ti->dims[q]];
            n *= (size_t)shape[q];
        }
        in_tensor[k] = t;
        in_n[k] = n;
        ref_in[t] = calloc(n ? n : 1, sizeof(double));
        in_data[k] = calloc(n ? n : 1, bf16 && ti->dtype != FG_I32 ? 2 : 4);
        assert_non_null(ref_in[t]);
        assert_non_null(in_data[k]);
        bool ids = ti->dtype == FG_I32;
        for (size_t i = 0; i < n; i++) {
            if (ids) {
                /* ids (document, segment): few values, so that they match */
                int32_t v = (int32_t)(rng_next() % 3);
                ((int32_t *)in_data[k])[i] = v;
                ref_in[t][i] = v;
                continue;
            }
            float v = (float)rng_uniform(-2.0, 2.0);
            if (bf16) {
                ((uint16_t *)in_data[k])[i] = fg_float_to_bf16(v);
                v = bf16_round(v);
            } else
                ((float *)in_data[k])[i] = v;
            ref_in[t][i] = v;
        }
        in[k] = fg_tensor_dense(in_data[k], ids ? FG_I32 : bf16 ? FG_BF16 : FG_F32, ti->rank,
                                shape);
    }
    for (int k = 0; k < nout; k++) {
        const fg_plan_tensor_info *ti = &info->outputs[k];
        int t = ref_find_tensor(p, ti->name);
        assert_true(t >= 0);
        out_tensor[k] = t;
        int64_t shape[FG_MAX_RANK];
        size_t n = 1;
        for (int q = 0; q < ti->rank; q++) {
            shape[q] = dims[ti->dims[q]];
            n *= (size_t)shape[q];
        }
        assert_int_equal(n, ref_tensor_size(p, t, dims));
        out_n[k] = n;
        out_data[k] = malloc((n ? n : 1) * sizeof(float));
        ref_out[t] = calloc(n ? n : 1, sizeof(double));
        assert_non_null(out_data[k]);
        assert_non_null(ref_out[t]);
        for (size_t i = 0; i < n; i++)
            out_data[k][i] = NAN; /* poison */
        out[k] = fg_tensor_dense(out_data[k], FG_F32, ti->rank, shape);
        if (h->omit_optional && k > 0)
            out[k].data = NULL; /* not computed; its shape stays */
    }

    int32_t *lens32[16] = {0};
    for (int i = 0; lens && i < info->ndims && i < 16; i++) {
        if (!lens[i])
            continue;
        assert_true(info->dim_over[i] >= 0);
        long nb = dims[info->dim_over[i]];
        lens32[i] = malloc(sizeof(int32_t) * (size_t)(nb > 0 ? nb : 1));
        assert_non_null(lens32[i]);
        for (long j = 0; j < nb; j++)
            lens32[i][j] = (int32_t)lens[i][j];
    }
    fg_status st = info->cpu(in, out, params, has_params, NULL,
                             lens ? (const int32_t *const *)lens32 : NULL, splits);
    for (int i = 0; i < 16; i++)
        free(lens32[i]);
    /* A read outside an input at these sizes (seg[b, m + N - M] with
     * M > N): the entry refuses it before any work, and so must the
     * reference, which evaluates every read. */
    bool refused = st == FG_ERR_SHAPE && strstr(fg_last_error(), ": index ") != NULL;
    if (st != FG_OK && !refused) {
        print_error("%s: generated C failed: %s\n", info->name, fg_last_error());
        fails++;
    }

    double ref_params[16];
    for (int i = 0; i < info->nparams && i < 16; i++)
        ref_params[i] = params && has_params && has_params[i] ? params[i] : NAN;
    ref_set_quiet(refused);
    int ref_rc = ref_run(p, dims, lens, ref_params, ref_in, ref_out);
    ref_set_quiet(0);
    if (refused) {
        if (ref_rc == 0) {
            print_error("%s: the entry refused (%s), the reference ran\n", info->name,
                        fg_last_error());
            fails++;
        }
        h->refused++;
    } else if (ref_rc < 0) {
        print_error("%s: interp_run failed\n", info->name);
        fails++;
    }

    bool sens_done = false;
    double sens[8] = {0};
    for (int k = 0; k < nout && !fails && !refused; k++) {
        if (h->omit_optional && k > 0) {
            /* not computed: the buffer keeps its poison */
            for (size_t i = 0; i < out_n[k] && !fails; i++)
                if (!isnan(out_data[k][i])) {
                    print_error("%s: %s[%zu] written, though passed with NULL data\n",
                                info->name, info->outputs[k].name, i);
                    fails++;
                }
            continue;
        }
        const double *r = ref_out[out_tensor[k]];
        const float *o = out_data[k];
        double num = 0, den = 0;
        for (size_t i = 0; i < out_n[k]; i++) {
            if (isnan(o[i])) {
                print_error("%s: %s[%zu] is NaN (poison left or computed)\n", info->name,
                            info->outputs[k].name, i);
                fails++;
                break;
            }
            if (isinf(r[i]) || r[i] == 0.0) {
                if ((double)o[i] != r[i]) {
                    print_error("%s: %s[%zu] is %g, the reference exactly %g (masked row)\n",
                                info->name, info->outputs[k].name, i, (double)o[i], r[i]);
                    fails++;
                    break;
                }
                continue;
            }
        }
        if (fails)
            break;
        diff_norms(r, NULL, o, out_n[k], &num, &den);
        double rel = den > 0 ? sqrt(num / den) : sqrt(num);
        if (!(rel < 1e-5) && !sens_done) {
            sens_done = true;
            if (sensitivity(p, info, dims, lens, ref_params, ref_in, in_n, in_tensor, ref_out,
                            out_n, out_tensor, sens) < 0)
                for (int q = 0; q < 8; q++)
                    sens[q] = 0;
        }
        if (!(rel < 1e-5) && sqrt(num) <= 64 * sens[k]) {
            print_message("# %s: %s relative error %.3g, within 64 times the reference's own "
                          "move under one f32 unit of input (%.3g): ill-conditioned, accepted\n",
                          info->name, info->outputs[k].name, rel,
                          den > 0 ? sens[k] / sqrt(den) : sens[k]);
            continue;
        }
        if (!(rel < 1e-5)) {
            print_error("%s: %s relative error %.3g >= 1e-5\n", info->name,
                        info->outputs[k].name, rel);
            fails++;
        }
    }
    if (fails) {
        print_error("  failing case: plan %s, %s inputs, splits %d, dims", info->name,
                    bf16 ? "bf16" : "f32", splits);
        for (int i = 0; i < info->ndims; i++) {
            print_error(" %s=%ld", info->dims[i], dims[i]);
            if (lens && lens[i] && info->dim_over[i] >= 0) {
                print_error(" (lengths");
                for (long j = 0; j < dims[info->dim_over[i]]; j++)
                    print_error(" %ld", lens[i][j]);
                print_error(")");
            }
        }
        print_error(", seed %llu (FG_TEST_SEED=%llu reproduces)\n", (unsigned long long)seed,
                    (unsigned long long)seed);
    }
    for (int k = 0; k < nin; k++)
        free(in_data[k]);
    for (int k = 0; k < nout; k++)
        free(out_data[k]);
    for (int t = 0; t < 64; t++) {
        free(ref_in[t]);
        free(ref_out[t]);
    }
    h->runs++;
    return fails;
}

static int run_case_params(harness *h, const long *dims, int splits, int bf16,
                           const double *params, const int *has_params)
{
    return run_case_lens(h, dims, NULL, splits, bf16, params, has_params);
}

static int run_case(harness *h, const long *dims, int splits, int bf16)
{
    return run_case_params(h, dims, splits, bf16, NULL, NULL);
}

static bool has_role(const fg_plan_info *info, fg_dim_role role)
{
    for (int i = 0; i < info->ndims; i++)
        if (info->dim_role[i] == (int)role)
            return true;
    return false;
}

/* The work of one case, in multiply-adds of the fused schedule. */
static double case_cost(const fg_plan_info *info, const long *dims)
{
    double c = 1;
    for (int i = 0; i < info->ndims; i++)
        c *= (double)dims[i];
    return c;
}

#define SMALL_COST 2.5e5 /* every case up to this size runs */
#define LARGE_SHARE 4    /* one in this many of the larger cases runs */
#define MAX_COST 3.0e6   /* beyond this, too slow under ASan: left out */

static void run_plan(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    static const long rows_set[] = {1, 7, 67}, keys_set[] = {1, 13, 131, 1000},
                      hd_set[] = {32, 64, 80, 128}, g_set[] = {1, 4};
    static const int split_set[] = {0, 1, 2, 3, 7};
    bool attention = has_role(info, FG_ROLE_HEAD_DIM); /* the bound attention roles */
    bool grouped = has_role(info, FG_ROLE_KV_HEADS);
    int nhd = attention ? 4 : 1, ng = grouped ? 2 : 1;
    int fails = 0;
    long idx = 0;
    for (int ri = 0; ri < 3; ri++)
        for (int ki = 0; ki < 4; ki++)
            for (int di = 0; di < nhd; di++)
                for (int gi = 0; gi < ng; gi++, idx++) {
                        /* the split counts in turn, for every plan: a
                         * rolling plan runs split on the CPU as well */
                        int si = (int)(idx % 5);
                        long dims[16];
                        for (int i = 0; i < info->ndims && i < 16; i++)
                            dims[i] = dim_value(info->dim_role[i], rows_set[ri], keys_set[ki],
                                                hd_set[di], g_set[gi]);
                        double cost = case_cost(info, dims);
                        if (cost > MAX_COST ||
                            (cost > SMALL_COST && rng_next() % LARGE_SHARE != 0)) {
                            h->skipped_large++;
                            continue;
                        }
                        int bf16 = (int)(idx % 2);
                        fails += run_case(h, dims, split_set[si], bf16);
                        if (fails > 5)
                            goto out;
                    }
out:
    print_message("%s: %ld cases run (%ld refused by entry and reference alike), %ld large "
                  "ones left out of this seed's sample\n",
                  info->name, h->runs, h->refused, h->skipped_large);
    assert_true(h->refused < h->runs); /* most cases compute */
    assert_int_equal(fails, 0);
}

/* Masked rows: M > N under a bottom-right causal mask leaves the first
 * M - N query rows with no key; O must be 0 and LSE -inf exactly. */
static void masked_rows_give_zero_and_minus_inf(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    long dims[16];
    for (int i = 0; i < info->ndims && i < 16; i++)
        dims[i] = dim_value(info->dim_role[i], 67, 13, 32, 1);
    assert_int_equal(run_case(h, dims, 0, 0), 0);
    assert_int_equal(run_case(h, dims, 3, 1), 0);
    /* and the rows really are masked in the generated output */
    int o = -1, lse = -1;
    for (int k = 0; k < info->noutputs; k++) {
        if (!strcmp(info->outputs[k].name, "O"))
            o = k;
        if (!strcmp(info->outputs[k].name, "LSE"))
            lse = k;
    }
    assert_true(o >= 0 && lse >= 0);
    /* run once more and look at row 0 of batch 0, head 0 */
    fg_tensor in[3], out[2];
    int64_t qs[4], ks[4], os[4], ls[3];
    const fg_plan_tensor_info *ti;
    ti = &info->inputs[0];
    for (int q = 0; q < 4; q++)
        qs[q] = dims[ti->dims[q]];
    ti = &info->inputs[1];
    for (int q = 0; q < 4; q++)
        ks[q] = dims[ti->dims[q]];
    ti = &info->outputs[o];
    for (int q = 0; q < 4; q++)
        os[q] = dims[ti->dims[q]];
    ti = &info->outputs[lse];
    for (int q = 0; q < 3; q++)
        ls[q] = dims[ti->dims[q]];
    size_t nq = (size_t)(qs[0] * qs[1] * qs[2] * qs[3]), nk = (size_t)(ks[0] * ks[1] * ks[2] * ks[3]);
    size_t no = (size_t)(os[0] * os[1] * os[2] * os[3]), nl = (size_t)(ls[0] * ls[1] * ls[2]);
    float *Q = malloc(nq * 4), *K = malloc(nk * 4), *V = malloc(nk * 4), *O = malloc(no * 4),
          *L = malloc(nl * 4);
    assert_true(Q && K && V && O && L);
    for (size_t i = 0; i < nq; i++)
        Q[i] = (float)rng_uniform(-1, 1);
    for (size_t i = 0; i < nk; i++)
        K[i] = (float)rng_uniform(-1, 1), V[i] = (float)rng_uniform(-1, 1);
    for (size_t i = 0; i < no; i++)
        O[i] = NAN;
    for (size_t i = 0; i < nl; i++)
        L[i] = NAN;
    in[0] = fg_tensor_dense(Q, FG_F32, 4, qs);
    in[1] = fg_tensor_dense(K, FG_F32, 4, ks);
    in[2] = fg_tensor_dense(V, FG_F32, 4, ks);
    out[o] = fg_tensor_dense(O, FG_F32, 4, os);
    out[lse] = fg_tensor_dense(L, FG_F32, 3, ls);
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, 0), FG_OK);
    /* row 0 sees key n when n <= 0 + N - M = 13 - 67 < 0: none */
    assert_true(isinf(L[0]) && L[0] < 0);
    for (long d = 0; d < os[3]; d++)
        assert_true(O[d] == 0.0f);
    /* the last row sees every key: finite */
    assert_true(isfinite(L[ls[2] - 1]));
    free(Q);
    free(K);
    free(V);
    free(O);
    free(L);
}

static int setup_plan(void **state, const char *name)
{
    harness *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    for (int i = 0; fg_plan_list[i]; i++)
        if (!strcmp(fg_plan_list[i]->name, name))
            h->info = fg_plan_list[i];
    h->plan = h->info ? load_plan(name) : NULL;
    if (!h->info || !h->plan) {
        print_error("plan %s: not in the registry or not loadable from %s/plans\n", name,
                    srcdir());
        ref_free(h->plan);
        free(h);
        return -1;
    }
    *state = h;
    return 0;
}

static int teardown_plan(void **state)
{
    harness *h = *state;
    ref_free(h->plan);
    free(h);
    return 0;
}

#define PLAN_SETUP(name)                                                   \
    static int setup_##name(void **state) { return setup_plan(state, #name); }
PLAN_SETUP(global)
PLAN_SETUP(causal)
PLAN_SETUP(gqa)
PLAN_SETUP(alibi)
PLAN_SETUP(softcap)
PLAN_SETUP(window)
PLAN_SETUP(rmsnorm)
PLAN_SETUP(layernorm)
PLAN_SETUP(fa1)
PLAN_SETUP(moments)
PLAN_SETUP(diffattn)
PLAN_SETUP(maxlogit)
PLAN_SETUP(sigmoid)
PLAN_SETUP(siggate)
PLAN_SETUP(docmask)
PLAN_SETUP(relbias)
PLAN_SETUP(base2)
PLAN_SETUP(rowmax)
PLAN_SETUP(prefixlm)
PLAN_SETUP(sinkwindow)
PLAN_SETUP(causal_decode)
PLAN_SETUP(gqa_decode)
PLAN_SETUP(alibi_decode)
PLAN_SETUP(softcap_decode)
PLAN_SETUP(softmax)
PLAN_SETUP(logsoftmax)
PLAN_SETUP(logsumexp)

/* The sliding window with a short W: rows see between none and W keys, so
 * tiles are skipped on both sides of the band. */
static void short_window_masks_both_sides(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    int w = -1;
    for (int i = 0; i < info->nparams; i++)
        if (!strcmp(info->params[i].name, "W"))
            w = i;
    assert_true(w >= 0);
    double params[16] = {0};
    int has[16] = {0};
    static const long win[] = {1, 5, 70};
    static const long keys[] = {13, 131, 200};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 3; q++) {
            long dims[16];
            for (int i = 0; i < info->ndims && i < 16; i++)
                dims[i] = dim_value(info->dim_role[i], 67, keys[q], 32, 1);
            params[w] = (double)win[k];
            has[w] = 1;
            assert_int_equal(run_case_params(h, dims, 0, k % 2, params, has), 0);
        }
}

/* Prefix-LM: prefixes of 0 keys (causal), some, and more than the keys. */
static void prefix_lm_sees_its_prefix(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    int pp = -1;
    for (int i = 0; i < info->nparams; i++)
        if (!strcmp(info->params[i].name, "P"))
            pp = i;
    assert_true(pp >= 0);
    double params[16] = {0};
    int has[16] = {0};
    static const long prefix[] = {0, 9, 150};
    static const long keys[] = {13, 131};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 2; q++) {
            long dims[16];
            for (int i = 0; i < info->ndims && i < 16; i++)
                dims[i] = dim_value(info->dim_role[i], 67, keys[q], 32, 1);
            params[pp] = (double)prefix[k];
            has[pp] = 1;
            assert_int_equal(run_case_params(h, dims, 0, k % 2, params, has), 0);
        }
}

/* StreamingLLM: sinks and windows shorter than the keys, so rows see the
 * sinks and a band, with masked keys between. */
static void sinks_and_window(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    int s = -1, w = -1;
    for (int i = 0; i < info->nparams; i++) {
        if (!strcmp(info->params[i].name, "S"))
            s = i;
        if (!strcmp(info->params[i].name, "W"))
            w = i;
    }
    assert_true(s >= 0 && w >= 0);
    double params[16] = {0};
    int has[16] = {0};
    static const long sinks[] = {0, 4, 20};
    static const long win[] = {1, 30};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 2; q++) {
            long dims[16];
            for (int i = 0; i < info->ndims && i < 16; i++)
                dims[i] = dim_value(info->dim_role[i], 67, 131, 32, 1);
            params[s] = (double)sinks[k];
            params[w] = (double)win[q];
            has[s] = has[w] = 1;
            assert_int_equal(run_case_params(h, dims, 0, k % 2, params, has), 0);
        }
}

/* Layer norm far from zero: rows with mean 1000 and spread 2, where
 * E[X^2] - E[X]^2 in f32 cancels away nearly every digit.  The fused
 * schedule carries the sum of squares about the running mean (Welford's
 * update over the tiles, Chan's combine over the splits), so its inverse
 * standard deviation must stay as close to the double two-pass value as
 * the f32 two-pass form is.  Prints the three errors (docs/algebra.md). */
static void layernorm_keeps_its_precision_far_from_zero(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    enum { R = 7, C = 4099 };
    float *x = malloc(sizeof(float) * R * C), *g = malloc(sizeof(float) * C);
    float *b = malloc(sizeof(float) * C), *y = malloc(sizeof(float) * R * C);
    float mean[R], rstd[R];
    assert_non_null(x);
    assert_non_null(g);
    assert_non_null(b);
    assert_non_null(y);
    for (long i = 0; i < (long)R * C; i++)
        x[i] = (float)(1000.0 + rng_uniform(-2.0, 2.0));
    for (long i = 0; i < C; i++) {
        g[i] = 1.0f;
        b[i] = 0.0f;
    }
    int64_t xs[2] = {R, C}, cs[1] = {C}, rs[1] = {R};
    fg_tensor in[3] = {fg_tensor_dense(x, FG_F32, 2, xs), fg_tensor_dense(g, FG_F32, 1, cs),
                       fg_tensor_dense(b, FG_F32, 1, cs)};
    fg_tensor out[3];
    assert_int_equal(info->noutputs, 3);
    for (int k = 0; k < 3; k++) {
        const char *n = info->outputs[k].name;
        out[k] = !strcmp(n, "Y")      ? fg_tensor_dense(y, FG_F32, 2, xs)
                 : !strcmp(n, "Mean") ? fg_tensor_dense(mean, FG_F32, 1, rs)
                                      : fg_tensor_dense(rstd, FG_F32, 1, rs);
    }
    double eps = 1e-5;
    static const int splits[] = {0, 3};
    for (int si = 0; si < 2; si++) {
        assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, splits[si]), FG_OK);
        double worst[3] = {0, 0, 0}; /* fused, f32 two-pass, f32 one-pass */
        for (int r = 0; r < R; r++) {
            const float *row = x + (long)r * C;
            double s = 0, q = 0;
            for (int c = 0; c < C; c++)
                s += row[c];
            double m = s / C;
            for (int c = 0; c < C; c++)
                q += (row[c] - m) * (row[c] - m);
            double want = 1 / sqrt(q / C + eps);
            float fs = 0, fq = 0, f2 = 0;
            for (int c = 0; c < C; c++) {
                fs += row[c];
                f2 += row[c] * row[c];
            }
            float fm = fs / C;
            for (int c = 0; c < C; c++)
                fq += (row[c] - fm) * (row[c] - fm);
            double two = 1 / sqrt((double)(fq / C) + eps);
            double one = 1 / sqrt(fmax((double)(f2 / C - fm * fm), 0) + eps);
            double got[3] = {rstd[r], two, one};
            for (int k = 0; k < 3; k++)
                worst[k] = fmax(worst[k], fabs(got[k] - want) / want);
        }
        printf("# layernorm, mean 1000, spread +-2, %d x %d, f32, splits %d: relative error "
               "of Rstd: fused %.2g, f32 two-pass %.2g, f32 one-pass %.2g\n",
               R, C, splits[si], worst[0], worst[1], worst[2]);
        assert_true(worst[0] < 1e-5);
        assert_true(worst[0] < 10 * worst[1] + 1e-6);
    }
    free(x);
    free(g);
    free(b);
    free(y);
}

/* Same values, other layouts and types: fp16 inputs against f32 inputs that
 * hold the same (fp16-exact) values, K stored as [B, N, H, D] (strided),
 * and bf16/fp16 outputs, which must be the f32 result rounded to nearest
 * even, bit for bit. */
static void dtypes_and_strides_agree_exactly(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    long dims[16];
    for (int i = 0; i < info->ndims && i < 16; i++)
        dims[i] = dim_value(info->dim_role[i], 7, 131, 64, 1);
    int64_t sh[3][4], osh[2][4];
    size_t n[3], on[2];
    for (int k = 0; k < 3; k++) {
        n[k] = 1;
        for (int q = 0; q < 4; q++)
            n[k] *= (size_t)(sh[k][q] = dims[info->inputs[k].dims[q]]);
    }
    for (int k = 0; k < 2; k++) {
        on[k] = 1;
        for (int q = 0; q < info->outputs[k].rank; q++)
            on[k] *= (size_t)(osh[k][q] = dims[info->outputs[k].dims[q]]);
    }
    float *f32[3], *kt;
    uint16_t *f16[3];
    for (int k = 0; k < 3; k++) {
        f32[k] = malloc(n[k] * sizeof(float));
        f16[k] = malloc(n[k] * sizeof(uint16_t));
        assert_true(f32[k] && f16[k]);
        for (size_t i = 0; i < n[k]; i++) {
            f16[k][i] = fg_float_to_half((float)rng_uniform(-2, 2));
            f32[k][i] = fg_half_to_float(f16[k][i]);
        }
    }
    /* K again, stored [B, N, H, D]: the same logical tensor through strides */
    kt = malloc(n[1] * sizeof(float));
    assert_non_null(kt);
    int64_t B = sh[1][0], H = sh[1][1], N = sh[1][2], D = sh[1][3];
    for (int64_t b = 0; b < B; b++)
        for (int64_t hh = 0; hh < H; hh++)
            for (int64_t nn = 0; nn < N; nn++)
                for (int64_t d = 0; d < D; d++)
                    kt[((b * N + nn) * H + hh) * D + d] = f32[1][((b * H + hh) * N + nn) * D + d];
    float *ref[2], *o32[2];
    uint16_t *o16[2];
    for (int k = 0; k < 2; k++) {
        ref[k] = malloc(on[k] * sizeof(float));
        o32[k] = malloc(on[k] * sizeof(float));
        o16[k] = malloc(on[k] * sizeof(uint16_t));
        assert_true(ref[k] && o32[k] && o16[k]);
    }
    fg_tensor in[3], out[2];
    for (int k = 0; k < 3; k++)
        in[k] = fg_tensor_dense(f32[k], FG_F32, 4, sh[k]);
    for (int k = 0; k < 2; k++)
        out[k] = fg_tensor_dense(ref[k], FG_F32, info->outputs[k].rank, osh[k]);
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, 0), FG_OK);

    /* fp16 inputs */
    for (int k = 0; k < 3; k++)
        in[k] = fg_tensor_dense(f16[k], FG_FP16, 4, sh[k]);
    for (int k = 0; k < 2; k++)
        out[k] = fg_tensor_dense(o32[k], FG_F32, info->outputs[k].rank, osh[k]);
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, 0), FG_OK);
    for (int k = 0; k < 2; k++)
        assert_memory_equal(o32[k], ref[k], on[k] * sizeof(float));

    /* strided K */
    for (int k = 0; k < 3; k++)
        in[k] = fg_tensor_dense(f32[k], FG_F32, 4, sh[k]);
    in[1].data = kt;
    in[1].stride[0] = N * H * D;
    in[1].stride[1] = D;
    in[1].stride[2] = H * D;
    in[1].stride[3] = 1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < on[k]; i++)
            o32[k][i] = NAN;
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, 0), FG_OK);
    for (int k = 0; k < 2; k++)
        assert_memory_equal(o32[k], ref[k], on[k] * sizeof(float));

    /* bf16 and fp16 outputs: the f32 values rounded to nearest even */
    in[1] = fg_tensor_dense(f32[1], FG_F32, 4, sh[1]);
    for (int pass = 0; pass < 2; pass++) {
        fg_dtype t = pass ? FG_FP16 : FG_BF16;
        for (int k = 0; k < 2; k++) {
            memset(o16[k], 0xff, on[k] * sizeof(uint16_t));
            out[k] = fg_tensor_dense(o16[k], t, info->outputs[k].rank, osh[k]);
        }
        assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, 0), FG_OK);
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < on[k]; i++) {
                uint16_t want = pass ? fg_float_to_half(ref[k][i]) : fg_float_to_bf16(ref[k][i]);
                if (o16[k][i] != want)
                    print_error("%s output %s[%zu]: 0x%04x, want 0x%04x\n",
                                pass ? "fp16" : "bf16", info->outputs[k].name, i, o16[k][i],
                                want);
                assert_int_equal(o16[k][i], want);
            }
    }
    for (int k = 0; k < 3; k++) {
        free(f32[k]);
        free(f16[k]);
    }
    for (int k = 0; k < 2; k++) {
        free(ref[k]);
        free(o32[k]);
        free(o16[k]);
    }
    free(kt);
}

/* Q, K, V and O, LSE of an attention plan at dims, all over one buffer:
 * for calls that validation must refuse before reading any of it. */
static void small_attention_args(const fg_plan_info *info, const long *dims, float *buf,
                                 fg_tensor *in, fg_tensor *out)
{
    for (int k = 0; k < 3; k++) {
        int64_t sh[4];
        for (int q = 0; q < 4; q++)
            sh[q] = dims[info->inputs[k].dims[q]];
        in[k] = fg_tensor_dense(buf, FG_F32, 4, sh);
    }
    for (int k = 0; k < 2; k++) {
        int64_t sh[4];
        for (int q = 0; q < info->outputs[k].rank; q++)
            sh[q] = dims[info->outputs[k].dims[q]];
        out[k] = fg_tensor_dense(buf, FG_F32, info->outputs[k].rank, sh);
    }
}

/* Per-sequence key lengths (dim N[b]): a batch of 5 whose sequences hold
 * 0 keys, 1, fewer than one tile, all N, and a random count, in a random
 * order; query rows 1, 3 and 16 (speculative decoding); every split count;
 * against the reference interpreter given the same lengths.  Then the
 * entry's validation of the lengths. */
static void per_sequence_lengths(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    int nd = -1;
    for (int i = 0; i < info->ndims; i++)
        if (info->dim_over[i] >= 0)
            nd = i;
    assert_true(nd >= 0); /* the decode plans vary their keys per sequence */
    assert_string_equal(info->dims[info->dim_over[nd]], "B");
    static const long rows_set[] = {1, 3, 16}, keys_set[] = {131, 200};
    static const int split_set[] = {0, 1, 2, 3, 7};
    int fails = 0, k = 0;
    for (int ri = 0; ri < 3; ri++)
        for (int ki = 0; ki < 2; ki++)
            for (int g = 1; g <= 4; g *= 4, k++) {
                long dims[16];
                for (int i = 0; i < info->ndims && i < 16; i++)
                    dims[i] = dim_value(info->dim_role[i], rows_set[ri], keys_set[ki], 32, g);
                const long B = 5, N = dims[nd];
                dims[info->dim_over[nd]] = B;
                long len[5] = {0, 1, 13, N, 1 + (long)(rng_next() % (uint64_t)N)};
                for (int i = 4; i > 0; i--) { /* shuffle */
                    int j = (int)(rng_next() % (uint64_t)(i + 1));
                    long t = len[i];
                    len[i] = len[j];
                    len[j] = t;
                }
                long *lens[16] = {0};
                lens[nd] = len;
                fails += run_case_lens(h, dims, lens, split_set[k % 5], k % 2, NULL, NULL);
                /* NULL lengths: every sequence has all N keys */
                lens[nd] = NULL;
                fails += run_case_lens(h, dims, lens, split_set[(k + 2) % 5], 0, NULL, NULL);
            }
    assert_int_equal(fails, 0);

    /* validation: a length beyond the stored keys, and a negative one */
    long dims[16];
    for (int i = 0; i < info->ndims && i < 16; i++)
        dims[i] = dim_value(info->dim_role[i], 1, 13, 32, 1);
    fg_tensor in[3], out[2];
    float buf[8] = {0}; /* never read: the lengths are refused first */
    small_attention_args(info, dims, buf, in, out);
    int32_t bad[2] = {13, 14};
    const int32_t *lv[16] = {0};
    lv[nd] = bad;
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, lv, 0), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "N_len[1] is 14, outside 0..13"));
    bad[1] = -1;
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, lv, 0), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "N_len[1] is -1"));
}

/* Every plan of the registry must have a test here. */
static void registry_lists_every_tested_plan(void **state)
{
    (void)state;
    static const char *const tested[] = {
        "global", "causal", "gqa", "alibi", "softcap", "window", "causal_decode",
        "gqa_decode", "alibi_decode", "softcap_decode", "softmax", "logsoftmax", "logsumexp",
        "rmsnorm", "sigmoid", "siggate", "docmask", "relbias", "base2", "rowmax", "prefixlm", "sinkwindow",
        "layernorm", "fa1", "moments", "diffattn", "maxlogit",
    };
    int n = 0;
    for (int i = 0; fg_plan_list[i]; i++) {
        bool found = false;
        for (size_t k = 0; k < sizeof tested / sizeof tested[0]; k++)
            found = found || !strcmp(tested[k], fg_plan_list[i]->name);
        if (!found)
            print_error("plan %s is in the registry but has no numerics test\n",
                        fg_plan_list[i]->name);
        assert_true(found);
        n++;
    }
    assert_int_equal(n, (int)(sizeof tested / sizeof tested[0]));
}

/* The generated entry points validate before any work. */
static void invalid_arguments_are_refused(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    long dims[16];
    for (int i = 0; i < info->ndims && i < 16; i++)
        dims[i] = dim_value(info->dim_role[i], 7, 13, 32, 4);
    fg_tensor in[3], out[2];
    float buf[8] = {0};
    small_attention_args(info, dims, buf, in, out);
    /* K with the wrong key count against V */
    fg_tensor bad = in[2];
    bad.shape[2] += 1;
    fg_tensor in2[3] = {in[0], in[1], bad};
    assert_int_equal(info->cpu(in2, out, NULL, NULL, NULL, NULL, 0), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "V.shape[2]"));
    /* a NULL data pointer */
    fg_tensor nul = in[0];
    nul.data = NULL;
    fg_tensor in3[3] = {nul, in[1], in[2]};
    assert_int_equal(info->cpu(in3, out, NULL, NULL, NULL, NULL, 0), FG_ERR_NULL);
    /* a negative stride */
    fg_tensor neg = in[1];
    neg.stride[3] = -1;
    fg_tensor in4[3] = {in[0], neg, in[2]};
    assert_int_equal(info->cpu(in4, out, NULL, NULL, NULL, NULL, 0), FG_ERR_STRIDE);
    /* G that does not divide Hq: Hq = 8, G = 3 */
    double params[4] = {3, 0, 0, 0};
    int has[4] = {1, 0, 0, 0};
    assert_int_equal(info->cpu(in, out, params, has, NULL, NULL, 0), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "not divisible by G"));
    /* G = 0 as a divisor */
    params[0] = 0;
    assert_int_equal(info->cpu(in, out, params, has, NULL, NULL, 0), FG_ERR_PARAM);
    assert_non_null(strstr(fg_last_error(), "G"));
    /* a negative split count */
    assert_int_equal(info->cpu(in, out, NULL, NULL, NULL, NULL, -2), FG_ERR_PARAM);
    assert_non_null(strstr(fg_last_error(), "splits is -2"));
}

/* gqa's entry through its own args struct: B = 1, Hq = 8, Hkv = 2, M = 3,
 * N = 5, D as given; every tensor dense over its own buffer (calloc: aligned
 * for any dtype); O and LSE filled with a sentinel. */
typedef struct gqa_case {
    fg_gqa_args a;
    float *buf[5];
    int64_t count[5];
} gqa_case;

static void gqa_case_init(gqa_case *c, long D, fg_dtype in_dtype)
{
    memset(c, 0, sizeof *c);
    const int64_t q[4] = {1, 8, 3, D}, kv[4] = {1, 2, 5, D}, lse[3] = {1, 8, 3};
    const int64_t *shape[5] = {q, kv, kv, q, lse};
    fg_tensor *t[5] = {&c->a.Q, &c->a.K, &c->a.V, &c->a.O, &c->a.LSE};
    for (int i = 0; i < 5; i++) {
        int rank = i == 4 ? 3 : 4;
        int64_t n = 1;
        for (int k = 0; k < rank; k++)
            n *= shape[i][k];
        c->count[i] = n;
        c->buf[i] = calloc((size_t)n + 4, sizeof(float));
        assert_non_null(c->buf[i]);
        for (int64_t k = 0; k < n + 4; k++)
            c->buf[i][k] = i >= 3 ? 12345.0f : (float)(k % 7) * 0.125f;
        *t[i] = fg_tensor_dense(c->buf[i], i < 3 ? in_dtype : FG_F32, rank, shape[i]);
    }
}

static void gqa_case_free(gqa_case *c)
{
    for (int i = 0; i < 5; i++)
        free(c->buf[i]);
}

static bool gqa_outputs_untouched(const gqa_case *c)
{
    for (int i = 3; i < 5; i++)
        for (int64_t k = 0; k < c->count[i] + 4; k++)
            if (c->buf[i][k] != 12345.0f)
                return false;
    return true;
}

/* A data pointer not aligned to its element size is refused (the loads and
 * stores would be misaligned): f32 two bytes off, bf16 one byte off, an
 * input and an output; the outputs stay untouched. */
static void misaligned_pointers_are_refused(void **state)
{
    (void)state;
    gqa_case c;
    gqa_case_init(&c, 8, FG_F32);
    assert_int_equal(fg_gqa_cpu(&c.a), FG_OK); /* aligned: accepted */
    gqa_case_free(&c);

    static const struct { fg_dtype dt; int off; int which; } cases[] = {
        {FG_F32, 2, 0}, {FG_F32, 2, 1}, {FG_BF16, 1, 0}, {FG_BF16, 1, 2},
        {FG_F32, 2, 3}, {FG_F32, 1, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gqa_case_init(&c, 8, cases[i].dt);
        fg_tensor *t[5] = {&c.a.Q, &c.a.K, &c.a.V, &c.a.O, &c.a.LSE};
        t[cases[i].which]->data = (char *)t[cases[i].which]->data + cases[i].off;
        assert_int_equal(fg_gqa_cpu(&c.a), FG_ERR_ALIGN);
        assert_non_null(strstr(fg_last_error(), "aligned"));
        assert_true(gqa_outputs_untouched(&c));
        gqa_case_free(&c);
    }
}

/* K[b, h / G, ...] with Hq = 8, Hkv = 2: G = 4 reads every kv head; an
 * explicit G = 8 divides Hq and stays in range but never reads kv head 1,
 * which the CUDA entry refuses (Hq = G * Hkv), and so must the CPU entry. */
static void group_must_cover_every_kv_head(void **state)
{
    (void)state;
    gqa_case c;
    gqa_case_init(&c, 8, FG_F32);
    c.a.has_G = 1;
    c.a.G = 4;
    assert_int_equal(fg_gqa_cpu(&c.a), FG_OK);
    gqa_case_free(&c);
    gqa_case_init(&c, 8, FG_F32);
    c.a.has_G = 1;
    c.a.G = 8;
    assert_int_equal(fg_gqa_cpu(&c.a), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "Hq = G * Hkv"));
    assert_true(gqa_outputs_untouched(&c));
    gqa_case_free(&c);
}

/* A head dim of 0: the score contracts over nothing (and the default scale
 * rsqrt(D) is infinite). Refused as a shape naming D, with or without an
 * explicit scale. */
static void empty_contraction_dim_is_refused(void **state)
{
    (void)state;
    for (int explicit_scale = 0; explicit_scale < 2; explicit_scale++) {
        gqa_case c;
        gqa_case_init(&c, 0, FG_F32);
        c.a.has_scale = explicit_scale;
        c.a.scale = 1.0f;
        assert_int_equal(fg_gqa_cpu(&c.a), FG_ERR_SHAPE);
        assert_non_null(strstr(fg_last_error(), "D is 0"));
        assert_true(gqa_outputs_untouched(&c));
        gqa_case_free(&c);
    }
}

/* An output after the first (LSE) with NULL data is not computed, as the
 * CUDA entry treats it: the call succeeds, the first output still matches
 * the reference (rolling and split, f32 and bf16, masked rows included),
 * and nothing is written through the omitted one. */
static void null_optional_outputs_are_not_computed(void **state)
{
    harness *h = *state;
    const fg_plan_info *info = h->info;
    assert_true(info->noutputs >= 2);
    h->omit_optional = true;
    static const long rows[] = {7, 67}, keys[] = {131, 13};
    for (int c = 0; c < 2; c++) {
        long dims[16];
        for (int i = 0; i < info->ndims && i < 16; i++)
            dims[i] = dim_value(info->dim_role[i], rows[c], keys[c], 32, 4);
        assert_int_equal(run_case(h, dims, 0, c), 0);
        assert_int_equal(run_case(h, dims, 3, !c), 0);
    }
    h->omit_optional = false;
}

/* gqa's own struct: LSE with NULL data gives the same O, bit for bit, as
 * with LSE given; its shape is then not checked (as on the CUDA entry); O,
 * the first output, is not optional. */
static void null_lse_through_the_args_struct(void **state)
{
    (void)state;
    gqa_case with, without;
    gqa_case_init(&with, 8, FG_F32);
    gqa_case_init(&without, 8, FG_F32);
    assert_int_equal(fg_gqa_cpu(&with.a), FG_OK);
    without.a.LSE.data = NULL;
    without.a.LSE.shape[2] = 99; /* not read */
    assert_int_equal(fg_gqa_cpu(&without.a), FG_OK);
    assert_memory_equal(with.buf[3], without.buf[3], sizeof(float) * (size_t)with.count[3]);
    for (int64_t k = 0; k < without.count[4] + 4; k++)
        assert_true(without.buf[4][k] == 12345.0f);
    /* given, the same wrong shape is refused */
    without.a.LSE.data = without.buf[4];
    assert_int_equal(fg_gqa_cpu(&without.a), FG_ERR_SHAPE);
    assert_non_null(strstr(fg_last_error(), "LSE.shape[2] is 99"));
    without.a.LSE.shape[2] = 3;
    without.a.O.data = NULL;
    assert_int_equal(fg_gqa_cpu(&without.a), FG_ERR_NULL);
    assert_non_null(strstr(fg_last_error(), "O: data pointer is NULL"));
    gqa_case_free(&with);
    gqa_case_free(&without);
}

/* Every extent of every plan in the registry, one at a time 0 (the others
 * valid): refused as FG_ERR_SHAPE naming that dim, before any param is
 * computed from it (G = Hq / Hkv) and with the outputs untouched, as the
 * CUDA entry refuses it. */
static void empty_extents_are_refused(void **state)
{
    (void)state;
    enum { CAP = 1 << 15 };
    static float pool[16][CAP];
    int checked = 0;
    for (int pi = 0; fg_plan_list[pi]; pi++) {
        const fg_plan_info *info = fg_plan_list[pi];
        assert_true(info->ninputs + info->noutputs <= 16 && info->ndims <= 16);
        for (int z = 0; z < info->ndims; z++) {
            long dims[16];
            for (int i = 0; i < info->ndims; i++)
                dims[i] = dim_value(info->dim_role[i], 7, 13, 32, 4);
            dims[z] = 0;
            fg_tensor in[8], out[8];
            for (int k = 0; k < info->ninputs + info->noutputs; k++) {
                bool is_in = k < info->ninputs;
                const fg_plan_tensor_info *ti =
                    is_in ? &info->inputs[k] : &info->outputs[k - info->ninputs];
                int64_t shape[FG_MAX_RANK];
                size_t n = 1;
                for (int q = 0; q < ti->rank; q++) {
                    shape[q] = dims[ti->dims[q]];
                    n *= (size_t)dims[ti->dims[q]] + (ti->dims[q] == z); /* as if not empty */
                }
                assert_true(n <= CAP);
                for (size_t i = 0; i < CAP; i++)
                    pool[k][i] = is_in ? 0.5f : 12345.0f;
                /* i32 inputs (ids) as i32, the rest as f32 */
                fg_tensor t = fg_tensor_dense(pool[k], ti->dtype == FG_I32 ? FG_I32 : FG_F32,
                                              ti->rank, shape);
                if (is_in)
                    in[k] = t;
                else
                    out[k - info->ninputs] = t;
            }
            fg_status st = info->cpu(in, out, NULL, NULL, NULL, NULL, 0);
            if (st != FG_ERR_SHAPE)
                fail_msg("%s with %s = 0: status %s (%s), expected a shape error", info->name,
                         info->dims[z], fg_strerror(st), fg_last_error());
            char want[64];
            snprintf(want, sizeof want, ": %s is 0", info->dims[z]);
            if (!strstr(fg_last_error(), want))
                fail_msg("%s with %s = 0: message '%s' lacks '%s'", info->name, info->dims[z],
                         fg_last_error(), want);
            for (int k = info->ninputs; k < info->ninputs + info->noutputs; k++)
                for (size_t i = 0; i < CAP; i++)
                    if (pool[k][i] != 12345.0f)
                        fail_msg("%s with %s = 0: output %d written", info->name,
                                 info->dims[z], k - info->ninputs);
            checked++;
        }
    }
    print_message("empty extents: %d refused\n", checked);
    assert_true(checked >= 13 * 2);
}

int main(void)
{
    const char *env = getenv("FG_TEST_SEED");
    seed = env && *env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    rng_state = seed;
    printf("# test_cpu: seed %llu (set FG_TEST_SEED to repeat)\n", (unsigned long long)seed);
#define T(name) cmocka_unit_test_setup_teardown(run_plan, setup_##name, teardown_plan)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_lists_every_tested_plan),
        T(global), T(causal), T(gqa), T(alibi), T(softcap), T(window),
        T(causal_decode), T(gqa_decode), T(alibi_decode), T(softcap_decode),
        T(softmax), T(logsoftmax), T(logsumexp), T(rmsnorm), T(sigmoid), T(siggate),
        T(docmask), T(relbias), T(base2), T(rowmax), T(prefixlm), T(sinkwindow),
        T(layernorm), T(fa1), T(moments), T(diffattn), T(maxlogit),
        cmocka_unit_test_setup_teardown(prefix_lm_sees_its_prefix, setup_prefixlm, teardown_plan),
        cmocka_unit_test_setup_teardown(sinks_and_window, setup_sinkwindow, teardown_plan),
        cmocka_unit_test_setup_teardown(layernorm_keeps_its_precision_far_from_zero,
                                        setup_layernorm, teardown_plan),
        cmocka_unit_test_setup_teardown(masked_rows_give_zero_and_minus_inf, setup_causal,
                                        teardown_plan),
        cmocka_unit_test_setup_teardown(masked_rows_give_zero_and_minus_inf, setup_gqa_decode,
                                        teardown_plan),
        cmocka_unit_test_setup_teardown(invalid_arguments_are_refused, setup_gqa, teardown_plan),
        cmocka_unit_test(misaligned_pointers_are_refused),
        cmocka_unit_test(group_must_cover_every_kv_head),
        cmocka_unit_test(empty_contraction_dim_is_refused),
        cmocka_unit_test(empty_extents_are_refused),
        cmocka_unit_test(null_lse_through_the_args_struct),
#define NULL_LSE(name)                                                              \
    cmocka_unit_test_setup_teardown(null_optional_outputs_are_not_computed, setup_##name, \
                                    teardown_plan)
        NULL_LSE(global), NULL_LSE(causal), NULL_LSE(gqa), NULL_LSE(alibi), NULL_LSE(softcap),
        NULL_LSE(window), NULL_LSE(causal_decode), NULL_LSE(gqa_decode), NULL_LSE(alibi_decode),
        NULL_LSE(softcap_decode),
        cmocka_unit_test_setup_teardown(per_sequence_lengths, setup_causal_decode, teardown_plan),
        cmocka_unit_test_setup_teardown(per_sequence_lengths, setup_gqa_decode, teardown_plan),
        cmocka_unit_test_setup_teardown(per_sequence_lengths, setup_alibi_decode, teardown_plan),
        cmocka_unit_test_setup_teardown(per_sequence_lengths, setup_softcap_decode, teardown_plan),
        cmocka_unit_test_setup_teardown(short_window_masks_both_sides, setup_window,
                                        teardown_plan),
        cmocka_unit_test_setup_teardown(dtypes_and_strides_agree_exactly, setup_causal,
                                        teardown_plan),
        cmocka_unit_test_setup_teardown(dtypes_and_strides_agree_exactly, setup_softcap_decode,
                                        teardown_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
