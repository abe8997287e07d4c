/* test_wisdom.c - the wisdom reader (generator/middle/wisdom.c), the tuned
 * rows a plan takes from it (tune.c), and the dispatch lookup of the
 * runtime (fg_tune_lookup, fg_tune_table_for, fg_tune_bucket).
 *
 * Each malformed-line class gets its exact located message; a file with
 * one fault is refused whole.  The stale-templates and foreign-file paths
 * of a fusegen run are in tests/wisdom.sh.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fusegen_internal.h"
#include "generator.h"

typedef struct fixture {
    fg_arena *a;
    fg_source src;
    fg_diag d;
    FILE *errf;
    char *err;
    size_t errlen;
    fg_wisdom *w;
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    fx->a = arena_create();
    fx->errf = open_memstream(&fx->err, &fx->errlen);
    *state = fx;
    return fx->errf ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    fclose(fx->errf);
    free(fx->err);
    arena_destroy(fx->a);
    free(fx);
    return 0;
}

#define HEADER                                                                     \
    "# a comment\n"                                                                \
    "fusegen-wisdom 1\n"                                                           \
    "fusegen 0.1.0\n"                                                              \
    "templates 0123456789abcdef\n"                                                 \
    "nvcc 13.0\n"                                                                  \
    "driver 13000\n"                                                               \
    "device NVIDIA H200\n"                                                         \
    "cc 9.0\n"                                                                     \
    "sms 132\n"                                                                    \
    "memclock 3201000\n"
#define ROW "row global fdd31ed4d232548c bf16 128 13 18 T128_176_2P 1.25 default 1.3 0.01\n"

/* Parses text; returns the result and leaves the messages in fx->err. */
static int parse(fixture *fx, const char *text)
{
    rewind(fx->errf);
    fflush(fx->errf);
    if (fx->err)
        fx->err[0] = 0;
    source_from_string(&fx->src, "h200.wisdom", text);
    diag_init(&fx->d, &fx->src, fx->errf);
    int rc = wisdom_parse(fx->a, &fx->src, &fx->d, &fx->w);
    fflush(fx->errf);
    return rc;
}

/* The first line of the messages. */
static const char *first(fixture *fx)
{
    char *nl = fx->err ? strchr(fx->err, '\n') : NULL;
    if (nl)
        *nl = 0;
    return fx->err ? fx->err : "";
}

static void test_good_file(void **state)
{
    fixture *fx = *state;
    assert_int_equal(parse(fx, HEADER "date 2026-11-24T00:50Z\n" ROW
                                      "row gqa_decode ef6ed2d7e62dcc92 fp16 64 13 4 splits=8 0.02 - "
                                      "0 0\n"),
                     0);
    fg_wisdom *w = fx->w;
    assert_non_null(w);
    assert_int_equal(w->version, 1);
    assert_string_equal(w->device, "NVIDIA H200");
    assert_int_equal(w->cc_major, 9);
    assert_int_equal(w->cc_minor, 0);
    assert_int_equal(w->sms, 132);
    assert_int_equal(w->memclock_khz, 3201000);
    assert_string_equal(w->templates, "0123456789abcdef");
    assert_int_equal(w->templates_loc.line, 4);
    assert_int_equal(w->nrows, 2);
    assert_string_equal(w->rows[0].plan, "global");
    assert_int_equal(w->rows[0].dtype, CUDA_CFG_BF16);
    assert_int_equal(w->rows[0].d, 128);
    assert_int_equal(w->rows[0].keys, 13);
    assert_int_equal(w->rows[0].work, 18);
    assert_string_equal(w->rows[0].variant, "T128_176_2P");
    assert_true(w->rows[0].ms == 1.25);
    assert_string_equal(w->rows[0].runner, "default");
    assert_int_equal(w->rows[0].loc.line, 12);
    assert_int_equal(w->rows[1].dtype, CUDA_CFG_FP16);
    assert_string_equal(w->rows[1].variant, "splits=8");
    assert_string_equal(w->rows[1].runner, "-");
}

