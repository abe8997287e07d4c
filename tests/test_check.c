/* test_check.c - the checker (check.c) and the IR dump (dump_ir.c).
 *
 * Every bundled plan must check cleanly and dump exactly as its golden file
 * tests/golden/ir/<plan>.ir (FG_UPDATE_GOLDEN=1 rewrites the goldens; review
 * them by eye before committing).  The other tests check hoisting,
 * classification, order, and the exact message and location of each kind of
 * semantic error.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

typedef struct fixture {
    fg_arena *a;
    fg_source src;
    fg_diag d;
    FILE *errf;
    char *err;
    size_t errlen;
    fg_plan *p;
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    fx->a = arena_create();
    fx->errf = open_memstream(&fx->err, &fx->errlen);
    if (!fx->errf)
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    fclose(fx->errf);
    free(fx->err);
    arena_destroy(fx->a);
    free(fx);
    return 0;
}

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* Parses (which must succeed) and checks a plan; returns check_plan's
 * status with the messages in fx->err. */
static int check_text(fixture *fx, const char *text)
{
    source_from_string(&fx->src, "t.fp", text);
    diag_init(&fx->d, &fx->src, fx->errf);
    int rc = parse_plan(fx->a, &fx->src, &fx->d, &fx->p);
    fflush(fx->errf);
    if (rc != 0)
        fail_msg("the test plan does not parse:\n%s", fx->err);
    rc = check_plan(fx->p, &fx->d);
    fflush(fx->errf);
    return rc;
}

static int check_file(fixture *fx, const char *path)
{
    diag_init(&fx->d, NULL, fx->errf);
    if (source_read(fx->a, path, &fx->src, &fx->d) != 0)
        return -1;
    diag_init(&fx->d, &fx->src, fx->errf);
    if (parse_plan(fx->a, &fx->src, &fx->d, &fx->p) != 0)
        return -1;
    int rc = check_plan(fx->p, &fx->d);
    fflush(fx->errf);
    return rc;
}

/* The n-th line (from 0) of the messages that start with the file name:
 * the diagnostics themselves, without source lines and carets. */
static char *message(fixture *fx, int n)
{
    fflush(fx->errf);
    const char *s = fx->err ? fx->err : "";
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (strncmp(s, "t.fp:", 5) == 0 && n-- == 0)
            return arena_strndup(fx->a, s, len);
        s += len + (end ? 1 : 0);
    }
    return arena_strdup(fx->a, "(no such message)");
}

static int find_tensor(fixture *fx, const char *name)
{
    int t = plan_find_tensor(fx->p, name);
    if (t < 0)
        fail_msg("no tensor '%s'", name);
    return t;
}

/* A tensor's axes as "b, h, m, n". */
static char *axes_of(fixture *fx, const fg_ir_tensor *t)
{
    char *s = "";
    for (int i = 0; i < t->naxes; i++)
        s = arena_printf(fx->a, "%s%s%s", s, i ? ", " : "", fx->p->axes[t->axes[i]].name);
    return s;
}

/* ------------------------------------------------------------------ */
/* The bundled plans and their golden IR                               */
/* ------------------------------------------------------------------ */

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *read_text(fg_arena *a, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = getc(f)) != EOF)
        putc(c, m);
    fclose(f);
    fclose(m);
    char *s = arena_strdup(a, buf);
    free(buf);
    return s;
}

static void test_every_bundled_plan_checks_and_matches_its_golden_ir(void **state)
{
    fixture *fx = *state;
    const char *dir = arena_printf(fx->a, "%s/plans", srcdir());
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    char *names[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 3 && strcmp(de->d_name + len - 3, ".fp") == 0 && n < 256)
            names[n++] = arena_strndup(fx->a, de->d_name, len - 3);
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    assert_true(n >= 13);
    bool update = getenv("FG_UPDATE_GOLDEN") && strcmp(getenv("FG_UPDATE_GOLDEN"), "1") == 0;
    int mismatches = 0;
    for (int i = 0; i < n; i++) {
        fixture one = {.a = fx->a, .errf = fx->errf};
        const char *path = arena_printf(fx->a, "%s/%s.fp", dir, names[i]);
        if (check_file(&one, path) != 0)
            fail_msg("%s does not check:\n%s", path, fx->err);
        char *ir = NULL;
        size_t irlen = 0;
        FILE *m = open_memstream(&ir, &irlen);
        dump_ir(m, one.p);
        fclose(m);
        const char *golden = arena_printf(fx->a, "%s/tests/golden/ir/%s.ir", srcdir(), names[i]);
        if (update) {
            FILE *g = fopen(golden, "wb");
            assert_non_null(g);
            fputs(ir, g);
            fclose(g);
        } else {
            const char *want = read_text(fx->a, golden);
            if (!want || strcmp(want, ir) != 0) {
                print_error("%s differs from dump_ir of %s:\n%s", golden, path, ir);
                mismatches++;
            }
        }
        free(ir);
    }
    assert_int_equal(mismatches, 0);
}

