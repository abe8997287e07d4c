/* dump.c - printing: expressions in plan syntax, and the syntax tree.
 *
 * Expressions print with the fewest parentheses that parse back to the same
 * tree (see the grammar in docs/plan-language.md): a child is parenthesised
 * only when its operator binds less tightly than its position requires. */
#include "fusegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A growable string in an arena: both printers go through it. */
typedef struct strbuf {
    fg_arena *a;
    char *s;
    size_t len, cap;
} strbuf;

static void sb_putn(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = arena_alloc(b->a, cap);
        if (b->len)
            memcpy(p, b->s, b->len);
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

/* Binding strength, loosest first; a primary binds tightest. */
enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_CMP,
    PREC_ADD,
    PREC_MUL,
    PREC_UNARY,
    PREC_POW,
    PREC_PRIMARY
};

static int expr_prec(const fg_expr *e)
{
    switch (e->kind) {
    case E_OR:
        return PREC_OR;
    case E_AND:
        return PREC_AND;
    case E_LT:
    case E_LE:
    case E_GT:
    case E_GE:
    case E_EQ:
    case E_NE:
        return PREC_CMP;
    case E_ADD:
    case E_SUB:
        return PREC_ADD;
    case E_MUL:
    case E_DIV:
        return PREC_MUL;
    case E_NEG:
    case E_NOT:
        return PREC_UNARY;
    case E_POW:
        return PREC_POW;
    case E_NUM:
        /* A negative number prints with a leading '-', like a negation. */
        return signbit(e->num) && !isnan(e->num) ? PREC_UNARY : PREC_PRIMARY;
    default:
        return PREC_PRIMARY;
    }
}

static const char *binary_op_text(fg_expr_kind k)
{
    switch (k) {
    case E_ADD: return " + ";
    case E_SUB: return " - ";
    case E_MUL: return " * ";
    case E_DIV: return " / ";
    case E_POW: return " ^ ";
    case E_LT: return " < ";
    case E_LE: return " <= ";
    case E_GT: return " > ";
    case E_GE: return " >= ";
    case E_EQ: return " == ";
    case E_NE: return " != ";
    case E_AND: return " && ";
    case E_OR: return " || ";
    default: return NULL;
    }
}

