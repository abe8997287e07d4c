/* test_algebra.c - expression evaluation, derived corrections and their
 * numeric check (generator/algebra.c).
 *
 * The plan is built by hand: a small attention-like chain over the axes
 * m, n, d whose statements name the leaves of the bodies under test.  Every
 * derived factor is checked three ways: its printed form, its value at known
 * points against a hand computation, and the verified flag of the numeric
 * check. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "generator.h"

enum { DIM_M, DIM_N, DIM_D, NDIMS };
enum { AX_M, AX_N, AX_D, NAXES };
enum { PAR_SCALE, PAR_CAP, PAR_G, NPARAMS };
enum {
    TS, /* input S[m, n] */
    TV, /* input V[n, d] */
    TX, /* input X[m, n] */
    TT, /* T[m, n] = where(n <= m, S, -inf) */
    TMX, /* Mx[m] = max(n: T) */
    TP, /* P[m, n] = exp(T - Mx) */
    TL, /* L[m] = sum(n: P) */
    TOSUM, /* O_sum[m, d] = sum(n: P * V) */
    TR, /* R[m] = sum(n: S): the statement of the rejection tests */
    TMSUM, /* Mean_sum[m] = sum(n: X) */
    TMEAN, /* Mean[m] = Mean_sum / N */
    TVAR, /* Var[m] = sum(n: (X - Mean) ^ 2) */
    TMN, /* Mn[m] = min(n: S) */
    TB, /* input B[m]: a per-row value, constant along n */
    NTENSORS
};

#define BIT(t) ((uint64_t)1 << (t))

static const char *const plan_text =
    "plan t\n"
    "Mx[m] = max(n: T)\n"
    "L[m] = sum(n: P)\n"
    "R[m] = sum(n: S)\n";

typedef struct fixture {
    fg_arena *a;
    fg_plan *p;
    fg_source src;
    fg_diag d;
    char *msg;
    size_t msglen;
    FILE *out;
} fixture;

/* cmocka compares floats only; values here are doubles. */
#define assert_near(got, want, tol) near((got), (want), (tol), __FILE__, __LINE__)

static void near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s:%d: got %.17g, want %.17g (tolerance %g)", file, line, got, want, tol);
}

/* ---- building the plan and expressions ---- */

static fg_expr *tn(fixture *f, int t)
{
    fg_expr *e = expr_ref(f->a, E_TENSOR, t, f->p->tensors[t].name);
    e->type = T_FLOAT;
    return e;
}

static fg_expr *num(fixture *f, double v)
{
    fg_expr *e = expr_num(f->a, v);
    e->type = T_FLOAT;
    return e;
}

static fg_expr *bin(fixture *f, fg_expr_kind k, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_binary(f->a, k, x, y);
    e->type = T_FLOAT;
    return e;
}

static fg_expr *call1(fixture *f, fg_func fn, fg_expr *x)
{
    fg_expr *e = expr_call1(f->a, fn, x);
    e->type = T_FLOAT;
    return e;
}

static fg_expr *call2(fixture *f, fg_func fn, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_new(f->a, E_CALL, x->loc, 2);
    e->fn = fn;
    e->args[0] = x;
    e->args[1] = y;
    e->type = T_FLOAT;
    return e;
}

static fg_expr *where(fixture *f, fg_expr *c, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_new(f->a, E_WHERE, c->loc, 3);
    e->args[0] = c;
    e->args[1] = x;
    e->args[2] = y;
    e->type = T_FLOAT;
    return e;
}

static fg_expr *axis_ref(fixture *f, int ax)
{
    fg_expr *e = expr_ref(f->a, E_AXIS, ax, f->p->axes[ax].name);
    e->type = T_INT;
    return e;
}

static fg_expr *exp_of_diff(fixture *f, int x, int y)
{
    return call1(f, F_EXP, bin(f, E_SUB, tn(f, x), tn(f, y)));
}

static void set_input(fixture *f, int t, const char *name, int n, const int *axes)
{
    fg_ir_tensor *x = &f->p->tensors[t];
    x->name = name;
    x->kind = TENSOR_INPUT;
    x->dtype = DT_F32;
    x->nindex = n;
    x->index = ARENA_ARRAY(f->a, fg_expr *, n);
    for (int i = 0; i < n; i++)
        x->index[i] = axis_ref(f, axes[i]);
    x->red_axis = -1;
    x->hoisted_from = -1;
}

static void set_stmt(fixture *f, int t, const char *name, int n, const int *axes)
{
    fg_ir_tensor *x = &f->p->tensors[t];
    x->name = name;
    x->kind = TENSOR_STMT;
    x->dtype = DT_F32;
    x->naxes = n;
    x->axes = ARENA_ARRAY(f->a, int, n);
    for (int i = 0; i < n; i++) {
        x->axes[i] = axes[i];
        x->axis_mask |= 1u << axes[i];
    }
    x->cls = CLASS_ELEMENTWISE;
    x->red_axis = -1;
    x->hoisted_from = -1;
}

