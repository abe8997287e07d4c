/* test_diag.c - arena, diagnostics, source_read, expression tables and
 * expr_print (generator/arena.c, diag.c, expr.c, dump.c). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generator.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* A diagnostics sink in memory. */
typedef struct fixture {
    fg_arena *a;
    char *buf;
    size_t len;
    FILE *out;
    fg_diag d;
    char path[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = arena_create();
    f->out = open_memstream(&f->buf, &f->len);
    diag_init(&f->d, NULL, f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->out);
    free(f->buf);
    if (f->path[0])
        unlink(f->path);
    arena_destroy(f->a);
    free(f);
    return 0;
}

static const char *output(fixture *f)
{
    fflush(f->out);
    return f->buf;
}

/* Write bytes to a temporary file; its path stays in f->path. */
static const char *temp_file(fixture *f, const void *bytes, size_t n)
{
    strcpy(f->path, "test_diag_XXXXXX");
    int fd = mkstemp(f->path);
    assert_true(fd >= 0);
    FILE *file = fdopen(fd, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, n, file), n);
    fclose(file);
    return f->path;
}

/* ---- arena ------------------------------------------------------------ */

static void test_arena_alloc_is_zeroed_and_aligned(void **state)
{
    fixture *f = *state;
    for (size_t size = 1; size < 300; size += 7) {
        unsigned char *p = arena_alloc(f->a, size);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xab, size);
    }
    /* Larger than a chunk: its own block, still zeroed. */
    unsigned char *big = arena_alloc(f->a, 1u << 20);
    assert_int_equal((uintptr_t)big % 16, 0);
    assert_int_equal(big[0], 0);
    assert_int_equal(big[(1u << 20) - 1], 0);
    /* Small allocations after a big one still work. */
    int *x = ARENA_NEW(f->a, int);
    assert_int_equal(*x, 0);
}

/* Under AddressSanitizer the arena poisons every byte no allocation owns:
 * one byte past an allocation, the gap to the next one and the unused tail
 * of a chunk are reported on access, as they would be for malloc. */
static void test_arena_poisons_what_no_allocation_owns(void **state)
{
#ifdef TEST_ASAN
    fixture *f = *state;
    unsigned char *prev = NULL;
    size_t prev_size = 0;
    for (size_t size = 1; size < 300; size += 7) {
        unsigned char *p = arena_alloc(f->a, size);
        assert_int_equal(__asan_region_is_poisoned(p, size), 0);
        assert_true(__asan_address_is_poisoned(p + size));
        if (prev && p > prev) /* the gap up to this one */
            assert_true(__asan_region_is_poisoned(prev + prev_size,
                                                  (size_t)(p - prev) - prev_size) != 0);
        /* the chunk's tail, beyond the newest allocation */
        assert_true(__asan_address_is_poisoned(p + size + 64));
        prev = p;
        prev_size = size;
    }
    char *s = arena_strdup(f->a, "causal");
    assert_true(__asan_address_is_poisoned(s + 7));
    unsigned char *big = arena_alloc(f->a, (1u << 20) + 3);
    assert_int_equal(__asan_region_is_poisoned(big, (1u << 20) + 3), 0);
    assert_true(__asan_address_is_poisoned(big + (1u << 20) + 3));
#else
    (void)state;
    skip();
#endif
}

static void test_arena_strings(void **state)
{
    fixture *f = *state;
    assert_string_equal(arena_strdup(f->a, "causal"), "causal");
    assert_string_equal(arena_strndup(f->a, "causal_decode", 6), "causal");
    assert_string_equal(arena_printf(f->a, "%s_%d", "S", 42), "S_42");
    /* Longer than the printf fast path's buffer. */
    char *long_text = arena_printf(f->a, "%0500d|", 7);
    assert_int_equal(strlen(long_text), 501);
    assert_int_equal(long_text[499], '7');
    assert_int_equal(long_text[500], '|');
}

