/* test_cuda.c - the CUDA backend's lowering (lower_cuda.c): which plans the
 * tensor-core attention kernels express, the hooks it computes for the
 * bundled plans (score in the exp2 domain with constants folded, mask,
 * host constants, per-head constants, parameter checks), the generic
 * registry wrapper, located refusals, and the tile configurations
 * (cuda_configs.c): the table's rules against the hand-written rules they
 * replace, and the dispatch code made from them. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

typedef struct fixture {
    fg_arena *arena;
    char *diag_text;
    size_t diag_len;
    FILE *diag_out;
    fg_diag diag;
} fixture;

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->arena = arena_create();
    f->diag_out = open_memstream(&f->diag_text, &f->diag_len);
    if (!f->diag_out)
        return -1;
    diag_init(&f->diag, NULL, f->diag_out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->diag_out);
    free(f->diag_text);
    arena_destroy(f->arena);
    free(f);
    return 0;
}

static const char *diag_output(fixture *f)
{
    fflush(f->diag_out);
    return f->diag_text ? f->diag_text : "";
}

/* Parse, check and fuse a plan file (relative to srcdir). */
static fg_kernel *fused_file(fixture *f, const char *rel)
{
    char *path = arena_printf(f->arena, "%s/%s", srcdir(), rel);
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    if (source_read(f->arena, path, src, &f->diag) < 0)
        return NULL;
    diag_init(&f->diag, src, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    fg_kernel *k = NULL;
    if (parse_plan(f->arena, src, &f->diag, &p) < 0 || check_plan(p, &f->diag) < 0 ||
        fuse_plan(f->arena, p, &f->diag, &fz) < 0 || kernel_build(f->arena, fz, &f->diag, &k) < 0)
        return NULL;
    return k;
}

/* The definitions lower_cuda writes for a bundled plan. */
static const char *cuda_defs(fixture *f, const char *rel)
{
    fg_kernel *fz = fused_file(f, rel);
    assert_non_null(fz);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, fz, defs, &tmpl, &f->diag), 0);
    assert_string_equal(tmpl, "cuda/attention.m4");
    assert_int_equal(f->diag.errors, 0);
    return defs_text(defs);
}

/* m4_define([[[fg_NAME]]], [[[VALUE]]]) is in the definitions. */
static void assert_def(const char *defs, const char *name, const char *value)
{
    char want[1024];
    snprintf(want, sizeof want, "m4_define([[[fg_%s]]], [[[%s]]])", name, value);
    if (!strstr(defs, want))
        fail_msg("missing definition: %s", want);
}

static void assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("missing: %s", part);
}

/* Value k per row beside O is `value` (plan_rowval's line, as escaped in
 * the definitions: '[' is @{, ']' is @}). */
static void assert_rowval(const char *defs, int k, const char *value)
{
    char want[1024];
    snprintf(want, sizeof want, "  if (k == %d) return %s;  // ", k, value);
    assert_has(defs, want);
}

static void assert_not_has(const char *text, const char *part)
{
    if (strstr(text, part))
        fail_msg("present: %s", part);
}

static void every_bundled_attention_plan_fits(void **state)
{
    fixture *f = *state;
    static const char *const plans[] = {
        "global", "causal", "gqa", "alibi", "softcap", "window",
        "causal_decode", "gqa_decode", "alibi_decode", "softcap_decode", "docmask", "relbias",
        "sigmoid", "base2", "rowmax", "prefixlm", "sinkwindow", "fa1", "diffattn", "maxlogit",
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        fg_kernel *fz = fused_file(f, arena_printf(f->arena, "plans/%s.fp", plans[i]));
        assert_non_null(fz);
        fg_loc loc = {0, 0};
        const char *why = NULL;
        if (lower_cuda_supported(fz, &loc, &why) != 0)
            fail_msg("%s: %s (line %d)", plans[i], why ? why : "?", loc.line);
    }
}

/* The definitions lower_cuda writes for a plan of the row kernels. */
static const char *rows_defs(fixture *f, const char *rel)
{
    fg_kernel *k = fused_file(f, rel);
    assert_non_null(k);
    fg_loc loc = {0, 0};
    const char *why = NULL;
    if (lower_cuda_supported(k, &loc, &why) != 0)
        fail_msg("%s: %s (line %d)", rel, why ? why : "?", loc.line);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, k, defs, &tmpl, &f->diag), 0);
    assert_string_equal(tmpl, "cuda/rowreduce.m4");
    assert_int_equal(f->diag.errors, 0);
    return defs_text(defs);
}

/* softmax: the running max and the sum under it, the derived rescale in
 * the chunk step and in the merge, the output from the final state. */
static void softmax_has_row_kernels(void **state)
{
    fixture *f = *state;
    const char *d = rows_defs(f, "plans/softmax.fp");
    assert_def(d, "cuda_rows_nin", "1");
    assert_def(d, "cuda_rows_nout", "1");
    assert_def(d, "cuda_rows_nrout", "0");
    assert_def(d, "cuda_rows_nstate", "3");
    assert_has(d, "const float Mx_prev_ = s.Mx;");
    assert_has(d, "if (e < n) acc_ = fmaxf(acc_, x@{0@}@{e@});");
    assert_has(d, "if (s.any != 0.f) s.L *= __expf(Mx_prev_ - plan_safe(s.Mx));");
    /* the running max, the same at every element, read once per chunk */
    assert_has(d, "const float h0_ = plan_safe(s.Mx);");
    /* exp(x - h) as one FFMA and 2^x, h log2(e) computed once */
    assert_has(d, "if (e < n) acc_ = acc_ + plan_exp_sub(x@{0@}@{e@}, h0_);");
    assert_has(d, "a.Mx = fmaxf(o.Mx, b.Mx);");
    assert_has(d, "a.L = o.L * (__expf(o.Mx - plan_safe(a.Mx))) + b.L * (__expf(b.Mx - "
                  "plan_safe(a.Mx)));");
    /* Y = E / L with E inlined, under the masked-row division, by a
     * reciprocal computed once per row */
    assert_has(d, "f.r0_ = __frcp_rn(s.L);");
    assert_has(d, "y@{0@}@{e@} = plan_div0_r(plan_exp_sub(x@{0@}@{e@}, plan_safe(s.Mx)), s.L, f.r0_);");
    /* the kept forms: the max (level 0), then the sum under the row's max
     * (level 1), each merged by its plain reducer */
    assert_def(d, "cuda_rows_nlevels", "2");
    assert_has(d, "  if constexpr (L == 1) {\n    // L = sum(c: E), plan line 12 (sum)");
    assert_has(d, "    s.L = s.L + __shfl_xor_sync(0xffffffffu, s.L, o);");
    /* ... each thread's sum first against its own max, then rebased to the
     * row's: own's sum (the level's merge leaves s's to another thread) */
    assert_def(d, "cuda_rows_rebase", "true");
    assert_def(d, "cuda_rows_level_rebase", "  s.L = own.L * (__expf(own.Mx - plan_safe(s.Mx)));\n");
    /* the host checks are the CPU entry's, under the CUDA entry's name */
    assert_has(d, "fg@&_check_tensor(&args->X, \"fg@&_softmax: X\", 2,");
}

/* The HIP backend prints the same row hooks in the HIP dialect: the
 * wavefront's __shfl_xor, builtins for max and min, the HIP reciprocal, the
 * saved partials read plainly (after the merge's acquire fence), the entry
 * named fg_softmax_hip; and no CUDA word. */
static void softmax_row_hooks_in_the_hip_dialect(void **state)
{
    fixture *f = *state;
    fg_kernel *k = fused_file(f, "plans/softmax.fp");
    assert_non_null(k);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_hip(f->arena, k, defs, &tmpl, &f->diag), 0);
    assert_string_equal(tmpl, "hip/rowreduce.m4");
    assert_int_equal(f->diag.errors, 0);
    const char *d = defs_text(defs);
    assert_has(d, "if (e < n) acc_ = __builtin_fmaxf(acc_, x@{0@}@{e@});");
    assert_has(d, "    s.L = s.L + __shfl_xor(s.L, o);");
    assert_has(d, "  t.any = __shfl_xor(s.any, o);");
    assert_has(d, "  s.any = w@{2@};");
    assert_has(d, "f.r0_ = plan_rcp_rn(s.L);");
    assert_has(d, "a.Mx = __builtin_fmaxf(o.Mx, b.Mx);");
    assert_has(d, "fg@&_check_tensor(&args->X, \"fg@&_softmax_hip: X\", 2,");
    assert_not_has(d, "__shfl_xor_sync");
    assert_not_has(d, "__frcp_rn");
    assert_not_has(d, "__ldcg");
    assert_not_has(d, "__expf");
}