/* Every class of malformed line: its message, located; nothing usable. */
static void test_malformed(void **state)
{
    fixture *fx = *state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "h200.wisdom:1:1: error: not a fusegen wisdom file: it is empty"},
        {"# only comments\n", "h200.wisdom:1:1: error: not a fusegen wisdom file: it is empty"},
        {"row x\n", "h200.wisdom:1:1: error: not a fusegen wisdom file: its first line must be "
                    "'fusegen-wisdom 1'"},
        {"fusegen-wisdom 2\n",
         "h200.wisdom:1:16: error: wisdom format version 2: this fusegen reads version 1"},
        {"fusegen-wisdom x\n", "h200.wisdom:1:16: error: wisdom format version 'x' is not an "
                               "integer from 1 to 1000"},
        {HEADER "colour blue\n", "h200.wisdom:11:1: error: unknown wisdom line 'colour': expected "
                                 "row or a header key (fusegen, templates, nvcc, driver, device, "
                                 "cc, sms, memclock, date)"},
        {HEADER "sms 100\n", "h200.wisdom:11:1: error: header key 'sms' given twice"},
        {"fusegen-wisdom 1\nnvcc 13.0 12.0\n",
         "h200.wisdom:2:1: error: header key 'nvcc' takes one value"},
        {"fusegen-wisdom 1\ntemplates 0123\n",
         "h200.wisdom:2:11: error: templates hash '0123' is not 16 hex digits"},
        {"fusegen-wisdom 1\ncc 9\n", "h200.wisdom:2:4: error: compute capability '9' is not "
                                     "MAJOR.MINOR"},
        {"fusegen-wisdom 1\nsms 0\n",
         "h200.wisdom:2:5: error: SM count '0' is not an integer from 1 to 4096"},
        {"fusegen-wisdom 1\nfusegen 0.1.0\n" ROW,
         "h200.wisdom:3:1: error: a row before the header's 'templates' line: the header comes "
         "first, complete"},
        {HEADER "row global fdd31ed4d232548c bf16 128 13 18 T 1.25 default 1.3\n",
         "h200.wisdom:11:1: error: a row has 11 fields (plan hash dtype d keys work variant ms "
         "runner runner_ms spread); this one has 10"},
        {HEADER "row glo/bal fdd31ed4d232548c bf16 128 13 18 T 1 - 0 0\n",
         "h200.wisdom:11:8: error: plan 'glo/bal' has a character that no name has"},
        {HEADER "row global fdd31ed4d23254 bf16 128 13 18 T 1 - 0 0\n",
         "h200.wisdom:11:12: error: plan hash 'fdd31ed4d23254' is not 16 hex digits"},
        {HEADER "row global fdd31ed4d232548c f32 128 13 18 T 1 - 0 0\n",
         "h200.wisdom:11:29: error: dtype 'f32': expected bf16 or fp16"},
        {HEADER "row global fdd31ed4d232548c bf16 100 13 18 T 1 - 0 0\n",
         "h200.wisdom:11:34: error: head dim 100 is not a multiple of 8"},
        {HEADER "row global fdd31ed4d232548c bf16 512 13 18 T 1 - 0 0\n",
         "h200.wisdom:11:34: error: head dim '512' is not an integer from 8 to 256"},
        {HEADER "row global fdd31ed4d232548c bf16 128 40 18 T 1 - 0 0\n",
         "h200.wisdom:11:38: error: keys bucket (log2) '40' is not an integer from 0 to 31"},
        {HEADER "row global fdd31ed4d232548c bf16 128 13 -1 T 1 - 0 0\n",
         "h200.wisdom:11:41: error: work bucket (log2) '-1' is not an integer from 0 to 62"},
        {HEADER "row global fdd31ed4d232548c bf16 128 13 18 T 0 - 0 0\n",
         "h200.wisdom:11:46: error: time (ms) '0' is not a positive number"},
        {HEADER "row global fdd31ed4d232548c bf16 128 13 18 T nan - 0 0\n",
         "h200.wisdom:11:46: error: time (ms) 'nan' is not a positive number"},
        {HEADER "row global fdd31ed4d232548c bf16 128 13 18 T 1 - -1 0\n",
         "h200.wisdom:11:50: error: runner-up time (ms) '-1' is not a non-negative number"},
        {HEADER ROW ROW, "h200.wisdom:12:1: error: a second row for plan global, bf16, head dim "
                         "128, bucket (13, 18): the first is on line 11"},
        {"fusegen-wisdom 1\nfusegen 0.1.0\n", "h200.wisdom:2:1: error: the header is incomplete: "
                                              "it needs fusegen, templates, nvcc, driver, device, "
                                              "cc, sms and memclock"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx->w = (fg_wisdom *)1;
        if (parse(fx, cases[i].text) != -1 || fx->w != NULL)
            fail_msg("case %zu was accepted: %s", i, cases[i].text);
        const char *got = first(fx);
        if (strcmp(got, cases[i].msg) != 0)
            fail_msg("case %zu:\n  got  %s\n  want %s", i, got, cases[i].msg);
    }
}

