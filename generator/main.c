/* main.c - the fusegen command line: options, then the pipeline per plan.
 *
 *   source_read -> parse_plan -> check_plan -> fuse_plan -> kernel_build -> emit
 *
 * Each plan has its own arena and diagnostics.  Every plan is analysed
 * before anything is written, and files are emitted as one run only when
 * no plan had an error, so a run that fails writes nothing. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "generator.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

enum {
    EXIT_OK = 0,    /* success */
    EXIT_PLAN = 1,  /* errors in a plan */
    EXIT_USAGE = 2, /* bad command line */
    EXIT_IO = 3     /* I/O or internal error */
};

typedef enum dump_kind { DUMP_NONE, DUMP_AST, DUMP_IR, DUMP_FUSED, DUMP_KERNEL } dump_kind;

typedef struct options {
    const char *outdir;
    unsigned targets; /* TARGET_* bits; 0: each plan's own */
    dump_kind dump;
    bool check;
    const char *templates;
    const char *m4;
    char **plans;
    int nplans;
    /* tuning (docs/tuning.md) */
    bool tuning;            /* --tuning: every candidate, forceable */
    int tune_dims[16], ntune_dims;
    const char *wisdom[16]; /* --wisdom FILE..., then $FUSEGEN_WISDOM */
    int nwisdom;
    bool no_wisdom;         /* --wisdom=none */
} options;

/* One plan through the pipeline. */
typedef struct plan_job {
    const char *path;
    fg_arena *arena;
    fg_diag diag;
    fg_source src;
    fg_plan *plan;
    fg_fused *fused;
    fg_kernel *kernel;
} plan_job;

static void usage(FILE *f)
{
    fputs("Usage: fusegen [OPTION]... PLAN...\n"
          "Generate fused kernels (CUDA, HIP) and a portable C version of the same\n"
          "fused schedule from fusion plans (*.fp).\n"
          "\n"
          "Options:\n"
          "  -o DIR               write the generated files into DIR (default: generated),\n"
          "                       made with its parents if missing\n"
          "  --target=LIST        backends to emit, a comma-separated list of cuda, hip, c\n"
          "                       (default: the targets of each plan's schedule)\n"
          "  --dump=WHAT          print the syntax tree (ast), the checked plan (ir), the\n"
          "                       fused schedule (fused) or the kernel model (kernel) on\n"
          "                       standard output; write no files\n"
          "  --check              analyse the plans and report errors; write no files\n"
          "                       (--check and --dump exclude each other)\n"
          "  --templates=DIR      the m4 templates (default: $FUSEGEN_TEMPLATES, else the\n"
          "                       installed templates, else those of the source tree\n"
          "                       fusegen was built from)\n"
          "  --m4=PROG            the GNU m4 program (default: $M4, else m4)\n"
          "  --wisdom=FILE        tuning results to compile into the dispatch (repeatable;\n"
          "                       also $FUSEGEN_WISDOM, files separated by ':'); they\n"
          "                       override the system wisdom (the installed wisdom/*.wisdom,\n"
          "                       else the source tree's); --wisdom=none: none at all, the\n"
          "                       default rules only\n"
          "  --tuning[=DIMS]      a tuning library for fusegen-tune: every candidate of the\n"
          "                       plans' tune blocks (for the head dims DIMS, a comma-\n"
          "                       separated list, or all), each forceable; no wisdom\n"
          "  --help               print this help and exit\n"
          "  --version            print the version and exit\n"
          "\n"
          "Exit status:\n"
          "  0  success\n"
          "  1  errors in a plan (reported as FILE:LINE:COL: error: ...)\n"
          "  2  usage error\n"
          "  3  I/O or internal error\n",
          f);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("fusegen: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'fusegen --help' for more information.\n", stderr);
    return -1;
}

