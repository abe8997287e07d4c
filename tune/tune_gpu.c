/* tune_gpu.c - fusegen-tune on the GPU: tuning libraries, checks, timing,
 * the wisdom file.  Included by fusegen-tune.c when built with CUDA. */

/* Seconds on a monotonic clock (the budget and the progress line's ETA). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct plugin {
    void *h;
    const fg_plan_info *info;
    fg_plan_cuda_fn fn;
    int (*count)(void);
    const char *(*name)(int, int *);
    void (*force)(int);
    const char *(*last_error)(void);
} plugin;

typedef struct device_info {
    char name[256], slug[256];
    int cc_major, cc_minor, sms, memclock, driver, runtime;
    size_t l2;
} device_info;

/* ---- running programs ---------------------------------------------- */

/* Runs argv with stdout and stderr to log; 0 when it exits 0. */
static int run_prog(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *f = fopen(log, "a");
        if (f) {
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0777);
            *p = '/';
        }
    return mkdir(buf, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* ---- the tuning library of a plan ------------------------------------ */

static const char *cache_root(const options *o)
{
    static char buf[4096];
    if (o->cache)
        return o->cache;
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (x && *x)
        snprintf(buf, sizeof buf, "%s/fusegen-tune", x);
    else
        snprintf(buf, sizeof buf, "%s/.cache/fusegen-tune", home && *home ? home : "/tmp");
    return buf;
}

static char *dims_list(fg_arena *a, const tune_sweep *sw)
{
    fg_strbuf b = {a, NULL, 0, 0};
    for (int i = 0; i < sw->ndims; i++)
        strbuf_printf(&b, "%s%d", i ? "," : "", sw->dims[i]);
    return strbuf_str(&b);
}

/* Generates and compiles the plan's tuning library unless the cache has
 * it; returns its path (in the child of a parallel build: exits). */
static char *plugin_path(fg_arena *a, const options *o, const tune_sweep *sw,
                         const plan_model *pm, const device_info *dev, const char *thash)
{
    return arena_printf(a, "%s/%s-%s-%s-sm%d%d-d%s/tune.so", cache_root(o), pm->name, pm->hash,
                        thash, dev->cc_major, dev->cc_minor, dims_list(a, sw));
}

static int build_plugin(fg_arena *a, const options *o, const tune_sweep *sw, const plan_model *pm,
                        const device_info *dev, const char *so)
{
    char *dir = arena_strdup(a, so);
    *strrchr(dir, '/') = 0;
    char *gen = arena_printf(a, "%s/gen", dir), *log = arena_printf(a, "%s/build.log", dir);
    if (mkdirs(gen) < 0)
        return -1;
    char *tuning = arena_printf(a, "--tuning=%s", dims_list(a, sw));
    char *tmpl = arena_printf(a, "--templates=%s", o->templates);
    char *gen_argv[] = {(char *)o->fusegen, tuning, tmpl, "-o", gen, (char *)pm->path, NULL};
    if (run_prog(gen_argv, log) < 0)
        return -1;
    char *arch = dev->cc_major == 9 && dev->cc_minor == 0
                     ? arena_strdup(a, "-gencode=arch=compute_90a,code=sm_90a")
                     : arena_printf(a, "-gencode=arch=compute_%d%d,code=sm_%d%d", dev->cc_major,
                                    dev->cc_minor, dev->cc_major, dev->cc_minor);
    char *rt = arena_printf(a, "-I%s/runtime", o->srcdir), *gi = arena_printf(a, "-I%s", gen);
    const char *cfiles[] = {"%s/%s_cpu.c", "%s/fusegen_plans.c", "%s/fusegen_plans_cuda.c"};
    char *objs[8];
    int no = 0;
    for (int i = 0; i < 3; i++) {
        char *src = arena_printf(a, cfiles[i], gen, pm->name);
        if (i)
            src = arena_printf(a, cfiles[i], gen);
        objs[no] = arena_printf(a, "%s/c%d.o", dir, i);
        char *cc_argv[] = {FG_TUNE_CC, "-std=c11", "-O2", "-fPIC", gi, rt, "-c", src, "-o",
                           objs[no], NULL};
        if (run_prog(cc_argv, log) < 0)
            return -1;
        no++;
    }
    objs[no] = arena_printf(a, "%s/rt.o", dir);
    char *rt_src = arena_printf(a, "%s/runtime/fusegen.c", o->srcdir);
    char *cc_argv[] = {FG_TUNE_CC, "-std=c11", "-O2", "-fPIC", rt, "-c", rt_src, "-o", objs[no],
                       NULL};
    if (run_prog(cc_argv, log) < 0)
        return -1;
    no++;
    char *tmp = arena_printf(a, "%s.tmp", so);
    char *cu = arena_printf(a, "%s/%s_cuda.cu", gen, pm->name);
    char *rcu = arena_printf(a, "%s/runtime/fusegen_cuda.cu", o->srcdir);
    char *nv_argv[] = {(char *)o->nvcc, "-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC",
                       "-cudart", "shared", arch, gi, rt, cu, rcu, objs[0], objs[1], objs[2],
                       objs[3], "-o", tmp, NULL};
    if (run_prog(nv_argv, log) < 0)
        return -1;
    return rename(tmp, so);
}

/* Builds every missing tuning library, one process per plan. */
static int build_plugins(fg_arena *a, const options *o, const tune_sweep *sw, plan_model *pms,
                         int np, const device_info *dev, const char *thash, char **sos)
{
    pid_t pids[MAX_PLANS];
    int rc = 0;
    for (int i = 0; i < np; i++) {
        sos[i] = plugin_path(a, o, sw, &pms[i], dev, thash);
        pids[i] = 0;
        if (access(sos[i], R_OK) == 0)
            continue;
        fprintf(stderr, "fusegen-tune: building the tuning library of %s (%d candidates)\n",
                pms[i].name, pms[i].ncands);
        pids[i] = fork();
        if (pids[i] == 0)
            _exit(build_plugin(a, o, sw, &pms[i], dev, sos[i]) == 0 ? 0 : 1);
    }
    for (int i = 0; i < np; i++) {
        int st = 0;
        if (pids[i] > 0 && (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))) {
            fprintf(stderr, "fusegen-tune: error: building %s failed: see %.*s/build.log\n",
                    pms[i].name, (int)(strrchr(sos[i], '/') - sos[i]), sos[i]);
            rc = -1;
        }
    }
    return rc;
}