/* The rows a plan takes: its own (name and source hash), naming a
 * candidate of its tune block or "default"; others warned about. */
static void test_rows_for_a_plan(void **state)
{
    fixture *fx = *state;
    const char *plan_text = "plan global\n"
                            "dim B, H, M, N, D\n"
                            "axis b: B, h: H, m: M, n: N, d: D\n"
                            "param scale: f32 = rsqrt(D)\n"
                            "input Q[b, h, m, d]: bf16\n"
                            "input K[b, h, n, d]: bf16\n"
                            "input V[b, h, n, d]: bf16\n"
                            "S[b, h, m, n] = sum(d: Q * K) * scale\n"
                            "Mx[b, h, m]   = max(n: S)\n"
                            "P[b, h, m, n] = exp(S - Mx)\n"
                            "L[b, h, m]    = sum(n: P)\n"
                            "O[b, h, m, d] = sum(n: P * V) / L\n"
                            "output O: bf16\n"
                            "schedule {\n"
                            "  reduce n: rolling\n"
                            "  tune {\n"
                            "    tile n = {64, 176}\n"
                            "    stages = {2}\n"
                            "    pingpong = {0, 1}\n"
                            "  }\n"
                            "}\n";
    fg_source psrc;
    source_from_string(&psrc, "g.fp", plan_text);
    fg_diag pd;
    diag_init(&pd, &psrc, fx->errf);
    fg_plan *p;
    fg_fused *fz;
    fg_kernel *k;
    assert_int_equal(parse_plan(fx->a, &psrc, &pd, &p), 0);
    assert_int_equal(check_plan(p, &pd), 0);
    assert_int_equal(fuse_plan(fx->a, p, &pd, &fz), 0);
    assert_int_equal(kernel_build(fx->a, fz, &pd, &k), 0);
    /* the candidates: 64 and 176 keys, 2 stages, both ping-pong settings, per
     * compiled head dim that holds them (176 keys: not at D 192 and 256) */
    fg_cuda_config *cands;
    int dims[] = {128};
    assert_int_equal(tune_space(fx->a, k, dims, 1, &cands), 4);
    assert_string_equal(cands[0].name, "T128_64_2");
    assert_string_equal(cands[1].name, "T128_64_2P");
    assert_string_equal(cands[2].name, "T128_176_2");
    assert_true(cands[3].pingpong && cands[3].bn == 176 && cands[3].stages == 2);
    char *text = NULL;
    const char *h = p->hash;
    assert_true(asprintf(&text,
                         HEADER "row global %s bf16 128 13 18 T128_176_2P 1 - 0 0\n"
                                "row global %s bf16 128 13 19 default 1 - 0 0\n"
                                "row global %s bf16 128 13 20 T128_128_3 1 - 0 0\n"
                                "row global 0000000000000000 bf16 128 13 21 T128_64_2 1 - 0 0\n"
                                "row causal %s bf16 128 13 18 T128_64_2 1 - 0 0\n",
                         h, h, h, h) > 0);
    assert_int_equal(parse(fx, text), 0);
    const fg_wisdom *ws[] = {fx->w};
    assert_int_equal(tune_attach(fx->a, k, false, NULL, 0, ws, 1, &pd), 0);
    fflush(fx->errf);
    assert_int_equal(k->tune->nwisdom, 1);
    assert_int_equal(k->tune->nrows[0], 2);
    assert_string_equal(k->tune->rows[0][0]->variant, "T128_176_2P");
    assert_string_equal(k->tune->rows[0][1]->variant, "default");
    assert_non_null(strstr(fx->err, "h200.wisdom:14:1: warning: 1 row for plan 'global' was "
                                     "tuned on another version of the plan"));
    assert_non_null(strstr(fx->err, "h200.wisdom:13:1: warning: 1 row for plan 'global' names a "
                                     "configuration its tune block does not have: not used"));
    /* Two files of one device combine plan by plan: the first (a user file)
     * with rows for a plan serves it.  A user file of causal's rows only
     * leaves global to the other file, without a message... */
    const fg_wisdom *sys = fx->w;
    char *utext = NULL, *mtext = NULL;
    assert_true(asprintf(&utext, HEADER "row causal %s bf16 128 13 18 T128_64_2 1 - 0 0\n", h) > 0);
    assert_true(asprintf(&mtext, HEADER "row global %s bf16 128 13 18 T128_64_2 1 - 0 0\n", h) > 0);
    fg_source usrc, msrc;
    fg_wisdom *uw, *mw;
    source_from_string(&usrc, "user.wisdom", utext);
    source_from_string(&msrc, "mine.wisdom", mtext);
    assert_int_equal(wisdom_parse(fx->a, &usrc, &fx->d, &uw), 0);
    assert_int_equal(wisdom_parse(fx->a, &msrc, &fx->d, &mw), 0);
    const fg_wisdom *two[] = {uw, sys}, *three[] = {mw, uw, sys};
    rewind(fx->errf);
    fflush(fx->errf);
    fx->err[0] = 0;
    assert_int_equal(tune_attach(fx->a, k, false, NULL, 0, two, 2, &pd), 0);
    fflush(fx->errf);
    assert_int_equal(k->tune->nwisdom, 1);
    assert_ptr_equal(k->tune->wisdom[0], sys);
    assert_int_equal(k->tune->nrows[0], 2);
    assert_null(strstr(fx->err, "serves that plan"));
    /* ...and a user file with rows for global takes global over, the later
     * file's rows for it reported unused */
    assert_int_equal(tune_attach(fx->a, k, false, NULL, 0, three, 3, &pd), 0);
    fflush(fx->errf);
    assert_int_equal(k->tune->nwisdom, 1);
    assert_ptr_equal(k->tune->wisdom[0], mw);
    assert_int_equal(k->tune->nrows[0], 1);
    assert_string_equal(k->tune->rows[0][0]->variant, "T128_64_2");
    assert_non_null(strstr(fx->err, "fusegen: warning: wisdom file 'h200.wisdom': its 2 rows for plan "
                                    "'global' are not used: 'mine.wisdom' serves that plan on "
                                    "NVIDIA H200"));
    free(utext);
    free(mtext);
    free(text);
    /* --tuning: every candidate, no rows */
    assert_int_equal(tune_attach(fx->a, k, true, NULL, 0, ws, 1, &pd), 0);
    assert_true(k->tune->tuning);
    assert_int_equal(k->tune->nwisdom, 0);
    assert_true(k->tune->ncands > 4);
}

