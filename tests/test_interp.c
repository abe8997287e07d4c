/* test_interp.c - the reference interpreter against hand-written double
 * precision implementations of the same computations, on random inputs of
 * odd sizes: attention (global, causal with M < N and M > N, GQA, ALiBi,
 * soft-capping, sliding window), softmax, log-softmax, log-sum-exp; the
 * masked-row rules; integer arithmetic; and the errors it reports.
 *
 * The references below are written from the mathematics, not from the
 * plans: they share no code with the interpreter, and compute the softmax
 * through the log-sum-exp (O = sum exp(s - LSE) V), an order of operations
 * different from the plans' exp(s - max) / sum. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

#define TOL 1e-12

/* ------------------------------------------------------------------ */
/* Fixture: one plan, its binding, a diagnostics stream                */
/* ------------------------------------------------------------------ */

typedef struct fixture {
    fg_arena *a;
    fg_source *src;
    fg_plan *p;
    fg_diag d;
    FILE *diag_out;
    char *diag_text;
    size_t diag_len;
    long dims[16];
    double params[16];
    double *pvec[16];
    double *in[32];
    double *out[32];
    fg_interp_binding b;
    uint64_t rng;
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    fx->a = arena_create();
    fx->src = ARENA_NEW(fx->a, fg_source);
    fx->diag_out = open_memstream(&fx->diag_text, &fx->diag_len);
    assert_non_null(fx->diag_out);
    diag_init(&fx->d, NULL, fx->diag_out);
    for (int i = 0; i < 16; i++)
        fx->params[i] = NAN;
    fx->b.dims = fx->dims;
    fx->b.params = fx->params;
    fx->b.param_vectors = fx->pvec;
    fx->b.inputs = fx->in;
    fx->b.outputs = fx->out;
    fx->rng = 0x9e3779b97f4a7c15u;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    for (int i = 0; i < 32; i++) {
        free(fx->in[i]);
        free(fx->out[i]);
    }
    for (int i = 0; i < 16; i++)
        free(fx->pvec[i]);
    fclose(fx->diag_out);
    free(fx->diag_text);
    arena_destroy(fx->a);
    free(fx);
    return 0;
}

static const char *diag_text(fixture *fx)
{
    fflush(fx->diag_out);
    return fx->diag_text ? fx->diag_text : "";
}

static void check_parsed(fixture *fx)
{
    if (fx->d.errors)
        fail_msg("plan did not parse and check:\n%s", diag_text(fx));
    assert_non_null(fx->p);
}

static void load_plan(fixture *fx, const char *name)
{
    const char *srcdir = getenv("srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/plans/%s.fp", srcdir ? srcdir : ".", name);
    /* the source keeps the name it was read under: it must outlive the plan */
    if (source_read(fx->a, arena_strdup(fx->a, path), fx->src, &fx->d) != 0)
        fail_msg("cannot read %s:\n%s", path, diag_text(fx));
    diag_init(&fx->d, fx->src, fx->diag_out);
    if (parse_plan(fx->a, fx->src, &fx->d, &fx->p) == 0)
        check_plan(fx->p, &fx->d);
    check_parsed(fx);
}

static void load_text(fixture *fx, const char *text)
{
    source_from_string(fx->src, "inline.fp", text);
    diag_init(&fx->d, fx->src, fx->diag_out);
    if (parse_plan(fx->a, fx->src, &fx->d, &fx->p) == 0)
        check_plan(fx->p, &fx->d);
    check_parsed(fx);
}

static void set_dim(fixture *fx, const char *name, long v)
{
    int i = plan_find_dim(fx->p, name);
    if (i < 0)
        fail_msg("plan has no dim %s", name);
    fx->dims[i] = v;
}

static void set_param(fixture *fx, const char *name, double v)
{
    int i = plan_find_param(fx->p, name);
    if (i < 0)
        fail_msg("plan has no param %s", name);
    fx->params[i] = v;
}

static double uniform(fixture *fx)
{
    /* xorshift64*: 53 random bits in [0, 1) */
    fx->rng ^= fx->rng >> 12;
    fx->rng ^= fx->rng << 25;
    fx->rng ^= fx->rng >> 27;
    return (double)((fx->rng * 2685821657736338717u) >> 11) * 0x1p-53;
}

/* A random input in [-amp, amp), dense over its stored extents. */
static double *random_input(fixture *fx, const char *name, double amp)
{
    int t = plan_find_tensor(fx->p, name);
    if (t < 0 || fx->p->tensors[t].kind != TENSOR_INPUT)
        fail_msg("plan has no input %s", name);
    size_t n = interp_tensor_size(fx->p, t, fx->dims);
    free(fx->in[t]); /* a second case of the same test */
    fx->in[t] = malloc((n ? n : 1) * sizeof(double));
    assert_non_null(fx->in[t]);
    for (size_t i = 0; i < n; i++)
        fx->in[t][i] = amp * (2.0 * uniform(fx) - 1.0);
    return fx->in[t];
}

