/* gpu_check.c - the CUDA kernels of every plan in fg_plan_cuda_list against
 * the CPU entry of the same plan (`make check-gpu`; plain C11 and the CUDA
 * runtime API, no CMocka: the GPU machines have none).  Built with GC_HIP
 * (tests/gpu_hip_check), the same checks of the HIP kernels of every plan
 * in fg_plan_hip_list through HIP's runtime API, on an AMD GPU (the head
 * dims of the sm_90a family aside).
 *
 * Per case: fresh random inputs (normal, rounded to bf16 or fp16; one seed
 * from the time or --seed, printed, each case drawing from it and its
 * number), sizes chosen to be awkward for the tiles, a packed layout or a
 * strided one (Q and O as [b, m, h, d], K and V with padded rows; the gaps
 * hold NaN, so a kernel that reads them shows it).  Outputs are poisoned
 * with NaN bytes before each run; afterwards the gaps must still hold them.
 * The reference is the plan's CPU entry (itself checked against the double
 * precision interpreter by `make check`) on the same rounded inputs as f32.
 *
 *   rolling plans: query rows 1, 7, 67, 300 x key rows 1, 13, 131, 1000,
 *     4097 at head dim 128, plus rows 600 and 16k keys (the long-row
 *     configuration); at 64, 96 and 256 four of those pairs; groups 1
 *     and 4 where the plan groups heads (a kv-heads dim) (window: W = 100 or its default);
 *     plans with a param named cap (soft-capped scores): a cap of 80 and of
 *     2, and Q times 100 (scores past the cap: at the default cap the
 *     weights at both ends of the sm_90a kernel's range for its fixed
 *     offset, FIXM; bf16 and fp16);
 *   split plans: query rows 1, 3, 16 x key rows 1, 13, 131, 1000, 4097 x
 *     splits auto, 1, 2, 3, 7, 16, 64 at head dim 128; splits auto and 3 at
 *     the other head dims; groups 1 and 4 where the plan groups heads;
 *   split plans with per-sequence key lengths (dim N[b]): batch 5 whose
 *     sequences hold 0, 1, 13, all and a random number of the keys, query
 *     rows 1, 3, 16 x key rows 131, 1000, 4097, head dims 128 and 64;
 *   every plan inside a CUDA graph (captured on a stream of its own,
 *     replayed; split plans there take the separate combine kernel, not the
 *     folded one; on HIP, whose launchers allocate and clear the tickets in
 *     stream order, the graph holds those steps and the folded combine);
 *   batch 2 (but the lengths' 5), bf16 and fp16 for all of them;
 *   plans with O and two values per row or more: two cases in three pass
 *     one of the values with NULL data (not computed; not compared), in
 *     turn;
 *   per plan, bad arguments (NULL data, K and V of different lengths, head
 *   dim 264, a misaligned pointer) must return FG_ERR_NULL, FG_ERR_SHAPE,
 *   FG_ERR_UNSUPPORTED, FG_ERR_ALIGN and leave the outputs untouched.
 * A head dim the entry answers FG_ERR_UNSUPPORTED for is skipped, except
 * 128, and on the sm_90a family (a device of compute capability 9.0 without
 * FUSEGEN_CUDA_FAMILY=sm80) every multiple of 8 up to 256 in a rolling plan:
 * those must run.  Rolling plans also run head dims 32, 80, 160, 192, 224
 * and 40, 72, 136, 248 (odd multiples of 8: the next compiled dim with the
 * columns past D read as zero), refused by the sm_80 family and served by
 * the sm_90a one, and groups up to 8.
 *
 *   row plans (family rowreduce: softmax, logsumexp, ...): rows 1, 3, 67,
 *     300 x row lengths 1, 7, 33, 1000, 4097, 32769, each form's edges
 *     (1024, 8192, 32768) and past them up to 262147, inputs bf16, fp16 and
 *     f32, outputs declared f32 also stored in 16 bits, layouts dense,
 *     rows padded by 3 elements (unaligned row starts), column-major, and
 *     from a base one element off (row_cases); split counts given (1 to
 *     1000) and chosen; inside a CUDA graph; bad arguments (NULL data, a
 *     short output, a misaligned input, splits -1) refused, nothing
 *     written.
 *
 * Pass: ||O - ref|| / ||ref|| < 1e-2 and, per LSE element,
 * |LSE - ref| / max(1, |ref|) < 1e-3 (every output stored as f32 is checked
 * per element so); a reference -inf (no visible key)
 * must be matched exactly; no NaN in any output element.
 *
 * usage: gpu_check [--small] [--seed N] [--plans NAME,...] [--config NAME]
 *   --small  a few sizes per plan, bf16 only, and the bad arguments: for
 *            compute-sanitizer (tests/gpu-sanitize.sh).
 *   --plans  only these plans.
 *   --config every launch of a head dim that the tuned configuration NAME
 *            serves takes it ($FUSEGEN_CONFIG, fg_forced_config): a launch
 *            picks a tuned configuration only where its shape falls in a
 *            wisdom row's bucket, which the check's shapes seldom do
 *            (tests/gpu-configs.sh walks them all); fails where no case
 *            took NAME.
 * Prints one line per case and `N passed, N failed, N skipped`; exit 0 if
 * nothing failed, 77 without a usable GPU, 1 otherwise.  Cases go in
 * batches: the GPU runs a batch one case after another, then the CPU
 * references of the batch run on all cores, one thread per case.
 */
#include <config.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GC_HIP
/* HIP's runtime API under the CUDA names this file uses (the calls and
 * their meanings are the same; the graph's instantiation takes its flags
 * through hipGraphInstantiateWithFlags). */
#include <hip/hip_runtime_api.h>
#define GC_API "HIP"
#define gc_plan_list fg_plan_hip_list
typedef hipError_t cudaError_t;
typedef hipStream_t cudaStream_t;
typedef hipGraph_t cudaGraph_t;
typedef hipGraphExec_t cudaGraphExec_t;
typedef hipDeviceProp_t gc_device_prop;
#define cudaSuccess hipSuccess
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaFree hipFree
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaGraphDestroy hipGraphDestroy
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphInstantiate hipGraphInstantiateWithFlags
#define cudaGraphLaunch hipGraphLaunch
#define cudaMalloc hipMalloc
#define cudaMemcpy hipMemcpy
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemset hipMemset
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize
#else
#include <cuda_runtime_api.h>
#define GC_API "CUDA"
#define gc_plan_list fg_plan_cuda_list
typedef struct cudaDeviceProp gc_device_prop;
#endif

#include "fusegen_registry.h"

#define BATCH 32
#define MAX_IO 8
#define MAX_PARAMS 8
#define O_TOL 1e-2
#define LSE_TOL 1e-3