/* The kept forms' levels: layer norm's mean first, its variance about the
 * row's mean next, no rebase (a first level of sums); the first power
 * about the running mean, which only the variance's correction reads, is
 * not computed there.  With three levels (tests/plans/varexp.fp), a
 * running body that reads a row statement over another running value
 * (Var = Var_sum / C) reads it as it stands in the walk, and the merge's
 * correction reads the dim from p.  Inputs that only the outputs read come
 * after those the running values read, whatever their order in the plan
 * (tests/plans/wsoftmax.fp). */
static void row_levels_and_second_walk_inputs(void **state)
{
    fixture *f = *state;
    const char *d = rows_defs(f, "plans/layernorm.fp");
    assert_def(d, "cuda_rows_nlevels", "2");
    assert_def(d, "cuda_rows_rebase", "false");
    assert_def(d, "cuda_rows_nin", "3");
    assert_def(d, "cuda_rows_nin1", "1");
    assert_has(d, "  if constexpr (L == 0) {\n    // Mean_sum = sum(c: X) (inside Mean), plan line 15 (sum)");
    assert_has(d, "  // Var_sum_pow1: read by corrections only, not computed here");
    assert_has(d, "      if (e < n) acc_ = acc_ + plan_sq(x@{0@}@{e@} - h0_);");
    /* each element's term rounded before the sum (the rolling form's first
     * power about the running mean) */
    assert_has(d, "      if (e < n) acc_ = acc_ + (x@{0@}@{e@} - h0_);");
    assert_has(d, "  if constexpr (L == 1) {\n    h.v3_0 = plan_div0(s.Mean_sum, s.Var_sum_count);\n  }");
    assert_not_has(d, "s.Var_sum_pow1 = s.Var_sum_pow1 + __shfl_xor_sync");
    d = rows_defs(f, "tests/plans/varexp.fp");
    assert_def(d, "cuda_rows_nlevels", "3");
    assert_def(d, "cuda_rows_rebase", "false");
    assert_def(d, "cuda_rows_level_rebase", "  (void)s;\n  (void)own;\n");
    assert_has(d, "  // Var_sum_pow1: read by corrections only, not computed here");
    assert_not_has(d, "s.Var_sum_pow1 = s.Var_sum_pow1 + __shfl_xor_sync");
    /* ... the term's part that is the same at every element computed
     * once a level, not once a chunk (plan_level_consts) */
    assert_has(d, "  if constexpr (L == 2) {\n    h.v4_0 = s.Var_sum / p.C;\n  }");
    assert_has(d, "  if constexpr (L == 2) {\n    // Z = sum(c: exp(X - Var)), plan line 17 (sum)\n"
                  "    {\n      float acc_ = 0.f;");
    assert_has(d, "acc_ = acc_ + plan_exp_sub(x@{0@}@{e@}, h.v4_0);");
    assert_not_has(d, "f.Var;");
    assert_has(d, "a.Z = o.Z * (__expf((o.Var_sum - a.Var_sum) / p.C))");
    /* the element's position read inside a folded exponential is declared
     * (tests/plans/rowbias.fp: exp(X + B + t * c - Mx)) */
    d = rows_defs(f, "tests/plans/rowbias.fp");
    assert_has(d, "      const long long c_ = c0 + e;\n      if (e < n) acc_ = acc_ + "
                  "plan_exp_sub(x@{0@}@{e@} + h0_ + p.t * c_, h1_);");
    assert_has(d, "        const long long c_ = c0 + e;\n        if (e < n) acc_ = acc_ + "
                  "plan_exp_sub(x@{0@}@{e@} + h.v1_0 + p.t * c_, h.v1_1);");
    /* a first level of minima is rebased as maxima are */
    d = rows_defs(f, "tests/plans/minexp.fp");
    assert_def(d, "cuda_rows_rebase", "true");
    d = rows_defs(f, "tests/plans/wsoftmax.fp");
    assert_def(d, "cuda_rows_nin", "2");
    assert_def(d, "cuda_rows_nin1", "1");
    assert_has(d, "p.in@{0@} = args->X.data;");
    assert_has(d, "p.in@{1@} = args->W.data;");
    assert_has(d, "y@{0@}@{e@} = plan_div0_r(x@{1@}@{e@} * plan_exp_sub(x@{0@}@{e@}, plan_safe(s.Mx)), s.L, f.r0_);");
}

/* rmsnorm and logsumexp: outputs per row (an epilogue statement), a param,
 * a dim read as a float. */
static void row_outputs_and_params(void **state)
{
    fixture *f = *state;
    const char *d = rows_defs(f, "plans/rmsnorm.fp");
    assert_def(d, "cuda_rows_nrout", "1");
    assert_def(d, "cuda_rows_nout", "1");
    assert_has(d, "f.Rstd = rsqrtf(s.Ss / p.C + p.eps);");
    assert_has(d, "if (p.rout@{0@}) rr_store1(p.rout@{0@}, p.rout_dt@{0@}, r.rout_off@{0@}, f.Rstd);");
    assert_has(d, "y@{0@}@{e@} = x@{0@}@{e@} * f.Rstd;");
    assert_has(d, "p.eps = eps;");
    d = rows_defs(f, "plans/logsumexp.fp");
    assert_def(d, "cuda_rows_nout", "0");
    assert_has(d, "f.LSE = plan_safe(s.Mx) + __logf(s.L);");
}

/* Plans the row kernels cannot compute get a located reason. */
static void row_plans_refused_with_reasons(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *plan, *why;
        int line, col;
    } cases[] = {
        {"tests/cuda-bad/rowslope.fp", "the row kernels take scalar params only", 6, 7},
        {"tests/cuda-bad/rowgather.fp", "'X' is read at other indices than declared (a gather)",
         7, 16},
        /* a contraction: the attention family's reason, not the rows' */
        {"tests/cuda-bad/normalised.fp", "'O' is kept divided by 'L'", 12, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fg_kernel *k = fused_file(f, cases[i].plan);
        assert_non_null(k);
        fg_loc loc = {0, 0};
        const char *why = NULL;
        assert_int_equal(lower_cuda_supported(k, &loc, &why), -1);
        assert_non_null(why);
        assert_has(why, cases[i].why);
        assert_int_equal(loc.line, cases[i].line);
        assert_int_equal(loc.col, cases[i].col);
    }
}

/* Sigmoid attention: one contraction, no softmax chain; each key's weight is
 * sigmoid of its masked score, the sums take no correction, O is not
 * divided, and masked tiles are skipped (sigmoid(-inf) = 0). */
static void sigmoid_weighs_keys_without_a_chain(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/sigmoid.fp");
    assert_def(d, "cuda_softmax", "0");
    assert_def(d, "cuda_weight", "plan_sigmoid(x)");
    assert_def(d, "cuda_score", "qk * p.scale + p.bias");
    assert_def(d, "cuda_fold", "0");
    assert_def(d, "cuda_correction", "1.f");
    assert_def(d, "cuda_out_scale", "1.f");
    assert_def(d, "cuda_nrowvals", "0");
    assert_def(d, "cuda_rowvals_any", "false");
    assert_def(d, "cuda_mask_skip", "1");
    assert_def(d, "cuda_split", "0");
    assert_def(d, "cuda_aux", "0");
    assert_def(d, "cuda_aux_clamp_weight", "");
    assert_def(d, "cuda_nkeyvals", "0");
    assert_def(d, "cuda_weight_kv", "plan_sigmoid(x)");
    /* a weight that reads a per-key gate g[b, n]: loaded as the score's
     * extra inputs are (the batch folded into its offset per CTA, the key
     * per element, clamped onto the last real key) */
    fg_kernel *k = fused_file(f, "plans/siggate.fp");
    assert_non_null(k);
    assert_false(k->attn.softmax);
    assert_int_equal(k->attn.naux, 1);
    d = cuda_defs(f, "plans/siggate.fp");
    assert_def(d, "cuda_softmax", "0");
    assert_def(d, "cuda_weight", "plan_sigmoid(x) * plan_g_at(p, j)");
    assert_def(d, "cuda_score", "qk * p.scale + p.bias");
    assert_def(d, "cuda_aux", "1");
    assert_has(d, "p.g_o_ = 0 + (long long)b * p.g_s_@{0@};");
    assert_has(d, "j = min(j, p.N - 1);");
    assert_def(d, "cuda_aux_clamp_score", "");
    assert_def(d, "cuda_mask_skip", "1");
    /* the gate is read at the key alone: one value a key, which the sm_90a
     * kernel loads once a key and tile (plan_key_values) and the weight
     * takes back from kv */
    assert_def(d, "cuda_nkeyvals", "1");
    assert_has(d, "kv@{0@} = plan_g_at(p, j);");
    assert_def(d, "cuda_weight_kv", "plan_sigmoid(x) * kv@{0@}");
    assert_def(d, "cuda_aux_clamp_weight_kv", "");
    /* the chain's plans say the kernels compute the weight themselves */
    d = cuda_defs(f, "plans/causal.fp");
    assert_def(d, "cuda_softmax", "1");
    assert_def(d, "cuda_weight", "x");
}