/* Output buffers, poisoned with NaN so that an unwritten element shows. */
static double *output(fixture *fx, const char *name, size_t *count)
{
    int t = plan_find_tensor(fx->p, name);
    if (t < 0 || !fx->p->tensors[t].is_output)
        fail_msg("plan has no output %s", name);
    size_t n = interp_tensor_size(fx->p, t, fx->dims);
    if (!fx->out[t]) {
        fx->out[t] = malloc((n ? n : 1) * sizeof(double));
        assert_non_null(fx->out[t]);
        for (size_t i = 0; i < n; i++)
            fx->out[t][i] = NAN;
    }
    if (count)
        *count = n;
    return fx->out[t];
}

static void run_ok(fixture *fx)
{
    if (interp_run(fx->p, &fx->b, &fx->d) != 0)
        fail_msg("interp_run failed:\n%s", diag_text(fx));
    assert_int_equal(fx->d.errors, 0);
}

/* |got - want| against max(|want|, 0.01): relative, except where a value
 * cancels to nearly zero.  Infinities must match exactly; NaN never. */
static void compare(const char *what, const double *got, const double *want, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(got[i]) || isnan(want[i]))
            fail_msg("%s[%zu]: NaN (got %g, expected %g)", what, i, got[i], want[i]);
        if (isinf(want[i]) || isinf(got[i])) {
            if (got[i] != want[i])
                fail_msg("%s[%zu]: got %g, expected %g", what, i, got[i], want[i]);
            continue;
        }
        double err = fabs(got[i] - want[i]) / fmax(fabs(want[i]), 0.01);
        if (err > worst)
            worst = err;
        if (err >= TOL)
            fail_msg("%s[%zu]: got %.17g, expected %.17g (relative error %.3g)", what, i,
                     got[i], want[i], err);
    }
    assert_true(worst < TOL);
}

/* ------------------------------------------------------------------ */
/* Hand-written attention                                              */
/* ------------------------------------------------------------------ */

typedef struct attn_case {
    long B, Hq, Hkv, M, N, D;
    bool causal;   /* key n visible to query m when n <= m + N - M */
    long window;   /* > 0: also m + N - M - n < window */
    double cap;    /* > 0: score = cap * tanh(score / cap) */
    const double *slopes; /* per query head: score += slope * (n - (m + N - M)) */
    double scale;
    const long *lens; /* per batch: the keys of that sequence (dim N[b]), or NULL (N) */
    const double *seg; /* [B, N] document ids: key n visible only when seg[b, n] == seg[b, pos] */
    const double *table; /* [Hq, R]: score += table[h, clamp(pos - n, 0, R - 1)] */
    long R;
} attn_case;

/* O[b,h,m,:] = sum_n softmax_n(s) V[b,h/G,n,:], LSE = log sum_n exp(s);
 * a row with no visible key gets O = 0 and LSE = -inf.  Returns the
 * number of such rows. */
static long attention_ref(const attn_case *c, const double *Q, const double *K,
                          const double *V, double *O, double *LSE)
{
    long G = c->Hq / c->Hkv, masked_rows = 0;
    double *s = malloc((size_t)c->N * sizeof(double));
    bool *vis = malloc((size_t)c->N * sizeof(bool));
    assert_true(s && vis);
    for (long b = 0; b < c->B; b++)
        for (long h = 0; h < c->Hq; h++)
            for (long m = 0; m < c->M; m++) {
                const double *q = Q + ((b * c->Hq + h) * c->M + m) * c->D;
                const long Nb = c->lens ? c->lens[b] : c->N; /* this sequence's keys */
                long pos = m + Nb - c->M; /* the query's position among the keys */
                double top = -INFINITY;
                for (long n = 0; n < Nb; n++) {
                    const double *k = K + ((b * c->Hkv + h / G) * c->N + n) * c->D;
                    double dot = 0;
                    for (long d = 0; d < c->D; d++)
                        dot += q[d] * k[d];
                    double x = dot * c->scale;
                    if (c->cap > 0)
                        x = c->cap * tanh(x / c->cap);
                    if (c->slopes)
                        x += c->slopes[h] * (double)(n - pos);
                    if (c->table) {
                        long r = pos - n < 0 ? 0 : pos - n > c->R - 1 ? c->R - 1 : pos - n;
                        x += c->table[h * c->R + r];
                    }
                    vis[n] = !c->causal || (n <= pos && (c->window <= 0 || pos - n < c->window));
                    if (c->seg)
                        vis[n] = vis[n] && c->seg[b * c->N + n] == c->seg[b * c->N + pos];
                    s[n] = x;
                    if (vis[n] && x > top)
                        top = x;
                }
                double *o = O + ((b * c->Hq + h) * c->M + m) * c->D;
                double *lse = LSE + (b * c->Hq + h) * c->M + m;
                if (top == -INFINITY) {
                    for (long d = 0; d < c->D; d++)
                        o[d] = 0;
                    *lse = -INFINITY;
                    masked_rows++;
                    continue;
                }
                double total = 0;
                for (long n = 0; n < Nb; n++)
                    if (vis[n])
                        total += exp(s[n] - top);
                *lse = top + log(total);
                for (long d = 0; d < c->D; d++)
                    o[d] = 0;
                for (long n = 0; n < Nb; n++) {
                    if (!vis[n])
                        continue;
                    double w = exp(s[n] - *lse);
                    const double *v = V + ((b * c->Hkv + h / G) * c->N + n) * c->D;
                    for (long d = 0; d < c->D; d++)
                        o[d] += w * v[d];
                }
            }
    free(s);
    free(vis);
    return masked_rows;
}

