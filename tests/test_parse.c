/* test_parse.c - the parser (generator/front/parse.c) and dump_ast: every item
 * kind, the bundled plans, precedence, locations, error recovery and the
 * bad inputs the front end must survive. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "generator.h"

typedef struct fixture {
    fg_arena *a;
    char *buf;
    size_t len;
    FILE *out;
    fg_diag d;
    fg_source src;
    fg_plan *plan;
    int rc;
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
    return f->buf ? f->buf : "";
}

/* Forget the diagnostics printed so far. */
static void reset_output(fixture *f)
{
    fclose(f->out);
    free(f->buf);
    f->buf = NULL;
    f->out = open_memstream(&f->buf, &f->len);
    diag_init(&f->d, NULL, f->out);
}

static int parse_text(fixture *f, const char *text)
{
    source_from_string(&f->src, "plan.fp", text);
    diag_init(&f->d, &f->src, f->out);
    f->rc = parse_plan(f->a, &f->src, &f->d, &f->plan);
    return f->rc;
}

static char *expr_text(fixture *f, const fg_expr *e)
{
    return expr_to_string(f->a, NULL, e);
}

#define assert_loc(loc_, line_, col_)                 \
    do {                                              \
        assert_int_equal((loc_).line, (line_));       \
        assert_int_equal((loc_).col, (col_));         \
    } while (0)

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* ---- every item kind ------------------------------------------------- */

static const char every_item[] =
    "# every item of the language\n"                                     /* 1 */
    "plan every\n"                                                       /* 2 */
    "doc \"all \\\"items\\\"\"\n"                                        /* 3 */
    "dim B, Hq, Hkv, N[b]\n"                                             /* 4 */
    "axis b: B, h: Hq, n: N\n"                                           /* 5 */
    "param G: int = Hq / Hkv\n"                                          /* 6 */
    "param slope[h]: f32 = exp2(-8.0 * (h + 1) / Hq)\n"                  /* 7 */
    "param bias[n]: fp32\n"                                              /* 8 */
    "input K[b, h / G, n]: fp16[B, Hkv, N]\n"                            /* 9 */
    "input X[b, h,\n"                                                    /* 10 */
    "        n]: f32\n"                                                  /* 11 */
    "S[b, h, n] = where(n < 4 || !(n >= N - 2), K * slope + bias, -inf)\n" /* 12 */
    "Mx[b, h] = max(n: S)\n"                                             /* 13 */
    "output S: bf16, Mx: f32\n"                                          /* 14 */
    "schedule {\n"                                                       /* 15 */
    "  reduce n: split\n"                                                /* 16 */
    "  tile n = 128, b = 1\n"                                            /* 17 */
    "  warps = 8\n"                                                      /* 18 */
    "  stages = 3\n"                                                     /* 19 */
    "  splits = 16\n"                                                    /* 20 */
    "  tune {\n"                                                         /* 21 */
    "    tile n = {64,\n"                                                /* 22 */
    "              128}\n"                                               /* 23 */
    "    splits = {4, 8}\n"                                              /* 24 */
    "  }\n"                                                              /* 25 */
    "  target hip, c\n"                                                  /* 26 */
    "}\n";                                                               /* 27 */

