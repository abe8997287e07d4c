/* test_write.c - writing a run's files (emit_run_finish): all or nothing.
 *
 * A run writes every changed file or none: a failure at any step leaves
 * the output folder exactly as it was, or not there at all when it did not
 * exist, with no temporary left behind; an unchanged file keeps its mtime.
 *
 * rename() is replaced below by one that can be told to fail at its N-th
 * call: the generator's static library resolves rename to this program's
 * definition, so the failures land in the middle of emit_run_finish, after
 * some files were already moved into place.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "generator.h"

static int rename_calls;
static int rename_fail_at; /* 0: never */

int rename(const char *from, const char *to)
{
    rename_calls++;
    if (rename_fail_at && rename_calls == rename_fail_at) {
        errno = EIO;
        return -1;
    }
    return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

typedef struct fixture {
    char dir[256]; /* a scratch folder; the output folder is inside it */
    char out[300];
    fg_arena *arena;
    char *diag_text;
    size_t diag_len;
    FILE *diag_out;
    fg_diag diag;
    fg_emit_options opt;
    fg_kernel *plans[2];
} fixture;

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* The names in a folder, sorted, one per line ("" when empty; NULL when
 * it cannot be read). */
static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *listing(fixture *f, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = arena_strdup(f->arena, e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    char *s = "";
    for (int i = 0; i < n; i++)
        s = arena_printf(f->arena, "%s%s\n", s, names[i]);
    return s;
}

static char *read_text(fixture *f, const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = getc(fp)) != EOF)
        putc(c, m);
    fclose(fp);
    fclose(m);
    char *s = arena_strdup(f->arena, buf);
    free(buf);
    return s;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static fg_kernel *load_plan(fixture *f, const char *name)
{
    char *path = arena_printf(f->arena, "%s/plans/%s", srcdir(), name);
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    fg_diag d;
    diag_init(&d, NULL, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    fg_kernel *k = NULL;
    if (source_read(f->arena, path, src, &d) < 0)
        return NULL;
    d.src = src;
    if (parse_plan(f->arena, src, &d, &p) < 0 || check_plan(p, &d) < 0 ||
        fuse_plan(f->arena, p, &d, &fz) < 0 || kernel_build(f->arena, fz, &d, &k) < 0)
        return NULL;
    return k;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/fg-write.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->out, sizeof f->out, "%s/out", f->dir);
    f->arena = arena_create();
    f->diag_out = open_memstream(&f->diag_text, &f->diag_len);
    diag_init(&f->diag, NULL, f->diag_out);
    const char *m4 = getenv("M4");
    f->opt.outdir = f->out;
    f->opt.templates_dir = arena_printf(f->arena, "%s/templates", srcdir());
    f->opt.m4 = m4 && *m4 ? m4 : "m4";
    f->opt.targets = TARGET_C; /* no m4 work the writing does not need */
    f->plans[0] = load_plan(f, "softmax.fp");
    f->plans[1] = load_plan(f, "causal.fp");
    if (!f->plans[0] || !f->plans[1])
        return -1;
    rename_calls = 0;
    rename_fail_at = 0;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->diag_out);
    free(f->diag_text);
    remove_tree(f->dir);
    arena_destroy(f->arena);
    free(f);
    rename_fail_at = 0;
    return 0;
}

static const char *diag_output(fixture *f)
{
    fflush(f->diag_out);
    return f->diag_text ? f->diag_text : "";
}