/* ------------------------------------------------------------------ */
/* Resolution, hoisting, classification, order                         */
/* ------------------------------------------------------------------ */

static void test_causal_hoists_nested_reductions_into_named_statements(void **state)
{
    fixture *fx = *state;
    const char *path = arena_printf(fx->a, "%s/plans/causal.fp", srcdir());
    assert_int_equal(check_file(fx, path), 0);
    fg_plan *p = fx->p;

    int s_sum = find_tensor(fx, "S_sum"), s = find_tensor(fx, "S");
    fg_ir_tensor *t = &p->tensors[s_sum];
    assert_true(t->hoisted);
    assert_int_equal(t->hoisted_from, s);
    assert_string_equal(axes_of(fx, t), "b, h, m, n");
    /* S[b, h, m, n] = sum(d: Q * K) * scale: the sum is at line 14, col 17 */
    assert_int_equal(t->loc.line, 14);
    assert_int_equal(t->loc.col, 17);
    assert_string_equal(expr_to_string(fx->a, p, t->rhs), "sum(d: Q * K)");
    /* S now reads the hoisted statement */
    const fg_expr *rhs = p->tensors[s].rhs;
    assert_int_equal(rhs->kind, E_MUL);
    assert_int_equal(rhs->args[0]->kind, E_TENSOR);
    assert_int_equal(rhs->args[0]->ref, s_sum);
    assert_int_equal(rhs->args[1]->kind, E_PARAM);

    int o_sum = find_tensor(fx, "O_sum"), o = find_tensor(fx, "O");
    t = &p->tensors[o_sum];
    assert_true(t->hoisted);
    assert_int_equal(t->hoisted_from, o);
    assert_string_equal(axes_of(fx, t), "b, h, m, d");
    assert_int_equal(t->loc.line, 19);
    assert_int_equal(t->loc.col, 17);
    assert_string_equal(expr_to_string(fx->a, p, p->tensors[o].rhs), "O_sum / L");
    /* hoisted statements come after the plan's own tensors */
    assert_int_equal(s_sum, 10);
    assert_int_equal(o_sum, 11);
    assert_int_equal(p->ntensors, 12);
    assert_false(p->tensors[s].hoisted);
    assert_int_equal(p->tensors[s].hoisted_from, -1);
}

static void test_causal_statements_are_classified(void **state)
{
    fixture *fx = *state;
    const char *path = arena_printf(fx->a, "%s/plans/causal.fp", srcdir());
    assert_int_equal(check_file(fx, path), 0);
    static const struct {
        const char *name;
        fg_stmt_class cls;
        fg_reduce_op op;
        const char *axis;
    } want[] = {
        {"S_sum", CLASS_CONTRACTION, R_SUM, "d"}, {"S", CLASS_ELEMENTWISE, R_SUM, NULL},
        {"T", CLASS_ELEMENTWISE, R_SUM, NULL},    {"Mx", CLASS_REDUCTION, R_MAX, "n"},
        {"P", CLASS_ELEMENTWISE, R_SUM, NULL},    {"L", CLASS_REDUCTION, R_SUM, "n"},
        {"O_sum", CLASS_CONTRACTION, R_SUM, "n"}, {"O", CLASS_ELEMENTWISE, R_SUM, NULL},
        {"LSE", CLASS_ELEMENTWISE, R_SUM, NULL},
    };
    fg_plan *p = fx->p;
    assert_int_equal(p->norder, 9);
    for (int i = 0; i < 9; i++) {
        const fg_ir_tensor *t = &p->tensors[p->order[i]];
        assert_string_equal(t->name, want[i].name);
        assert_int_equal(t->cls, want[i].cls);
        if (want[i].axis) {
            assert_int_equal(t->op, want[i].op);
            assert_string_equal(p->axes[t->red_axis].name, want[i].axis);
            assert_ptr_equal(t->body, t->rhs->args[0]);
        } else {
            assert_int_equal(t->red_axis, -1);
            assert_null(t->body);
        }
    }
    /* masks: P over b, h, m, n (bits 0-3); Mx over b, h, m */
    assert_int_equal(p->tensors[find_tensor(fx, "P")].axis_mask, 0xf);
    assert_int_equal(p->tensors[find_tensor(fx, "Mx")].axis_mask, 0x7);
    assert_int_equal(p->tensors[find_tensor(fx, "O")].axis_mask, 0x17);
    assert_int_equal(p->sched.reduce_axis, 3);
}