typedef struct gc_case {
    const fg_plan_info *info;
    fg_plan_cuda_fn fn;
    int index;
    int b, hq, hkv, m, n, d;
    fg_dtype dt;
    int splits;  /* passed to the CUDA entry; 0 = auto */
    int strided; /* non-packed layouts */
    int window;  /* W for a plan with that param, 0 = its default */
    double cap;  /* the soft cap for a plan with a param named cap, 0 = its default */
    float qamp;  /* the first input (Q) times this, 0 = 1: scores past the cap */
    int ragged;  /* per-sequence key lengths (dim N[b]): lens[0..b) */
    int graph;   /* launched on a stream of its own, captured into a CUDA graph (split
                    plans then take the separate combine kernel), the graph run twice */
    int32_t lens[8];
    int drop;    /* 1 + the output index of a value per row passed with NULL data
                    (not computed), 0 none */
    /* rowreduce plans: the inputs' dtype (bf16, fp16 or f32), and outputs
     * declared f32 stored in dt instead (out16) */
    fg_dtype in_dt;
    int out16;
    int masked; /* rowreduce plans: the first row of the first input all -inf (a
                   masked row), one element of the second -inf; where the
                   reference is NaN the kernel's output must be NaN too */
    char label[200];

    double params[MAX_PARAMS];
    int has[MAX_PARAMS];

    /* Host side: dense f32 inputs (rounded values) and reference outputs. */
    fg_tensor ref_in[MAX_IO], ref_out[MAX_IO];
    /* The device outputs as copied back, in their device layout. */
    fg_tensor got[MAX_IO];
    size_t got_elems[MAX_IO];

    enum { C_PENDING, C_SKIP, C_FAIL, C_DONE } state;
    fg_status refused; /* the CUDA entry refused the shape: so must the CPU one */
    char why[200];
} gc_case;

static uint64_t seed;
static int npass, nfail, nskip;
/* --config: the configuration forced, and the launches that took it */
static const char *forced;
static int nforced;
/* The device takes the sm_90a family (compute capability 9.0, not
 * FUSEGEN_CUDA_FAMILY=sm80): every multiple of 8 up to 256 must run. */
static int hopper;

/* Whether FG_ERR_UNSUPPORTED fails the case rather than skipping it. */
static int must_run(const gc_case *c)
{
    if (c->d == 128)
        return 1;
    return hopper && strcmp(c->info->form, "split") != 0 && c->d % 8 == 0 && c->d >= 8 &&
           c->d <= 256;
}