static void set_reduction(fixture *f, int t, fg_reduce_op op, fg_expr *body)
{
    fg_ir_tensor *x = &f->p->tensors[t];
    fg_expr *r = expr_new(f->a, E_REDUCE, (fg_loc){0, 0}, 1);
    r->op = op;
    r->ref = AX_N;
    r->args[0] = body;
    x->rhs = r;
    x->body = body;
    x->cls = CLASS_REDUCTION;
    x->op = op;
    x->red_axis = AX_N;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->a = arena_create();
    fg_plan *p = ARENA_NEW(f->a, fg_plan);
    f->p = p;
    p->arena = f->a;
    p->name = "t";
    p->ndims = NDIMS;
    p->dims = ARENA_ARRAY(f->a, fg_dim, NDIMS);
    p->dims[DIM_M].name = "M";
    p->dims[DIM_N].name = "N";
    p->dims[DIM_D].name = "D";
    p->naxes = NAXES;
    p->axes = ARENA_ARRAY(f->a, fg_axis, NAXES);
    p->axes[AX_M] = (fg_axis){.name = "m", .dim_name = "M", .dim = DIM_M};
    p->axes[AX_N] = (fg_axis){.name = "n", .dim_name = "N", .dim = DIM_N};
    p->axes[AX_D] = (fg_axis){.name = "d", .dim_name = "D", .dim = DIM_D};
    p->nparams = NPARAMS;
    p->params = ARENA_ARRAY(f->a, fg_param, NPARAMS);
    p->params[PAR_SCALE] = (fg_param){.name = "scale", .dtype = DT_F32, .index_axis = -1};
    p->params[PAR_CAP] = (fg_param){.name = "cap", .dtype = DT_F32, .index_axis = -1};
    p->params[PAR_G] = (fg_param){.name = "G", .dtype = DT_INT, .index_axis = -1};
    p->ntensors = NTENSORS;
    p->tensors = ARENA_ARRAY(f->a, fg_ir_tensor, NTENSORS);

    const int mn[] = {AX_M, AX_N}, nd[] = {AX_N, AX_D}, m[] = {AX_M}, md[] = {AX_M, AX_D};
    set_input(f, TS, "S", 2, mn);
    set_input(f, TV, "V", 2, nd);
    set_input(f, TX, "X", 2, mn);
    set_input(f, TB, "B", 1, m);
    set_stmt(f, TT, "T", 2, mn);
    p->tensors[TT].rhs = where(f, bin(f, E_LE, axis_ref(f, AX_N), axis_ref(f, AX_M)),
                               tn(f, TS), expr_unary(f->a, E_NEG, expr_new(f->a, E_INF,
                                                                           (fg_loc){0, 0}, 0)));
    set_stmt(f, TMX, "Mx", 1, m);
    set_reduction(f, TMX, R_MAX, tn(f, TT));
    set_stmt(f, TP, "P", 2, mn);
    p->tensors[TP].rhs = exp_of_diff(f, TT, TMX);
    set_stmt(f, TL, "L", 1, m);
    set_reduction(f, TL, R_SUM, tn(f, TP));
    set_stmt(f, TOSUM, "O_sum", 2, md);
    set_reduction(f, TOSUM, R_SUM, bin(f, E_MUL, tn(f, TP), tn(f, TV)));
    set_stmt(f, TR, "R", 1, m);
    set_reduction(f, TR, R_SUM, tn(f, TS));
    set_stmt(f, TMSUM, "Mean_sum", 1, m);
    set_reduction(f, TMSUM, R_SUM, tn(f, TX));
    set_stmt(f, TMEAN, "Mean", 1, m);
    fg_expr *dim_n = expr_ref(f->a, E_DIM, DIM_N, "N");
    dim_n->type = T_INT;
    p->tensors[TMEAN].rhs = bin(f, E_DIV, tn(f, TMSUM), dim_n);
    set_stmt(f, TVAR, "Var", 1, m);
    set_reduction(f, TVAR, R_SUM,
                  bin(f, E_POW, bin(f, E_SUB, tn(f, TX), tn(f, TMEAN)), num(f, 2)));
    set_stmt(f, TMN, "Mn", 1, m);
    set_reduction(f, TMN, R_MIN, tn(f, TS));

    source_from_string(&f->src, "t.fp", plan_text);
    f->out = open_memstream(&f->msg, &f->msglen);
    assert_non_null(f->out);
    diag_init(&f->d, &f->src, f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->out);
    free(f->msg);
    arena_destroy(f->a);
    free(f);
    return 0;
}

/* ---- evaluating at known points ---- */

typedef struct point {
    double tensor[NTENSORS]; /* E_TENSOR: new values of running ones */
    double prev[NTENSORS];   /* E_PREV */
    double dim[NDIMS], axis[NAXES], param[NPARAMS];
    double acc;
} point;

static double point_leaf(void *ctx, const fg_expr *e)
{
    const point *pt = ctx;
    switch (e->kind) {
    case E_TENSOR: return pt->tensor[e->ref];
    case E_PREV: return pt->prev[e->ref];
    case E_DIM: return pt->dim[e->ref];
    case E_AXIS: return pt->axis[e->ref];
    case E_PARAM: return pt->param[e->ref];
    case E_ACC: return pt->acc;
    default: return NAN;
    }
}

static double eval_at(const fg_expr *e, const point *pt)
{
    fg_eval_env env = {point_leaf, (void *)pt};
    return expr_eval(e, &env);
}

static const char *str(fixture *f, const fg_expr *e)
{
    return expr_to_string(f->a, f->p, e);
}

static const char *diag_text(fixture *f)
{
    fflush(f->out);
    return f->msg ? f->msg : "";
}

/* The first line of the diagnostics written so far. */
static char *first_line(fixture *f)
{
    const char *s = diag_text(f);
    const char *nl = strchr(s, '\n');
    return arena_strndup(f->a, s, nl ? (size_t)(nl - s) : strlen(s));
}

static const fg_loc loc_r = {4, 1};

static fg_correction derive_ok(fixture *f, const fg_expr *body, fg_reduce_op op,
                               uint64_t running, int stmt)
{
    fg_correction c;
    int rc = derive_correction(f->a, f->p, body, op, running, stmt, loc_r, &c, &f->d);
    if (rc != 0)
        fprintf(stderr, "unexpected diagnostics:\n%s", diag_text(f));
    assert_int_equal(rc, 0);
    assert_int_equal(f->d.errors, 0);
    assert_true(c.verified);
    assert_true(c.max_rel_err < 1e-12);
    assert_int_equal(c.origin, stmt);
    assert_non_null(c.why);
    return c;
}

static void derive_fails(fixture *f, const fg_expr *body, fg_reduce_op op, uint64_t running,
                         int stmt, const char *want)
{
    fg_correction c;
    int rc = derive_correction(f->a, f->p, body, op, running, stmt, loc_r, &c, &f->d);
    assert_int_equal(rc, -1);
    assert_int_equal(f->d.errors, 1);
    assert_int_equal(f->d.fatal, 0);
    assert_string_equal(first_line(f), want);
    /* The source line and a caret under column 1 follow. */
    assert_non_null(strstr(diag_text(f), "\nR[m] = sum(n: S)\n^\n"));
}