#define PRE                                                                                \
    "plan t\n"                                                                             \
    "dim B, H, M, N, D\n"                                                                  \
    "axis b: B, h: H, m: M, n: N, d: D\n"                                                  \
    "param scale: f32 = rsqrt(D)\n"                                                        \
    "input Q[b, h, m, d]: bf16\n"                                                          \
    "input K[b, h, n, d]: bf16\n"                                                          \
    "input V[b, h, n, d]: bf16\n"
/* statements start at line 8 */

static void test_resolution_types_and_axes_of_reads(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K[b, h, n, d]) * scale\n"
                                        "Y[b, h, m, n] = S / D + (n - m)\n"
                                        "output Y: f32\n"),
                     0);
    fg_plan *p = fx->p;
    const fg_expr *y = p->tensors[find_tensor(fx, "Y")].rhs;
    assert_int_equal(y->type, T_FLOAT);
    assert_int_equal(y->axes, 0xf);
    const fg_expr *div = y->args[0], *diff = y->args[1];
    assert_int_equal(div->args[0]->kind, E_TENSOR);
    assert_false(div->args[0]->bracketed);
    assert_int_equal(div->args[0]->nargs, 4); /* S read at its declared axes */
    assert_int_equal(div->args[1]->kind, E_DIM);
    assert_int_equal(div->args[1]->type, T_INT);
    assert_int_equal(diff->type, T_INT);
    assert_int_equal(diff->axes, 0xc);
    const fg_expr *body = p->tensors[find_tensor(fx, "S_sum")].body;
    assert_int_equal(body->args[0]->kind, E_TENSOR);
    assert_int_equal(body->args[0]->axes, 0x17);  /* Q: b, h, m, d */
    assert_int_equal(body->args[1]->axes, 0x1b);  /* K: b, h, n, d */
    /* with no schedule the plan fuses over d, S_sum's axis: there a product
     * of two inputs is a row reduction (a contraction over the fused axis is
     * a per-key statement times an input) */
    assert_int_equal(p->sched.reduce_axis, plan_find_axis(p, "d"));
    assert_int_equal(p->tensors[find_tensor(fx, "S_sum")].cls, CLASS_REDUCTION);
    /* FNV-1a 64 of the text above, computed independently (Python) */
    assert_string_equal(p->hash, "70a3772a4dc43d8b");
}

/* A tensor times itself is a square, not a contraction (issue 13: sum(c:
 * X * X) was refused as a contraction of two inputs while sum(c: X ^ 2)
 * was accepted); over the fused axis only (a per-key statement) * (an
 * input) is a contraction, any other product a row reduction. */
static void test_products_that_are_not_contractions(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "Qn[b, h, m] = sum(d: Q * Q)\n"
                                        "S[b, h, m, n] = sum(d: Q * K)\n"
                                        "Mx[b, h, m] = max(n: S)\n"
                                        "P[b, h, m, n] = exp(S - Mx)\n"
                                        "O[b, h, m, d] = sum(n: P * V)\n"
                                        "KV[b, h, d] = sum(n: K * V)\n"
                                        "KK[b, h, d] = sum(n: 2 * K * K)\n"
                                        "PP[b, h, m] = sum(n: P * P)\n"
                                        "output Qn: f32, O: f32, KV: f32, KK: f32, PP: f32\n"
                                        "schedule {\n  reduce n: rolling\n}\n"),
                     0);
    fg_plan *p = fx->p;
    assert_int_equal(p->tensors[find_tensor(fx, "Qn")].cls, CLASS_REDUCTION);
    assert_int_equal(p->tensors[find_tensor(fx, "S")].cls, CLASS_CONTRACTION);
    assert_int_equal(p->tensors[find_tensor(fx, "O")].cls, CLASS_CONTRACTION);
    assert_int_equal(p->tensors[find_tensor(fx, "KV")].cls, CLASS_REDUCTION);
    assert_int_equal(p->tensors[find_tensor(fx, "KK")].cls, CLASS_REDUCTION);
    assert_int_equal(p->tensors[find_tensor(fx, "PP")].cls, CLASS_REDUCTION);
    assert_int_equal(p->tensors[find_tensor(fx, "KV")].op, R_SUM);
    assert_string_equal(p->axes[p->tensors[find_tensor(fx, "KV")].red_axis].name, "n");
}