static int parse_targets(const char *list, unsigned *out)
{
    unsigned bits = 0;
    const char *s = list;
    for (;;) {
        size_t n = strcspn(s, ",");
        if (n == 4 && strncmp(s, "cuda", 4) == 0)
            bits |= TARGET_CUDA;
        else if (n == 3 && strncmp(s, "hip", 3) == 0)
            bits |= TARGET_HIP;
        else if (n == 1 && s[0] == 'c')
            bits |= TARGET_C;
        else
            return usage_error("bad --target list '%s': expected a comma-separated list of "
                               "cuda, hip, c",
                               list);
        if (s[n] == '\0')
            break;
        s += n + 1;
    }
    *out = bits;
    return 0;
}

/* Two options that ask for different things: a usage error naming both,
 * in the order they were given. */
static int conflict(const char *first, const char *second)
{
    fprintf(stderr,
            "fusegen: error: options '%s' and '%s' cannot be used together\n"
            "Try 'fusegen --help' for more information.\n",
            first, second);
    return -1;
}

/* "--name=VALUE" or "--name VALUE"; returns the value or NULL if argv[*i]
 * is not this option (sets *bad when the value is missing). */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *bad)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        usage_error("option '%s' needs a value", name);
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

/* The templates when neither --templates nor $FUSEGEN_TEMPLATES names
 * them: the installed ones, else (a fusegen run from its build tree before
 * `make install`) the source tree's it was built from. */
static const char *default_templates(void)
{
#ifdef FG_TEMPLATES_DIR
    if (access(FG_TEMPLATES_DIR "/common/prelude.m4", R_OK) == 0)
        return FG_TEMPLATES_DIR;
#endif
#ifdef FG_SOURCE_TEMPLATES_DIR
    if (access(FG_SOURCE_TEMPLATES_DIR "/common/prelude.m4", R_OK) == 0)
        return FG_SOURCE_TEMPLATES_DIR;
#endif
#ifdef FG_TEMPLATES_DIR
    return FG_TEMPLATES_DIR; /* reported as missing, naming the installed path */
#else
    return "templates";
#endif
}

/* Returns 0 to run, 1 to exit successfully (--help, --version), -1 on a
 * usage error (already reported). */
static int parse_args(int argc, char **argv, options *o)
{
    const char *env;
    o->outdir = "generated";
    env = getenv("FUSEGEN_TEMPLATES");
    o->templates = env && *env ? env : default_templates();
    env = getenv("M4");
    o->m4 = env && *env ? env : "m4";
    o->plans = calloc((size_t)argc, sizeof *o->plans);
    if (!o->plans) {
        fputs("fusegen: out of memory\n", stderr);
        return -1;
    }
    bool options_done = false;
    /* the option that chooses what the run does (--check or one --dump):
     * a different one is a usage error, the same one again is not */
    const char *mode_opt = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        bool bad = false;
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            o->plans[o->nplans++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(arg, "--version") == 0) {
            printf("fusegen %s\n", PACKAGE_VERSION);
            return 1;
        } else if (strcmp(arg, "--check") == 0) {
            if (mode_opt && strcmp(mode_opt, "--check") != 0)
                return conflict(mode_opt, "--check");
            o->check = true;
            mode_opt = "--check";
        } else if (strcmp(arg, "-o") == 0) {
            if (i + 1 >= argc)
                return usage_error("option '%s' needs a directory", arg);
            o->outdir = argv[++i];
        } else if (strncmp(arg, "-o", 2) == 0 && arg[2] != '-') {
            o->outdir = arg + 2;
        } else if ((v = option_value(argc, argv, &i, "--target", &bad)) != NULL) {
            if (parse_targets(v, &o->targets) < 0)
                return -1;
        } else if ((v = option_value(argc, argv, &i, "--dump", &bad)) != NULL) {
            if (strcmp(v, "ast") == 0)
                o->dump = DUMP_AST;
            else if (strcmp(v, "ir") == 0)
                o->dump = DUMP_IR;
            else if (strcmp(v, "fused") == 0)
                o->dump = DUMP_FUSED;
            else if (strcmp(v, "kernel") == 0)
                o->dump = DUMP_KERNEL;
            else
                return usage_error("bad --dump '%s': expected ast, ir, fused or kernel", v);
            const char *this_opt = o->dump == DUMP_AST     ? "--dump=ast"
                                   : o->dump == DUMP_IR    ? "--dump=ir"
                                   : o->dump == DUMP_FUSED ? "--dump=fused"
                                                           : "--dump=kernel";
            if (mode_opt && strcmp(mode_opt, this_opt) != 0)
                return conflict(mode_opt, this_opt);
            mode_opt = this_opt;
        } else if ((v = option_value(argc, argv, &i, "--templates", &bad)) != NULL) {
            o->templates = v;
        } else if ((v = option_value(argc, argv, &i, "--m4", &bad)) != NULL) {
            o->m4 = v;
        } else if (strcmp(arg, "--tuning") == 0 || strncmp(arg, "--tuning=", 9) == 0) {
            o->tuning = true;
            for (const char *t = arg[8] == '=' ? arg + 9 : ""; *t;) {
                char *end = NULL;
                long dv = strtol(t, &end, 10);
                if (end == t || dv < 8 || dv > 256 || (*end && *end != ',') ||
                    o->ntune_dims == 16)
                    return usage_error("bad --tuning head dims '%s': expected a comma-separated "
                                       "list of head dims (8 to 256)",
                                       arg + 9);
                o->tune_dims[o->ntune_dims++] = (int)dv;
                t = *end ? end + 1 : end;
            }
        } else if ((v = option_value(argc, argv, &i, "--wisdom", &bad)) != NULL) {
            if (strcmp(v, "none") == 0)
                o->no_wisdom = true;
            else if (o->nwisdom == 16)
                return usage_error("%s", "more than 16 --wisdom files");
            else
                o->wisdom[o->nwisdom++] = v;
        } else if (bad) {
            return -1;
        } else {
            return usage_error("unknown option '%s'", arg);
        }
        if (bad)
            return -1;
    }
    if (o->nplans == 0)
        return usage_error("%s", "no plan given");
    if (o->tuning && (o->nwisdom || o->no_wisdom))
        return conflict("--tuning", "--wisdom");
    if (*o->outdir == '\0')
        return usage_error("%s", "-o needs a directory");
    return 0;
}