/* Binds the plan's dims (H or Hq/Hkv), random Q, K, V; runs the plan and
 * the reference; compares O and LSE.  Returns the reference's count of
 * fully masked rows, after checking that those rows are O = 0 and
 * LSE = -inf in the interpreter's output too. */
static long check_attention(fixture *fx, attn_case c)
{
    bool grouped = plan_find_dim(fx->p, "Hkv") >= 0;
    set_dim(fx, "B", c.B);
    set_dim(fx, grouped ? "Hq" : "H", c.Hq);
    if (grouped)
        set_dim(fx, "Hkv", c.Hkv);
    set_dim(fx, "M", c.M);
    set_dim(fx, "N", c.N);
    set_dim(fx, "D", c.D);
    long *lens[16] = {0};
    if (c.lens) {
        lens[plan_find_dim(fx->p, "N")] = (long *)c.lens;
        fx->b.lens = lens;
    }
    const double *Q = random_input(fx, "Q", 2.0);
    const double *K = random_input(fx, "K", 2.0);
    const double *V = random_input(fx, "V", 1.0);
    size_t no, nl;
    double *O = output(fx, "O", &no);
    double *L = output(fx, "LSE", &nl);
    assert_int_equal(no, (size_t)(c.B * c.Hq * c.M * c.D));
    assert_int_equal(nl, (size_t)(c.B * c.Hq * c.M));
    run_ok(fx);

    double *Oref = malloc(no * sizeof(double)), *Lref = malloc(nl * sizeof(double));
    assert_true(Oref && Lref);
    long masked = attention_ref(&c, Q, K, V, Oref, Lref);
    fx->b.lens = NULL;
    compare("O", O, Oref, no);
    compare("LSE", L, Lref, nl);
    long masked_seen = 0;
    for (size_t r = 0; r < nl; r++) {
        if (L[r] != -INFINITY)
            continue;
        masked_seen++;
        for (long d = 0; d < c.D; d++)
            assert_true(O[r * (size_t)c.D + (size_t)d] == 0.0);
    }
    assert_int_equal(masked_seen, masked);
    free(Oref);
    free(Lref);
    return masked;
}

/* ------------------------------------------------------------------ */
/* Attention plans                                                     */
/* ------------------------------------------------------------------ */

static void test_global_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "global");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 7, .N = 13, .D = 5, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_causal_attention_with_fewer_queries_than_keys(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "causal");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 7, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

/* Bottom-right alignment: with M = 13 > N = 7 the first M - N = 6 queries
 * of every (b, h) see no key. */
static void test_causal_attention_with_more_queries_than_keys_masks_rows(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "causal");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 13, .N = 7, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 2 * 3 * 6);
}

static void test_gqa_attention_with_four_query_heads_per_kv_head(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "gqa");
    attn_case c = {.B = 2, .Hq = 8, .Hkv = 2, .M = 13, .N = 7, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 2 * 8 * 6);
    /* K is stored over [B, Hkv, N, D], not over the query heads */
    assert_int_equal(interp_tensor_size(fx->p, plan_find_tensor(fx->p, "K"), fx->dims),
                     2 * 2 * 7 * 5);
}

static void test_alibi_attention_with_default_slopes(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "alibi");
    double slopes[4];
    for (int h = 0; h < 4; h++)
        slopes[h] = pow(2.0, -8.0 * (h + 1) / 4.0);
    attn_case c = {.B = 2, .Hq = 4, .Hkv = 4, .M = 7, .N = 13, .D = 5, .causal = true,
                   .slopes = slopes, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_alibi_attention_with_given_slopes_and_scale(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "alibi");
    static const double given[3] = {0.75, -0.5, 1.25};
    int pi = plan_find_param(fx->p, "slope");
    assert_true(pi >= 0);
    fx->pvec[pi] = malloc(sizeof given);
    memcpy(fx->pvec[pi], given, sizeof given);
    set_param(fx, "scale", 0.3);
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 13, .N = 7, .D = 5, .causal = true,
                   .slopes = given, .scale = 0.3};
    assert_int_equal(check_attention(fx, c), 2 * 3 * 6);
}