static void test_reads_of_an_input_indexed_by_an_expression(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan g\n"
                                    "dim B, Hq, Hkv, N, D\n"
                                    "axis b: B, h: Hq, n: N, d: D\n"
                                    "param G: int = Hq / Hkv\n"
                                    "input K[b, h / G, n, d]: bf16[B, Hkv, N, D]\n"
                                    "X[b, h, n, d] = K[b, h, n, d] + K[b, h / G, n, d] + K\n"
                                    "Y[b, h, n, d] = K[b, h + 1, n, d]\n"
                                    "output X: f32, Y: f32\n"),
                     0);
    /* a read without an index list carries the declared index h / G; a
     * written list is the read's own (a gather: issue 13) */
    const fg_expr *x = fx->p->tensors[find_tensor(fx, "X")].rhs;
    assert_string_equal(expr_to_string(fx->a, fx->p, x->args[0]->args[0]->args[1]), "h");
    assert_string_equal(expr_to_string(fx->a, fx->p, x->args[0]->args[1]->args[1]), "h / G");
    assert_string_equal(expr_to_string(fx->a, fx->p, x->args[1]->args[1]), "h / G");
    assert_int_equal(x->args[1]->args[1]->type, T_INT);
    assert_int_equal(x->args[1]->axes, 0xf);
    const fg_expr *y = fx->p->tensors[find_tensor(fx, "Y")].rhs;
    assert_string_equal(expr_to_string(fx->a, fx->p, y->args[1]), "h + 1");
    assert_int_equal(fx->p->tensors[find_tensor(fx, "K")].index[1]->args[1]->kind, E_PARAM);
}

/* Issue 13's language: i32 inputs compared in a mask, one input read at
 * two axes, gathers through clamp over several axes; indices must be ints
 * and the count must match the declaration. */
static void test_i32_inputs_gathers_and_clamp(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan g\n"
                                    "dim M, N, R\n"
                                    "axis m: M, n: N, r: R\n"
                                    "param c: int = 2\n"
                                    "input X[m, n]: f32\n"
                                    "input seg[n]: i32\n"
                                    "input T[r]: f32\n"
                                    "Y[m, n] = where(seg == seg[m], X + T[clamp(n - m + c, 0, R - 1)], -inf)\n"
                                    "Z[m] = max(n: Y)\n"
                                    "output Z: f32\n"),
                     0);
    fg_plan *p = fx->p;
    const fg_ir_tensor *seg = &p->tensors[find_tensor(fx, "seg")];
    assert_int_equal(seg->dtype, DT_INT);
    const fg_expr *y = p->tensors[find_tensor(fx, "Y")].rhs;
    const fg_expr *eq = y->args[0];
    assert_int_equal(eq->kind, E_EQ);
    assert_int_equal(eq->args[0]->type, T_INT);
    assert_int_equal(eq->args[0]->axes, 1u << plan_find_axis(p, "n"));
    assert_int_equal(eq->args[1]->axes, 1u << plan_find_axis(p, "m"));
    /* clamp(x, lo, hi) is min(max(x, lo), hi), printed back as clamp */
    const fg_expr *t = y->args[1]->args[1];
    assert_int_equal(t->kind, E_TENSOR);
    assert_int_equal(t->args[0]->kind, E_CALL);
    assert_int_equal(t->args[0]->fn, F_MIN);
    assert_int_equal(t->args[0]->args[0]->fn, F_MAX);
    assert_int_equal(t->args[0]->type, T_INT);
    assert_string_equal(expr_to_string(fx->a, p, t), "T[clamp(n - m + c, 0, R - 1)]");
    assert_int_equal(t->axes, (1u << plan_find_axis(p, "m")) | (1u << plan_find_axis(p, "n")));

    fx->d.errors = 0;
    assert_int_equal(check_text(fx, "plan g\n"
                                    "dim M, N\n"
                                    "axis m: M, n: N\n"
                                    "input X[m, n]: f32\n"
                                    "input T[n]: f32\n"
                                    "Y[m, n] = X + T[X] + T[m, n]\n"
                                    "output Y: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:6:17: error: expected an int as index 1 of 'T', but found a float");
    assert_string_equal(message(fx, 1), "t.fp:6:22: error: 'T' has 1 index, but 2 were given");
}