static int load_plugin(const char *so, const plan_model *pm, plugin *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!pl->h) {
        fprintf(stderr, "fusegen-tune: error: %s\n", dlerror());
        return -1;
    }
    const fg_plan_info *const *list = dlsym(pl->h, "fg_plan_list");
    const fg_plan_cuda_entry *cl = dlsym(pl->h, "fg_plan_cuda_list");
    char sym[256];
    for (int i = 0; list && list[i]; i++)
        if (!strcmp(list[i]->name, pm->name))
            pl->info = list[i];
    for (int i = 0; cl && cl[i].name; i++)
        if (!strcmp(cl[i].name, pm->name))
            pl->fn = cl[i].fn;
    snprintf(sym, sizeof sym, "fg_tune_%s_count", pm->name);
    *(void **)&pl->count = dlsym(pl->h, sym);
    snprintf(sym, sizeof sym, "fg_tune_%s_name", pm->name);
    *(void **)&pl->name = dlsym(pl->h, sym);
    snprintf(sym, sizeof sym, "fg_tune_%s_force", pm->name);
    *(void **)&pl->force = dlsym(pl->h, sym);
    *(void **)&pl->last_error = dlsym(pl->h, "fg_last_error");
    if (!pl->info || !pl->fn || !pl->last_error || (!pm->split && (!pl->count || !pl->force))) {
        fprintf(stderr, "fusegen-tune: error: %s is not a tuning library of %s\n", so, pm->name);
        return -1;
    }
    if (!pm->split && pl->count() != pm->ncands) {
        fprintf(stderr, "fusegen-tune: error: %s has %d candidates, the plan %d\n", so,
                pl->count(), pm->ncands);
        return -1;
    }
    return 0;
}

/* ---- data ------------------------------------------------------------ */

/* A 16-bit element as a float (the runtime's conversions). */
static float from16(uint16_t v, unsigned dt)
{
    return dt == TUNE_BF16 ? fg_bf16_to_float(v) : fg_half_to_float(v);
}

#define PATTERN (1 << 16 | 7)
static uint16_t pattern[2][PATTERN];

static void make_patterns(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
    for (int i = 0; i < PATTERN; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float f = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        pattern[0][i] = fg_float_to_bf16(f);
        pattern[1][i] = fg_float_to_half(f);
    }
}

static int fill(void *dev, size_t n, unsigned dt, size_t offset)
{
    const uint16_t *p = pattern[dt == TUNE_FP16];
    for (size_t at = 0; at < n;) {
        size_t from = (at + offset) % PATTERN, k = PATTERN - from;
        if (k > n - at)
            k = n - at;
        if (cudaMemcpy((uint16_t *)dev + at, p + from, k * 2, cudaMemcpyHostToDevice) !=
            cudaSuccess)
            return -1;
        at += k;
    }
    return 0;
}

/* An input of i32 ids along its last dim (a document mask's ids by key):
 * packed documents of 512 to 1535 positions from a fixed sequence, starting
 * again with each row, as fusegen-bench's cases have them (a random pattern
 * would leave a document mask almost nothing to see); along a dim shorter
 * than 4096 (the check's 301 keys) documents of last / 8 to about last / 4, so
 * that the check against the CPU entry crosses documents too. */
