/* test_emit.c - the m4 interface and the files of a run: escaping, the
 * 0/1 check of fg_*_if, leftover macro names as located errors, writing only
 * changed files, and a failing run writing nothing. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "generator.h"

typedef struct fixture {
    char dir[256];    /* a fresh output folder */
    char tmpl[256];   /* a folder of test templates */
    fg_arena *arena;
    char *diag_text;  /* what the diagnostics printed */
    size_t diag_len;
    FILE *diag_out;
    fg_diag diag;
    fg_emit_options opt;
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

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/fg-emit-out.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    snprintf(f->tmpl, sizeof f->tmpl, "%s/fg-emit-tmpl.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir) || !mkdtemp(f->tmpl))
        return -1;
    char common[512];
    snprintf(common, sizeof common, "%s/common", f->tmpl);
    mkdir(common, 0755);
    /* the real shared machinery, copied into the test templates */
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/templates/common/prelude.m4", srcdir());
    snprintf(dst, sizeof dst, "%s/common/prelude.m4", f->tmpl);
    char *text = read_text(src);
    if (!text)
        return -1;
    write_text(dst, text);
    f->arena = arena_create();
    f->diag_out = open_memstream(&f->diag_text, &f->diag_len);
    diag_init(&f->diag, NULL, f->diag_out);
    const char *m4 = getenv("M4");
    f->opt.outdir = f->dir;
    f->opt.templates_dir = f->tmpl;
    f->opt.m4 = m4 && *m4 ? m4 : "m4";
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->diag_out);
    free(f->diag_text);
    remove_tree(f->dir);
    remove_tree(f->tmpl);
    arena_destroy(f->arena);
    free(f);
    return 0;
}

static const char *diag_output(fixture *f)
{
    fflush(f->diag_out);
    return f->diag_text ? f->diag_text : "";
}

static void add_template(fixture *f, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->tmpl, name);
    write_text(path, text);
}

static void escape_breaks_quotes_and_macro_names(void **state)
{
    fixture *f = *state;
    assert_string_equal(m4_escape(f->arena, "a[b]@c fg_x m4_define"),
                        "a@{b@}@@c fg@&_x m4@&_define");
    assert_string_equal(m4_escape(f->arena, "[[[ ]]]"), "@{@{@{ @}@}@}");
    assert_string_equal(m4_escape(f->arena, "xfg_fg_ $1"), "xfg@&_fg@&_ @D1");
}

/* Any text comes out of m4 as it went in. */
static void definitions_come_out_verbatim(void **state)
{
    fixture *f = *state;
    static const char *const nasty[] = {
        "m4_define([[[fg_x]]], [[[boom]]])",
        "`quoted' [[[ ]]] [ ] $1 $@ #comment, (unbalanced",
        "changequote(<<, >>) dnl fg_x m4_dnl @@ @{ @& fg_doc",
        "m4_changequote(`[', `]')m4_divert(-1)",
    };
    add_template(f, "t.m4", "m4_include([[[common/prelude.m4]]])m4_dnl\n<fg_text>\n");
    for (size_t i = 0; i < sizeof nasty / sizeof nasty[0]; i++) {
        fg_defs *d = defs_create(f->arena);
        fg_def_code(d, "text", nasty[i]);
        char *out = NULL;
        assert_int_equal(emit_render(f->arena, &f->opt, d, "t.m4", "t.out", NULL, &out, &f->diag),
                         0);
        char *want = arena_printf(f->arena, "<%s>\n", nasty[i]);
        assert_string_equal(out, want);
    }
    assert_int_equal(f->diag.errors, 0);
}

static void bool_if_selects_and_refuses_other_values(void **state)
{
    fixture *f = *state;
    add_template(f, "b.m4",
                 "m4_include([[[common/prelude.m4]]])m4_dnl\n"
                 "fg_flag_if([[[yes, with a comma]]], [[[no]]])\n");
    fg_defs *d = defs_create(f->arena);
    fg_def_bool(d, "flag", 1);
    char *out = NULL;
    assert_int_equal(emit_render(f->arena, &f->opt, d, "b.m4", "b.out", NULL, &out, &f->diag), 0);
    assert_string_equal(out, "yes, with a comma\n");
    d = defs_create(f->arena);
    fg_def_bool(d, "flag", 0);
    assert_int_equal(emit_render(f->arena, &f->opt, d, "b.m4", "b.out", NULL, &out, &f->diag), 0);
    assert_string_equal(out, "no\n");
    d = defs_create(f->arena);
    fg_def_bool(d, "flag", 2);
    assert_int_equal(emit_render(f->arena, &f->opt, d, "b.m4", "b.out", NULL, &out, &f->diag),
                     -1);
    const char *msg = diag_output(f);
    assert_non_null(strstr(msg, "b.m4:2: error: fg_flag_if: fg_flag is '2', not 0 or 1"));
}