static void test_hoisted_name_collision_gets_a_suffix_and_inner_is_first(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "O_sum[b, h, m] = max(n: sum(d: Q * K))\n"
                                        "O[b, h, m, d] = sum(n: V * exp(sum(d: Q * K) - O_sum)) + 1\n"
                                        "output O: f32\n"),
                     0);
    fg_plan *p = fx->p;
    /* O_sum's inner sum over d becomes O_sum_sum; O's inner sum O_sum_2
     * (innermost first), then O's outer sum O_sum_3 */
    int inner0 = find_tensor(fx, "O_sum_sum");
    int inner = find_tensor(fx, "O_sum_2"), outer = find_tensor(fx, "O_sum_3");
    assert_true(inner0 < inner && inner < outer);
    assert_string_equal(axes_of(fx, &p->tensors[inner]), "b, h, m, n");
    assert_string_equal(axes_of(fx, &p->tensors[outer]), "b, h, m, d");
    assert_int_equal(p->tensors[inner].cls, CLASS_CONTRACTION);
    assert_int_equal(p->tensors[outer].cls, CLASS_REDUCTION);
    assert_int_equal(p->tensors[outer].hoisted_from, find_tensor(fx, "O"));
    assert_string_equal(expr_to_string(fx->a, p, p->tensors[outer].rhs),
                        "sum(n: V * exp(O_sum_2 - O_sum))");
}

static void test_forward_reads_are_ordered_and_a_missing_schedule_defaults(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan f\n"
                                    "dim R, C\n"
                                    "axis r: R, c: C\n"
                                    "input X[r, c]: f32\n"
                                    "Y[r, c] = E / L\n"
                                    "L[r] = sum(c: E)\n"
                                    "E[r, c] = exp(X - Mx)\n"
                                    "Mx[r] = max(c: X)\n"
                                    "output Y: f32\n"),
                     0);
    fg_plan *p = fx->p;
    const char *want[] = {"Mx", "E", "L", "Y"};
    assert_int_equal(p->norder, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(p->tensors[p->order[i]].name, want[i]);
    assert_false(p->sched.present);
    assert_int_equal(p->sched.reduce_axis, 1); /* c, which L (the last reduction) reduces */
    assert_int_equal(p->sched.form, FORM_ROLLING);
    assert_int_equal(p->sched.ntiles, 0);
    char *ir = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&ir, &len);
    dump_ir(m, p);
    fclose(m);
    assert_non_null(strstr(ir, "\nMx[r] : f32 = max(c: X[r, c])   # reduction max over c, line 8\n"
                               "E[r, c] : f32 = exp(X[r, c] - Mx[r])   # elementwise, line 7\n"));
    assert_non_null(strstr(ir, "\nschedule (default)\n  reduce c: rolling\n"
                               "  target cuda, hip, c\n"));
    free(ir);
}

static void test_schedule_settings_are_validated(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan f\n"
                                    "dim R, C\n"
                                    "axis r: R, c: C\n"
                                    "input X[r, c]: f32\n"
                                    "Mx[r] = max(c: X)\n"
                                    "output Mx: f32\n"
                                    "schedule {\n"
                                    "  reduce c: rolling\n"
                                    "  tile r = 4, q = 2048, r = 8\n"
                                    "  tune {\n"
                                    "    tile c = {64, 100}\n"
                                    "    splits = {2, 4}\n"
                                    "  }\n"
                                    "}\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:15: error: unknown identifier 'q'");
    assert_string_equal(message(fx, 1), "t.fp:9:15: error: tile size 2048 for 'q' must be a "
                                        "power of two from 1 to 1024");
    assert_string_equal(message(fx, 2), "t.fp:9:25: error: tile size for 'r' given twice");
    assert_string_equal(message(fx, 3), "t.fp:11:10: error: tune tile size 100 for 'c' must be "
                                        "a power of two or a multiple of 16, at most 1024");
    assert_string_equal(message(fx, 4), "t.fp:12:5: error: 'splits' can be tuned only in a "
                                        "'split' schedule");
    assert_int_equal(fx->d.errors, 5);
}

/* A plan of n statements S0..S{n-1}, each reading the one before, written
 * in reverse; with `cycle`, S0 reads the last one. */
static char *chain_plan(fixture *fx, int n, bool cycle)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fputs("plan chain\ndim R\naxis r: R\ninput X[r]: f32\n", m);
    for (int i = n - 1; i > 0; i--)
        fprintf(m, "S%d[r] = S%d * 2\n", i, i - 1);
    if (cycle)
        fprintf(m, "S0[r] = X + S%d\n", n - 1);
    else
        fputs("S0[r] = X + 1\n", m);
    fprintf(m, "output S%d: f32\n", n - 1);
    fclose(m);
    char *text = arena_strdup(fx->a, buf);
    free(buf);
    return text;
}

static void test_a_long_chain_is_ordered_without_deep_recursion(void **state)
{
    fixture *fx = *state;
    enum { N = 50000 };
    assert_int_equal(check_text(fx, chain_plan(fx, N, false)), 0);
    assert_int_equal(fx->p->norder, N);
    for (int i = 0; i < N; i += 997)
        assert_string_equal(fx->p->tensors[fx->p->order[i]].name,
                            arena_printf(fx->a, "S%d", i));
}