static void test_softcap_attention_with_default_cap(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softcap");
    attn_case c = {.B = 2, .Hq = 8, .Hkv = 2, .M = 7, .N = 13, .D = 5, .causal = true,
                   .cap = 50, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

/* A small cap makes the tanh matter: scores here reach about 8. */
static void test_softcap_attention_with_small_cap(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softcap");
    set_param(fx, "cap", 1.5);
    set_param(fx, "scale", 1.0);
    attn_case c = {.B = 2, .Hq = 4, .Hkv = 1, .M = 13, .N = 7, .D = 5, .causal = true,
                   .cap = 1.5, .scale = 1.0};
    assert_int_equal(check_attention(fx, c), 2 * 4 * 6);
}

static void test_window_attention_with_default_window(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "window");
    attn_case c = {.B = 2, .Hq = 4, .Hkv = 2, .M = 7, .N = 13, .D = 5, .causal = true,
                   .window = 4096, .cap = 50, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_window_attention_with_window_of_three_keys(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "window");
    set_param(fx, "W", 3);
    set_param(fx, "cap", 2.0);
    attn_case c = {.B = 2, .Hq = 8, .Hkv = 2, .M = 13, .N = 7, .D = 5, .causal = true,
                   .window = 3, .cap = 2.0, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 2 * 8 * 6);
}

/* The split (decode) plans state the same computation as the rolling ones. */
static void test_causal_decode_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "causal_decode");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 3, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_gqa_decode_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "gqa_decode");
    attn_case c = {.B = 2, .Hq = 8, .Hkv = 2, .M = 1, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_alibi_decode_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "alibi_decode");
    double slopes[3];
    for (int h = 0; h < 3; h++)
        slopes[h] = pow(2.0, -8.0 * (h + 1) / 3.0);
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 9, .N = 7, .D = 5, .causal = true,
                   .slopes = slopes, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 2 * 3 * 2);
}

static void test_softcap_decode_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softcap_decode");
    set_param(fx, "cap", 3.0);
    attn_case c = {.B = 2, .Hq = 4, .Hkv = 1, .M = 2, .N = 13, .D = 5, .causal = true,
                   .cap = 3.0, .scale = 1 / sqrt(5.0)};
    assert_int_equal(check_attention(fx, c), 0);
}

/* Per-sequence key lengths (dim N[b]): sequences of 0, 1, 5 and all 13
 * keys, several queries each (bottom-right aligned to their own length),
 * against the hand-written reference given the same lengths. */
static void test_decode_plans_with_per_sequence_lengths(void **state)
{
    fixture *fx = *state;
    static const long lens[4] = {5, 0, 13, 1};
    load_plan(fx, "gqa_decode");
    attn_case c = {.B = 4, .Hq = 4, .Hkv = 2, .M = 3, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0), .lens = lens};
    /* no key at all: 4 heads x 3 rows; one key: the first 2 rows see none */
    assert_int_equal(check_attention(fx, c), 4 * 3 + 4 * 2);
}

static void test_alibi_decode_with_per_sequence_lengths(void **state)
{
    fixture *fx = *state;
    static const long lens[4] = {13, 1, 0, 7};
    load_plan(fx, "alibi_decode");
    double slopes[2];
    for (int h = 0; h < 2; h++)
        slopes[h] = pow(2.0, -8.0 * (h + 1) / 2.0); /* the plan's default */
    attn_case c = {.B = 4, .Hq = 2, .Hkv = 2, .M = 2, .N = 13, .D = 5, .causal = true,
                   .slopes = slopes, .scale = 1 / sqrt(5.0), .lens = lens};
    assert_int_equal(check_attention(fx, c), 2 * 1 + 2 * 2);
}

static void test_per_sequence_lengths_are_checked(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "causal_decode");
    set_dim(fx, "B", 2);
    set_dim(fx, "H", 1);
    set_dim(fx, "M", 1);
    set_dim(fx, "N", 4);
    set_dim(fx, "D", 2);
    random_input(fx, "Q", 1.0);
    random_input(fx, "K", 1.0);
    random_input(fx, "V", 1.0);
    output(fx, "O", NULL);
    output(fx, "LSE", NULL);
    long bad[2] = {4, 5};
    long *lens[16] = {0};
    lens[plan_find_dim(fx->p, "N")] = bad;
    fx->b.lens = lens;
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    fx->b.lens = NULL;
    assert_non_null(strstr(diag_text(fx), "length 5 of 'N' (index 1 of 'b') is outside 0..4"));
}

/* Issue 13's language: an i32 input read at the key axis in one place and
 * at the query axis in another (packed documents), and a gather through a
 * clamped index over two axes (a relative-position bias table), each
 * against the hand-written attention above. */
static void test_document_mask_reads_one_input_at_two_axes(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "docmask");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 7, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0)};
    set_dim(fx, "B", c.B);
    set_dim(fx, "N", c.N);
    int t = plan_find_tensor(fx->p, "seg");
    assert_true(t >= 0 && fx->p->tensors[t].dtype == DT_INT);
    size_t n = interp_tensor_size(fx->p, t, fx->dims);
    assert_int_equal(n, (size_t)(c.B * c.N));
    double *seg = fx->in[t] = malloc(n * sizeof(double));
    assert_non_null(seg);
    /* three packed documents per sequence, of odd lengths */
    for (size_t i = 0; i < n; i++)
        seg[i] = (double)((i % (size_t)c.N) < 4 ? 0 : (i % (size_t)c.N) < 9 ? 1 : 2);
    c.seg = seg;
    assert_int_equal(check_attention(fx, c), 0);
    /* ids in any order: a query sees the earlier keys of its own id only */
    for (size_t i = 0; i < n; i++)
        seg[i] = (double)(uniform(fx) < 0.5 ? 7 : -3);
    assert_int_equal(check_attention(fx, c), 0);
}

