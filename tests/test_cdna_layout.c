/* test_cdna_layout.c - the wave-level pieces of the CDNA skeleton
 * (templates/hip/cdna/layout.h: MFMA operand and accumulator maps, the
 * cross-lane reductions, the LDS layouts), compiled for the host and run
 * against an emulation of the MFMA instructions written here from the ISA's
 * description of where each matrix element lives (AMD Instinct MI200/MI300
 * ISA, "dependent arithmetic: MFMA": for a 32x32x8 op, A[i][k] is element k%4
 * of lane i + 32*(k/4), B[k][j] element k%4 of lane j + 32*(k/4), and D[i][j]
 * register 4*(i/8) + i%4 of lane j + 32*((i/4)%2); for 16x16x16 the same with
 * 16 lanes per k group and D[i][j] register i%4 of lane j + 16*(i/4)).  The
 * kernels' steps are replayed with those maps: S^T = K Q^T from Q operands
 * and K read out of the LDS layout, the row max through the xor exchanges,
 * P = exp(S - max), O^T = V^T P^T with the P^T accumulator taken as the B
 * operand register for register and V^T read out of the transposed LDS
 * layout; every value is checked against a naive evaluation in double.  A
 * wrong lane-to-element map fails (the perturbed maps below must fail too). */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"

#define LANES 64
#define DIMS 64  /* head dim of the replay */
#define MAXREG 16

/* ---- the emulation, from the ISA (independent of layout.h) ---- */
static int isa_a_lane(int i, int k, int n) { return i + n * (k / 4); }
static int isa_acc_lane(int i, int j, int n) { return n == 32 ? j + 32 * ((i / 4) % 2) : j + 16 * (i / 4); }
static int isa_acc_reg(int i, int n) { return n == 32 ? 4 * (i / 8) + i % 4 : i % 4; }

/* D = A B + C for one MFMA instruction of size n on 64 lanes' registers. */
static void emu_mfma(int n, float a[LANES][4], float b[LANES][4], float c[LANES][MAXREG])
{
    const int kw = 256 / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double acc = c[isa_acc_lane(i, j, n)][isa_acc_reg(i, n)];
            for (int k = 0; k < kw; k++)
                acc += (double)a[isa_a_lane(i, k, n)][k % 4] * b[isa_a_lane(j, k, n)][k % 4];
            c[isa_acc_lane(i, j, n)][isa_acc_reg(i, n)] = (float)acc;
        }
}

/* ds_bpermute-style exchange: every lane reads lane ^ o. */
static void emu_xor_max(float v[LANES], int o)
{
    float t[LANES];
    for (int l = 0; l < LANES; l++)
        t[l] = fmaxf(v[l], v[l ^ o]);
    memcpy(v, t, sizeof t);
}

/* ---- the maps under test, replaceable to show that a wrong one fails ---- */
typedef struct maps {
    int (*op_row)(int lane, int n);
    int (*op_k)(int lane, int e, int n);
    int (*acc_row)(int lane, int r, int n);
    int (*acc_col)(int lane, int n);
    int (*reduce_xor)(int s, int n);
} maps;

static int op_row_(int l, int n) { return ck_op_row(l, n); }
static int op_k_(int l, int e, int n) { return ck_op_k(l, e, n); }
static int acc_row_(int l, int r, int n) { return ck_acc_row(l, r, n); }
static int acc_col_(int l, int n) { return ck_acc_col(l, n); }
static int reduce_xor_(int s, int n) { return ck_reduce_xor(s, n); }
static const maps kernel_maps = {op_row_, op_k_, acc_row_, acc_col_, reduce_xor_};

/* wrong on purpose: the lane halves of the accumulator swapped, the k groups
 * of the operands reversed, the reduction's partner a neighbour */
static int bad_acc_row(int l, int r, int n) { return ck_acc_row(l ^ n, r, n); }
static int bad_op_k(int l, int e, int n) { return ck_op_k(LANES - n - l + 2 * (l % n), e, n); }
static int bad_reduce_xor(int s, int n) { return (n << s) >> 1; }

static double rnd(void) { return (double)rand() / RAND_MAX - 0.5; }

/* One replay of the kernels' block steps (n keys, n queries, DIMS dims) with
 * maps m; returns the number of values that disagree with the naive
 * evaluation. */