static void test_a_long_cycle_is_shortened_in_its_message(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, chain_plan(fx, 12, true)), -1);
    /* S11 is written first (line 5); it reads S10, ..., S0 reads S11 */
    assert_string_equal(message(fx, 0),
                        "t.fp:5:1: error: cycle between statements: S11 -> S10 -> S9 -> S8 -> "
                        "S7 -> S6 -> S5 -> S4 -> ... (3 more) -> S0 -> S11");
    assert_int_equal(fx->d.errors, 1);
}

static void test_an_operator_chain_deeper_than_the_limit_is_an_error(void **state)
{
    fixture *fx = *state;
    /* X + X + ... with 300 terms is a left-leaning tree of 299 '+' nodes:
     * the node 257 levels below the root is the 42nd '+', at column
     * 8 + 4 * 41 + 2 = 174 of "A[r] = X + X + ..." */
    char *text = "plan w\ndim R\naxis r: R\ninput X[r]: f32\nA[r] = X";
    for (int i = 1; i < 300; i++)
        text = arena_printf(fx->a, "%s + X", text);
    text = arena_printf(fx->a, "%s\noutput A: f32\n", text);
    assert_int_equal(check_text(fx, text), -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:5:174: error: expression nested deeper than 256 levels");
    assert_int_equal(fx->d.errors, 1);
}

/* ------------------------------------------------------------------ */
/* Errors: exact message and location                                  */
/* ------------------------------------------------------------------ */

static void test_unknown_identifier_suggests_a_close_name(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "Mx[b, h, n] = max(d: K)\n"
                                        "P[b, h, n, d] = exp(K - Mxx)\n"
                                        "Z[b, h, n, d] = P + zzz\n"
                                        "W[b, h, n, d] = P * scael\n"
                                        "output Z: f32, W: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:25: error: unknown identifier 'Mxx'; "
                                        "did you mean 'Mx'?");
    assert_string_equal(message(fx, 1), "t.fp:10:21: error: unknown identifier 'zzz'");
    /* two edits away (a transposition counts two) */
    assert_string_equal(message(fx, 2), "t.fp:11:21: error: unknown identifier 'scael'; "
                                        "did you mean 'scale'?");
    assert_int_equal(fx->d.errors, 3);
}

static void test_wrong_number_of_indices(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                        "T[b, h, m, n] = S[b, h, m] + 1\n"
                                        "output T: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:17: error: 'S' has 4 indices, but 3 were given");
    assert_int_equal(fx->d.errors, 1);
}

static void test_axis_used_inconsistently_with_its_definition(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                        "T[b, h, m, n] = S[b, h, n, m] + 1\n"
                                        "output T: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:9:25: error: axis 'n' used where 'S' was defined with 'm' "
                        "(position 3)");
    assert_string_equal(message(fx, 1),
                        "t.fp:9:28: error: axis 'm' used where 'S' was defined with 'n' "
                        "(position 4)");
    assert_int_equal(fx->d.errors, 2);
}

static void test_reduction_over_an_axis_its_operand_lacks(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "Mx[b, h, m] = max(d: Q)\n"
                                        "L[b, h, m] = sum(n: exp(Mx))\n"
                                        "output L: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:14: error: reduction over 'n', but its operand "
                                        "does not depend on 'n'");
    assert_int_equal(fx->d.errors, 1);
}

static void test_right_side_depends_on_an_axis_missing_on_the_left(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m] = Q + 1\n"
                                        "output S: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:8:14: error: 'S' is defined over [b, h, m] but "
                                        "its right side depends on 'd'");
}

static void test_cycle_between_statements_is_reported_once(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "A[b, h, m, d] = Q + F\n"
                                        "E[b, h, m, d] = A * 2\n"
                                        "F[b, h, m, d] = E - 1\n"
                                        "G[b, h, m, d] = A + F\n"
                                        "output G: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:8:1: error: cycle between statements: A -> F -> E -> A");
    assert_int_equal(fx->d.errors, 1);
}

/* `output` names are attached to statements by parse_plan, which reports
 * the two errors below; the checker adds "no output at all". */
static int front_end(fixture *fx, const char *text)
{
    source_from_string(&fx->src, "t.fp", text);
    diag_init(&fx->d, &fx->src, fx->errf);
    int rc = parse_plan(fx->a, &fx->src, &fx->d, &fx->p);
    if (rc == 0)
        rc = check_plan(fx->p, &fx->d);
    fflush(fx->errf);
    return rc;
}

