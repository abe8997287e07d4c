/* test_cuda_entry.c - the validation of the generated CUDA entry points
 * (libfusegen_cuda.a), without a GPU: every argument the kernels cannot
 * take is refused with its status and a message naming it, before any
 * device call (an empty extent as on the CPU entry); the generic
 * registry lists the plans with CUDA kernels.  The tensors point at
 * addresses that are never dereferenced: validation fails first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fusegen_plans.h"

/* A fake device address, 256-byte aligned; never read. */
#define FAKE(k) ((void *)(uintptr_t)(0x7f0000000000ull + (uint64_t)(k) * 0x1000000ull))

static fg_tensor dense4(int k, fg_dtype t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t shape[4] = {a, b, c, d};
    return fg_tensor_dense(FAKE(k), t, 4, shape);
}

static fg_tensor dense3(int k, fg_dtype t, int64_t a, int64_t b, int64_t c)
{
    int64_t shape[3] = {a, b, c};
    return fg_tensor_dense(FAKE(k), t, 3, shape);
}

/* B 2, H 4, M 33, N 70, D 128, bf16, LSE f32: valid for the kernels. */
static fg_causal_args causal_args(int64_t d)
{
    fg_causal_args a;
    memset(&a, 0, sizeof a);
    a.Q = dense4(1, FG_BF16, 2, 4, 33, d);
    a.K = dense4(2, FG_BF16, 2, 4, 70, d);
    a.V = dense4(3, FG_BF16, 2, 4, 70, d);
    a.O = dense4(4, FG_BF16, 2, 4, 33, d);
    a.LSE = dense3(5, FG_F32, 2, 4, 33);
    return a;
}

/* Hq 8, Hkv 2 */
static fg_gqa_args gqa_args(void)
{
    fg_gqa_args a;
    memset(&a, 0, sizeof a);
    a.Q = dense4(1, FG_FP16, 1, 8, 16, 64);
    a.K = dense4(2, FG_FP16, 1, 2, 100, 64);
    a.V = dense4(3, FG_FP16, 1, 2, 100, 64);
    a.O = dense4(4, FG_FP16, 1, 8, 16, 64);
    a.LSE = dense3(5, FG_F32, 1, 8, 16);
    return a;
}

static void expect(fg_status got, fg_status want, const char *message_part)
{
    if (got != want)
        fail_msg("status %s, expected %s (%s)", fg_strerror(got), fg_strerror(want),
                 fg_last_error());
    if (!strstr(fg_last_error(), message_part))
        fail_msg("message '%s' lacks '%s'", fg_last_error(), message_part);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    expect(fg_causal(NULL, NULL), FG_ERR_NULL, "fg_causal: args is NULL");
    fg_causal_args a = causal_args(128);
    a.K.data = NULL;
    expect(fg_causal(&a, NULL), FG_ERR_NULL, "fg_causal: K");
}

static void shapes_that_disagree_are_refused(void **state)
{
    (void)state;
    fg_causal_args a = causal_args(128);
    a.V = dense4(3, FG_BF16, 2, 4, 71, 128);
    expect(fg_causal(&a, NULL), FG_ERR_SHAPE, "fg_causal: V.shape[2] is 71, but N is 70 (from K.shape[2])");
    a = causal_args(128);
    a.O = dense4(4, FG_BF16, 2, 4, 32, 128);
    expect(fg_causal(&a, NULL), FG_ERR_SHAPE, "fg_causal: O.shape[2] is 32, but M is 33 (from Q.shape[2])");
    a = causal_args(128);
    a.K = dense4(2, FG_BF16, 2, 2, 70, 128);
    a.V = dense4(3, FG_BF16, 2, 2, 70, 128);
    expect(fg_causal(&a, NULL), FG_ERR_SHAPE, "fg_causal: K.shape[1] is 2, but H is 4 (from Q.shape[1])");
    a = causal_args(128);
    a.LSE = dense3(5, FG_F32, 2, 4, 34);
    expect(fg_causal(&a, NULL), FG_ERR_SHAPE, "fg_causal: LSE.shape[2] is 34, but M is 33 (from Q.shape[2])");
}