/* ---- expr_eval ---- */

static void test_eval_arithmetic_and_leaves(void **state)
{
    fixture *f = *state;
    point pt = {0};
    pt.tensor[TS] = 3.0;
    pt.tensor[TMX] = -1.25;
    pt.prev[TMX] = 0.5;
    pt.dim[DIM_N] = 7;
    pt.axis[AX_N] = 5;
    pt.param[PAR_SCALE] = 0.125;
    pt.acc = 9.5;
    fg_expr *s = tn(f, TS), *mx = tn(f, TMX);
    fg_expr *prev = expr_ref(f->a, E_PREV, TMX, "Mx");
    fg_expr *acc = expr_new(f->a, E_ACC, (fg_loc){0, 0}, 0);
    fg_expr *dim = expr_ref(f->a, E_DIM, DIM_N, "N");
    dim->type = T_INT;
    fg_expr *ax = axis_ref(f, AX_N);
    fg_expr *par = expr_ref(f->a, E_PARAM, PAR_SCALE, "scale");
    assert_near(eval_at(num(f, 2.5), &pt), 2.5, 0);
    assert_true(isinf(eval_at(expr_new(f->a, E_INF, (fg_loc){0, 0}, 0), &pt)));
    assert_true(eval_at(expr_new(f->a, E_INF, (fg_loc){0, 0}, 0), &pt) > 0);
    assert_near(eval_at(s, &pt), 3.0, 0);
    assert_near(eval_at(prev, &pt), 0.5, 0);
    assert_near(eval_at(acc, &pt), 9.5, 0);
    assert_near(eval_at(dim, &pt), 7, 0);
    assert_near(eval_at(ax, &pt), 5, 0);
    assert_near(eval_at(par, &pt), 0.125, 0);
    assert_near(eval_at(expr_unary(f->a, E_NEG, s), &pt), -3.0, 0);
    assert_near(eval_at(bin(f, E_ADD, s, mx), &pt), 1.75, 0);
    assert_near(eval_at(bin(f, E_SUB, s, mx), &pt), 4.25, 0);
    assert_near(eval_at(bin(f, E_MUL, s, mx), &pt), -3.75, 0);
    assert_near(eval_at(bin(f, E_DIV, s, mx), &pt), -2.4, 1e-15);
    assert_near(eval_at(bin(f, E_POW, s, num(f, 2)), &pt), 9.0, 0);
    assert_near(eval_at(bin(f, E_POW, s, num(f, -0.5)), &pt), 1 / sqrt(3.0), 1e-15);
    /* int / int truncates toward zero; a float operand divides exactly. */
    fg_expr *i7 = num(f, 7), *i2 = num(f, -2);
    i7->type = T_INT;
    i2->type = T_INT;
    assert_near(eval_at(bin(f, E_DIV, i7, i2), &pt), -3, 0);
    assert_near(eval_at(bin(f, E_DIV, dim, i2), &pt), -3, 0);
    assert_near(eval_at(bin(f, E_DIV, num(f, 7), num(f, -2)), &pt), -3.5, 0);
    fg_expr *i9 = num(f, 9);
    i9->type = T_INT;
    assert_near(eval_at(bin(f, E_DIV, i9, dim), &pt), 1, 0);
}

static void test_eval_comparisons_logic_and_where(void **state)
{
    fixture *f = *state;
    point pt = {0};
    pt.tensor[TS] = 2;
    pt.tensor[TX] = 3;
    fg_expr *s = tn(f, TS), *x = tn(f, TX);
    const struct {
        fg_expr_kind k;
        double want;
    } cmp[] = {{E_LT, 1}, {E_LE, 1}, {E_GT, 0}, {E_GE, 0}, {E_EQ, 0}, {E_NE, 1}};
    for (size_t i = 0; i < sizeof cmp / sizeof cmp[0]; i++)
        assert_near(eval_at(bin(f, cmp[i].k, s, x), &pt), cmp[i].want, 0);
    assert_near(eval_at(bin(f, E_LE, s, s), &pt), 1, 0);
    assert_near(eval_at(bin(f, E_GE, s, s), &pt), 1, 0);
    assert_near(eval_at(bin(f, E_EQ, s, s), &pt), 1, 0);
    fg_expr *t = bin(f, E_LT, s, x), *fl = bin(f, E_GT, s, x);
    assert_near(eval_at(bin(f, E_AND, t, t), &pt), 1, 0);
    assert_near(eval_at(bin(f, E_AND, t, fl), &pt), 0, 0);
    assert_near(eval_at(bin(f, E_OR, fl, t), &pt), 1, 0);
    assert_near(eval_at(bin(f, E_OR, fl, fl), &pt), 0, 0);
    assert_near(eval_at(expr_unary(f->a, E_NOT, t), &pt), 0, 0);
    assert_near(eval_at(expr_unary(f->a, E_NOT, fl), &pt), 1, 0);
    assert_near(eval_at(where(f, t, s, x), &pt), 2, 0);
    assert_near(eval_at(where(f, fl, s, x), &pt), 3, 0);
    fg_expr *ninf = expr_unary(f->a, E_NEG, expr_new(f->a, E_INF, (fg_loc){0, 0}, 0));
    double masked = eval_at(where(f, fl, s, ninf), &pt);
    assert_true(isinf(masked) && masked < 0);
}