static uint64_t mix(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Standard normal values, drawn once (Box-Muller); cases pick from them at
 * random, which is much cheaper per element than drawing anew. */
#define NORMALS 65536
static float normals[NORMALS];

static void init_normals(void)
{
    uint64_t s = seed;
    for (int i = 0; i < NORMALS; i++) {
        double u1 = ((double)(mix(&s) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
        double u2 = (double)(mix(&s) >> 11) * (1.0 / 9007199254740992.0);
        normals[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

static float normal(uint64_t *s)
{
    return normals[mix(s) % NORMALS];
}

static uint16_t to16(fg_dtype dt, float f)
{
    return dt == FG_BF16 ? fg_float_to_bf16(f) : fg_float_to_half(f);
}

static float from16(fg_dtype dt, uint16_t x)
{
    return dt == FG_BF16 ? fg_bf16_to_float(x) : fg_half_to_float(x);
}

static int64_t numel(const fg_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Elements a buffer must hold for the view t (0 for an empty tensor). */
static int64_t extent(const fg_tensor *t)
{
    int64_t e = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] == 0)
            return 0;
        e += (t->shape[i] - 1) * t->stride[i];
    }
    return e;
}

static int is_dense(const fg_tensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        if (t->shape[i] > 1 && t->stride[i] != s)
            return 0;
        s *= t->shape[i];
    }
    return 1;
}

/* Offset of the element with linear (row-major) index k. */
static int64_t offset_of(const fg_tensor *t, int64_t k)
{
    int64_t off = 0;
    if (is_dense(t))
        return k;
    for (int i = t->rank - 1; i >= 0; i--) {
        off += (k % t->shape[i]) * t->stride[i];
        k /= t->shape[i];
    }
    return off;
}

static void dense_strides(fg_tensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        t->stride[i] = s;
        s *= t->shape[i];
    }
}

/* The non-packed layouts: rank-4 [b, h, s, d] tensors whose h extent is
 * the query heads' (Q, O) are stored as [b, s, h, d]; the others (K, V) as
 * [b, h, s, d] with rows of d + 8 elements.  Lower ranks stay dense. */
static void strided_strides(fg_tensor *t, int permute)
{
    if (t->rank != 4) {
        dense_strides(t);
        return;
    }
    int64_t s0 = t->shape[0], s1 = t->shape[1], s2 = t->shape[2], s3 = t->shape[3];
    (void)s0;
    if (permute) {
        t->stride[3] = 1;
        t->stride[1] = s3;
        t->stride[2] = s1 * s3;
        t->stride[0] = s2 * s1 * s3;
    } else {
        t->stride[3] = 1;
        t->stride[2] = s3 + 8;
        t->stride[1] = s2 * (s3 + 8);
        t->stride[0] = s1 * s2 * (s3 + 8);
    }
}

/* The dim with a role in the kernel family (the registry's binding). */
static int role_index(const fg_plan_info *info, fg_dim_role role)
{
    for (int i = 0; i < info->ndims; i++)
        if (info->dim_role[i] == (int)role)
            return i;
    return -1;
}

static int param_index(const fg_plan_info *info, const char *name)
{
    for (int i = 0; i < info->nparams; i++)
        if (!strcmp(info->params[i].name, name))
            return i;
    return -1;
}

/* The plan's per-sequence dim (dim N[b]), or -1. */
static int ragged_dim(const fg_plan_info *info)
{
    for (int i = 0; i < info->ndims; i++)
        if (info->dim_over[i] >= 0)
            return i;
    return -1;
}

static int is_rows(const fg_plan_info *info);

/* The dims of the case by name; 0 if the plan has a dim this check does not
 * know (it is then skipped). */
static int bind_dims(const gc_case *c, int64_t *dims)
{
    for (int i = 0; i < c->info->ndims; i++) {
        switch (c->info->dim_role[i]) {
        case FG_ROLE_BATCH: dims[i] = c->b; break;
        case FG_ROLE_HEADS: dims[i] = c->hq; break;
        case FG_ROLE_KV_HEADS: dims[i] = c->hkv; break;
        case FG_ROLE_ROWS: dims[i] = c->m; break;
        case FG_ROLE_KEYS: dims[i] = c->n; break;
        case FG_ROLE_HEAD_DIM: dims[i] = c->d; break;
        /* an extent of an extra input of an attention plan (a bias
         * table's length): odd, shorter than most key ranges */
        case FG_ROLE_NONE: if (is_rows(c->info)) return 0; dims[i] = 37; break;
        default: return 0;
        }
    }
    return 1;
}

static void shape_of(const fg_plan_tensor_info *ti, const int64_t *dims, fg_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->rank = ti->rank;
    for (int k = 0; k < ti->rank; k++)
        t->shape[k] = dims[ti->dims[k]];
}

/* The layouts of the row plans (gc_case.strided): 0 dense; 1 rows padded by
 * 3 elements (most rows start unaligned: the element path); 2 column-major
 * (stride 1 across rows, none along them), a rank-1 tensor with stride 2;
 * 3 dense from a base one element past an aligned one (run_gpu). */
static void rows_strides(fg_tensor *t, int mode)
{
    dense_strides(t);
    if (mode == 1 && t->rank == 2)
        t->stride[0] = t->shape[1] + 3;
    if (mode == 2 && t->rank == 2) {
        t->stride[0] = 1;
        t->stride[1] = t->shape[0];
    }
    if (mode == 2 && t->rank == 1)
        t->stride[0] = 2;
}

static int is_rows(const fg_plan_info *info)
{
    return !strcmp(info->family, "rowreduce");
}

static void set_params(gc_case *c)
{
    memset(c->params, 0, sizeof c->params);
    memset(c->has, 0, sizeof c->has);
    int w = param_index(c->info, "W");
    if (w >= 0 && c->window > 0) {
        c->params[w] = c->window;
        c->has[w] = 1;
    }
    int cp = param_index(c->info, "cap");
    if (cp >= 0 && c->cap > 0) {
        c->params[cp] = c->cap;
        c->has[cp] = 1;
    }
    /* prefixlm's prefix: a third of the keys (the strided cases take its
     * default, 0: causal); sinkwindow's sinks: 5 (strided: the default 4) */
    int pp = param_index(c->info, "P"), ps = param_index(c->info, "S");
    if (pp >= 0 && !c->strided) {
        c->params[pp] = c->n / 3;
        c->has[pp] = 1;
    }
    if (ps >= 0 && !c->strided) {
        c->params[ps] = 5;
        c->has[ps] = 1;
    }
    /* The strided cases pass G explicitly, the others take its default. */
    int g = param_index(c->info, "G");
    if (g >= 0 && c->strided) {
        c->params[g] = c->hq / c->hkv;
        c->has[g] = 1;
    }
}

static void release(gc_case *c)
{
    for (int i = 0; i < MAX_IO; i++) {
        free(c->ref_in[i].data);
        free(c->ref_out[i].data);
        free(c->got[i].data);
        c->ref_in[i].data = c->ref_out[i].data = c->got[i].data = NULL;
    }
}

static void case_fail(gc_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    c->state = C_FAIL;
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* Device buffers of one run, freed together. */
typedef struct dev_set {
    void *p[2 * MAX_IO];
    int n;
} dev_set;

static int dev_alloc(dev_set *s, size_t bytes, void **out)
{
    *out = NULL;
    if (cudaMalloc(out, bytes ? bytes : 16) != cudaSuccess)
        return 0;
    s->p[s->n++] = *out;
    return 1;
}

static void dev_free(dev_set *s)
{
    for (int i = 0; i < s->n; i++)
        cudaFree(s->p[i]);
    s->n = 0;
}

/* The entry captured on a stream of its own into a graph, and the graph run
 * twice: the outputs checked are the replay's. */
static fg_status launch_in_graph(gc_case *c, const fg_tensor *din, const fg_tensor *dout,
                                 const int32_t *const *lv)
{
    cudaStream_t s = NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    fg_status st = FG_OK;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess) {
        case_fail(c, "cannot create or capture a stream: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    st = c->fn(din, dout, c->params, c->has, NULL, lv, c->splits, s);
    if (cudaStreamEndCapture(s, &g) != cudaSuccess || st != FG_OK) {
        cudaError_t e = cudaGetLastError(); /* and no stale error for the next case */
        if (st == FG_OK)
            case_fail(c, "stream capture failed: %s", cudaGetErrorString(e));
        goto out;
    }
    if (cudaGraphInstantiate(&x, g, 0) != cudaSuccess || cudaGraphLaunch(x, s) != cudaSuccess ||
        cudaGraphLaunch(x, s) != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess)
        case_fail(c, "graph launch failed: %s", cudaGetErrorString(cudaGetLastError()));
    (void)cudaGetLastError();
out:
    if (x)
        cudaGraphExecDestroy(x);
    if (g)
        cudaGraphDestroy(g);
    if (s)
        cudaStreamDestroy(s);
    return st;
}

/* GPU side of a case: inputs, the launch, the outputs copied back. */
static void run_gpu(gc_case *c)
{
    const fg_plan_info *info = c->info;
    int64_t dims[16];
    dev_set ds = {{0}, 0};
    fg_tensor din[MAX_IO], dout[MAX_IO];
    uint64_t rs = seed ^ ((uint64_t)c->index * 0x2545f4914f6cdd1dull);

    c->state = C_PENDING;
    if (info->ndims > 16 || info->ninputs > MAX_IO || info->noutputs > MAX_IO ||
        info->nparams > MAX_PARAMS || !bind_dims(c, dims)) {
        c->state = C_SKIP;
        snprintf(c->why, sizeof c->why, "plan shape not known to this check");
        return;
    }
    set_params(c);
    int ud = role_index(info, FG_ROLE_HEADS), rows = is_rows(info);
    for (int i = 0; i < info->ninputs; i++) {
        const fg_plan_tensor_info *ti = &info->inputs[i];
        fg_tensor *r = &c->ref_in[i], *d = &din[i];
        shape_of(ti, dims, r);
        shape_of(ti, dims, d);
        r->dtype = FG_F32;
        d->dtype = rows && c->in_dt == FG_F32 ? FG_F32 : c->dt;
        if (ti->dtype == FG_I32)
            r->dtype = d->dtype = FG_I32; /* ids: document ids along the last axis */
        else if (!rows && ti->dtype == FG_F32 && c->index % 3 == 0)
            d->dtype = FG_F32; /* an extra f32 input (a bias table) as declared, one case in three */
        dense_strides(r);
        if (rows)
            rows_strides(d, c->strided);
        else if (c->strided)
            strided_strides(d, ti->rank == 4 && ti->dims[1] == ud);
        else
            dense_strides(d);
        int64_t n = numel(r), e = extent(d);
        size_t es = fg_dtype_size(d->dtype), skew = rows && c->strided == 3 ? es : 0;
        r->data = malloc((size_t)(n ? n : 1) * sizeof(float)); /* f32 or i32 */
        unsigned char *h = malloc((size_t)(e ? e : 1) * es);
        if (!r->data || !h) {
            free(h);
            case_fail(c, "host allocation failed");
            goto out;
        }
        memset(h, 0xff, (size_t)e * es); /* NaN in the gaps */
        int32_t id = 0;
        for (int64_t k = 0; k < n; k++) {
            /* row plans: a wider spread, so that the running max moves */
            float x = rows ? 4.0f * normal(&rs) : normal(&rs);
            if (!rows && i == 0 && c->qamp > 0)
                x *= c->qamp;
            if (c->masked && i == 0) {
                const int64_t last = r->shape[r->rank - 1];
                if (k < last || k == last + 1)
                    x = -INFINITY;
            }
            if (d->dtype == FG_I32) {
                /* nondecreasing ids, a new one every 40 positions or so
                 * (every 600 in one case of four: documents longer than a
                 * key tile, whose tiles the sm_90a kernel classifies from
                 * one range; every 3000 in another: documents holding
                 * whole chunks of the key-range scan's summary),
                 * restarting with each row of the last axis; in one case
                 * of eight, unsorted ids from 0 to 2 (the sm_90a launch
                 * then finds them unsorted and keeps the rows' keys
                 * from the summary, not from binary searches) */
                const int64_t last = r->shape[r->rank - 1];
                const unsigned doc = c->index % 4 == 3 ? 3000 : c->index % 2 ? 600 : 40;
                if (c->index % 8 == 5)
                    id = (int32_t)(mix(&rs) % 3);
                else
                    id = k % last == 0 ? 0 : id + (mix(&rs) % doc == 0);
                ((int32_t *)r->data)[k] = id;
                ((int32_t *)h)[offset_of(d, k)] = id;
            } else if (d->dtype == FG_F32) {
                ((float *)r->data)[k] = x;
                ((float *)h)[offset_of(d, k)] = x;
            } else {
                uint16_t v = to16(d->dtype, x);
                ((float *)r->data)[k] = from16(d->dtype, v);
                ((uint16_t *)h)[offset_of(d, k)] = v;
            }
        }
        void *base = NULL;
        int ok = dev_alloc(&ds, (size_t)e * es + skew, &base) &&
                 cudaMemcpy((char *)base + skew, h, (size_t)e * es, cudaMemcpyHostToDevice) ==
                     cudaSuccess;
        d->data = base ? (char *)base + skew : NULL;
        free(h);
        if (!ok) {
            case_fail(c, "device allocation or copy failed");
            goto out;
        }
    }
    for (int j = 0; j < info->noutputs; j++) {
        const fg_plan_tensor_info *ti = &info->outputs[j];
        fg_tensor *g = &c->got[j], *d = &dout[j], *r = &c->ref_out[j];
        shape_of(ti, dims, d);
        shape_of(ti, dims, r);
        d->dtype = ti->dtype == FG_F32 && !(c->out16 && ti->rank == 2) ? FG_F32 : c->dt;
        r->dtype = FG_F32;
        dense_strides(r);
        if (rows)
            rows_strides(d, c->strided);
        else if (c->strided)
            strided_strides(d, ti->rank == 4 && ti->dims[1] == ud);
        else
            dense_strides(d);
        *g = *d;
        size_t bytes = (size_t)extent(d) * fg_dtype_size(d->dtype);
        size_t skew = rows && c->strided == 3 ? fg_dtype_size(d->dtype) : 0;
        c->got_elems[j] = (size_t)extent(d);
        g->data = malloc(bytes ? bytes : 1);
        r->data = malloc((size_t)(numel(r) ? numel(r) : 1) * sizeof(float));
        if (!g->data || !r->data) {
            case_fail(c, "host allocation failed");
            goto out;
        }
        memset(g->data, 0xff, bytes);
        if (c->drop && j == c->drop - 1) { /* asked not to be computed */
            c->got_elems[j] = 0;
            d->data = NULL;
            continue;
        }
        void *base = NULL;
        if (!dev_alloc(&ds, bytes + skew, &base) ||
            cudaMemcpy((char *)base + skew, g->data, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
            case_fail(c, "device allocation or copy failed");
            goto out;
        }
        d->data = (char *)base + skew;
    }

    const int32_t *lv[16] = {0};
    int nd = ragged_dim(info);
    if (c->ragged) {
        void *dl;
        if (nd < 0) {
            case_fail(c, "per-sequence lengths asked of a plan without a per-sequence dim");
            goto out;
        }
        if (!dev_alloc(&ds, sizeof c->lens, &dl) ||
            cudaMemcpy(dl, c->lens, sizeof c->lens, cudaMemcpyHostToDevice) != cudaSuccess) {
            case_fail(c, "device allocation or copy failed");
            goto out;
        }
        lv[nd] = dl;
    }
    fg_status st;
    if (c->graph) {
        st = launch_in_graph(c, din, dout, c->ragged ? lv : NULL);
        if (c->state == C_FAIL)
            goto out;
    } else {
        st = c->fn(din, dout, c->params, c->has, NULL, c->ragged ? lv : NULL, c->splits, NULL);
    }
    if (forced && st == FG_OK) {
        /* "fg_PLAN: NAME, tuned ($FUSEGEN_CONFIG:0)" where it took NAME */
        static const char mark[] = ", tuned ($FUSEGEN_CONFIG:";
        const char *cfg = fg_last_config(), *at = strstr(cfg, ": ");
        size_t n = strlen(forced);
        if (at && !strncmp(at + 2, forced, n) && !strncmp(at + 2 + n, mark, sizeof mark - 1))
            nforced++;
    }
    if (st == FG_ERR_UNSUPPORTED && !must_run(c)) {
        c->state = C_SKIP;
        snprintf(c->why, sizeof c->why, "head dim %d not compiled: %s", c->d, fg_last_error());
        goto out;
    }
    if (st == FG_ERR_SHAPE) {
        /* a shape the plan refuses (a gathered read out of range): the CPU
         * entry must refuse it too (check_case) */
        c->refused = st;
        snprintf(c->why, sizeof c->why, "%s", fg_last_error());
        goto out;
    }
    if (st != FG_OK) {
        c->state = C_FAIL;
        snprintf(c->why, sizeof c->why, "returned %s: %s", fg_strerror(st), fg_last_error());
        goto out;
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        case_fail(c, GC_API " error after the launch: %s", cudaGetErrorString(e));
        goto out;
    }
    for (int j = 0; j < info->noutputs; j++) {
        size_t bytes = c->got_elems[j] * fg_dtype_size(dout[j].dtype);
        if (bytes && cudaMemcpy(c->got[j].data, dout[j].data, bytes, cudaMemcpyDeviceToHost) !=
            cudaSuccess) {
            case_fail(c, "copy back failed");
            goto out;
        }
    }
out:
    dev_free(&ds);
}

static double got_at(const fg_tensor *g, int64_t off)
{
    if (g->dtype == FG_F32)
        return ((const float *)g->data)[off];
    return from16(g->dtype, ((const uint16_t *)g->data)[off]);
}

/* Whether the element at off still holds the poison bytes. */
static int poisoned(const fg_tensor *g, int64_t off)
{
    size_t es = fg_dtype_size(g->dtype);
    const unsigned char *p = (const unsigned char *)g->data + (size_t)off * es;
    for (size_t i = 0; i < es; i++)
        if (p[i] != 0xff)
            return 0;
    return 1;
}

/* CPU side: the reference, then the comparison. */
static void check_case(gc_case *c)
{
    const fg_plan_info *info = c->info;
    if (c->state != C_PENDING)
        return;
    const int32_t *lv[16] = {0};
    if (c->ragged)
        lv[ragged_dim(info)] = c->lens;
    fg_status st = info->cpu(c->ref_in, c->ref_out, c->params, c->has, NULL, c->ragged ? lv : NULL, 0);
    if (c->refused) {
        if (st != c->refused) {
            case_fail(c, "the " GC_API " entry refused (%s: %s), the CPU entry returned %s",
                      fg_strerror(c->refused), c->why, fg_strerror(st));
            return;
        }
        c->state = C_DONE;
        char why[sizeof c->why];
        snprintf(why, sizeof why, "refused by both entries (%s): %.150s", fg_strerror(st), c->why);
        memcpy(c->why, why, sizeof why);
        return;
    }
    if (st != FG_OK) {
        case_fail(c, "CPU reference returned %s: %s", fg_strerror(st), fg_last_error());
        return;
    }
    double worst_o = 0, worst_l = 0;
    for (int j = 0; j < info->noutputs; j++) {
        const fg_tensor *g = &c->got[j], *r = &c->ref_out[j];
        const char *name = info->outputs[j].name;
        if (c->drop && j == c->drop - 1)
            continue;
        int64_t n = numel(r);
        /* per element, else a norm (16-bit storage) */
        int is_lse = info->outputs[j].dtype == FG_F32 && g->dtype == FG_F32;
        double num = 0, den = 0, worst = 0;
        char *touched = calloc(c->got_elems[j] ? c->got_elems[j] : 1, 1);
        if (!touched) {
            case_fail(c, "host allocation failed");
            return;
        }
        for (int64_t k = 0; k < n; k++) {
            int64_t off = offset_of(g, k);
            double x = got_at(g, off), y = ((const float *)r->data)[k];
            touched[off] = 1;
            if (c->masked && isnan(x) && isnan(y))
                continue; /* -inf inputs: NaN where the reference has NaN */
            if (isnan(x)) {
                free(touched);
                case_fail(c, "%s has NaN at element %lld", name, (long long)k);
                return;
            }
            if (isnan(y)) {
                free(touched);
                case_fail(c, "reference %s has NaN at element %lld", name, (long long)k);
                return;
            }
            if (isinf(y) || isinf(x)) {
                if (x != y) {
                    free(touched);
                    case_fail(c, "%s[%lld] = %g, reference %g", name, (long long)k, x, y);
                    return;
                }
                continue;
            }
            if (is_lse) {
                double rel = fabs(x - y) / fmax(1.0, fabs(y));
                worst = fmax(worst, rel);
            } else {
                num += (x - y) * (x - y);
                den += y * y;
            }
        }
        for (size_t off = 0; off < c->got_elems[j]; off++)
            if (!touched[off] && !poisoned(g, (int64_t)off)) {
                free(touched);
                case_fail(c, "%s: the kernel wrote into a gap of the layout (offset %zu)",
                          name, off);
                return;
            }
        free(touched);
        if (is_lse) {
            worst_l = fmax(worst_l, worst);
            if (worst >= LSE_TOL) {
                case_fail(c, "%s max relative error %.3g", name, worst);
                return;
            }
        } else {
            double rel = den > 0 ? sqrt(num / den) : sqrt(num);
            worst_o = fmax(worst_o, rel);
            if (rel >= O_TOL) {
                case_fail(c, "%s relative error %.3g", name, rel);
                return;
            }
        }
    }
    c->state = C_DONE;
    snprintf(c->why, sizeof c->why, "O err %.2e, LSE err %.2e", worst_o, worst_l);
}

static void *check_thread(void *p)
{
    check_case(p);
    return NULL;
}

static void report(gc_case *c)
{
    const char *tag = c->state == C_DONE ? "PASS" : c->state == C_SKIP ? "SKIP" : "FAIL";
    printf("%s: %s: %s\n", tag, c->label, c->why);
    if (c->state == C_DONE)
        npass++;
    else if (c->state == C_SKIP)
        nskip++;
    else
        nfail++;
}

static gc_case batch[BATCH];
static int nbatch, ncases;

static void flush_batch(void)
{
    pthread_t th[BATCH];
    int started[BATCH];
    for (int i = 0; i < nbatch; i++)
        started[i] = pthread_create(&th[i], NULL, check_thread, &batch[i]) == 0;
    for (int i = 0; i < nbatch; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            check_case(&batch[i]);
    }
    for (int i = 0; i < nbatch; i++) {
        report(&batch[i]);
        release(&batch[i]);
    }
    fflush(stdout);
    nbatch = 0;
}

static int graph_next; /* the next case is a graph case */
static double cap_next; /* the next case's cap (add_cap_case) */
static float qamp_next; /* and its factor on Q */
static int hkv_next; /* the next case's kv heads, 0 for the rule below (add_kv_case) */

static void add_case_lens(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype dt, int d,
                          int m, int n, int groups, int splits, int strided, int window,
                          int ragged)
{
    gc_case *c = &batch[nbatch];
    memset(c, 0, sizeof *c);
    c->info = info;
    c->fn = fn;
    c->index = ncases++;
    c->b = 2;
    c->graph = graph_next;
    if (ragged) {
        /* five sequences: no key, one, fewer than a warp tile (16), all n and
         * a random count, in a random order */
        uint64_t rs = seed ^ ((uint64_t)c->index * 0x9e3779b97f4a7c15ull);
        c->ragged = 1;
        c->b = 5;
        int32_t l[5] = {0, 1, n < 13 ? n : 13, n, (int32_t)(mix(&rs) % (uint64_t)(n + 1))};
        for (int i = 4; i > 0; i--) {
            int j = (int)(mix(&rs) % (uint64_t)(i + 1));
            int32_t t = l[i];
            l[i] = l[j];
            l[j] = t;
        }
        memcpy(c->lens, l, sizeof l);
    }
    c->hkv = hkv_next > 0 ? hkv_next : groups == 1 ? 2 : 1;
    c->hq = c->hkv * groups;
    c->m = m;
    c->n = n;
    c->d = d;
    c->dt = dt;
    c->splits = splits;
    c->strided = strided;
    c->window = window;
    c->cap = cap_next;
    c->qamp = qamp_next;
    /* two values per row or more beside O (outputs of rank 3): two cases
     * in three ask for one of those that may be left out (every output but
     * the plan's first, as on the CPU entry) not to be computed (NULL
     * data), in turn */
    int rowv[MAX_IO], nrowv = 0;
    for (int j = 1; j < info->noutputs && nrowv < MAX_IO; j++)
        if (info->outputs[j].rank == 3)
            rowv[nrowv++] = j;
    if (nrowv >= 1 && info->noutputs >= 3 && c->index % 3)
        c->drop = 1 + rowv[(c->index / 3) % nrowv];
    int len = snprintf(c->label, sizeof c->label,
                       "%s %s b%d hq%d hkv%d m%d n%d d%d%s", info->name,
                       dt == FG_BF16 ? "bf16" : "fp16", c->b, c->hq, c->hkv, m, n, d,
                       strided ? " strided" : "");
    if (!strcmp(info->form, "split"))
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " splits %d", splits);
    if (window)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " W %d", window);
    if (c->cap > 0)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " cap %g", c->cap);
    if (c->qamp > 0)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " Q x%g", (double)c->qamp);
    if (c->ragged)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " lengths %d,%d,%d,%d,%d",
                        c->lens[0], c->lens[1], c->lens[2], c->lens[3], c->lens[4]);
    if (c->drop)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, " without %s",
                        info->outputs[c->drop - 1].name);
    if (c->graph)
        snprintf(c->label + len, sizeof c->label - (size_t)len, " in a graph");
    run_gpu(c);
    if (++nbatch == BATCH)
        flush_batch();
}