static void dtypes_the_kernels_lack_are_refused(void **state)
{
    (void)state;
    fg_causal_args a = causal_args(128);
    a.O.dtype = FG_FP16;
    expect(fg_causal(&a, NULL), FG_ERR_DTYPE, "must have one dtype (bf16 or fp16); they are bf16, bf16, bf16, fp16");
    a = causal_args(128);
    a.Q = dense4(1, FG_F32, 2, 4, 33, 128);
    expect(fg_causal(&a, NULL), FG_ERR_DTYPE, "fg_causal: Q");
    a = causal_args(128);
    a.LSE.dtype = FG_BF16;
    expect(fg_causal(&a, NULL), FG_ERR_DTYPE, "fg_causal: LSE");
}

static void head_dims_without_kernels_are_unsupported(void **state)
{
    (void)state;
    /* no family serves these (the sm_90a one takes every multiple of 8 up
     * to 256; which of 48, 80, 160 run is the device's to say: gpu_check) */
    static const int64_t bad[] = {264, 512, 520};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fg_causal_args a = causal_args(bad[i]);
        expect(fg_causal(&a, NULL), FG_ERR_UNSUPPORTED,
               "has no compiled kernel (64, 96, 128 or 256; on sm_90a, every multiple of 8 up to 256)");
    }
}

static void layouts_the_kernels_cannot_read_are_refused(void **state)
{
    (void)state;
    fg_causal_args a = causal_args(128);
    a.Q.data = (char *)a.Q.data + 2; /* one element off 16 bytes */
    expect(fg_causal(&a, NULL), FG_ERR_ALIGN, "fg_causal: Q");
    a = causal_args(128);
    a.K.stride[2] = 130; /* rows of 260 bytes */
    expect(fg_causal(&a, NULL), FG_ERR_ALIGN, "fg_causal: K");
    a = causal_args(128);
    a.V.stride[3] = 2; /* innermost not contiguous */
    a.V.stride[2] = 256;
    a.V.stride[1] = 256 * 70;
    a.V.stride[0] = 256 * 70 * 4;
    expect(fg_causal(&a, NULL), FG_ERR_STRIDE, "fg_causal: V");
    a = causal_args(128);
    a.LSE.stride[1] = 40; /* LSE rows padded: the kernel writes it densely */
    a.LSE.stride[0] = 160;
    expect(fg_causal(&a, NULL), FG_ERR_STRIDE, "the kernel writes LSE densely");
}

