/* fusegen-bench.c - time the generated CUDA kernels on the benchmark cases
 * (`make bench`), in the JSON-lines schema of the shared bench/peers.py so
 * that bench/compare.py puts both side by side.
 *
 * usage: fusegen-bench [--cases FILE] [--only ID,ID] [--out FILE]
 *                      [--reps N] [--seconds S] [--splits N] [--dry-run]
 *   --cases   the cases file (default $FG_BENCH_CASES, else
 *             $srcdir/bench/cases.tsv): a header line `# id<TAB>variant...`
 *             naming the columns id variant b hq hkv sq sk d causal window
 *             softcap alibi, then one case per line; other # lines are
 *             comments.
 *   --only    the cases to run, by id.
 *   --out     where the JSON lines go (default stdout); a short table goes
 *             to stderr.
 *   --reps    timed launches per case (default 30, at least 20).
 *   --seconds steady state: launch each case for at least S seconds (and
 *             at least --reps times) and report the median of the second
 *             half of its launches, when the GPU's clock has settled to
 *             what the case draws (an H200 holds its power at the limit by
 *             lowering the clock, so a short run's time depends on what ran
 *             before it).  The JSON line adds "launches" and "seconds".
 *   --splits  the split count every launch asks for (the entries' splits
 *             argument; default 0: the plan's, tuned or by the default
 *             rules), named in each case's note.  Meant for the split
 *             (decode) plans.
 *   --dry-run no GPU: per case the plan it maps to, the params it sets, its
 *             FLOPs and K+V bytes (JSON lines), for `make check`.
 *
 * A case maps to the plan named by its variant (global, causal, gqa, alibi,
 * softcap, window), NAME_decode for a decode case (id with "-dc-").  The row
 * must mean what the plan computes: its mask (every bundled plan but global
 * is causal, bottom-right aligned), a window only for a plan with param W,
 * a soft-cap only for one with param cap, ALiBi only for one with param
 * slope, hq != hkv only for one that groups heads (a kv-heads dim).  The params are then set
 * explicitly from the row (scale = 1/sqrt(d), W = window, cap = softcap,
 * G = hq / hkv); slope keeps the plan's default, 2^(-8 (h+1) / H), which is
 * the cases' definition.  A row no plan matches gets ms null and a note.
 *
 * Timing: bf16 inputs (random, not zeros), O bf16, LSE and any other
 * value per row f32 (all computed); 3 warm-up launches, then each launch
 * timed alone with cudaEvents (record, launch, record, synchronize, as
 * peers.py does); the median is reported (with --seconds, that of the
 * second half of the launches), with the configuration the
 * launches took (`config`: fg_last_config(), a tuned row with its wisdom
 * file and line, or the default rules).  Decode
 * cases rotate over enough K/V buffer sets (at least 2) that the L2 cannot
 * hold the next one.  FLOPs = 4 d b hq (visible (query, key) pairs, as
 * peers.py's visible_pairs), K+V bytes = 2 (K elements) 2.
 *
 * Exit: 0; 77 without a usable GPU (or built without CUDA) unless
 * --dry-run; 1 when a case failed to run or produced NaN; 2 on bad usage.
 */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if FG_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "fusegen_registry.h"

#define MAX_CASES 256
#define MAX_INPUTS 8 /* Q, K, V and the extra inputs of relbias, docmask, ... */
#define MAX_PARAMS 8
#define MAX_OUTPUTS 9 /* O and up to 8 values per row (f32 [b, hq, sq] each) */

/* --splits: the split count every launch asks for (0: the plan's) */
static int bench_splits = 0;
/* --seconds: how long each case runs in the steady-state mode (0: off) */
static double bench_seconds = 0;

typedef struct bcase {
    char id[64], variant[32];
    long b, hq, hkv, sq, sk, d, causal, window, alibi;
    double softcap;
    /* derived */
    char plan[48];
    const fg_plan_info *info;
    double params[MAX_PARAMS];
    int has[MAX_PARAMS];
    char setting[160]; /* the params set, for the dry run and notes */
    char note[200];    /* why it cannot run, or what went wrong */
    char config[200];  /* fg_last_config() after the last timed launch */
    double flops, kv_bytes, ms;
    int launches; /* timed launches (more than --reps with --seconds) */
} bcase;