static void test_parse_every_item_kind(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, every_item), 0);
    assert_string_equal(output(f), "");
    const fg_plan *p = f->plan;
    assert_string_equal(p->name, "every");
    assert_loc(p->name_loc, 2, 6);
    assert_string_equal(p->doc, "all \"items\"");

    assert_int_equal(p->ndims, 4);
    assert_string_equal(p->dims[2].name, "Hkv");
    assert_loc(p->dims[2].loc, 4, 12);
    assert_null(p->dims[2].index_name);
    assert_string_equal(p->dims[3].index_name, "b"); /* dim N[b]: per-sequence */
    assert_loc(p->dims[3].index_loc, 4, 19);

    assert_int_equal(p->naxes, 3);
    assert_string_equal(p->axes[1].name, "h");
    assert_string_equal(p->axes[1].dim_name, "Hq");
    assert_loc(p->axes[1].loc, 5, 12);
    assert_loc(p->axes[1].dim_loc, 5, 15);

    assert_int_equal(p->nparams, 3);
    assert_int_equal(p->params[0].dtype, DT_INT);
    assert_null(p->params[0].index_name);
    assert_string_equal(expr_text(f, p->params[0].deflt), "Hq / Hkv");
    assert_string_equal(p->params[1].index_name, "h");
    assert_loc(p->params[1].index_loc, 7, 13);
    assert_int_equal(p->params[1].dtype, DT_F32);
    assert_string_equal(expr_text(f, p->params[1].deflt), "exp2(-8.0 * (h + 1) / Hq)");
    assert_string_equal(p->params[2].name, "bias");
    assert_int_equal(p->params[2].dtype, DT_F32);
    assert_null(p->params[2].deflt);

    assert_int_equal(p->ntensors, 4);
    const fg_ir_tensor *k = &p->tensors[0];
    assert_int_equal(k->kind, TENSOR_INPUT);
    assert_int_equal(k->dtype, DT_FP16);
    assert_int_equal(k->nindex, 3);
    assert_string_equal(expr_text(f, k->index[1]), "h / G");
    assert_loc(k->index[1]->loc, 9, 14); /* the '/' */
    assert_non_null(k->extent_names);
    assert_string_equal(k->extent_names[1], "Hkv");
    assert_loc(k->extent_locs[2], 9, 36);
    const fg_ir_tensor *x = &p->tensors[1];
    assert_int_equal(x->nindex, 3);
    assert_null(x->extent_names);
    assert_loc(x->index[2]->loc, 11, 9);

    const fg_ir_tensor *s = &p->tensors[2];
    assert_int_equal(s->kind, TENSOR_STMT);
    assert_int_equal(s->naxes, 3);
    assert_string_equal(s->axis_names[2], "n");
    assert_loc(s->axis_locs[2], 12, 9);
    assert_string_equal(expr_text(f, s->rhs),
                        "where(n < 4 || !(n >= N - 2), K * slope + bias, -inf)");
    assert_int_equal(s->rhs->kind, E_WHERE);
    assert_loc(s->rhs->loc, 12, 14);
    assert_true(s->is_output);
    assert_int_equal(s->out_dtype, DT_BF16);
    assert_loc(s->output_loc, 14, 8);
    const fg_ir_tensor *mx = &p->tensors[3];
    assert_int_equal(mx->rhs->kind, E_REDUCE);
    assert_int_equal(mx->rhs->op, R_MAX);
    assert_string_equal(mx->rhs->reduce_axis_name, "n");
    assert_loc(mx->rhs->reduce_axis_loc, 13, 16);
    assert_true(mx->is_output);
    assert_int_equal(mx->out_dtype, DT_F32);

    const fg_schedule *sc = &p->sched;
    assert_true(sc->present);
    assert_loc(sc->loc, 15, 1);
    assert_string_equal(sc->reduce_axis_name, "n");
    assert_loc(sc->reduce_loc, 16, 10);
    assert_int_equal(sc->form, FORM_SPLIT);
    assert_int_equal(sc->ntiles, 2);
    assert_string_equal(sc->tiles[1].axis_name, "b");
    assert_int_equal(sc->tiles[0].size, 128);
    assert_loc(sc->tiles[1].loc, 17, 17);
    assert_int_equal(sc->warps, 8);
    assert_int_equal(sc->stages, 3);
    assert_int_equal(sc->splits, 16);
    assert_int_equal(sc->nknobs, 2);
    assert_string_equal(sc->knobs[0].knob, "tile");
    assert_string_equal(sc->knobs[0].axis_name, "n");
    assert_int_equal(sc->knobs[0].nvalues, 2);
    assert_int_equal(sc->knobs[0].values[1], 128);
    assert_string_equal(sc->knobs[1].knob, "splits");
    assert_null(sc->knobs[1].axis_name);
    assert_int_equal(sc->knobs[1].values[0], 4);
    assert_loc(sc->knobs[1].loc, 24, 5);
    assert_int_equal(sc->targets, TARGET_HIP | TARGET_C);
}

static void test_dump_ast_prints_items_in_source_order(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, every_item), 0);
    dump_ast(f->out, f->plan);
    assert_string_equal(output(f),
                        "plan every @2:6\n"
                        "  doc \"all \\\"items\\\"\"\n"
                        "  dim B @4:5\n"
                        "  dim Hq @4:8\n"
                        "  dim Hkv @4:12\n"
                        "  dim N[b] @4:17\n"
                        "  axis b: B @5:6\n"
                        "  axis h: Hq @5:12\n"
                        "  axis n: N @5:19\n"
                        "  param G: int = Hq / Hkv @6:7\n"
                        "  param slope[h]: f32 = exp2(-8.0 * (h + 1) / Hq) @7:7\n"
                        "  param bias[n]: f32 @8:7\n"
                        "  input K[b, h / G, n]: fp16[B, Hkv, N] @9:7\n"
                        "  input X[b, h, n]: f32 @10:7\n"
                        "  S[b, h, n] = where(n < 4 || !(n >= N - 2), K * slope + bias, -inf) @12:1\n"
                        "  Mx[b, h] = max(n: S) @13:1\n"
                        "  output S: bf16 @14:8\n"
                        "  output Mx: f32 @14:17\n"
                        "  schedule @15:1\n"
                        "    reduce n: split @16:10\n"
                        "    tile n = 128 @17:8\n"
                        "    tile b = 1 @17:17\n"
                        "    warps = 8\n"
                        "    stages = 3\n"
                        "    splits = 16\n"
                        "    tune\n"
                        "      tile n = {64, 128} @22:10\n"
                        "      splits = {4, 8} @24:5\n"
                        "    target hip, c\n");
}