static void params_out_of_range_are_refused(void **state)
{
    (void)state;
    fg_causal_args a = causal_args(128);
    a.scale = -0.5f;
    a.has_scale = 1;
    expect(fg_causal(&a, NULL), FG_ERR_PARAM, "fg_causal: the score's constant factor scale = -0.5:");
    a.scale = 0.0f;
    expect(fg_causal(&a, NULL), FG_ERR_PARAM, "constant factor scale = 0:");
    /* cap * tanh(S / cap): the kernel takes the row max on tanh and folds
     * cap into the exp2 argument, so cap must be > 0 (the CPU entry takes
     * any nonzero cap) */
    fg_softcap_args sc;
    memset(&sc, 0, sizeof sc);
    sc.Q = dense4(1, FG_BF16, 1, 4, 33, 128);
    sc.K = dense4(2, FG_BF16, 1, 2, 70, 128);
    sc.V = dense4(3, FG_BF16, 1, 2, 70, 128);
    sc.O = dense4(4, FG_BF16, 1, 4, 33, 128);
    sc.LSE = dense3(5, FG_F32, 1, 4, 33);
    sc.cap = -50.0f;
    sc.has_cap = 1;
    expect(fg_softcap(&sc, NULL), FG_ERR_PARAM, "fg_softcap: the score's constant factor cap = -50:");
    /* qk * scale + slope * (n - m): the sm_90a kernel starts S at the
     * term over the factor of qk and takes the row max before it applies
     * the factor (LINA), so scale must be > 0 */
    fg_alibi_args al;
    memset(&al, 0, sizeof al);
    al.Q = dense4(1, FG_BF16, 1, 4, 33, 128);
    al.K = dense4(2, FG_BF16, 1, 4, 70, 128);
    al.V = dense4(3, FG_BF16, 1, 4, 70, 128);
    al.O = dense4(4, FG_BF16, 1, 4, 33, 128);
    al.LSE = dense3(5, FG_F32, 1, 4, 33);
    al.scale = -0.25f;
    al.has_scale = 1;
    expect(fg_alibi(&al, NULL), FG_ERR_PARAM, "fg_alibi: the score's factor of qk, scale = -0.25:");
    a = causal_args(128);
    a.splits = -1;
    expect(fg_causal(&a, NULL), FG_ERR_PARAM, "fg_causal: splits is -1");
    fg_gqa_args g = gqa_args();
    g.G = 0;
    g.has_G = 1;
    expect(fg_gqa(&g, NULL), FG_ERR_PARAM, "fg_gqa: G = 0 divides (plan line 12) and must be positive");
    g.G = 3;
    expect(fg_gqa(&g, NULL), FG_ERR_SHAPE, "fg_gqa: Hq (8) is not divisible by G (3), as K[h / G] needs");
    g = gqa_args();
    g.K = dense4(2, FG_FP16, 1, 3, 100, 64);
    g.V = dense4(3, FG_FP16, 1, 3, 100, 64);
    expect(fg_gqa(&g, NULL), FG_ERR_SHAPE, "fg_gqa: Hq = 8, Hkv = 3 and G = 2: K[h / G] needs Hq = G * Hkv");
}

/* Every extent of every CUDA entry, one at a time 0 (the others valid for
 * the kernels): refused as FG_ERR_SHAPE before any device call, as the CPU
 * entry refuses it (test_cpu: empty_extents_are_refused); an empty tensor
 * may have a NULL pointer and any strides. */
static void empty_extents_are_refused(void **state)
{
    (void)state;
    int checked = 0;
    for (int e = 0; fg_plan_cuda_list[e].name; e++) {
        const fg_plan_info *info = NULL;
        for (int i = 0; fg_plan_list[i]; i++)
            if (!strcmp(fg_plan_list[i]->name, fg_plan_cuda_list[e].name))
                info = fg_plan_list[i];
        assert_non_null(info);
        bool grouped = false;
        for (int i = 0; i < info->ndims; i++)
            grouped = grouped || info->dim_role[i] == FG_ROLE_KV_HEADS;
        for (int z = 0; z < info->ndims; z++) {
            int64_t dims[16];
            for (int i = 0; i < info->ndims && i < 16; i++)
                switch (info->dim_role[i]) {
                case FG_ROLE_BATCH: dims[i] = 2; break;
                case FG_ROLE_HEADS: dims[i] = grouped ? 8 : 4; break;
                case FG_ROLE_KV_HEADS: dims[i] = 2; break;
                case FG_ROLE_ROWS: dims[i] = 33; break;
                case FG_ROLE_KEYS: dims[i] = 70; break;
                case FG_ROLE_HEAD_DIM: dims[i] = 128; break;
                default: dims[i] = 3; break;
                }
            dims[z] = 0;
            fg_tensor in[8], out[8];
            assert_true(info->ninputs <= 8 && info->noutputs <= 8);
            for (int k = 0; k < info->ninputs + info->noutputs; k++) {
                bool is_in = k < info->ninputs;
                const fg_plan_tensor_info *ti =
                    is_in ? &info->inputs[k] : &info->outputs[k - info->ninputs];
                int64_t shape[FG_MAX_RANK];
                for (int q = 0; q < ti->rank; q++)
                    shape[q] = dims[ti->dims[q]];
                fg_dtype dt = !is_in && k > info->ninputs ? FG_F32 /* LSE */
                              : is_in && ti->dtype == FG_I32 ? FG_I32 /* ids */
                                                             : FG_BF16;
                fg_tensor t = fg_tensor_dense(FAKE(k + 1), dt, ti->rank, shape);
                if (is_in)
                    in[k] = t;
                else
                    out[k - info->ninputs] = t;
            }
            fg_status st = fg_plan_cuda_list[e].fn(in, out, NULL, NULL, NULL, NULL, 0, NULL);
            char what[96];
            snprintf(what, sizeof what, "%s with %s = 0", info->name, info->dims[z]);
            if (st != FG_ERR_SHAPE)
                fail_msg("%s: status %s (%s), expected a shape error", what, fg_strerror(st),
                         fg_last_error());
            /* the plan's checks (one source with the CPU entry's): a dim a
             * contraction reduces over names that statement */
            if (!strstr(fg_last_error(), "an empty extent is refused") &&
                !strstr(fg_last_error(), "reduces over it"))
                fail_msg("%s: message '%s'", what, fg_last_error());
            checked++;
        }
    }
    assert_true(checked >= 10 * 5);
}

