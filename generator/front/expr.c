/* expr.c - expression nodes, the name tables every phase shares, and
 * evaluation in double precision (expr_eval). */
#include "generator.h"

#include <math.h>
#include <string.h>

const char *const fg_tok_names[TK_COUNT] = {
#define X(name, text) text,
    FG_TOKENS(X)
#undef X
};

const char *const fg_expr_kind_names[E_COUNT] = {
#define X(name, arity) #name,
    FG_EXPR_KINDS(X)
#undef X
};

const int fg_expr_kind_arity[E_COUNT] = {
#define X(name, arity) arity,
    FG_EXPR_KINDS(X)
#undef X
};

const char *const fg_func_names[F_COUNT] = {
#define X(id, name, arity) name,
    FG_FUNCS(X)
#undef X
};

const int fg_func_arity[F_COUNT] = {
#define X(id, name, arity) arity,
    FG_FUNCS(X)
#undef X
};

const char *const fg_reduce_names[3] = {"sum", "max", "min"};
const char *const fg_dtype_names[4] = {"bf16", "fp16", "f32", "int"};
const char *const fg_form_names[2] = {"rolling", "split"};
const char *const fg_role_names[5] = {"input", "prologue", "tile", "running", "epilogue"};

fg_expr *expr_new(fg_arena *a, fg_expr_kind kind, fg_loc loc, int nargs)
{
    fg_expr *e = ARENA_NEW(a, fg_expr);
    e->kind = kind;
    e->loc = loc;
    e->ref = -1;
    e->nargs = nargs;
    if (nargs > 0)
        e->args = ARENA_ARRAY(a, fg_expr *, nargs);
    return e;
}

fg_expr *expr_num(fg_arena *a, double v)
{
    fg_expr *e = expr_new(a, E_NUM, (fg_loc){0, 0}, 0);
    e->num = v;
    return e;
}

fg_expr *expr_unary(fg_arena *a, fg_expr_kind kind, fg_expr *x)
{
    fg_expr *e = expr_new(a, kind, x->loc, 1);
    e->args[0] = x;
    return e;
}

fg_expr *expr_binary(fg_arena *a, fg_expr_kind kind, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_new(a, kind, x->loc, 2);
    e->args[0] = x;
    e->args[1] = y;
    return e;
}

fg_expr *expr_call1(fg_arena *a, fg_func fn, fg_expr *x)
{
    fg_expr *e = expr_new(a, E_CALL, x->loc, 1);
    e->fn = fn;
    e->args[0] = x;
    return e;
}

fg_expr *expr_ref(fg_arena *a, fg_expr_kind kind, int ref, const char *name)
{
    fg_expr *e = expr_new(a, kind, (fg_loc){0, 0}, 0);
    e->ref = ref;
    e->name = name;
    return e;
}

fg_expr *expr_clone(fg_arena *a, const fg_expr *e)
{
    if (!e)
        return NULL;
    fg_expr *c = ARENA_NEW(a, fg_expr);
    *c = *e;
    if (e->nargs > 0) {
        c->args = ARENA_ARRAY(a, fg_expr *, e->nargs);
        for (int i = 0; i < e->nargs; i++)
            c->args[i] = expr_clone(a, e->args[i]);
    }
    return c;
}

static bool same_name(const char *x, const char *y)
{
    if (!x || !y)
        return x == y;
    return strcmp(x, y) == 0;
}

static bool reads_at(const fg_expr *e, int t, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return false;
    if ((e->kind == E_TENSOR || e->kind == E_PREV) && e->ref == t)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_at(e->args[i], t, depth + 1))
            return true;
    return false;
}

bool expr_reads(const fg_expr *e, int t)
{
    return reads_at(e, t, 0);
}

static bool holds_at(const fg_expr *e, const fg_expr *part, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (expr_equal(e, part))
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (holds_at(e->args[i], part, depth + 1))
            return true;
    return false;
}

bool expr_holds(const fg_expr *e, const fg_expr *part)
{
    return holds_at(e, part, 0);
}

/* Structural equality: kinds, values, references and arguments; locations
 * and the checker's annotations (type, axes) do not take part. */
