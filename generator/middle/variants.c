/* variants.c - the compiled variants of the GPU kernels as data: one row
 * per variant of a skeleton (templates/cuda/sm80/), its parameters, the
 * dtypes it serves and the rule that selects it, with where the numbers
 * came from.  The kernel model resolves from it which variants a plan can
 * take (fg_kernel.configs, --dump=kernel); the CUDA backend prints the
 * instances and the dispatch from the same rows (back/cuda/configs.c);
 * cuda_config_select evaluates the rules for one launch (tests).  Later,
 * tuned wisdom selects among the same rows.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <string.h>

#define BOTH (CUDA_CFG_BF16 | CUDA_CFG_FP16)
#define ROLLING CUDA_FAMILY_ROLLING
#define SPLIT CUDA_FAMILY_SPLIT

const fg_cuda_config fg_cuda_configs[] = {
    /* ---- rolling form (FlashAttention-2), fa_cfg<D, BM, BN, NW, STAGES, QREG> */
    {.family = ROLLING, .arch = "sm80", .name = "C64", .d = 64, .bm = 128, .bn = 64, .warps = 4,
     .stages = 2, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "32 rows per warp, Q in registers",
     .origin = "the prototype's default (attn_inst.cu C64_0); d64 timings in "
               "bench/results/proto/time_call4.txt and time_call6.txt"},
    {.family = ROLLING, .arch = "sm80", .name = "C96", .d = 96, .bm = 128, .bn = 64, .warps = 8,
     .stages = 2, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "16 rows per warp, Q in registers",
     .origin = "the prototype's only D 96 variant (attn_inst.cu C96), checked in "
               "bench/results/proto/check_call5.txt, not timed"},
    {.family = ROLLING, .arch = "sm80", .name = "C128L", .d = 128, .bm = 256, .bn = 64,
     .warps = 8, .stages = 2, .qreg = false, .dtypes = BOTH, .nwhen = 2,
     .when = {{.affine = true, .masked = CUDA_MASKED, .min_keys = 16384},
              {.affine = true, .masked = CUDA_UNMASKED, .min_rows = 512}},
     .note = "8 warps, one CTA per SM: long or unmasked rows",
     .origin = "bench/NOTES.md, Long-row configuration in the generated library (H200, calls "
               "3-5): faster for scores affine in Q.K on unmasked rows and from 16k keys, slower "
               "for soft-capped scores; the prototype's BM256 timings in "
               "bench/results/proto/time_call6.txt"},
    {.family = ROLLING, .arch = "sm80", .name = "C128", .d = 128, .bm = 128, .bn = 64, .warps = 4,
     .stages = 2, .qreg = false, .dtypes = BOTH, .nwhen = 0,
     .note = "32 rows per warp, Q through ldmatrix",
     .origin = "the prototype's default (attn_inst.cu C128_0); bench/results/proto/time_call4.txt "
               "and time_call6.txt"},
    {.family = ROLLING, .arch = "sm80", .name = "C256", .d = 256, .bm = 128, .bn = 64, .warps = 8,
     .stages = 2, .qreg = false, .dtypes = BOTH, .nwhen = 0,
     .note = "16 rows per warp, Q through ldmatrix",
     .origin = "the prototype's only D 256 variant (attn_inst.cu C256), checked in "
               "bench/results/proto/check_call5.txt, not timed"},

    /* ---- rolling form on Hopper (templates/cuda/sm90/), fh_cfg<D, BM, BN, STAGES, PINGPONG>:
     * 128 query rows per CTA (two consumer warpgroups of 64 rows and a
     * producer warpgroup: 12 warps), or 64 (one consumer group, 8 warps, two
     * CTAs a SM); a launch whose head dim is a multiple of 8 runs on the
     * first row of a larger or equal compiled dim. */
    {.family = ROLLING, .arch = "sm90", .name = "H64", .d = 64, .bm = 128, .bn = 128,
     .warps = 12, .stages = 3, .dtypes = BOTH, .nwhen = 0,
     .note = "wgmma 64x128 tiles, three K/V stages",
     .origin = "the FlashAttention-3 tile shape for this head dim; bench/NOTES.md, Hopper family"},
    {.family = ROLLING, .arch = "sm90", .name = "H96", .d = 96, .bm = 128, .bn = 128,
     .warps = 12, .stages = 3, .dtypes = BOTH, .nwhen = 0,
     .note = "wgmma 64x128 tiles, three K/V stages",
     .origin = "the D 128 shape; bench/NOTES.md, Hopper family"},
    {.family = ROLLING, .arch = "sm90", .name = "H128D", .d = 128, .bm = 64, .bn = 64,
     .warps = 8, .stages = 2, .dtypes = BOTH, .nwhen = 1,
     .when = {{.masked = CUDA_SPANS}},
     .note = "64 query rows (one consumer group), wgmma 64x64 tiles, two K/V stages, two CTAs "
             "a SM: masks that compare ids",
     .origin = "bench/NOTES.md, twenty-fourth session (H200, 2026-11-28, same-call A/B, call 5): "
               "docmask-pf-8k 0.431-0.456 ms against 0.474-0.525 with H128, docmask-pf-32k "
               "1.898-1.932 against 2.028-2.046; a CTA's scan, first tiles and epilogue overlap "
               "the other CTA's tiles"},
    {.family = ROLLING, .arch = "sm90", .name = "H128W", .d = 128, .bm = 128, .bn = 176,
     .warps = 12, .stages = 2, .dtypes = BOTH, .nwhen = 1,
     .when = {{.masked = CUDA_UNMASKED}},
     .pingpong = true, .note = "wgmma 64x176 tiles, two K/V stages, ping-pong: unmasked rows",
     .origin = "bench/NOTES.md, Hopper family, v3 (H200, 2026-11-23T22:20Z): 661 TFLOP/s on "
               "global-pf-8k against 609 with 128-key tiles; ping-pong equal or better there"},
    {.family = ROLLING, .arch = "sm90", .name = "H128WM", .d = 128, .bm = 128, .bn = 176,
     .warps = 12, .stages = 2, .dtypes = BOTH, .nwhen = 1,
     .when = {{.affine = true, .masked = CUDA_MASKED, .min_keys = 4096}},
     .note = "wgmma 64x176 tiles, two K/V stages: masked rows, long, a score affine in Q.K",
     .origin = "bench/NOTES.md, Hopper family, v4 (H200, 2026-11-23T22:45Z, same-call A/B): "
               "causal-pf-8k 586 TFLOP/s against 568 with 128-key tiles, gqa-pf-32k 581 against "
               "556; slower at 2k keys; ptxas spills 20 bytes with softcap's tanh (not affine)"},
    {.family = ROLLING, .arch = "sm90", .name = "H128", .d = 128, .bm = 128, .bn = 128,
     .warps = 12, .stages = 3, .dtypes = BOTH, .nwhen = 0,
     .note = "wgmma 64x128 tiles, three K/V stages",
     .origin = "bench/NOTES.md, Hopper family, v3 (H200, 2026-11-23T22:20Z): without ping-pong "
               "causal-pf-8k 524 TFLOP/s against 499, gqa-pf-32k 557 against 529"},
    {.family = ROLLING, .arch = "sm90", .name = "H192", .d = 192, .bm = 128, .bn = 64,
     .warps = 12, .stages = 3, .dtypes = BOTH, .nwhen = 0,
     .note = "wgmma 64x64 tiles, three K/V stages",
     .origin = "the D 256 shape; bench/NOTES.md, Hopper family"},
    {.family = ROLLING, .arch = "sm90", .name = "H256", .d = 256, .bm = 128, .bn = 64,
     .warps = 12, .stages = 2, .dtypes = BOTH, .nwhen = 0,
     .note = "wgmma 64x64 tiles, two K/V stages (192 KB of shared memory)",
     .origin = "the largest tile that fits shared memory; bench/NOTES.md, Hopper family"},

    /* ---- split form (FlashDecoding), fd_cfg<D, MT, NW, BNW, STAGES, QREG, MINB> */
    {.family = SPLIT, .arch = "sm80", .name = "CD64_2", .d = 64, .mt = 2, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 4, .qreg = true, .dtypes = BOTH, .nwhen = 1,
     .when = {{.min_packed = 17}},
     .note = "32 packed rows per row group",
     .origin = "the prototype's dispatch (decode_inst.cu D64_2: two row tiles above 16 packed "
               "rows), checked in bench/results/proto/check_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD64_1", .d = 64, .mt = 1, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 4, .qreg = true, .dtypes = BOTH, .nwhen = 1,
     .when = {{.max_packed = 16}},
     .note = "16 packed rows per row group",
     .origin = "the prototype's dispatch (decode_inst.cu D64_1), checked in "
               "bench/results/proto/check_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD96_2", .d = 96, .mt = 2, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 3, .qreg = false, .dtypes = BOTH, .nwhen = 1,
     .when = {{.min_packed = 17}},
     .note = "32 packed rows per row group, Q through ldmatrix",
     .origin = "the prototype's dispatch (decode_inst.cu D96_2), checked in "
               "bench/results/proto/check_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD96_1", .d = 96, .mt = 1, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 3, .qreg = true, .dtypes = BOTH, .nwhen = 1,
     .when = {{.max_packed = 16}},
     .note = "16 packed rows per row group",
     .origin = "the prototype's dispatch (decode_inst.cu D96_1), checked in "
               "bench/results/proto/check_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD128_2", .d = 128, .mt = 2, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 3, .qreg = false, .dtypes = BOTH, .nwhen = 1,
     .when = {{.min_packed = 17}},
     .note = "32 packed rows per row group, Q through ldmatrix",
     .origin = "the prototype's dispatch (decode_inst.cu D128_2), checked in "
               "bench/results/proto/check_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD128_8W", .d = 128, .mt = 1, .bnw = 16,
     .minb = 1, .warps = 8, .stages = 2, .qreg = true, .dtypes = CUDA_CFG_BF16, .nwhen = 1,
     .when = {{.max_packed = 16}},
     .note = "8 warps, one CTA per SM (best measured, H200)",
     .origin = "the prototype's bf16 default (decode_inst.cu D128_a2, cfg 3): bench/NOTES.md, "
               "decode kernel, call 1 and v2; bench/results/proto/time_call8.txt"},
    {.family = SPLIT, .arch = "sm80", .name = "CD128_1", .d = 128, .mt = 1, .bnw = 16, .minb = 2,
     .warps = 4, .stages = 3, .qreg = true, .dtypes = CUDA_CFG_FP16, .nwhen = 1,
     .when = {{.max_packed = 16}},
     .note = "4 warps, two CTAs per SM",
     .origin = "the prototype's fp16 default (decode_inst.cu D128_1, the configuration checked "
               "for fp16: bench/NOTES.md, decode kernel, v2)"},
    {.family = SPLIT, .arch = "sm80", .name = "CD256_1", .d = 256, .mt = 1, .bnw = 16, .minb = 1,
     .warps = 4, .stages = 2, .qreg = false, .dtypes = BOTH, .nwhen = 0,
     .note = "16 packed rows per row group (the only D 256 variant)",
     .origin = "the prototype's dispatch (decode_inst.cu D256_1, one row tile only), checked in "
               "bench/results/proto/check_call8.txt"},

    /* ---- CDNA (templates/hip/cdna/, the HIP backend): wave64 and MFMA.  Rolling
     * fa_cfg<D, BM, BN, NW, STAGES, QREG>: each wavefront owns 32 query rows (one
     * 32x32x8 MFMA column block), BM = 32 * NW; STAGES LDS buffers of K rows and
     * transposed V; Q always in registers.  Split fd_cfg<D, MT, NW, BNW, STAGES,
     * QREG, MINB>: 16 packed rows (16x16x16 MFMA), NW wavefronts of BNW keys each
     * per LDS tile.  No AMD GPU was reachable: the sizes fit the 64 KB of LDS with
     * no scratch (bench/NOTES.md, CDNA resource usage); none is measured. */
    {.family = ROLLING, .arch = "cdna", .name = "K64", .d = 64, .bm = 128, .bn = 64, .warps = 4,
     .stages = 2, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "4 wavefronts of 32 rows, two LDS buffers",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = ROLLING, .arch = "cdna", .name = "K96", .d = 96, .bm = 128, .bn = 64, .warps = 4,
     .stages = 2, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "4 wavefronts of 32 rows, two LDS buffers",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = ROLLING, .arch = "cdna", .name = "K128", .d = 128, .bm = 128, .bn = 32,
     .warps = 4, .stages = 2, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "4 wavefronts of 32 rows, 32-key tiles, two LDS buffers",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = ROLLING, .arch = "cdna", .name = "K256", .d = 256, .bm = 128, .bn = 32,
     .warps = 4, .stages = 1, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "4 wavefronts of 32 rows, 32-key tiles, one LDS buffer",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = SPLIT, .arch = "cdna", .name = "KD64", .d = 64, .mt = 1, .bnw = 16, .minb = 1,
     .warps = 4, .stages = 1, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "16 packed rows, 4 wavefronts of 16 keys per tile",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = SPLIT, .arch = "cdna", .name = "KD96", .d = 96, .mt = 1, .bnw = 16, .minb = 1,
     .warps = 4, .stages = 1, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "16 packed rows, 4 wavefronts of 16 keys per tile",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = SPLIT, .arch = "cdna", .name = "KD128", .d = 128, .mt = 1, .bnw = 16, .minb = 1,
     .warps = 4, .stages = 1, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "16 packed rows, 4 wavefronts of 16 keys per tile",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
    {.family = SPLIT, .arch = "cdna", .name = "KD256", .d = 256, .mt = 1, .bnw = 16, .minb = 1,
     .warps = 2, .stages = 1, .qreg = true, .dtypes = BOTH, .nwhen = 0,
     .note = "16 packed rows, 2 wavefronts of 16 keys per tile",
     .origin = "sized to fit LDS without scratch (bench/NOTES.md, CDNA resource usage); not timed"},
};
const int fg_cuda_nconfigs = (int)(sizeof fg_cuda_configs / sizeof fg_cuda_configs[0]);

