/* dump.c - printing: expressions in plan syntax, and the syntax tree.
 *
 * Expressions print with the fewest parentheses that parse back to the same
 * tree (see the grammar in docs/plan-language.md): a child is parenthesised
 * only when its operator binds less tightly than its position requires. */
#include "generator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A growable string in an arena: both printers go through it. */
typedef fg_strbuf strbuf;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts

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
            break;
    }
    /* Plain notation for ordinary magnitudes: 50, not 5e+01. */
    if (strchr(buf, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e16) {
        for (int decimals = 0; decimals <= 20; decimals++) {
            snprintf(buf, size, "%.*f", decimals, v);
            if (strtod(buf, NULL) == v)
                break;
        }
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
        /* A real written as a real stays one when read back: -8.0 * h / H
         * is not integer division. */
        if (!e->is_int && e->loc.line > 0 && !strpbrk(buf, ".en"))
            sb_puts(b, ".0");
        return;
    case E_INF:
        sb_puts(b, "inf");
        return;
    case E_ACC:
        sb_puts(b, "t");
        return;
    case E_KCONST: /* the kernel model's hoisted constant (dump_kernel) */
        snprintf(buf, sizeof buf, "k%d", e->ref);
        sb_puts(b, buf);
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
        if (e->fn == F_MIN && e->nargs == 2 && e->args[0]->kind == E_CALL &&
            e->args[0]->fn == F_MAX && e->args[0]->nargs == 2) {
            /* clamp(x, lo, hi) is read as min(max(x, lo), hi): printed back */
            sb_puts(b, "clamp(");
            print_expr(b, p, e->args[0]->args[0]);
            sb_puts(b, ", ");
            print_expr(b, p, e->args[0]->args[1]);
            sb_puts(b, ", ");
            print_expr(b, p, e->args[1]);
            sb_puts(b, ")");
            return;
        }
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

/* ---- dump_ast: the syntax tree, items in source order --------------- */

typedef enum ast_item_kind {
    AST_DIM,
    AST_AXIS,
    AST_PARAM,
    AST_TENSOR,
    AST_OUTPUT,
    AST_SCHEDULE
} ast_item_kind;

typedef struct ast_item {
    fg_loc loc;
    ast_item_kind kind;
    int index;
    int seq; /* keeps items at the same location in table order */
} ast_item;

static int ast_item_cmp(const void *x, const void *y)
{
    const ast_item *a = x, *b = y;
    if (a->loc.line != b->loc.line)
        return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col)
        return a->loc.col < b->loc.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void put_loc(FILE *f, fg_loc loc)
{
    fprintf(f, " @%d:%d\n", loc.line, loc.col);
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void dump_tensor(FILE *f, const fg_plan *p, const fg_ir_tensor *t)
{
    if (t->kind == TENSOR_INPUT) {
        fprintf(f, "  input %s[", t->name);
        for (int i = 0; i < t->nindex; i++) {
            if (i)
                fputs(", ", f);
            expr_print(f, p, t->index[i]);
        }
        fprintf(f, "]: %s", t->dtype == DT_INT ? "i32" : fg_dtype_names[t->dtype]);
        if (t->extent_names) {
            fputc('[', f);
            for (int i = 0; i < t->nindex; i++)
                fprintf(f, "%s%s", i ? ", " : "", t->extent_names[i]);
            fputc(']', f);
        }
    } else {
        fprintf(f, "  %s[", t->name);
        for (int i = 0; i < t->naxes; i++)
            fprintf(f, "%s%s", i ? ", " : "", t->axis_names[i]);
        fputs("] = ", f);
        expr_print(f, p, t->rhs);
        if (t->hoisted)
            fputs("  (hoisted)", f);
    }
    put_loc(f, t->loc);
}

static void dump_schedule(FILE *f, const fg_schedule *s)
{
    fputs("  schedule", f);
    put_loc(f, s->loc);
    if (s->reduce_axis_name) {
        fprintf(f, "    reduce %s: %s", s->reduce_axis_name, fg_form_names[s->form]);
        put_loc(f, s->reduce_loc);
    }
    for (int i = 0; i < s->ntiles; i++) {
        fprintf(f, "    tile %s = %d", s->tiles[i].axis_name, s->tiles[i].size);
        put_loc(f, s->tiles[i].loc);
    }
    if (s->warps)
        fprintf(f, "    warps = %d\n", s->warps);
    if (s->stages)
        fprintf(f, "    stages = %d\n", s->stages);
    if (s->splits)
        fprintf(f, "    splits = %d\n", s->splits);
    else if (s->form == FORM_SPLIT)
        fputs("    splits = auto\n", f);
    if (s->nknobs > 0) {
        fputs("    tune\n", f);
        for (int i = 0; i < s->nknobs; i++) {
            const fg_tune_knob *k = &s->knobs[i];
            fprintf(f, "      %s", k->knob);
            if (k->axis_name)
                fprintf(f, " %s", k->axis_name);
            fputs(" = {", f);
            for (int j = 0; j < k->nvalues; j++)
                fprintf(f, "%s%d", j ? ", " : "", k->values[j]);
            fputc('}', f);
            put_loc(f, k->loc);
        }
    }
    if (s->targets) {
        fputs("    target", f);
        static const struct {
            unsigned bit;
            const char *name;
        } targets[] = {{TARGET_CUDA, "cuda"}, {TARGET_HIP, "hip"}, {TARGET_C, "c"}};
        const char *sep = " ";
        for (int i = 0; i < 3; i++) {
            if (s->targets & targets[i].bit) {
                fprintf(f, "%s%s", sep, targets[i].name);
                sep = ", ";
            }
        }
        fputc('\n', f);
    }
}

void dump_ast(FILE *f, const fg_plan *p)
{
    fprintf(f, "plan %s", p->name ? p->name : "<unnamed>");
    put_loc(f, p->name_loc);
    if (p->doc) {
        fputs("  doc ", f);
        put_string(f, p->doc);
        fputc('\n', f);
    }
    int n = p->ndims + p->naxes + p->nparams + 2 * p->ntensors + 1;
    ast_item *items = calloc((size_t)n, sizeof *items);
    if (!items)
        return;
    int k = 0;
    for (int i = 0; i < p->ndims; i++, k++)
        items[k] = (ast_item){p->dims[i].loc, AST_DIM, i, k};
    for (int i = 0; i < p->naxes; i++, k++)
        items[k] = (ast_item){p->axes[i].loc, AST_AXIS, i, k};
    for (int i = 0; i < p->nparams; i++, k++)
        items[k] = (ast_item){p->params[i].loc, AST_PARAM, i, k};
    for (int i = 0; i < p->ntensors; i++, k++)
        items[k] = (ast_item){p->tensors[i].loc, AST_TENSOR, i, k};
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].is_output) {
            items[k] = (ast_item){p->tensors[i].output_loc, AST_OUTPUT, i, k};
            k++;
        }
    if (p->sched.present) {
        items[k] = (ast_item){p->sched.loc, AST_SCHEDULE, 0, k};
        k++;
    }
    qsort(items, (size_t)k, sizeof *items, ast_item_cmp);
    for (int i = 0; i < k; i++) {
        const ast_item *it = &items[i];
        switch (it->kind) {
        case AST_DIM:
            fprintf(f, "  dim %s", p->dims[it->index].name);
            if (p->dims[it->index].index_name)
                fprintf(f, "[%s]", p->dims[it->index].index_name);
            put_loc(f, it->loc);
            break;
        case AST_AXIS:
            fprintf(f, "  axis %s: %s", p->axes[it->index].name, p->axes[it->index].dim_name);
            put_loc(f, it->loc);
            break;
        case AST_PARAM: {
            const fg_param *pa = &p->params[it->index];
            fprintf(f, "  param %s", pa->name);
            if (pa->index_name)
                fprintf(f, "[%s]", pa->index_name);
            fprintf(f, ": %s", fg_dtype_names[pa->dtype]);
            if (pa->deflt) {
                fputs(" = ", f);
                expr_print(f, p, pa->deflt);
            }
            put_loc(f, it->loc);
            break;
        }
        case AST_TENSOR:
            dump_tensor(f, p, &p->tensors[it->index]);
            break;
        case AST_OUTPUT:
            fprintf(f, "  output %s: %s", p->tensors[it->index].name,
                    fg_dtype_names[p->tensors[it->index].out_dtype]);
            put_loc(f, it->loc);
            break;
        case AST_SCHEDULE:
            dump_schedule(f, &p->sched);
            break;
        }
    }
    free(items);
}