static void add_case(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype dt, int d, int m,
                     int n, int groups, int splits, int strided, int window)
{
    add_case_lens(info, fn, dt, d, m, n, groups, splits, strided, window, 0);
}

/* A case of a plan with a soft cap: the cap at cap, Q times qamp.  The
 * sm_90a kernel holds the max at a fixed offset where cap * log2(e) <= 78
 * (bf16), and keeps the running max past it and in fp16: a cap of 80 takes
 * the running max in bf16, Q x 100 puts the scores at +-cap (at the default
 * cap of 50 the weights near 2^-104 and 2^40, the offset's extremes for that
 * cap), a cap of 2 the offset 0. */
static void add_cap_case(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype dt, int d, int m,
                         int n, int groups, double cap, float qamp)
{
    cap_next = cap;
    qamp_next = qamp;
    add_case(info, fn, dt, d, m, n, groups, 0, 0, 0);
    cap_next = 0;
    qamp_next = 0;
}

/* A case with hkv kv heads of `groups` query heads each (the other cases
 * have two kv heads of one query head, or one of several): two batches of
 * two kv heads of two query heads give four (batch, kv head) pairs, which
 * tests/gpu-headgroups.sh's groups of three kv heads split as 1 + 3, the
 * first group then two query heads. */
static void add_kv_case(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype dt, int d, int m,
                        int n, int groups, int hkv)
{
    hkv_next = hkv;
    add_case(info, fn, dt, d, m, n, groups, 0, 0, 0);
    hkv_next = 0;
}