static int replay(int n, const maps *m, unsigned seed)
{
    const int kw = 256 / n, regs = ck_acc_regs(n), keys = n;
    static float K[32][DIMS], Q[32][DIMS], V[32][DIMS];
    srand(seed);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < DIMS; d++) {
            K[i][d] = (float)rnd();
            Q[i][d] = (float)rnd();
            V[i][d] = (float)rnd();
        }
    /* the LDS tiles as ck_load_kv writes them: K rows in 8-element chunks,
     * V transposed element by element */
    static float sk[32 * (DIMS + 4)], svt[DIMS * (32 + 4)];
    for (size_t x = 0; x < sizeof sk / sizeof sk[0]; x++)
        sk[x] = NAN;
    for (size_t x = 0; x < sizeof svt / sizeof svt[0]; x++)
        svt[x] = NAN;
    for (int r = 0; r < keys; r++)
        for (int c = 0; c < DIMS; c += 8)
            for (int e = 0; e < 8; e++) {
                sk[ck_lds_k(r, c, DIMS) + e] = K[r][c + e];
                svt[ck_lds_vt(r, c + e, keys)] = V[r][c + e];
            }
    int bad = 0;
    /* S^T = K Q^T: A = K rows from LDS, B = Q held by the lane */
    float acc[LANES][MAXREG] = {{0}};
    for (int st = 0; st < DIMS / kw; st++) {
        float a[LANES][4], b[LANES][4];
        for (int l = 0; l < LANES; l++) {
            const int base = ck_lds_k(m->op_row(l, n), m->op_k(l, 0, n), DIMS) + st * kw;
            for (int e = 0; e < 4; e++) {
                a[l][e] = sk[base + e];
                b[l][e] = Q[m->op_row(l, n)][st * kw + m->op_k(l, e, n)];
            }
        }
        emu_mfma(n, a, b, acc);
    }
    double S[32][32];
    for (int key = 0; key < n; key++)
        for (int q = 0; q < n; q++) {
            S[key][q] = 0;
            for (int d = 0; d < DIMS; d++)
                S[key][q] += (double)K[key][d] * Q[q][d];
        }
    for (int l = 0; l < LANES; l++)
        for (int r = 0; r < regs; r++)
            bad += fabs(acc[l][r] - S[m->acc_row(l, r, n)][m->acc_col(l, n)]) > 1e-4;
    /* the row max: lane-local, then the xor exchanges */
    float mx[LANES];
    for (int l = 0; l < LANES; l++) {
        mx[l] = -INFINITY;
        for (int r = 0; r < regs; r++)
            mx[l] = fmaxf(mx[l], acc[l][r]);
    }
    for (int s = 0; s < ck_reduce_steps(n); s++)
        emu_xor_max(mx, m->reduce_xor(s, n));
    for (int l = 0; l < LANES; l++) {
        const int q = m->acc_col(l, n);
        double want = -INFINITY;
        for (int key = 0; key < n; key++)
            want = fmax(want, S[key][q]);
        bad += fabs(mx[l] - want) > 1e-4;
    }
    /* P^T = exp(S^T - max) in place; O^T = V^T P^T, the P^T accumulator's
     * registers 4ks..4ks+3 as the B operand of k step ks */
    for (int l = 0; l < LANES; l++)
        for (int r = 0; r < regs; r++)
            acc[l][r] = expf(acc[l][r] - mx[l]);
    for (int db = 0; db < DIMS / n; db++) {
        float o[LANES][MAXREG] = {{0}};
        for (int ks = 0; ks < keys / kw; ks++) {
            float a[LANES][4], b[LANES][4];
            for (int l = 0; l < LANES; l++) {
                const int base = ck_lds_vt(ks * kw + m->op_k(l, 0, n), db * n + m->op_row(l, n), keys);
                for (int e = 0; e < 4; e++) {
                    a[l][e] = svt[base + e];
                    b[l][e] = acc[l][4 * ks + e];
                }
            }
            emu_mfma(n, a, b, o);
        }
        for (int l = 0; l < LANES; l++)
            for (int r = 0; r < regs; r++) {
                const int d = db * n + m->acc_row(l, r, n), q = m->acc_col(l, n);
                double mq = -INFINITY, want = 0;
                for (int key = 0; key < n; key++)
                    mq = fmax(mq, S[key][q]);
                for (int key = 0; key < n; key++)
                    want += exp(S[key][q] - mq) * V[key][d];
                bad += !(fabs(o[l][r] - want) <= 1e-4 * (1 + fabs(want)));
            }
    }
    return bad;
}

static void layout_rolling_32x32x8(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 3; seed++)
        assert_int_equal(replay(32, &kernel_maps, seed), 0);
}

static void layout_split_16x16x16(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 3; seed++)
        assert_int_equal(replay(16, &kernel_maps, seed), 0);
}

/* The replay can fail: each wrong map is caught for both sizes. */
static void layout_wrong_maps_fail(void **state)
{
    (void)state;
    for (int n = 16; n <= 32; n += 16) {
        maps m = kernel_maps;
        m.acc_row = bad_acc_row;
        assert_true(replay(n, &m, 7) > 0);
        m = kernel_maps;
        m.op_k = bad_op_k;
        assert_true(replay(n, &m, 7) > 0);
        m = kernel_maps;
        m.reduce_xor = bad_reduce_xor;
        assert_true(replay(n, &m, 7) > 0);
    }
}

/* The LDS layouts: one place per element, inside the tile, 4 consecutive
 * elements of an operand contiguous and 8-byte aligned. */
static void layout_lds_tiles(void **state)
{
    (void)state;
    static const int dims[] = {64, 96, 128, 256}, keyss[] = {16, 32, 64, 128};
    for (size_t di = 0; di < 4; di++)
        for (size_t ki = 0; ki < 4; ki++) {
            const int D = dims[di], KEYS = keyss[ki];
            const int nk = ck_lds_k_size(KEYS, D), nv = ck_lds_vt_size(KEYS, D);
            char *seen_k = calloc((size_t)nk, 1), *seen_v = calloc((size_t)nv, 1);
            assert_non_null(seen_k);
            assert_non_null(seen_v);
            for (int key = 0; key < KEYS; key++)
                for (int d = 0; d < D; d++) {
                    const int xk = ck_lds_k(key, d, D), xv = ck_lds_vt(key, d, KEYS);
                    assert_true(xk >= 0 && xk < nk && !seen_k[xk]);
                    assert_true(xv >= 0 && xv < nv && !seen_v[xv]);
                    seen_k[xk] = seen_v[xv] = 1;
                    if (d % 4 == 0)
                        assert_int_equal(xk % 4, 0);
                    if (key % 4 == 0)
                        assert_int_equal(xv % 4, 0);
                    if (d % 4 != 3)
                        assert_int_equal(ck_lds_k(key, d + 1, D), xk + 1);
                    if (key % 4 != 3)
                        assert_int_equal(ck_lds_vt(key + 1, d, KEYS), xv + 1);
                }
            free(seen_k);
            free(seen_v);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_rolling_32x32x8),
        cmocka_unit_test(layout_split_16x16x16),
        cmocka_unit_test(layout_wrong_maps_fail),
        cmocka_unit_test(layout_lds_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