static const char *const columns[] = {"id",  "variant", "b",      "hq",      "hkv",   "sq",
                                      "sk",  "d",       "causal", "window",  "softcap",
                                      "alibi"};
#define NCOLS ((int)(sizeof columns / sizeof columns[0]))

/* The masks of the bundled plans: every one but global is causal. */
static int plan_is_causal(const char *base)
{
    return strcmp(base, "global") != 0 && strcmp(base, "fa1") != 0;
}

/* The attention maps a plan computes per (query, key) pair: two for the
 * two softmax chains of differential attention (plans/diffattn.fp). */
static double plan_maps(const char *base)
{
    return strcmp(base, "diffattn") == 0 ? 2.0 : 1.0;
}

/* visible_pairs of peers.py: per query row i at position i + sk - sq, the
 * keys lo..hi it sees. */
static double visible_pairs(const bcase *c)
{
    double total = 0;
    for (long i = 0; i < c->sq; i++) {
        long pos = i + (c->sk - c->sq);
        long hi = c->causal ? (pos < c->sk - 1 ? pos : c->sk - 1) : c->sk - 1;
        long lo = c->window ? (pos - c->window + 1 > 0 ? pos - c->window + 1 : 0) : 0;
        if (hi - lo + 1 > 0)
            total += (double)(hi - lo + 1);
    }
    return total;
}

static int read_cases(const char *path, bcase *cases, int *ncases)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int map[NCOLS], have_header = 0, lineno = 0, bad = 0;
    if (!f) {
        fprintf(stderr, "fusegen-bench: cannot open %s\n", path);
        return 0;
    }
    *ncases = 0;
    while (fgets(line, sizeof line, f)) {
        char *fields[32];
        int nf = 0;
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        int header = !strncmp(line, "# id\t", 5);
        if (!header && (line[0] == '#' || line[0] == 0))
            continue;
        for (char *p = line + (header ? 2 : 0), *tok; nf < 32; p = NULL) {
            tok = strtok(p, "\t");
            if (!tok)
                break;
            fields[nf++] = tok;
        }
        if (header) {
            for (int k = 0; k < NCOLS; k++) {
                map[k] = -1;
                for (int i = 0; i < nf; i++)
                    if (!strcmp(fields[i], columns[k]))
                        map[k] = i;
                if (map[k] < 0) {
                    fprintf(stderr, "%s:%d: error: no column %s in the header\n", path, lineno,
                            columns[k]);
                    bad = 1;
                }
            }
            have_header = !bad;
            continue;
        }
        if (!have_header) {
            fprintf(stderr, "%s:%d: error: a case before the `# id<TAB>...` header\n", path,
                    lineno);
            bad = 1;
            break;
        }
        if (*ncases == MAX_CASES) {
            fprintf(stderr, "%s:%d: error: more than %d cases\n", path, lineno, MAX_CASES);
            bad = 1;
            break;
        }
        bcase *c = &cases[*ncases];
        memset(c, 0, sizeof *c);
        long *ints[] = {NULL,    NULL,    &c->b,      &c->hq,     &c->hkv, &c->sq,
                        &c->sk,  &c->d,   &c->causal, &c->window, NULL,    &c->alibi};
        int ok = 1;
        for (int k = 0; k < NCOLS && ok; k++) {
            if (map[k] >= nf) {
                fprintf(stderr, "%s:%d: error: %d fields, no %s\n", path, lineno, nf,
                        columns[k]);
                ok = 0;
                break;
            }
            const char *v = fields[map[k]];
            char *end;
            if (k == 0)
                snprintf(c->id, sizeof c->id, "%s", v);
            else if (k == 1)
                snprintf(c->variant, sizeof c->variant, "%s", v);
            else if (k == 10) {
                c->softcap = strtod(v, &end);
                ok = *end == 0 && end != v && c->softcap >= 0;
            } else {
                *ints[k] = strtol(v, &end, 10);
                ok = *end == 0 && end != v && *ints[k] >= 0;
            }
            if (!ok)
                fprintf(stderr, "%s:%d: error: %s = '%s' is not a valid value\n", path, lineno,
                        columns[k], v);
        }
        if (ok && (c->b < 1 || c->hq < 1 || c->hkv < 1 || c->sq < 1 || c->sk < 1 || c->d < 1 ||
                   c->hq % c->hkv)) {
            fprintf(stderr, "%s:%d: error: sizes must be positive and hq a multiple of hkv\n",
                    path, lineno);
            ok = 0;
        }
        if (!ok) {
            bad = 1;
            continue;
        }
        (*ncases)++;
    }
    fclose(f);
    if (!have_header && !bad)
        fprintf(stderr, "%s: error: no `# id<TAB>variant...` header line\n", path);
    return have_header && !bad;
}