static int fill_ids(void *dev, size_t n, size_t last)
{
    const long lo = last >= 4096 ? 512 : (long)(last / 8 > 0 ? last / 8 : 1);
    const long span = last >= 4096 ? 1024 : lo + 1;
    int32_t *h = malloc(n * 4);
    if (!h)
        return -1;
    uint64_t r = 0x9e3779b97f4a7c15ull;
    long left = 0;
    int32_t id = -1;
    for (size_t e = 0; e < n; e++) {
        if (e % last == 0)
            left = 0, id = -1;
        if (left == 0) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            left = lo + (long)((r >> 33) % (uint64_t)span);
            id++;
        }
        h[e] = id;
        left--;
    }
    int ok = cudaMemcpy(dev, h, n * 4, cudaMemcpyHostToDevice) == cudaSuccess;
    free(h);
    return ok ? 0 : -1;
}

/* The extents of the plan's dims for a shape and head dim; a dim of no
 * role (a table's length) 64, as in fusegen-bench. */
static void extents(const fg_plan_info *info, const tune_shape *sh, int d, int64_t *ext)
{
    for (int i = 0; i < info->ndims; i++) {
        switch (info->dim_role[i]) {
        case FG_ROLE_BATCH: ext[i] = sh->b; break;
        case FG_ROLE_HEADS: ext[i] = sh->hq; break;
        case FG_ROLE_KV_HEADS: ext[i] = sh->hkv; break;
        case FG_ROLE_ROWS: ext[i] = sh->m; break;
        case FG_ROLE_KEYS: ext[i] = sh->n; break;
        case FG_ROLE_HEAD_DIM: ext[i] = d; break;
        default: ext[i] = 64; break;
        }
    }
}

static void make_tensor(fg_tensor *t, const fg_plan_tensor_info *ti, const int64_t *ext,
                        void *data, fg_dtype dt)
{
    int64_t shape[FG_MAX_RANK];
    for (int r = 0; r < ti->rank; r++)
        shape[r] = ext[ti->dims[r]];
    *t = fg_tensor_dense(data, dt, ti->rank, shape);
}

static size_t tensor_elems(const fg_plan_tensor_info *ti, const int64_t *ext)
{
    size_t n = 1;
    for (int r = 0; r < ti->rank; r++)
        n *= (size_t)ext[ti->dims[r]];
    return n;
}

/* Device buffers of one shape: inputs (all but Q rotated over `sets`
 * copies so that the L2 holds none of the next), outputs; at most
 * TUNE_TENSORS of each (alloc_buffers refuses more). */
#define TUNE_TENSORS 8
#define TUNE_DIMS 16
typedef struct buffers {
    int sets;
    void *in[8][TUNE_TENSORS];
    void *out[TUNE_TENSORS];
    size_t nin[TUNE_TENSORS], nout[TUNE_TENSORS];
    size_t esz[TUNE_TENSORS]; /* bytes an input element: 2, or 4 for i32 ids */
    fg_tensor tin[8][TUNE_TENSORS], tout[TUNE_TENSORS];
} buffers;

static void free_buffers(buffers *b)
{
    for (int s = 0; s < 8; s++)
        for (int i = 0; i < TUNE_TENSORS; i++)
            if (b->in[s][i] && (s == 0 || b->in[s][i] != b->in[0][i]))
                cudaFree(b->in[s][i]);
    for (int i = 0; i < TUNE_TENSORS; i++)
        cudaFree(b->out[i]);
    memset(b, 0, sizeof *b);
}

/* Whether the tuner can make a plan's buffers (alloc_buffers): the reason
 * it cannot, or NULL. */
static const char *buffers_unsupported(const fg_plan_info *info)
{
    static char why[160];
    if (info->ninputs > TUNE_TENSORS || info->noutputs > TUNE_TENSORS || info->ndims > TUNE_DIMS) {
        snprintf(why, sizeof why, "%d inputs, %d outputs and %d dims (the tuner takes %d, %d and %d)",
                 info->ninputs, info->noutputs, info->ndims, TUNE_TENSORS, TUNE_TENSORS, TUNE_DIMS);
        return why;
    }
    return NULL;
}

static int alloc_buffers(const plugin *pl, const tune_shape *sh, int d, unsigned dt, size_t l2,
                         buffers *b)
{
    const fg_plan_info *info = pl->info;
    int64_t ext[TUNE_DIMS];
    memset(b, 0, sizeof *b);
    if (buffers_unsupported(info))
        return -1;
    extents(info, sh, d, ext);
    const fg_dtype fdt = dt == TUNE_BF16 ? FG_BF16 : FG_FP16;
    size_t per = 0;
    for (int i = 0; i < info->ninputs; i++) {
        b->nin[i] = tensor_elems(&info->inputs[i], ext);
        b->esz[i] = info->inputs[i].dtype == FG_I32 ? 4 : 2;
        if (i > 0)
            per += b->nin[i] * b->esz[i];
    }
    b->sets = (int)(2 * l2 / (per ? per : 1)) + 1;
    if (b->sets > 8)
        b->sets = 8;
    for (int s = 0; s < b->sets; s++)
        for (int i = 0; i < info->ninputs; i++) {
            const fg_plan_tensor_info *ti = &info->inputs[i];
            const bool ids = ti->dtype == FG_I32;
            if (s > 0 && i == 0) {
                b->in[s][0] = b->in[0][0];
            } else if (cudaMalloc(&b->in[s][i], b->nin[i] * b->esz[i] + 16) != cudaSuccess ||
                       (ids ? fill_ids(b->in[s][i], b->nin[i], (size_t)ext[ti->dims[ti->rank - 1]])
                            : fill(b->in[s][i], b->nin[i], dt, (size_t)(s * 7919 + i * 104729))) < 0) {
                free_buffers(b);
                return -1;
            }
            make_tensor(&b->tin[s][i], ti, ext, b->in[s][i], ids ? FG_I32 : fdt);
        }
    for (int i = 0; i < info->noutputs; i++) {
        const fg_dtype odt = info->outputs[i].dtype == FG_F32 ? FG_F32 : fdt;
        b->nout[i] = tensor_elems(&info->outputs[i], ext);
        if (cudaMalloc(&b->out[i], b->nout[i] * fg_dtype_size(odt) + 16) != cudaSuccess) {
            free_buffers(b);
            return -1;
        }
        make_tensor(&b->tout[i], &info->outputs[i], ext, b->out[i], odt);
    }
    return 0;
}