static void test_document_mask_refuses_more_queries_than_keys(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "docmask");
    set_dim(fx, "B", 1);
    set_dim(fx, "H", 1);
    set_dim(fx, "M", 5);
    set_dim(fx, "N", 3);
    set_dim(fx, "D", 2);
    random_input(fx, "Q", 1.0);
    random_input(fx, "K", 1.0);
    random_input(fx, "V", 1.0);
    random_input(fx, "seg", 1.0);
    size_t no, nl;
    output(fx, "O", &no);
    output(fx, "LSE", &nl);
    /* seg[b, m + N - M] at m = 0 is seg[b, -2]: never read */
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_non_null(strstr(diag_text(fx), "seg"));
}

static void test_relative_bias_table_through_a_clamped_index(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "relbias");
    attn_case c = {.B = 2, .Hq = 3, .Hkv = 3, .M = 7, .N = 13, .D = 5, .causal = true,
                   .scale = 1 / sqrt(5.0), .R = 4};
    set_dim(fx, "R", c.R);
    set_dim(fx, "H", c.Hq);
    c.table = random_input(fx, "table", 3.0);
    assert_int_equal(check_attention(fx, c), 0);
    /* a table longer than every distance: the clamp never bites */
    c.R = 40;
    set_dim(fx, "R", c.R);
    c.table = random_input(fx, "table", 3.0);
    assert_int_equal(check_attention(fx, c), 0);
}

/* Sigmoid attention: no softmax, so O = sum over visible keys of
 * sigmoid(q.k * scale + bias) v, bias -log(N) by default. */
static void test_sigmoid_attention_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "sigmoid");
    const long B = 2, H = 3, M = 7, N = 13, D = 5;
    set_dim(fx, "B", B);
    set_dim(fx, "H", H);
    set_dim(fx, "M", M);
    set_dim(fx, "N", N);
    set_dim(fx, "D", D);
    const double *Q = random_input(fx, "Q", 2.0);
    const double *K = random_input(fx, "K", 2.0);
    const double *V = random_input(fx, "V", 1.0);
    size_t no;
    double *O = output(fx, "O", &no);
    run_ok(fx);
    double *ref = calloc(no, sizeof(double));
    assert_non_null(ref);
    for (long b = 0; b < B; b++)
        for (long h = 0; h < H; h++)
            for (long m = 0; m < M; m++)
                for (long n = 0; n <= m + N - M && n < N; n++) {
                    double dot = 0;
                    for (long d = 0; d < D; d++)
                        dot += Q[((b * H + h) * M + m) * D + d] * K[((b * H + h) * N + n) * D + d];
                    double w = 1 / (1 + exp(-(dot / sqrt((double)D) - log((double)N))));
                    for (long d = 0; d < D; d++)
                        ref[((b * H + h) * M + m) * D + d] += w * V[((b * H + h) * N + n) * D + d];
                }
    compare("O", O, ref, no);
    free(ref);
}

/* ------------------------------------------------------------------ */
/* Row reductions                                                      */
/* ------------------------------------------------------------------ */

enum { R = 7, C = 13 };

/* log(sum_c exp(x[c])) for one row, by a shift by the row's first element
 * (not its maximum, as the plans do). */
static double row_logsumexp(const double *x)
{
    double shift = x[0], total = 0;
    for (int c = 0; c < C; c++)
        total += exp(x[c] - shift);
    return shift + log(total);
}

static const double *bind_rows(fixture *fx, double amp)
{
    set_dim(fx, "R", R);
    set_dim(fx, "C", C);
    return random_input(fx, "X", amp);
}

static void test_softmax_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softmax");
    const double *X = bind_rows(fx, 6.0);
    size_t n;
    double *Y = output(fx, "Y", &n);
    assert_int_equal(n, R * C);
    run_ok(fx);
    double want[R * C];
    for (int r = 0; r < R; r++) {
        double lse = row_logsumexp(X + r * C);
        for (int c = 0; c < C; c++)
            want[r * C + c] = exp(X[r * C + c] - lse);
    }
    compare("Y", Y, want, n);
}

static void test_logsoftmax_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "logsoftmax");
    const double *X = bind_rows(fx, 6.0);
    size_t n;
    double *Y = output(fx, "Y", &n);
    run_ok(fx);
    double want[R * C];
    for (int r = 0; r < R; r++) {
        double lse = row_logsumexp(X + r * C);
        for (int c = 0; c < C; c++)
            want[r * C + c] = X[r * C + c] - lse;
    }
    compare("Y", Y, want, n);
}

