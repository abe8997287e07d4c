/* print.c - one printer of expressions for the C family of languages.
 *
 * The C backend (host C), the CUDA backend (device and host code) and the
 * HIP backend print the plan's expressions with the same operators,
 * precedence, literals and casts; they differ in the names of the math
 * functions (a dialect table below) and in how a leaf reads (a dim, an
 * axis, a param, a tensor element, a running value): each backend gives a
 * leaf callback.  The plan-syntax printer for comments is dump.c's
 * expr_to_string.
 */
#include "generator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const fg_dialect fg_dialects[DIALECT_COUNT] = {
    [DIALECT_C] = {
        .name = "c",
        .fn = {[F_EXP] = "expf", [F_EXP2] = "exp2f", [F_LOG] = "logf", [F_LOG2] = "log2f",
               [F_TANH] = "tanhf", [F_SIGMOID] = "sigmoid_", [F_SQRT] = "sqrtf",
               [F_RSQRT] = "rsqrt_", [F_ABS] = "fabsf", [F_MIN] = "fminf", [F_MAX] = "fmaxf",
               [F_POW] = "powf"},
        .int_abs = "labs", .int_min = "min_l_", .int_max = "max_l_",
        .float_suffix = "f", .to_float = "(float)(", .div0 = "div0_",
    },
    [DIALECT_CUDA] = {
        .name = "cuda",
        .fn = {[F_EXP] = "__expf", [F_EXP2] = "exp2f", [F_LOG] = "__logf",
               [F_LOG2] = "__log2f", [F_TANH] = "fa_tanh", [F_SIGMOID] = "plan_sigmoid",
               [F_SQRT] = "sqrtf", [F_RSQRT] = "rsqrtf", [F_ABS] = "fabsf", [F_MIN] = "fminf",
               [F_MAX] = "fmaxf", [F_POW] = "powf"},
        .int_abs = "abs", .int_min = "min", .int_max = "max",
        .float_suffix = "f", .to_float = "(float)(", .div0 = NULL,
    },
    /* HIP device code (the HIP backend): compiler builtins and the
     * skeleton's helpers only, no device library call, so that a target
     * built with -nogpulib (gfx942 under Debian's clang-19) links */
    [DIALECT_HIP] = {
        .name = "hip",
        .fn = {[F_EXP] = "__builtin_expf", [F_EXP2] = "__builtin_exp2f",
               [F_LOG] = "__builtin_logf", [F_LOG2] = "__builtin_log2f", [F_TANH] = "fa_tanh",
               [F_SIGMOID] = "plan_sigmoid", [F_SQRT] = "__builtin_sqrtf",
               [F_RSQRT] = "plan_rsqrt", [F_ABS] = "__builtin_fabsf",
               [F_MIN] = "__builtin_fminf", [F_MAX] = "__builtin_fmaxf", [F_POW] = "plan_pow"},
        .int_abs = "plan_iabs", .int_min = "plan_imin", .int_max = "plan_imax",
        .float_suffix = "f", .to_float = "(float)(", .div0 = NULL,
    },
    [DIALECT_HOST] = {
        .name = "host",
        .fn = {[F_EXP] = "exp", [F_EXP2] = "exp2", [F_LOG] = "log", [F_LOG2] = "log2",
               [F_TANH] = "tanh", [F_SIGMOID] = "plan_sigmoid_host", [F_SQRT] = "sqrt",
               [F_RSQRT] = "plan_rsqrt_host", [F_ABS] = "fabs", [F_MIN] = "fmin",
               [F_MAX] = "fmax", [F_POW] = "pow"},
        .int_abs = "labs", .int_min = "plan_min_host", .int_max = "plan_max_host",
        .float_suffix = "", .to_float = "(double)(", .div0 = NULL,
    },
};

int code_prec(fg_expr_kind k)
{
    switch (k) {
    case E_OR: return 1;
    case E_AND: return 2;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE: return 3;
    case E_ADD: case E_SUB: return 4;
    case E_MUL: case E_DIV: return 5;
    case E_NEG: case E_NOT: return 6;
    default: return 7;
    }
}

static const char *binop(fg_expr_kind k)
{
    switch (k) {
    case E_OR: return " || ";
    case E_AND: return " && ";
    case E_LT: return " < ";
    case E_LE: return " <= ";
    case E_GT: return " > ";
    case E_GE: return " >= ";
    case E_EQ: return " == ";
    case E_NE: return " != ";
    case E_ADD: return " + ";
    case E_SUB: return " - ";
    case E_MUL: return " * ";
    case E_DIV: return " / ";
    default: return " ? ";
    }
}

void print_float(fg_strbuf *b, double v, const char *suffix)
{
    if (isinf(v)) {
        strbuf_puts(b, v > 0 ? "INFINITY" : "-INFINITY");
        return;
    }
    /* float: 9 digits keep every float; double: the shortest that reads back */
    char t[64];
    snprintf(t, sizeof t, "%.9g", v);
    for (int digits = 15; !*suffix && strtod(t, NULL) != v && digits <= 17; digits++)
        snprintf(t, sizeof t, "%.*g", digits, v);
    if (!strpbrk(t, ".eEn"))
        strcat(t, ".0");
    strbuf_puts(b, t);
    strbuf_puts(b, suffix);
}