/* Read, parse, check and fuse one plan, or stop after the requested dump.
 * Returns 0, or -1 after errors were reported through job->diag. */
static int analyse_plan(plan_job *job, const options *o, const fg_wisdom *const *ws, int nw)
{
    fg_diag *d = &job->diag;
    if (source_read(job->arena, job->path, &job->src, d) < 0)
        return -1;
    d->src = &job->src;
    if (parse_plan(job->arena, &job->src, d, &job->plan) < 0)
        return -1;
    if (o->dump == DUMP_AST) {
        dump_ast(stdout, job->plan);
        return 0;
    }
    if (check_plan(job->plan, d) < 0)
        return -1;
    if (o->dump == DUMP_IR) {
        dump_ir(stdout, job->plan);
        return 0;
    }
    if (fuse_plan(job->arena, job->plan, d, &job->fused) < 0)
        return -1;
    if (o->dump == DUMP_FUSED) {
        dump_fused(stdout, job->fused);
        return 0;
    }
    if (kernel_build(job->arena, job->fused, d, &job->kernel) < 0)
        return -1;
    if (tune_attach(job->arena, job->kernel, o->tuning, o->tune_dims, o->ntune_dims, ws, nw,
                    d) < 0)
        return -1;
    if (o->dump == DUMP_KERNEL)
        dump_kernel(stdout, job->kernel);
    if (o->check) {
        /* what the backends would say: a plan that --check passes generates */
        fg_emit_options eo = {.outdir = o->outdir, .templates_dir = o->templates,
                              .m4 = o->m4, .targets = o->targets,
                              .version = PACKAGE_VERSION};
        return emit_check_plan(&eo, job->kernel, d);
    }
    return 0;
}

/* Whether PROG can be run as execlp would find it: a path with a '/', else
 * the first executable regular file of that name on $PATH.  0, or -1 with
 * errno set. */
static int find_program(const char *prog)
{
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0)
            return -1;
        if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
            errno = EACCES;
            return -1;
        }
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/bin:/usr/bin";
    size_t plen = strlen(prog);
    for (const char *s = path;;) {
        size_t n = strcspn(s, ":");
        char *full = malloc(n + plen + 3);
        if (!full)
            return -1;
        snprintf(full, n + plen + 3, "%.*s/%s", (int)n, n ? s : ".", prog);
        bool ok = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
        free(full);
        if (ok)
            return 0;
        if (s[n] == '\0')
            break;
        s += n + 1;
    }
    errno = ENOENT;
    return -1;
}