static int param_index(const fg_plan_info *info, const char *name)
{
    for (int i = 0; i < info->nparams; i++)
        if (!strcmp(info->params[i].name, name))
            return i;
    return -1;
}

/* The dim with a role in the kernel family (the registry's binding). */
static int role_index(const fg_plan_info *info, fg_dim_role role)
{
    for (int i = 0; i < info->ndims; i++)
        if (info->dim_role[i] == (int)role)
            return i;
    return -1;
}

static void set_param(bcase *c, const char *name, double v)
{
    int k = param_index(c->info, name);
    size_t len = strlen(c->setting);
    if (k < 0)
        return;
    c->params[k] = v;
    c->has[k] = 1;
    snprintf(c->setting + len, sizeof c->setting - len, "%s%s=%.9g", len ? " " : "", name, v);
}

/* The plan of a case and its params; a note when none matches. */
static void map_case(bcase *c)
{
    const char *decode = strstr(c->id, "-dc-") ? "_decode" : "";
    char variant[sizeof c->variant], plan[sizeof c->plan];
    memcpy(variant, c->variant, sizeof variant);
    snprintf(plan, sizeof plan, "%s%s", variant, decode);
    memcpy(c->plan, plan, sizeof plan);
    c->flops = 4.0 * (double)c->d * (double)c->b * (double)c->hq * visible_pairs(c) *
               plan_maps(variant);
    c->kv_bytes = 2.0 * (double)(c->b * c->hkv * c->sk * c->d) * 2.0;
    c->ms = -1;
    for (int i = 0; fg_plan_list[i]; i++)
        if (!strcmp(fg_plan_list[i]->name, c->plan))
            c->info = fg_plan_list[i];
    if (!c->info) {
        snprintf(c->note, sizeof c->note, "no plan %s", plan);
        return;
    }
    const fg_plan_info *p = c->info;
    const char *why = NULL;
    if (!!c->causal != plan_is_causal(c->variant))
        why = c->causal ? "causal row, plan without a mask" : "non-causal row, causal plan";
    else if (!!c->window != (param_index(p, "W") >= 0))
        why = c->window ? "row has a window, plan has no param W"
                        : "plan has a window, row has none";
    else if ((c->softcap > 0) != (param_index(p, "cap") >= 0))
        why = c->softcap > 0 ? "row has a soft-cap, plan has no param cap"
                             : "plan soft-caps, row does not";
    else if (!!c->alibi != (param_index(p, "slope") >= 0))
        why = c->alibi ? "row has ALiBi, plan has no param slope"
                       : "plan adds ALiBi, row does not";
    else if (c->hq != c->hkv && role_index(p, FG_ROLE_KV_HEADS) < 0)
        why = "hq != hkv, plan does not group heads";
    else if (p->ninputs < 3 || p->ninputs > MAX_INPUTS || p->noutputs < 1 ||
             p->noutputs > MAX_OUTPUTS)
        why = "plan is not Q, K, V (and extra inputs) -> O (and values per row: LSE, ...)";
    if (why) {
        snprintf(c->note, sizeof c->note, "no plan matches: %s (%s)", why, plan);
        c->info = NULL;
        return;
    }
    set_param(c, "scale", 1.0 / sqrt((double)c->d));
    if (c->window)
        set_param(c, "W", (double)c->window);
    if (c->softcap > 0)
        set_param(c, "cap", c->softcap);
    if (role_index(p, FG_ROLE_KV_HEADS) >= 0)
        set_param(c, "G", (double)(c->hq / c->hkv));
}