/* ---- checks and timing ------------------------------------------------ */

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* A sticky error leaves the context unusable: the candidate is recorded
 * and the program starts again (it resumes from the wisdom file). */
static bool sticky(cudaError_t e)
{
    return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
           e == cudaErrorMisalignedAddress || e == cudaErrorIllegalInstruction ||
           e == cudaErrorHardwareStackError || e == cudaErrorAssert ||
           e == cudaErrorInvalidPc || e == cudaErrorLaunchTimeout;
}

typedef struct launch_result {
    float ms;     /* median */
    float spread; /* (max - min) / median */
    char why[256]; /* empty: fine */
    bool fatal;
} launch_result;

static int config_splits(const plan_model *pm, int c)
{
    return c >= 0 && pm->split ? atoi(pm->cands[c] + 7) : 0;
}

static void launch_config(const plugin *pl, const plan_model *pm, int c)
{
    if (!pm->split)
        pl->force(c);
}

static launch_result time_shape(const plugin *pl, const plan_model *pm, int c, buffers *b,
                                int reps)
{
    launch_result r = {0};
    float t[1024];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    launch_config(pl, pm, c);
    for (int i = -2; i < reps; i++) {
        const int s = (i + 2) % b->sets;
        cudaEventRecord(e0, NULL);
        fg_status st = pl->fn(b->tin[s], b->tout, NULL, NULL, NULL, NULL, config_splits(pm, c),
                              NULL);
        cudaEventRecord(e1, NULL);
        cudaError_t ce = cudaEventSynchronize(e1);
        if (st != FG_OK) {
            snprintf(r.why, sizeof r.why, "launch: %s", pl->last_error());
            break;
        }
        if (ce != cudaSuccess) {
            snprintf(r.why, sizeof r.why, "CUDA error: %s", cudaGetErrorString(ce));
            r.fatal = sticky(ce);
            break;
        }
        if (i >= 0)
            cudaEventElapsedTime(&t[i], e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (!r.why[0]) {
        qsort(t, (size_t)reps, sizeof t[0], cmp_float);
        r.ms = t[reps / 2];
        r.spread = (t[reps - 1] - t[0]) / (r.ms > 0 ? r.ms : 1);
    }
    launch_config(pl, pm, -1);
    if (!r.fatal)
        (void)cudaGetLastError();
    return r;
}

/* The first elements of output i, as floats. */
static int read_out(const buffers *b, const plugin *pl, int i, unsigned dt, float *h, size_t n)
{
    const bool f32 = pl->info->outputs[i].dtype == FG_F32;
    if (n > b->nout[i])
        n = b->nout[i];
    if (f32)
        return cudaMemcpy(h, b->out[i], n * 4, cudaMemcpyDeviceToHost) == cudaSuccess ? (int)n
                                                                                      : -1;
    uint16_t *tmp = malloc(n * 2);
    if (!tmp || cudaMemcpy(tmp, b->out[i], n * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(tmp);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        h[k] = from16(tmp[k], dt);
    free(tmp);
    return (int)n;
}

#define COMPARE_ELEMS (1 << 18)

/* Max |a - b| / (tol_abs + tol_rel |b|) over n values; NaN is worst. */
static double worst(const float *a, const float *b, int n, double tabs, double trel)
{
    double w = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]) / (tabs + trel * fabs((double)b[i]));
        if (!(e <= w))
            w = isnan(e) ? INFINITY : e;
    }
    return w;
}

/* Candidate c against the CPU reference on an odd shape: *why set when it
 * fails. */
static void check_cpu(const plugin *pl, const plan_model *pm, int c, int d, unsigned dt,
                      size_t l2, launch_result *r)
{
    const tune_shape sh = {1, pm->grouped ? 4 : 2, 2, pm->split ? 3 : 77, 301};
    buffers b;
    r->why[0] = 0;
    if (alloc_buffers(pl, &sh, d, dt, l2, &b) < 0) {
        snprintf(r->why, sizeof r->why, "no memory for the check");
        return;
    }
    const fg_plan_info *info = pl->info;
    launch_config(pl, pm, c);
    fg_status st = pl->fn(b.tin[0], b.tout, NULL, NULL, NULL, NULL, config_splits(pm, c), NULL);
    launch_config(pl, pm, -1);
    cudaError_t ce = cudaDeviceSynchronize();
    if (st != FG_OK || ce != cudaSuccess) {
        snprintf(r->why, sizeof r->why, "check launch: %s",
                 st != FG_OK ? pl->last_error() : cudaGetErrorString(ce));
        r->fatal = ce != cudaSuccess && sticky(ce);
        free_buffers(&b);
        return;
    }
    /* the CPU entry of the same library on the same inputs, outputs f32 */
    fg_tensor hin[TUNE_TENSORS], hout[TUNE_TENSORS];
    void *hbuf[2 * TUNE_TENSORS] = {0};
    float *gpu = NULL;
    int ok = 1;
    for (int i = 0; i < info->ninputs; i++) {
        hbuf[i] = malloc(b.nin[i] * b.esz[i] + 16);
        ok &= hbuf[i] && cudaMemcpy(hbuf[i], b.in[0][i], b.nin[i] * b.esz[i],
                                    cudaMemcpyDeviceToHost) == cudaSuccess;
        hin[i] = b.tin[0][i];
        hin[i].data = hbuf[i];
    }
    for (int i = 0; i < info->noutputs; i++) {
        hbuf[TUNE_TENSORS + i] = malloc(b.nout[i] * 4 + 16);
        ok &= hbuf[TUNE_TENSORS + i] != NULL;
        hout[i] = b.tout[i];
        hout[i].dtype = FG_F32;
        hout[i].data = hbuf[TUNE_TENSORS + i];
    }
    gpu = malloc(COMPARE_ELEMS * sizeof *gpu);
    if (!ok || !gpu || info->cpu(hin, hout, NULL, NULL, NULL, NULL, 0) != FG_OK) {
        snprintf(r->why, sizeof r->why, "the CPU reference did not run");
    } else {
        for (int i = 0; i < info->noutputs && !r->why[0]; i++) {
            int n = read_out(&b, pl, i, dt, gpu, COMPARE_ELEMS);
            const bool f32 = info->outputs[i].dtype == FG_F32;
            double w = n < 0 ? INFINITY
                             : worst(gpu, hbuf[TUNE_TENSORS + i], n, f32 ? 2e-3 : 1e-2, f32 ? 1e-3 : 1e-2);
            if (w > 1)
                snprintf(r->why, sizeof r->why,
                         "output %s differs from the CPU reference (%.3g x the tolerance)",
                         info->outputs[i].name, w);
        }
    }
    free(gpu);
    for (int i = 0; i < 2 * TUNE_TENSORS; i++)
        free(hbuf[i]);
    free_buffers(&b);
}

/* ---- the wisdom file --------------------------------------------------- */

typedef struct done_set {
    int n;
    struct {
        char plan[64], hash[17], cand[64];
        unsigned dt;
        int d, keys, work; /* keys < 0: an unusable candidate */
    } e[8192];
} done_set;

static bool is_done(const done_set *ds, const plan_model *pm, unsigned dt, int d, int keys,
                    int work)
{
    for (int i = 0; i < ds->n; i++)
        if (ds->e[i].keys == keys && ds->e[i].work == work && ds->e[i].d == d &&
            ds->e[i].dt == dt && !strcmp(ds->e[i].plan, pm->name) &&
            !strcmp(ds->e[i].hash, pm->hash))
            return true;
    return false;
}

static bool is_unusable(const done_set *ds, const plan_model *pm, unsigned dt, int d,
                        const char *cand)
{
    for (int i = 0; i < ds->n; i++)
        if (ds->e[i].keys < 0 && ds->e[i].d == d && ds->e[i].dt == dt &&
            !strcmp(ds->e[i].plan, pm->name) && !strcmp(ds->e[i].hash, pm->hash) &&
            !strcmp(ds->e[i].cand, cand))
            return true;
    return false;
}

/* Reads what an earlier run wrote (rows, and "# unusable" lines); the
 * header must be this device's and these templates'. */
static int read_done(fg_arena *a, const char *path, const device_info *dev, const char *thash,
                     done_set *ds)
{
    ds->n = 0;
    fg_diag d;
    diag_init(&d, NULL, stderr);
    fg_source *src = ARENA_NEW(a, fg_source);
    if (access(path, R_OK) != 0)
        return 0;
    if (source_read(a, path, src, &d) < 0)
        return -1;
    d.src = src;
    fg_wisdom *w = NULL;
    if (wisdom_parse(a, src, &d, &w) < 0)
        return -1;
    if (strcmp(w->device, dev->name) != 0 || w->sms != dev->sms) {
        fprintf(stderr, "fusegen-tune: error: %s is the wisdom of %s (%d SMs), not of this %s\n",
                path, w->device, w->sms, dev->name);
        return -1;
    }
    if (strcmp(w->templates, thash) != 0) {
        fprintf(stderr,
                "fusegen-tune: error: %s was tuned on other templates (%s; these are %s): "
                "move it away to tune again\n",
                path, w->templates, thash);
        return -1;
    }
    for (int i = 0; i < w->nrows && ds->n < 8192; i++) {
        const fg_wisdom_row *r = &w->rows[i];
        snprintf(ds->e[ds->n].plan, 64, "%s", r->plan);
        snprintf(ds->e[ds->n].hash, 17, "%s", r->hash);
        ds->e[ds->n].dt = r->dtype == CUDA_CFG_BF16 ? TUNE_BF16 : TUNE_FP16;
        ds->e[ds->n].d = r->d;
        ds->e[ds->n].keys = r->keys;
        ds->e[ds->n].work = r->work;
        ds->n++;
    }
    /* # unusable PLAN HASH DTYPE D CANDIDATE: why */
    for (const char *s = src->text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
        char plan[64], hash[17], dt[8], cand[64];
        int dd;
        if (ds->n < 8192 && sscanf(s, "# unusable %63s %16s %7s %d %63[^:]", plan, hash, dt, &dd,
                                   cand) == 5) {
            snprintf(ds->e[ds->n].plan, 64, "%s", plan);
            snprintf(ds->e[ds->n].hash, 17, "%s", hash);
            snprintf(ds->e[ds->n].cand, 64, "%s", cand);
            ds->e[ds->n].dt = strcmp(dt, "bf16") ? TUNE_FP16 : TUNE_BF16;
            ds->e[ds->n].d = dd;
            ds->e[ds->n].keys = -1;
            ds->n++;
        }
    }
    return 0;
}

static int nvcc_release(const char *nvcc, char *out, size_t n)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", nvcc);
    FILE *p = popen(cmd, "r");
    char line[512];
    snprintf(out, n, "unknown");
    while (p && fgets(line, sizeof line, p)) {
        char *r = strstr(line, "release ");
        if (r) {
            snprintf(out, n, "%.*s", (int)strcspn(r + 8, ", \n"), r + 8);
        }
    }
    if (p)
        pclose(p);
    return 0;
}