/* A chain written in base 2 is the kernels' own domain: the score folds its
 * scale without log2(e), the corrections and LSE2 print as written; a
 * running value as an output (rowmax: Mx) is the value per row, read from
 * the kernels' m (Mx * log2(e)) times ln(2), -inf in a row with no key (the
 * max's identity, as the C entry writes it). */
static void base2_chain_and_running_value_outputs(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/base2.fp");
    assert_def(d, "cuda_score", "qk * p.c0_");
    assert_has(d, "p.c0_ = (float)(p.scale * 1.4426950408889634); /* scale * 1.4426950408889634 */");
    assert_def(d, "cuda_correction", "fa_ex2(m_prev - m_new_safe)");
    assert_rowval(d, 0, "(l == 0.f) ? -INFINITY : m + __log2f(l)");
    d = cuda_defs(f, "plans/rowmax.fp");
    assert_def(d, "cuda_nrowvals", "1");
    assert_has(d, "fg@&_check_row_output(&args->Mx, plan_entry, \"Mx\", B, Hq, M, &rowvals.p@{0@})");
    assert_rowval(d, 0, "(l == 0.f) ? -INFINITY : (m) * 0.6931471805599453f");
    assert_def(d, "cuda_correction", "fa_ex2(m_prev - m_new_safe)");
}

/* The kernel model of a plan given as text: the attention roles' reason in
 * *why (NULL when the kernels take it) and the CUDA definitions. */
static const char *text_defs(fixture *f, const char *name, const char *text, const char **why)
{
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    source_from_string(src, name, text);
    diag_init(&f->diag, src, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    assert_int_equal(parse_plan(f->arena, src, &f->diag, &p), 0);
    assert_int_equal(check_plan(p, &f->diag), 0);
    assert_int_equal(fuse_plan(f->arena, p, &f->diag, &fz), 0);
    fg_kernel *k = NULL;
    assert_int_equal(kernel_build(f->arena, fz, &f->diag, &k), 0);
    *why = k->attn_ok ? NULL : k->attn_why;
    if (!k->attn_ok)
        return NULL;
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, k, defs, &tmpl, &f->diag), 0);
    return defs_text(defs);
}

#define CHAIN_HEAD                                                                            \
    "dim B, H, M, N, D\naxis b: B, h: H, m: M, n: N, d: D\nparam scale: f32 = rsqrt(D)\n"    \
    "input Q[b, h, m, d]: bf16\ninput K[b, h, n, d]: bf16\ninput V[b, h, n, d]: bf16\n"       \
    "S[b, h, m, n] = sum(d: Q * K) * scale\nT[b, h, m, n] = where(n <= m + N - M, S, -inf)\n" \
    "Mx[b, h, m] = max(n: T)\nP[b, h, m, n] = exp(T - Mx)\nL[b, h, m] = sum(n: P)\n"          \
    "O[b, h, m, d] = sum(n: P * V) / L\n"
#define CHAIN_TAIL "schedule {\n  reduce n: rolling\n}\n"

/* The value per row in a row with no key follows the masked-row rules where
 * a statement reads the max or the sum (0, and a division by a sum that is
 * 0 gives 0), and keeps the identity only for a running value output as it
 * is; a row value reading a param or a dim is refused (plan_rowval reads m and
 * l only); a weight may read a per-head param. */
