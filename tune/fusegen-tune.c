/* fusegen-tune.c - ahead-of-time tuning of the generated CUDA kernels on the
 * GPU at hand (docs/tuning.md).
 *
 * usage: fusegen-tune [--plans LIST] [--sweep FILE] [--only FILTER]
 *                     [--budget SECONDS] [--wisdom FILE] [--reps N]
 *                     [--srcdir DIR] [--fusegen PROG] [--nvcc PROG]
 *                     [--cache DIR] [--dry-run] [--verbose]
 *
 * Per plan (default: every bundled attention plan), the candidates are the
 * plan's tune block (generator/middle/tune.c): fusegen --tuning writes a
 * tuning library of the plan with every candidate compiled and forceable,
 * nvcc builds it into a shared object (cached by its source), and it is
 * loaded here.  Per shape bucket of the sweep, the default rules and every
 * candidate are checked and timed; the winner goes into the wisdom file,
 * one row per bucket, written as soon as it is known: an interrupted run
 * resumes where it stopped.  A candidate whose output differs from the CPU
 * reference (on an odd shape, once) or from the default's (on the bucket's
 * shapes), or that does not launch, is recorded as unusable (a comment
 * line of the wisdom file) and left out; a fault that leaves the device
 * unusable records the candidate and restarts the program, which resumes.
 *
 * Exit: 0 done (or the budget ran out: rerun to go on); 1 an error; 2 bad
 * usage; 77 no usable GPU (or built without CUDA) unless --dry-run.
 */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "generator.h"
#include "fusegen_registry.h"
#include "tune.h"

#if FG_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define MAX_PLANS 32
#define MAX_BUCKETS 256
#define MAX_CANDS 128

static const char *const default_plans[] = {"global",      "causal",       "gqa",
                                            "alibi",       "softcap",      "window",
                                            "causal_decode", "gqa_decode", "alibi_decode",
                                            "softcap_decode", NULL};

typedef struct options {
    const char *plans[MAX_PLANS];
    int nplans;
    const char *sweep_path, *only, *wisdom, *srcdir, *fusegen, *nvcc, *cache, *templates;
    double budget;
    int reps;
    bool dry_run;
    bool verbose; /* every candidate's time a bucket, on stderr */
    char **argv;
    char *plans_buf; /* --plans, split in place */
} options;

/* One plan as the generator sees it: its hash, form and candidates. */
typedef struct plan_model {
    const char *name, *path, *hash;
    bool split, grouped;
    int ncands;
    const char *cands[MAX_CANDS];
    int cand_d[MAX_CANDS];
} plan_model;

