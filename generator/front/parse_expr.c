/* parse_expr.c - the expression grammar of the plan language, for parse.c:
 * precedence climbing from || down to primaries, calls and reductions
 * (REDUCER(AXIS: e)), index lists.  Nesting is counted at every recursive
 * production and capped at FG_MAX_EXPR_DEPTH.  A binary or unary node is
 * located at its operator, a call or reduction at its name. */
#include "parse_internal.h"

#include <limits.h>
#include <string.h>

/* ---- expressions ----------------------------------------------------- */

static fg_expr *parse_unary(parser *p);

static bool enter(parser *p, fg_loc loc)
{
    if (++p->depth > FG_MAX_EXPR_DEPTH) {
        diag_error(p->d, loc, "expression nested deeper than %d levels", FG_MAX_EXPR_DEPTH);
        return false;
    }
    return true;
}

static void leave(parser *p)
{
    p->depth--;
}

/* A nested sub-expression (an argument, an index, a parenthesised group);
 * `loc` is where the nesting level opens, for the depth error. */
static fg_expr *parse_nested(parser *p, fg_loc loc)
{
    if (!enter(p, loc))
        return NULL;
    fg_expr *e = parse_expr(p);
    leave(p);
    return e;
}

static fg_expr *new_binary(parser *p, fg_expr_kind k, fg_loc loc, fg_expr *x, fg_expr *y)
{
    fg_expr *e = expr_new(p->a, k, loc, 2);
    e->args[0] = x;
    e->args[1] = y;
    return e;
}

/* "(" or "[" already consumed: arguments up to `close`; nest is raised. */
int parse_arg_list(parser *p, fg_tok_kind close, fg_vec *args, const char *what)
{
    if (parse_at(p, close)) {
        parse_next(p);
        return 0;
    }
    for (;;) {
        fg_expr *e = parse_nested(p, parse_peek(p)->loc);
        if (!e)
            return -1;
        vec_push(p->a, args, e);
        if (parse_accept(p, TK_COMMA))
            continue;
        if (parse_accept(p, close))
            return 0;
        return parse_expected(p, arena_printf(p->a, "',' or %s %s", fg_tok_names[close], what));
    }
}

static void set_args(parser *p, fg_expr *e, const fg_vec *v)
{
    e->nargs = v->len;
    e->args = ARENA_ARRAY(p->a, fg_expr *, v->len > 0 ? v->len : 1);
    for (int i = 0; i < v->len; i++)
        e->args[i] = v->items[i];
}

static int find_func(const fg_token *t)
{
    for (int i = 0; i < F_COUNT; i++)
        if (parse_tok_is(t, fg_func_names[i]))
            return i;
    return -1;
}

static int find_reducer(const fg_token *t)
{
    for (int i = 0; i < 3; i++)
        if (parse_tok_is(t, fg_reduce_names[i]))
            return i;
    return -1;
}