/* Drop the '(' just written for a node that brackets itself. */
static void unparen(fg_strbuf *b)
{
    b->len--;
    b->s[b->len] = '\0';
}

static void args(fg_printer *pr, fg_strbuf *b, const fg_expr *e, bool to_float)
{
    for (int i = 0; i < e->nargs; i++) {
        if (i)
            strbuf_puts(b, ", ");
        if (to_float && e->args[i]->type == T_INT) {
            strbuf_puts(b, pr->dl->to_float);
            code_expr(pr, b, e->args[i], 0);
            strbuf_puts(b, ")");
        } else
            code_expr(pr, b, e->args[i], 0);
    }
}

void code_expr(fg_printer *pr, fg_strbuf *b, const fg_expr *e, int prec)
{
    int my = code_prec(e->kind);
    bool paren = my < prec;
    if (paren)
        strbuf_puts(b, "(");
    switch (e->kind) {
    case E_NUM:
        if (e->type == T_INT || (e->is_int && e->type != T_FLOAT))
            strbuf_printf(b, "%ld", (long)e->num);
        else
            print_float(b, e->num, pr->dl->float_suffix);
        break;
    case E_INF:
        strbuf_puts(b, "INFINITY");
        break;
    case E_DIM: case E_AXIS: case E_PARAM: case E_TENSOR: case E_PREV: case E_ACC:
    case E_KCONST:
        pr->leaf(pr, b, e);
        break;
    case E_NEG:
        strbuf_puts(b, "-");
        code_expr(pr, b, e->args[0], 7);
        break;
    case E_NOT:
        strbuf_puts(b, "!");
        code_expr(pr, b, e->args[0], 7);
        break;
    case E_DIV:
        if (pr->masked_div && pr->dl->div0 && rule_masked_div(pr->p, e)) {
            if (paren)
                unparen(b), paren = false;
            strbuf_printf(b, "%s(", pr->dl->div0);
            code_expr(pr, b, e->args[0], 0);
            strbuf_puts(b, ", ");
            code_expr(pr, b, e->args[1], 0);
            strbuf_puts(b, ")");
            break;
        }
        /* fall through */
    case E_ADD: case E_SUB: case E_MUL: case E_OR: case E_AND:
        code_expr(pr, b, e->args[0], my);
        strbuf_puts(b, binop(e->kind));
        code_expr(pr, b, e->args[1], my + 1);
        break;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
        code_expr(pr, b, e->args[0], my + 1);
        strbuf_puts(b, binop(e->kind));
        code_expr(pr, b, e->args[1], my + 1);
        break;
    case E_POW:
        if (pr->dl->square && e->args[1]->kind == E_NUM && e->args[1]->num == 2) {
            if (paren)
                unparen(b), paren = false;
            strbuf_printf(b, "%s(", pr->dl->square);
            code_expr(pr, b, e->args[0], 0);
            strbuf_puts(b, ")");
            break;
        }
        strbuf_printf(b, "%s(", pr->dl->fn[F_POW]);
        args(pr, b, e, true);
        strbuf_puts(b, ")");
        break;
    case E_CALL: {
        bool all_int = true;
        for (int i = 0; i < e->nargs; i++)
            all_int = all_int && e->args[i]->type == T_INT;
        bool int_fn = all_int && (e->fn == F_ABS || e->fn == F_MIN || e->fn == F_MAX);
        const char *f = (unsigned)e->fn < F_COUNT ? pr->dl->fn[e->fn] : NULL;
        if (int_fn)
            f = e->fn == F_ABS ? pr->dl->int_abs : e->fn == F_MIN ? pr->dl->int_min : pr->dl->int_max;
        strbuf_printf(b, "%s(", f ? f : "?");
        args(pr, b, e, !int_fn);
        strbuf_puts(b, ")");
        break;
    }
    case E_WHERE: {
        const fg_expr *no = e->args[2];
        bool mask = pr->where_full && no->kind == E_NEG && no->args[0]->kind == E_INF;
        if (paren)
            unparen(b), paren = false;
        strbuf_puts(b, "(");
        if (mask) {
            strbuf_printf(b, "(%s || ", pr->where_full);
            code_expr(pr, b, e->args[0], 3);
            strbuf_puts(b, ")");
        } else
            code_expr(pr, b, e->args[0], 2);
        strbuf_puts(b, " ? ");
        code_expr(pr, b, e->args[1], 1);
        strbuf_puts(b, " : ");
        code_expr(pr, b, e->args[2], 1);
        strbuf_puts(b, ")");
        break;
    }
    case E_NAME: case E_REDUCE: case E_COUNT:
        pr->errors++;
        strbuf_puts(b, "0");
        break;
    }
    if (paren)
        strbuf_puts(b, ")");
}

char *code_expr_text(fg_printer *pr, const fg_expr *e)
{
    fg_strbuf b = {pr->a, NULL, 0, 0};
    code_expr(pr, &b, e, 0);
    return strbuf_str(&b);
}
