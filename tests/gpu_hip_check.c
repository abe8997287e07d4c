/* gpu_hip_check.c - `make check-gpu` on an AMD GPU: the HIP kernels
 * (libfusegen_hip.a) of the causal (rolling) and causal_decode (split) plans
 * against their CPU entries (libfusegen_cpu.a) on random bf16 inputs of odd
 * sizes, for every compiled head dim, outputs poisoned before each run.
 * Exits 77 when there is no usable AMD GPU (none was reachable when it was
 * written: it has never run on AMD hardware). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "fusegen_causal.h"
#include "fusegen_causal_decode.h"

static int failures;

static uint16_t *rand_bf16(size_t n)
{
    uint16_t *x = malloc(n * sizeof *x);
    for (size_t i = 0; x && i < n; i++)
        x[i] = fg_float_to_bf16((float)rand() / RAND_MAX - 0.5f);
    return x;
}

static void *to_dev(const void *h, size_t bytes)
{
    void *d = NULL;
    if (hipMalloc(&d, bytes) != hipSuccess)
        return NULL;
    if (h)
        hipMemcpy(d, h, bytes, hipMemcpyHostToDevice);
    else
        hipMemset(d, 0xff, bytes); /* poison: NaN in bf16 and f32 */
    return d;
}

/* One shape: the GPU entry against the CPU entry; decode: the split plan. */
static void check(int decode, int64_t B, int64_t H, int64_t M, int64_t N, int64_t D)
{
    const size_t nq = (size_t)(B * H * M * D), nk = (size_t)(B * H * N * D), nl = (size_t)(B * H * M);
    uint16_t *q = rand_bf16(nq), *k = rand_bf16(nk), *v = rand_bf16(nk);
    uint16_t *o_cpu = calloc(nq, 2), *o_gpu = calloc(nq, 2);
    float *l_cpu = calloc(nl, 4), *l_gpu = calloc(nl, 4);
    void *dq = to_dev(q, nq * 2), *dk = to_dev(k, nk * 2), *dv = to_dev(v, nk * 2);
    void *dO = to_dev(NULL, nq * 2), *dl = to_dev(NULL, nl * 4);
    int64_t sq[4] = {B, H, M, D}, sk[4] = {B, H, N, D}, sl[3] = {B, H, M};
    fg_tensor hQ = fg_tensor_dense(q, FG_BF16, 4, sq), hK = fg_tensor_dense(k, FG_BF16, 4, sk);
    fg_tensor hV = fg_tensor_dense(v, FG_BF16, 4, sk), hO = fg_tensor_dense(o_cpu, FG_BF16, 4, sq);
    fg_tensor hL = fg_tensor_dense(l_cpu, FG_F32, 3, sl);
    fg_tensor gQ = fg_tensor_dense(dq, FG_BF16, 4, sq), gK = fg_tensor_dense(dk, FG_BF16, 4, sk);
    fg_tensor gV = fg_tensor_dense(dv, FG_BF16, 4, sk), gO = fg_tensor_dense(dO, FG_BF16, 4, sq);
    fg_tensor gL = fg_tensor_dense(dl, FG_F32, 3, sl);
    fg_status s1, s2;
    if (decode) {
        fg_causal_decode_args a = {0}, g = {0};
        a.Q = hQ, a.K = hK, a.V = hV, a.O = hO, a.LSE = hL;
        g.Q = gQ, g.K = gK, g.V = gV, g.O = gO, g.LSE = gL;
        s1 = fg_causal_decode_cpu(&a);
        s2 = fg_causal_decode_hip(&g, NULL);
    } else {
        fg_causal_args a = {0}, g = {0};
        a.Q = hQ, a.K = hK, a.V = hV, a.O = hO, a.LSE = hL;
        g.Q = gQ, g.K = gK, g.V = gV, g.O = gO, g.LSE = gL;
        s1 = fg_causal_cpu(&a);
        s2 = fg_causal_hip(&g, NULL);
    }
    hipDeviceSynchronize();
    hipMemcpy(o_gpu, dO, nq * 2, hipMemcpyDeviceToHost);
    hipMemcpy(l_gpu, dl, nl * 4, hipMemcpyDeviceToHost);
    double err = 0;
    for (size_t i = 0; i < nq; i++)
        err = fmax(err, fabs(fg_bf16_to_float(o_cpu[i]) - fg_bf16_to_float(o_gpu[i])));
    for (size_t i = 0; i < nl; i++)
        if (!(isinf(l_cpu[i]) && l_cpu[i] == l_gpu[i]))
            err = fmax(err, fabs(l_cpu[i] - l_gpu[i]));
    const int ok = s1 == FG_OK && s2 == FG_OK && err < 2e-2;
    printf("%s %s B%lld H%lld M%lld N%lld D%lld: max error %g%s%s\n", ok ? "PASS" : "FAIL",
           decode ? "causal_decode" : "causal", (long long)B, (long long)H, (long long)M, (long long)N,
           (long long)D, err, s2 != FG_OK ? ": " : "", s2 != FG_OK ? fg_last_error() : "");
    failures += !ok;
    hipFree(dq), hipFree(dk), hipFree(dv), hipFree(dO), hipFree(dl);
    free(q), free(k), free(v), free(o_cpu), free(o_gpu), free(l_cpu), free(l_gpu);
}

int main(void)
{
    int n = 0;
    if (hipGetDeviceCount(&n) != hipSuccess || n < 1) {
        printf("gpu_hip_check: no usable AMD GPU: skipped\n");
        return 77;
    }
    static const int dims[] = {64, 96, 128, 256};
    for (int i = 0; i < 4; i++) {
        check(0, 2, 3, 77, 133, dims[i]);
        check(1, 2, 3, 1, 1029, dims[i]);
    }
    printf("gpu_hip_check: %d failed\n", failures);
    return failures ? 1 : 0;
}