static FILE *open_wisdom(const options *o, const char *path, const device_info *dev,
                         const char *thash)
{
    bool fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "fusegen-tune: error: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    if (fresh) {
        char rel[64], date[64];
        time_t t = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&t));
        nvcc_release(o->nvcc, rel, sizeof rel);
        fprintf(f,
                "# fusegen wisdom (docs/tuning.md), written by fusegen-tune: one row per plan,\n"
                "# dtype, compiled head dim and shape bucket (ceil(log2 keys), ceil(log2 (batch x\n"
                "# query heads x rows)))\n"
                "fusegen-wisdom %d\n"
                "fusegen %s\ntemplates %s\nnvcc %s\ndriver %d\ndevice %s\ncc %d.%d\nsms %d\n"
                "memclock %d\ndate %s\n"
                "# row plan hash dtype d keys work variant ms runner-up runner-up-ms spread\n",
                FG_WISDOM_VERSION, PACKAGE_VERSION, thash, rel, dev->driver, dev->name,
                dev->cc_major, dev->cc_minor, dev->sms, dev->memclock, date);
        fflush(f);
    }
    return f;
}

/* ---- the run ------------------------------------------------------------ */

static void progress(bool tty, const char *label, const char *what, long done, long total,
                     double elapsed)
{
    double eta = done > 0 ? elapsed / (double)done * (double)(total - done) : 0;
    if (tty) {
        int w = total ? (int)(30 * done / total) : 0;
        fprintf(stderr, "\r[%.*s%*s] %ld/%ld ETA %dm%02ds %s: %-16s", w,
                "##############################", 30 - w, "", done, total, (int)eta / 60,
                (int)eta % 60, label, what);
    } else {
        fprintf(stderr, "fusegen-tune: %s: %s (%ld/%ld timed, ETA %dm%02ds)\n", label, what, done,
                total, (int)eta / 60, (int)eta % 60);
    }
}