/* The shortest decimal that reads back as the same double. */
static void format_number(char *buf, size_t size, double v)
{
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void print_expr(strbuf *b, const fg_plan *p, const fg_expr *e);

static void print_child(strbuf *b, const fg_plan *p, const fg_expr *e, bool parens)
{
    if (parens)
        sb_puts(b, "(");
    print_expr(b, p, e);
    if (parens)
        sb_puts(b, ")");
}

static void print_args(strbuf *b, const fg_plan *p, const fg_expr *e, const char *open,
                       const char *close)
{
    sb_puts(b, open);
    for (int i = 0; i < e->nargs; i++) {
        if (i)
            sb_puts(b, ", ");
        print_expr(b, p, e->args[i]);
    }
    sb_puts(b, close);
}

/* The name a reference prints as: as written, else from the plan's tables. */
static const char *ref_name(const fg_plan *p, const fg_expr *e)
{
    if (e->name)
        return e->name;
    if (p && e->ref >= 0) {
        switch (e->kind) {
        case E_DIM:
            if (e->ref < p->ndims)
                return p->dims[e->ref].name;
            break;
        case E_AXIS:
            if (e->ref < p->naxes)
                return p->axes[e->ref].name;
            break;
        case E_PARAM:
            if (e->ref < p->nparams)
                return p->params[e->ref].name;
            break;
        case E_TENSOR:
        case E_PREV:
            if (e->ref < p->ntensors)
                return p->tensors[e->ref].name;
            break;
        default:
            break;
        }
    }
    return NULL;
}

static void print_ref(strbuf *b, const fg_plan *p, const fg_expr *e)
{
    const char *name = ref_name(p, e);
    if (name) {
        sb_puts(b, name);
    } else {
        char buf[48];
        snprintf(buf, sizeof buf, "%s#%d", fg_expr_kind_names[e->kind], e->ref);
        sb_puts(b, buf);
    }
}

static void print_expr(strbuf *b, const fg_plan *p, const fg_expr *e)
{
    char buf[64];
    if (!e) {
        sb_puts(b, "<null>");
        return;
    }
    int prec = expr_prec(e);
    switch (e->kind) {
    case E_NUM:
        format_number(buf, sizeof buf, e->num);
        sb_puts(b, buf);
        return;
    case E_INF:
        sb_puts(b, "inf");
        return;
    case E_ACC:
        sb_puts(b, "t");
        return;
    case E_PREV:
        print_ref(b, p, e);
        sb_puts(b, "_prev");
        return;
    case E_NAME:
    case E_DIM:
    case E_AXIS:
    case E_PARAM:
    case E_TENSOR:
        print_ref(b, p, e);
        if (e->bracketed)
            print_args(b, p, e, "[", "]");
        return;
    case E_NEG:
    case E_NOT:
        sb_puts(b, e->kind == E_NEG ? "-" : "!");
        print_child(b, p, e->args[0], expr_prec(e->args[0]) < PREC_UNARY);
        return;
    case E_POW:
        /* power := primary "^" unary: the base is a primary, the exponent
         * any unary (so a ^ b ^ c is a ^ (b ^ c)). */
        print_child(b, p, e->args[0], expr_prec(e->args[0]) < PREC_PRIMARY);
        sb_puts(b, " ^ ");
        print_child(b, p, e->args[1], expr_prec(e->args[1]) < PREC_UNARY);
        return;
    case E_CALL:
        sb_puts(b, (unsigned)e->fn < F_COUNT ? fg_func_names[e->fn] : "?");
        print_args(b, p, e, "(", ")");
        return;
    case E_WHERE:
        sb_puts(b, "where");
        print_args(b, p, e, "(", ")");
        return;
    case E_REDUCE: {
        sb_puts(b, (unsigned)e->op < 3 ? fg_reduce_names[e->op] : "?");
        sb_puts(b, "(");
        const char *axis = e->reduce_axis_name;
        if (!axis && p && e->ref >= 0 && e->ref < p->naxes)
            axis = p->axes[e->ref].name;
        if (axis) {
            sb_puts(b, axis);
        } else {
            snprintf(buf, sizeof buf, "AXIS#%d", e->ref);
            sb_puts(b, buf);
        }
        sb_puts(b, ": ");
        print_expr(b, p, e->nargs > 0 ? e->args[0] : NULL);
        sb_puts(b, ")");
        return;
    }
    default:
        break;
    }
    const char *op = binary_op_text(e->kind);
    if (op && e->nargs == 2) {
        /* Left-associative: the left child may share our precedence, the
         * right child may not.  Comparisons do not chain at all. */
        int left = expr_prec(e->args[0]), right = expr_prec(e->args[1]);
        bool lpar = prec == PREC_CMP ? left <= prec : left < prec;
        print_child(b, p, e->args[0], lpar);
        sb_puts(b, op);
        print_child(b, p, e->args[1], right <= prec);
        return;
    }
    snprintf(buf, sizeof buf, "<%s?>",
             (unsigned)e->kind < E_COUNT ? fg_expr_kind_names[e->kind] : "?");
    sb_puts(b, buf);
}

char *expr_to_string(fg_arena *a, const fg_plan *p, const fg_expr *e)
{
    strbuf b = {a, NULL, 0, 0};
    sb_puts(&b, "");
    print_expr(&b, p, e);
    return b.s;
}

void expr_print(FILE *f, const fg_plan *p, const fg_expr *e)
{
    fg_arena *a = arena_create();
    fputs(expr_to_string(a, p, e), f);
    arena_destroy(a);
}