static void test_eval_functions(void **state)
{
    fixture *f = *state;
    point pt = {0};
    pt.tensor[TS] = 0.75;
    pt.tensor[TX] = -1.5;
    fg_expr *s = tn(f, TS), *x = tn(f, TX);
    const struct {
        fg_func fn;
        double want;
    } one[] = {
        {F_EXP, 2.1170000166126748},     {F_EXP2, 1.6817928305074290},
        {F_LOG, -0.28768207245178090},   {F_LOG2, -0.41503749927884381},
        {F_TANH, 0.63514895238728730},   {F_SIGMOID, 0.67917869917539297},
        {F_SQRT, 0.86602540378443865},   {F_RSQRT, 1.1547005383792515},
        {F_ABS, 0.75},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        assert_near(eval_at(call1(f, one[i].fn, s), &pt), one[i].want, 1e-15);
    assert_near(eval_at(call1(f, F_ABS, x), &pt), 1.5, 0);
    assert_near(eval_at(call1(f, F_SIGMOID, x), &pt), 0.18242552380635635, 1e-15);
    assert_near(eval_at(call2(f, F_MIN, s, x), &pt), -1.5, 0);
    assert_near(eval_at(call2(f, F_MAX, s, x), &pt), 0.75, 0);
    assert_near(eval_at(call2(f, F_POW, s, num(f, 3)), &pt), 0.421875, 1e-16);
    assert_true(isnan(eval_at(call1(f, F_LOG, x), &pt)));
}

/* ---- derivations ---- */

/* L = sum(n: exp(T - Mx)) under a running Mx: the online-softmax rescale. */
static void test_online_softmax_rescales_by_exp_of_max_change(void **state)
{
    fixture *f = *state;
    fg_expr *body = exp_of_diff(f, TT, TMX);
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TL);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_int_equal(c.producers, BIT(TMX));
    assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
    assert_string_equal(c.why, "exp(T - Mx) separates into exp(T) * exp(-Mx); under sum the "
                               "factor exp(-Mx) rescales by exp(Mx_prev - Mx)");
    point pt = {0};
    pt.prev[TMX] = 1.5;
    pt.tensor[TMX] = 2.5;
    assert_near(eval_at(c.factor, &pt), exp(-1.0), 1e-16);
    /* The correction applied to exp(T - Mx_prev) gives exp(T - Mx). */
    pt.tensor[TT] = 0.3;
    assert_near(exp(0.3 - 1.5) * eval_at(c.factor, &pt), exp(0.3 - 2.5), 1e-16);
}

static void test_exp2_with_folded_scale(void **state)
{
    fixture *f = *state;
    const double log2e = 1.4426950408889634;
    fg_expr *body = call1(f, F_EXP2, bin(f, E_MUL, bin(f, E_SUB, tn(f, TT), tn(f, TMX)),
                                         num(f, log2e)));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TL);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "exp2((Mx_prev - Mx) * 1.4426950408889634)");
    point pt = {0};
    pt.prev[TMX] = -0.5;
    pt.tensor[TMX] = 3;
    assert_near(eval_at(c.factor, &pt), exp2(-3.5 * log2e), 1e-16);
    assert_near(eval_at(c.factor, &pt), exp(-3.5), 1e-15);
}

static void test_scale_by_a_parameter_factors_out(void **state)
{
    fixture *f = *state;
    fg_expr *scale = expr_ref(f->a, E_PARAM, PAR_SCALE, "scale");
    fg_expr *body = call1(f, F_EXP, bin(f, E_MUL, bin(f, E_SUB, tn(f, TS), tn(f, TMX)), scale));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TL);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "exp((Mx_prev - Mx) * scale)");
    point pt = {0};
    pt.prev[TMX] = 2;
    pt.tensor[TMX] = 4;
    pt.param[PAR_SCALE] = 0.25;
    assert_near(eval_at(c.factor, &pt), exp(-0.5), 1e-16);
}

static void test_attention_pv_accumulator(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_MUL, exp_of_diff(f, TT, TMX), tn(f, TV));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX) | BIT(TL), TOSUM);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_int_equal(c.producers, BIT(TMX));
    assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
    assert_string_equal(c.why, "exp(T - Mx) * V separates into V * exp(T) * exp(-Mx); under sum "
                               "the factor exp(-Mx) rescales by exp(Mx_prev - Mx)");
    point pt = {0};
    pt.prev[TMX] = -2;
    pt.tensor[TMX] = 0.25;
    assert_near(eval_at(c.factor, &pt), exp(-2.25), 1e-16);
}

/* FlashAttention-1 keeps O normalised: O = sum(n: exp(T - Mx) / L * V). */
static void test_flash_attention_1_two_producers(void **state)
{
    fixture *f = *state;
    fg_expr *body =
        bin(f, E_MUL, bin(f, E_DIV, exp_of_diff(f, TT, TMX), tn(f, TL)), tn(f, TV));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX) | BIT(TL), TOSUM);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_int_equal(c.producers, BIT(TMX) | BIT(TL));
    assert_string_equal(str(f, c.factor), "L_prev / L * exp(Mx_prev - Mx)");
    point pt = {0};
    pt.prev[TMX] = 1;
    pt.tensor[TMX] = 1.5;
    pt.prev[TL] = 3;
    pt.tensor[TL] = 5;
    assert_near(eval_at(c.factor, &pt), 3.0 / 5.0 * exp(-0.5), 1e-16);
}

/* The same where the scores are masked inside the body. */
static void test_masked_scores_keep_the_where_on_the_complete_part(void **state)
{
    fixture *f = *state;
    fg_expr *ninf = expr_unary(f->a, E_NEG, expr_new(f->a, E_INF, (fg_loc){0, 0}, 0));
    fg_expr *cond = bin(f, E_LE, axis_ref(f, AX_N), axis_ref(f, AX_M));
    fg_expr *body = call1(f, F_EXP, bin(f, E_SUB, where(f, cond, tn(f, TS), ninf), tn(f, TMX)));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TL);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
    /* where(c, x, 0) * V: the where stays with the complete factor. */
    fg_expr *body2 = where(f, bin(f, E_LE, axis_ref(f, AX_N), axis_ref(f, AX_M)),
                           bin(f, E_MUL, exp_of_diff(f, TS, TMX), tn(f, TV)), num(f, 0));
    fg_correction c2 = derive_ok(f, body2, R_SUM, BIT(TMX), TOSUM);
    assert_int_equal(c2.kind, CORR_SCALE);
    assert_string_equal(str(f, c2.factor), "exp(Mx_prev - Mx)");
    assert_non_null(strstr(c2.why, "separates into where(n <= m, V * exp(S), 0) * exp(-Mx)"));
}

