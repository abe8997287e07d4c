/* test_refusals.c - one validation for every backend: each class of bad
 * argument is refused with the same fg_status by every entry point of
 * every plan that exists in the build (the CPU entries always, the CUDA
 * ones with FG_TEST_CUDA, the HIP ones with FG_TEST_HIP), through the
 * generic registry entries.  The entries run one source of checks (the
 * plan's, printed by validate_c.c into each), then what a backend adds;
 * a call that is refused touches no memory, so the tensors point at
 * addresses that are never dereferenced and no GPU is needed.
 *
 * The base call is valid for every backend (bf16 operands, or i32 for an
 * i32 input; f32 outputs where the plan declares them; dense; 256-byte
 * aligned; batch 2, heads 4 (kv heads 2 in a grouped plan), rows 33, keys
 * 70, head dim 128, any other dim 37); each class then breaks one thing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fusegen_registry.h"

#define MAX_IO 8
#define MAX_PARAMS 16

typedef struct entry {
    const char *backend;
    fg_plan_cuda_fn gpu; /* NULL: the CPU entry */
} entry;

#ifdef FG_TEST_CUDA
static const fg_plan_cuda_entry *cuda_list = fg_plan_cuda_list;
#else
static const fg_plan_cuda_entry *cuda_list = NULL;
#endif
#ifdef FG_TEST_HIP
static const fg_plan_hip_entry *hip_list = fg_plan_hip_list;
#else
static const fg_plan_hip_entry *hip_list = NULL;
#endif

/* A fake device (or host) address, 256-byte aligned; never read. */
#define FAKE(k) ((void *)(uintptr_t)(0x7f0000000000ull + (uint64_t)(k) * 0x1000000ull))

typedef struct call {
    fg_tensor in[MAX_IO], out[MAX_IO];
    double params[MAX_PARAMS];
    int has[MAX_PARAMS];
    int splits;
} call;

static int64_t dim_value(const fg_plan_info *p, int k)
{
    switch (p->dim_role[k]) {
    case FG_ROLE_BATCH: return 2;
    case FG_ROLE_HEADS: return 4;
    case FG_ROLE_KV_HEADS: return 2;
    case FG_ROLE_ROWS: return 33;
    case FG_ROLE_KEYS: return 70;
    case FG_ROLE_HEAD_DIM: return 128;
    default: return 37;
    }
}

static fg_tensor tensor(const fg_plan_info *p, const fg_plan_tensor_info *ti, int k, fg_dtype dt)
{
    int64_t shape[FG_MAX_RANK];
    for (int i = 0; i < ti->rank; i++)
        shape[i] = dim_value(p, ti->dims[i]);
    return fg_tensor_dense(FAKE(k), dt, ti->rank, shape);
}

static void base_call(const fg_plan_info *p, call *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < p->ninputs; i++)
        c->in[i] = tensor(p, &p->inputs[i], i + 1, p->inputs[i].dtype == FG_I32 ? FG_I32 : FG_BF16);
    for (int j = 0; j < p->noutputs; j++)
        c->out[j] = tensor(p, &p->outputs[j], 20 + j,
                           p->outputs[j].dtype == FG_F32 ? FG_F32 : FG_BF16);
}

static fg_status run(const fg_plan_info *p, const entry *e, const call *c)
{
    if (!e->gpu)
        return p->cpu(c->in, c->out, c->params, c->has, NULL, NULL, c->splits);
    return e->gpu(c->in, c->out, c->params, c->has, NULL, NULL, c->splits, NULL);
}

/* The input position (and tensor) that carries the keys dim but does not
 * bind it: the second tensor with it. */
static int second_with_keys(const fg_plan_info *p, int *pos)
{
    int seen = 0;
    for (int i = 0; i < p->ninputs; i++)
        for (int k = 0; k < p->inputs[i].rank; k++)
            if (p->dim_role[p->inputs[i].dims[k]] == FG_ROLE_KEYS && seen++) {
                *pos = k;
                return i;
            }
    return -1;
}