static void test_logsumexp_matches_reference(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "logsumexp");
    const double *X = bind_rows(fx, 6.0);
    size_t n;
    double *L = output(fx, "LSE", &n);
    assert_int_equal(n, R);
    run_ok(fx);
    double want[R];
    for (int r = 0; r < R; r++)
        want[r] = row_logsumexp(X + r * C);
    compare("LSE", L, want, n);
}

/* Large inputs: exp(x) overflows without the max shift; the plan's shift
 * keeps it finite, and so must the interpreter. */
static void test_logsumexp_of_large_values_is_finite(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "logsumexp");
    double *X = (double *)bind_rows(fx, 1.0);
    for (int i = 0; i < R * C; i++)
        X[i] += 1000.0;
    size_t n;
    double *L = output(fx, "LSE", &n);
    run_ok(fx);
    double want[R];
    for (int r = 0; r < R; r++)
        want[r] = row_logsumexp(X + r * C);
    compare("LSE", L, want, n);
}

/* ------------------------------------------------------------------ */
/* Masked rows, integer arithmetic                                     */
/* ------------------------------------------------------------------ */

static const char *masked_plan =
    "plan masked\n"
    "dim R, C\n"
    "axis r: R, c: C\n"
    "param k: int = 3\n"
    "input X[r, c]: f32\n"
    "T[r, c] = where(c < r - k, X, -inf)\n"
    "Mx[r] = max(c: T)\n"
    "Mn[r] = min(c: -T)\n"
    "E[r, c] = exp(T - Mx)\n"
    "L[r] = sum(c: E)\n"
    "Y[r, c] = E / (2 * L)\n"
    "Z[r] = Mx + Mn\n"
    "output Mx: f32, Mn: f32, Y: f32, Z: f32\n";

/* Rows r <= k see no column: max stays -inf and min +inf as outputs, read
 * as 0 elsewhere (Z = 0), and E / (2 * L) is 0 rather than 0/0. */
static void test_masked_rows_follow_the_language_rules(void **state)
{
    fixture *fx = *state;
    load_text(fx, masked_plan);
    set_dim(fx, "R", 6);
    set_dim(fx, "C", 5);
    const double *X = random_input(fx, "X", 3.0);
    size_t n;
    double *Mx = output(fx, "Mx", NULL), *Mn = output(fx, "Mn", NULL);
    double *Y = output(fx, "Y", &n), *Z = output(fx, "Z", NULL);
    assert_int_equal(n, 30);
    run_ok(fx);
    for (int r = 0; r < 6; r++) {
        int visible = r - 3 > 0 ? (r - 3 < 5 ? r - 3 : 5) : 0;
        if (visible == 0) {
            assert_true(Mx[r] == -INFINITY);
            assert_true(Mn[r] == INFINITY);
            assert_true(Z[r] == 0.0);
            for (int c = 0; c < 5; c++)
                assert_true(Y[r * 5 + c] == 0.0);
            continue;
        }
        double top = -INFINITY, total = 0;
        for (int c = 0; c < visible; c++)
            top = fmax(top, X[r * 5 + c]);
        for (int c = 0; c < visible; c++)
            total += exp(X[r * 5 + c] - top);
        double want_mx = top;
        compare("Mx", &Mx[r], &want_mx, 1);
        double want_mn = -top;
        compare("Mn", &Mn[r], &want_mn, 1);
        assert_true(Z[r] == 0.0); /* max(x) + min(-x) */
        for (int c = 0; c < 5; c++) {
            double want = c < visible ? exp(X[r * 5 + c] - top) / (2 * total) : 0.0;
            compare("Y", &Y[r * 5 + c], &want, 1);
        }
    }
}

/* A zero denominator that is not made of reductions is an ordinary
 * division: 1 / 0 = inf. */
static void test_division_by_zero_elementwise_is_not_masked(void **state)
{
    fixture *fx = *state;
    load_text(fx, "plan divz\n"
                  "dim R\n"
                  "axis r: R\n"
                  "input X[r]: f32\n"
                  "Y[r] = 1 / X\n"
                  "output Y: f32\n");
    set_dim(fx, "R", 2);
    double *X = random_input(fx, "X", 1.0);
    X[0] = 0.0;
    X[1] = 4.0;
    double *Y = output(fx, "Y", NULL);
    run_ok(fx);
    assert_true(Y[0] == INFINITY);
    assert_true(Y[1] == 0.25);
}

/* Int division truncates toward zero, as in C: (r - 5) / 2 at r = 0 is -2,
 * not -3; a float operand makes it a real division. */