/* A JSON string body: the notes hold no control characters, only quotes
 * and backslashes may need escaping. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

static void dry_run_line(FILE *f, const bcase *c)
{
    fputs("{\"case\": ", f);
    json_str(f, c->id);
    fputs(", \"plan\": ", f);
    json_str(f, c->info ? c->plan : "");
    fprintf(f, ", \"flops\": %.0f, \"kv_bytes\": %.0f, \"params\": ", c->flops, c->kv_bytes);
    json_str(f, c->setting);
    fputs(", \"note\": ", f);
    json_str(f, c->note);
    fputs("}\n", f);
}

#if FG_HAVE_CUDA
static void json_num(FILE *f, double v, int ok)
{
    if (ok && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void result_line(FILE *f, const bcase *c)
{
    int ok = c->ms > 0;
    fputs("{\"case\": ", f);
    json_str(f, c->id);
    fputs(", \"peer\": \"fusegen\", \"ms\": ", f);
    json_num(f, c->ms, ok);
    fputs(", \"tflops\": ", f);
    json_num(f, ok ? c->flops / (c->ms * 1e-3) / 1e12 : 0, ok);
    fputs(", \"kv_gbs\": ", f);
    json_num(f, ok ? c->kv_bytes / (c->ms * 1e-3) / 1e9 : 0, ok);
    if (bench_seconds > 0 && ok)
        fprintf(f, ", \"launches\": %d, \"seconds\": %g", c->launches, bench_seconds);
    fputs(", \"note\": ", f);
    json_str(f, c->note);
    fputs(", \"plan\": ", f);
    json_str(f, c->plan);
    /* which configuration ran and why (fg_last_config): a tuned row with
     * its wisdom file and line, or the default rules */
    fputs(", \"config\": ", f);
    json_str(f, c->config);
    fputs("}\n", f);
    fflush(f);
}

/* Seconds of wall time since *t0 (C11's timespec_get). */
static double wall_since(const struct timespec *t0)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Fill n bf16 elements at dev with a repeating random pattern (values of
 * about unit size; the pattern's length is odd, so rows do not repeat). */
static int fill_random(void *dev, size_t n, const uint16_t *pattern, size_t plen)
{
    for (size_t at = 0; at < n; at += plen) {
        size_t k = n - at < plen ? n - at : plen;
        if (cudaMemcpy((uint16_t *)dev + at, pattern, k * 2, cudaMemcpyHostToDevice) !=
            cudaSuccess)
            return 0;
    }
    return 1;
}

static void tensor4(fg_tensor *t, void *data, fg_dtype dt, long a, long b, long c, long d)
{
    int64_t shape[4] = {a, b, c, d};
    *t = fg_tensor_dense(data, dt, d ? 4 : 3, shape);
}

static fg_plan_cuda_fn cuda_entry(const char *name)
{
    for (int i = 0; fg_plan_cuda_list[i].name; i++)
        if (!strcmp(fg_plan_cuda_list[i].name, name))
            return fg_plan_cuda_list[i].fn;
    return NULL;
}

/* The inputs after Q, K and V (a bias table, document ids): dims bound by
 * their roles, another dim (a table's length) 64; an i32 input [b, n]
 * holds document ids along the keys, documents of 512 to 1535 keys (a
 * fixed sequence), and the FLOPs then count the pairs visible within a
 * document (causal inside it); a float input holds the random bf16
 * pattern.  Returns 0 (with a note) when a copy failed. */
static int extra_inputs(bcase *c, fg_tensor *in, void **dev, const uint16_t *pattern,
                        size_t plen)
{
    const fg_plan_info *p = c->info;
    for (int i = 3; i < p->ninputs; i++) {
        const fg_plan_tensor_info *ti = &p->inputs[i];
        int64_t shape[FG_MAX_RANK];
        size_t n = 1;
        for (int k = 0; k < ti->rank; k++) {
            int role = p->dim_role[ti->dims[k]];
            shape[k] = role == FG_ROLE_BATCH ? c->b : role == FG_ROLE_HEADS ? c->hq
                     : role == FG_ROLE_KV_HEADS ? c->hkv : role == FG_ROLE_ROWS ? c->sq
                     : role == FG_ROLE_KEYS ? c->sk : role == FG_ROLE_HEAD_DIM ? c->d : 64;
            n *= (size_t)shape[k];
        }
        int ids = ti->dtype == FG_I32;
        in[i] = fg_tensor_dense(NULL, ids ? FG_I32 : FG_BF16, ti->rank, shape);
        if (cudaMalloc(&dev[i], n * (ids ? 4 : 2)) != cudaSuccess) {
            snprintf(c->note, sizeof c->note, "cudaMalloc of %s failed", ti->name);
            return 0;
        }
        in[i].data = dev[i];
        if (!ids) {
            if (!fill_random(dev[i], n, pattern, plen)) {
                snprintf(c->note, sizeof c->note, "copy of %s failed", ti->name);
                return 0;
            }
            continue;
        }
        int32_t *h = malloc(n * 4);
        if (!h) {
            snprintf(c->note, sizeof c->note, "out of host memory");
            return 0;
        }
        const long last = (long)shape[ti->rank - 1];
        uint64_t r = 0x9e3779b97f4a7c15ull;
        long left = 0;
        int32_t id = -1;
        double pairs = 0, run = 0;
        for (size_t e = 0; e < n; e++) {
            if (e % (size_t)last == 0)
                left = 0, id = -1;
            if (left == 0) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                left = 512 + (long)((r >> 33) % 1024);
                id++;
                run = 0;
            }
            h[e] = id;
            left--;
            run++;
            if (e < (size_t)last) /* the first row: prefill, sq = sk */
                pairs += run;
        }
        int ok = cudaMemcpy(dev[i], h, n * 4, cudaMemcpyHostToDevice) == cudaSuccess;
        free(h);
        if (!ok) {
            snprintf(c->note, sizeof c->note, "copy of %s failed", ti->name);
            return 0;
        }
        if (c->sq == c->sk)
            c->flops = 4.0 * (double)c->d * (double)c->b * (double)c->hq * pairs;
    }
    return 1;
}