static void test_vec_push_keeps_order(void **state)
{
    fixture *f = *state;
    fg_vec v = {0};
    static int values[1000];
    for (int i = 0; i < 1000; i++) {
        values[i] = i * 3;
        vec_push(f->a, &v, &values[i]);
    }
    assert_int_equal(v.len, 1000);
    assert_true(v.cap >= 1000);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(*(int *)v.items[i], i * 3);
}

/* ---- diagnostics ------------------------------------------------------ */

static void test_diag_error_prints_line_and_caret(void **state)
{
    fixture *f = *state;
    fg_source src;
    source_from_string(&src, "plan.fp", "plan x\ndim A, $B\naxis a: A\n");
    f->d.src = &src;
    diag_error(&f->d, (fg_loc){2, 8}, "unexpected character '%c'", '$');
    assert_string_equal(output(f), "plan.fp:2:8: error: unexpected character '$'\n"
                                   "dim A, $B\n"
                                   "       ^\n");
    assert_int_equal(f->d.errors, 1);
    assert_int_equal(f->d.fatal, 0);
}

static void test_diag_caret_keeps_tabs_and_counts_characters(void **state)
{
    fixture *f = *state;
    fg_source src;
    /* "é" is two bytes: column 7 is the byte after it, one character on. */
    source_from_string(&src, "t.fp", "\tdoc \"\xc3\xa9x\"\n");
    f->d.src = &src;
    diag_warning(&f->d, (fg_loc){1, 9}, "look here");
    assert_string_equal(output(f), "t.fp:1:9: warning: look here\n"
                                   "\tdoc \"\xc3\xa9x\"\n"
                                   "\t      ^\n");
    assert_int_equal(f->d.warnings, 1);
    assert_int_equal(f->d.errors, 0);
}

static void test_diag_without_location(void **state)
{
    fixture *f = *state;
    diag_error(&f->d, (fg_loc){3, 4}, "no source: %d", 1);
    fg_source src;
    source_from_string(&src, "p.fp", "plan p\n");
    f->d.src = &src;
    diag_note(&f->d, (fg_loc){0, 0}, "whole file");
    diag_internal(&f->d, (fg_loc){0, 0}, "bug %s", "here");
    assert_string_equal(output(f), "fusegen: error: no source: 1\n"
                                   "p.fp: note: whole file\n"
                                   "p.fp: internal error: bug here\n");
    assert_int_equal(f->d.errors, 2);
    assert_int_equal(f->d.fatal, 1);
}

static void test_diag_stops_printing_at_the_cap(void **state)
{
    fixture *f = *state;
    fg_source src;
    source_from_string(&src, "c.fp", "x\n");
    f->d.src = &src;
    f->d.max_errors = 3;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(diag_full(&f->d), i >= 3);
        diag_error(&f->d, (fg_loc){0, 0}, "error %d", i);
    }
    assert_string_equal(output(f), "c.fp: error: error 0\n"
                                   "c.fp: error: error 1\n"
                                   "c.fp: error: error 2\n"
                                   "c.fp: note: too many errors (3); stopping\n");
    assert_int_equal(f->d.errors, 10);
    assert_true(f->d.muted);
}

static void test_diag_long_line_shows_a_window(void **state)
{
    fixture *f = *state;
    char *line = arena_alloc(f->a, 1002);
    memset(line, 'a', 1000);
    line[500] = '$';
    line[1000] = '\n';
    fg_source src;
    source_from_string(&src, "long.fp", line);
    f->d.src = &src;
    diag_error(&f->d, (fg_loc){1, 501}, "here");
    const char *out = output(f);
    /* Header, then "..." + 120 bytes + "...", then the caret 60 in + 3. */
    const char *l2 = strchr(out, '\n') + 1;
    const char *l3 = strchr(l2, '\n') + 1;
    assert_int_equal(l3 - l2, 3 + 120 + 3 + 1);
    assert_memory_equal(l2, "...", 3);
    assert_int_equal(l2[3 + 60], '$');
    assert_int_equal(strlen(l3), 3 + 60 + 2);
    assert_int_equal(l3[3 + 60], '^');
}