static int device_query(device_info *dev)
{
    int n = 0, d = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 || cudaGetDevice(&d) != cudaSuccess)
        return -1;
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
        return -1;
    snprintf(dev->name, sizeof dev->name, "%s", p.name);
    size_t k = 0;
    for (const char *s = p.name; *s && k + 1 < sizeof dev->slug; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
            dev->slug[k++] = *s;
        else if (*s >= 'A' && *s <= 'Z')
            dev->slug[k++] = (char)(*s - 'A' + 'a');
        else if (k && dev->slug[k - 1] != '-')
            dev->slug[k++] = '-';
    while (k && dev->slug[k - 1] == '-')
        k--;
    dev->slug[k] = 0;
    dev->cc_major = p.major;
    dev->cc_minor = p.minor;
    dev->sms = p.multiProcessorCount;
    dev->l2 = (size_t)p.l2CacheSize;
    cudaDeviceGetAttribute(&dev->memclock, cudaDevAttrMemoryClockRate, d);
    cudaDriverGetVersion(&dev->driver);
    cudaRuntimeGetVersion(&dev->runtime);
    return 0;
}

static void restart(const options *o)
{
    const char *r = getenv("FUSEGEN_TUNE_RESTARTS");
    int n = r ? atoi(r) : 0;
    if (n >= 20) {
        fprintf(stderr, "fusegen-tune: error: 20 restarts after device faults: stopping\n");
        exit(1);
    }
    char buf[16];
    snprintf(buf, sizeof buf, "%d", n + 1);
    setenv("FUSEGEN_TUNE_RESTARTS", buf, 1);
    fprintf(stderr, "fusegen-tune: the device faulted: starting again (it resumes)\n");
    execv("/proc/self/exe", o->argv);
    fprintf(stderr, "fusegen-tune: error: cannot restart: %s\n", strerror(errno));
    exit(1);
}