/* The skeletons this generator has: templates/cuda/sm80/ and sm90/. */
bool config_in_family(const fg_cuda_config *k, fg_cuda_family family)
{
    return k->family == family && (!strcmp(k->arch, "sm80") || !strcmp(k->arch, "sm90"));
}

bool config_in_arch(const fg_cuda_config *k, fg_cuda_family family, const char *arch)
{
    return k->family == family && !strcmp(k->arch, arch);
}

/* The parts of an alternative that are facts of the plan. */
bool config_when_fits_plan(const fg_cuda_when *w, bool affine_score, int masked)
{
    if (w->affine && !affine_score)
        return false;
    if (w->masked == CUDA_MASKED && !masked)
        return false;
    if (w->masked == CUDA_UNMASKED && masked)
        return false;
    if (w->masked == CUDA_SPANS && masked != 2)
        return false;
    return true;
}

int config_nspans(const fg_kernel *k)
{
    return k->attn.mask_tiles && k->attn.mask_skip && k->mask ? k->mask->nspans : 0;
}

int config_masking(const fg_kernel *k)
{
    if (!k->attn.mask_tiles)
        return 0;
    return config_nspans(k) > 0 ? 2 : 1;
}

/* The parts that depend on the launch's shape. */
static bool when_fits_shape(const fg_cuda_when *w, long m, long n, long packed)
{
    return (!w->min_rows || m >= w->min_rows) && (!w->min_keys || n >= w->min_keys) &&
           (!w->min_packed || packed >= w->min_packed) &&
           (!w->max_packed || packed <= w->max_packed);
}

