/* rows-bench.c - the row-reduction kernels (family rowreduce) timed on the
 * cases of bench/rows.tsv: per case, fresh random inputs, outputs along the
 * row in the input's dtype and per-row outputs in f32, 5 warm-up launches,
 * then the median of 50 launches each timed by device events.  One JSON
 * line per case on stdout:
 *   {"id": ..., "impl": "fusegen", "ms": ..., "gbps": ...}
 * GB/s counts each byte once: the input read and the outputs written.
 * bench/rows_torch.py times torch on the same cases in the same call, and
 * bench/run-gpu.sh puts them side by side.  Exit 77 without a GPU.
 *
 * usage: rows-bench [--cases FILE] [--only ID,ID]
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fusegen_registry.h"

#define RUNS 50
#define WARM 5

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static const fg_plan_info *find_info(const char *name)
{
    for (int i = 0; fg_plan_list[i]; i++)
        if (!strcmp(fg_plan_list[i]->name, name))
            return fg_plan_list[i];
    return NULL;
}

static fg_plan_cuda_fn find_cuda(const char *name)
{
    for (int i = 0; fg_plan_cuda_list[i].name; i++)
        if (!strcmp(fg_plan_cuda_list[i].name, name))
            return fg_plan_cuda_list[i].fn;
    return NULL;
}

static int listed(const char *only, const char *id)
{
    if (!only)
        return 1;
    size_t n = strlen(id);
    for (const char *p = only; (p = strstr(p, id)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* A tensor of the case: rows x cols (rank 2) or rows (rank 1), dense. */
static void shape(fg_tensor *t, const fg_plan_tensor_info *ti, const int64_t *dims, fg_dtype dt)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = ti->rank;
    int64_t s = 1;
    for (int k = ti->rank - 1; k >= 0; k--) {
        t->shape[k] = dims[ti->dims[k]];
        t->stride[k] = s;
        s *= t->shape[k];
    }
}

static int64_t numel(const fg_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->rank; k++)
        n *= t->shape[k];
    return n;
}

static int run_case(const char *id, const char *plan, const char *dtn, long rows, long cols)
{
    const fg_plan_info *info = find_info(plan);
    fg_plan_cuda_fn fn = find_cuda(plan);
    if (!info || !fn || info->ninputs > 4 || info->noutputs > 4 || info->ndims > 8) {
        fprintf(stderr, "%s: plan %s has no CUDA entry here: skipped\n", id, plan);
        return 0;
    }
    fg_dtype dt = !strcmp(dtn, "f32") ? FG_F32 : !strcmp(dtn, "fp16") ? FG_FP16 : FG_BF16;
    int64_t dims[8];
    for (int i = 0; i < info->ndims; i++)
        dims[i] = info->dim_role[i] == FG_ROLE_KEYS ? cols : rows;
    fg_tensor in[4], out[4];
    void *bufs[8] = {0};
    int nb = 0;
    double bytes = 0;
    int ok = 1;
    for (int i = 0; i < info->ninputs && ok; i++) {
        shape(&in[i], &info->inputs[i], dims, dt);
        size_t b = (size_t)numel(&in[i]) * fg_dtype_size(dt);
        ok = cudaMalloc(&bufs[nb], b) == cudaSuccess;
        in[i].data = bufs[nb++];
        bytes += (double)b;
        /* random bits in [-4, 4): bf16/fp16 halves of a float pattern */
        if (ok) {
            unsigned char *h = malloc(b);
            ok = h != NULL;
            uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)b;
            for (size_t q = 0; ok && q < b / 2; q++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                float x = (float)(s % 8000) / 1000.0f - 4.0f;
                uint32_t u;
                memcpy(&u, &x, 4);
                if (dt == FG_F32) {
                    if (q % 2 == 0 && 2 * q + 4 <= b)
                        memcpy(h + 2 * q, &x, 4);
                } else if (dt == FG_BF16) {
                    uint16_t v = (uint16_t)(u >> 16);
                    memcpy(h + 2 * q, &v, 2);
                } else {
                    uint16_t v = (uint16_t)(0x3c00 | (s & 0x3ff)); /* fp16 in [1, 2) */
                    memcpy(h + 2 * q, &v, 2);
                }
            }
            ok = ok && cudaMemcpy(in[i].data, h, b, cudaMemcpyHostToDevice) == cudaSuccess;
            free(h);
        }
    }
    for (int j = 0; j < info->noutputs && ok; j++) {
        fg_dtype odt = info->outputs[j].rank == 2 ? dt : FG_F32;
        shape(&out[j], &info->outputs[j], dims, odt);
        size_t b = (size_t)numel(&out[j]) * fg_dtype_size(odt);
        ok = cudaMalloc(&bufs[nb], b) == cudaSuccess;
        out[j].data = bufs[nb++];
        bytes += (double)b;
    }
    float ms[RUNS];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    fg_status st = FG_OK;
    for (int r = 0; ok && st == FG_OK && r < WARM + RUNS; r++) {
        cudaEventRecord(e0, 0);
        st = fn(in, out, NULL, NULL, NULL, NULL, 0, NULL);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        if (r >= WARM)
            cudaEventElapsedTime(&ms[r - WARM], e0, e1);
    }
    cudaError_t e = cudaGetLastError();
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    for (int i = 0; i < nb; i++)
        cudaFree(bufs[i]);
    if (!ok || st != FG_OK || e != cudaSuccess) {
        fprintf(stderr, "%s: FAILED: %s %s %s\n", id, ok ? "" : "allocation failed",
                st != FG_OK ? fg_last_error() : "", cudaGetErrorString(e));
        return 1;
    }
    qsort(ms, RUNS, sizeof ms[0], cmp_float);
    double med = ms[RUNS / 2];
    printf("{\"id\": \"%s\", \"impl\": \"fusegen\", \"ms\": %.5f, \"gbps\": %.1f}\n", id, med,
           bytes / (med * 1e-3) / 1e9);
    fprintf(stderr, "%-24s fusegen %9.4f ms %8.1f GB/s\n", id, med, bytes / (med * 1e-3) / 1e9);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cases = "bench/rows.tsv", *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--cases FILE] [--only ID,ID]\n", argv[0]);
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "rows-bench: no usable GPU: skipped\n");
        return 77;
    }
    FILE *f = fopen(cases, "r");
    if (!f) {
        fprintf(stderr, "rows-bench: cannot open %s\n", cases);
        return 2;
    }
    char line[512];
    int failed = 0;
    while (fgets(line, sizeof line, f)) {
        char id[128], plan[64], dtn[16];
        long rows, cols;
        if (line[0] == '#' || sscanf(line, "%127s %63s %15s %ld %ld", id, plan, dtn, &rows, &cols) != 5)
            continue;
        if (listed(only, id))
            failed += run_case(id, plan, dtn, rows, cols);
    }
    fclose(f);
    return failed ? 1 : 0;
}