static void leftover_macro_is_a_located_error(void **state)
{
    fixture *f = *state;
    add_template(f, "l.m4",
                 "m4_include([[[common/prelude.m4]]])m4_dnl\n"
                 "int ok = fg_n;\n"
                 "int x = fg_undefined + 1; fg_status s;\n");
    fg_defs *d = defs_create(f->arena);
    fg_def_int(d, "n", 42);
    char *out = NULL;
    assert_int_equal(emit_render(f->arena, &f->opt, d, "l.m4", "k_cpu.c", NULL, &out, &f->diag),
                     -1);
    const char *msg = diag_output(f);
    /* line 2 of the output, column 9; the line and a caret follow */
    assert_non_null(strstr(msg, "k_cpu.c:2:9: error: 'fg_undefined' is left in the output of m4"));
    assert_non_null(strstr(msg, "int x = fg_undefined + 1; fg_status s;\n        ^"));
    /* fg_status is a runtime name: not reported */
    assert_null(strstr(msg, "'fg_status'"));
    assert_int_equal(f->diag.errors, 1);
}

static void unchanged_file_keeps_its_mtime(void **state)
{
    fixture *f = *state;
    char path[512];
    snprintf(path, sizeof path, "%s/x.c", f->dir);
    assert_int_equal(emit_write_file(f->dir, "x.c", "int x;\n", &f->diag), 0);
    struct utimbuf old = {1000000, 1000000};
    assert_int_equal(utime(path, &old), 0);
    assert_int_equal(emit_write_file(f->dir, "x.c", "int x;\n", &f->diag), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((long)st.st_mtime, 1000000L);
    assert_int_equal(emit_write_file(f->dir, "x.c", "int y;\n", &f->diag), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true((long)st.st_mtime != 1000000L);
    assert_string_equal(read_text(path), "int y;\n");
    assert_int_equal(count_entries(f->dir), 1); /* no temporary left */
}

static fg_kernel *fused_from_text(fixture *f, const char *name, const char *text)
{
    fg_source *src = ARENA_NEW(f->arena, fg_source);
    source_from_string(src, arena_strdup(f->arena, name), arena_strdup(f->arena, text));
    fg_diag d;
    diag_init(&d, src, f->diag_out);
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    fg_kernel *k = NULL;
    if (parse_plan(f->arena, src, &d, &p) < 0 || check_plan(p, &d) < 0 ||
        fuse_plan(f->arena, p, &d, &fz) < 0 || kernel_build(f->arena, fz, &d, &k) < 0) {
        print_error("%s", diag_output(f));
        return NULL;
    }
    return k;
}

static const char *const plan_with_doc =
    "plan rowsum\n"
    "doc \"quotes [[[x]]] `y' m4_define(fg_x, 1) changequote dnl #c @ \\\"q\\\"\"\n"
    "dim R, C\n"
    "axis r: R, c: C\n"
    "input X[r, c]: f32\n"
    "Mx[r] = max(c: X)\n"
    "L[r] = sum(c: exp(X - Mx))\n"
    "LSE[r] = Mx + log(L)\n"
    "output LSE: f32\n"
    "schedule {\n"
    "  reduce c: rolling\n"
    "  tile r = 2, c = 8\n"
    "  target c\n"
    "}\n";

static void real_templates(fixture *f)
{
    f->opt.templates_dir = arena_printf(f->arena, "%s/templates", srcdir());
}

static void plan_doc_comes_out_verbatim(void **state)
{
    fixture *f = *state;
    real_templates(f);
    fg_kernel *fz = fused_from_text(f, "plans/rowsum.fp", plan_with_doc);
    assert_non_null(fz);
    fg_emit_run *run = NULL;
    assert_int_equal(emit_run_begin(&f->opt, &run, &f->diag), 0);
    assert_int_equal(emit_run_plan(run, fz, &f->diag), 0);
    assert_int_equal(emit_run_finish(run, &f->diag), 0);
    const char *doc = "quotes [[[x]]] `y' m4_define(fg_x, 1) changequote dnl #c @ \"q\"";
    char path[512];
    snprintf(path, sizeof path, "%s/fusegen_rowsum.h", f->dir);
    char *h = read_text(path);
    assert_non_null(h);
    assert_non_null(strstr(h, doc));
    assert_non_null(strstr(h, "fg_status fg_rowsum_cpu(const fg_rowsum_args *args);"));
    assert_non_null(strstr(h, "Regenerate: fusegen -o generated plans/rowsum.fp"));
    snprintf(path, sizeof path, "%s/rowsum_cpu.c", f->dir);
    char *c = read_text(path);
    assert_non_null(c);
    assert_non_null(strstr(c, doc));
    assert_int_equal(strncmp(c, "/* DO NOT EDIT: generated by fusegen from plans/rowsum.fp", 57), 0);
    /* the run's files */
    assert_int_equal(count_entries(f->dir), 5);
    snprintf(path, sizeof path, "%s/kernels.mk", f->dir);
    assert_non_null(strstr(read_text(path), "\tgenerated/rowsum_cpu.c \\\n"));
    assert_int_equal(f->diag.errors, 0);
}

static void failing_plan_writes_nothing(void **state)
{
    fixture *f = *state;
    real_templates(f);
    fg_kernel *good = fused_from_text(f, "plans/rowsum.fp", plan_with_doc);
    assert_non_null(good);
    /* the same plan again: a second plan of the same name fails */
    fg_emit_run *run = NULL;
    assert_int_equal(emit_run_begin(&f->opt, &run, &f->diag), 0);
    assert_int_equal(emit_run_plan(run, good, &f->diag), 0);
    assert_int_equal(emit_run_plan(run, good, &f->diag), -1);
    assert_int_equal(emit_run_finish(run, &f->diag), -1);
    assert_int_equal(count_entries(f->dir), 0);
    assert_non_null(strstr(diag_output(f), "a plan named 'rowsum' is already in this run"));
    /* and a run marked failed by the caller (a plan that did not parse) */
    assert_int_equal(emit_run_begin(&f->opt, &run, &f->diag), 0);
    assert_int_equal(emit_run_plan(run, good, &f->diag), 0);
    emit_run_mark_failed(run);
    assert_int_equal(emit_run_finish(run, &f->diag), -1);
    assert_int_equal(count_entries(f->dir), 0);
}

static void missing_template_is_reported(void **state)
{
    fixture *f = *state;
    fg_defs *d = defs_create(f->arena);
    char *out = NULL;
    assert_int_equal(
        emit_render(f->arena, &f->opt, d, "none/such.m4", "x.c", NULL, &out, &f->diag), -1);
    assert_non_null(strstr(diag_output(f), "none/such.m4"));
}

/* print.c: one expression in every dialect; leaves through a callback. */
static void leaf_names(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    (void)pr;
    strbuf_puts(b, e->kind == E_DIM ? "D" : "x");
}

/* The parser's names as axes (the printer sees only resolved leaves). */
static void names_to_axes(fg_expr *e)
{
    if (e->kind == E_NAME)
        e->kind = E_AXIS;
    for (int i = 0; i < e->nargs; i++)
        names_to_axes(e->args[i]);
}

static void printer_dialects_differ_only_in_names(void **state)
{
    fixture *f = *state;
    fg_expr *e = NULL;
    assert_int_equal(parse_expr_string(f->arena, "exp(x - 1.5) * tanh(x) / sqrt(x)", &f->diag, &e),
                     0);
    names_to_axes(e);
    static const struct {
        fg_dialect_id id;
        const char *want;
    } cases[] = {
        {DIALECT_C, "expf(x - 1.5f) * tanhf(x) / sqrtf(x)"},
        {DIALECT_CUDA, "__expf(x - 1.5f) * fa_tanh(x) / sqrtf(x)"},
        {DIALECT_HIP, "__builtin_expf(x - 1.5f) * fa_tanh(x) / __builtin_sqrtf(x)"},
        {DIALECT_HOST, "exp(x - 1.5) * tanh(x) / sqrt(x)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fg_printer pr = {.a = f->arena, .dl = &fg_dialects[cases[i].id], .leaf = leaf_names};
        assert_string_equal(code_expr_text(&pr, e), cases[i].want);
        assert_int_equal(pr.errors, 0);
    }
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(escape_breaks_quotes_and_macro_names),
        T(definitions_come_out_verbatim),
        T(bool_if_selects_and_refuses_other_values),
        T(leftover_macro_is_a_located_error),
        T(unchanged_file_keeps_its_mtime),
        T(plan_doc_comes_out_verbatim),
        T(failing_plan_writes_nothing),
        T(missing_template_is_reported),
        T(printer_dialects_differ_only_in_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