/* A case launched inside a CUDA graph (see gc_case.graph). */
static void add_graph_case(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype dt, int d,
                           int m, int n, int groups, int splits, int ragged)
{
    graph_next = 1;
    add_case_lens(info, fn, dt, d, m, n, groups, splits, 0, 0, ragged);
    graph_next = 0;
}

/* ---- bad arguments ---- */

static void bad_args(const fg_plan_info *info, fg_plan_cuda_fn fn)
{
    static const struct {
        const char *what;
        fg_status want;
    } kinds[] = {
        {"NULL K data", FG_ERR_NULL},
        {"V longer than K", FG_ERR_SHAPE},
        {"head dim 264", FG_ERR_UNSUPPORTED},
        {"Q misaligned by one element", FG_ERR_ALIGN},
    };
    gc_case c;
    memset(&c, 0, sizeof c);
    c.info = info;
    c.b = 1;
    c.hq = c.hkv = 2;
    c.m = 3;
    c.n = 70;
    int64_t dims[16];
    int ni = role_index(info, FG_ROLE_KEYS), di = role_index(info, FG_ROLE_HEAD_DIM);
    if (info->ndims > 16 || info->ninputs > MAX_IO || info->ninputs < 3 ||
        info->nparams > MAX_PARAMS || ni < 0 || di < 0)
        return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        dev_set ds = {{0}, 0};
        fg_tensor din[MAX_IO], dout[MAX_IO];
        c.d = kinds[k].want == FG_ERR_UNSUPPORTED ? 264 : 128;
        snprintf(c.label, sizeof c.label, "%s bad argument: %s", info->name, kinds[k].what);
        c.state = C_FAIL;
        snprintf(c.why, sizeof c.why, "device allocation failed");
        if (!bind_dims(&c, dims))
            return;
        set_params(&c);
        int ok = 1;
        /* V one key longer than K: the third input where it runs along the
         * keys (Q, K, V), else the last one that does (Q1, K1, Q2, K2, V of
         * differential attention); the entry must refuse it. */
        int longer = -1;
        for (int i = 0; i < info->ninputs; i++)
            for (int p = 0; p < info->inputs[i].rank; p++)
                if (info->inputs[i].dims[p] == ni && (longer != 2 || i < 2))
                    longer = i;
        for (int i = 0; i < info->ninputs && ok; i++) {
            shape_of(&info->inputs[i], dims, &din[i]);
            din[i].dtype = info->inputs[i].dtype == FG_I32 ? FG_I32 : FG_BF16;
            if (kinds[k].want == FG_ERR_SHAPE && i == longer)
                for (int p = 0; p < din[i].rank; p++)
                    if (info->inputs[i].dims[p] == ni)
                        din[i].shape[p]++;
            dense_strides(&din[i]);
            const size_t ib = (size_t)extent(&din[i]) * fg_dtype_size(din[i].dtype) + 16;
            ok = dev_alloc(&ds, ib, &din[i].data) &&
                 cudaMemset(din[i].data, 0, ib) == cudaSuccess;
        }
        size_t obytes[MAX_IO];
        for (int j = 0; j < info->noutputs && ok; j++) {
            shape_of(&info->outputs[j], dims, &dout[j]);
            dout[j].dtype = info->outputs[j].dtype == FG_F32 ? FG_F32 : FG_BF16;
            dense_strides(&dout[j]);
            obytes[j] = (size_t)extent(&dout[j]) * fg_dtype_size(dout[j].dtype);
            ok = dev_alloc(&ds, obytes[j], &dout[j].data) &&
                 cudaMemset(dout[j].data, 0xff, obytes[j]) == cudaSuccess;
        }
        if (ok) {
            if (kinds[k].want == FG_ERR_NULL)
                din[1].data = NULL;
            if (kinds[k].want == FG_ERR_ALIGN)
                din[0].data = (char *)din[0].data + 2;
            fg_status st = fn(din, dout, c.params, c.has, NULL, NULL, 0, NULL);
            cudaError_t e = cudaDeviceSynchronize();
            if (st != kinds[k].want) {
                snprintf(c.why, sizeof c.why, "returned %s, expected %s (%s)", fg_strerror(st),
                         fg_strerror(kinds[k].want), fg_last_error());
            } else if (e != cudaSuccess) {
                snprintf(c.why, sizeof c.why, GC_API " error: %s", cudaGetErrorString(e));
            } else {
                c.state = C_DONE;
                snprintf(c.why, sizeof c.why, "%s: %s", fg_strerror(st), fg_last_error());
                for (int j = 0; j < info->noutputs && c.state == C_DONE; j++) {
                    unsigned char *h = malloc(obytes[j] ? obytes[j] : 1);
                    if (!h || cudaMemcpy(h, dout[j].data, obytes[j], cudaMemcpyDeviceToHost) !=
                                  cudaSuccess) {
                        c.state = C_FAIL;
                        snprintf(c.why, sizeof c.why, "copy back failed");
                    } else {
                        for (size_t q = 0; q < obytes[j]; q++)
                            if (h[q] != 0xff) {
                                c.state = C_FAIL;
                                snprintf(c.why, sizeof c.why,
                                         "returned %s but wrote output %s (byte %zu)",
                                         fg_strerror(st), info->outputs[j].name, q);
                                break;
                            }
                    }
                    free(h);
                }
            }
        }
        dev_free(&ds);
        report(&c);
    }
}