/* NAME "(" ... ")": a reduction REDUCER(AXIS: e) or a function call. */
static fg_expr *parse_call(parser *p, const fg_token *name)
{
    parse_next(p); /* "(" */
    p->nest++;
    int op = find_reducer(name);
    if (op >= 0 && parse_peek(p)->kind == TK_IDENT && parse_peek_at(p, 1)->kind == TK_COLON) {
        fg_token axis = parse_next(p);
        parse_next(p); /* ":" */
        fg_expr *body = parse_nested(p, parse_peek(p)->loc);
        if (!body)
            return NULL;
        if (parse_expect(p, TK_RPAREN, arena_printf(p->a, " to close '%.*s('", (int)name->len,
                                              name->text)) < 0)
            return NULL;
        p->nest--;
        fg_expr *e = expr_new(p->a, E_REDUCE, name->loc, 1);
        e->op = (fg_reduce_op)op;
        e->reduce_axis_name = parse_tok_str(p, &axis);
        e->reduce_axis_loc = axis.loc;
        e->args[0] = body;
        return e;
    }
    if (parse_tok_is(name, "clamp")) {
        /* clamp(x, lo, hi) is min(max(x, lo), hi): no function of its own */
        fg_vec cargs = {0};
        if (parse_arg_list(p, TK_RPAREN, &cargs, "in the arguments of 'clamp'") < 0)
            return NULL;
        p->nest--;
        if (cargs.len != 3) {
            diag_error(p->d, name->loc, "'clamp' takes 3 arguments (x, lo, hi), found %d",
                       cargs.len);
            return NULL;
        }
        fg_expr *mx = expr_new(p->a, E_CALL, name->loc, 2);
        mx->fn = F_MAX;
        mx->args[0] = cargs.items[0];
        mx->args[1] = cargs.items[1];
        fg_expr *mn = expr_new(p->a, E_CALL, name->loc, 2);
        mn->fn = F_MIN;
        mn->args[0] = mx;
        mn->args[1] = cargs.items[2];
        return mn;
    }
    int fn = find_func(name);
    if (fn < 0) {
        if (op >= 0)
            diag_error(p->d, parse_peek(p)->loc, "expected 'AXIS:' after '%.*s(' (a reduction is %.*s(AXIS: EXPR))",
                       (int)name->len, name->text, (int)name->len, name->text);
        else
            diag_error(p->d, name->loc, "unknown function '%.*s'", (int)name->len, name->text);
        return NULL;
    }
    fg_vec args = {0};
    if (parse_arg_list(p, TK_RPAREN, &args, arena_printf(p->a, "in the arguments of '%s'",
                                                         fg_func_names[fn])) < 0)
        return NULL;
    p->nest--;
    if (args.len != fg_func_arity[fn]) {
        if (op >= 0 && args.len == 1)
            diag_error(p->d, name->loc,
                       "'%s' takes %d arguments, found 1 (a reduction is written %s(AXIS: EXPR))",
                       fg_func_names[fn], fg_func_arity[fn], fg_func_names[fn]);
        else
            diag_error(p->d, name->loc, "'%s' takes %d argument%s, found %d", fg_func_names[fn],
                       fg_func_arity[fn], fg_func_arity[fn] == 1 ? "" : "s", args.len);
        return NULL;
    }
    fg_expr *e = expr_new(p->a, E_CALL, name->loc, 0);
    e->fn = (fg_func)fn;
    set_args(p, e, &args);
    return e;
}

static fg_expr *parse_primary(parser *p)
{
    const fg_token *t = parse_peek(p);
    fg_token tok = *t;
    switch (tok.kind) {
    case TK_NUMBER: {
        parse_next(p);
        fg_expr *e = expr_new(p->a, E_NUM, tok.loc, 0);
        e->num = tok.num;
        e->is_int = tok.is_int;
        return e;
    }
    case TK_KW_INF:
        parse_next(p);
        return expr_new(p->a, E_INF, tok.loc, 0);
    case TK_LPAREN: {
        parse_next(p);
        p->nest++;
        fg_expr *e = parse_nested(p, tok.loc);
        if (!e || parse_expect(p, TK_RPAREN, " to close '('") < 0)
            return NULL;
        p->nest--;
        return e;
    }
    case TK_KW_WHERE: {
        parse_next(p);
        if (!parse_at(p, TK_LPAREN)) {
            parse_expected(p, "'(' after 'where'");
            return NULL;
        }
        parse_next(p);
        p->nest++;
        fg_vec args = {0};
        if (parse_arg_list(p, TK_RPAREN, &args, "in the arguments of 'where'") < 0)
            return NULL;
        p->nest--;
        if (args.len != 3) {
            diag_error(p->d, tok.loc, "'where' takes 3 arguments (condition, then, else), found %d",
                       args.len);
            return NULL;
        }
        fg_expr *e = expr_new(p->a, E_WHERE, tok.loc, 0);
        set_args(p, e, &args);
        return e;
    }
    case TK_IDENT: {
        parse_next(p);
        if (parse_at(p, TK_LPAREN))
            return parse_call(p, &tok);
        fg_expr *e = expr_new(p->a, E_NAME, tok.loc, 0);
        e->name = parse_tok_str(p, &tok);
        if (parse_at(p, TK_LBRACKET)) {
            parse_next(p);
            p->nest++;
            fg_vec args = {0};
            if (parse_arg_list(p, TK_RBRACKET, &args,
                               arena_printf(p->a, "in the index list of '%s'", e->name)) < 0)
                return NULL;
            p->nest--;
            set_args(p, e, &args);
            e->bracketed = true;
        }
        return e;
    }
    default:
        parse_expected(p, "an expression");
        return NULL;
    }
}