const fg_cuda_config *cuda_config_select(fg_cuda_family family, bool affine_score, int masked,
                                         bool bf16, int d, long m, long n, long group)
{
    unsigned dt = bf16 ? CUDA_CFG_BF16 : CUDA_CFG_FP16;
    for (int i = 0; i < fg_cuda_nconfigs; i++) {
        const fg_cuda_config *k = &fg_cuda_configs[i];
        if (!config_in_arch(k, family, "sm80") || k->d != d || !(k->dtypes & dt))
            continue;
        if (!k->nwhen)
            return k;
        for (int j = 0; j < k->nwhen; j++)
            if (config_when_fits_plan(&k->when[j], affine_score, masked) &&
                when_fits_shape(&k->when[j], m, n, group * m))
                return k;
    }
    return NULL;
}

/* The alternatives of k that the plan admits: -1 none (the row can never be
 * taken), 1 one of them holds on every shape, 0 shape conditions. */
int config_admits(const fg_cuda_config *k, bool affine_score, int masked)
{
    if (!k->nwhen)
        return 1;
    int r = -1;
    for (int j = 0; j < k->nwhen; j++) {
        const fg_cuda_when *w = &k->when[j];
        if (!config_when_fits_plan(w, affine_score, masked))
            continue;
        if (!w->min_rows && !w->min_keys && !w->min_packed && !w->max_packed)
            return 1;
        r = 0;
    }
    return r;
}


