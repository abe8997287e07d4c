// diag_hooks_sim.cc - the score hooks of one generated CUDA source whose
// term past qk reads the row and the key only through their difference
// (plan_score_diag: relbias's table at a clamped distance), run on the host
// the way the sm_90a consumers use them on a tile where the term is not one
// value: a thread's elements, rows ib + 8 a (a = 0, 1) and keys
// jb + 8 nb + c (c = 0, 1), take the term of diagonal nb - a + 1, c, which
// the thread evaluates once, at its element in row ib (row ib + 8 for
// nb - a = -1).  At every element with a real row and key, that term must be
// plan_score_bias at the element itself, bit for bit, and
// fmaf(qk, plan_score_qk_scale, term) must be plan_score within a few ulps
// (the host may round qk * c and the sum apart), on random sizes (the last
// rows and keys of a launch among them), tables and heads.  Built and run by
// tests/cuda-hooks.sh, which extracts the hooks into hooks.h and the fields
// to fill into sim_aux.h (SIM_AUX: extra inputs, SIM_DIMS: the plan's other
// dims, SIM_CONSTS: the hoisted constants).  The indexing of dg below is a
// copy of templates/cuda/sm90/rolling.cuh's (DIAG), not the kernel's own: a
// slip there is caught by gpu_check on the GPU, not here.
#include <cstdio>
#include <cstdlib>

#include "sim_device.h"

#include "hooks.h"
#include "sim_aux.h"

static float sim_vals[1 << 14];

int main()
{
    srand(9191);
    for (unsigned i = 0; i < sizeof sim_vals / sizeof sim_vals[0]; i++)
        sim_vals[i] = (float)(rand() % 2001 - 1000) / 256.f;
    const int NB = 22;  // the widest tile a kernel takes: 176 keys
    long bad = 0, checked = 0, moved = 0;
    double worst = 0;
    for (int it = 0; it < 400; it++) {
        plan_params p;
        memset(&p, 0, sizeof p);
        p.M = 1 + rand() % 700;
        p.N = p.M + rand() % 300;
        p.off = p.N - p.M;
#define SIM_DIM(f) p.f = 1 + rand() % 80;
        SIM_DIMS(SIM_DIM)
        const float sc = 0.0625f * (1 + rand() % 4);
#define SIM_CONST(f) p.f = sc;
        SIM_CONSTS(SIM_CONST)
        // each extra input on the values, its axes strided so that heads
        // and entries read different values
#define SIM_SET(f)                                                                         \
    p.f##_ = sim_vals;                                                                     \
    plan_aux_dtype(FG_F32, &p.f##_w_, p.f##_m_);                                           \
    for (unsigned k = 0; k < sizeof p.f##_s_ / sizeof p.f##_s_[0]; k++)                    \
        p.f##_s_[k] = k + 1 == sizeof p.f##_s_ / sizeof p.f##_s_[0] ? 1 : 97;              \
    p.f##_o_ = 0;
        SIM_AUX(SIM_SET)
        const int h = rand() % 8;
        plan_head_setup(p, 0, h);
        const float qs = plan_score_qk_scale(p);
        for (int t = 0; t < 30; t++) {
            // a thread's first row and key: anywhere, the last rows (ib + 8
            // past M) and keys (past N) of the launch included
            const int ri = rand() % 8, rj = rand() % 64;
            const int ib = t < 5 ? max(0, p.M - 1 - ri) : rand() % p.M;
            const int jb = t < 10 ? max(0, p.N - 1 - rj) : rand() % p.N;
            float dg[NB + 1][2];
            for (int c = 0; c < 2; ++c) {
                dg[0][c] = plan_score_bias(ib + 8, jb + c, h, p);
                for (int u = 0; u < NB; ++u) dg[u + 1][c] = plan_score_bias(ib, jb + u * 8 + c, h, p);
            }
            for (int a = 0; a < 2; a++)
                for (int nb = 0; nb < NB; nb++)
                    for (int c = 0; c < 2; c++) {
                        const int i = ib + 8 * a, j = jb + 8 * nb + c;
                        if (i >= p.M || j >= p.N)
                            continue;  // a padding row or a masked key: not read
                        const float term = dg[nb - a + 1][c], own = plan_score_bias(i, j, h, p);
                        const float qk = (float)(rand() % 4001 - 2000) / 64.f;
                        const float x = fmaf(qk, qs, term), want = plan_score(qk, i, j, h, p);
                        const double big = fabs((double)qk * qs) + fabs((double)term);
                        const double err = fabs((double)x - want) / (big > 1 ? big : 1);
                        checked++;
                        moved += a == 1 && nb > 0;  // the term of row ib at key j - 8
                        worst = err > worst ? err : worst;
                        if (memcmp(&term, &own, sizeof term) != 0 || !(err <= 4e-7)) {  // NaN fails too
                            if (bad++ < 5)
                                printf("M %d N %d h %d row %d key %d (thread's first %d, %d): term %.9g, "
                                       "at the element %.9g; score %.9g, plan_score %.9g\n",
                                       p.M, p.N, h, i, j, ib, jb, term, own, x, want);
                        }
                    }
        }
    }
    if (bad || moved == 0) {
        printf("FAIL: %ld of %ld scores differ (%ld taken from another row)\n", bad, checked, moved);
        return 1;
    }
    printf("%ld scores from the terms on diagonals agree with plan_score (%ld taken from the other row; "
           "worst %.2g of the largest term)\n",
           checked, moved, worst);
    return 0;
}