/* ---- the case lists ---- */

static void rolling_cases(const fg_plan_info *info, fg_plan_cuda_fn fn, int small)
{
    static const int ms[] = {1, 7, 67, 300}, ns[] = {1, 13, 131, 1000, 4097};
    static const int other_d[] = {64, 96, 256, 32, 80, 160, 192, 224, 40, 72, 136, 248};
    static const int pairs[][2] = {{1, 4097}, {7, 13}, {67, 131}, {300, 1000}};
    int has_g = role_index(info, FG_ROLE_KV_HEADS) >= 0, has_w = param_index(info, "W") >= 0;
    int has_cap = param_index(info, "cap") >= 0;
    if (has_cap) {
        add_cap_case(info, fn, FG_BF16, 128, 67, 1000, has_g ? 4 : 1, 80, 0);
        add_cap_case(info, fn, FG_BF16, 128, 300, 4097, 1, 0, 100);
        if (!small) {
            add_cap_case(info, fn, FG_FP16, 128, 300, 4097, has_g ? 2 : 1, 0, 100);
            add_cap_case(info, fn, FG_BF16, 64, 7, 131, 1, 2, 8);
            add_cap_case(info, fn, FG_BF16, 256, 130, 1001, has_g ? 8 : 1, 0, 100);
        }
    }
    if (small) {
        add_case(info, fn, FG_BF16, 128, 7, 131, has_g ? 4 : 1, 0, 1, has_w ? 100 : 0);
        add_case(info, fn, FG_BF16, 64, 67, 13, 1, 0, 0, 0);
        /* the long-row configuration at D 128 where it is cheap to reach
         * (unmasked plans: 512 rows); 16k keys for the masked plans are in
         * the full run only: racecheck takes minutes over them */
        add_case(info, fn, FG_BF16, 128, 520, 13, 1, 0, 0, 0);
        /* a head dim only the sm_90a family serves (skipped elsewhere) */
        add_case(info, fn, FG_BF16, 80, 130, 300, has_g ? 8 : 1, 0, 1, 0);
        /* several kv heads of several query heads */
        if (has_g)
            add_kv_case(info, fn, FG_BF16, 128, 300, 1000, 2, 2);
        /* eight key tiles of 128: the sm_90a ring's slots (three stages at
         * most) each taken again, which the sanitizers must see (siggate's
         * ring of key values raced there: bench/NOTES.md, thirty-third
         * session) */
        add_case(info, fn, FG_BF16, 128, 67, 1000, 1, 0, 0, 0);
        return;
    }
    for (int t = 0; t < 2; t++) {
        /* the long-row configuration at D 128, both dtypes */
        fg_dtype dt = t ? FG_FP16 : FG_BF16;
        add_case(info, fn, dt, 128, 600, 131, has_g ? 4 : 1, 0, t, 0);
        add_case(info, fn, dt, 128, 67, 16500, has_g ? 4 : 1, 0, !t, has_w ? 100 : 0);
        add_case(info, fn, dt, 128, 300, 16385, 1, 0, 0, 0);
    }
    for (int t = 0; t < 2; t++) {
        fg_dtype dt = t ? FG_FP16 : FG_BF16;
        int k = 0;
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 5; j++, k++)
                for (int g = 1; g <= (has_g ? 4 : 1); g += 3)
                    add_case(info, fn, dt, 128, ms[i], ns[j], g, 0, (k + g) % 3 == 0,
                             has_w && (k + g) % 2 ? 100 : 0);
        for (size_t q = 0; q < 3; q++)
            for (size_t p = 0; p < 4; p++)
                for (int g = 1; g <= (has_g ? 4 : 1); g += 3)
                    add_case(info, fn, dt, other_d[q], pairs[p][0], pairs[p][1], g, 0,
                             p == 2, has_w && p == 3 ? 100 : 0);
        /* the head dims only the sm_90a family compiles (skipped where refused),
         * and groups 2 and 8 */
        for (size_t q = 3; q < 12; q++)
            add_case(info, fn, dt, other_d[q], pairs[q % 4][0], pairs[q % 4][1],
                     has_g ? (q % 2 ? 8 : 2) : 1, 0, q == 4, has_w && q == 5 ? 100 : 0);
        if (has_g)
            add_case(info, fn, dt, 128, 67, 1000, 8, 0, t, 0);
    }
}