/* Without knobs, the candidates take the tile sizes and stages of the rows
 * the plan itself takes: a causal plan at D 128 takes H128WM (176 keys, 2
 * stages) and H128 (128, 3), not H128D (64 keys), which only masks with
 * span atoms take; 176 keys with 3 stages exceed shared memory.  The span
 * region of shared memory counts where the mask has span atoms. */
static void test_default_space(void **state)
{
    fixture *fx = *state;
    const char *plan_text = "plan causal\n"
                            "dim B, H, M, N, D\n"
                            "axis b: B, h: H, m: M, n: N, d: D\n"
                            "param scale: f32 = rsqrt(D)\n"
                            "input Q[b, h, m, d]: bf16\n"
                            "input K[b, h, n, d]: bf16\n"
                            "input V[b, h, n, d]: bf16\n"
                            "S[b, h, m, n] = sum(d: Q * K) * scale\n"
                            "T[b, h, m, n] = where(n <= m + N - M, S, -inf)\n"
                            "Mx[b, h, m]   = max(n: T)\n"
                            "P[b, h, m, n] = exp(T - Mx)\n"
                            "L[b, h, m]    = sum(n: P)\n"
                            "O[b, h, m, d] = sum(n: P * V) / L\n"
                            "output O: bf16\n"
                            "schedule {\n"
                            "  reduce n: rolling\n"
                            "  tile m = 128, n = 64\n"
                            "}\n";
    fg_source psrc;
    source_from_string(&psrc, "c.fp", plan_text);
    fg_diag pd;
    diag_init(&pd, &psrc, fx->errf);
    fg_plan *p;
    fg_fused *fz;
    fg_kernel *k;
    assert_int_equal(parse_plan(fx->a, &psrc, &pd, &p), 0);
    assert_int_equal(check_plan(p, &pd), 0);
    assert_int_equal(fuse_plan(fx->a, p, &pd, &fz), 0);
    assert_int_equal(kernel_build(fx->a, fz, &pd, &k), 0);
    assert_int_equal(config_masking(k), 1);
    fg_cuda_config *cands;
    int dims[] = {128};
    assert_int_equal(tune_space(fx->a, k, dims, 1, &cands), 3);
    assert_string_equal(cands[0].name, "T128_176_2");
    assert_string_equal(cands[1].name, "T128_128_2");
    assert_string_equal(cands[2].name, "T128_128_3");
    /* fh_cfg<128, 64, 64, 2>::smem_bytes(): 1024 + Q 16384 + K/V 65536 +
     * 72 bytes of mbarriers; with one span, the mbarriers to 80, 8 ranges
     * of 16 bytes (rows and keys, 4 consumer warps) and the 4 warps' copies
     * of a tile's key values (64 keys, 8 bytes each) */
    const fg_cuda_config h128d = {.arch = "sm90", .d = 128, .bm = 64, .bn = 64, .stages = 2};
    assert_int_equal(config_smem(&h128d, 0, 0), 83016);
    assert_int_equal(config_smem(&h128d, 1, 0), 83152 + 4 * 64 * 8);
    /* with a ring of key values (fh_cfg::KVG), one float a key: 16 + its 2
     * "values empty" mbarriers (16) + 2 stages x 64 keys x 4 bytes, before
     * VALS's copies */
    assert_int_equal(config_smem(&h128d, 1, 1), 83152 + 544 + 4 * 64 * 8);
    /* fh_cfg<96, 128, 128, 3>: 1024 + Q 32768 + K/V 196608 + the mbarriers
     * (104, to 112) + 16 ranges = 230768; the 8 warps' copies (8192) would
     * pass 227 KB, so it has none (fh_cfg::VALS) */
    const fg_cuda_config h96 = {.arch = "sm90", .d = 96, .bm = 128, .bn = 128, .stages = 3};
    assert_int_equal(config_smem(&h96, 1, 0), 230768);
    /* fh_cfg<128, 128, 128, 3> without spans: 1024 + 32768 + 196608 + 104 =
     * 230504; a ring of one float a key (16 + its 3 "values empty"
     * mbarriers, 32 + 3 x 128 x 4 = 1584) fits in 227 KB (232448), one of
     * two floats (3120) does not, and is left out
     * (the consumers load the values themselves) */
    const fg_cuda_config h128 = {.arch = "sm90", .d = 128, .bm = 128, .bn = 128, .stages = 3};
    assert_int_equal(config_smem(&h128, 0, 0), 230504);
    assert_int_equal(config_smem(&h128, 0, 1), 232088);
    assert_int_equal(config_smem(&h128, 0, 2), 230504);
    /* the sm_80 family has no ring */
    const fg_cuda_config c128 = {.arch = "sm80", .d = 128, .bm = 128, .bn = 64, .stages = 2};
    assert_int_equal(config_smem(&c128, 0, 1), config_smem(&c128, 0, 0));
}

