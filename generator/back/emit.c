/* emit.c - the m4 interface and the files of a run.
 *
 * The generator talks to m4 the way Bison does: C computes every value and
 * writes a file of definitions; the templates (templates/, GNU m4 run with
 * -P so that builtins are m4_*) only select and format.  Every definition
 * goes through one escaping function, m4_escape, so that no text of the
 * user's or of the lowering can end a quote or name a macro.  After m4 the
 * output is decoded and checked: a leftover fg_ or m4_ token is an error
 * located in the output.  Files are rendered into memory for the whole run
 * and written at the end, each only if its content changed; a run where any
 * plan failed writes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>


/* ------------------------------------------------------------------ */
/* Growable strings in an arena                                        */
/* ------------------------------------------------------------------ */

typedef fg_strbuf sbuf;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts
#define sb_str strbuf_str

/* ------------------------------------------------------------------ */
/* Running m4                                                          */
/* ------------------------------------------------------------------ */

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

static char *read_fd(fg_arena *a, int fd, size_t *len)
{
    sbuf b = {a, NULL, 0, 0};
    char chunk[65536];
    for (;;) {
        ssize_t k = read(fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        sb_putn(&b, chunk, (size_t)k);
    }
    *len = b.len;
    return (char *)sb_str(&b);
}

static int temp_file(char *path, size_t size, const char *what)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    snprintf(path, size, "%s/fusegen-%s-XXXXXX", dir, what);
    return mkstemp(path);
}