static void test_parse_splits_auto_and_default_targets(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\nschedule {\n  reduce c: rolling\n  splits = auto\n}\n"), 0);
    assert_int_equal(f->plan->sched.splits, 0);
    assert_int_equal(f->plan->sched.form, FORM_ROLLING);
    assert_int_equal(f->plan->sched.targets, 0);
    assert_null(f->plan->doc);
    assert_false(parse_text(f, "plan q\n") != 0);
    assert_false(f->plan->sched.present);
}

/* ---- the bundled plans ----------------------------------------------- */

/* Every expression of a plan prints and parses back to the same tree. */
static void check_round_trip(fixture *f, const fg_expr *e, const char *plan)
{
    if (!e)
        return;
    char *text = expr_text(f, e);
    fg_expr *back = NULL;
    fg_diag d;
    diag_init(&d, NULL, f->out);
    if (parse_expr_string(f->a, text, &d, &back) != 0 || !expr_equal(e, back))
        fail_msg("%s: '%s' does not parse back to the same tree", plan, text);
}

static void test_parse_every_bundled_plan(void **state)
{
    fixture *f = *state;
    char *dir = arena_printf(f->a, "%s/plans", srcdir());
    DIR *dp = opendir(dir);
    if (!dp)
        fail_msg("cannot open %s", dir);
    int nplans = 0;
    struct dirent *ent;
    while ((ent = readdir(dp)) != NULL) {
        size_t n = strlen(ent->d_name);
        if (n < 4 || strcmp(ent->d_name + n - 3, ".fp") != 0)
            continue;
        nplans++;
        char *path = arena_printf(f->a, "%s/%s", dir, ent->d_name);
        fg_diag d;
        diag_init(&d, NULL, f->out);
        fg_source src;
        if (source_read(f->a, path, &src, &d) != 0)
            fail_msg("%s: %s", path, output(f));
        d.src = &src;
        fg_plan *p;
        if (parse_plan(f->a, &src, &d, &p) != 0)
            fail_msg("%s does not parse:\n%s", path, output(f));
        /* The plan is named like its file. */
        assert_int_equal(strlen(p->name), n - 3);
        assert_memory_equal(p->name, ent->d_name, n - 3);
        assert_true(p->sched.present);
        assert_non_null(p->sched.reduce_axis_name);
        int outputs = 0, statements = 0;
        for (int i = 0; i < p->ntensors; i++) {
            outputs += p->tensors[i].is_output;
            statements += p->tensors[i].kind == TENSOR_STMT;
            check_round_trip(f, p->tensors[i].rhs, path);
            for (int j = 0; j < p->tensors[i].nindex; j++)
                check_round_trip(f, p->tensors[i].index[j], path);
            assert_true(p->tensors[i].loc.line > 0);
        }
        for (int i = 0; i < p->nparams; i++)
            check_round_trip(f, p->params[i].deflt, path);
        assert_true(outputs >= 1);
        assert_true(statements >= 2);
        /* Each statement is one line of the file starting with its name. */
        for (int i = 0; i < p->ntensors; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (t->kind != TENSOR_STMT)
                continue;
            const char *line = src.text;
            for (int l = 1; l < t->loc.line; l++)
                line = strchr(line, '\n') + 1;
            assert_int_equal(t->loc.col, 1);
            assert_memory_equal(line, t->name, strlen(t->name));
            assert_int_equal(line[strlen(t->name)], '[');
        }
    }
    closedir(dp);
    assert_true(nplans >= 13);
    assert_string_equal(output(f), "");
}

static void test_parse_causal_plan_contents(void **state)
{
    fixture *f = *state;
    char *path = arena_printf(f->a, "%s/plans/causal.fp", srcdir());
    fg_source src;
    assert_int_equal(source_read(f->a, path, &src, &f->d), 0);
    f->d.src = &src;
    fg_plan *p;
    assert_int_equal(parse_plan(f->a, &src, &f->d, &p), 0);
    assert_int_equal(p->ndims, 5);
    assert_int_equal(p->naxes, 5);
    assert_int_equal(p->nparams, 1);
    assert_int_equal(p->ntensors, 10);
    static const char *const names[] = {"Q", "K", "V", "S", "T", "Mx", "P", "L", "O", "LSE"};
    for (int i = 0; i < 10; i++)
        assert_string_equal(p->tensors[i].name, names[i]);
    assert_string_equal(expr_text(f, p->tensors[3].rhs), "sum(d: Q * K) * scale");
    assert_string_equal(expr_text(f, p->tensors[4].rhs), "where(n <= m + N - M, S, -inf)");
    assert_string_equal(expr_text(f, p->tensors[8].rhs), "sum(n: P * V) / L");
    assert_true(p->tensors[8].is_output);
    assert_int_equal(p->tensors[8].out_dtype, DT_BF16);
    assert_true(p->tensors[9].is_output);
    assert_int_equal(p->tensors[9].out_dtype, DT_F32);
    assert_false(p->tensors[5].is_output);
    assert_int_equal(p->sched.targets, TARGET_CUDA | TARGET_HIP | TARGET_C);
    assert_int_equal(p->sched.nknobs, 5); /* tile m, tile n, warps, stages, pingpong */
}

