/* param_vectors_main.c - drives fg_param_vectors_cpu (generated from
 * tests/vectors/param_vectors.fp by tests/param-vectors.sh, compiled with
 * malloc and free renamed to the counting pair below): every return,
 * early errors included, frees every buffer the entry took (the leak of
 * commit a4c9e53: the default-filled buffer of an earlier param vector on
 * a NULL required vector or a failed allocation); and O agrees with a
 * naive double loop, with the defaults and with the caller's vectors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusegen_param_vectors.h"

static long live, calls, fail_at; /* fail_at: the allocation that fails (1-based), 0 none */

void *fg_test_malloc(size_t n);
void fg_test_free(void *p);

void *fg_test_malloc(size_t n)
{
    if (++calls == fail_at)
        return NULL;
    void *p = malloc(n);
    if (p)
        live++;
    return p;
}

void fg_test_free(void *p)
{
    if (p)
        live--;
    free(p);
}

enum { B = 1, H = 3, M = 5, N = 21, D = 8 };
static float q[B * H * M * D], k[B * H * N * D], v[B * H * N * D], o[B * H * M * D];

static fg_param_vectors_args args(const float *bias, const float *gain, const float *shift)
{
    fg_param_vectors_args a;
    memset(&a, 0, sizeof a);
    a.Q = fg_tensor_dense(q, FG_F32, 4, (int64_t[]){B, H, M, D});
    a.K = fg_tensor_dense(k, FG_F32, 4, (int64_t[]){B, H, N, D});
    a.V = fg_tensor_dense(v, FG_F32, 4, (int64_t[]){B, H, N, D});
    a.O = fg_tensor_dense(o, FG_F32, 4, (int64_t[]){B, H, M, D});
    a.bias = bias;
    a.gain = gain;
    a.shift = shift;
    return a;
}

static int failures;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, "param-vectors: FAIL: " __VA_ARGS__);       \
            fprintf(stderr, "\n");                                      \
            failures++;                                                 \
        }                                                               \
    } while (0)

/* O against S = gain * Q.K + bias + shift, softmax over n, times V. */
static void check_o(const float *bias, const float *gain, const float *shift, const char *what)
{
    for (int h = 0; h < H; h++)
        for (int m = 0; m < M; m++) {
            double s[N], mx = -INFINITY, l = 0;
            for (int n = 0; n < N; n++) {
                double dot = 0;
                for (int d = 0; d < D; d++)
                    dot += (double)q[(h * M + m) * D + d] * k[(h * N + n) * D + d];
                s[n] = gain[h] * dot + bias[h] + shift[h];
                mx = fmax(mx, s[n]);
            }
            for (int n = 0; n < N; n++)
                l += exp(s[n] - mx);
            for (int d = 0; d < D; d++) {
                double want = 0;
                for (int n = 0; n < N; n++)
                    want += exp(s[n] - mx) / l * v[(h * N + n) * D + d];
                float got = o[(h * M + m) * D + d];
                CHECK(fabs(got - want) <= 1e-5 * (1 + fabs(want)),
                      "%s: O[0][%d][%d][%d] is %.7g, the naive loop %.7g", what, h, m, d,
                      (double)got, want);
            }
        }
}

int main(void)
{
    unsigned long long s = 5;
    float *all[3] = {q, k, v};
    size_t len[3] = {sizeof q / 4, sizeof k / 4, sizeof v / 4};
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < len[t]; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            all[t][i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        }
    const float gain[H] = {0.5f, 1.0f, -0.75f}, bias[H] = {1.0f, -2.0f, 0.5f},
                shift[H] = {0.25f, 0.0f, -1.0f};
    const float bias_default[H] = {0.0f, 0.25f, 0.5f}, shift_default[H] = {0.5f, 0.375f, 0.25f};
    fg_param_vectors_args a;

    /* gain missing, after bias's default buffer was made: refused, freed */
    a = args(NULL, NULL, NULL);
    fg_status st = fg_param_vectors_cpu(&a);
    CHECK(st == FG_ERR_NULL && strstr(fg_last_error(), "gain"), "NULL gain: %s", fg_last_error());
    CHECK(live == 0, "NULL gain: %ld buffers left allocated", live);
    live = 0;

    /* the defaults, and the caller's vectors, against the naive loop */
    a = args(NULL, gain, NULL);
    st = fg_param_vectors_cpu(&a);
    CHECK(st == FG_OK, "defaults: %s", fg_last_error());
    check_o(bias_default, gain, shift_default, "defaults");
    CHECK(live == 0, "defaults: %ld buffers left allocated", live);
    live = 0;
    a = args(bias, gain, shift);
    st = fg_param_vectors_cpu(&a);
    CHECK(st == FG_OK, "given: %s", fg_last_error());
    check_o(bias, gain, shift, "given");

    /* every allocation of the call failing in turn (shift's buffer after
     * bias's, then the tile buffers): FG_ERR_NOMEM, nothing left */
    a = args(NULL, gain, NULL);
    long total;
    calls = 0;
    fail_at = 0;
    fg_param_vectors_cpu(&a);
    total = calls;
    CHECK(total >= 3, "only %ld allocations in a call", total);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        st = fg_param_vectors_cpu(&a);
        CHECK(st == FG_ERR_NOMEM, "allocation %ld of %ld failing: status %d (%s)", fail_at, total,
              (int)st, fg_last_error());
        CHECK(live == 0, "allocation %ld of %ld failing: %ld buffers left allocated", fail_at,
              total, live);
        live = 0;
    }
    if (failures)
        return 1;
    printf("param-vectors: every return frees what it took (%ld allocations failed in turn); O "
           "agrees with the naive loop\n", total);
    return 0;
}