/* Shared memory of one CTA, 16-bit elements, as the kernels' smem_bytes(). */
long config_smem(const fg_cuda_config *k, int nspans, int ring_floats)
{
    if (!strcmp(k->arch, "sm90")) { /* fh_cfg::smem_bytes(): 64-column blocks, 1024 to align */
        long atoms = (k->d + 63) / 64;
        long bars = 8L * (1 + 4 * k->stages); /* the mbarriers */
        /* with span atoms, the bars to 16 bytes, then the rows' and the
         * keys' ranges per consumer warp (4 a group of 64 rows), 16 bytes
         * a span each; then, where it fits in 227 KB (fh_cfg::VALS), each
         * consumer warp's copy of a tile's key values, 8 bytes a key and
         * span */
        long warps = 4L * (k->bm / 64);
        long spans = nspans > 0 ? ((bars + 15) & ~15L) + 2L * warps * 16 * nspans : bars;
        long base = 1024 + atoms * k->bm * 128 + 2L * k->stages * atoms * k->bn * 128 + spans;
        long vals = warps * k->bn * 8 * nspans;
        /* the ring of key values (fh_cfg::KVG) where it fits, before VALS */
        long ring = ring_floats > 0
                        ? 16 + ((8L * k->stages + 15) & ~15L) + (long)k->stages * k->bn * ring_floats * 4
                        : 0; /* with its "values empty" mbarriers */
        if (base + ring > 227L * 1024)
            ring = 0;
        return base + ring + (nspans > 0 && base + vals + ring <= 227L * 1024 ? vals : 0);
    }
    if (!strcmp(k->arch, "cdna")) { /* templates/hip/cdna/: K rows and transposed V, padded by 4 */
        long keys = k->family == CUDA_FAMILY_ROLLING ? k->bn : (long)k->warps * k->bnw;
        long ring = (long)k->stages * (keys * (k->d + 4) + (long)k->d * (keys + 4)) * 2;
        if (k->family == CUDA_FAMILY_ROLLING)
            return ring;
        long merge = (long)k->warps * 16 * (k->d + 4) * 4 + 2L * k->warps * 16 * 4;
        return ring > merge ? ring : merge;
    }
    long row = k->d + 8;
    if (k->family == CUDA_FAMILY_ROLLING)
        return (long)(k->bm + 2 * k->stages * k->bn) * row * 2;
    long rb = 16L * k->mt;
    long q = rb * row * 2;
    long ring = (long)k->warps * k->stages * 2 * k->bnw * row * 2;
    long merge = (long)k->warps * rb * row * 4 + 2L * k->warps * rb * 4;
    return q + (ring > merge ? ring : merge);
}

int config_dims(fg_cuda_family family, const char *arch, bool affine_score, int masked, int *ds,
                int max)
{
    int n = 0;
    for (int i = 0; i < fg_cuda_nconfigs; i++) {
        const fg_cuda_config *k = &fg_cuda_configs[i];
        if (!config_in_arch(k, family, arch) || config_admits(k, affine_score, masked) < 0)
            continue;
        int at = n;
        bool seen = false;
        for (int j = 0; j < n; j++) {
            seen |= ds[j] == k->d;
            if (!seen && ds[j] > k->d && at == n)
                at = j;
        }
        if (seen || n == max)
            continue;
        memmove(ds + at + 1, ds + at, (size_t)(n - at) * sizeof ds[0]);
        ds[at] = k->d;
        n++;
    }
    return n;
}