/* ---- expressions ------------------------------------------------------ */

static fg_expr *expr_ok(fixture *f, const char *text)
{
    fg_expr *e = NULL;
    if (parse_expr_string(f->a, text, &f->d, &e) != 0)
        fail_msg("'%s' does not parse:\n%s", text, output(f));
    return e;
}

static void assert_name(const fg_expr *e, const char *name)
{
    assert_int_equal(e->kind, E_NAME);
    assert_string_equal(e->name, name);
}

static void test_parse_expr_precedence(void **state)
{
    fixture *f = *state;
    /* a + b * c ^ 2 = a + (b * (c ^ 2)) */
    fg_expr *e = expr_ok(f, "a + b * c ^ 2");
    assert_int_equal(e->kind, E_ADD);
    assert_name(e->args[0], "a");
    assert_int_equal(e->args[1]->kind, E_MUL);
    assert_name(e->args[1]->args[0], "b");
    assert_int_equal(e->args[1]->args[1]->kind, E_POW);
    assert_name(e->args[1]->args[1]->args[0], "c");
    assert_int_equal(e->args[1]->args[1]->args[1]->kind, E_NUM);
    assert_true(e->args[1]->args[1]->args[1]->num == 2);
    assert_true(e->args[1]->args[1]->args[1]->is_int);

    /* -x ^ 2 = -(x ^ 2) */
    e = expr_ok(f, "-x ^ 2");
    assert_int_equal(e->kind, E_NEG);
    assert_int_equal(e->args[0]->kind, E_POW);
    assert_name(e->args[0]->args[0], "x");

    /* !a && b || c = ((!a) && b) || c */
    e = expr_ok(f, "!a && b || c");
    assert_int_equal(e->kind, E_OR);
    assert_int_equal(e->args[0]->kind, E_AND);
    assert_int_equal(e->args[0]->args[0]->kind, E_NOT);
    assert_name(e->args[0]->args[0]->args[0], "a");
    assert_name(e->args[0]->args[1], "b");
    assert_name(e->args[1], "c");

    /* comparisons bind looser than arithmetic, tighter than && */
    e = expr_ok(f, "n <= m + N - M && m - n < W");
    assert_int_equal(e->kind, E_AND);
    assert_int_equal(e->args[0]->kind, E_LE);
    assert_int_equal(e->args[0]->args[1]->kind, E_SUB);
    assert_int_equal(e->args[0]->args[1]->args[0]->kind, E_ADD);
    assert_int_equal(e->args[1]->kind, E_LT);
    assert_int_equal(e->args[1]->args[0]->kind, E_SUB);
    static const struct {
        const char *text;
        fg_expr_kind kind;
    } cmps[] = {{"a < b", E_LT},  {"a <= b", E_LE}, {"a > b", E_GT},
                {"a >= b", E_GE}, {"a == b", E_EQ}, {"a != b", E_NE}};
    for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++)
        assert_int_equal(expr_ok(f, cmps[i].text)->kind, cmps[i].kind);

    /* left-associative - and /, right-associative ^ */
    e = expr_ok(f, "a - b - c");
    assert_int_equal(e->args[0]->kind, E_SUB);
    assert_name(e->args[1], "c");
    e = expr_ok(f, "a / b * c");
    assert_int_equal(e->kind, E_MUL);
    assert_int_equal(e->args[0]->kind, E_DIV);
    e = expr_ok(f, "a ^ b ^ c");
    assert_name(e->args[0], "a");
    assert_int_equal(e->args[1]->kind, E_POW);
    /* a negative constant exponent is a single number */
    e = expr_ok(f, "x ^ -0.5");
    assert_int_equal(e->args[1]->kind, E_NUM);
    assert_true(e->args[1]->num == -0.5);
    assert_string_equal(output(f), "");
}

static void test_parse_expr_primaries(void **state)
{
    fixture *f = *state;
    fg_expr *e = expr_ok(f, "sum(d: Q[b, h] * pow(K, 2)) + max(a, b) + min(n: T) + inf");
    assert_string_equal(expr_text(f, e), "sum(d: Q[b, h] * pow(K, 2)) + max(a, b) + min(n: T) + inf");
    fg_expr *red = e->args[0]->args[0]->args[0];
    assert_int_equal(red->kind, E_REDUCE);
    assert_int_equal(red->op, R_SUM);
    assert_int_equal(red->ref, -1);
    fg_expr *q = red->args[0]->args[0];
    assert_int_equal(q->kind, E_NAME);
    assert_true(q->bracketed);
    assert_int_equal(q->nargs, 2);
    fg_expr *pw = red->args[0]->args[1];
    assert_int_equal(pw->kind, E_CALL);
    assert_int_equal(pw->fn, F_POW);
    fg_expr *mx = e->args[0]->args[0]->args[1];
    assert_int_equal(mx->kind, E_CALL);
    assert_int_equal(mx->fn, F_MAX);
    assert_int_equal(e->args[0]->args[1]->kind, E_REDUCE);
    assert_int_equal(e->args[0]->args[1]->op, R_MIN);
    assert_int_equal(e->args[1]->kind, E_INF);
    fg_expr *s = expr_ok(f, "S");
    assert_false(s->bracketed);
    assert_int_equal(s->nargs, 0);
}