/* Time one case; sets c->ms or c->note.  Returns 0 when it failed. */
static int time_case(bcase *c, int reps, size_t l2_bytes, const uint16_t *pattern, size_t plen)
{
    fg_plan_cuda_fn fn = cuda_entry(c->plan);
    int decode = strstr(c->id, "-dc-") != NULL;
    size_t qn = (size_t)(c->b * c->hq * c->sq * c->d), kn = (size_t)(c->b * c->hkv * c->sk * c->d);
    size_t ln = (size_t)(c->b * c->hq * c->sq);
    int sets = 1;
    void *q = NULL, *o = NULL, *lse = NULL, *k[16] = {0}, *v[16] = {0};
    void *extra[MAX_INPUTS] = {0};
    float *times = NULL;
    int ok = 0;
    if (!fn) {
        snprintf(c->note, sizeof c->note, "no CUDA entry for plan %s", c->plan);
        return 1;
    }
    if (decode) {
        /* Enough sets that the two before the one being read fill the L2 twice over. */
        size_t per = 2 * kn * 2;
        sets = (int)(2 * l2_bytes / (per ? per : 1)) + 2;
        sets = sets > 16 ? 16 : sets;
    }
    const int nout = c->info->noutputs;
    if (cudaMalloc(&q, qn * 2) != cudaSuccess || cudaMalloc(&o, qn * 2) != cudaSuccess ||
        cudaMalloc(&lse, ln * 4 * (size_t)(nout > 1 ? nout - 1 : 1)) != cudaSuccess) {
        snprintf(c->note, sizeof c->note, "cudaMalloc failed");
        goto out;
    }
    for (int s = 0; s < sets; s++)
        if (cudaMalloc(&k[s], kn * 2) != cudaSuccess || cudaMalloc(&v[s], kn * 2) != cudaSuccess ||
            !fill_random(k[s], kn, pattern + 2 * s, plen - 2 * s) ||
            !fill_random(v[s], kn, pattern + 2 * s + 1, plen - 2 * s - 1)) {
            snprintf(c->note, sizeof c->note, "cudaMalloc of K/V set %d failed", s);
            goto out;
        }
    if (!fill_random(q, qn, pattern, plen)) {
        snprintf(c->note, sizeof c->note, "copy to the device failed");
        goto out;
    }
    times = malloc((size_t)reps * sizeof *times);
    if (!times) {
        snprintf(c->note, sizeof c->note, "out of host memory");
        goto out;
    }
    fg_tensor in[MAX_INPUTS], outs[MAX_OUTPUTS];
    if (!extra_inputs(c, in, extra, pattern, plen))
        goto out;
    /* O (rank 4) and every value per row (rank 3), in the plan's order */
    for (int j = 0, k = 0; j < nout; j++) {
        if (c->info->outputs[j].rank == 4)
            tensor4(&outs[j], o, FG_BF16, c->b, c->hq, c->sq, c->d);
        else
            tensor4(&outs[j], (float *)lse + (size_t)k++ * ln, FG_F32, c->b, c->hq, c->sq, 0);
    }
    tensor4(&in[0], q, FG_BF16, c->b, c->hq, c->sq, c->d);
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        snprintf(c->note, sizeof c->note, "cudaEventCreate failed");
        goto out;
    }
    /* --seconds: run on past reps until the wall clock says so, the array
     * growing as needed */
    size_t cap = (size_t)reps;
    struct timespec t0;
    timespec_get(&t0, TIME_UTC);
    int r;
    for (r = -3;; r++) {
        if (r >= reps) {
            if (bench_seconds <= 0 || wall_since(&t0) >= bench_seconds)
                break;
            if ((size_t)r == cap) {
                float *t = realloc(times, 2 * cap * sizeof *times);
                if (!t) {
                    snprintf(c->note, sizeof c->note, "out of host memory");
                    goto events;
                }
                times = t;
                cap *= 2;
            }
        }
        int s = (r + 3) % sets;
        tensor4(&in[1], k[s], FG_BF16, c->b, c->hkv, c->sk, c->d);
        tensor4(&in[2], v[s], FG_BF16, c->b, c->hkv, c->sk, c->d);
        cudaEventRecord(e0, NULL);
        fg_status st = fn(in, outs, c->params, c->has, NULL, NULL, bench_splits, NULL);
        cudaEventRecord(e1, NULL);
        cudaError_t ce = cudaEventSynchronize(e1);
        if (st != FG_OK) {
            snprintf(c->note, sizeof c->note, "launch returned %s: %s", fg_strerror(st),
                     fg_last_error());
            goto events;
        }
        if (ce != cudaSuccess) {
            snprintf(c->note, sizeof c->note, "CUDA error: %s", cudaGetErrorString(ce));
            goto events;
        }
        if (r >= 0 && cudaEventElapsedTime(&times[r], e0, e1) != cudaSuccess) {
            snprintf(c->note, sizeof c->note, "cudaEventElapsedTime failed");
            goto events;
        }
    }
    snprintf(c->config, sizeof c->config, "%s", fg_last_config());
    c->launches = r;
    {
        /* steady state: the second half of the launches */
        size_t from = bench_seconds > 0 ? (size_t)r / 2 : 0, n = (size_t)r - from;
        qsort(times + from, n, sizeof *times, cmp_float);
        c->ms = times[from + n / 2];
    }
    /* The output of the last launch: no NaN in its first rows. */
    {
        size_t n = qn < 65536 ? qn : 65536;
        uint16_t *h = malloc(n * 2);
        if (!h || cudaMemcpy(h, o, n * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
            snprintf(c->note, sizeof c->note, "copy back failed");
            c->ms = -1;
        } else {
            size_t nan = 0;
            for (size_t i = 0; i < n; i++)
                nan += (h[i] & 0x7f80) == 0x7f80 && (h[i] & 0x7f);
            if (nan) {
                snprintf(c->note, sizeof c->note, "%zu NaN in the first %zu elements of O", nan,
                         n);
                c->ms = -1;
            } else {
                int len = snprintf(c->note, sizeof c->note, "%s", c->setting);
                if (sets > 1 && len >= 0 && (size_t)len < sizeof c->note)
                    len += snprintf(c->note + len, sizeof c->note - (size_t)len, ", K/V sets %d",
                                    sets);
                if (bench_splits && len >= 0 && (size_t)len < sizeof c->note)
                    snprintf(c->note + len, sizeof c->note - (size_t)len, ", splits %d asked",
                             bench_splits);
                ok = 1;
            }
        }
        free(h);
    }
events:
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
out:
    free(times);
    cudaFree(q);
    cudaFree(o);
    cudaFree(lse);
    for (int s = 0; s < 16; s++) {
        cudaFree(k[s]);
        cudaFree(v[s]);
    }
    for (int i = 0; i < MAX_INPUTS; i++)
        cudaFree(extra[i]);
    cudaGetLastError();
    return ok;
}
#endif