static void test_max_of_difference_shifts(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_SUB, tn(f, TS), tn(f, TMX));
    fg_correction c = derive_ok(f, body, R_MAX, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_SHIFT);
    assert_int_equal(c.producers, BIT(TMX));
    assert_string_equal(str(f, c.factor), "Mx_prev - Mx");
    assert_string_equal(c.why, "S - Mx separates into S + -Mx; under max the term -Mx shifts "
                               "by Mx_prev - Mx");
    point pt = {0};
    pt.prev[TMX] = 1;
    pt.tensor[TMX] = 3.5;
    assert_near(eval_at(c.factor, &pt), -2.5, 0);
    /* (S - Mx_prev) + factor == S - Mx */
    assert_near((0.7 - 1) + eval_at(c.factor, &pt), 0.7 - 3.5, 1e-15);
}

static void test_min_of_log_ratio_shifts(void **state)
{
    fixture *f = *state;
    /* min(n: S - log(L)): a nonlinear function of a running value alone. */
    fg_expr *body = bin(f, E_SUB, tn(f, TS), call1(f, F_LOG, tn(f, TL)));
    fg_correction c = derive_ok(f, body, R_MIN, BIT(TL), TR);
    assert_int_equal(c.kind, CORR_SHIFT);
    assert_string_equal(str(f, c.factor), "log(L_prev) - log(L)");
    point pt = {0};
    pt.prev[TL] = 2;
    pt.tensor[TL] = 8;
    assert_near(eval_at(c.factor, &pt), log(0.25), 1e-15);
}

static void test_max_under_nonnegative_scale(void **state)
{
    fixture *f = *state;
    /* max(n: S * exp(-Mx)): the factor is an exp, so it is >= 0. */
    fg_expr *body = bin(f, E_MUL, tn(f, TS), call1(f, F_EXP, expr_unary(f->a, E_NEG,
                                                                        tn(f, TMX))));
    fg_correction c = derive_ok(f, body, R_MAX, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
    /* max(n: S / L) with L a running sum of exps: L_prev / L is >= 0. */
    fg_expr *body2 = bin(f, E_DIV, tn(f, TS), tn(f, TL));
    fg_correction c2 = derive_ok(f, body2, R_MAX, BIT(TL), TR);
    assert_int_equal(c2.kind, CORR_SCALE);
    assert_string_equal(str(f, c2.factor), "L_prev / L");
}

static void test_no_running_value_needs_no_correction(void **state)
{
    fixture *f = *state;
    /* A per-row value B does not vary along n but is not running either. */
    fg_expr *body = bin(f, E_MUL, tn(f, TS), tn(f, TB));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_NONE);
    assert_null(c.factor);
    assert_int_equal(c.producers, 0);
    assert_string_equal(c.why, "S * B reads no running value: nothing to correct");
}

static void test_per_row_complete_value_may_join_the_factor(void **state)
{
    fixture *f = *state;
    /* exp(T - Mx * B): B is constant along n, so Mx * B separates. */
    fg_expr *body = call1(f, F_EXP, bin(f, E_SUB, tn(f, TT), bin(f, E_MUL, tn(f, TMX),
                                                                 tn(f, TB))));
    fg_correction c = derive_ok(f, body, R_SUM, BIT(TMX), TL);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "exp((Mx_prev - Mx) * B)");
    point pt = {0};
    pt.prev[TMX] = 1;
    pt.tensor[TMX] = 2;
    pt.tensor[TB] = 3;
    assert_near(eval_at(c.factor, &pt), exp(-3.0), 1e-16);
}

static void test_powers_and_like_terms_combine(void **state)
{
    fixture *f = *state;
    point pt = {0};
    pt.prev[TMX] = 0.5;
    pt.tensor[TMX] = 2;
    pt.prev[TL] = 4;
    pt.tensor[TL] = 9;
    /* exp(S - Mx) * exp(S - Mx): the two -Mx terms combine. */
    fg_expr *sq = bin(f, E_MUL, exp_of_diff(f, TS, TMX), exp_of_diff(f, TS, TMX));
    fg_correction c = derive_ok(f, sq, R_SUM, BIT(TMX), TL);
    assert_string_equal(str(f, c.factor), "exp((Mx_prev - Mx) * 2)");
    assert_near(eval_at(c.factor, &pt), exp(-3.0), 1e-16);
    /* sqrt(exp(S - Mx)): a power of an exp is an exp of a multiple. */
    fg_expr *root = call1(f, F_SQRT, exp_of_diff(f, TS, TMX));
    c = derive_ok(f, root, R_SUM, BIT(TMX), TL);
    assert_string_equal(str(f, c.factor), "exp((Mx_prev - Mx) * 0.5)");
    assert_near(eval_at(c.factor, &pt), exp(-0.75), 1e-16);
    /* S * rsqrt(L) under sum: (L / L_prev) ^ -0.5. */
    fg_expr *norm = bin(f, E_MUL, tn(f, TS), call1(f, F_RSQRT, tn(f, TL)));
    c = derive_ok(f, norm, R_SUM, BIT(TL), TR);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(str(f, c.factor), "sqrt(L_prev) / sqrt(L)");
    assert_near(eval_at(c.factor, &pt), 2.0 / 3.0, 1e-16);
    /* exp(S) / exp(Mx) is exp(S - Mx). */
    fg_expr *ratio = bin(f, E_DIV, call1(f, F_EXP, tn(f, TS)), call1(f, F_EXP, tn(f, TMX)));
    c = derive_ok(f, ratio, R_MAX, BIT(TMX), TR);
    assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
    /* -exp(S - Mx) under max: a negative constant stays with S. */
    c = derive_ok(f, expr_unary(f->a, E_NEG, exp_of_diff(f, TS, TMX)), R_MAX, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_SCALE);
    assert_string_equal(c.why, "-exp(S - Mx) separates into -exp(S) * exp(-Mx); under max the "
                               "factor exp(-Mx) rescales by exp(Mx_prev - Mx)");
}