static void usage(FILE *f)
{
    fputs("Usage: fusegen-tune [OPTION]...\n"
          "Time every candidate of the plans' tune blocks on this GPU and write the\n"
          "winners, per plan, dtype, head dim and shape bucket, to a wisdom file.\n"
          "\n"
          "  --plans=LIST     plans to tune, by name (default: the bundled attention plans)\n"
          "  --sweep=FILE     the shapes (default: the built-in sweep, docs/tuning.md)\n"
          "  --only=FILTER    only the buckets whose label (plan dtype d keys work) has FILTER\n"
          "  --budget=SECONDS stop (resumably) after this long\n"
          "  --wisdom=FILE    the wisdom file to append to (default:\n"
          "                   wisdom/DEVICE.wisdom in the source tree)\n"
          "  --reps=N         timed launches per shape (default 7)\n"
          "  --srcdir=DIR     the fusegen source tree (plans, templates, runtime)\n"
          "  --fusegen=PROG   the generator (default: the one built beside this program)\n"
          "  --nvcc=PROG      the CUDA compiler (default: configure's)\n"
          "  --cache=DIR      where tuning libraries are built (default:\n"
          "                   $XDG_CACHE_HOME/fusegen-tune, else ~/.cache/fusegen-tune)\n"
          "  --dry-run        no GPU: print the plans, candidates and buckets\n"
          "  --verbose        print every candidate's time in each bucket, not only\n"
          "                   the winner's (stderr)\n",
          f);
}

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_options(int argc, char **argv, options *o)
{
    o->srcdir = FG_TUNE_SRCDIR;
    o->fusegen = FG_TUNE_FUSEGEN;
    o->nvcc = FG_TUNE_NVCC;
    o->reps = 7;
    o->argv = argv;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(argv[i], "--dry-run")) {
            o->dry_run = true;
        } else if (!strcmp(argv[i], "--verbose")) {
            o->verbose = true;
        } else if ((v = opt_value(argc, argv, &i, "--plans"))) {
            free(o->plans_buf);
            o->nplans = 0;
            char *list = o->plans_buf = strdup(v);
            for (char *t = strtok(list, ","); t && o->nplans < MAX_PLANS; t = strtok(NULL, ","))
                o->plans[o->nplans++] = t;
        } else if ((v = opt_value(argc, argv, &i, "--sweep"))) {
            o->sweep_path = v;
        } else if ((v = opt_value(argc, argv, &i, "--only"))) {
            o->only = v;
        } else if ((v = opt_value(argc, argv, &i, "--budget"))) {
            char *end = NULL;
            o->budget = strtod(v, &end);
            if (!end || *end || !(o->budget > 0)) {
                fprintf(stderr, "fusegen-tune: error: --budget takes a number of seconds\n");
                return -1;
            }
        } else if ((v = opt_value(argc, argv, &i, "--wisdom"))) {
            o->wisdom = v;
        } else if ((v = opt_value(argc, argv, &i, "--reps"))) {
            o->reps = atoi(v);
            if (o->reps < 3 || o->reps > 1000) {
                fprintf(stderr, "fusegen-tune: error: --reps takes 3 to 1000\n");
                return -1;
            }
        } else if ((v = opt_value(argc, argv, &i, "--srcdir"))) {
            o->srcdir = v;
        } else if ((v = opt_value(argc, argv, &i, "--fusegen"))) {
            o->fusegen = v;
        } else if ((v = opt_value(argc, argv, &i, "--nvcc"))) {
            o->nvcc = v;
        } else if ((v = opt_value(argc, argv, &i, "--cache"))) {
            o->cache = v;
        } else {
            fprintf(stderr, "fusegen-tune: error: unknown option '%s'\nTry 'fusegen-tune --help'.\n",
                    argv[i]);
            return -1;
        }
    }
    if (!o->nplans)
        for (int i = 0; default_plans[i]; i++)
            o->plans[o->nplans++] = default_plans[i];
    static char tdir[4096];
    snprintf(tdir, sizeof tdir, "%s/templates", o->srcdir);
    o->templates = tdir;
    return 0;
}

/* The generator's view of a plan: hash, form, candidates (--tuning). */
static int model_plan(fg_arena *a, const options *o, const tune_sweep *sw, const char *name,
                      plan_model *pm)
{
    memset(pm, 0, sizeof *pm);
    pm->name = name;
    pm->path = arena_printf(a, "%s/plans/%s.fp", o->srcdir, name);
    fg_diag d;
    diag_init(&d, NULL, stderr);
    fg_source *src = ARENA_NEW(a, fg_source);
    fg_plan *p;
    fg_fused *fz;
    fg_kernel *k;
    if (source_read(a, pm->path, src, &d) < 0)
        return -1;
    d.src = src;
    if (parse_plan(a, src, &d, &p) < 0 || check_plan(p, &d) < 0 || fuse_plan(a, p, &d, &fz) < 0 ||
        kernel_build(a, fz, &d, &k) < 0 ||
        tune_attach(a, k, true, sw->dims, sw->ndims, NULL, 0, &d) < 0)
        return -1;
    if (!k->attn_ok) {
        fprintf(stderr, "fusegen-tune: plan %s has no CUDA kernel: %s\n", name, k->attn_why);
        return -1;
    }
    pm->hash = arena_strdup(a, p->hash);
    pm->split = k->sched.form == FORM_SPLIT;
    pm->grouped = k->attn.grouped;
    if (pm->split) {
        /* the split counts of the tune block, as arguments of the launch */
        for (int i = 0; i < p->sched.nknobs; i++)
            if (!strcmp(p->sched.knobs[i].knob, "splits"))
                for (int j = 0; j < p->sched.knobs[i].nvalues && pm->ncands < MAX_CANDS; j++) {
                    pm->cand_d[pm->ncands] = 0;
                    pm->cands[pm->ncands++] =
                        arena_printf(a, "splits=%d", p->sched.knobs[i].values[j]);
                }
    } else {
        for (int i = 0; i < k->tune->ncands && pm->ncands < MAX_CANDS; i++) {
            pm->cand_d[pm->ncands] = k->tune->cands[i].d;
            pm->cands[pm->ncands++] = k->tune->cands[i].name;
        }
    }
    return 0;
}