static void test_parse_expr_locations(void **state)
{
    fixture *f = *state;
    /*                        1234567890123456789012345 */
    fg_expr *e = expr_ok(f, "exp(T - Mx) * -sum(n: P)");
    assert_int_equal(e->kind, E_MUL);
    assert_loc(e->loc, 1, 13);
    assert_loc(e->args[0]->loc, 1, 1);          /* exp */
    assert_loc(e->args[0]->args[0]->loc, 1, 7); /* - */
    assert_loc(e->args[0]->args[0]->args[0]->loc, 1, 5);
    assert_loc(e->args[0]->args[0]->args[1]->loc, 1, 9);
    assert_loc(e->args[1]->loc, 1, 15);          /* unary - */
    assert_loc(e->args[1]->args[0]->loc, 1, 16); /* sum */
    assert_loc(e->args[1]->args[0]->reduce_axis_loc, 1, 20);
    assert_loc(e->args[1]->args[0]->args[0]->loc, 1, 23);
}

static void test_parse_expr_newlines_inside_brackets(void **state)
{
    fixture *f = *state;
    fg_expr *e = expr_ok(f, "exp(a +\n  b) * c[\nm,\n n]");
    assert_string_equal(expr_text(f, e), "exp(a + b) * c[m, n]");
    assert_loc(e->args[0]->args[0]->args[1]->loc, 2, 3);
    assert_loc(e->args[1]->args[1]->loc, 4, 2);
}

static void expr_error(fixture *f, const char *text, const char *want)
{
    fg_expr *e = (fg_expr *)1;
    assert_int_equal(parse_expr_string(f->a, text, &f->d, &e), -1);
    assert_null(e);
    assert_string_equal(output(f), want);
    reset_output(f);
}

static void test_parse_expr_errors(void **state)
{
    fixture *f = *state;
    expr_error(f, "a < b < c",
               "<expr>:1:7: error: comparisons do not chain: write 'a < b && b < c' instead of 'a < b < c'\n"
               "a < b < c\n"
               "      ^\n");
    expr_error(f, "exp(a, b)",
               "<expr>:1:1: error: 'exp' takes 1 argument, found 2\nexp(a, b)\n^\n");
    expr_error(f, "max(T)",
               "<expr>:1:1: error: 'max' takes 2 arguments, found 1 (a reduction is written max(AXIS: EXPR))\n"
               "max(T)\n^\n");
    expr_error(f, "sum(T)",
               "<expr>:1:5: error: expected 'AXIS:' after 'sum(' (a reduction is sum(AXIS: EXPR))\n"
               "sum(T)\n    ^\n");
    expr_error(f, "softplus(x)", "<expr>:1:1: error: unknown function 'softplus'\nsoftplus(x)\n^\n");
    expr_error(f, "where(a, b)",
               "<expr>:1:1: error: 'where' takes 3 arguments (condition, then, else), found 2\n"
               "where(a, b)\n^\n");
    expr_error(f, "(a + b", "<expr>:1:7: error: expected ')' to close '(', found end of file\n(a + b\n      ^\n");
    expr_error(f, "a b", "<expr>:1:3: error: expected end of the expression, found identifier 'b'\na b\n  ^\n");
    expr_error(f, "", "<expr>:1:1: error: expected an expression, found end of file\n");
    expr_error(f, "a * / b", "<expr>:1:5: error: expected an expression, found '/'\na * / b\n    ^\n");
}

/* 100 000 levels of nesting: a located error, no stack overflow. */
static void test_parse_expr_nested_100000_deep(void **state)
{
    fixture *f = *state;
    size_t n = 100000;
    char *parens = arena_alloc(f->a, 2 * n + 2);
    memset(parens, '(', n);
    parens[n] = 'x';
    memset(parens + n + 1, ')', n);
    fg_expr *e;
    assert_int_equal(parse_expr_string(f->a, parens, &f->d, &e), -1);
    /* The 257th '(' opens one level too many. */
    const char *want = "<expr>:1:257: error: expression nested deeper than 256 levels\n";
    assert_memory_equal(output(f), want, strlen(want));
    assert_int_equal(f->d.errors, 1);

    /* 256 levels are fine. */
    char *ok = arena_alloc(f->a, 2 * 256 + 2);
    memset(ok, '(', 256);
    ok[256] = 'x';
    memset(ok + 257, ')', 256);
    diag_init(&f->d, NULL, f->out);
    assert_int_equal(parse_expr_string(f->a, ok, &f->d, &e), 0);
    assert_name(e, "x");

    char *minus = arena_alloc(f->a, n + 2);
    memset(minus, '-', n);
    minus[n] = '1';
    diag_init(&f->d, NULL, f->out);
    fflush(f->out);
    size_t before = f->len;
    assert_int_equal(parse_expr_string(f->a, minus, &f->d, &e), -1);
    fflush(f->out);
    assert_memory_equal(f->buf + before, want, strlen(want));
    assert_int_equal(f->d.errors, 1);
}