static void test_bucket(void **state)
{
    (void)state;
    assert_int_equal(fg_tune_bucket(0), 0);
    assert_int_equal(fg_tune_bucket(1), 0);
    assert_int_equal(fg_tune_bucket(2), 1);
    assert_int_equal(fg_tune_bucket(3), 2);
    assert_int_equal(fg_tune_bucket(8192), 13);
    assert_int_equal(fg_tune_bucket(8193), 14);
    assert_int_equal(fg_tune_bucket(1LL << 40), 40);
}

static const fg_tune_row rows[] = {
    {1, 128, 13, 18, 3, 11}, {1, 128, 15, 19, -1, 12}, {2, 128, 13, 18, 5, 13},
    {1, 64, 13, 18, 7, 14},  {1, 128, 10, 14, 2, 15},
};

static void test_lookup_exact(void **state)
{
    (void)state;
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 128, 13, 18), 0);
    assert_int_equal(fg_tune_lookup(rows, 5, 2, 128, 13, 18), 2);
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 64, 13, 18), 3);
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 128, 15, 19), 1);
}

static void test_lookup_nearest(void **state)
{
    (void)state;
    /* (14, 19): 2 from (13, 18), 1 from (15, 19) */
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 128, 14, 19), 1);
    /* (11, 15): 2 from (10, 14), 5 from (13, 18) */
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 128, 11, 15), 4);
    /* a tie, (12, 16) is 3 from (13, 18) and 3 from (10, 14): the first row */
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 128, 12, 16), 0);
    /* far away is still the nearest: fp16 has one row at D 128 */
    assert_int_equal(fg_tune_lookup(rows, 5, 2, 128, 30, 60), 2);
}