static int selected(const char *only, const char *id)
{
    if (!only)
        return 1;
    size_t n = strlen(id);
    for (const char *p = only; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, id, n))
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    static bcase cases[MAX_CASES];
    const char *path = getenv("FG_BENCH_CASES"), *only = NULL, *out_path = NULL;
    char def_path[4096];
    int reps = 30, dry = 0, ncases = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            path = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            char *end;
            bench_seconds = strtod(argv[++i], &end);
            if (*end || !(bench_seconds >= 0 && bench_seconds <= 3600)) {
                fprintf(stderr, "fusegen-bench: --seconds must be a number of seconds, 0 to 3600\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--splits") && i + 1 < argc)
            bench_splits = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dry-run"))
            dry = 1;
        else {
            fprintf(stderr,
                    "usage: %s [--cases FILE] [--only ID,ID] [--out FILE] [--reps N] "
                    "[--seconds S] [--splits N] [--dry-run]\n",
                    argv[0]);
            return 2;
        }
    }
    if (bench_splits < 0) {
        fprintf(stderr, "fusegen-bench: --splits must be 0 (the plan's) or more\n");
        return 2;
    }
    if (reps < 20) {
        fprintf(stderr, "fusegen-bench: --reps must be at least 20\n");
        return 2;
    }
    if (!path || !*path) {
        const char *s = getenv("srcdir");
        snprintf(def_path, sizeof def_path, "%s/bench/cases.tsv", s && *s ? s : ".");
        path = def_path;
    }
    if (!read_cases(path, cases, &ncases))
        return 2;
    int nsel = 0;
    for (int i = 0; i < ncases; i++)
        if (selected(only, cases[i].id)) {
            cases[nsel] = cases[i];
            map_case(&cases[nsel++]);
        }
    if (only && nsel == 0) {
        fprintf(stderr, "fusegen-bench: --only %s matches no case in %s\n", only, path);
        return 2;
    }
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    if (!out) {
        fprintf(stderr, "fusegen-bench: cannot write %s\n", out_path);
        return 2;
    }
    if (dry) {
        for (int i = 0; i < nsel; i++)
            dry_run_line(out, &cases[i]);
        if (out != stdout)
            fclose(out);
        return 0;
    }