/* What a run needs besides the plans, checked before anything is rendered:
 * templates that cannot be read and an m4 that cannot be run are I/O
 * errors of the installation (exit status 3), not errors in a plan. */
static int check_run_tools(const options *o, fg_diag *d)
{
    const char *dir = o->templates && *o->templates ? o->templates : "templates";
    size_t n = strlen(dir) + sizeof "/api/plan_h.m4";
    char *probe = malloc(n);
    if (!probe) {
        diag_io_error(d, "out of memory");
        return -1;
    }
    snprintf(probe, n, "%s/api/plan_h.m4", dir);
    int rc = 0;
    if (access(probe, R_OK) != 0) {
        diag_io_error(d, "cannot read the templates in '%s': %s (see --templates)", dir,
                      strerror(errno));
        rc = -1;
    }
    free(probe);
    const char *m4 = o->m4 && *o->m4 ? o->m4 : "m4";
    if (find_program(m4) != 0) {
        diag_io_error(d, "cannot run m4 '%s': %s (see --m4)", m4, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* Wisdom                                                              */
/* ------------------------------------------------------------------ */

static int cmp_path(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The system wisdom: *.wisdom in the installed folder, else in the source
 * tree fusegen was built from, in name order. */
static int system_wisdom(fg_arena *a, const char **out, int max)
{
    const char *dirs[2];
    int nd = 0;
#ifdef FG_WISDOM_DIR
    dirs[nd++] = FG_WISDOM_DIR;
#endif
#ifdef FG_SOURCE_WISDOM_DIR
    dirs[nd++] = FG_SOURCE_WISDOM_DIR;
#endif
    for (int i = 0; i < nd; i++) {
        DIR *dir = opendir(dirs[i]);
        if (!dir)
            continue;
        int n = 0;
        struct dirent *de;
        while ((de = readdir(dir)) != NULL && n < max) {
            size_t len = strlen(de->d_name);
            if (de->d_name[0] != '.' && len > 7 && !strcmp(de->d_name + len - 7, ".wisdom"))
                out[n++] = arena_printf(a, "%s/%s", dirs[i], de->d_name);
        }
        closedir(dir);
        qsort(out, (size_t)n, sizeof out[0], cmp_path);
        return n;
    }
    return 0;
}

/* The wisdom files of the run, user files first: a file that cannot be
 * read, is malformed or was tuned on other templates is reported and left
 * out (the default rules serve those launches); generation goes on.  Files
 * of one device are all kept, in this order: per plan, the first of them
 * with rows for the plan serves it (tune_attach), so that a user file with
 * rows for a plan of the user's own leaves the system file serving the
 * bundled plans. */
static int load_wisdom(const options *o, fg_arena *a, const fg_wisdom ***out, fg_diag *run_diag)
{
    const char *paths[64];
    int np = 0;
    *out = NULL;
    if (o->tuning || o->no_wisdom)
        return 0;
    for (int i = 0; i < o->nwisdom; i++)
        paths[np++] = o->wisdom[i];
    const char *env = getenv("FUSEGEN_WISDOM");
    if (env && *env) {
        char *list = arena_strdup(a, env);
        for (char *t = strtok(list, ":"); t && np < 32; t = strtok(NULL, ":"))
            if (*t)
                paths[np++] = t;
    }
    const int nuser = np;
    np += system_wisdom(a, paths + np, 64 - np);
    const fg_wisdom **ws = ARENA_ARRAY(a, const fg_wisdom *, np + 1);
    int n = 0;
    /* templates that cannot be read are check_run_tools' error: no wisdom */
    if (!o->templates || !*o->templates ||
        access(arena_printf(a, "%s/common/prelude.m4", o->templates), R_OK) != 0)
        return 0;
    const char *hash = tune_templates_hash(a, o->templates);
    for (int i = 0; i < np; i++) {
        fg_source *src = ARENA_NEW(a, fg_source);
        fg_diag d;
        diag_init(&d, NULL, stderr);
        fg_wisdom *w = NULL;
        if (source_read(a, paths[i], src, &d) == 0) {
            d.src = src;
            if (wisdom_parse(a, src, &d, &w) == 0 && strcmp(w->templates, hash) != 0) {
                diag_warning(&d, w->templates_loc,
                             "tuned on other templates (hash %s; these are %s): stale", w->templates,
                             hash);
                w = NULL;
            }
        }
        if (!w) {
            fprintf(stderr,
                    "fusegen: warning: wisdom file '%s' is not used; the default rules serve "
                    "its device\n",
                    paths[i]);
            run_diag->warnings++;
            continue;
        }
        if (i >= nuser) /* named in generated files as in the source tree, wherever it is */
            w->path = arena_printf(a, "wisdom/%s", strrchr(paths[i], '/') + 1);
        ws[n++] = w;
    }
    *out = ws;
    return n;
}

/* Emit every plan as one run: written only if every plan succeeds. */
static int emit_all(plan_job *jobs, int n, const options *o, fg_diag *run_diag)
{
    fg_emit_options eo = {
        .outdir = o->outdir,
        .templates_dir = o->templates,
        .m4 = o->m4,
        .command_line = NULL, /* emit records the canonical command */
        .targets = o->targets,
        .version = PACKAGE_VERSION,
    };
    fg_emit_run *run = NULL;
    if (check_run_tools(o, run_diag) < 0)
        return -1;
    if (emit_run_begin(&eo, &run, run_diag) < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++)
        if (emit_run_plan(run, jobs[i].kernel, &jobs[i].diag) < 0)
            rc = -1;
    if (rc < 0) {
        emit_run_free(run);
        return -1;
    }
    return emit_run_finish(run, run_diag);
}

static int exit_status(const fg_diag *d, int status)
{
    if (d->fatal > 0)
        return EXIT_IO;
    if (d->errors > 0 && status == EXIT_OK)
        return EXIT_PLAN;
    return status;
}

int main(int argc, char **argv)
{
    options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        free(o.plans);
        return rc > 0 ? EXIT_OK : EXIT_USAGE;
    }
    plan_job *jobs = calloc((size_t)o.nplans, sizeof *jobs);
    if (!jobs) {
        fputs("fusegen: out of memory\n", stderr);
        free(o.plans);
        return EXIT_IO;
    }
    int status = EXIT_OK;
    bool failed = false;
    fg_diag run_diag;
    diag_init(&run_diag, NULL, stderr);
    fg_arena *run_arena = arena_create();
    const fg_wisdom **ws = NULL;
    const int nw = o.dump == DUMP_NONE || o.dump == DUMP_KERNEL
                       ? load_wisdom(&o, run_arena, &ws, &run_diag)
                       : 0;
    for (int i = 0; i < o.nplans; i++) {
        plan_job *job = &jobs[i];
        job->path = o.plans[i];
        job->arena = arena_create();
        diag_init(&job->diag, NULL, stderr);
        if (analyse_plan(job, &o, ws, nw) < 0 || job->diag.errors > 0)
            failed = true;
        status = exit_status(&job->diag, status);
    }
    if (!failed && !o.check && o.dump == DUMP_NONE) {
        if (emit_all(jobs, o.nplans, &o, &run_diag) < 0 && run_diag.errors == 0) {
            bool reported = false;
            for (int i = 0; i < o.nplans; i++)
                reported = reported || jobs[i].diag.errors > 0;
            if (!reported)
                diag_internal(&run_diag, (fg_loc){0, 0}, "emission failed without a message");
        }
        for (int i = 0; i < o.nplans; i++)
            status = exit_status(&jobs[i].diag, status);
        status = exit_status(&run_diag, status);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_io_error(&run_diag, "cannot write to standard output");
        status = EXIT_IO;
    }
    for (int i = 0; i < o.nplans; i++)
        arena_destroy(jobs[i].arena);
    arena_destroy(run_arena);
    free(jobs);
    free(o.plans);
    return status;
}