/* One run of both plans; rename fails at its fail_at-th call (0: never). */
static int run(fixture *f, int fail_at)
{
    fg_emit_run *r = NULL;
    if (emit_run_begin(&f->opt, &r, &f->diag) < 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (emit_run_plan(r, f->plans[i], &f->diag) < 0) {
            emit_run_free(r);
            return -1;
        }
    rename_calls = 0;
    rename_fail_at = fail_at;
    int rc = emit_run_finish(r, &f->diag);
    rename_fail_at = 0;
    return rc;
}

static const char expected_files[] = "causal_cpu.c\n"
                                     "fusegen_causal.h\n"
                                     "fusegen_plans.c\n"
                                     "fusegen_plans.h\n"
                                     "fusegen_softmax.h\n"
                                     "kernels.mk\n"
                                     "softmax_cpu.c\n";

static void a_new_folder_is_made_whole(void **state)
{
    fixture *f = *state;
    assert_int_equal(run(f, 0), 0);
    assert_string_equal(listing(f, f->out), expected_files);
    assert_string_equal(listing(f, f->dir), "out\n"); /* no staging folder left */
    mode_t mask = umask(0);
    umask(mask);
    struct stat st;
    assert_int_equal(stat(f->out, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755 & ~mask);
    assert_int_equal(stat(arena_printf(f->arena, "%s/kernels.mk", f->out), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(f->diag.errors, 0);
}

/* The rename that would make the staging folder the output folder fails:
 * no output folder, nothing left beside it. */
static void a_failed_new_folder_is_not_made(void **state)
{
    fixture *f = *state;
    assert_int_equal(run(f, 1), -1);
    assert_null(listing(f, f->out));
    assert_string_equal(listing(f, f->dir), "");
    assert_non_null(strstr(diag_output(f), "cannot create"));
    assert_true(f->diag.fatal > 0);
}

/* A missing output folder's missing parents are made (mkdir -p); when the
 * run fails, none of them is left. */
static void missing_parents_are_made_and_unmade(void **state)
{
    fixture *f = *state;
    f->opt.outdir = arena_printf(f->arena, "%s/a/b//c/", f->dir);
    assert_int_equal(run(f, 1), -1);
    assert_string_equal(listing(f, f->dir), "");
    assert_true(f->diag.fatal > 0);
    assert_int_equal(run(f, 0), 0);
    assert_string_equal(listing(f, f->dir), "a\n");
    assert_string_equal(listing(f, arena_printf(f->arena, "%s/a/b/c", f->dir)), expected_files);
    /* a parent that exists is kept, of course */
    f->opt.outdir = arena_printf(f->arena, "%s/a/d/e", f->dir);
    assert_int_equal(run(f, 1), -1);
    assert_string_equal(listing(f, arena_printf(f->arena, "%s/a", f->dir)), "b\n");
}

/* Every file of an existing output folder is changed; the third rename
 * fails after two files were replaced: both are put back. */
static void a_failed_run_puts_back_every_replaced_file(void **state)
{
    fixture *f = *state;
    assert_int_equal(run(f, 0), 0);
    char *names = listing(f, f->out);
    for (char *s = names; *s;) {
        char *nl = strchr(s, '\n');
        *nl = '\0';
        write_text(arena_printf(f->arena, "%s/%s", f->out, s), "old\n");
        *nl = '\n';
        s = nl + 1;
    }
    write_text(arena_printf(f->arena, "%s/keep.txt", f->out), "mine\n");
    for (int fail_at = 1; fail_at <= 7; fail_at++) {
        assert_int_equal(run(f, fail_at), -1);
        assert_string_equal(listing(f, f->out),
                            "causal_cpu.c\nfusegen_causal.h\nfusegen_plans.c\nfusegen_plans.h\n"
                            "fusegen_softmax.h\nkeep.txt\nkernels.mk\nsoftmax_cpu.c\n");
        for (char *s = names; *s;) {
            char *nl = strchr(s, '\n');
            char *path = arena_printf(f->arena, "%s/%.*s", f->out, (int)(nl - s), s);
            assert_string_equal(read_text(f, path), "old\n");
            s = nl + 1;
        }
        assert_string_equal(read_text(f, arena_printf(f->arena, "%s/keep.txt", f->out)),
                            "mine\n");
    }
    assert_true(f->diag.fatal > 0);
    /* and a run that succeeds replaces them all */
    assert_int_equal(run(f, 0), 0);
    assert_string_not_equal(read_text(f, arena_printf(f->arena, "%s/kernels.mk", f->out)),
                            "old\n");
}

/* A directory where a file goes fails the run before anything is written. */
static void a_directory_in_the_way_writes_nothing(void **state)
{
    fixture *f = *state;
    assert_int_equal(mkdir(f->out, 0755), 0);
    assert_int_equal(mkdir(arena_printf(f->arena, "%s/kernels.mk", f->out), 0755), 0);
    assert_int_equal(run(f, 0), -1);
    assert_string_equal(listing(f, f->out), "kernels.mk\n");
    assert_non_null(strstr(diag_output(f), "kernels.mk: a directory of that name is in the way"));
    assert_true(f->diag.fatal > 0);
}

/* Only changed files are written: the others keep their mtime. */
static void unchanged_files_keep_their_mtime(void **state)
{
    fixture *f = *state;
    assert_int_equal(run(f, 0), 0);
    struct utimbuf old = {1000000, 1000000};
    char *kmk = arena_printf(f->arena, "%s/kernels.mk", f->out);
    char *hdr = arena_printf(f->arena, "%s/fusegen_softmax.h", f->out);
    assert_int_equal(utime(kmk, &old), 0);
    assert_int_equal(utime(hdr, &old), 0);
    write_text(hdr, "changed by hand\n");
    assert_int_equal(utime(hdr, &old), 0);
    assert_int_equal(run(f, 0), 0);
    struct stat st;
    assert_int_equal(stat(kmk, &st), 0);
    assert_int_equal((long)st.st_mtime, 1000000L);
    assert_int_equal(stat(hdr, &st), 0);
    assert_true((long)st.st_mtime != 1000000L);
    assert_string_not_equal(read_text(f, hdr), "changed by hand\n");
    assert_string_equal(listing(f, f->out), expected_files);
    assert_int_equal(f->diag.errors, 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(a_new_folder_is_made_whole),
        T(a_failed_new_folder_is_not_made),
        T(missing_parents_are_made_and_unmade),
        T(a_failed_run_puts_back_every_replaced_file),
        T(a_directory_in_the_way_writes_nothing),
        T(unchanged_files_keep_their_mtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