#if FG_HAVE_CUDA
    int count = 0, failed = 0;
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        fprintf(stderr, "fusegen-bench: no usable GPU (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        if (out != stdout)
            fclose(out);
        return 77;
    }
    fprintf(out, "{\"device\": ");
    json_str(out, prop.name);
    fprintf(out, ", \"fusegen\": ");
    json_str(out, PACKAGE_VERSION);
    fprintf(out, "}\n");
    enum { PLEN = (1 << 20) + 37 };
    uint16_t *pattern = malloc(PLEN * sizeof *pattern);
    if (!pattern) {
        fprintf(stderr, "fusegen-bench: out of host memory\n");
        return 1;
    }
    uint64_t s = 0x853c49e6748fea9bull;
    for (size_t i = 0; i < PLEN; i++) {
        /* a sum of four uniforms on [-1, 1): mean 0, variance 4/3 */
        double x = 0;
        for (int k = 0; k < 4; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x += (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        }
        pattern[i] = fg_float_to_bf16((float)x);
    }
    fprintf(stderr, "device: %s\n%-16s %-16s %10s %10s %10s  %s\n", prop.name, "case", "plan",
            "ms", "TFLOP/s", "KV GB/s", "note");
    for (int i = 0; i < nsel; i++) {
        bcase *c = &cases[i];
        if (c->info && !time_case(c, reps, (size_t)prop.l2CacheSize, pattern, PLEN))
            failed++;
        result_line(out, c);
        if (c->ms > 0)
            fprintf(stderr, "%-16s %-16s %10.3f %10.1f %10.1f  %s%s%s\n", c->id, c->plan, c->ms,
                    c->flops / (c->ms * 1e-3) / 1e12, c->kv_bytes / (c->ms * 1e-3) / 1e9,
                    c->note, *c->note && *c->config ? "; " : "", c->config);
        else
            fprintf(stderr, "%-16s %-16s %10s %10s %10s  %s\n", c->id, c->plan, "-", "-", "-",
                    c->note);
    }
    free(pattern);
    if (out != stdout)
        fclose(out);
    return failed ? 1 : 0;
#else
    fprintf(stderr, "fusegen-bench: built without CUDA: nothing to time (--dry-run works)\n");
    if (out != stdout)
        fclose(out);
    return 77;
#endif
}