static void test_parse_plan_nested_100000_deep(void **state)
{
    fixture *f = *state;
    size_t n = 100000;
    char *text = arena_alloc(f->a, 3 * n + 2000);
    char *p = text;
    p += sprintf(p, "plan deep\nS[a] = ");
    for (size_t i = 0; i < n; i++)
        *p++ = '(';
    *p++ = 'a';
    for (size_t i = 0; i < n; i++)
        *p++ = ')';
    p += sprintf(p, "\nT[a] = ");
    for (size_t i = 0; i < n; i++)
        *p++ = i % 2 ? '-' : '!';
    p += sprintf(p, "a\nU[a] = exp(");
    for (size_t i = 0; i < 300; i++)
        p += sprintf(p, "exp(");
    p += sprintf(p, "a\ndim B\n");
    assert_int_equal(parse_text(f, text), -1);
    const char *out = output(f);
    assert_int_equal(f->d.errors, 3);
    assert_non_null(strstr(out, "plan.fp:2:264: error: expression nested deeper than 256 levels\n"));
    assert_non_null(strstr(out, "plan.fp:3:264: error: expression nested deeper than 256 levels\n"));
    /* The k-th exp( nests its argument at column 8 + 4k: k = 257 is 1036. */
    assert_non_null(strstr(out, "plan.fp:4:1036: error: expression nested deeper than 256 levels\n"));
    /* Recovery reached the line after. */
    assert_int_equal(f->plan->ndims, 1);
    assert_string_equal(f->plan->dims[0].name, "B");
}

/* ---- errors and recovery -------------------------------------------- */

static void test_parse_recovers_and_reports_several_errors(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan two\n"
                                   "dim A B\n"
                                   "axis a: A\n"
                                   "S[a] = (a +) * 2\n"
                                   "T[a] = a\n"),
                     -1);
    assert_string_equal(output(f),
                        "plan.fp:2:7: error: expected end of line after the item, found identifier 'B'\n"
                        "dim A B\n"
                        "      ^\n"
                        "plan.fp:4:12: error: expected an expression, found ')'\n"
                        "S[a] = (a +) * 2\n"
                        "           ^\n");
    assert_int_equal(f->d.errors, 2);
    /* Good items around the bad ones are kept. */
    assert_int_equal(f->plan->naxes, 1);
    assert_int_equal(f->plan->ntensors, 1);
    assert_string_equal(f->plan->tensors[0].name, "T");
}

static void test_parse_missing_bracket(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\ninput Q[b, h: bf16\nS[b, h = Q\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:2:13: error: expected ',' or ']' in the index list of input 'Q', found ':'\n"
                        "input Q[b, h: bf16\n"
                        "            ^\n"
                        "plan.fp:3:8: error: expected ',' or ']' after axis 'h', found '='\n"
                        "S[b, h = Q\n"
                        "       ^\n");
}

static void test_parse_missing_assign_in_statement(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\nL[b] sum(n: P)\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:2:6: error: expected '=' after 'L[...]', found identifier 'sum'\n"
                        "L[b] sum(n: P)\n"
                        "     ^\n");
}

static void test_parse_unexpected_token(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\n= 3\ndim 4\n"), -1);
    assert_string_equal(
        output(f),
        "plan.fp:2:1: error: expected an item (plan, doc, dim, axis, param, input, output, schedule, "
        "or a statement NAME[AXIS, ...] = EXPR), found '='\n"
        "= 3\n"
        "^\n"
        "plan.fp:3:5: error: expected a dim name, found number '4'\n"
        "dim 4\n"
        "    ^\n");
}

static void test_parse_empty_file(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, ""), -1);
    assert_string_equal(output(f), "plan.fp:1:1: error: empty plan: expected 'plan NAME'\n");
    reset_output(f);
    assert_int_equal(parse_text(f, "# only a comment\n\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:1:1: error: empty plan: expected 'plan NAME'\n"
                        "# only a comment\n"
                        "^\n");
}

static void test_parse_plan_must_come_first_and_once(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "dim A\nplan x\nplan y\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:1:1: error: expected 'plan NAME' as the first item, found 'dim'\n"
                        "dim A\n"
                        "^\n"
                        "plan.fp:3:1: error: duplicate 'plan': this file already names plan 'x'\n"
                        "plan y\n"
                        "^\n");
}

static void test_parse_reserved_names(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan fg_attn\ndim m4_len\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:1:6: error: reserved name 'fg_attn': names beginning with 'fg_' or 'm4_' belong to the generator\n"
                        "plan fg_attn\n"
                        "     ^\n"
                        "plan.fp:2:5: error: reserved name 'm4_len': names beginning with 'fg_' or 'm4_' belong to the generator\n"
                        "dim m4_len\n"
                        "    ^\n");
}