static void test_lookup_fallback(void **state)
{
    (void)state;
    /* no row of that dtype and head dim: the default rules (-1) */
    assert_int_equal(fg_tune_lookup(rows, 5, 2, 64, 13, 18), -1);
    assert_int_equal(fg_tune_lookup(rows, 5, 1, 96, 13, 18), -1);
    assert_int_equal(fg_tune_lookup(rows, 0, 1, 128, 13, 18), -1);
    assert_int_equal(fg_tune_lookup(NULL, 5, 1, 128, 13, 18), -1);
}

/* A device's table by name and SM count; another device (a foreign one)
 * gets none, never another device's rows; FUSEGEN_WISDOM_DEVICE names one. */
static void test_table_for_device(void **state)
{
    (void)state;
    const fg_tune_table t[] = {
        {"NVIDIA H200", 132, "wisdom/nvidia-h200.wisdom", rows, 5},
        {"NVIDIA H100 80GB HBM3", 132, "wisdom/nvidia-h100-80gb-hbm3.wisdom", rows, 2},
    };
    unsetenv("FUSEGEN_WISDOM_DEVICE");
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA H200", 132), 0);
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA H100 80GB HBM3", 132), 1);
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA H200", 120), -1);
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA A100-SXM4-80GB", 108), -1);
    assert_int_equal(fg_tune_table_for(t, 2, NULL, 0), -1);
    setenv("FUSEGEN_WISDOM_DEVICE", "NVIDIA H100 80GB HBM3", 1);
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA H200", 132), 1);
    setenv("FUSEGEN_WISDOM_DEVICE", "NVIDIA B200", 1);
    assert_int_equal(fg_tune_table_for(t, 2, "NVIDIA H200", 132), -1);
    unsetenv("FUSEGEN_WISDOM_DEVICE");
}

static void test_last_config(void **state)
{
    (void)state;
    fg_note_config("fg_global", "H128W", NULL, 0);
    assert_string_equal(fg_last_config(), "fg_global: H128W, by the default rules");
    fg_note_config("fg_global", "T128_176_2P", "wisdom/nvidia-h200.wisdom", 40);
    assert_string_equal(fg_last_config(),
                        "fg_global: T128_176_2P, tuned (wisdom/nvidia-h200.wisdom:40)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_for_a_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_space, setup, teardown),
        cmocka_unit_test(test_bucket),
        cmocka_unit_test(test_lookup_exact),
        cmocka_unit_test(test_lookup_nearest),
        cmocka_unit_test(test_lookup_fallback),
        cmocka_unit_test(test_table_for_device),
        cmocka_unit_test(test_last_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
