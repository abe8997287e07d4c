// span_hooks_sim.cc - the span hooks of one generated CUDA source (a mask that
// compares an extra input read at the row with one read at the key, as
// docmask's document ids), run on the host: plan_tile_class_spans, given the
// ranges of each span's sides over a tile, must agree with plan_visible
// element by element (0: nothing visible, 2: everything, 1 always allowed),
// on random sizes, tiles, and ids (sorted runs, as packed documents, and
// unsorted small values).  A one-key tile is the test plan_span_narrow makes
// of each key.  Where the mask's leaves are linear and span atoms only
// (plan_spans_decide) and a tile's span atoms are all known
// (plan_spans_known: rows and keys of one document; their truth bits), the
// sm_90a masked step decides each element by plan_visible_known from the
// truth bits: that must be plan_visible at every element of the tile; and
// where each row then sees one interval of keys (plan_known_rows), the
// bounds plan_row_keys_known gives must hold exactly the keys it sees.
// Where the mask is its span atoms ANDed with the rest (plan_sorted_rows) and
// the ids are sorted (packed documents), each row's bounds from binary
// searches (plan_row_keys_sorted, DR) must hold exactly the keys it sees.
// Built and run by tests/cuda-hooks.sh, which extracts the hooks into
// hooks.h and the extra inputs' fields into sim_aux.h.
#include <cstdio>
#include <cstdlib>

#include "sim_device.h"

#include "hooks.h"
#include "sim_aux.h"  // SIM_AUX(X): X(field) per extra input

static int sim_ids[1 << 14];

static void fill_ids(int kind)
{
    const int n = (int)(sizeof sim_ids / sizeof sim_ids[0]);
    if (kind == 0) {  // packed documents: runs of 1 to 200 keys, half the time from id 0
        int id = rand() % 2 ? 0 : rand() % 5, left = 1 + rand() % 200;
        for (int i = 0; i < n; i++) {
            if (left-- == 0) {
                id += 1 + rand() % 2;
                left = rand() % 200;
            }
            sim_ids[i] = id;
        }
    } else {  // unsorted small ids
        for (int i = 0; i < n; i++) sim_ids[i] = rand() % 3;
    }
}