static void test_int_division_truncates(void **state)
{
    fixture *fx = *state;
    load_text(fx, "plan intdiv\n"
                  "dim R\n"
                  "axis r: R\n"
                  "param two: int = 2\n"
                  "Y[r] = (r - 5) / two\n"
                  "Z[r] = (r - 5) / 2.0\n"
                  "output Y: f32, Z: f32\n");
    set_dim(fx, "R", 9);
    double *Y = output(fx, "Y", NULL), *Z = output(fx, "Z", NULL);
    run_ok(fx);
    static const double want_y[9] = {-2, -2, -1, -1, 0, 0, 0, 1, 1};
    for (int r = 0; r < 9; r++) {
        assert_true(Y[r] == want_y[r]);
        assert_true(Z[r] == (r - 5) / 2.0);
    }
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static void test_refuses_intermediates_over_two_gib(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "global");
    set_dim(fx, "B", 16);
    set_dim(fx, "H", 32);
    set_dim(fx, "M", 1024);
    set_dim(fx, "N", 1024);
    set_dim(fx, "D", 64);
    /* the inputs are never read: the size check comes first */
    for (int t = 0; t < fx->p->ntensors; t++)
        if (fx->p->tensors[t].kind == TENSOR_INPUT)
            fx->in[t] = malloc(sizeof(double));
    output(fx, "LSE", NULL);
    int o = plan_find_tensor(fx->p, "O");
    fx->out[o] = malloc(sizeof(double));
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_int_equal(fx->d.errors, 1);
    assert_non_null(strstr(diag_text(fx), "error: reference interpreter: the intermediates "
                                          "of plan 'global' need more than 2147483648 bytes"));
}

static void test_reports_missing_input(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softmax");
    set_dim(fx, "R", 3);
    set_dim(fx, "C", 4);
    output(fx, "Y", NULL);
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    const char *msg = diag_text(fx);
    assert_non_null(strstr(msg, "softmax.fp:8:7: error: reference interpreter: no data bound "
                                "for input 'X'"));
}

static void test_reports_missing_param_value(void **state)
{
    fixture *fx = *state;
    load_text(fx, "plan noval\n"
                  "dim R\n"
                  "axis r: R\n"
                  "param w[r]: f32\n"
                  "Y[r] = w\n"
                  "output Y: f32\n");
    set_dim(fx, "R", 3);
    double *Y = output(fx, "Y", NULL);
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_non_null(strstr(diag_text(fx), "inline.fp:4:7: error: reference interpreter: no "
                                          "values given for parameter 'w'"));
    /* once given, it is read per index */
    static const double w[3] = {1.5, -2, 7};
    fx->pvec[plan_find_param(fx->p, "w")] = malloc(sizeof w);
    memcpy(fx->pvec[plan_find_param(fx->p, "w")], w, sizeof w);
    fx->d.errors = 0;
    run_ok(fx);
    for (int r = 0; r < 3; r++)
        assert_true(Y[r] == w[r]);
}

static void test_reports_non_integral_int_param_and_negative_dim(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "window");
    set_dim(fx, "B", 1);
    set_dim(fx, "Hq", 2);
    set_dim(fx, "Hkv", 1);
    set_dim(fx, "M", 2);
    set_dim(fx, "N", 2);
    set_dim(fx, "D", 2);
    random_input(fx, "Q", 1);
    random_input(fx, "K", 1);
    random_input(fx, "V", 1);
    output(fx, "O", NULL);
    output(fx, "LSE", NULL);
    set_param(fx, "W", 2.5);
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_non_null(strstr(diag_text(fx), "window.fp:9:7: error: reference interpreter: int "
                                          "parameter 'W' given a non-integral value 2.5"));
    set_param(fx, "W", 2);
    set_dim(fx, "M", -4);
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_non_null(
        strstr(diag_text(fx), "error: reference interpreter: dim 'M' is negative (-4)"));
    assert_int_equal(fx->d.errors, 2);
}

/* Hq = 8, Hkv = 3: G = 2 and h / G reaches 3, past K's stored extent. */
static void test_reports_index_outside_stored_extent(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "gqa");
    set_dim(fx, "B", 1);
    set_dim(fx, "Hq", 8);
    set_dim(fx, "Hkv", 3);
    set_dim(fx, "M", 2);
    set_dim(fx, "N", 2);
    set_dim(fx, "D", 2);
    random_input(fx, "Q", 1);
    random_input(fx, "K", 1);
    random_input(fx, "V", 1);
    output(fx, "O", NULL);
    output(fx, "LSE", NULL);
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_int_equal(fx->d.errors, 1);
    assert_non_null(strstr(diag_text(fx), "error: reference interpreter: index 2 of 'K' is "
                                          "3, outside its extent 3"));
}

static void test_tensor_sizes_follow_axes_and_stored_extents(void **state)
{
    fixture *fx = *state;
    load_plan(fx, "softcap");
    set_dim(fx, "B", 2);
    set_dim(fx, "Hq", 8);
    set_dim(fx, "Hkv", 2);
    set_dim(fx, "M", 7);
    set_dim(fx, "N", 13);
    set_dim(fx, "D", 5);
    const fg_plan *p = fx->p;
    assert_int_equal(interp_tensor_size(p, plan_find_tensor(p, "Q"), fx->dims), 2 * 8 * 7 * 5);
    assert_int_equal(interp_tensor_size(p, plan_find_tensor(p, "V"), fx->dims), 2 * 2 * 13 * 5);
    assert_int_equal(interp_tensor_size(p, plan_find_tensor(p, "S"), fx->dims), 2 * 8 * 7 * 13);
    assert_int_equal(interp_tensor_size(p, plan_find_tensor(p, "LSE"), fx->dims), 2 * 8 * 7);
    assert_int_equal(interp_tensor_size(p, -1, fx->dims), 0);
    set_dim(fx, "N", -1);
    assert_true(interp_tensor_size(p, plan_find_tensor(p, "S"), fx->dims) == SIZE_MAX);
}