static void test_parse_unterminated_comment_and_string(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\ndoc \"open\ndim A /* to the end\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:2:5: error: unterminated string: a string ends with '\"' on the same line\n"
                        "doc \"open\n"
                        "    ^\n"
                        "plan.fp:3:7: error: unterminated comment: '/*' has no matching '*/'\n"
                        "dim A /* to the end\n"
                        "      ^\n");
    assert_int_equal(f->d.errors, 2);
}

static void test_parse_schedule_errors(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\n"
                                   "schedule {\n"
                                   "  reduce n: sideways\n"
                                   "  tile m = 0\n"
                                   "  warps = 4\n"
                                   "  warps = 8\n"
                                   "  target cuda, tpu\n"
                                   "  colour = 3\n"
                                   "  tune {\n"
                                   "    warps = {4, x}\n"
                                   "  }\n"
                                   "  stages = 2\n"),
                     -1);
    assert_string_equal(output(f),
                        "plan.fp:3:13: error: unknown form 'sideways': expected rolling or split\n"
                        "  reduce n: sideways\n"
                        "            ^\n"
                        "plan.fp:4:12: error: expected a positive integer, found number '0'\n"
                        "  tile m = 0\n"
                        "           ^\n"
                        "plan.fp:6:3: error: duplicate 'warps' setting\n"
                        "  warps = 8\n"
                        "  ^\n"
                        "plan.fp:7:16: error: unknown target 'tpu': expected cuda, hip or c\n"
                        "  target cuda, tpu\n"
                        "               ^\n"
                        "plan.fp:8:3: error: unknown schedule setting 'colour': expected reduce, tile, warps, stages, splits, tune or target\n"
                        "  colour = 3\n"
                        "  ^\n"
                        "plan.fp:10:17: error: expected a positive integer, found identifier 'x'\n"
                        "    warps = {4, x}\n"
                        "                ^\n"
                        "plan.fp:12:13: error: expected '}' to close the schedule block, found end of file\n"
                        "  stages = 2\n"
                        "            ^\n"
                        "plan.fp:2:10: note: the schedule block opens here\n"
                        "schedule {\n"
                        "         ^\n");
    assert_int_equal(f->d.errors, 7);
    assert_int_equal(f->plan->sched.warps, 4);
    assert_int_equal(f->plan->sched.stages, 2);
}

/* Every int the parser takes from a number (tile sizes, warps, stages,
 * splits, tune values) is range-checked before it is converted: a value
 * past INT_MAX is one located error, never a double-to-int conversion that
 * overflows (UBSan's float-cast-overflow, in the sanitizer build). */
static void test_parse_out_of_range_integers(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\n"
                                   "schedule {\n"
                                   "  tile r = 99999999999\n"
                                   "  warps = 2147483648\n"
                                   "  stages = 1e30\n"
                                   "  splits = 99999999999\n"
                                   "  tune {\n"
                                   "    warps = {4, 99999999999}\n"
                                   "    tile n = {64, 3000000000}\n"
                                   "  }\n"
                                   "}\n"),
                     -1);
    assert_string_equal(
        output(f),
        "plan.fp:3:12: error: integer '99999999999' is out of range (the limit is 2147483647)\n"
        "  tile r = 99999999999\n"
        "           ^\n"
        "plan.fp:4:11: error: integer '2147483648' is out of range (the limit is 2147483647)\n"
        "  warps = 2147483648\n"
        "          ^\n"
        "plan.fp:5:12: error: expected a positive integer, found number '1e30'\n"
        "  stages = 1e30\n"
        "           ^\n"
        "plan.fp:6:12: error: integer '99999999999' is out of range (the limit is 2147483647)\n"
        "  splits = 99999999999\n"
        "           ^\n"
        "plan.fp:8:17: error: integer '99999999999' is out of range (the limit is 2147483647)\n"
        "    warps = {4, 99999999999}\n"
        "                ^\n"
        "plan.fp:9:19: error: integer '3000000000' is out of range (the limit is 2147483647)\n"
        "    tile n = {64, 3000000000}\n"
        "                  ^\n");
    assert_int_equal(f->d.errors, 6);
}