static void valid_arguments_reach_the_device(void **state)
{
    (void)state;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
        skip(); /* a real GPU would run the kernel on fake addresses */
    fg_causal_args a = causal_args(128);
    expect(fg_causal(&a, NULL), FG_ERR_DEVICE, "fg_causal: no usable CUDA device");
    fg_alibi_decode_args d;
    memset(&d, 0, sizeof d);
    d.Q = dense4(1, FG_FP16, 3, 4, 2, 96);
    d.K = dense4(2, FG_FP16, 3, 4, 500, 96);
    d.V = dense4(3, FG_FP16, 3, 4, 500, 96);
    d.O = dense4(4, FG_FP16, 3, 4, 2, 96);
    d.splits = 5;
    expect(fg_alibi_decode(&d, NULL), FG_ERR_DEVICE, "fg_alibi_decode: no usable CUDA device");
}

static void registry_lists_the_cuda_plans(void **state)
{
    (void)state;
    static const char *const want[] = {
        "alibi", "alibi_decode", "base2", "causal", "causal_decode", "diffattn", "docmask", "fa1", "global",
        "gqa", "gqa_decode", "layernorm", "logsoftmax", "logsumexp", "maxlogit", "moments", "prefixlm", "relbias",
        "rmsnorm",
        "rowmax", "siggate", "sigmoid", "sinkwindow", "softcap", "softcap_decode", "softmax", "window",
    };
    size_t n = 0;
    while (fg_plan_cuda_list[n].name) {
        assert_non_null(fg_plan_cuda_list[n].fn);
        n++;
    }
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(fg_plan_cuda_list[i].name, want[i]);
    assert_null(fg_plan_cuda_list[n].fn);
    /* the generic entry validates as the plan's own: V one key longer */
    fg_tensor in[3], out[2];
    in[0] = dense4(1, FG_BF16, 1, 2, 5, 64);
    in[1] = dense4(2, FG_BF16, 1, 2, 9, 64);
    in[2] = dense4(3, FG_BF16, 1, 2, 10, 64);
    out[0] = dense4(4, FG_BF16, 1, 2, 5, 64);
    out[1] = dense3(5, FG_F32, 1, 2, 5);
    expect(fg_plan_cuda_list[3].fn(in, out, NULL, NULL, NULL, NULL, 0, NULL), FG_ERR_SHAPE,
           "fg_causal: V.shape[2] is 10, but N is 9 (from K.shape[2])");
    expect(fg_plan_cuda_list[3].fn(NULL, out, NULL, NULL, NULL, NULL, 0, NULL), FG_ERR_NULL,
           "causal: inputs or outputs is NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(shapes_that_disagree_are_refused),
        cmocka_unit_test(dtypes_the_kernels_lack_are_refused),
        cmocka_unit_test(head_dims_without_kernels_are_unsupported),
        cmocka_unit_test(layouts_the_kernels_cannot_read_are_refused),
        cmocka_unit_test(params_out_of_range_are_refused),
        cmocka_unit_test(empty_extents_are_refused),
        cmocka_unit_test(valid_arguments_reach_the_device),
        cmocka_unit_test(registry_lists_the_cuda_plans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