/* Every bundled plan parses, checks and runs at odd sizes without a NaN
 * in any output (masked rows included: M > N). */
static void test_every_bundled_plan_runs_without_nan(void **state)
{
    (void)state;
    static const char *const plans[] = {
        "global", "causal", "causal_decode", "gqa", "gqa_decode", "alibi", "alibi_decode",
        "softcap", "softcap_decode", "window", "softmax", "logsoftmax", "logsumexp",
    };
    static const struct {
        const char *name;
        long v;
    } dims[] = {{"B", 2}, {"H", 3}, {"Hq", 4}, {"Hkv", 2}, {"M", 11}, {"N", 7},
                {"D", 5}, {"R", 7}, {"C", 13}};
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        void *st;
        setup(&st);
        fixture *fx = st;
        load_plan(fx, plans[i]);
        for (int d = 0; d < fx->p->ndims; d++) {
            fx->dims[d] = -1;
            for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++)
                if (strcmp(dims[k].name, fx->p->dims[d].name) == 0)
                    fx->dims[d] = dims[k].v;
            if (fx->dims[d] < 0)
                fail_msg("%s: no test extent for dim %s", plans[i], fx->p->dims[d].name);
        }
        int nout = 0;
        for (int t = 0; t < fx->p->ntensors; t++) {
            const fg_ir_tensor *ts = &fx->p->tensors[t];
            if (ts->kind == TENSOR_INPUT)
                random_input(fx, ts->name, 2.0);
            else if (ts->is_output && ++nout)
                output(fx, ts->name, NULL);
        }
        assert_true(nout > 0);
        run_ok(fx);
        for (int t = 0; t < fx->p->ntensors; t++) {
            if (!fx->out[t])
                continue;
            size_t n = interp_tensor_size(fx->p, t, fx->dims);
            for (size_t k = 0; k < n; k++)
                if (isnan(fx->out[t][k]))
                    fail_msg("%s: output %s[%zu] is NaN", plans[i], fx->p->tensors[t].name, k);
        }
        teardown(&st);
    }
}

static void test_refuses_an_unchecked_plan(void **state)
{
    fixture *fx = *state;
    source_from_string(fx->src, "raw.fp", "plan raw\ndim R\naxis r: R\nY[r] = r\noutput Y: f32\n");
    diag_init(&fx->d, fx->src, fx->diag_out);
    assert_int_equal(parse_plan(fx->a, fx->src, &fx->d, &fx->p), 0);
    fx->dims[0] = 3;
    assert_int_equal(interp_run(fx->p, &fx->b, &fx->d), -1);
    assert_non_null(strstr(diag_text(fx), "reference interpreter: plan has not been checked"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_global_attention_matches_reference),
        T(test_causal_attention_with_fewer_queries_than_keys),
        T(test_causal_attention_with_more_queries_than_keys_masks_rows),
        T(test_gqa_attention_with_four_query_heads_per_kv_head),
        T(test_alibi_attention_with_default_slopes),
        T(test_alibi_attention_with_given_slopes_and_scale),
        T(test_softcap_attention_with_default_cap),
        T(test_softcap_attention_with_small_cap),
        T(test_window_attention_with_default_window),
        T(test_window_attention_with_window_of_three_keys),
        T(test_causal_decode_attention_matches_reference),
        T(test_gqa_decode_attention_matches_reference),
        T(test_alibi_decode_attention_matches_reference),
        T(test_softcap_decode_attention_matches_reference),
        T(test_decode_plans_with_per_sequence_lengths),
        T(test_alibi_decode_with_per_sequence_lengths),
        T(test_document_mask_reads_one_input_at_two_axes),
        T(test_document_mask_refuses_more_queries_than_keys),
        T(test_relative_bias_table_through_a_clamped_index),
        T(test_sigmoid_attention_matches_reference),
        T(test_per_sequence_lengths_are_checked),
        T(test_softmax_matches_reference),
        T(test_logsoftmax_matches_reference),
        T(test_logsumexp_matches_reference),
        T(test_logsumexp_of_large_values_is_finite),
        T(test_masked_rows_follow_the_language_rules),
        T(test_division_by_zero_elementwise_is_not_masked),
        T(test_int_division_truncates),
        T(test_refuses_intermediates_over_two_gib),
        T(test_reports_missing_input),
        T(test_reports_missing_param_value),
        T(test_reports_non_integral_int_param_and_negative_dim),
        T(test_reports_index_outside_stored_extent),
        T(test_tensor_sizes_follow_axes_and_stored_extents),
        cmocka_unit_test(test_every_bundled_plan_runs_without_nan),
        T(test_refuses_an_unchecked_plan),
    };
    return cmocka_run_group_tests_name("interp", tests, NULL, NULL);
}