enum { C_NULL, C_RANK, C_MISMATCH, C_EMPTY, C_NEGATIVE, C_ALIGN, C_SPLITS, C_DTYPE, C_NAN, C_N };
static const char *const class_names[C_N] = {
    "NULL data", "wrong rank", "extents disagree", "empty extent", "negative extent",
    "misaligned pointer", "splits -1", "i32 for a float input", "NaN param",
};
static const fg_status class_status[C_N] = {
    FG_ERR_NULL, FG_ERR_SHAPE, FG_ERR_SHAPE, FG_ERR_SHAPE, FG_ERR_SHAPE,
    FG_ERR_ALIGN, FG_ERR_PARAM, FG_ERR_DTYPE, FG_ERR_PARAM,
};

/* The call of class cls, or 0 when the plan has nothing to break so. */
static int bad_call(const fg_plan_info *p, int cls, call *c)
{
    base_call(p, c);
    int pos = 0, t;
    switch (cls) {
    case C_NULL: c->in[0].data = NULL; return 1;
    case C_RANK: c->in[0].rank--; return 1;
    case C_MISMATCH:
        if ((t = second_with_keys(p, &pos)) < 0)
            return 0;
        c->in[t].shape[pos]++;
        return 1;
    case C_EMPTY:
    case C_NEGATIVE:
        for (int k = 0; k < c->in[0].rank; k++)
            if (p->dim_role[p->inputs[0].dims[k]] == FG_ROLE_ROWS ||
                p->dim_role[p->inputs[0].dims[k]] == FG_ROLE_KEYS) {
                c->in[0].shape[k] = cls == C_EMPTY ? 0 : -3;
                return 1;
            }
        return 0;
    case C_ALIGN: c->in[0].data = (char *)c->in[0].data + 1; return 1;
    case C_SPLITS: c->splits = -1; return 1;
    case C_DTYPE:
        if (p->inputs[0].dtype == FG_I32)
            return 0;
        c->in[0].dtype = FG_I32;
        return 1;
    case C_NAN:
        for (int k = 0; k < p->nparams && k < MAX_PARAMS; k++)
            if (!p->params[k].is_int && p->params[k].axis < 0) {
                c->params[k] = NAN;
                c->has[k] = 1;
                return 1;
            }
        return 0;
    }
    return 0;
}

static void every_class_every_entry(void **state)
{
    (void)state;
    int checked = 0, backends = 1;
    for (int i = 0; fg_plan_list[i]; i++) {
        const fg_plan_info *p = fg_plan_list[i];
        assert_true(p->ninputs <= MAX_IO && p->noutputs <= MAX_IO && p->nparams <= MAX_PARAMS);
        entry es[3] = {{"cpu", NULL}};
        int ne = 1;
        for (int k = 0; cuda_list && cuda_list[k].name; k++)
            if (!strcmp(cuda_list[k].name, p->name))
                es[ne++] = (entry){"cuda", cuda_list[k].fn};
        for (int k = 0; hip_list && hip_list[k].name; k++)
            if (!strcmp(hip_list[k].name, p->name))
                es[ne++] = (entry){"hip", hip_list[k].fn};
        backends = ne > backends ? ne : backends;
        for (int cls = 0; cls < C_N; cls++) {
            call c;
            if (!bad_call(p, cls, &c))
                continue;
            for (int e = 0; e < ne; e++) {
                fg_status st = run(p, &es[e], &c);
                if (st != class_status[cls])
                    fail_msg("%s, %s entry, %s: %s, expected %s (%s)", p->name, es[e].backend,
                             class_names[cls], fg_strerror(st), fg_strerror(class_status[cls]),
                             fg_last_error());
                checked++;
            }
        }
    }
    printf("%d refusals checked, up to %d entries per plan\n", checked, backends);
    assert_true(checked > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_class_every_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
