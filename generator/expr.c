/* expr.c - expression nodes and the name tables every phase shares. */
#include "fusegen.h"

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