static void row_values_follow_the_masked_row_rules(void **state)
{
    fixture *f = *state;
    const char *why = NULL;
    const char *d = text_defs(f, "inv.fp",
                              "plan inv\n" CHAIN_HEAD "R[b, h, m] = 1 / L\n"
                              "output O: bf16, R: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_rowval(d, 0, "(l == 0.f) ? 0.0f : 1 / l");
    d = text_defs(f, "alias.fp",
                  "plan alias\n" CHAIN_HEAD "M2[b, h, m] = Mx\n"
                  "output O: bf16, M2: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_rowval(d, 0, "(l == 0.f) ? 0.0f : (m) * 0.6931471805599453f");
    d = text_defs(f, "scaled.fp",
                  "plan scaled\n" CHAIN_HEAD "R[b, h, m] = Mx * scale\n"
                  "output O: bf16, R: f32\n" CHAIN_TAIL, &why);
    assert_non_null(why);
    assert_has(why, "epilogue statement 'R' is neither O = O_sum / L nor a value per row");
    d = text_defs(f, "sigslope.fp",
                  "plan sigslope\ndim B, H, M, N, D\naxis b: B, h: H, m: M, n: N, d: D\n"
                  "param t[h]: f32 = 1\n"
                  "input Q[b, h, m, d]: bf16\ninput K[b, h, n, d]: bf16\n"
                  "input V[b, h, n, d]: bf16\n"
                  "S[b, h, m, n] = sum(d: Q * K)\n"
                  "T[b, h, m, n] = where(n <= m + N - M, S, -inf)\n"
                  "O[b, h, m, d] = sum(n: sigmoid(T + t) * V)\n"
                  "output O: bf16\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_weight", "plan_sigmoid(x + plan_t_at(p, h))");
}

/* A score bounded by its form (cap * tanh(S / cap): tanh within 1) lets
 * the sm_90a kernel hold the max at a fixed offset (plan_score_bound),
 * and any plan of one chain, or of several without values per row, lets
 * it lag (plan_max_free), unless a value per row changes with that offset
 * (the max itself as an output; LSE = Mx + log(L) does not); qk alone has
 * no bound. */
#define CAP_HEAD                                                                               \
    "dim B, H, M, N, D\naxis b: B, h: H, m: M, n: N, d: D\nparam cap: f32 = 30\n"              \
    "input Q[b, h, m, d]: bf16\ninput K[b, h, n, d]: bf16\ninput V[b, h, n, d]: bf16\n"       \
    "S[b, h, m, n] = sum(d: Q * K) * rsqrt(D)\nC[b, h, m, n] = cap * tanh(S / cap)\n"          \
    "T[b, h, m, n] = where(n <= m + N - M, C, -inf)\n"                                         \
    "Mx[b, h, m] = max(n: T)\nP[b, h, m, n] = exp(T - Mx)\nL[b, h, m] = sum(n: P)\n"          \
    "O[b, h, m, d] = sum(n: P * V) / L\n"
static void bounded_score_may_fix_the_max(void **state)
{
    fixture *f = *state;
    assert_def(cuda_defs(f, "plans/softcap.fp"), "cuda_fold_bound", "1.0f");
    assert_def(cuda_defs(f, "plans/window.fp"), "cuda_fold_bound", "1.0f");
    assert_def(cuda_defs(f, "plans/global.fp"), "cuda_fold_bound", "0.0f");
    /* the held max may differ from the row's (the sm_90a kernel lets it lag)
     * unless a value per row reads it alone (then the kernel keeps the true
     * max for it beside the held one); two chains without a value per row
     * (diffattn: each pass adds c * O_sum / L) are free too */
    assert_def(cuda_defs(f, "plans/global.fp"), "cuda_max_free", "1");
    assert_def(cuda_defs(f, "plans/maxlogit.fp"), "cuda_max_free", "0");
    assert_def(cuda_defs(f, "plans/diffattn.fp"), "cuda_max_free", "1");
    const char *why = NULL;
    const char *d = text_defs(f, "caplse.fp",
                              "plan caplse\n" CAP_HEAD "LSE[b, h, m] = Mx + log(L)\n"
                              "output O: bf16, LSE: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_fold_bound", "1.0f");
    assert_def(d, "cuda_max_free", "1");
    d = text_defs(f, "capmax.fp",
                  "plan capmax\n" CAP_HEAD "LSE[b, h, m] = Mx + log(L)\n"
                  "output O: bf16, Mx: f32, LSE: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_fold_bound", "0.0f");
    assert_def(d, "cuda_max_free", "0");
    d = text_defs(f, "capsum.fp", "plan capsum\n" CAP_HEAD "output O: bf16, L: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_fold_bound", "0.0f");
    assert_def(d, "cuda_max_free", "0");
    /* a value per row that is the same for offsets near its points but not
     * past 50: no comparison or where is taken as shift-free */
    d = text_defs(f, "capwhere.fp",
                  "plan capwhere\n" CAP_HEAD "R[b, h, m] = where(Mx < 50, Mx + log(L), Mx)\n"
                  "output O: bf16, R: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_fold_bound", "0.0f");
    assert_def(d, "cuda_max_free", "0");
}

/* Several values per row beside O: each its line of plan_rowval and its
 * check in the entry (running values output as they are first, then the
 * epilogue's values in statement order), each with its own value in a row
 * that sees no key; maxlogit's largest logit and its log-sum-exp. */
static void several_values_per_row(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/maxlogit.fp");
    assert_def(d, "cuda_nrowvals", "2");
    assert_def(d, "cuda_rowvals_any", "r.p@{0@} != nullptr || r.p@{1@} != nullptr");
    assert_rowval(d, 0, "(l == 0.f) ? -INFINITY : (m) * 0.6931471805599453f");
    assert_rowval(d, 1, "(l == 0.f) ? -INFINITY : (m + __log2f(l)) * 0.6931471805599453f");
    assert_has(d, "fg@&_check_row_output(&args->Mx, plan_entry, \"Mx\", B, Hq, M, &rowvals.p@{0@})");
    assert_has(d, "fg@&_check_row_output(&args->LSE, plan_entry, \"LSE\", B, Hq, M, &rowvals.p@{1@})");
    const char *why = NULL;
    d = text_defs(f, "three.fp",
                  "plan three\n" CHAIN_HEAD "LSE[b, h, m] = Mx + log(L)\nR[b, h, m] = 1 / L\n"
                  "output O: bf16, R: f32, L: f32, LSE: f32, Mx: f32\n" CHAIN_TAIL, &why);
    assert_null(why);
    assert_def(d, "cuda_nrowvals", "4");
    assert_rowval(d, 0, "(l == 0.f) ? -INFINITY : (m) * 0.6931471805599453f");
    assert_rowval(d, 1, "(l == 0.f) ? 0.0f : l");
    assert_rowval(d, 2, "(l == 0.f) ? -INFINITY : (m + __log2f(l)) * 0.6931471805599453f");
    assert_rowval(d, 3, "(l == 0.f) ? 0.0f : 1 / l");
    /* a value per row stored as bf16 is refused, located at its output */
    d = text_defs(f, "half.fp",
                  "plan half\n" CHAIN_HEAD "LSE[b, h, m] = Mx + log(L)\n"
                  "output O: bf16, Mx: f32, LSE: bf16\n" CHAIN_TAIL, &why);
    assert_non_null(why);
    assert_has(why, "output 'LSE' is not f32");
}

static void global_score_is_folded_scale(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/global.fp");
    assert_def(d, "cuda_score", "qk * p.c0_");
    assert_def(d, "cuda_fold", "1");
    assert_def(d, "cuda_fold_scale", "p.c0_");
    assert_def(d, "cuda_schedule", "0");
    assert_def(d, "cuda_mask", "0");
    assert_def(d, "cuda_visible", "true");
    assert_def(d, "cuda_split", "0");
    /* scale = rsqrt(D) by default (the plan's checks, as on the CPU entry),
     * then times log2(e) on the host, and the fold needs it finite and > 0 */
    assert_has(d, "scale = rsqrt_((float)(D));");
    assert_has(d, "plan_param0_ = scale;");
    assert_has(d, "p.scale = (float)plan_param0_;");
    assert_has(d, "p.c0_ = (float)(p.scale * 1.4426950408889634); /* scale * log2(e) */");
    assert_has(d, "if (!(p.c0_ > 0.0f) || isinf(p.c0_))");
    /* the summary: (128 + 2 stages * 2 * 64) rows of (128 + 8) bf16 */
    assert_has(d, "D 128: 128 query rows x 64 keys per tile, 128 threads, 2 stages, 104448 bytes "
                  "of shared memory");
    assert_has(d, "using C128 = fa_cfg<128, 128, 64, 4, 2, false>;");
}

static void causal_mask_bounds_keys_and_tiles(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/causal.fp");
    assert_def(d, "cuda_score", "qk * p.c0_");
    assert_def(d, "cuda_schedule", "1");
    assert_def(d, "cuda_mask", "1");
    assert_def(d, "cuda_mask_skip", "1");
    assert_def(d, "cuda_visible", "j <= i + p.N - p.M");
    /* masks.c's emitters over the kernel's params */
    assert_has(d, "long v0_lo = -(r1 - 1) + c0 + (long)(p.M - p.N);");
    assert_has(d, "const long n_keys = (long)(p.N);");
    /* the lanes of a warp split the rows of the walk */
    assert_has(d, "for (long row = r0 + lane; row < r1; row += 32) {");
    assert_def(d, "cuda_key_range_lanes", "1");
    assert_has(d, "correction exp(Mx_prev - Mx) from P, plan line 17");
    /* K[b, h, n, d]: as many kv heads as query heads (the plan's checks) */
    assert_has(d, "K.shape@{1@} is %lld, but H is %ld");
}

static void alibi_slope_becomes_a_head_constant(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/alibi.fp");
    assert_def(d, "cuda_fold", "0");
    assert_def(d, "cuda_score", "qk * p.c0_ + (j - (i + p.N - p.M)) * p.hc1_");
    assert_has(d, "p.hc1_ = plan_slope_at(p, h) * 1.44269504f; /* slope * log2(e) */");
    /* the default 2^(-8 (h+1) / H) on the device when the caller gives none */
    assert_has(d, "return p.slope ? p.slope@{h@} : (float)(exp2f(-8.0f * (h + 1) / p.Hq));");
    assert_has(d, "{ args->slope, &p.slope, \"slope\" },");
    /* the sm_90a kernel takes the row max on qk plus the term over the
     * factor of qk (LINA): the host refuses a factor that is not > 0 */
    assert_has(d, "if (!(p.c0_ > 0.0f) || isinf(p.c0_))");
    assert_has(d, "the score's factor of qk, scale = %g");
    /* the split form's kernels add the term to each element: its entry
     * takes any scale */
    const char *dd = cuda_defs(f, "plans/alibi_decode.fp");
    assert_has(dd, "qk * p.c0_ + (j - (i + p.N - p.M)) * p.hc1_");
    assert_not_has(dd, "factor of qk");
}

static void softcap_constants_fold_on_the_host(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/softcap.fp");
    assert_def(d, "cuda_score", "fa_tanh(qk * p.c0_) * p.c1_");
    assert_has(d, "p.c0_ = (float)(p.scale / p.cap); /* scale / cap */");
    assert_has(d, "p.c1_ = (float)(p.cap * 1.4426950408889634); /* cap * log2(e) */");
    /* cap * tanh(S / cap) is a product: the kernels take the row max on
     * tanh and fold cap * log2(e) into the exp2 argument, which needs cap > 0
     * (checked on the host, named as the plan writes it) */
    assert_def(d, "cuda_fold", "1");
    assert_def(d, "cuda_fold_scale", "p.c1_");
    assert_def(d, "cuda_score_inner", "fa_tanh(qk * p.c0_)");
    assert_has(d, "if (!(p.c1_ > 0.0f) || isinf(p.c1_))");
    assert_has(d, "the score's constant factor cap = %g");
    /* G divides (h / G) and must equal Hq / Hkv for the kernel's mapping:
     * the plan's checks, then the resolved value into plan_params */
    assert_has(d, "G = Hq / Hkv;");
    assert_has(d, "G = %ld divides (plan line 13) and must be positive");
    assert_has(d, "K@{h / G@} needs Hq = G * Hkv");
    assert_has(d, "p.G = (int)plan_param0_;");
}

static void window_mask_and_split_form(void **state)
{
    fixture *f = *state;
    const char *d = cuda_defs(f, "plans/window.fp");
    assert_def(d, "cuda_visible", "j <= i + p.N - p.M && i + p.N - p.M - j < p.W");
    assert_has(d, "long v1_lo = r0 - (c1 - 1) + (long)(p.N - p.M - p.W);");
    const char *s = cuda_defs(f, "plans/softcap_decode.fp");
    assert_def(s, "cuda_split", "1");
    /* Q 16 rows + max(ring 8 warps * 2 stages * 2 * 16 keys, merge) of 136 elements */
    assert_has(s, "D 128, bf16, 16 packed rows or fewer: 16 rows x 16 keys "
                  "per warp tile, 256 threads, 2 stages, 143616 bytes of shared memory");
    assert_def(s, "cuda_score", "fa_tanh(qk * p.c0_) * p.c1_");
    assert_def(s, "cuda_plan_splits", "0"); /* splits = auto */
    assert_def(d, "cuda_plan_splits", "0"); /* rolling */
}

/* splits = N in a split schedule is the CUDA entry's count for args.splits = 0. */
static void schedule_split_count_is_the_default(void **state)
{
    fixture *f = *state;
    const char *path = arena_printf(f->arena, "%s/plans/causal_decode.fp", srcdir());
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = 0;
    char *at = strstr(text, "splits = auto");
    assert_non_null(at);
    memcpy(at, "splits = 12  ", 13);
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    source_from_string(src, "fixed.fp", arena_strdup(f->arena, text));
    diag_init(&f->diag, src, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    assert_int_equal(parse_plan(f->arena, src, &f->diag, &p), 0);
    assert_int_equal(check_plan(p, &f->diag), 0);
    assert_int_equal(fuse_plan(f->arena, p, &f->diag, &fz), 0);
    fg_kernel *k = NULL;
    assert_int_equal(kernel_build(f->arena, fz, &f->diag, &k), 0);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, k, defs, &tmpl, &f->diag), 0);
    assert_def(defs_text(defs), "cuda_plan_splits", "12");
}

/* A score the kernels have no special case for, and a mask that masks.c
 * cannot classify without a row tile: one expression, every tile masked. */
static const char quad_plan[] =
    "plan quad\n"
    "dim B, H, M, N, D\n"
    "axis b: B, h: H, m: M, n: N, d: D\n"
    "param scale: f32 = rsqrt(D)\n"
    "input Q[b, h, m, d]: fp16\n"
    "input K[b, h, n, d]: fp16\n"
    "input V[b, h, n, d]: fp16\n"
    "S[b, h, m, n] = sum(d: Q * K)\n"
    "T[b, h, m, n] = where(n <= m + N - M, abs(S) * scale - sigmoid(S) / 4, -inf)\n"
    "Mx[b, h, m] = max(n: T)\n"
    "P[b, h, m, n] = exp(T - Mx)\n"
    "L[b, h, m] = sum(n: P)\n"
    "O[b, h, m, d] = sum(n: P * V) / L\n"
    "output O: fp16\n"
    "schedule {\n"
    "  reduce n: rolling\n"
    "}\n";

static void any_score_chain_becomes_one_expression(void **state)
{
    fixture *f = *state;
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    source_from_string(src, "quad.fp", quad_plan);
    diag_init(&f->diag, src, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    assert_int_equal(parse_plan(f->arena, src, &f->diag, &p), 0);
    assert_int_equal(check_plan(p, &f->diag), 0);
    assert_int_equal(fuse_plan(f->arena, p, &f->diag, &fz), 0);
    fg_kernel *k = NULL;
    assert_int_equal(kernel_build(f->arena, fz, &f->diag, &k), 0);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, k, defs, &tmpl, &f->diag), 0);
    const char *d = defs_text(defs);
    /* log2(e) distributed over the difference, constants hoisted */
    assert_def(d, "cuda_score", "fabsf(qk) * p.c0_ - plan_sigmoid(qk) * p.c1_");
    assert_has(d, "p.c1_ = (float)(1.0 / 4 * 1.4426950408889634); /* 1 / 4 * log2(e) */");
    assert_def(d, "cuda_fold", "0");
    assert_def(d, "cuda_masked", "1");
    assert_def(d, "cuda_mask", "0");
    assert_def(d, "cuda_schedule", "1");
    assert_def(d, "cuda_visible", "j <= i + p.N - p.M");
}

