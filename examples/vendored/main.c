/* main.c - a program of a project that vendors fusegen (see Makefile): it
 * calls two vendored CPU entries, fg_softmax_cpu and fg_logsumexp_cpu, on
 * random rows and checks them against naive double-precision loops; exits
 * 1 on a mismatch. */
#include <math.h>
#include <stdio.h>

#include "fusegen_logsumexp.h"
#include "fusegen_softmax.h"

enum { ROWS = 5, COLS = 777 };

static float x[ROWS][COLS], y[ROWS][COLS], lse[ROWS];

int main(void)
{
    unsigned long long s = 2024;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x[r][c] = (float)((double)(s >> 11) / 9007199254740992.0 * 16.0 - 8.0);
        }
    const int64_t mat[2] = {ROWS, COLS}, rows[1] = {ROWS};
    fg_softmax_args sa = {0};
    sa.X = fg_tensor_dense(x, FG_F32, 2, mat);
    sa.Y = fg_tensor_dense(y, FG_F32, 2, mat);
    fg_logsumexp_args la = {0};
    la.X = sa.X;
    la.LSE = fg_tensor_dense(lse, FG_F32, 1, rows);
    if (fg_softmax_cpu(&sa) != FG_OK || fg_logsumexp_cpu(&la) != FG_OK) {
        fprintf(stderr, "vendored: %s\n", fg_last_error());
        return 1;
    }
    for (int r = 0; r < ROWS; r++) {
        double mx = -INFINITY, l = 0;
        for (int c = 0; c < COLS; c++)
            mx = x[r][c] > mx ? x[r][c] : mx;
        for (int c = 0; c < COLS; c++)
            l += exp(x[r][c] - mx);
        double want = mx + log(l);
        if (!(fabs(lse[r] - want) <= 1e-5 * fabs(want) + 1e-6)) {
            fprintf(stderr, "vendored: LSE[%d] is %.7g, the naive loop %.7g\n", r, (double)lse[r],
                    want);
            return 1;
        }
        for (int c = 0; c < COLS; c++) {
            double p = exp(x[r][c] - mx) / l;
            if (!(fabs(y[r][c] - p) <= 1e-5 * p + 1e-9)) {
                fprintf(stderr, "vendored: Y[%d][%d] is %.7g, the naive loop %.7g\n", r, c,
                        (double)y[r][c], p);
                return 1;
            }
        }
    }
    printf("vendored: softmax and logsumexp agree with the naive loops\n");
    return 0;
}
