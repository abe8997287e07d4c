// bias_hooks_sim.cc - the tile-affine score hook of one generated CUDA source
// (a score qk * scale + a table read at a clamped distance, as relbias), run
// on the host: wherever plan_score_tile_bias says a tile's score is
// qk * scale + bias, plan_score must give that value at every element of the
// tile, on random sizes, tiles, tables and qk.  Built and run by
// tests/cuda-hooks.sh, which extracts the hooks into hooks.h and the fields
// to fill into sim_aux.h (SIM_AUX: extra inputs, SIM_DIMS: the plan's other
// dims, SIM_CONSTS: the hoisted constants, one value for all: they are the
// same expression of the params there).
#include <cstdio>
#include <cstdlib>

#include "sim_device.h"

#include "hooks.h"
#include "sim_aux.h"

static float sim_vals[1 << 14];

// IEEE half to float by its definition (sim_device.h's plan_half_float, the
// device's conversion on the host, works on the bits).
static float ref_half(unsigned x)
{
    const int e = (x >> 10) & 31, m = x & 1023;
    const float v = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024.f + m, e - 25);
    return x >> 15 ? -v : v;
}

static bool same(float a, float b)
{
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// plan_aux_float of an input of dtype dt, its words and masks from
// plan_aux_dtype as the entry takes them.
static float sim_aux_float(const void* base, fg_dtype dt, long long i)
{
    int w;
    unsigned m[2];
    plan_aux_dtype(dt, &w, m);
    return plan_aux_float(base, w, m, i);
}

// The loads of the extra inputs in every dtype the entry accepts: each half
// and bfloat16 bit pattern, and floats at every index of an array.
static long check_loads()
{
    long bad = 0;
    for (unsigned x = 0; x < 65536; x++) {
        const unsigned short h[3] = {0, 0, (unsigned short)x};
        const float want16 = ref_half(x), got16 = sim_aux_float(h, FG_FP16, 2);
        const float wantb = __uint_as_float(x << 16), gotb = sim_aux_float(h, FG_BF16, 2);
        if (!same(want16, got16) || !same(wantb, gotb)) {
            if (bad++ < 5)
                printf("bits %04x: half %g (want %g), bfloat16 %g (want %g)\n", x, got16, want16, gotb, wantb);
        }
    }
    const float f[6] = {1.5f, -0.0f, 3.0e-39f, -INFINITY, 65504.25f, -7.0e20f};
    for (int i = 0; i < 6; i++)
        if (!same(sim_aux_float(f, FG_F32, i), f[i]) && bad++ < 5)
            printf("float %d: %g (want %g)\n", i, sim_aux_float(f, FG_F32, i), f[i]);
    return bad;
}

int main()
{
    if (check_loads() != 0) {
        printf("FAIL: plan_aux_float misreads an extra input\n");
        return 1;
    }
    srand(777);
    for (unsigned i = 0; i < sizeof sim_vals / sizeof sim_vals[0]; i++)
        sim_vals[i] = (float)(rand() % 2001 - 1000) / 256.f;
    long bad = 0, tiles = 0, affine = 0;
    for (int it = 0; it < 400; it++) {
        plan_params p;
        memset(&p, 0, sizeof p);
        p.M = 1 + rand() % 300;
        p.N = p.M + rand() % 300;
        p.off = p.N - p.M;
#define SIM_DIM(f) p.f = 1 + rand() % 80;
        SIM_DIMS(SIM_DIM)
        const float sc = 0.0625f * (1 + rand() % 4);
#define SIM_CONST(f) p.f = sc;
        SIM_CONSTS(SIM_CONST)
#define SIM_SET(f)                                                                       \
    p.f##_ = sim_vals;                                                                   \
    plan_aux_dtype(FG_F32, &p.f##_w_, p.f##_m_);                                         \
    for (unsigned k = 0; k < sizeof p.f##_s_ / sizeof p.f##_s_[0]; k++) p.f##_s_[k] = 1; \
    p.f##_o_ = 0;
        SIM_AUX(SIM_SET)
        const int h = 0;
        const int r0 = rand() % p.M;
        const int r1 = r0 + 1 + rand() % 128 > p.M ? p.M : r0 + 1 + rand() % 128;
        for (int n0 = 0; n0 < p.N; n0 += 64) {
            const int n1 = n0 + 64 < p.N ? n0 + 64 : p.N;
            float scale = 0.f, bias = 0.f;
            tiles++;
            if (!plan_score_tile_bias(r0, r1, n0, n1, h, p, &scale, &bias))
                continue;
            affine++;
            for (int i = r0; i < r1; i++)
                for (int j = n0; j < n1; j++) {
                    const float qk = (float)(rand() % 2001 - 1000) / 64.f;
                    const float want = plan_score(qk, i, j, h, p);
                    const float got = std::fma(qk, scale, bias);
                    if (std::fabs(want - got) > 1e-4f * (1.f + std::fabs(want))) {
                        if (bad++ < 5)
                            printf("M %d N %d rows [%d, %d) keys [%d, %d) at (%d, %d): score %g, "
                                   "tile form %g\n",
                                   p.M, p.N, r0, r1, n0, n1, i, j, want, got);
                    }
                }
        }
    }
    printf("%ld tiles, %ld of them affine, %ld disagreements\n", tiles, affine, bad);
    if (affine == 0 || affine == tiles) {
        printf("FAIL: the tile-affine path is never (or always) taken\n");
        return 1;
    }
    return bad != 0;
}