static void registry_wrapper_fills_the_args(void **state)
{
    fixture *f = *state;
    fg_kernel *fz = fused_file(f, "plans/alibi.fp");
    assert_non_null(fz);
    char *code = NULL, *line = NULL;
    assert_int_equal(lower_cuda_registry_entry(f->arena, fz, &code, &line, &f->diag), 0);
    assert_string_equal(line, "{\"alibi\", alibi_cuda_},");
    assert_has(code, "a_.Q = inputs[0];");
    assert_has(code, "a_.V = inputs[2];");
    assert_has(code, "a_.LSE = outputs[1];");
    assert_has(code, "a_.scale = (float)params[0];");
    assert_has(code, "a_.slope = param_vectors ? param_vectors[1] : NULL;");
    assert_has(code, "return fg_alibi(&a_, (struct CUstream_st *)stream);");
}

static void refusal_is_a_located_error(void **state)
{
    fixture *f = *state;
    fg_kernel *fz = fused_file(f, "tests/cuda-bad/qscore.fp");
    assert_non_null(fz);
    fg_defs *defs = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_cuda(f->arena, fz, defs, &tmpl, &f->diag), -1);
    assert_int_equal(f->diag.errors, 1);
    const char *out = diag_output(f);
    assert_has(out, "qscore.fp:9:33: error: plan 'qscore' does not fit the CUDA attention "
                    "kernel: the score reads 'Q' outside Q.K");
    assert_has(out, "S[b, h, m, n] = sum(d: Q * K) + Q[b, h, m, 0]\n");
}

/* The FlashAttention-1 form (issue 13): with the weight as a statement
 * (plans/fa1.fp) the kernels keep P.V undivided and scale by 1 / L at the
 * end, 0 in a row without keys; with the weight inline the body is not a
 * contraction, and the reason says how to write it. */
/* Independent chains (tests/plans/chains.fp): one pass per chain, each
 * chain's tensors and coefficient; regrouped coefficients divide as floats
 * (k / D, an int param over a dim, must not print as an integer division). */
static void independent_chains_take_one_pass_each(void **state)
{
    fixture *f = *state;
    fg_kernel *k = fused_file(f, "tests/plans/chains.fp");
    assert_non_null(k);
    assert_true(k->attn_ok);
    assert_int_equal(k->attn.nchains, 3);
    const fg_plan *p = k->plan;
    assert_string_equal(p->tensors[k->attn.chain[1].q].name, "Q2");
    assert_string_equal(p->tensors[k->attn.chain[2].l].name, "L3");
    assert_string_equal(p->tensors[k->attn.o].name, "O");
    const char *defs = cuda_defs(f, "tests/plans/chains.fp");
    assert_def(defs, "cuda_nchains", "3");
    assert_has(defs, "p.chain_cfs_@{0@} = (float)(1.0 * p.k / p.D);"); /* [ ] as the defs quote them */
    assert_has(defs, "p.chain_cfs_@{1@} = (float)(-p.lam);");
    assert_has(defs, "p.chain_cfs_@{2@} = (float)(1.0 / 2);");
    assert_has(defs, "cq@{3@} = {&args->Q1, &args->Q2, &args->Q3};");
    assert_has(defs, "ck@{3@} = {&args->K, &args->K, &args->K};");
    /* K and V are the first chain's: only Q2 and Q3 get the kernels' checks again */
    assert_has(defs, "if (args->Q3.dtype != dt)");
    assert_null(strstr(defs, "if (args->K.dtype != dt)"));
    /* a row without keys gets 0 from each chain's division */
    assert_def(defs, "cuda_out_scale", "(l == 0.f) ? 0.f : 1.0f / l");
    /* the HIP backend takes the plan too, one pass per chain, with the
     * same chain tensors under fg_chains_hip's name */
    fg_defs *hd = defs_create(f->arena);
    const char *tmpl = NULL;
    assert_int_equal(lower_hip(f->arena, k, hd, &tmpl, &f->diag), 0);
    assert_string_equal(tmpl, "hip/attention.m4");
    assert_int_equal(f->diag.errors, 0);
    const char *h = defs_text(hd);
    assert_def(h, "cuda_nchains", "3");
    assert_has(h, "cq@{3@} = {&args->Q1, &args->Q2, &args->Q3};");
    assert_has(h, "\"fg@&_chains_hip: Q3 is %s, the dtype of Q1 (%s)\"");
}

/* keylin: a score qk * c plus a constant times an integer term linear in
 * the key (ALiBi) is bound with its step; a subtracted term negates the
 * slope (tests/plans/keylin.fp, the key counted twice: step -2); a term
 * that reads an input (relbias), a folded score (softcap) and no term
 * (causal) are not. */
static void key_linear_scores_are_bound(void **state)
{
    fixture *f = *state;
    fg_kernel *k = fused_file(f, "plans/alibi.fp");
    assert_non_null(k);
    assert_true(k->attn.keylin);
    assert_int_equal(k->attn.keylin_step, 1);
    const char *d = cuda_defs(f, "plans/alibi.fp");
    assert_def(d, "cuda_keylin", "1");
    assert_def(d, "cuda_keylin_step", "1");
    assert_def(d, "cuda_keylin_qk", "p.c0_");
    assert_def(d, "cuda_keylin_slope", "p.hc1_");
    assert_def(d, "cuda_keylin_int", "j - (i + p.N - p.M)");
    d = cuda_defs(f, "tests/plans/keylin.fp");
    assert_def(d, "cuda_keylin", "1");
    assert_def(d, "cuda_keylin_step", "-2");
    assert_def(d, "cuda_keylin_slope", "-p.hc1_");
    assert_def(d, "cuda_keylin_int", "i + p.N - p.M - 2 * j");
    const char *no[] = {"plans/relbias.fp", "plans/softcap.fp", "plans/causal.fp"};
    for (int i = 0; i < 3; i++) {
        k = fused_file(f, no[i]);
        assert_non_null(k);
        assert_false(k->attn.keylin);
        assert_def(cuda_defs(f, no[i]), "cuda_keylin", "0");
    }
    /* terms the form does not take: the key halved, under min, times a
     * row, and a term that reads the head (the hook has no head); each
     * keeps the element-wise plan_score, which the kernels then call */
    const char *terms[] = {"n / 2 - m", "min(n, m)", "n * m", "n - m + h"};
    for (int i = 0; i < 4; i++) {
        const char *text = arena_printf(f->arena,
                                        "plan t\n"
                                        "dim B, H, M, N, D\n"
                                        "axis b: B, h: H, m: M, n: N, d: D\n"
                                        "param slope[h]: f32 = exp2(-8.0 * (h + 1) / H)\n"
                                        "input Q[b, h, m, d]: bf16\n"
                                        "input K[b, h, n, d]: bf16\n"
                                        "input V[b, h, n, d]: bf16\n"
                                        "S[b, h, m, n] = sum(d: Q * K) * 0.125 + slope * (%s)\n"
                                        "Mx[b, h, m] = max(n: S)\n"
                                        "P[b, h, m, n] = exp(S - Mx)\n"
                                        "L[b, h, m] = sum(n: P)\n"
                                        "O[b, h, m, d] = sum(n: P * V) / L\n"
                                        "output O: bf16\n"
                                        "schedule {\n  reduce n: rolling\n  target cuda, c\n}\n",
                                        terms[i]);
        const char *why = NULL;
        d = text_defs(f, "t.fp", text, &why);
        if (!d)
            fail_msg("%s: no kernel: %s", terms[i], why);
        assert_def(d, "cuda_keylin", "0");
    }
}