int main()
{
    srand(4242);
    long bad = 0, tiles = 0, count[3] = {0, 0, 0}, known = 0, elems = 0, bounded = 0, sorted = 0;
    unsigned truths = 0;  // bit t: a known tile with truth bits t was checked
    for (int it = 0; it < 400; it++) {
        plan_params p;
        memset(&p, 0, sizeof p);
        p.M = 1 + rand() % 300;
        p.N = p.M + rand() % 300;
        p.off = p.N - p.M;
#define SIM_SET(f)                                                                       \
    p.f##_ = sim_ids;                                                                    \
    for (unsigned k = 0; k < sizeof p.f##_s_ / sizeof p.f##_s_[0]; k++) p.f##_s_[k] = 1; \
    p.f##_o_ = 0;
        SIM_AUX(SIM_SET)
        fill_ids(it % 2);
        const int h = 0;
        const int r0 = rand() % p.M;
        const int rows = 1 + rand() % 128;  // the tile's rows end at M, as the kernels' do
        const int r1 = r0 + rows > p.M ? p.M : r0 + rows;
        long rlo[plan_nspans], rhi[plan_nspans];
        for (int k = 0; k < plan_nspans; k++) {
            rlo[k] = rhi[k] = plan_span_row(k, r0, h, p);
            for (int i = r0; i < r1; i++) {
                const long v = plan_span_row(k, i, h, p);
                rlo[k] = v < rlo[k] ? v : rlo[k];
                rhi[k] = v > rhi[k] ? v : rhi[k];
            }
        }
        if (plan_sorted_rows && it % 2 == 0)  // sorted ids: every row's keys by DR's searches
            for (int i = r0; i < r1; i++) {
                int lo = -1, hi = -1;
                plan_row_keys_sorted(i, h, p, &lo, &hi);
                for (int j = 0; j < p.N; j++) {
                    sorted++;
                    if ((j >= lo && j < hi) != plan_visible(i, j, p) && bad++ < 5)
                        printf("M %d N %d sorted ids: row %d keys [%d, %d) by plan_row_keys_sorted, key %d "
                               "plan_visible %d\n",
                               p.M, p.N, i, lo, hi, j, (int)plan_visible(i, j, p));
                }
            }
        const int width = it % 3 == 0 ? 1 : 64;  // 1: the narrowing's test of one key
        for (int n0 = 0; n0 < p.N; n0 += width) {
            const int n1 = n0 + width < p.N ? n0 + width : p.N;
            long clo[plan_nspans], chi[plan_nspans];
            for (int k = 0; k < plan_nspans; k++) {
                clo[k] = chi[k] = plan_span_col(k, n0, h, p);
                for (int j = n0; j < n1; j++) {
                    const long v = plan_span_col(k, j, h, p);
                    clo[k] = v < clo[k] ? v : clo[k];
                    chi[k] = v > chi[k] ? v : chi[k];
                }
            }
            int vis = 0, all = 0;
            for (int i = r0; i < r1; i++)
                for (int j = n0; j < n1; j++) {
                    all++;
                    vis += plan_visible(i, j, p) ? 1 : 0;
                }
            const int want = vis == 0 ? 0 : vis == all ? 2 : 1;
            const int cls = plan_tile_class_spans(r0, r1, n0, n1, rlo, rhi, clo, chi, p);
            tiles++;
            count[cls < 0 || cls > 2 ? 1 : cls]++;
            if (cls != want && cls != 1) {
                if (bad++ < 5)
                    printf("M %d N %d rows [%d, %d) keys [%d, %d): class %d, visible %d of %d\n", p.M,
                           p.N, r0, r1, n0, n1, cls, vis, all);
            }
            unsigned truth = 0;
            if (plan_spans_decide && cls == 1 && plan_spans_known(rlo, rhi, clo, chi, &truth)) {
                known++;
                truths |= truth < 32 ? 1u << truth : 0u;
                for (int i = r0; i < r1; i++) {
                    int klo = 0, khi = 0;
                    if (plan_known_rows) plan_row_keys_known(i, truth, p, &klo, &khi);
                    for (int j = n0; j < n1; j++) {
                        if (plan_known_rows) {
                            const bool in = j >= klo && j < khi;
                            bounded++;
                            if (in != plan_visible(i, j, p) && bad++ < 5)
                                printf("M %d N %d rows [%d, %d) keys [%d, %d), spans known (truth %u): row %d "
                                       "keys [%d, %d) by plan_row_keys_known, key %d plan_visible %d\n",
                                       p.M, p.N, r0, r1, n0, n1, truth, i, klo, khi, j, (int)plan_visible(i, j, p));
                        }
                        const bool e = plan_visible_known(i, j, truth, p);
                        elems++;
                        if (e != plan_visible(i, j, p) && bad++ < 5)
                            printf("M %d N %d rows [%d, %d) keys [%d, %d), spans known (truth %u): element "
                                   "(%d, %d) %d, plan_visible %d\n",
                                   p.M, p.N, r0, r1, n0, n1, truth, i, j, (int)e, (int)plan_visible(i, j, p));
                    }
                }
            }
        }
    }
    int ntruths = 0;
    for (unsigned t = truths; t; t &= t - 1) ntruths++;
    printf("%ld tiles by spans (%ld skipped, %ld masked, %ld full; %ld masked with the spans known, "
           "%d truth values among them (mask 0x%x), %ld elements decided from the truth bits, %ld from "
           "the rows' bounds, %ld from the rows' bounds by sorted ids), %ld disagreements\n",
           tiles, count[0], count[1], count[2], known, ntruths, truths, elems, bounded, sorted, bad);
    if (plan_sorted_rows && sorted == 0) {
        printf("FAIL: no element was decided from the rows' bounds by sorted ids\n");
        return 1;
    }
    if (plan_known_rows && bounded == 0) {
        printf("FAIL: no element was decided from the rows' bounds on a known tile\n");
        return 1;
    }
    if (plan_spans_decide && known == 0) {
        printf("FAIL: no masked tile with every span known was checked\n");
        return 1;
    }
    // a classifier that said "maybe" everywhere would agree: it must not
    if (count[0] == 0 || count[2] == 0) {
        printf("FAIL: the span classes never skip or never drop the mask\n");
        return 1;
    }
    return bad != 0;
}