static void test_output_that_is_never_defined(void **state)
{
    fixture *fx = *state;
    assert_int_equal(front_end(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                       "output S: f32, Z: bf16\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:9:16: error: output 'Z' is not defined by any statement");
    assert_int_equal(fx->d.errors, 1);
}

static void test_output_that_is_an_input(void **state)
{
    fixture *fx = *state;
    assert_int_equal(front_end(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                       "output S: f32, Q: bf16\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:9:16: error: output 'Q' is an input; outputs are statements");
}

static void test_plan_without_outputs(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"), -1);
    assert_string_equal(message(fx, 0), "t.fp:1:6: error: plan 't' has no output");
    assert_int_equal(fx->d.errors, 1);
}

/* A plan that declares no name leaves the checker's name table empty:
 * looking a name up in it is an error like any unknown name, not a crash. */
static void test_a_plan_that_declares_nothing(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan p\nschedule { reduce c: rolling }\n"), -1);
    assert_string_equal(message(fx, 0), "t.fp:1:6: error: plan 'p' has no output");
    assert_string_equal(message(fx, 1), "t.fp:2:19: error: unknown identifier 'c'");
    assert_int_equal(fx->d.errors, 2);
}

/* Hoisted statements are appended after the plan's own tensors, and the
 * per-sequence check walks them too: the per-tensor flags it reads must
 * cover them.  The sizes below put the flags of the hoisted statements
 * past a table sized for the plan's own tensors (plus one); under the
 * sanitizers the old code read out of bounds there (UBSan: "load of value
 * 64 ... _Bool"), and the second hoisted statement's error could be
 * skipped. */
static void test_hoisted_statements_are_checked_for_per_sequence_extents(void **state)
{
    fixture *fx = *state;
    fg_strbuf b = {.a = fx->a};
    strbuf_puts(&b, "plan t\ndim B, M, N[b]\naxis b: B, m: M, n: N\n"
                    "input A105[b]: f32\n");
    for (int i = 2; i <= 14; i++)
        strbuf_printf(&b, "input I%d[b]: f32\n", i);
    strbuf_puts(&b, "X[b, m] = sum(n: n * 1.0) * 2 + sum(n: n * 2.0)\n"
                    "output X: f32\n");
    assert_int_equal(check_text(fx, strbuf_str(&b)), -1);
    assert_string_equal(message(fx, 0), "t.fp:18:11: error: 'X' reduces over 'n', whose "
                                        "extent N varies per 'b', so it must carry 'b' too");
    assert_string_equal(message(fx, 1), "t.fp:18:33: error: 'X' reduces over 'n', whose "
                                        "extent N varies per 'b', so it must carry 'b' too");
    assert_int_equal(fx->d.errors, 2);
}

/* plans/gqa_decode.fp with unused inputs added checks cleanly (the same
 * out-of-bounds read as above, with a real plan). */
static void test_a_decode_plan_with_extra_inputs_checks(void **state)
{
    fixture *fx = *state;
    char *path = arena_printf(fx->a, "%s/plans/gqa_decode.fp", srcdir());
    char *text = read_text(fx->a, path);
    assert_non_null(text);
    const char *anchor = "input V[b, h / G, n, d]: bf16[B, Hkv, N, D]\n";
    char *at = strstr(text, anchor);
    assert_non_null(at);
    at += strlen(anchor);
    char *plan = arena_printf(fx->a, "%.*sinput X1[b]: f32\ninput X2[b]: f32\n"
                                     "input X3[b]: f32\ninput X4[b]: f32\n"
                                     "input X5[b]: f32\n%s",
                              (int)(at - text), text, at);
    assert_int_equal(check_text(fx, plan), 0);
    assert_int_equal(fx->d.errors, 0);
}

static void test_type_errors_say_what_was_expected_and_found(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                        "T[b, h, m, n] = where(S, 1, 0)\n"
                                        "U[b, h, m, n] = exp(n <= m) + (m < n && 3)\n"
                                        "W[b, h, m, n] = S ^ m\n"
                                        "X[b, h, m, n] = m > n\n"
                                        "output T: f32, U: f32, W: f32, X: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:23: error: expected a boolean as the condition "
                                        "of 'where', but found a float");
    assert_string_equal(message(fx, 1), "t.fp:10:21: error: expected a number as the argument "
                                        "of 'exp', but found a boolean");
    assert_string_equal(message(fx, 2), "t.fp:10:41: error: expected a boolean as an operand "
                                        "of '&&', but found an int");
    assert_string_equal(message(fx, 3), "t.fp:11:21: error: the exponent of '^' must be a "
                                        "constant number");
    assert_string_equal(message(fx, 4), "t.fp:12:17: error: expected a number as the right "
                                        "side of 'X', but found a boolean");
    assert_int_equal(fx->d.errors, 5);
}

static void test_duplicate_definition_points_at_the_first(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, PRE "S[b, h, m, n] = sum(d: Q * K)\n"
                                        "K[b, h, m, n] = S * 2\n"
                                        "output S: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:9:1: error: duplicate definition of 'K'");
    assert_string_equal(message(fx, 1), "t.fp:6:7: note: previous definition is here");
    assert_int_equal(fx->d.errors, 1);
}