/* The tile-affine term on diagonals (plan_score_diag): relbias's table at
 * a clamped distance binds it; terms that read the row or key otherwise do
 * not (the element-wise plan_score stays), nor one whose coefficients would
 * overflow, and those that read them only through m - n, however written,
 * do */
static void diagonal_terms_are_bound(void **state)
{
    fixture *f = *state;
    fg_kernel *k = fused_file(f, "plans/relbias.fp");
    assert_non_null(k);
    assert_true(k->attn.tile_fold && k->attn.tile_diag);
    const char *d = cuda_defs(f, "plans/relbias.fp");
    assert_def(d, "cuda_tile_diag", "1");
    assert_def(d, "cuda_tile_qk_scale", "p.c0_");
    assert_def(d, "cuda_tile_diag_bias",
               "plan_table_at(p, min(max(i + p.N - p.M - j, 0), p.R - 1)) * 1.44269504f");
    const char *idx[] = {"clamp(m + N - M - n, 0, R - 1)", "clamp(2 * (m - n) + 3 * n - 3 * m + N, 0, R - 1)",
                         "clamp((m - n) * (n - m) + R - 1, 0, R - 1)", "clamp(m - 2 * n, 0, R - 1)",
                         "clamp(m, 0, R - 1)", "clamp(min(m, n), 0, R - 1)", "clamp(m * n, 0, R - 1)",
                         "clamp(m - n + 0 * m + h, 0, R - 1)",
                         "clamp(m * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, R - 1)"};
    const bool diag[] = {true, true, true, false, false, false, false, true, false};
    for (int i = 0; i < 9; i++) {
        const char *text = arena_printf(f->arena,
                                        "plan t\n"
                                        "dim B, H, M, N, D, R\n"
                                        "axis b: B, h: H, m: M, n: N, d: D, r: R\n"
                                        "input Q[b, h, m, d]: bf16\n"
                                        "input K[b, h, n, d]: bf16\n"
                                        "input V[b, h, n, d]: bf16\n"
                                        "input table[h, r]: f32\n"
                                        "S[b, h, m, n] = sum(d: Q * K) * 0.125 + table[h, %s]\n"
                                        "Mx[b, h, m] = max(n: S)\n"
                                        "P[b, h, m, n] = exp(S - Mx)\n"
                                        "L[b, h, m] = sum(n: P)\n"
                                        "O[b, h, m, d] = sum(n: P * V) / L\n"
                                        "output O: bf16\n"
                                        "schedule {\n  reduce n: rolling\n  target cuda, c\n}\n",
                                        idx[i]);
        const char *why = NULL;
        d = text_defs(f, "t.fp", text, &why);
        if (!d)
            fail_msg("%s: no kernel: %s", idx[i], why);
        /* each is the tile-affine form, so diagonal_only decides */
        if (!strstr(d, "m4_define([[[fg_cuda_tile_affine]]], [[[1]]])"))
            fail_msg("table[h, %s]: not the tile-affine form", idx[i]);
        if (!strstr(d, diag[i] ? "m4_define([[[fg_cuda_tile_diag]]], [[[1]]])"
                               : "m4_define([[[fg_cuda_tile_diag]]], [[[0]]])"))
            fail_msg("table[h, %s]: cuda_tile_diag should be %d", idx[i], diag[i]);
    }
}

/* What a weight without a softmax chain may read: an extra input at the
 * batch, head, row or key, and per-head params; not V, nor an input at the
 * head dim (one number a key), each refused naming what it reads */
static void weight_reads_extra_inputs(void **state)
{
    fixture *f = *state;
    /* G's axes besides b, and the weight */
    const char *axes[] = {"n", "m", "n", "d", "n", "n"};
    const char *weights[] = {"sigmoid(T) * G", "sigmoid(T) * G * 2.0", "sigmoid(T) * gh * G",
                             "sigmoid(T) * G", "sigmoid(T) * V", "sigmoid(T) * G * S"};
    const char *want[] = {NULL, NULL, NULL,
                          "the weight reads axis 'd': the attention kernel's weight sees only "
                          "the batch, row, key and head indices",
                          "the weight reads 'V': the attention kernel reads V only in the "
                          "contraction W * V",
                          "the weight reads Q.K outside its masked score: the attention kernel "
                          "gives the weight the masked score alone"};
    for (int i = 0; i < 6; i++) {
        const char *text = arena_printf(f->arena,
                                        "plan t\n"
                                        "dim B, H, M, N, D\n"
                                        "axis b: B, h: H, m: M, n: N, d: D\n"
                                        "param gh[h]: f32 = 1.0 / (h + 1)\n"
                                        "input Q[b, h, m, d]: bf16\n"
                                        "input K[b, h, n, d]: bf16\n"
                                        "input V[b, h, n, d]: bf16\n"
                                        "input G[b, %s]: f32\n"
                                        "S[b, h, m, n] = sum(d: Q * K) * 0.125\n"
                                        "T[b, h, m, n] = where(n <= m + N - M, S, -inf)\n"
                                        "O[b, h, m, d] = sum(n: %s * V)\n"
                                        "output O: bf16\n"
                                        "schedule {\n  reduce n: rolling\n  target cuda, c\n}\n",
                                        axes[i], weights[i]);
        const char *why = NULL;
        const char *d = text_defs(f, "t.fp", text, &why);
        if (!want[i]) {
            if (!d)
                fail_msg("G[b, %s], %s: no kernel: %s", axes[i], weights[i], why);
            assert_def(d, "cuda_softmax", "0");
            assert_def(d, "cuda_aux", "1");
            /* G at the key is a value a key; at the row, read in the weight */
            assert_def(d, "cuda_nkeyvals", axes[i][0] == 'n' ? "1" : "0");
            /* sigmoid times values of the key alone (G, a number): the sm_90a
             * kernel takes 1 / F a key; not with a per-head param (gh) or G
             * at the row */
            const bool recip = axes[i][0] == 'n' && !strstr(weights[i], "gh");
            assert_def(d, "cuda_kv_recip", recip ? "1" : "0");
            if (recip) {
                assert_def(d, "cuda_weight_kv_recip", "plan_sigmoid_recip(x, finv)");
                assert_def(d, "cuda_key_factor", i == 1 ? "(kv@{0@}) * (2.0f)" : "(kv@{0@})");
            } else {
                assert_def(d, "cuda_key_factor", "1.f");
            }
            if (axes[i][0] == 'm')
                assert_has(d, "i = min(i, p.M - 1);");
        } else {
            if (d)
                fail_msg("G[b, %s], %s: has a kernel, want: %s", axes[i], weights[i], want[i]);
            assert_non_null(why);
            assert_has(why, want[i]);
        }
    }
}

/* V may stand anywhere in the contraction's product: the kernel model takes
 * the input read at the key and the head dim as V and the other factors as
 * the weight (it took the last input factor as V, and refused
 * sigmoid(T) * V * G as a weight that reads axis 'd') */