static void split_cases(const fg_plan_info *info, fg_plan_cuda_fn fn, int small)
{
    static const int ms[] = {1, 3, 16}, ns[] = {1, 13, 131, 1000, 4097};
    static const int all_splits[] = {0, 1, 2, 3, 7, 16, 64}, few_splits[] = {0, 3};
    static const int ds[] = {128, 64, 96, 256};
    int has_g = role_index(info, FG_ROLE_KV_HEADS) >= 0, ragged = ragged_dim(info) >= 0;
    if (small) {
        add_case(info, fn, FG_BF16, 128, 3, 131, has_g ? 4 : 1, 3, 1, 0);
        add_case(info, fn, FG_BF16, 128, 1, 1000, 1, 0, 0, 0);
        if (ragged)
            add_case_lens(info, fn, FG_BF16, 128, 3, 131, has_g ? 4 : 1, 3, 0, 0, 1);
        add_graph_case(info, fn, FG_BF16, 128, 1, 1000, has_g ? 4 : 1, 7, ragged);
        return;
    }
    /* inside graphs: on CUDA the separate combine kernel */
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++)
            add_graph_case(info, fn, t ? FG_FP16 : FG_BF16, k == 2 ? 64 : 128, ms[k], 4097,
                           has_g && k != 1 ? 4 : 1, k == 0 ? 0 : 16 * k, ragged && k != 0);
    /* mixed per-sequence key lengths */
    static const int rs_splits[] = {0, 1, 3, 16, 64}, rs_ns[] = {131, 1000, 4097};
    for (int t = 0; t < 2 && ragged; t++) {
        fg_dtype dt = t ? FG_FP16 : FG_BF16;
        int k = 0;
        for (int q = 0; q < 2; q++)
            for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 3; j++, k++)
                    add_case_lens(info, fn, dt, q ? 64 : 128, ms[i], rs_ns[j],
                                  has_g && k % 2 ? 4 : 1, rs_splits[k % 5], k % 4 == 0, 0, 1);
    }
    for (int t = 0; t < 2; t++) {
        fg_dtype dt = t ? FG_FP16 : FG_BF16;
        for (size_t q = 0; q < 4; q++) {
            const int *sp = q == 0 ? all_splits : few_splits;
            size_t nsp = q == 0 ? 7 : 2;
            int k = 0;
            for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 5; j++)
                    for (size_t s = 0; s < nsp; s++, k++) {
                        int g = has_g && k % 2 ? 4 : 1;
                        add_case(info, fn, dt, ds[q], ms[i], ns[j], g, sp[s], k % 5 == 0, 0);
                    }
        }
    }
}

/* ---- the row plans (family rowreduce) ---- */

static const char *const layout_names[] = {"", " padded-rows", " column-major", " skewed-base"};

static void add_row_case(const fg_plan_info *info, fg_plan_cuda_fn fn, fg_dtype in_dt, int rows,
                         int cols, int splits, int layout, int out16, int graph)
{
    gc_case *c = &batch[nbatch];
    memset(c, 0, sizeof *c);
    c->info = info;
    c->fn = fn;
    c->index = ncases++;
    c->m = rows;
    c->n = cols;
    c->in_dt = in_dt;
    c->dt = in_dt == FG_F32 ? FG_BF16 : in_dt; /* 16-bit outputs when out16 */
    c->splits = splits;
    c->strided = layout;
    c->out16 = out16;
    c->graph = graph;
    c->masked = rows >= 2 && c->index % 3 == 1;
    snprintf(c->label, sizeof c->label, "%s %s rows %d cols %d splits %d%s%s%s%s", info->name,
             fg_dtype_name(in_dt), rows, cols, splits, layout_names[layout & 3],
             out16 ? (c->dt == FG_BF16 ? " out bf16" : " out fp16") : "",
             graph ? " in a graph" : "", c->masked ? " masked row" : "");
    run_gpu(c);
    if (++nbatch == BATCH)
        flush_batch();
}

/* Row lengths 1, 7, 33, 1000, 4097, 32769 (every form: one row per warp up
 * to 1024, per CTA kept in registers up to 32768, the rolling walk beyond,
 * the split form for few long rows), rows 1, 3, 67, 300, every input dtype,
 * the four layouts, split counts given and chosen, outputs in 16 bits, and
 * inside a CUDA graph (the split form's separate merge kernel). */
static void row_cases(const fg_plan_info *info, fg_plan_cuda_fn fn, int small)
{
    static const int rs[] = {1, 3, 67, 300}, cs[] = {1, 7, 33, 1000, 4097, 32769};
    static const fg_dtype dts[] = {FG_BF16, FG_FP16, FG_F32};
    if (small) {
        add_row_case(info, fn, FG_BF16, 7, 33, 0, 1, 0, 0);
        add_row_case(info, fn, FG_F32, 3, 1000, 3, 0, 0, 0);
        add_row_case(info, fn, FG_FP16, 67, 7, 0, 2, 0, 0);
        add_row_case(info, fn, FG_BF16, 1, 20000, 0, 3, 0, 0);
        add_row_case(info, fn, FG_BF16, 2, 5000, 4, 0, 0, 1);
        return;
    }
    int k = 0;
    for (size_t t = 0; t < 3; t++)
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 6; j++, k++)
                add_row_case(info, fn, dts[t], rs[i], cs[j], 0, k % 4, k % 7 == 3, 0);
    /* every form at its edges and past them */
    static const int edges[][2] = {{5, 1024}, {5, 1025}, {9, 8192}, {9, 8193}, {300, 20000},
                                   {130, 32768}, {130, 40001}, {2, 70001}, {1, 262147}};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (size_t t = 0; t < 3; t++, k++)
            add_row_case(info, fn, dts[t], edges[e][0], edges[e][1], 0, k % 4, 0, 0);
    /* split counts given: more parts than chunks, one part, many parts */
    static const int splits[] = {1, 2, 3, 7, 64, 1000};
    for (size_t q = 0; q < sizeof splits / sizeof splits[0]; q++)
        for (size_t t = 0; t < 3; t++, k++) {
            add_row_case(info, fn, dts[t], 3, 4097, splits[q], k % 4, k % 2, 0);
            add_row_case(info, fn, dts[t], 1, 33, splits[q], 0, 0, 0);
        }
    /* inside a graph: no tickets, the split form's merge kernel */
    for (size_t t = 0; t < 3; t++) {
        add_row_case(info, fn, dts[t], 2, 70001, 0, 0, 0, 1);
        add_row_case(info, fn, dts[t], 67, 1000, 0, 1, 0, 1);
    }
}