static void test_diag_line_replaces_control_bytes(void **state)
{
    fixture *f = *state;
    static const char text[] = "dim A\x01 B\n";
    fg_source src = {"ctl.fp", text, sizeof text - 1};
    f->d.src = &src;
    diag_error(&f->d, (fg_loc){1, 6}, "bad");
    assert_string_equal(output(f), "ctl.fp:1:6: error: bad\ndim A? B\n     ^\n");
}

/* ---- source_read ------------------------------------------------------- */

static void test_source_read_accepts_utf8_text(void **state)
{
    fixture *f = *state;
    static const char text[] = "plan x\ndoc \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n";
    const char *path = temp_file(f, text, sizeof text - 1);
    fg_source src;
    assert_int_equal(source_read(f->a, path, &src, &f->d), 0);
    assert_int_equal(src.len, sizeof text - 1);
    assert_string_equal(src.text, text);
    assert_string_equal(src.name, path);
    assert_int_equal(f->d.errors, 0);
    assert_string_equal(output(f), "");
}

static void test_source_read_missing_file_is_an_io_error(void **state)
{
    fixture *f = *state;
    fg_source src;
    assert_int_equal(source_read(f->a, "no/such/plan.fp", &src, &f->d), -1);
    assert_string_equal(output(f),
                        "fusegen: error: cannot open 'no/such/plan.fp': No such file or directory\n");
    assert_int_equal(f->d.errors, 1);
    assert_int_equal(f->d.fatal, 1);
}

static void test_source_read_rejects_nul_byte(void **state)
{
    fixture *f = *state;
    static const char bytes[] = "plan x\ndim A\0B\n";
    const char *path = temp_file(f, bytes, sizeof bytes - 1);
    fg_source src;
    assert_int_equal(source_read(f->a, path, &src, &f->d), -1);
    char *want = arena_printf(f->a,
                              "%s:2:6: error: NUL byte in the file: a plan must be UTF-8 text\n"
                              "dim A?B\n"
                              "     ^\n",
                              path);
    assert_string_equal(output(f), want);
    assert_int_equal(f->d.fatal, 0);
}

