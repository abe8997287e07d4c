// keylin_hooks_sim.cc - the key-linear score hooks of one generated CUDA
// source (a score qk * c + slope * an integer term linear in the key, as
// ALiBi), run on the host the way the sm_90a consumers use them: a thread
// computes its first row's term at its keys as fmaf(slope, step k, lin0) from
// one value a tile, its other rows take those values, and each row's max is
// moved by its own offset, slope * (E(i, 0) - E(ib, 0)), at the end.  With
// LINA (the default) the thread's accumulators start at those terms over the
// qk factor, fmaf(slope / qk factor, step k, lin0 / qk factor), the product
// adds qk to them and the factor multiplies the sum.  Both scores plus the
// offset must be plan_score at every row and key, on random
// sizes, heads, rows, tiles and qk; E must change by plan_keylin_step a key
// and its rows must differ by the same amount at every key.  Built and run
// by tests/cuda-hooks.sh, which extracts the hooks into hooks.h and the
// fields to fill into sim_aux.h (SIM_DIMS: the plan's dims, SIM_CONSTS: the
// constants hoisted per launch; plan_head_setup then sets the per-head ones
// as the kernels do).
#include <cstdio>
#include <cstdlib>

#include "sim_device.h"

#include "hooks.h"
#include "sim_aux.h"

int main()
{
    srand(4242);
    long bad = 0, checked = 0;
    double worst = 0;
    for (int it = 0; it < 300; it++) {
        plan_params p;
        memset(&p, 0, sizeof p);
#define SIM_DIM(f) p.f = 1 + rand() % 64;
        SIM_DIMS(SIM_DIM)
        p.M = 1 + rand() % 40000;
        p.N = p.M + rand() % 3000;
        p.off = p.N - p.M;
        p.Hq = 1 + rand() % 64;
        p.Hkv = p.Hq;
#define SIM_CONST(f) p.f = (float)(rand() % 2000 + 1) / 1024.f;
        SIM_CONSTS(SIM_CONST)
        const int h = rand() % p.Hq;
        plan_head_setup(p, 0, h);
        const float qkc = plan_keylin_qk(p), lsl = plan_keylin_slope(p);
        const float lq = lsl / qkc;  // LINA
        for (int t = 0; t < 40; t++) {
            const int ib = rand() % p.M, jb = rand() % p.N;
            const float lin0 = lsl * (float)plan_keylin_int(ib, jb, p);
            const float l0 = lq * (float)plan_keylin_int(ib, jb, p);
            for (int r = 0; r < 4; r++) {
                const int i = ib + 8 * r;
                const int dE = plan_keylin_int(i, 0, p) - plan_keylin_int(ib, 0, p);
                const float off = lsl * (float)dE;
                for (int k = 0; k < 176; k += 1 + rand() % 7) {
                    const int j = jb + k;
                    const float qk = (float)(rand() % 4001 - 2000) / 64.f;
                    checked++;
                    if (plan_keylin_int(i, j, p) - plan_keylin_int(ib, j, p) != dE ||
                        plan_keylin_int(i, j, p) - plan_keylin_int(i, jb, p) != plan_keylin_step * k) {
                        if (bad++ < 5)
                            printf("row %d key %d: the integer term is not linear in the key (step %d)\n", i, j,
                                   plan_keylin_step);
                        continue;
                    }
                    const float x = fmaf(qk, qkc, fmaf(lsl, (float)(plan_keylin_step * k), lin0)) + off;
                    const float xa = (fmaf(lq, (float)(plan_keylin_step * k), l0) + qk) * qkc + off;
                    const float want = plan_score(qk, i, j, h, p);
                    // all are rounded float sums of the same terms: allow a
                    // few ulps of the largest term
                    const double big = fabs((double)qk * qkc) + fabs((double)lsl * plan_keylin_int(i, j, p)) +
                                       fabs((double)lin0) + fabs((double)off);
                    for (int form = 0; form < 2; form++) {
                        const float y = form ? xa : x;
                        const double err = fabs((double)y - want) / (big > 1 ? big : 1);
                        worst = err > worst ? err : worst;
                        if (!(err <= 4e-7) && bad++ < 5)  // NaN fails too
                            printf("M %d N %d h %d row %d (first %d) key %d qk %g: %s %.9g, plan_score %.9g\n", p.M,
                                   p.N, h, i, ib, j, qk, form ? "LINA" : "LIN", y, want);
                    }
                }
            }
        }
    }
    if (bad) {
        printf("FAIL: %ld of %ld scores differ\n", bad, checked);
        return 1;
    }
    printf("%ld scores of the shared key term (each in both forms) agree with plan_score (worst %.2g of the "
           "largest term)\n",
           checked, worst);
    return 0;
}