static int tune_on_gpu(const options *o, const tune_sweep *sw, plan_model *pms, int np,
                       fg_arena *a)
{
    device_info dev;
    memset(&dev, 0, sizeof dev);
    if (device_query(&dev) < 0) {
        fprintf(stderr, "fusegen-tune: no usable CUDA device (exit 77)\n");
        return 77;
    }
    const char *thash = tune_templates_hash(a, o->templates);
    const char *wpath =
        o->wisdom ? o->wisdom : arena_printf(a, "%s/wisdom/%s.wisdom", o->srcdir, dev.slug);
    static done_set ds;
    if (read_done(a, wpath, &dev, thash, &ds) < 0)
        return 1;
    char *sos[MAX_PLANS];
    if (build_plugins(a, o, sw, pms, np, &dev, thash, sos) < 0)
        return 1;
    FILE *wf = open_wisdom(o, wpath, &dev, thash);
    if (!wf)
        return 1;
    make_patterns();
    const bool tty = isatty(2);
    const double t0 = now();
    /* the work left, for the ETA */
    long total = 0, done = 0;
    static tune_bucket bs[MAX_PLANS][MAX_BUCKETS];
    int nb[MAX_PLANS];
    for (int i = 0; i < np; i++) {
        nb[i] = sweep_buckets(sw, pms[i].split, pms[i].grouped, bs[i], MAX_BUCKETS);
        for (unsigned dt = TUNE_BF16; dt <= TUNE_FP16; dt <<= 1)
            for (int di = 0; sw->dtypes & dt && di < sw->ndims; di++)
                for (int b = 0; b < nb[i]; b++) {
                    char label[160];
                    snprintf(label, sizeof label, "%s %s %d %d %d", pms[i].name, dtype_str(dt),
                             sw->dims[di], bs[i][b].keys, bs[i][b].work);
                    if (!bucket_selected(o, label) ||
                        is_done(&ds, &pms[i], dt, sw->dims[di], bs[i][b].keys, bs[i][b].work))
                        continue;
                    int nc = 1;
                    for (int c = 0; c < pms[i].ncands; c++)
                        nc += pms[i].split || pms[i].cand_d[c] == sw->dims[di];
                    total += (long)nc * bs[i][b].nshapes;
                }
    }
    fprintf(stderr, "fusegen-tune: %s (%d SMs): %ld (shape, configuration) pairs to time; wisdom: %s\n",
            dev.name, dev.sms, total, wpath);
    int rc = 0;
    for (int i = 0; i < np && !rc; i++) {
        const plan_model *pm = &pms[i];
        plugin pl;
        if (load_plugin(sos[i], pm, &pl) < 0)
            return 1;
        const char *unsup = buffers_unsupported(pl.info);
        if (unsup) {
            fprintf(stderr, "fusegen-tune: error: %s has %s\n", pm->name, unsup);
            fclose(wf);
            return 1;
        }
        for (unsigned dt = TUNE_BF16; dt <= TUNE_FP16 && !rc; dt <<= 1)
            for (int di = 0; sw->dtypes & dt && di < sw->ndims && !rc; di++) {
                const int d = sw->dims[di];
                bool checked[MAX_CANDS] = {0}, bad[MAX_CANDS] = {0};
                for (int c = 0; c < pm->ncands; c++)
                    bad[c] = is_unusable(&ds, pm, dt, d, pm->cands[c]);
                for (int b = 0; b < nb[i] && !rc; b++) {
                    const tune_bucket *bk = &bs[i][b];
                    char label[160];
                    snprintf(label, sizeof label, "%s %s %d %d %d", pm->name, dtype_str(dt), d,
                             bk->keys, bk->work);
                    if (!bucket_selected(o, label) || is_done(&ds, pm, dt, d, bk->keys, bk->work))
                        continue;
                    if (o->budget > 0 && now() - t0 > o->budget) {
                        fprintf(stderr,
                                "%sfusegen-tune: the budget of %.0f s is spent; %ld pairs are "
                                "left: run again to go on\n",
                                tty ? "\n" : "", o->budget, total - done);
                        fclose(wf);
                        return 0;
                    }
                    /* configurations: -1 the default rules, then the candidates */
                    double sum[MAX_CANDS + 1];
                    float spread[MAX_CANDS + 1];
                    bool ok[MAX_CANDS + 1];
                    for (int c = -1; c < pm->ncands; c++) {
                        ok[c + 1] = c < 0 || ((pm->split || pm->cand_d[c] == d) && !bad[c]);
                        sum[c + 1] = 0;
                        spread[c + 1] = 0;
                    }
                    static float ref[COMPARE_ELEMS], out[COMPARE_ELEMS];
                    for (int s = 0; s < bk->nshapes; s++) {
                        buffers bf;
                        if (alloc_buffers(&pl, &bk->shapes[s], d, dt, dev.l2, &bf) < 0) {
                            fprintf(stderr, "fusegen-tune: error: no device memory for %s\n",
                                    label);
                            fclose(wf);
                            return 1;
                        }
                        int nref = -1;
                        for (int c = -1; c < pm->ncands; c++) {
                            if (!ok[c + 1])
                                continue;
                            const char *cname = c < 0 ? "default" : pm->cands[c];
                            launch_result r = {0};
                            if (c >= 0 && !checked[c]) {
                                progress(tty, label, cname, done, total, now() - t0);
                                check_cpu(&pl, pm, c, d, dt, dev.l2, &r);
                                checked[c] = true;
                            }
                            if (!r.why[0]) {
                                progress(tty, label, cname, done, total, now() - t0);
                                r = time_shape(&pl, pm, c, &bf, o->reps);
                                done++;
                            }
                            if (!r.why[0] && !r.fatal) {
                                /* the output against the default's on this shape */
                                int n = read_out(&bf, &pl, 0, dt, c < 0 ? ref : out, COMPARE_ELEMS);
                                if (c < 0)
                                    nref = n;
                                else if (n != nref || worst(out, ref, n, 2e-2, 2e-2) > 1)
                                    snprintf(r.why, sizeof r.why,
                                             "output differs from the default's on B=%ld Hq=%ld "
                                             "Hkv=%ld M=%ld N=%ld",
                                             bk->shapes[s].b, bk->shapes[s].hq, bk->shapes[s].hkv,
                                             bk->shapes[s].m, bk->shapes[s].n);
                            }
                            if (r.why[0]) {
                                if (c < 0) {
                                    fprintf(stderr, "%sfusegen-tune: error: %s: the default "
                                                    "rules fail: %s\n",
                                            tty ? "\n" : "", label, r.why);
                                    fclose(wf);
                                    return 1;
                                }
                                fprintf(wf, "# unusable %s %s %s %d %s: %s\n", pm->name, pm->hash,
                                        dtype_str(dt), d, cname, r.why);
                                fflush(wf);
                                if (!tty)
                                    fprintf(stderr, "fusegen-tune: %s: %s is unusable: %s\n",
                                            label, cname, r.why);
                                bad[c] = true;
                                ok[c + 1] = false;
                                if (r.fatal) {
                                    fclose(wf);
                                    restart(o);
                                }
                                continue;
                            }
                            sum[c + 1] += r.ms;
                            if (r.spread > spread[c + 1])
                                spread[c + 1] = r.spread;
                        }
                        free_buffers(&bf);
                    }
                    /* the winner: a candidate must beat the default by more
                     * than 1 % (the noise of repeated medians) */
                    int win = -1, run = -2, best = -1;
                    for (int c = 0; c < pm->ncands; c++)
                        if (ok[c + 1] && (best < 0 || sum[c + 1] < sum[best + 1]))
                            best = c;
                    if (best >= 0 && sum[best + 1] < 0.99 * sum[0])
                        win = best;
                    for (int c = -1; c < pm->ncands; c++)
                        if (ok[c + 1] && c != win && (run < -1 || sum[c + 1] < sum[run + 1]))
                            run = c;
                    const char *wname = win < 0 ? "default" : pm->cands[win];
                    if (o->verbose && tty)
                        fputc('\n', stderr); /* past the progress line */
                    for (int c = -1; o->verbose && c < pm->ncands; c++)
                        if (ok[c + 1])
                            fprintf(stderr, "fusegen-tune: %s: %s %.4f ms%s\n", label,
                                    c < 0 ? "default" : pm->cands[c], sum[c + 1],
                                    c == win ? " (the winner)" : "");
                    fprintf(wf, "row %s %s %s %d %d %d %s %.4f %s %.4f %.3f\n", pm->name,
                            pm->hash, dtype_str(dt), d, bk->keys, bk->work, wname, sum[win + 1],
                            run < -1 ? "-" : run < 0 ? "default" : pm->cands[run],
                            run < -1 ? 0.0 : sum[run + 1], spread[win + 1]);
                    fflush(wf);
                    fsync(fileno(wf));
                    char what[128];
                    snprintf(what, sizeof what, "%s %.4f ms (default %.4f ms)", wname,
                             sum[win + 1], sum[0]);
                    if (!tty)
                        progress(false, label, what, done, total, now() - t0);
                }
            }
    }
    if (tty)
        fputc('\n', stderr);
    fclose(wf);
    fprintf(stderr, "fusegen-tune: done in %.0f s; wisdom: %s\n", now() - t0, wpath);
    return rc;
}