/* m4 -P -E -I DIR DEFS DIR/TEMPLATE; stdout into *out, stderr reported. */
static int run_m4(fg_arena *a, const fg_emit_options *o, const char *defs,
                  const char *template_path, char **out, size_t *outlen, fg_diag *d)
{
    char defs_path[4096], err_path[4096];
    int dfd = temp_file(defs_path, sizeof defs_path, "defs");
    if (dfd < 0) {
        diag_io_error(d, "cannot create a temporary file: %s", strerror(errno));
        return -1;
    }
    if (write_all(dfd, defs, strlen(defs)) < 0) {
        diag_io_error(d, "cannot write %s: %s", defs_path, strerror(errno));
        close(dfd);
        unlink(defs_path);
        return -1;
    }
    close(dfd);
    int efd = temp_file(err_path, sizeof err_path, "m4err");
    if (efd < 0) {
        diag_io_error(d, "cannot create a temporary file: %s", strerror(errno));
        unlink(defs_path);
        return -1;
    }
    int pfd[2];
    if (pipe(pfd) < 0) {
        diag_io_error(d, "pipe: %s", strerror(errno));
        close(efd);
        unlink(defs_path);
        unlink(err_path);
        return -1;
    }
    const char *m4 = o->m4 && *o->m4 ? o->m4 : "m4";
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(pfd[1], 1);
        dup2(efd, 2);
        close(pfd[0]);
        close(pfd[1]);
        execlp(m4, m4, "-P", "-E", "-I", o->templates_dir, defs_path, template_path,
               (char *)NULL);
        dprintf(2, "cannot run %s: %s\n", m4, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    int rc = 0;
    if (pid < 0) {
        diag_io_error(d, "fork: %s", strerror(errno));
        close(pfd[0]);
        rc = -1;
    } else {
        *out = read_fd(a, pfd[0], outlen);
        close(pfd[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        size_t elen = 0;
        lseek(efd, 0, SEEK_SET);
        char *etext = read_fd(a, efd, &elen);
        if (elen) {
            /* m4's messages (and the templates' fg_fatal) go to the user as
             * they are: they already name the template file and line. */
            char *line = etext;
            while (*line) {
                char *nl = strchr(line, '\n');
                size_t n = nl ? (size_t)(nl - line) : strlen(line);
                diag_io_error(d, "%s: %.*s", m4, (int)n, line);
                line += n + (nl ? 1 : 0);
            }
            rc = -1;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (!elen)
                diag_io_error(d, "%s failed on %s", m4, template_path);
            rc = -1;
        }
    }
    close(efd);
    unlink(defs_path);
    unlink(err_path);
    return rc;
}

/* Names the runtime and the registry define; generated code may use them. */
static const char *const api_names[] = {
    "fg_status", "fg_tensor", "fg_dtype", "fg_set_error", "fg_check_tensor",
    "fg_last_error", "fg_strerror", "fg_dtype_size", "fg_dtype_name", "fg_tensor_dense",
    "fg_bf16_to_float", "fg_float_to_bf16", "fg_half_to_float", "fg_float_to_half",
    "fg_plan_info", "fg_plan_list", "fg_plan_tensor_info", "fg_plan_param_info",
    "fg_plan_cpu_fn", "fg_plan_cuda_fn", "fg_plan_cuda_entry", "fg_plan_cuda_list",
    "fg_cuda_sm_count", "fg_cuda_smem_optin", "fg_cuda_occupancy", "fg_cuda_pool", "fg_cuda_tickets",
    "fg_cuda_once", "fg_cuda_per_device", "fg_cuda_param_vector", "fg_cuda_params_to_device",
    "fg_cuda_params_free", "fg_cuda_sm90a", "fg_cuda_tensor_map", "fg_cuda_span_summary_off",
    "fg_cuda_l2_bytes", "fg_cuda_head_groups",
    /* runtime/fusegen_cuda_internal.h */
    "fg_plan_hip_fn", "fg_plan_hip_entry", "fg_plan_hip_list",
    "fg_hip_cu_count", "fg_hip_alloc", "fg_hip_free", "fg_hip_param_vector",
    "fg_hip_params_to_device",
    NULL, /* runtime/fusegen_hip_internal.h */
};

static bool allowed_name(const char *w, size_t n, const char *const *plans)
{
    for (int i = 0; api_names[i]; i++)
        if (strlen(api_names[i]) == n && !memcmp(api_names[i], w, n))
            return true;
    for (int i = 0; plans && plans[i]; i++) {
        size_t k = strlen(plans[i]);
        if (n < 3 + k || memcmp(w + 3, plans[i], k))
            continue;
        const char *rest = w + 3 + k;
        size_t rn = n - 3 - k;
        if (rn == 0 || (rn == 5 && !memcmp(rest, "_args", 5)) ||
            (rn == 4 && !memcmp(rest, "_cpu", 4)) || (rn == 4 && !memcmp(rest, "_hip", 4)))
            return true;
    }
    return false;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Decode m4's output and check it in one pass over the raw text: escapes
 * decode to their characters (and "@&" to nothing), so a word that reads
 * fg_ or m4_ in the raw output came from a template, not from a value. */
static int decode_and_check(fg_arena *a, const char *raw, size_t len, const char *out_name,
                            const char *const *plans, char **out, fg_diag *d)
{
    sbuf b = {a, NULL, 0, 0};
    typedef struct bad {
        int line, col;
        const char *word;
    } bad;
    bad bads[16];
    int nbad = 0, nbad_total = 0, line = 1;
    size_t line_start = 0; /* in the decoded text */
    for (size_t i = 0; i < len;) {
        char c = raw[i];
        if (c == '\0') {
            diag_io_error(d, "%s: a NUL byte in the output of m4", out_name);
            return -1;
        }
        if (c == '@') {
            char e = i + 1 < len ? raw[i + 1] : '\0';
            if (e == '@')
                sb_puts(&b, "@");
            else if (e == '{')
                sb_puts(&b, "[");
            else if (e == '}')
                sb_puts(&b, "]");
            else if (e == 'D')
                sb_puts(&b, "$");
            else if (e != '&') {
                diag_io_error(d, "%s:%d: a stray '@' in the output of m4 (templates write @@)",
                           out_name, line);
                return -1;
            }
            i += 2;
            continue;
        }
        if (word_char(c) && !(c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < len && word_char(raw[j]))
                j++;
            size_t n = j - i;
            if (n > 3 && (!memcmp(raw + i, "fg_", 3) || !memcmp(raw + i, "m4_", 3)) &&
                !allowed_name(raw + i, n, plans)) {
                if (nbad < 16)
                    bads[nbad++] = (bad){line, (int)(b.len - line_start) + 1,
                                         arena_strndup(a, raw + i, n)};
                nbad_total++;
            }
            sb_putn(&b, raw + i, n);
            i = j;
            continue;
        }
        if (c >= '0' && c <= '9') {
            /* a number and its suffix: "1e5f" is not a word */
            size_t j = i;
            while (j < len && word_char(raw[j]))
                j++;
            sb_putn(&b, raw + i, j - i);
            i = j;
            continue;
        }
        sb_putn(&b, &c, 1);
        if (c == '\n') {
            line++;
            line_start = b.len;
        }
        i++;
    }
    *out = (char *)sb_str(&b);
    if (nbad_total) {
        fg_source src;
        source_from_string(&src, out_name, *out);
        fg_diag od;
        diag_init(&od, &src, d->out);
        for (int k = 0; k < nbad; k++)
            diag_error(&od, (fg_loc){bads[k].line, bads[k].col},
                       "'%s' is left in the output of m4: a macro the templates use "
                       "but the generator does not define",
                       bads[k].word);
        d->errors += od.errors;
        d->fatal += od.errors; /* a template's fault, not the plan's: exit status 3 */
        if (nbad_total > nbad)
            diag_io_error(d, "%s: %d more leftover macro names", out_name, nbad_total - nbad);
        return -1;
    }
    return 0;
}

int emit_render(fg_arena *a, const fg_emit_options *o, const fg_defs *defs,
                const char *template_rel, const char *out_name, const char *const *plans,
                char **out, fg_diag *d)
{
    const char *dir = o->templates_dir && *o->templates_dir ? o->templates_dir : ".";
    fg_emit_options oo = *o;
    oo.templates_dir = dir;
    char *path = arena_printf(a, "%s/%s", dir, template_rel);
    if (access(path, R_OK) != 0) {
        diag_io_error(d, "template %s: %s (see --templates)", path,
                   strerror(errno));
        return -1;
    }
    char *raw = NULL;
    size_t len = 0;
    const char *text = arena_printf(a, "%sm4_divert(0)m4_dnl\n", defs_text(defs));
    if (run_m4(a, &oo, text, path, &raw, &len, d) < 0)
        return -1;
    return decode_and_check(a, raw, len, out_name, plans, out, d);
}

/* ------------------------------------------------------------------ */
/* Writing files                                                       */
/* ------------------------------------------------------------------ */

static int same_content(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = strlen(text), i = 0;
    int c, same = 1;
    while ((c = getc(f)) != EOF) {
        if (i >= n || (char)c != text[i]) {
            same = 0;
            break;
        }
        i++;
    }
    if (ferror(f))
        same = 0;
    fclose(f);
    return same && i == n;
}

/* Create path (which must not exist) holding text, mode 0644. */
static int write_new_file(const char *path, const char *text, fg_diag *d)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        diag_io_error(d, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if (write_all(fd, text, strlen(text)) < 0 || fchmod(fd, 0644) < 0) {
        diag_io_error(d, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    if (close(fd) < 0) {
        diag_io_error(d, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

/* Write text to a new temporary file in dir; its name in tmp. */
static int write_temp(const char *dir, const char *name, const char *text, char *tmp,
                      size_t size, fg_diag *d)
{
    int len = snprintf(tmp, size, "%s/.%s.XXXXXX", dir, name);
    if (len < 0 || (size_t)len >= size) {
        diag_io_error(d, "cannot write %s/%s: %s", dir, name, strerror(ENAMETOOLONG));
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        diag_io_error(d, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    if (write_all(fd, text, strlen(text)) < 0 || fchmod(fd, 0644) < 0) {
        diag_io_error(d, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) < 0) {
        diag_io_error(d, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int ensure_dir(const char *dir, fg_diag *d)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        diag_io_error(d, "%s is not a directory", dir);
        return -1;
    }
    if (mkdir(dir, 0755) < 0) {
        diag_io_error(d, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int emit_write_file(const char *dir, const char *name, const char *text, fg_diag *d)
{
    if (ensure_dir(dir, d) < 0)
        return -1;
    char path[4096], tmp[4096];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        diag_io_error(d, "cannot write %s/%s: %s", dir, name, strerror(ENAMETOOLONG));
        return -1;
    }
    if (same_content(path, text))
        return 0;
    if (write_temp(dir, name, text, tmp, sizeof tmp, d) < 0)
        return -1;
    if (rename(tmp, path) < 0) {
        diag_io_error(d, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* A run's files are written all or nothing.  Every file whose content
 * changed is first written into a staging folder made by mkdtemp: inside
 * the output folder when it exists, else beside it (in the nearest parent
 * that exists), where the staging folder becomes the output folder by one
 * rename once the missing parents are made (mkdir -p).  In an existing
 * output folder the staged files are renamed into place one by one, each
 * old file kept as a hard link (or moved) into the staging folder first,
 * so that a failed rename puts back every file already replaced.  On any
 * failure the temporaries are removed and the output folder is left as it
 * was (or not created, nor any parent made for it).  An unchanged file is
 * not written, so it keeps its mtime. */

typedef struct out_file {
    const char *name;
    const char *text;
    const char *target; /* outdir/name */
    const char *staged; /* stage/name, while it exists */
    const char *backup; /* stage/.old/name, while it holds the old file */
    bool changed;
    bool existed; /* target existed before the run */
    bool placed;  /* the staged file was renamed onto target */
} out_file;

typedef struct out_run {
    fg_arena *a;
    fg_diag *d;
    const char *outdir;
    char *stage;      /* the staging folder, or NULL */
    char *old_dir;    /* stage/.old, or NULL */
    out_file *files;
    int n;
    /* A missing output folder's missing parents, innermost first, and
     * those this run made, in the order it made them (outermost first). */
    char **missing;
    char **made;
    int nmissing, nmade;
} out_run;

/* outdir without trailing slashes ("/" stays "/"). */
static char *trim_slashes(fg_arena *a, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return arena_strndup(a, dir, n);
}

/* The folder that holds path (which has no trailing slash): "." for a
 * bare name, "/" for "/x", "a" for "a//b". */
static char *parent_dir(fg_arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return arena_strdup(a, ".");
    while (slash > path && slash[-1] == '/')
        slash--;
    if (slash == path)
        return arena_strdup(a, "/");
    return arena_strndup(a, path, (size_t)(slash - path));
}

static long name_max(const char *dir)
{
    errno = 0;
    long m = pathconf(dir, _PC_NAME_MAX);
    return m > 0 ? m : 255;
}

/* Remove whatever is left of the staging folder and put back every file
 * already replaced. */
static void out_rollback(out_run *w)
{
    for (int i = w->n - 1; i >= 0; i--) {
        out_file *f = &w->files[i];
        if (f->placed) {
            if (f->backup) {
                if (rename(f->backup, f->target) == 0)
                    f->backup = NULL;
            } else {
                unlink(f->target);
            }
            f->placed = false;
        }
    }
}

static void out_cleanup(out_run *w)
{
    for (int i = 0; i < w->n; i++) {
        out_file *f = &w->files[i];
        if (f->staged)
            unlink(f->staged);
        if (f->backup)
            unlink(f->backup);
        f->staged = f->backup = NULL;
    }
    if (w->old_dir)
        rmdir(w->old_dir);
    if (w->stage)
        rmdir(w->stage);
    w->old_dir = w->stage = NULL;
}

/* Make the missing parents of a missing output folder, outermost first;
 * out_unmake_parents removes those this run made. */
static int out_make_parents(out_run *w)
{
    for (int i = w->nmissing - 1; i >= 0; i--) {
        if (mkdir(w->missing[i], 0755) < 0) {
            struct stat st;
            if (errno == EEXIST && stat(w->missing[i], &st) == 0 && S_ISDIR(st.st_mode))
                continue; /* "a/.." and the like, or made meanwhile */
            diag_io_error(w->d, "cannot create %s: %s", w->missing[i], strerror(errno));
            return -1;
        }
        w->made[w->nmade++] = w->missing[i];
    }
    return 0;
}

static void out_unmake_parents(out_run *w)
{
    while (w->nmade > 0)
        rmdir(w->made[--w->nmade]);
}

/* The nearest folder above a missing output folder that exists; the
 * missing ones between are listed in w->missing.  NULL after reporting. */
static const char *out_existing_parent(out_run *w)
{
    fg_vec missing = {0};
    char *p = parent_dir(w->a, w->outdir);
    for (;;) {
        struct stat st;
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                diag_io_error(w->d, "cannot create %s: %s is not a directory", w->outdir, p);
                return NULL;
            }
            break;
        }
        if (errno != ENOENT) {
            diag_io_error(w->d, "cannot create %s: %s", w->outdir, strerror(errno));
            return NULL;
        }
        vec_push(w->a, &missing, p);
        p = parent_dir(w->a, p);
    }
    w->missing = (char **)missing.items;
    w->nmissing = missing.len;
    w->made = ARENA_ARRAY(w->a, char *, missing.len > 0 ? missing.len : 1);
    return p;
}

/* Replace the changed files of an existing output folder, one rename each,
 * keeping the old ones until every rename succeeded. */
static int out_commit_into(out_run *w)
{
    for (int i = 0; i < w->n; i++) {
        out_file *f = &w->files[i];
        if (!f->changed)
            continue;
        if (f->existed) {
            if (!w->old_dir) {
                w->old_dir = arena_printf(w->a, "%s/.old", w->stage);
                if (mkdir(w->old_dir, 0700) < 0) {
                    diag_io_error(w->d, "cannot create %s: %s", w->old_dir, strerror(errno));
                    w->old_dir = NULL;
                    return -1;
                }
            }
            const char *backup = arena_printf(w->a, "%s/%s", w->old_dir, f->name);
            /* a hard link keeps the old file in place until the rename;
             * where links are refused, move it aside instead */
            if (link(f->target, backup) == 0) {
                f->backup = backup;
            } else if (rename(f->target, backup) == 0) {
                f->backup = backup;
            } else {
                diag_io_error(w->d, "cannot replace %s: %s", f->target, strerror(errno));
                return -1;
            }
        }
        if (rename(f->staged, f->target) < 0) {
            diag_io_error(w->d, "cannot write %s: %s", f->target, strerror(errno));
            if (f->backup && access(f->target, F_OK) != 0 && rename(f->backup, f->target) == 0)
                f->backup = NULL;
            return -1;
        }
        f->staged = NULL;
        f->placed = true;
    }
    return 0;
}

/* Write names[i] = texts[i] (n files) into outdir, all or nothing. */
static int write_run_files(fg_arena *a, const char *outdir, int n, const char *const *names,
                           const char *const *texts, fg_diag *d)
{
    out_run w = {.a = a, .d = d, .outdir = trim_slashes(a, outdir), .n = n};
    w.files = ARENA_ARRAY(a, out_file, n > 0 ? n : 1);
    struct stat st;
    bool exists = stat(w.outdir, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode)) {
        diag_io_error(d, "%s is not a directory", w.outdir);
        return -1;
    }
    if (!exists && errno != ENOENT) {
        diag_io_error(d, "cannot write into %s: %s", w.outdir, strerror(errno));
        return -1;
    }
    const char *base = exists ? w.outdir : out_existing_parent(&w);
    if (!base)
        return -1;
    long max = name_max(base);
    int nchanged = 0;
    for (int i = 0; i < n; i++) {
        out_file *f = &w.files[i];
        f->name = names[i];
        f->text = texts[i];
        f->target = arena_printf(a, "%s/%s", w.outdir, f->name);
        size_t len = strlen(f->name);
        if ((long)len > max) {
            diag_io_error(d,
                          "cannot write %s/%.40s...: a file name of %zu bytes is longer than "
                          "the %ld the file system allows (is a plan's name too long?)",
                          w.outdir, f->name, len, max);
            return -1;
        }
        f->changed = true;
        if (exists) {
            struct stat fs;
            if (lstat(f->target, &fs) == 0) {
                if (S_ISDIR(fs.st_mode)) {
                    diag_io_error(d, "cannot write %s: a directory of that name is in the way",
                                  f->target);
                    return -1;
                }
                f->existed = true;
                f->changed = !((S_ISREG(fs.st_mode) || S_ISLNK(fs.st_mode)) &&
                               same_content(f->target, f->text));
            }
        }
        nchanged += f->changed;
    }
    if (exists && nchanged == 0)
        return 0;
    w.stage = arena_printf(a, "%s/.fusegen-XXXXXX", base);
    if (!mkdtemp(w.stage)) {
        diag_io_error(d, "cannot %s %s: %s", exists ? "write into" : "create", w.outdir,
                      strerror(errno));
        w.stage = NULL;
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        out_file *f = &w.files[i];
        if (!f->changed)
            continue;
        const char *staged = arena_printf(a, "%s/%s", w.stage, f->name);
        if (write_new_file(staged, f->text, d) < 0)
            rc = -1;
        else
            f->staged = staged;
    }
    if (rc == 0 && exists) {
        rc = out_commit_into(&w);
        if (rc < 0)
            out_rollback(&w);
    } else if (rc == 0) {
        /* the staging folder becomes the output folder, as mkdir -p would
         * have made it (with its missing parents) */
        mode_t mask = umask(0);
        umask(mask);
        if (chmod(w.stage, 0755 & ~mask) < 0) {
            diag_io_error(d, "cannot create %s: %s", w.outdir, strerror(errno));
            rc = -1;
        } else if (out_make_parents(&w) < 0) {
            rc = -1;
        } else if (rename(w.stage, w.outdir) < 0) {
            diag_io_error(d, "cannot create %s: %s", w.outdir, strerror(errno));
            rc = -1;
        } else {
            w.stage = NULL; /* it is the output folder now */
            for (int i = 0; i < n; i++)
                w.files[i].staged = NULL;
        }
    }
    out_cleanup(&w);
    if (rc < 0)
        out_unmake_parents(&w);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

typedef struct pending_file {
    const char *name; /* in the output dir */
    const char *text;
} pending_file;

typedef struct run_plan {
    const char *name;
    const char *path;                 /* plans/FILE.fp, for the run's command */
    unsigned backends;                /* TARGET_* bits emitted */
    char *reg_code[FG_NBACKENDS];     /* the plan's registry entry per backend, or NULL */
    char *reg_line[FG_NBACKENDS];
} run_plan;

struct fg_emit_run {
    fg_arena *a;
    const char *templates_hash; /* of every template file, computed once */
    fg_emit_options o;
    fg_vec files; /* pending_file * */
    fg_vec plans; /* run_plan * */
    bool failed;
};

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *target_option(fg_arena *a, unsigned targets)
{
    if (!targets)
        return "";
    char *s = arena_strdup(a, " --target=");
    bool first = true;
    for (int i = 0; i < FG_NBACKENDS; i++)
        if (targets & fg_backends[i].target) {
            s = arena_printf(a, "%s%s%s", s, first ? "" : ",", fg_backends[i].name);
            first = false;
        }
    return s;
}

int emit_run_begin(const fg_emit_options *o, fg_emit_run **out, fg_diag *d)
{
    (void)d;
    fg_arena *a = arena_create();
    fg_emit_run *r = ARENA_NEW(a, fg_emit_run);
    r->a = a;
    r->o = *o;
    r->o.outdir = arena_strdup(a, o->outdir && *o->outdir ? o->outdir : ".");
    r->o.templates_dir =
        arena_strdup(a, o->templates_dir && *o->templates_dir ? o->templates_dir : "templates");
    r->o.m4 = arena_strdup(a, o->m4 && *o->m4 ? o->m4 : "m4");
    r->o.command_line = o->command_line ? arena_strdup(a, o->command_line) : NULL;
    *out = r;
    return 0;
}

void emit_run_mark_failed(fg_emit_run *r) { r->failed = true; }

void emit_run_free(fg_emit_run *r)
{
    if (r)
        arena_destroy(r->a);
}

static void add_file(fg_emit_run *r, const char *name, const char *text)
{
    pending_file *f = ARENA_NEW(r->a, pending_file);
    f->name = arena_strdup(r->a, name);
    f->text = arena_strdup(r->a, text);
    vec_push(r->a, &r->files, f);
}

/* The plans a file may name: those of the run so far, plus this one. */
static const char **plan_names(fg_emit_run *r, fg_arena *a, const char *extra)
{
    const char **names = ARENA_ARRAY(a, const char *, r->plans.len + 2);
    int n = 0;
    for (int i = 0; i < r->plans.len; i++)
        names[n++] = ((run_plan *)r->plans.items[i])->name;
    if (extra)
        names[n++] = extra;
    names[n] = NULL;
    return names;
}

static bool template_exists(const fg_emit_options *o, fg_arena *a, const char *rel)
{
    return access(arena_printf(a, "%s/%s", o->templates_dir, rel), R_OK) == 0;
}

/* FNV-1a over the names and contents of every template file (.m4, .cuh,
 * .h) under dir, in sorted order: the generated files name it, so a
 * changed template shows in every file it produced. */
static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void collect_templates(fg_arena *a, const char *root, const char *rel, fg_vec *out,
                              int depth)
{
    const char *path = *rel ? arena_printf(a, "%s/%s", root, rel) : root;
    DIR *dir = depth < 8 ? opendir(path) : NULL;
    if (!dir)
        return;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        const char *n = de->d_name;
        if (n[0] == '.')
            continue;
        const char *sub = *rel ? arena_printf(a, "%s/%s", rel, n) : arena_strdup(a, n);
        struct stat st;
        if (stat(arena_printf(a, "%s/%s", root, sub), &st) < 0)
            continue;
        size_t len = strlen(n);
        if (S_ISDIR(st.st_mode))
            collect_templates(a, root, sub, out, depth + 1);
        else if ((len > 3 && !strcmp(n + len - 3, ".m4")) ||
                 (len > 4 && !strcmp(n + len - 4, ".cuh")) || (len > 2 && !strcmp(n + len - 2, ".h")))
            vec_push(a, out, (void *)sub);
    }
    closedir(dir);
}

/* FNV-1a over the template files under each of parts (folders or files
 * below dir; nparts 0: the whole tree), in sorted order of their paths. */
static const char *hash_templates(fg_arena *a, const char *dir, const char *const *parts,
                                  int nparts)
{
    fg_vec files = {0};
    if (nparts == 0)
        collect_templates(a, dir, "", &files, 0);
    for (int i = 0; i < nparts; i++) {
        struct stat st;
        if (stat(arena_printf(a, "%s/%s", dir, parts[i]), &st) == 0 && S_ISREG(st.st_mode))
            vec_push(a, &files, (void *)parts[i]);
        else
            collect_templates(a, dir, parts[i], &files, 0);
    }
    qsort(files.items, (size_t)files.len, sizeof files.items[0], cmp_str);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < files.len; i++) {
        const char *rel = files.items[i];
        for (const char *c = rel; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        FILE *f = fopen(arena_printf(a, "%s/%s", dir, rel), "rb");
        int ch;
        while (f && (ch = getc(f)) != EOF)
            h = (h ^ (unsigned char)ch) * 1099511628211ull;
        if (f)
            fclose(f);
    }
    return arena_printf(a, "%016llx", (unsigned long long)h);
}

static const char *templates_hash(fg_emit_run *r)
{
    if (!r->templates_hash)
        r->templates_hash = hash_templates(r->a, r->o.templates_dir, NULL, 0);
    return r->templates_hash;
}

const char *tune_templates_hash(fg_arena *a, const char *templates_dir)
{
    /* the skeletons, the attention kernel's file around them and the hooks
     * it prints into them: what a tuned kernel's device code comes from,
     * short of the generator's own lowering */
    static const char *const parts[] = {"cuda/sm80",         "cuda/sm90",        "cuda/attention.m4",
                                        "cuda/prelude.m4",   "gpu/hooks.m4",     "gpu/chains.m4",
                                        "gpu/validate.m4"};
    return hash_templates(a, templates_dir, parts, (int)(sizeof parts / sizeof parts[0]));
}

/* Whether backend `be` gives plan k a kernel in a run with options o: 1
 * yes, 0 no (skipped, with a warning when the plan asks for the backend and
 * it cannot serve the plan), -1 an error (reported: the backend was asked
 * for by name with --target and cannot serve, or the plan's own target list
 * leaves it out).  templates: whether the backend's templates must exist. */
static int backend_serves(const fg_emit_options *o, fg_arena *a, const fg_backend *be,
                          const fg_kernel *k, bool report, bool templates, fg_diag *d)
{
    const fg_plan *p = k->plan;
    bool named = (o->targets & be->target) != 0;
    unsigned want = o->targets ? o->targets & k->sched.targets : k->sched.targets;
    fg_loc sl = p->sched.present ? p->sched.loc : p->name_loc;
    if (!(want & be->target)) {
        if (!named || !report)
            return 0;
        /* --target=cuda on a plan whose targets leave cuda out: an error,
         * with the backend's reason when it could not serve the plan anyway */
        fg_loc wl;
        const char *why = NULL;
        if (be->lower && be->supported && be->supported(k, &wl, &why) < 0)
            diag_error(d, wl, "plan '%s' has no %s kernel: %s", p->name, be->title, why);
        else
            diag_error(d, sl, "plan '%s' has no %s kernel: its schedule's targets leave %s out",
                       p->name, be->title, be->name);
        return -1;
    }
    if (!be->lower || (templates && !template_exists(o, a, be->templates))) {
        if (named && report) {
            diag_error(d, sl, "plan '%s': the %s backend has no %s yet", p->name, be->name,
                       be->lower ? "templates" : "lowering");
            return -1;
        }
        return 0; /* not asked for by name: skipped */
    }
    fg_loc wl;
    const char *why = NULL;
    if (be->supported && be->supported(k, &wl, &why) < 0) {
        if (!report)
            return 0;
        if (named) {
            diag_error(d, wl, "plan '%s' has no %s kernel: %s", p->name, be->title, why);
            return -1;
        }
        diag_warning(d, wl, "plan '%s' gets no %s kernel: %s", p->name, be->title, why);
        return 0;
    }
    return 1;
}

int emit_check_plan(const fg_emit_options *o, const fg_kernel *k, fg_diag *d)
{
    fg_arena *a = arena_create();
    int errors0 = d->errors;
    for (int i = 0; i < FG_NBACKENDS; i++) {
        const fg_backend *be = &fg_backends[i];
        if (backend_serves(o, a, be, k, true, false, d) != 1)
            continue;
        /* the definitions a run would render, thrown away */
        fg_defs *defs = defs_create(a);
        const char *tmpl = NULL;
        if (lower_common(a, k, defs, d) < 0 || be->lower(a, k, defs, &tmpl, d) < 0)
            break;
    }
    arena_destroy(a);
    return d->errors > errors0 ? -1 : 0;
}

/* The plan's header: the argument struct and the entry points it has. */
static int render_header(fg_emit_run *r, fg_arena *a, const fg_kernel *k, const char *cmd,
                         const char **names, fg_diag *d)
{
    const fg_plan *p = k->plan;
    fg_defs *defs = defs_create(a);
    fg_def_str(defs, "command", cmd);
    fg_def_str(defs, "generator_version", r->o.version ? r->o.version : "unknown");
    fg_def_str(defs, "templates_hash", templates_hash(r));
    if (lower_common(a, k, defs, d) < 0)
        return -1;
    for (int i = 0; i < FG_NBACKENDS; i++)
        if (fg_backends[i].target != TARGET_C && fg_backends[i].lower)
            fg_def_bool(defs, arena_printf(a, "has_%s", fg_backends[i].name),
                        backend_serves(&r->o, a, &fg_backends[i], k, false, true, d) == 1);
    char *text = NULL;
    const char *file = arena_printf(a, "fusegen_%s.h", p->name);
    if (emit_render(a, &r->o, defs, "api/plan_h.m4", file, names, &text, d) < 0)
        return -1;
    add_file(r, file, text);
    return 0;
}

/* One backend's kernel source of the plan and its registry entry. */
static int render_backend(fg_emit_run *r, fg_arena *a, const fg_backend *be, const fg_kernel *k,
                          const char *cmd, const char **names, run_plan *rp, fg_diag *d)
{
    const fg_plan *p = k->plan;
    fg_defs *defs = defs_create(a);
    fg_def_str(defs, "command", cmd);
    fg_def_str(defs, "generator_version", r->o.version ? r->o.version : "unknown");
    fg_def_str(defs, "templates_hash", templates_hash(r));
    if (lower_common(a, k, defs, d) < 0)
        return -1;
    const char *tmpl = NULL;
    if (be->lower(a, k, defs, &tmpl, d) < 0)
        return -1;
    const char *file = arena_printf(a, "%s%s%s", p->name, be->suffix, be->ext);
    char *text = NULL;
    if (emit_render(a, &r->o, defs, tmpl, file, names, &text, d) < 0)
        return -1;
    add_file(r, file, text);
    rp->backends |= be->target;
    return 0;
}

int emit_run_plan(fg_emit_run *r, const fg_kernel *k, fg_diag *d)
{
    const fg_plan *p = k->plan;
    fg_arena *a = arena_create();
    int rc = -1;
    int errors0 = d->errors;
    for (int i = 0; i < r->plans.len; i++)
        if (!strcmp(((run_plan *)r->plans.items[i])->name, p->name)) {
            diag_error(d, p->name_loc, "a plan named '%s' is already in this run", p->name);
            goto done;
        }
    run_plan *rp = ARENA_NEW(r->a, run_plan);
    rp->name = arena_strdup(r->a, p->name);
    rp->path = arena_printf(r->a, "plans/%s", base_name(p->src && p->src->name ? p->src->name
                                                                              : "plan.fp"));
    const char **names = plan_names(r, a, p->name);
    const char *cmd = r->o.command_line
                          ? r->o.command_line
                          : arena_printf(a, "fusegen%s -o generated %s",
                                         target_option(a, r->o.targets), rp->path);
    if (render_header(r, a, k, cmd, names, d) < 0)
        goto done;
    for (int i = 0; i < FG_NBACKENDS; i++) {
        const fg_backend *be = &fg_backends[i];
        int serve = backend_serves(&r->o, a, be, k, true, true, d);
        if (serve < 0 || (serve == 1 && render_backend(r, a, be, k, cmd, names, rp, d) < 0))
            goto done;
        /* the registry describes every plan (fg_plan_info); a backend's
         * entry points only the plans it serves */
        if (serve == 1 || be->registry_always) {
            char *code = NULL, *line = NULL;
            if (be->registry_entry && be->registry_entry(a, k, &code, &line, d) < 0)
                goto done;
            rp->reg_code[i] = code ? arena_strdup(r->a, code) : NULL;
            rp->reg_line[i] = line ? arena_strdup(r->a, line) : NULL;
        }
    }
    vec_push(r->a, &r->plans, rp);
    rc = d->errors > errors0 ? -1 : 0;
done:
    if (rc < 0)
        r->failed = true;
    arena_destroy(a);
    return rc;
}

/* kernels.mk's lists and the run's registry files, one per backend. */
static int render_run_files(fg_emit_run *r, fg_diag *d)
{
    fg_arena *a = r->a;
    fg_defs *defs = defs_create(a);
    const char *cmd = r->o.command_line;
    if (!cmd) {
        cmd = arena_printf(a, "fusegen%s -o generated", target_option(a, r->o.targets));
        for (int i = 0; i < r->plans.len; i++)
            cmd = arena_printf(a, "%s %s", cmd, ((run_plan *)r->plans.items[i])->path);
    }
    fg_def_str(defs, "command", cmd);
    /* The run's hash: over the plan paths (each plan's own hash is in its
     * registry entry's header file). */
    uint64_t h = 1469598103934665603ull;
    char *includes = "", *mk_headers = "";
    char *mk[FG_NBACKENDS];
    bool any[FG_NBACKENDS];
    for (int k = 0; k < FG_NBACKENDS; k++) {
        mk[k] = "";
        any[k] = fg_backends[k].registry_always;
    }
    for (int i = 0; i < r->plans.len; i++) {
        run_plan *rp = r->plans.items[i];
        for (const char *s = rp->path; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        includes = arena_printf(a, "%s#include \"fusegen_%s.h\"\n", includes, rp->name);
        mk_headers = arena_printf(a, "%s\tgenerated/fusegen_%s.h \\\n", mk_headers, rp->name);
        for (int k = 0; k < FG_NBACKENDS; k++)
            if (rp->backends & fg_backends[k].target) {
                mk[k] = arena_printf(a, "%s\tgenerated/%s%s%s \\\n", mk[k], rp->name,
                                     fg_backends[k].suffix, fg_backends[k].ext);
                any[k] = true;
            }
    }
    mk_headers = arena_printf(a, "%s\tgenerated/fusegen_plans.h \\\n", mk_headers);
    for (int k = 0; k < FG_NBACKENDS; k++)
        if (any[k] && fg_backends[k].registry_file)
            mk[k] = arena_printf(a, "%s\tgenerated/%s \\\n", mk[k], fg_backends[k].registry_file);
    fg_def_str(defs, "hash", arena_printf(a, "%016llx", (unsigned long long)h));
    fg_def_int(defs, "nplans", r->plans.len);
    fg_def_code(defs, "plan_includes", includes);
    fg_def_code(defs, "mk_headers", mk_headers);
    for (int k = 0; k < FG_NBACKENDS; k++)
        fg_def_code(defs, arena_printf(a, "mk_%s_sources", fg_backends[k].name), mk[k]);
    const char **names = plan_names(r, a, NULL);
    char *text = NULL;
    if (emit_render(a, &r->o, defs, "api/plans_h.m4", "fusegen_plans.h", names, &text, d) < 0)
        return -1;
    add_file(r, "fusegen_plans.h", text);
    if (emit_render(a, &r->o, defs, "api/kernels_mk.m4", "kernels.mk", names, &text, d) < 0)
        return -1;
    add_file(r, "kernels.mk", text);
    for (int k = 0; k < FG_NBACKENDS; k++) {
        const fg_backend *be = &fg_backends[k];
        if (!any[k] || !be->registry_file)
            continue;
        char *entries = "", *list = "";
        for (int i = 0; i < r->plans.len; i++) {
            run_plan *rp = r->plans.items[i];
            if (rp->reg_code[k])
                entries = arena_printf(a, "%s%s\n", entries, rp->reg_code[k]);
            if (rp->reg_line[k])
                list = arena_printf(a, "%s    %s\n", list, rp->reg_line[k]);
        }
        fg_def_code(defs, "registry_entries", entries);
        fg_def_code(defs, "plan_entries", list);
        if (emit_render(a, &r->o, defs, be->registry_template, be->registry_file, names, &text,
                        d) < 0)
            return -1;
        add_file(r, be->registry_file, text);
    }
    return 0;
}

int emit_run_finish(fg_emit_run *r, fg_diag *d)
{
    int rc = -1;
    if (r->failed)
        goto done;
    if (render_run_files(r, d) < 0)
        goto done;
    int n = r->files.len;
    const char **names = ARENA_ARRAY(r->a, const char *, n > 0 ? n : 1);
    const char **texts = ARENA_ARRAY(r->a, const char *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        pending_file *f = r->files.items[i];
        names[i] = f->name;
        texts[i] = f->text;
    }
    rc = write_run_files(r->a, r->o.outdir, n, names, texts, d);
done:
    emit_run_free(r);
    return rc;
}