static void test_masked_max_of_difference_shifts(void **state)
{
    fixture *f = *state;
    fg_expr *ninf = expr_unary(f->a, E_NEG, expr_new(f->a, E_INF, (fg_loc){0, 0}, 0));
    fg_expr *cond = bin(f, E_LE, axis_ref(f, AX_N), axis_ref(f, AX_M));
    fg_expr *body = where(f, cond, bin(f, E_SUB, tn(f, TS), tn(f, TMX)), ninf);
    fg_correction c = derive_ok(f, body, R_MAX, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_SHIFT);
    assert_string_equal(str(f, c.factor), "Mx_prev - Mx");
    assert_string_equal(c.why, "where(n <= m, S - Mx, -inf) separates into where(n <= m, S, "
                               "-inf) + -Mx; under max the term -Mx shifts by Mx_prev - Mx");
}

static void test_reject_names_the_whole_sum_when_its_parts_separate(void **state)
{
    fixture *f = *state;
    /* exp(S - Mx) separates alone; exp(S - Mx) + 1 does not. */
    fg_expr *body = bin(f, E_ADD, exp_of_diff(f, TS, TMX), num(f, 1));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "maximum 'Mx' inside 'exp(S - Mx) + 1', which does not separate into a "
                 "factor or a term of 'Mx' alone");
}

/* ---- rejections ---- */

static void test_reject_square_of_difference_with_max(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_POW, bin(f, E_SUB, tn(f, TS), tn(f, TMX)), num(f, 2));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "maximum 'Mx' inside '(S - Mx) ^ 2', which does not separate into a factor "
                 "or a term of 'Mx' alone");
}

static void test_reject_tanh_of_difference(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_MUL, tn(f, TV), call1(f, F_TANH, bin(f, E_SUB, tn(f, TS),
                                                                  tn(f, TMX))));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "maximum 'Mx' inside 'tanh(S - Mx)', which does not separate into a factor "
                 "or a term of 'Mx' alone");
}

static void test_reject_possibly_negative_scale_under_max(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_MUL, tn(f, TS), tn(f, TMX));
    derive_fails(f, body, R_MAX, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body 'S * Mx' rescales with "
                 "the running maximum 'Mx', but the factor 'Mx' may be negative, so rescaling "
                 "does not distribute over max");
}

static void test_reject_shift_under_sum(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_SUB, tn(f, TS), tn(f, TMX));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body 'S - Mx' shifts with "
                 "the running maximum 'Mx', but a shift under sum needs the count of terms "
                 "(not supported yet)");
}

/* Powers of a difference from a running value are carried up to the 4th
 * (check_aux.c); a 5th names the limit. */
static void test_reject_fifth_power_about_a_mean(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_POW, bin(f, E_SUB, tn(f, TX), tn(f, TMEAN)), num(f, 5));
    derive_fails(f, body, R_SUM, BIT(TMSUM) | BIT(TMEAN), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "value 'Mean' inside '(X - Mean) ^ 5'; the sums of powers of a difference "
                 "from a running value are carried for whole powers up to the power 4");
}

/* A square without the sums the checker carries beside it (this plan was
 * not checked): nothing to shift it by. */
static void test_reject_square_without_its_carried_sums(void **state)
{
    fixture *f = *state;
    fg_expr *dim_n = expr_ref(f->a, E_DIM, DIM_N, "N");
    fg_expr *d = bin(f, E_SUB, tn(f, TX), bin(f, E_DIV, tn(f, TMSUM), dim_n));
    fg_expr *body = bin(f, E_MUL, d, expr_clone(f->a, d));
    derive_fails(f, body, R_SUM, BIT(TMSUM), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "sum 'Mean_sum' inside '(X - Mean_sum / N) * (X - Mean_sum / N)', which does "
                 "not separate into a factor or a term of 'Mean_sum' alone");
}

static void test_reject_reciprocal_of_a_difference_is_not_welford(void **state)
{
    fixture *f = *state;
    fg_expr *body = bin(f, E_DIV, num(f, 1), bin(f, E_SUB, tn(f, TX), tn(f, TMEAN)));
    derive_fails(f, body, R_SUM, BIT(TMSUM) | BIT(TMEAN), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "value 'Mean' inside '1 / (X - Mean)', which does not separate into a factor "
                 "or a term of 'Mean' alone");
}

static void test_reject_body_undefined_at_every_point(void **state)
{
    fixture *f = *state;
    /* sqrt of a negative number: the correction is right but cannot be checked. */
    fg_expr *neg = bin(f, E_SUB, num(f, -1), call1(f, F_ABS, tn(f, TV)));
    fg_expr *body = bin(f, E_MUL, exp_of_diff(f, TS, TMX), call1(f, F_SQRT, neg));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body 'exp(S - Mx) * sqrt(-1 - "
                 "abs(V))' is undefined or overflows at 20000 of 20000 random points, so its "
                 "correction 'exp(Mx_prev - Mx)' cannot be checked");
    /* Without a running value the identity is exact whatever the body. */
    fixture *g = f;
    fclose(g->out);
    free(g->msg);
    g->msg = NULL;
    g->out = open_memstream(&g->msg, &g->msglen);
    diag_init(&g->d, &g->src, g->out);
    fg_correction c = derive_ok(g, call1(g, F_SQRT, neg), R_SUM, BIT(TMX), TR);
    assert_int_equal(c.kind, CORR_NONE);
}

/* ---- the numeric check ---- */