static void test_parse_type_and_output_errors(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse_text(f, "plan p\n"
                                   "param s: bf16\n"
                                   "param v[h]: int\n"
                                   "input X[a]: f64\n"
                                   "input Y[a]: int\n"),
                     -1);
    assert_string_equal(output(f),
                        "plan.fp:2:10: error: parameter type must be f32 or int, found 'bf16'\n"
                        "param s: bf16\n"
                        "         ^\n"
                        "plan.fp:3:13: error: a parameter vector NAME[AXIS] must be f32\n"
                        "param v[h]: int\n"
                        "            ^\n"
                        "plan.fp:4:13: error: unknown type 'f64': expected bf16, fp16, f32 or i32\n"
                        "input X[a]: f64\n"
                        "            ^\n"
                        "plan.fp:5:13: error: 'int' is not a tensor type: expected bf16, fp16, f32 or i32\n"
                        "input Y[a]: int\n"
                        "            ^\n");
    reset_output(f);
    /* i32 is an input type (ids); a statement is computed in f32 */
    assert_int_equal(parse_text(f, "plan p\ninput X[a]: i32\nY[a] = X\noutput Y: i32\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:4:8: error: output 'Y' cannot be i32: statements are computed "
                        "in f32 (bf16, fp16 or f32)\n"
                        "output Y: i32\n"
                        "       ^\n");
    reset_output(f);
    assert_int_equal(parse_text(f, "plan p\ninput X[a]: f32\nY[a] = X\noutput X: f32, Y: f32, Y: bf16, Z: f32\n"), -1);
    assert_string_equal(output(f),
                        "plan.fp:4:8: error: output 'X' is an input; outputs are statements\n"
                        "output X: f32, Y: f32, Y: bf16, Z: f32\n"
                        "       ^\n"
                        "plan.fp:4:24: error: 'Y' is listed as an output twice\n"
                        "output X: f32, Y: f32, Y: bf16, Z: f32\n"
                        "                       ^\n"
                        "plan.fp:4:33: error: output 'Z' is not defined by any statement\n"
                        "output X: f32, Y: f32, Y: bf16, Z: f32\n"
                        "                                ^\n");
}

static void test_parse_binary_garbage_through_source_read(void **state)
{
    fixture *f = *state;
    static const unsigned char bytes[] = "plan p\ndim A\nS[a] = \xfe\xff\x00\x01";
    strcpy(f->path, "test_parse_XXXXXX");
    int fd = mkstemp(f->path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, sizeof bytes - 1), (ssize_t)(sizeof bytes - 1));
    close(fd);
    fg_source src;
    assert_int_equal(source_read(f->a, f->path, &src, &f->d), -1);
    char *want = arena_printf(f->a, "%s:3:8: error: invalid UTF-8 (byte 0xfe): a plan must be UTF-8 text\n",
                              f->path);
    assert_memory_equal(output(f), want, strlen(want));
    assert_int_equal(f->d.errors, 1);
}

/* 10 MB of random input: capped errors, bounded time, no crash. */
static void random_input(fixture *f, int printable, unsigned seed)
{
    size_t n = 10u << 20;
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)rand_r(&seed);
        text[i] = printable ? (char)(32 + r % 95) : (char)(1 + r % 255);
        if (printable && r % 61 == 0)
            text[i] = '\n';
    }
    text[n] = '\0';
    clock_t t0 = clock();
    parse_text(f, text);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(text);
    assert_int_equal(f->rc, -1);
    assert_int_equal(f->d.errors, 50);
    assert_true(f->d.muted);
    assert_non_null(strstr(output(f), "plan.fp: note: too many errors (50); stopping\n"));
    assert_true(seconds < 2.0);
}

static void test_parse_10mb_random_text(void **state)
{
    random_input(*state, 1, 7);
}

static void test_parse_10mb_random_bytes(void **state)
{
    random_input(*state, 0, 11);
}

/* A large plan of valid items (2 MB, some 50 000 statements) parses in
 * bounded time. */
static void test_parse_large_plan_of_valid_items(void **state)
{
    fixture *f = *state;
    size_t n = 2u << 20;
    char *text = malloc(n + 64);
    size_t len = (size_t)sprintf(text, "plan big\n");
    int stmts = 0;
    while (len < n) {
        len += (size_t)sprintf(text + len, "S%d[a, b] = exp(X - Mx) * (a + 1) / L\n", stmts);
        stmts++;
    }
    clock_t t0 = clock();
    parse_text(f, text);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(text);
    assert_int_equal(f->rc, 0);
    assert_int_equal(f->plan->ntensors, stmts);
    assert_string_equal(f->plan->tensors[stmts - 1].name, arena_printf(f->a, "S%d", stmts - 1));
    assert_true(seconds < 2.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(test_parse_every_item_kind),
        T(test_dump_ast_prints_items_in_source_order),
        T(test_parse_splits_auto_and_default_targets),
        T(test_parse_every_bundled_plan),
        T(test_parse_causal_plan_contents),
        T(test_parse_expr_precedence),
        T(test_parse_expr_primaries),
        T(test_parse_expr_locations),
        T(test_parse_expr_newlines_inside_brackets),
        T(test_parse_expr_errors),
        T(test_parse_expr_nested_100000_deep),
        T(test_parse_plan_nested_100000_deep),
        T(test_parse_recovers_and_reports_several_errors),
        T(test_parse_missing_bracket),
        T(test_parse_missing_assign_in_statement),
        T(test_parse_unexpected_token),
        T(test_parse_out_of_range_integers),
        T(test_parse_empty_file),
        T(test_parse_plan_must_come_first_and_once),
        T(test_parse_reserved_names),
        T(test_parse_unterminated_comment_and_string),
        T(test_parse_schedule_errors),
        T(test_parse_type_and_output_errors),
        T(test_parse_binary_garbage_through_source_read),
        T(test_parse_10mb_random_text),
        T(test_parse_10mb_random_bytes),
        T(test_parse_large_plan_of_valid_items),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
