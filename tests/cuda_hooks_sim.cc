// cuda_hooks_sim.cc - the mask hooks of one generated CUDA source, run on the
// host: plan_key_range (its rows split over 32 simulated lanes that merge by
// shuffles) and plan_tile_class must agree with plan_visible, element by
// element, on random sizes, row blocks and key tiles.  Built and run by
// tests/cuda-hooks.sh, which extracts the hooks into hooks.h (C++11).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define __device__
#define __forceinline__ inline

struct sim_tid {
    int x;
};
static thread_local sim_tid threadIdx;

// 32 threads stand for the lanes of a warp; a shuffle is two barriers.
static std::atomic<int> sim_arrived(0), sim_phase(0);
static void sim_barrier()
{
    int ph = sim_phase.load();
    if (sim_arrived.fetch_add(1) == 31) {
        sim_arrived.store(0);
        sim_phase.fetch_add(1);
    } else {
        while (sim_phase.load() == ph)
            std::this_thread::yield();
    }
}
static long long sim_slot[32];
template <class T> static T __shfl_xor_sync(unsigned, T v, int o)
{
    const int lane = threadIdx.x & 31;
    sim_slot[lane] = (long long)v;
    sim_barrier();
    T r = (T)sim_slot[lane ^ o];
    sim_barrier();
    return r;
}

// What the kernels' common header gives the shared hooks (gpu/hooks.m4).
constexpr int plan_wave = 32;
static int plan_lane() { return threadIdx.x & 31; }
template <class V> static V plan_shfl_xor(V v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }

#include "hooks.h"

int main()
{
    srand(12345);
    long bad = 0, cases = 0, tiles = 0, rows = 0;
    for (int it = 0; it < 300; it++) {
        plan_params p;
        memset(&p, 0, sizeof p);
        p.M = 1 + rand() % 300;
        p.N = rand() % 400;
        p.off = p.N - p.M;
#ifdef SIM_HAS_W
        p.W = 1 + rand() % 150;
#endif
#ifdef SIM_HAS_P
        p.P = rand() % 200;
#endif
        const int r0 = rand() % p.M;
        const int r1 = r0 + 1 + rand() % 128 > p.M ? p.M : r0 + 1 + rand() % 128;
        long lo = 0, hi = 0;
        bool any = false;
        for (int i = r0; i < r1; i++)
            for (int j = 0; j < p.N; j++)
                if (plan_visible(i, j, p)) {
                    lo = any && lo < j ? lo : j;
                    hi = any && hi > j + 1 ? hi : j + 1;
                    any = true;
                }
        int got[32][2];
        std::thread lanes[32];
        for (int l = 0; l < 32; l++)
            lanes[l] = std::thread([&, l] {
                threadIdx.x = 96 + l;
                plan_key_range(r0, r1, p, &got[l][0], &got[l][1]);
            });
        for (int l = 0; l < 32; l++)
            lanes[l].join();
        cases++;
        for (int l = 0; l < 32; l++)
#ifdef SIM_EXACT_RANGE
            if (got[l][0] != lo || got[l][1] != hi) {
#else
            if (any && (got[l][0] > lo || got[l][1] < hi)) { // a superset is enough
#endif
                if (bad++ < 5)
                    printf("M %d N %d rows [%d, %d): lane %d key range [%d, %d), visible [%ld, %ld)\n",
                           p.M, p.N, r0, r1, l, got[l][0], got[l][1], lo, hi);
                break;
            }
        // an interval of keys per row (plan_mask_rows): the row's bounds
        // give exactly its visible keys, each row of the block
        for (int i = r0; plan_mask_rows && i < r1; i++) {
            int klo, khi;
            plan_row_keys(i, p, &klo, &khi);
            for (int j = 0; j < p.N; j++) {
                rows++;
                if ((j >= klo && j < khi) != plan_visible(i, j, p)) {
                    if (bad++ < 5)
                        printf("M %d N %d row %d: keys [%d, %d), key %d visible %d\n", p.M, p.N, i, klo,
                               khi, j, (int)plan_visible(i, j, p));
                    break;
                }
            }
            if (plan_mask_rows_from0 && klo != 0 && klo < khi) {
                if (bad++ < 5)
                    printf("M %d N %d row %d: keys [%d, %d) do not start at 0\n", p.M, p.N, i, klo, khi);
            }
        }
        for (int n0 = 0; n0 < p.N; n0 += 64) {
            const int n1 = n0 + 64 < p.N ? n0 + 64 : p.N;
            int vis = 0, all = 0;
            for (int i = r0; i < r1; i++)
                for (int j = n0; j < n1; j++) {
                    all++;
                    vis += plan_visible(i, j, p) ? 1 : 0;
                }
            const int want = vis == 0 ? 0 : vis == all ? 2 : 1;
            const int cls = plan_tile_class(r0, r1, n0, n1, p);
            tiles++;
            // 1 (apply the mask) is always safe; 0 and 2 must be exact
            if (cls != want && cls != 1) {
                if (bad++ < 5)
                    printf("M %d N %d rows [%d, %d) keys [%d, %d): class %d, visible %d of %d\n",
                           p.M, p.N, r0, r1, n0, n1, cls, vis, all);
            }
        }
    }
    if (plan_mask_rows)
        printf("%ld row blocks, %ld tiles, %ld keys of rows' intervals, %ld disagreements\n", cases,
               tiles, rows, bad);
    else
        printf("%ld row blocks, %ld tiles, %ld disagreements\n", cases, tiles, bad);
    return bad != 0;
}