static void value_in_any_place_of_the_product(void **state)
{
    fixture *f = *state;
    const char *bodies[] = {"sigmoid(T) * V * G", "G * (V * sigmoid(T))", "V * sigmoid(T) * G",
                            "sigmoid(T) * G * V"};
    for (int i = 0; i < 4; i++) {
        const char *text = arena_printf(f->arena,
                                        "plan t\n"
                                        "dim B, H, M, N, D\n"
                                        "axis b: B, h: H, m: M, n: N, d: D\n"
                                        "input Q[b, h, m, d]: bf16\n"
                                        "input K[b, h, n, d]: bf16\n"
                                        "input V[b, h, n, d]: bf16\n"
                                        "input G[b, n]: f32\n"
                                        "S[b, h, m, n] = sum(d: Q * K) * 0.125\n"
                                        "T[b, h, m, n] = where(n <= m + N - M, S, -inf)\n"
                                        "O[b, h, m, d] = sum(n: %s)\n"
                                        "output O: bf16\n"
                                        "schedule {\n  reduce n: rolling\n  target cuda, c\n}\n",
                                        bodies[i]);
        const char *why = NULL;
        const char *d = text_defs(f, "t.fp", text, &why);
        if (!d)
            fail_msg("sum(n: %s): no kernel: %s", bodies[i], why);
        assert_def(d, "cuda_softmax", "0");
        assert_def(d, "cuda_nkeyvals", "1");
        /* the weight: sigmoid and G, no V */
        const char *key = "m4_define([[[fg_cuda_weight]]], [[[", *w = strstr(d, key);
        assert_non_null(w);
        w += strlen(key);
        const char *end = strstr(w, "]]])");
        assert_non_null(end);
        char weight[256];
        snprintf(weight, sizeof weight, "%.*s", (int)(end - w), w);
        assert_has(weight, "plan_sigmoid(x)");
        assert_has(weight, "plan_G_at(p, j)");
        if (strchr(weight, 'V'))
            fail_msg("sum(n: %s): the weight reads V: %s", bodies[i], weight);
    }
}

/* sigmoid(T) times k reads of G at the key (G[b, min(n + i, N - 1)]): with
 * up to FG_MAX_AUX of them the weight takes the reciprocal form
 * (plan_kv_recip); past them, one is read in place with the key, which
 * plan_key_factor cannot, so not (it printed a read with j there) */
static void key_factor_needs_every_read_in_kv(void **state)
{
    fixture *f = *state;
    for (int k = FG_MAX_AUX; k <= FG_MAX_AUX + 1; k++) {
        char gates[2048] = "";
        for (int i = 0; i < k; i++) {
            char one[64];
            snprintf(one, sizeof one, " * G[b, min(n + %d, N - 1)]", i);
            strcat(gates, one);
        }
        const char *text = arena_printf(f->arena,
                                        "plan t\n"
                                        "dim B, H, M, N, D\n"
                                        "axis b: B, h: H, m: M, n: N, d: D\n"
                                        "input Q[b, h, m, d]: bf16\n"
                                        "input K[b, h, n, d]: bf16\n"
                                        "input V[b, h, n, d]: bf16\n"
                                        "input G[b, n]: f32\n"
                                        "S[b, h, m, n] = sum(d: Q * K) * 0.125\n"
                                        "T[b, h, m, n] = where(n <= m + N - M, S, -inf)\n"
                                        "O[b, h, m, d] = sum(n: sigmoid(T)%s * V)\n"
                                        "output O: bf16\n"
                                        "schedule {\n  reduce n: rolling\n  target cuda, c\n}\n",
                                        gates);
        const char *why = NULL;
        const char *d = text_defs(f, "t.fp", text, &why);
        if (!d)
            fail_msg("%d gates: no kernel: %s", k, why);
        assert_def(d, "cuda_nkeyvals", arena_printf(f->arena, "%d", FG_MAX_AUX));
        assert_def(d, "cuda_kv_recip", k <= FG_MAX_AUX ? "1" : "0");
    }
}

static void fa1_form_is_refused_at_its_statement(void **state)
{
    fixture *f = *state;
    fg_kernel *fz = fused_file(f, "tests/cuda-bad/normalised.fp");
    assert_non_null(fz);
    fg_loc loc = {0, 0};
    const char *why = NULL;
    assert_int_equal(lower_cuda_supported(fz, &loc, &why), -1);
    assert_int_equal(loc.line, 12);
    assert_int_equal(loc.col, 1);
    assert_has(why, "'O' is kept divided by 'L' (the FlashAttention-1 form), but its body is "
                    "not a contraction W * V: give the weight a statement of its own");
    fz = fused_file(f, "plans/fa1.fp");
    assert_non_null(fz);
    assert_int_equal(lower_cuda_supported(fz, &loc, &why), 0);
    assert_int_equal(fz->attn.o, fz->attn.osum);
    assert_def(cuda_defs(f, "plans/fa1.fp"), "cuda_out_scale", "(l == 0.f) ? 0.f : 1.0f / l");
}

/* The configuration rules as templates/cuda/launch.m4 wrote them before
 * generator/cuda_configs.c (commit 5bc7840), written out again. */
static const char *old_rolling_rule(bool affine, bool masked, int d, long m, long n)
{
    switch (d) {
    case 64: return "C64";
    case 96: return "C96";
    case 128: return affine && (masked ? n >= 16384 : m >= 512) ? "C128L" : "C128";
    case 256: return "C256";
    }
    return NULL;
}

static const char *old_split_rule(bool bf16, int d, long group, long ql)
{
    bool mt2 = group * ql > 16;
    switch (d) {
    case 64: return mt2 ? "CD64_2" : "CD64_1";
    case 96: return mt2 ? "CD96_2" : "CD96_1";
    case 128: return mt2 ? "CD128_2" : bf16 ? "CD128_8W" : "CD128_1";
    case 256: return "CD256_1";
    }
    return NULL;
}

/* The table's rules choose what the hand-written rules chose, for every
 * dtype, head dim, row and key count, head group and plan fact (a mask with
 * span atoms, masked = 2, is a mask to the sm_80 family's rules). */
static void config_table_keeps_the_old_choices(void **state)
{
    (void)state;
    static const int ds[] = {32, 64, 96, 128, 192, 256, 512};
    static const long ms[] = {1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 33, 255, 511, 512, 513, 4096, 65536};
    static const long ns[] = {0, 1, 63, 64, 4096, 16383, 16384, 16385, 131072};
    static const long groups[] = {1, 2, 3, 4, 5, 6, 8, 16, 17, 32, 64};
    long checked = 0;
    for (int fam = 0; fam < 2; fam++)
        for (int affine = 0; affine < 2; affine++)
            for (int masked = 0; masked < 3; masked++)
                for (int bf16 = 0; bf16 < 2; bf16++)
                    for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++)
                        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
                            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                                for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
                                    int d = ds[di];
                                    long m = ms[mi], n = ns[ni], g = groups[gi];
                                    const char *want =
                                        fam ? old_split_rule(bf16, d, g, m)
                                            : old_rolling_rule(affine, masked != 0, d, m, n);
                                    const fg_cuda_config *k = cuda_config_select(
                                        fam ? CUDA_FAMILY_SPLIT : CUDA_FAMILY_ROLLING, affine,
                                        masked, bf16, d, m, n, g);
                                    const char *got = k ? k->name : NULL;
                                    if (!want != !got || (want && strcmp(want, got)))
                                        fail_msg("%s %s affine %d masked %d D %d M %ld N %ld "
                                                 "group %ld: the table takes %s, the old rule %s",
                                                 fam ? "split" : "rolling", bf16 ? "bf16" : "fp16",
                                                 affine, masked, d, m, n, g, got ? got : "none",
                                                 want ? want : "none");
                                    checked++;
                                }
    assert_true(checked > 100000);
}

/* The rows keep the prototype's parameters, and every row says where they
 * came from. */
