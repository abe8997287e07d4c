/* causal_check.c - calls fg_causal_cpu (libfusegen_cpu.a) on random data
 * and checks O and LSE against a naive double-precision loop; exits 1 on a
 * mismatch.  Build it against an installed fusegen:
 *
 *     cc -std=c11 $(pkg-config --cflags fusegen-cpu) causal_check.c \
 *        $(pkg-config --libs fusegen-cpu) -o causal_check
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusegen_causal.h"

enum { B = 2, H = 3, M = 37, N = 53, D = 40 };

static double uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Bottom-right causal attention, one row at a time: query m sees key n
 * when n <= m + N - M; scale 1/sqrt(D). */
static void naive(const float *q, const float *k, const float *v, double *o, double *lse)
{
    double s[N];
    for (int bh = 0; bh < B * H; bh++)
        for (int m = 0; m < M; m++) {
            const float *qr = q + ((size_t)bh * M + m) * D;
            double mx = -INFINITY;
            for (int n = 0; n <= m + N - M; n++) {
                const float *kr = k + ((size_t)bh * N + n) * D;
                double dot = 0;
                for (int d = 0; d < D; d++)
                    dot += (double)qr[d] * kr[d];
                s[n] = dot / sqrt((double)D);
                mx = s[n] > mx ? s[n] : mx;
            }
            double l = 0, *orow = o + ((size_t)bh * M + m) * D;
            memset(orow, 0, sizeof(double) * D);
            for (int n = 0; n <= m + N - M; n++) {
                double p = exp(s[n] - mx);
                l += p;
                for (int d = 0; d < D; d++)
                    orow[d] += p * v[((size_t)bh * N + n) * D + d];
            }
            for (int d = 0; d < D; d++)
                orow[d] /= l;
            lse[(size_t)bh * M + m] = mx + log(l);
        }
}

static int compare(const char *what, const float *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= 1e-4 * (1.0 + fabs(want[i])))) {
            fprintf(stderr, "causal_check: %s[%zu] is %.7g, the naive loop gives %.7g\n", what, i,
                    (double)got[i], want[i]);
            return 1;
        }
    return 0;
}

int main(void)
{
    const size_t nq = (size_t)B * H * M * D, nk = (size_t)B * H * N * D, nl = (size_t)B * H * M;
    float *q = malloc(nq * sizeof *q), *k = malloc(nk * sizeof *k), *v = malloc(nk * sizeof *v);
    float *o = malloc(nq * sizeof *o), *o2 = malloc(nq * sizeof *o2), *lse = malloc(nl * sizeof *lse);
    double *ro = malloc(nq * sizeof *ro), *rl = malloc(nl * sizeof *rl);
    if (!q || !k || !v || !o || !o2 || !lse || !ro || !rl)
        return 2;
    unsigned long long seed = 14;
    for (size_t i = 0; i < nq; i++)
        q[i] = (float)uniform(&seed);
    for (size_t i = 0; i < nk; i++) {
        k[i] = (float)uniform(&seed);
        v[i] = (float)uniform(&seed);
    }

    fg_causal_args a;
    memset(&a, 0, sizeof a);
    a.Q = fg_tensor_dense(q, FG_F32, 4, (int64_t[]){B, H, M, D});
    a.K = fg_tensor_dense(k, FG_F32, 4, (int64_t[]){B, H, N, D});
    a.V = fg_tensor_dense(v, FG_F32, 4, (int64_t[]){B, H, N, D});
    a.O = fg_tensor_dense(o, FG_F32, 4, (int64_t[]){B, H, M, D});
    a.LSE = fg_tensor_dense(lse, FG_F32, 3, (int64_t[]){B, H, M});
    fg_status st = fg_causal_cpu(&a);
    if (st != FG_OK) {
        fprintf(stderr, "causal_check: fg_causal_cpu: %s\n", fg_last_error());
        return 1;
    }
    naive(q, k, v, ro, rl);
    int bad = compare("O", o, ro, nq) || compare("LSE", lse, rl, nl);

    /* LSE with NULL data is not computed; O is the same */
    a.O.data = o2;
    a.LSE.data = NULL;
    if ((st = fg_causal_cpu(&a)) != FG_OK) {
        fprintf(stderr, "causal_check: fg_causal_cpu without LSE: %s\n", fg_last_error());
        bad = 1;
    } else if (memcmp(o, o2, nq * sizeof *o) != 0) {
        fprintf(stderr, "causal_check: O differs when LSE is not computed\n");
        bad = 1;
    }
    if (!bad)
        printf("causal_check: fg_causal_cpu agrees with the naive loop (B %d, H %d, M %d, N %d, D %d)\n",
               B, H, M, N, D);
    free(q), free(k), free(v), free(o), free(o2), free(lse), free(ro), free(rl);
    return bad;
}