static bool bucket_selected(const options *o, const char *label)
{
    return !o->only || strstr(label, o->only) != NULL;
}

static const char *dtype_str(unsigned dt)
{
    return dt == TUNE_BF16 ? "bf16" : "fp16";
}

/* --dry-run: the plans, their candidates and buckets, and the count of
 * timed (shape, configuration) pairs; no GPU. */
static int dry_run(const options *o, const tune_sweep *sw, plan_model *pms, int np)
{
    long total = 0;
    for (int i = 0; i < np; i++) {
        const plan_model *pm = &pms[i];
        tune_bucket bs[MAX_BUCKETS];
        int nb = sweep_buckets(sw, pm->split, pm->grouped, bs, MAX_BUCKETS);
        printf("plan %s (%s, hash %s): %d candidates, %d buckets\n", pm->name,
               pm->split ? "split form: split counts" : "rolling form: sm_90a variants",
               pm->hash, pm->ncands, nb);
        for (int c = 0; c < pm->ncands; c++)
            printf("  candidate %s%s\n", pm->cands[c],
                   pm->cand_d[c] ? "" : " (a launch argument)");
        for (unsigned dt = TUNE_BF16; dt <= TUNE_FP16; dt <<= 1) {
            if (!(sw->dtypes & dt))
                continue;
            for (int di = 0; di < sw->ndims; di++)
                for (int b = 0; b < nb; b++) {
                    char label[160];
                    snprintf(label, sizeof label, "%s %s %d %d %d", pm->name, dtype_str(dt),
                             sw->dims[di], bs[b].keys, bs[b].work);
                    if (!bucket_selected(o, label))
                        continue;
                    int nc = 1;
                    for (int c = 0; c < pm->ncands; c++)
                        nc += !pm->cand_d[c] || pm->cand_d[c] == sw->dims[di];
                    printf("  bucket %s: %d shapes x %d configurations\n", label, bs[b].nshapes,
                           nc);
                    total += (long)bs[b].nshapes * nc;
                }
        }
    }
    printf("total: %ld timed (shape, configuration) pairs\n", total);
    return 0;
}

#if FG_HAVE_CUDA
#include "tune_gpu.c"
#endif

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    if (parse_options(argc, argv, &o) < 0) {
        free(o.plans_buf);
        return 2;
    }
    tune_sweep sw;
    char *text = NULL;
    const char *sweep_name = "(built-in sweep)";
    if (o.sweep_path) {
        FILE *f = fopen(o.sweep_path, "rb");
        if (!f) {
            fprintf(stderr, "fusegen-tune: error: cannot open %s: %s\n", o.sweep_path,
                    strerror(errno));
            return 1;
        }
        size_t cap = 1 << 16, n = 0;
        text = malloc(cap);
        n = text ? fread(text, 1, cap - 1, f) : 0;
        fclose(f);
        if (!text)
            return 1;
        text[n] = 0;
        sweep_name = o.sweep_path;
    }
    if (sweep_parse(sweep_name, text ? text : tune_default_sweep, &sw, stderr) < 0)
        return 1;
    fg_arena *a = arena_create();
    plan_model pms[MAX_PLANS];
    int np = 0;
    for (int i = 0; i < o.nplans; i++)
        if (model_plan(a, &o, &sw, o.plans[i], &pms[np]) == 0) {
            np++;
        } else {
            arena_destroy(a);
            free(text);
            free(o.plans_buf);
            return 1;
        }
    int rc;
    if (o.dry_run)
        rc = dry_run(&o, &sw, pms, np);
    else {
#if FG_HAVE_CUDA
        rc = tune_on_gpu(&o, &sw, pms, np, a);
#else
        fprintf(stderr, "fusegen-tune: built without CUDA: only --dry-run (exit 77)\n");
        rc = 77;
#endif
    }
    arena_destroy(a);
    free(text);
    free(o.plans_buf);
    return rc;
}