static void config_table_rows(void **state)
{
    (void)state;
    static const struct {
        const char *name, *line;
    } want[] = {
        {"C64", "fa_cfg<64, 128, 64, 4, 2, true>"},
        {"C96", "fa_cfg<96, 128, 64, 8, 2, true>"},
        {"C128", "fa_cfg<128, 128, 64, 4, 2, false>"},
        {"C128L", "fa_cfg<128, 256, 64, 8, 2, false>"},
        {"C256", "fa_cfg<256, 128, 64, 8, 2, false>"},
        {"CD64_1", "fd_cfg<64, 1, 4, 16, 4, true, 2>"},
        {"CD64_2", "fd_cfg<64, 2, 4, 16, 4, true, 2>"},
        {"CD96_1", "fd_cfg<96, 1, 4, 16, 3, true, 2>"},
        {"CD96_2", "fd_cfg<96, 2, 4, 16, 3, false, 2>"},
        {"CD128_8W", "fd_cfg<128, 1, 8, 16, 2, true, 1>"},
        {"CD128_1", "fd_cfg<128, 1, 4, 16, 3, true, 2>"},
        {"CD128_2", "fd_cfg<128, 2, 4, 16, 3, false, 2>"},
        {"CD256_1", "fd_cfg<256, 1, 4, 16, 2, false, 1>"},
        {"H64", "fh_cfg<64, 128, 128, 3, false>"},
        {"H96", "fh_cfg<96, 128, 128, 3, false>"},
        {"H128D", "fh_cfg<128, 64, 64, 2, false>"},
        {"H128W", "fh_cfg<128, 128, 176, 2, true>"},
        {"H128WM", "fh_cfg<128, 128, 176, 2, false>"},
        {"H128", "fh_cfg<128, 128, 128, 3, false>"},
        {"H192", "fh_cfg<192, 128, 64, 3, false>"},
        {"H256", "fh_cfg<256, 128, 64, 2, false>"},
        {"K64", "fa_cfg<64, 128, 64, 4, 2, true>"},
        {"K96", "fa_cfg<96, 128, 64, 4, 2, true>"},
        {"K128", "fa_cfg<128, 128, 32, 4, 2, true>"},
        {"K256", "fa_cfg<256, 128, 32, 4, 1, true>"},
        {"KD64", "fd_cfg<64, 1, 4, 16, 1, true, 1>"},
        {"KD96", "fd_cfg<96, 1, 4, 16, 1, true, 1>"},
        {"KD128", "fd_cfg<128, 1, 4, 16, 1, true, 1>"},
        {"KD256", "fd_cfg<256, 1, 2, 16, 1, true, 1>"},
    };
    assert_int_equal(fg_cuda_nconfigs, (int)(sizeof want / sizeof want[0]));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fg_cuda_config *k = NULL;
        for (int j = 0; j < fg_cuda_nconfigs; j++)
            if (!strcmp(fg_cuda_configs[j].name, want[i].name))
                k = &fg_cuda_configs[j];
        assert_non_null(k);
        assert_string_equal(k->arch, want[i].line[1] == 'h' ? "sm90"
                                     : want[i].name[0] == 'K' ? "cdna"
                                                              : "sm80");
        assert_non_null(strstr(k->origin, "bench/"));
        char line[128];
        if (!strcmp(k->arch, "sm90"))
            snprintf(line, sizeof line, "fh_cfg<%d, %d, %d, %d, %s>", k->d, k->bm, k->bn,
                     k->stages, k->pingpong ? "true" : "false");
        else if (k->family == CUDA_FAMILY_ROLLING)
            snprintf(line, sizeof line, "fa_cfg<%d, %d, %d, %d, %d, %s>", k->d, k->bm, k->bn,
                     k->warps, k->stages, k->qreg ? "true" : "false");
        else
            snprintf(line, sizeof line, "fd_cfg<%d, %d, %d, %d, %d, %s, %d>", k->d, k->mt,
                     k->warps, k->bnw, k->stages, k->qreg ? "true" : "false", k->minb);
        assert_string_equal(line, want[i].line);
    }
}

/* The dispatch is code from the rules: the plan's facts are settled by the
 * generator, the shape conditions are left to the launch. */
static void config_dispatch_is_generated(void **state)
{
    fixture *f = *state;
    const char *causal = cuda_defs(f, "plans/causal.fp");
    assert_has(causal, "if (a.N >= 16384) {\n        fg@&_note_config(entry, \"C128L\", nullptr, 0);\n"
                       "        return plan_launch<T, C128L>(a, st, dev, entry);\n      }\n");
    assert_has(causal, "fg@&_note_config(entry, \"C128\", nullptr, 0);\n"
                       "      return plan_launch<T, C128>(a, st, dev, entry);");
    assert_has(causal, "using C128L = fa_cfg<128, 256, 64, 8, 2, false>;");
    assert_def(causal, "cuda_head_dims", "64, 96, 128 or 256; on sm_90a, every multiple of 8 up to 256");
    assert_def(causal, "cuda_head_dim_unsupported", "D < 8 || D % 8 != 0 || D > 256");
    /* the Hopper family: the smallest compiled dim at least D, then its rows */
    assert_def(causal, "cuda_sm90", "1");
    assert_has(causal, "using H128WM = fh_cfg<128, 128, 176, 2, false>;");
    assert_has(causal, "  if (D <= 128) {\n");
    assert_has(causal, "if (a.N >= 4096) {\n        fg@&_note_config(entry, \"H128WM\", nullptr, 0);\n"
                       "        return plan_launch_sm90<T, H128WM>(a, D, st, dev, entry, done);");
    assert_has(causal, "return plan_launch_sm90<T, H128>(a, D, st, dev, entry, done);");
    /* a mask with span atoms (ids compared) takes the 64-row shape at D 128,
     * a plan without them never compiles it */
    assert_null(strstr(causal, "H128D"));
    const char *docmask = cuda_defs(f, "plans/docmask.fp");
    assert_has(docmask, "using H128D = fh_cfg<128, 64, 64, 2, false>;");
    assert_has(docmask, "fg@&_note_config(entry, \"H128D\", nullptr, 0);\n"
                        "      return plan_launch_sm90<T, H128D>(a, D, st, dev, entry, done);");
    assert_null(strstr(docmask, "plan_launch_sm90<T, H128>"));
    const char *global = cuda_defs(f, "plans/global.fp");
    assert_has(global, "if (a.M >= 512) {\n        fg@&_note_config(entry, \"C128L\", nullptr, 0);\n"
                       "        return plan_launch<T, C128L>(a, st, dev, entry);");
    /* a score that calls a function never takes C128L: it is not compiled */
    const char *softcap = cuda_defs(f, "plans/softcap.fp");
    assert_null(strstr(softcap, "plan_launch<T, C128L>"));
    assert_null(strstr(softcap, "using C128L"));
    assert_has(softcap, "// C128L: not for this plan (its rule: a score affine in Q.K, masked,");
    const char *decode = cuda_defs(f, "plans/gqa_decode.fp");
    assert_has(decode, "const int packed = (a.Hq / a.Hkv) * a.QL;");
    assert_has(decode, "if (packed > 16) {\n        fg@&_note_config(entry, \"CD128_2\", nullptr, 0);\n"
                       "        return plan_launch_split<T, CD128_2>(a, st, dev, splits, entry);");
    assert_has(decode, "      if constexpr (std::is_same<T, __nv_bfloat16>::value) {\n"
                       "        if (packed <= 16) {\n"
                       "          fg@&_note_config(entry, \"CD128_8W\", nullptr, 0);\n"
                       "          return plan_launch_split<T, CD128_8W>(a, st, dev, splits, entry);\n"
                       "        }\n      }\n");
    assert_has(decode, "      if constexpr (std::is_same<T, __half>::value) {\n"
                       "        if (packed <= 16) {\n"
                       "          fg@&_note_config(entry, \"CD128_1\", nullptr, 0);\n"
                       "          return plan_launch_split<T, CD128_1>(a, st, dev, splits, entry);\n"
                       "        }\n      }\n");
    assert_has(decode, "return plan_launch_split<T, CD256_1>(a, st, dev, splits, entry);");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_bundled_attention_plan_fits, setup, teardown),
        cmocka_unit_test_setup_teardown(softmax_has_row_kernels, setup, teardown),
        cmocka_unit_test_setup_teardown(softmax_row_hooks_in_the_hip_dialect, setup, teardown),
        cmocka_unit_test_setup_teardown(row_levels_and_second_walk_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(row_outputs_and_params, setup, teardown),
        cmocka_unit_test_setup_teardown(several_values_per_row, setup, teardown),
        cmocka_unit_test_setup_teardown(row_plans_refused_with_reasons, setup, teardown),
        cmocka_unit_test_setup_teardown(sigmoid_weighs_keys_without_a_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(base2_chain_and_running_value_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(row_values_follow_the_masked_row_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(global_score_is_folded_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(causal_mask_bounds_keys_and_tiles, setup, teardown),
        cmocka_unit_test_setup_teardown(alibi_slope_becomes_a_head_constant, setup, teardown),
        cmocka_unit_test_setup_teardown(softcap_constants_fold_on_the_host, setup, teardown),
        cmocka_unit_test_setup_teardown(bounded_score_may_fix_the_max, setup, teardown),
        cmocka_unit_test_setup_teardown(window_mask_and_split_form, setup, teardown),
        cmocka_unit_test_setup_teardown(schedule_split_count_is_the_default, setup, teardown),
        cmocka_unit_test_setup_teardown(any_score_chain_becomes_one_expression, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_wrapper_fills_the_args, setup, teardown),
        cmocka_unit_test_setup_teardown(refusal_is_a_located_error, setup, teardown),
        cmocka_unit_test_setup_teardown(fa1_form_is_refused_at_its_statement, setup, teardown),
        cmocka_unit_test_setup_teardown(independent_chains_take_one_pass_each, setup, teardown),
        cmocka_unit_test_setup_teardown(key_linear_scores_are_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(diagonal_terms_are_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(weight_reads_extra_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(value_in_any_place_of_the_product, setup, teardown),
        cmocka_unit_test_setup_teardown(key_factor_needs_every_read_in_kv, setup, teardown),
        cmocka_unit_test(config_table_keeps_the_old_choices),
        cmocka_unit_test(config_table_rows),
        cmocka_unit_test_setup_teardown(config_dispatch_is_generated, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