/* Bad arguments of a row plan: refused, nothing written. */
static void row_bad_args(const fg_plan_info *info, fg_plan_cuda_fn fn)
{
    static const struct {
        const char *what;
        fg_status want;
    } kinds[] = {
        {"NULL input data", FG_ERR_NULL},
        {"an output one column short", FG_ERR_SHAPE},
        {"input misaligned by one byte", FG_ERR_ALIGN},
        {"splits -1", FG_ERR_PARAM},
    };
    int64_t dims[16];
    gc_case c;
    memset(&c, 0, sizeof c);
    c.info = info;
    c.m = 5;
    c.n = 70;
    if (info->ndims > 16 || info->ninputs > MAX_IO || info->noutputs > MAX_IO ||
        info->nparams > MAX_PARAMS || !bind_dims(&c, dims))
        return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        dev_set ds = {{0}, 0};
        fg_tensor din[MAX_IO], dout[MAX_IO];
        size_t obytes[MAX_IO];
        snprintf(c.label, sizeof c.label, "%s bad argument: %s", info->name, kinds[k].what);
        c.state = C_FAIL;
        snprintf(c.why, sizeof c.why, "device allocation failed");
        int ok = 1;
        for (int i = 0; i < info->ninputs && ok; i++) {
            shape_of(&info->inputs[i], dims, &din[i]);
            din[i].dtype = FG_BF16;
            dense_strides(&din[i]);
            size_t b = (size_t)extent(&din[i]) * 2 + 16;
            ok = dev_alloc(&ds, b, &din[i].data) && cudaMemset(din[i].data, 0, b) == cudaSuccess;
        }
        for (int j = 0; j < info->noutputs && ok; j++) {
            shape_of(&info->outputs[j], dims, &dout[j]);
            dout[j].dtype = FG_F32;
            if (kinds[k].want == FG_ERR_SHAPE && j == 0)
                dout[j].shape[dout[j].rank - 1]--;
            dense_strides(&dout[j]);
            obytes[j] = (size_t)extent(&dout[j]) * 4;
            ok = dev_alloc(&ds, obytes[j], &dout[j].data) &&
                 cudaMemset(dout[j].data, 0xff, obytes[j]) == cudaSuccess;
        }
        if (ok) {
            if (kinds[k].want == FG_ERR_NULL)
                din[0].data = NULL;
            if (kinds[k].want == FG_ERR_ALIGN)
                din[0].data = (char *)din[0].data + 1;
            fg_status st = fn(din, dout, c.params, c.has, NULL, NULL,
                              kinds[k].want == FG_ERR_PARAM ? -1 : 0, NULL);
            cudaError_t e = cudaDeviceSynchronize();
            if (st != kinds[k].want)
                snprintf(c.why, sizeof c.why, "returned %s, expected %s (%s)", fg_strerror(st),
                         fg_strerror(kinds[k].want), fg_last_error());
            else if (e != cudaSuccess)
                snprintf(c.why, sizeof c.why, GC_API " error: %s", cudaGetErrorString(e));
            else {
                c.state = C_DONE;
                snprintf(c.why, sizeof c.why, "%s: %s", fg_strerror(st), fg_last_error());
            }
            for (int j = 0; j < info->noutputs && c.state == C_DONE; j++) {
                unsigned char *h = malloc(obytes[j] ? obytes[j] : 1);
                if (!h || cudaMemcpy(h, dout[j].data, obytes[j], cudaMemcpyDeviceToHost) !=
                              cudaSuccess) {
                    c.state = C_FAIL;
                    snprintf(c.why, sizeof c.why, "copy back failed");
                } else
                    for (size_t q = 0; q < obytes[j]; q++)
                        if (h[q] != 0xff) {
                            c.state = C_FAIL;
                            snprintf(c.why, sizeof c.why, "refused but wrote output %s (byte %zu)",
                                     info->outputs[j].name, q);
                            break;
                        }
                free(h);
            }
        }
        dev_free(&ds);
        report(&c);
    }
}

static const fg_plan_info *find_plan(const char *name)
{
    for (int i = 0; fg_plan_list[i]; i++)
        if (!strcmp(fg_plan_list[i]->name, name))
            return fg_plan_list[i];
    return NULL;
}

/* Whether name is in the comma-separated list. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int small = 0, count = 0;
    const char *only = NULL;
    seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            small = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--plans") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--config") && i + 1 < argc && *argv[i + 1])
            forced = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--small] [--seed N] [--plans NAME,...] [--config NAME]\n",
                    argv[0]);
            return 2;
        }
    }
    if (forced)
        setenv("FUSEGEN_CONFIG", forced, 1);
    else
        unsetenv("FUSEGEN_CONFIG"); /* the tuned dispatch as a user's launch takes it */
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("no usable GPU (%s): GPU checks skipped\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return 77;
    }
    gc_device_prop prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
#ifdef GC_HIP
        printf("device: %s (%s)\n", prop.name, prop.gcnArchName);
#else
        const char *fam = getenv("FUSEGEN_CUDA_FAMILY");
#ifdef FG_CUDA_SM90A
        hopper = prop.major == 9 && prop.minor == 0 && !(fam && !strcmp(fam, "sm80"));
#else
        (void)fam; /* the library has no sm_90a code */
#endif
        printf("device: %s (sm_%d%d)%s\n", prop.name, prop.major, prop.minor,
               hopper ? "; the rolling plans must take the sm_90a family" : "");
#endif
    }
    printf("seed: %llu (rerun with --seed %llu)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    init_normals();

    int nplans = 0;
    for (int i = 0; gc_plan_list[i].name; i++) {
        const fg_plan_info *info = find_plan(gc_plan_list[i].name);
        fg_plan_cuda_fn fn = gc_plan_list[i].fn;
        if (!info || !fn) {
            printf("FAIL: %s: a " GC_API " entry without a plan in fg_plan_list\n",
                   gc_plan_list[i].name);
            nfail++;
            continue;
        }
        if (only && !listed(only, info->name))
            continue;
        nplans++;
        if (is_rows(info)) {
            row_bad_args(info, fn);
            row_cases(info, fn, small);
            continue;
        }
        bad_args(info, fn);
        if (!strcmp(info->form, "split"))
            split_cases(info, fn, small);
        else
            rolling_cases(info, fn, small);
    if (strcmp(info->form, "split"))
        add_graph_case(info, fn, FG_BF16, 128, 67, 131, 1, 0, 0);
    }
    if (nbatch)
        flush_batch();
    if (nplans == 0) {
        printf("FAIL: the " GC_API " entry list holds no plan\n");
        nfail++;
    }
    if (forced) {
        printf("%d launches took configuration %s\n", nforced, forced);
        if (nforced == 0) {
            printf("FAIL: no launch took %s (not a tuned configuration of these plans, or no "
                   "case of its head dim)\n",
                   forced);
            nfail++;
        }
    }
    printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
    if (nfail)
        printf("seed was %llu\n", (unsigned long long)seed);
    return nfail ? 1 : 0;
}