static void test_failed_declarations_do_not_cascade(void **state)
{
    fixture *fx = *state;
    /* S's left side is wrong: reads of S stay silent, but an independent
     * error on the same line as a read is still reported */
    assert_int_equal(check_text(fx, PRE "S[b, h, q, n] = sum(d: Q * K)\n"
                                        "T[b, h, m, n] = S[b, m] + exp(S) + Zed\n"
                                        "output T: f32\n"),
                     -1);
    assert_string_equal(message(fx, 0), "t.fp:8:9: error: unknown identifier 'q'");
    assert_string_equal(message(fx, 1), "t.fp:9:36: error: unknown identifier 'Zed'");
    assert_int_equal(fx->d.errors, 2);
}

static void test_inputs_params_and_schedule_are_validated(void **state)
{
    fixture *fx = *state;
    assert_int_equal(check_text(fx, "plan t\n"
                                    "dim R, C\n"
                                    "axis r: R, c: C, k: Cx\n"
                                    "param G: int = 2.5\n"
                                    "param s: f32 = r + 1\n"
                                    "input X[r, c / G]: f32\n"
                                    "input Y[r + c, r]: f32[R, C]\n"
                                    "input W[c, c]: f32\n"
                                    "Z[r] = sum(c: X)\n"
                                    "output Z: f32\n"
                                    "schedule {\n"
                                    "  reduce r: rolling\n"
                                    "  tile c = 48\n"
                                    "  splits = 2\n"
                                    "}\n"),
                     -1);
    assert_string_equal(message(fx, 0),
                        "t.fp:3:21: error: unknown identifier 'Cx'; did you mean 'C'?");
    assert_string_equal(message(fx, 1), "t.fp:4:16: error: expected an int as the default of "
                                        "'G', but found a float");
    assert_string_equal(message(fx, 2),
                        "t.fp:5:16: error: the default of 's' cannot depend on axis 'r'");
    assert_string_equal(message(fx, 3),
                        "t.fp:6:12: error: index 2 of 'X' is not a plain axis, so its stored "
                        "extents are needed: write 'X[...]: f32[DIM, ...]'");
    assert_string_equal(message(fx, 4),
                        "t.fp:7:9: error: index 1 of 'Y' uses more than one axis");
    assert_string_equal(message(fx, 5), "t.fp:8:12: error: axis 'c' appears in more than one "
                                        "index of 'W'");
    assert_string_equal(message(fx, 6), "t.fp:12:10: error: the schedule reduces over 'r', but "
                                        "no statement does");
    assert_string_equal(message(fx, 7), "t.fp:13:8: error: tile size 48 for 'c' must be a "
                                        "power of two from 1 to 1024");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_bundled_plan_checks_and_matches_its_golden_ir,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_causal_hoists_nested_reductions_into_named_statements,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_causal_statements_are_classified, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolution_types_and_axes_of_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_products_that_are_not_contractions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_i32_inputs_gathers_and_clamp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_of_an_input_indexed_by_an_expression, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_hoisted_name_collision_gets_a_suffix_and_inner_is_first, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_forward_reads_are_ordered_and_a_missing_schedule_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schedule_settings_are_validated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_long_chain_is_ordered_without_deep_recursion,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_long_cycle_is_shortened_in_its_message, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_operator_chain_deeper_than_the_limit_is_an_error,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_identifier_suggests_a_close_name, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_wrong_number_of_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_axis_used_inconsistently_with_its_definition, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reduction_over_an_axis_its_operand_lacks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_right_side_depends_on_an_axis_missing_on_the_left,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_cycle_between_statements_is_reported_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_output_that_is_never_defined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_that_is_an_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_without_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_plan_that_declares_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_hoisted_statements_are_checked_for_per_sequence_extents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_decode_plan_with_extra_inputs_checks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_type_errors_say_what_was_expected_and_found, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_definition_points_at_the_first, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_declarations_do_not_cascade, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inputs_params_and_schedule_are_validated, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