bool expr_equal(const fg_expr *x, const fg_expr *y)
{
    if (x == y)
        return true;
    if (!x || !y || x->kind != y->kind || x->nargs != y->nargs)
        return false;
    switch (x->kind) {
    case E_NUM:
        if (!(x->num == y->num) && !(x->num != x->num && y->num != y->num))
            return false;
        break;
    case E_NAME:
        if (!same_name(x->name, y->name) || x->bracketed != y->bracketed)
            return false;
        break;
    case E_DIM:
    case E_AXIS:
    case E_PARAM:
    case E_TENSOR:
    case E_PREV:
        if (x->ref != y->ref)
            return false;
        if (x->ref < 0 && !same_name(x->name, y->name))
            return false;
        break;
    case E_CALL:
        if (x->fn != y->fn)
            return false;
        break;
    case E_REDUCE:
        if (x->op != y->op || x->ref != y->ref)
            return false;
        if (x->ref < 0 && !same_name(x->reduce_axis_name, y->reduce_axis_name))
            return false;
        break;
    default:
        break;
    }
    for (int i = 0; i < x->nargs; i++)
        if (!expr_equal(x->args[i], y->args[i]))
            return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* Evaluation in double precision                                      */
/* ------------------------------------------------------------------ */

static double eval_func(fg_func fn, const double *v)
{
    switch (fn) {
    case F_EXP: return exp(v[0]);
    case F_EXP2: return exp2(v[0]);
    case F_LOG: return log(v[0]);
    case F_LOG2: return log2(v[0]);
    case F_TANH: return tanh(v[0]);
    case F_SIGMOID: return 1.0 / (1.0 + exp(-v[0]));
    case F_SQRT: return sqrt(v[0]);
    case F_RSQRT: return 1.0 / sqrt(v[0]);
    case F_ABS: return fabs(v[0]);
    case F_MIN: return fmin(v[0], v[1]);
    case F_MAX: return fmax(v[0], v[1]);
    case F_POW: return pow(v[0], v[1]);
    default: return NAN;
    }
}

/* Division of two ints truncates toward zero, as in C. */
static double int_divide(double x, double y)
{
    if (y == 0 || !isfinite(x) || !isfinite(y))
        return NAN;
    if (fabs(x) < 9.0e15 && fabs(y) < 9.0e15)
        return (double)((long long)x / (long long)y);
    return trunc(x / y);
}

static double eval_leaf(const fg_expr *e, const fg_eval_env *env)
{
    if (!env || !env->leaf)
        return NAN;
    return env->leaf(env->ctx, e);
}

/* Plain IEEE double arithmetic.  Leaves (and anything expr_eval cannot
 * compute alone: unresolved names, nested reductions) go to env->leaf. */
double expr_eval(const fg_expr *e, const fg_eval_env *env)
{
    if (!e)
        return NAN;
    double x, y;
    switch (e->kind) {
    case E_NUM:
        return e->num;
    case E_INF:
        return INFINITY;
    case E_NAME:
    case E_DIM:
    case E_AXIS:
    case E_PARAM:
    case E_TENSOR:
    case E_PREV:
    case E_ACC:
    case E_REDUCE:
        return eval_leaf(e, env);
    case E_NEG:
        return -expr_eval(e->args[0], env);
    case E_NOT:
        return expr_eval(e->args[0], env) == 0 ? 1.0 : 0.0;
    case E_AND:
        if (expr_eval(e->args[0], env) == 0)
            return 0.0;
        return expr_eval(e->args[1], env) != 0 ? 1.0 : 0.0;
    case E_OR:
        if (expr_eval(e->args[0], env) != 0)
            return 1.0;
        return expr_eval(e->args[1], env) != 0 ? 1.0 : 0.0;
    case E_WHERE:
        return expr_eval(e->args[0], env) != 0 ? expr_eval(e->args[1], env)
                                               : expr_eval(e->args[2], env);
    case E_CALL: {
        double v[2] = {NAN, NAN};
        if ((unsigned)e->fn >= F_COUNT || e->nargs != fg_func_arity[e->fn])
            return NAN;
        for (int i = 0; i < e->nargs; i++)
            v[i] = expr_eval(e->args[i], env);
        return eval_func(e->fn, v);
    }
    default:
        break;
    }
    if (e->nargs != 2)
        return NAN;
    x = expr_eval(e->args[0], env);
    y = expr_eval(e->args[1], env);
    switch (e->kind) {
    case E_ADD: return x + y;
    case E_SUB: return x - y;
    case E_MUL: return x * y;
    case E_DIV:
        if (e->args[0]->type == T_INT && e->args[1]->type == T_INT)
            return int_divide(x, y);
        return x / y;
    case E_POW: return pow(x, y);
    case E_LT: return x < y ? 1.0 : 0.0;
    case E_LE: return x <= y ? 1.0 : 0.0;
    case E_GT: return x > y ? 1.0 : 0.0;
    case E_GE: return x >= y ? 1.0 : 0.0;
    case E_EQ: return x == y ? 1.0 : 0.0;
    case E_NE: return x != y ? 1.0 : 0.0;
    default: return NAN;
    }
}