static void test_source_read_rejects_invalid_utf8(void **state)
{
    fixture *f = *state;
    /* Invalid sequences: a stray continuation byte, an overlong '/', a
     * UTF-16 surrogate, a code point above U+10FFFF, a truncated one. */
    static const struct {
        const char *bytes;
        int col;
        unsigned byte;
    } cases[] = {
        {"plan x\x80\n", 7, 0x80},
        {"plan \xc0\xaf\n", 6, 0xc0},
        {"plan \xed\xa0\x80\n", 6, 0xed},
        {"plan \xf4\x90\x80\x80\n", 6, 0xf4},
        {"plan \xe2\x82", 6, 0xe2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture g = {0};
        g.a = f->a;
        g.out = open_memstream(&g.buf, &g.len);
        diag_init(&g.d, NULL, g.out);
        const char *path = temp_file(&g, cases[i].bytes, strlen(cases[i].bytes));
        fg_source src;
        assert_int_equal(source_read(g.a, path, &src, &g.d), -1);
        char *head = arena_printf(g.a, "%s:1:%d: error: invalid UTF-8 (byte 0x%02x)", path,
                                  cases[i].col, cases[i].byte);
        const char *out = output(&g);
        assert_memory_equal(out, head, strlen(head));
        assert_int_equal(g.d.errors, 1);
        fclose(g.out);
        free(g.buf);
        unlink(g.path);
    }
}

static void test_source_read_rejects_files_over_16_mib(void **state)
{
    fixture *f = *state;
    size_t n = FG_MAX_SOURCE_BYTES + 1;
    char *bytes = malloc(n);
    memset(bytes, ' ', n);
    const char *path = temp_file(f, bytes, n);
    free(bytes);
    fg_source src;
    assert_int_equal(source_read(f->a, path, &src, &f->d), -1);
    char *want = arena_printf(f->a,
                              "%s: error: file is larger than 16 MiB; plans are small text files\n",
                              path);
    assert_string_equal(output(f), want);
}

/* ---- tables ------------------------------------------------------------ */

static void test_tables_follow_the_x_macros(void **state)
{
    (void)state;
    assert_string_equal(fg_expr_kind_names[E_ADD], "ADD");
    assert_string_equal(fg_expr_kind_names[E_REDUCE], "REDUCE");
    assert_int_equal(fg_expr_kind_arity[E_WHERE], 3);
    assert_int_equal(fg_expr_kind_arity[E_NEG], 1);
    assert_int_equal(fg_expr_kind_arity[E_CALL], -1);
    assert_string_equal(fg_func_names[F_EXP], "exp");
    assert_string_equal(fg_func_names[F_RSQRT], "rsqrt");
    assert_string_equal(fg_func_names[F_POW], "pow");
    assert_int_equal(fg_func_arity[F_TANH], 1);
    assert_int_equal(fg_func_arity[F_MAX], 2);
    assert_string_equal(fg_reduce_names[R_MIN], "min");
    assert_string_equal(fg_dtype_names[DT_FP16], "fp16");
    assert_string_equal(fg_form_names[FORM_SPLIT], "split");
    assert_string_equal(fg_role_names[ROLE_RUNNING], "running");
    assert_string_equal(fg_tok_names[TK_LE], "'<='");
    assert_string_equal(fg_tok_names[TK_NEWLINE], "end of line");
}

/* ---- expressions --------------------------------------------------------- */

static fg_expr *var(fixture *f, const char *name)
{
    return expr_ref(f->a, E_AXIS, -1, name);
}

static void test_expr_print_numbers(void **state)
{
    fixture *f = *state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {8, "8"},           {0.5, "0.5"},       {0.1, "0.1"},      {1.0 / 3, "0.3333333333333333"},
        {1e-5, "1e-05"},    {4096, "4096"},     {2.5e20, "2.5e+20"}, {-INFINITY, "-inf"},
        {INFINITY, "inf"},  {-0.25, "-0.25"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = expr_to_string(f->a, NULL, expr_num(f->a, cases[i].v));
        assert_string_equal(s, cases[i].text);
        assert_true(strtod(s, NULL) == cases[i].v);
    }
    assert_string_equal(expr_to_string(f->a, NULL,
                                       expr_unary(f->a, E_NEG, expr_new(f->a, E_INF, (fg_loc){0, 0}, 0))),
                        "-inf");
}

static void test_expr_print_minimal_parentheses(void **state)
{
    fixture *f = *state;
    fg_arena *a = f->a;
    fg_expr *x = var(f, "x"), *y = var(f, "y"), *z = var(f, "z");
    struct {
        fg_expr *e;
        const char *text;
    } cases[] = {
        {expr_binary(a, E_MUL, expr_binary(a, E_ADD, x, y), z), "(x + y) * z"},
        {expr_binary(a, E_ADD, x, expr_binary(a, E_MUL, y, z)), "x + y * z"},
        {expr_binary(a, E_SUB, expr_binary(a, E_SUB, x, y), z), "x - y - z"},
        {expr_binary(a, E_SUB, x, expr_binary(a, E_SUB, y, z)), "x - (y - z)"},
        {expr_binary(a, E_DIV, x, expr_binary(a, E_MUL, y, z)), "x / (y * z)"},
        {expr_unary(a, E_NEG, expr_binary(a, E_POW, x, expr_num(a, 2))), "-x ^ 2"},
        {expr_binary(a, E_POW, expr_unary(a, E_NEG, x), expr_num(a, 2)), "(-x) ^ 2"},
        {expr_binary(a, E_POW, x, expr_binary(a, E_POW, y, z)), "x ^ y ^ z"},
        {expr_binary(a, E_POW, expr_binary(a, E_POW, x, y), z), "(x ^ y) ^ z"},
        {expr_binary(a, E_POW, x, expr_num(a, -1)), "x ^ -1"},
        {expr_binary(a, E_POW, expr_num(a, -2), x), "(-2) ^ x"},
        {expr_binary(a, E_OR, expr_binary(a, E_AND, expr_unary(a, E_NOT, x), y), z), "!x && y || z"},
        {expr_binary(a, E_AND, x, expr_binary(a, E_OR, y, z)), "x && (y || z)"},
        {expr_unary(a, E_NOT, expr_binary(a, E_LT, x, y)), "!(x < y)"},
        {expr_binary(a, E_LE, expr_binary(a, E_LT, x, y), z), "(x < y) <= z"},
        {expr_binary(a, E_LT, expr_binary(a, E_ADD, x, y), expr_binary(a, E_MUL, y, z)), "x + y < y * z"},
        {expr_binary(a, E_MUL, expr_unary(a, E_NEG, x), y), "-x * y"},
        {expr_unary(a, E_NEG, expr_binary(a, E_MUL, x, y)), "-(x * y)"},
        {expr_binary(a, E_SUB, x, expr_num(a, -2)), "x - -2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(expr_to_string(a, NULL, cases[i].e), cases[i].text);
}

static void test_expr_print_special_nodes(void **state)
{
    fixture *f = *state;
    fg_arena *a = f->a;
    fg_expr *prev = expr_ref(a, E_PREV, 2, "Mx");
    fg_expr *cur = expr_ref(a, E_TENSOR, 2, "Mx");
    fg_expr *acc = expr_new(a, E_ACC, (fg_loc){0, 0}, 0);
    fg_expr *corr = expr_binary(a, E_MUL, acc, expr_call1(a, F_EXP, expr_binary(a, E_SUB, prev, cur)));
    assert_string_equal(expr_to_string(a, NULL, corr), "t * exp(Mx_prev - Mx)");

    fg_expr *red = expr_new(a, E_REDUCE, (fg_loc){0, 0}, 1);
    red->op = R_MAX;
    red->reduce_axis_name = "n";
    red->args[0] = var(f, "T");
    fg_expr *w = expr_new(a, E_WHERE, (fg_loc){0, 0}, 3);
    w->args[0] = expr_binary(a, E_LE, var(f, "n"), var(f, "m"));
    w->args[1] = red;
    w->args[2] = expr_unary(a, E_NEG, expr_new(a, E_INF, (fg_loc){0, 0}, 0));
    assert_string_equal(expr_to_string(a, NULL, w), "where(n <= m, max(n: T), -inf)");

    fg_expr *k = expr_ref(a, E_TENSOR, 0, "K");
    k->bracketed = true;
    k->nargs = 2;
    k->args = ARENA_ARRAY(a, fg_expr *, 2);
    k->args[0] = var(f, "b");
    k->args[1] = expr_binary(a, E_DIV, var(f, "h"), var(f, "G"));
    fg_expr *pw = expr_new(a, E_CALL, (fg_loc){0, 0}, 2);
    pw->fn = F_POW;
    pw->args[0] = k;
    pw->args[1] = expr_num(a, 3);
    assert_string_equal(expr_to_string(a, NULL, pw), "pow(K[b, h / G], 3)");

    /* expr_print writes the same text to a stream. */
    expr_print(f->out, NULL, pw);
    assert_string_equal(output(f), "pow(K[b, h / G], 3)");
}

/* Random trees print and parse back to an equal tree. */
static fg_expr *random_tree(fixture *f, unsigned *seed, int depth)
{
    static const fg_expr_kind binary[] = {E_ADD, E_SUB, E_MUL, E_DIV, E_LT, E_LE, E_GT,
                                          E_GE,  E_EQ,  E_NE,  E_AND, E_OR,  E_POW};
    static const char *const names[] = {"a", "b", "c", "Mx"};
    int r = (int)(rand_r(seed) % 10);
    if (depth <= 0 || r < 2) {
        if (rand_r(seed) % 2) {
            fg_expr *e = expr_new(f->a, E_NAME, (fg_loc){0, 0}, 0);
            e->name = names[rand_r(seed) % 4];
            return e;
        }
        return expr_num(f->a, (double)(rand_r(seed) % 1000) / 8);
    }
    if (r < 4)
        return expr_unary(f->a, rand_r(seed) % 2 ? E_NEG : E_NOT, random_tree(f, seed, depth - 1));
    if (r == 4)
        return expr_call1(f->a, F_EXP, random_tree(f, seed, depth - 1));
    fg_expr_kind k = binary[rand_r(seed) % (sizeof binary / sizeof binary[0])];
    if (k == E_POW)
        return expr_binary(f->a, E_POW, random_tree(f, seed, depth - 1),
                           expr_num(f->a, (double)(rand_r(seed) % 5)));
    return expr_binary(f->a, k, random_tree(f, seed, depth - 1), random_tree(f, seed, depth - 1));
}

static void test_expr_print_round_trips_through_the_parser(void **state)
{
    fixture *f = *state;
    unsigned seed = 12345;
    for (int i = 0; i < 2000; i++) {
        fg_expr *e = random_tree(f, &seed, 6);
        char *text = expr_to_string(f->a, NULL, e);
        fg_expr *back = NULL;
        if (parse_expr_string(f->a, text, &f->d, &back) != 0)
            fail_msg("'%s' does not parse: %s", text, output(f));
        if (!expr_equal(e, back))
            fail_msg("'%s' parses back as '%s'", text, expr_to_string(f->a, NULL, back));
    }
}

static void test_expr_clone_and_equal(void **state)
{
    fixture *f = *state;
    fg_arena *a = f->a;
    fg_expr *e = expr_binary(a, E_ADD, var(f, "x"), expr_call1(a, F_LOG, expr_num(a, 2)));
    fg_expr *c = expr_clone(a, e);
    assert_ptr_not_equal(c, e);
    assert_ptr_not_equal(c->args[1], e->args[1]);
    assert_true(expr_equal(e, c));
    c->args[1]->args[0]->num = 3;
    assert_false(expr_equal(e, c));
    assert_false(expr_equal(e, expr_binary(a, E_SUB, var(f, "x"), expr_call1(a, F_LOG, expr_num(a, 2)))));
    assert_false(expr_equal(e, expr_binary(a, E_ADD, var(f, "x"), expr_call1(a, F_EXP, expr_num(a, 2)))));
    assert_false(expr_equal(expr_ref(a, E_TENSOR, 1, "A"), expr_ref(a, E_TENSOR, 2, "A")));
    assert_true(expr_equal(expr_ref(a, E_TENSOR, 1, "A"), expr_ref(a, E_TENSOR, 1, NULL)));
    assert_false(expr_equal(expr_ref(a, E_PREV, 1, "A"), expr_ref(a, E_TENSOR, 1, "A")));
    assert_true(expr_equal(expr_num(a, NAN), expr_num(a, NAN)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(test_arena_alloc_is_zeroed_and_aligned),
        T(test_arena_poisons_what_no_allocation_owns),
        T(test_arena_strings),
        T(test_vec_push_keeps_order),
        T(test_diag_error_prints_line_and_caret),
        T(test_diag_caret_keeps_tabs_and_counts_characters),
        T(test_diag_without_location),
        T(test_diag_stops_printing_at_the_cap),
        T(test_diag_long_line_shows_a_window),
        T(test_diag_line_replaces_control_bytes),
        T(test_source_read_accepts_utf8_text),
        T(test_source_read_missing_file_is_an_io_error),
        T(test_source_read_rejects_nul_byte),
        T(test_source_read_rejects_invalid_utf8),
        T(test_source_read_rejects_files_over_16_mib),
        T(test_tables_follow_the_x_macros),
        T(test_expr_print_numbers),
        T(test_expr_print_minimal_parentheses),
        T(test_expr_print_special_nodes),
        T(test_expr_print_round_trips_through_the_parser),
        T(test_expr_clone_and_equal),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