static void test_numeric_check_catches_a_wrong_factor(void **state)
{
    fixture *f = *state;
    fg_expr *body = exp_of_diff(f, TT, TMX);
    fg_correction c = {.kind = CORR_SCALE};
    /* The inverse of the right factor: exp(Mx - Mx_prev). */
    c.factor = call1(f, F_EXP, bin(f, E_SUB, tn(f, TMX), expr_ref(f->a, E_PREV, TMX, "Mx")));
    int rc = verify_correction(f->a, f->p, body, R_SUM, BIT(TMX), TL, loc_r, &c, &f->d);
    assert_int_equal(rc, -1);
    assert_false(c.verified);
    assert_int_equal(f->d.fatal, 1);
    assert_non_null(strstr(first_line(f), "t.fp:4:1: internal error: derived correction for "
                                          "'L' failed its numeric check: "));
}

static void test_numeric_check_catches_a_factor_that_varies_along_the_axis(void **state)
{
    fixture *f = *state;
    /* exp(S - Mx * V) rescaled by exp((Mx_prev - Mx) * V): right for each
     * element alone, wrong for a row of several (V changes along n). */
    fg_expr *body =
        call1(f, F_EXP, bin(f, E_SUB, tn(f, TS), bin(f, E_MUL, tn(f, TMX), tn(f, TV))));
    fg_correction c = {.kind = CORR_SCALE};
    fg_expr *d = bin(f, E_SUB, expr_ref(f->a, E_PREV, TMX, "Mx"), tn(f, TMX));
    c.factor = call1(f, F_EXP, bin(f, E_MUL, d, tn(f, TV)));
    int rc = verify_correction(f->a, f->p, body, R_SUM, BIT(TMX), TOSUM, loc_r, &c, &f->d);
    assert_int_equal(rc, -1);
    assert_false(c.verified);
    assert_non_null(strstr(first_line(f), "failed its numeric check: a folded row gives "));
}

static void test_reject_running_value_times_a_varying_value(void **state)
{
    fixture *f = *state;
    fg_expr *body =
        call1(f, F_EXP, bin(f, E_SUB, tn(f, TS), bin(f, E_MUL, tn(f, TMX), tn(f, TV))));
    derive_fails(f, body, R_SUM, BIT(TMX), TR,
                 "t.fp:4:1: error: cannot fuse 'R' over 'n': its body reads the running "
                 "maximum 'Mx' inside 'exp(S - Mx * V)', which does not separate into a factor "
                 "or a term of 'Mx' alone");
}

static void test_numeric_check_accepts_the_right_factor(void **state)
{
    fixture *f = *state;
    fg_expr *body = exp_of_diff(f, TT, TMX);
    fg_correction c = {.kind = CORR_SCALE};
    c.factor = call1(f, F_EXP, bin(f, E_SUB, expr_ref(f->a, E_PREV, TMX, "Mx"), tn(f, TMX)));
    int rc = verify_correction(f->a, f->p, body, R_SUM, BIT(TMX), TL, loc_r, &c, &f->d);
    assert_int_equal(rc, 0);
    assert_true(c.verified);
    assert_true(c.max_rel_err < 1e-12);
    assert_int_equal(f->d.errors, 0);
}

/* ---- the bundled plans, through the parser and the checker ---- */

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* A parsed and checked plan with the bodies of its running reductions
 * inlined the way the fusion phase does: every statement that reads a
 * running value (directly or through others) is replaced by its right
 * side. */
typedef struct plan_run {
    fg_plan *p;
    int axis, n;
    int tensor[16];
    uint64_t before[16]; /* the running reductions ordered before it */
    fg_expr *body[16];
} plan_run;

static fg_expr *inline_dependent(fixture *f, const fg_plan *p, const bool *dep,
                                 const fg_expr *e)
{
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < p->ntensors && dep[e->ref])
        return inline_dependent(f, p, dep, p->tensors[e->ref].rhs);
    fg_expr *c = expr_clone(f->a, e);
    for (int i = 0; i < c->nargs; i++)
        c->args[i] = inline_dependent(f, p, dep, e->args[i]);
    return c;
}

static bool reads_any(const fg_expr *e, const bool *mark)
{
    if (e->kind == E_TENSOR && e->ref >= 0 && mark[e->ref])
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_any(e->args[i], mark))
            return true;
    return false;
}

static void load_plan(fixture *f, const char *path, const char *text, plan_run *pr)
{
    fg_source *src = ARENA_NEW(f->a, fg_source);
    if (path)
        assert_int_equal(source_read(f->a, path, src, &f->d), 0);
    else
        source_from_string(src, "v.fp", text);
    f->d.src = src;
    assert_int_equal(parse_plan(f->a, src, &f->d, &pr->p), 0);
    assert_int_equal(check_plan(pr->p, &f->d), 0);
    fg_plan *p = pr->p;
    f->p = p;
    pr->axis = p->sched.reduce_axis;
    assert_true(pr->axis >= 0 && pr->axis < p->naxes);
    bool *running = ARENA_ARRAY(f->a, bool, p->ntensors);
    bool *dep = ARENA_ARRAY(f->a, bool, p->ntensors);
    uint64_t before = 0;
    pr->n = 0;
    for (int i = 0; i < p->norder; i++) {
        int t = p->order[i];
        const fg_ir_tensor *ts = &p->tensors[t];
        if ((ts->cls == CLASS_REDUCTION || ts->cls == CLASS_CONTRACTION) &&
            ts->red_axis == pr->axis) {
            assert_true(pr->n < 16 && t < 64);
            pr->tensor[pr->n] = t;
            pr->before[pr->n] = before;
            pr->body[pr->n] = inline_dependent(f, p, dep, ts->body);
            pr->n++;
            running[t] = true;
            before |= BIT(t);
        } else if (ts->kind == TENSOR_STMT) {
            dep[t] = reads_any(ts->rhs, running) || reads_any(ts->rhs, dep);
        }
    }
}

static const char *const bundled[] = {
    "alibi",  "alibi_decode", "causal",         "causal_decode", "global",
    "gqa",    "gqa_decode",   "logsoftmax",     "logsumexp",     "softcap",
    "softcap_decode", "softmax", "window",
};