/* power := primary [ "^" unary ] */
static fg_expr *parse_power(parser *p)
{
    fg_expr *base = parse_primary(p);
    if (!base || !parse_at(p, TK_CARET))
        return base;
    fg_token op = parse_next(p);
    if (!enter(p, op.loc))
        return NULL;
    fg_expr *exponent = parse_unary(p);
    leave(p);
    if (!exponent)
        return NULL;
    /* A negative constant exponent is one number (the exponent is a NUM). */
    if (exponent->kind == E_NEG && exponent->args[0]->kind == E_NUM) {
        fg_expr *num = exponent->args[0];
        num->num = -num->num;
        num->loc = exponent->loc;
        exponent = num;
    }
    return new_binary(p, E_POW, op.loc, base, exponent);
}

/* unary := ("-" | "!") unary | power */
static fg_expr *parse_unary(parser *p)
{
    if (!parse_at(p, TK_MINUS) && !parse_at(p, TK_NOT))
        return parse_power(p);
    fg_token op = parse_next(p);
    if (!enter(p, op.loc))
        return NULL;
    fg_expr *x = parse_unary(p);
    leave(p);
    if (!x)
        return NULL;
    fg_expr *e = expr_new(p->a, op.kind == TK_MINUS ? E_NEG : E_NOT, op.loc, 1);
    e->args[0] = x;
    return e;
}

static fg_expr *parse_mul(parser *p)
{
    fg_expr *e = parse_unary(p);
    while (e && (parse_at(p, TK_STAR) || parse_at(p, TK_SLASH))) {
        fg_token op = parse_next(p);
        fg_expr *y = parse_unary(p);
        if (!y)
            return NULL;
        e = new_binary(p, op.kind == TK_STAR ? E_MUL : E_DIV, op.loc, e, y);
    }
    return e;
}

static fg_expr *parse_add(parser *p)
{
    fg_expr *e = parse_mul(p);
    while (e && (parse_at(p, TK_PLUS) || parse_at(p, TK_MINUS))) {
        fg_token op = parse_next(p);
        fg_expr *y = parse_mul(p);
        if (!y)
            return NULL;
        e = new_binary(p, op.kind == TK_PLUS ? E_ADD : E_SUB, op.loc, e, y);
    }
    return e;
}

static int cmp_kind(fg_tok_kind k)
{
    switch (k) {
    case TK_LT: return E_LT;
    case TK_LE: return E_LE;
    case TK_GT: return E_GT;
    case TK_GE: return E_GE;
    case TK_EQ: return E_EQ;
    case TK_NE: return E_NE;
    default: return -1;
    }
}

/* cmp := add [ op add ]: comparisons do not chain. */
static fg_expr *parse_cmp(parser *p)
{
    fg_expr *e = parse_add(p);
    if (!e || cmp_kind(parse_peek(p)->kind) < 0)
        return e;
    fg_token op = parse_next(p);
    fg_expr *y = parse_add(p);
    if (!y)
        return NULL;
    if (cmp_kind(parse_peek(p)->kind) >= 0) {
        diag_error(p->d, parse_peek(p)->loc,
                   "comparisons do not chain: write 'a < b && b < c' instead of 'a < b < c'");
        return NULL;
    }
    return new_binary(p, (fg_expr_kind)cmp_kind(op.kind), op.loc, e, y);
}

static fg_expr *parse_and(parser *p)
{
    fg_expr *e = parse_cmp(p);
    while (e && parse_at(p, TK_AND)) {
        fg_token op = parse_next(p);
        fg_expr *y = parse_cmp(p);
        if (!y)
            return NULL;
        e = new_binary(p, E_AND, op.loc, e, y);
    }
    return e;
}

fg_expr *parse_expr(parser *p)
{
    fg_expr *e = parse_and(p);
    while (e && parse_at(p, TK_OR)) {
        fg_token op = parse_next(p);
        fg_expr *y = parse_and(p);
        if (!y)
            return NULL;
        e = new_binary(p, E_OR, op.loc, e, y);
    }
    return e;
}