static void test_bundled_plans_derive_the_online_softmax(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < sizeof bundled / sizeof bundled[0]; i++) {
        plan_run pr;
        load_plan(f, arena_printf(f->a, "%s/plans/%s.fp", srcdir(), bundled[i]), NULL, &pr);
        const fg_plan *p = pr.p;
        int seen_l = 0;
        for (int k = 0; k < pr.n; k++) {
            const fg_ir_tensor *t = &p->tensors[pr.tensor[k]];
            fg_correction c = derive_ok(f, pr.body[k], t->op, pr.before[k], pr.tensor[k]);
            if (strcmp(t->name, "Mx") == 0) {
                assert_int_equal(c.kind, CORR_NONE);
                continue;
            }
            /* L = sum(exp(X - Mx)) and O_sum = sum(exp(T - Mx) * V). */
            assert_true(strcmp(t->name, "L") == 0 || strcmp(t->name, "O_sum") == 0);
            seen_l += strcmp(t->name, "L") == 0;
            assert_int_equal(c.kind, CORR_SCALE);
            assert_int_equal(c.producers, BIT(plan_find_tensor(p, "Mx")));
            assert_string_equal(str(f, c.factor), "exp(Mx_prev - Mx)");
        }
        assert_int_equal(seen_l, 1);
    }
}

static void test_bundled_plan_why_names_the_parts(void **state)
{
    fixture *f = *state;
    plan_run pr;
    load_plan(f, arena_printf(f->a, "%s/plans/global.fp", srcdir()), NULL, &pr);
    int l = plan_find_tensor(pr.p, "L"), k = 0;
    while (k < pr.n && pr.tensor[k] != l)
        k++;
    assert_true(k < pr.n);
    fg_correction c = derive_ok(f, pr.body[k], R_SUM, pr.before[k], l);
    assert_string_equal(c.why, "exp(S - Mx) separates into exp(S) * exp(-Mx); under sum the "
                               "factor exp(-Mx) rescales by exp(Mx_prev - Mx)");
}

static const char *const variance_plan =
    "plan var\n"
    "dim R, C\n"
    "axis r: R, c: C\n"
    "input X[r, c]: f32\n"
    "Mean[r] = sum(c: X) / C\n"
    "Var[r] = sum(c: (X - Mean) ^ 2) / C\n"
    "output Var: f32\n"
    "schedule {\n"
    "  reduce c: rolling\n"
    "  tile r = 4, c = 256\n"
    "  target c\n"
    "}\n";

/* The variance about the running mean (issue 13): the checker carries the
 * count and the first power beside it, the algebra derives the binomial
 * shift and checks it numerically. */
static void test_plan_with_variance_carries_its_lower_powers(void **state)
{
    fixture *f = *state;
    plan_run pr;
    load_plan(f, NULL, variance_plan, &pr);
    const fg_plan *p = pr.p;
    int k = 0;
    while (k < pr.n && strcmp(p->tensors[pr.tensor[k]].name, "Var_sum") != 0)
        k++;
    assert_true(k < pr.n);
    int var_sum = pr.tensor[k];
    const fg_ir_tensor *t = &p->tensors[var_sum];
    fg_correction c;
    int rc = derive_correction(f->a, p, pr.body[k], t->op, pr.before[k], var_sum, t->loc, &c,
                               &f->d);
    assert_int_equal(rc, 0);
    assert_int_equal(f->d.errors, 0);
    assert_int_equal(c.kind, CORR_SHIFT);
    assert_true(c.verified);
    assert_true(c.max_rel_err < 1e-9);
    /* Mean = Mean_sum / C is carried as Mean_sum / Var_sum_count, the mean
     * of the elements seen (Welford's) */
    assert_string_equal(expr_to_string(f->a, p, c.factor),
                        "where(Var_sum_count_prev > 0, Var_sum_count_prev * (Mean_sum_prev / "
                        "Var_sum_count_prev - Mean_sum / Var_sum_count) ^ 2 + 2 * "
                        "(Var_sum_pow1_prev * (Mean_sum_prev / Var_sum_count_prev - Mean_sum / "
                        "Var_sum_count)), 0)");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_eval_arithmetic_and_leaves),
        T(test_eval_comparisons_logic_and_where),
        T(test_eval_functions),
        T(test_online_softmax_rescales_by_exp_of_max_change),
        T(test_exp2_with_folded_scale),
        T(test_scale_by_a_parameter_factors_out),
        T(test_attention_pv_accumulator),
        T(test_flash_attention_1_two_producers),
        T(test_masked_scores_keep_the_where_on_the_complete_part),
        T(test_max_of_difference_shifts),
        T(test_min_of_log_ratio_shifts),
        T(test_max_under_nonnegative_scale),
        T(test_no_running_value_needs_no_correction),
        T(test_per_row_complete_value_may_join_the_factor),
        T(test_powers_and_like_terms_combine),
        T(test_masked_max_of_difference_shifts),
        T(test_reject_names_the_whole_sum_when_its_parts_separate),
        T(test_reject_square_of_difference_with_max),
        T(test_reject_tanh_of_difference),
        T(test_reject_possibly_negative_scale_under_max),
        T(test_reject_shift_under_sum),
        T(test_reject_fifth_power_about_a_mean),
        T(test_reject_square_without_its_carried_sums),
        T(test_reject_reciprocal_of_a_difference_is_not_welford),
        T(test_reject_body_undefined_at_every_point),
        T(test_numeric_check_catches_a_wrong_factor),
        T(test_numeric_check_catches_a_factor_that_varies_along_the_axis),
        T(test_numeric_check_accepts_the_right_factor),
        T(test_reject_running_value_times_a_varying_value),
        T(test_bundled_plans_derive_the_online_softmax),
        T(test_bundled_plan_why_names_the_parts),
        T(test_plan_with_variance_carries_its_lower_powers),
    };
    return cmocka_run_group_tests_name("algebra", tests, NULL, NULL);
}
