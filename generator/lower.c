/* lower.c - from the fused schedule to the definitions the templates read.
 *
 * Everything numeric and every C expression is computed here; the templates
 * only select and format (templates/README.md lists the definitions).  The
 * C backend runs the same fused schedule as the GPU kernels: rows in tiles of
 * the row tile, the fused axis in tiles of its tile size, running state per
 * row, corrections before each tile's contribution, an epilogue after the
 * last tile, and in split form a combine of the splits' partial states.
 *
 * Names in the emitted C: plan names as written (S, Mx, L, O_sum); the
 * generator's own names end in '_' (i_, n0_, Mx_prev_, ld_); a plan name
 * that is a C keyword, a library name the code uses, or ends in '_' gets
 * the suffix "_v".
 */
#define _POSIX_C_SOURCE 200809L
#include "fusegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

typedef fg_strbuf sb;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts
#define sb_printf strbuf_printf
#define sb_str strbuf_str

/* Every line of text indented by `ind` spaces (empty lines stay empty). */
static void sb_indented(sb *b, const char *text, int ind)
{
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n)
            sb_printf(b, "%*s%.*s", ind, "", (int)n, s);
        sb_puts(b, "\n");
        s += n + (nl ? 1 : 0);
    }
}

static char *ind(fg_arena *a, const char *text, int n)
{
    sb b = {a, NULL, 0, 0};
    sb_indented(&b, text, n);
    return sb_str(&b);
}

/* Text for a C comment: no comment terminator inside. */
static char *comment_safe(fg_arena *a, const char *s)
{
    sb b = {a, NULL, 0, 0};
    for (; *s; s++) {
        if (s[0] == '*' && s[1] == '/')
            sb_puts(&b, "* ");
        else if (s[0] == '/' && s[1] == '*')
            sb_puts(&b, "/ ");
        else
            sb_putn(&b, s, 1);
    }
    return sb_str(&b);
}

/* Text for a C string literal. */
static char *c_string(fg_arena *a, const char *s)
{
    sb b = {a, NULL, 0, 0};
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putn(&b, "\\", 1);
        if (*s == '%') {
            sb_puts(&b, "%%");
            continue;
        }
        sb_putn(&b, s, 1);
    }
    return sb_str(&b);
}

/* ------------------------------------------------------------------ */
/* The lowering context                                                */
/* ------------------------------------------------------------------ */

typedef struct lc {
    fg_arena *a;
    const fg_fused *fz;
    const fg_plan *p;
    fg_diag *d;
    int fused;       /* the fused axis */
    int rowtile;     /* the row axis tiled by tile_rows, or -1 */
    uint32_t outer;  /* row axes looped outside the row tiles */
    int TM, TN;
    const char **tname, **aname, **dname, **pname;
    const char **dval; /* per dim: its value inside the row loops (N_seq_ for N[b]) */
    bool *needs_buf; /* per tensor: read by another statement */
    bool *is_running;
    int *run_index; /* per tensor: index in fz->running, or -1 */
    bool mask_ok;   /* the mask's axes are the row tile (or outer) axis and the fused axis */
    const char *entry; /* fg_NAME_cpu */
    int errors;
} lc;

static const char *const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "expf", "exp2f", "logf", "log2f", "tanhf", "sqrtf", "fabsf", "fminf", "fmaxf", "powf",
    "isinf", "isfinite", "INFINITY", "NAN", "malloc", "free", "memcpy", "memset", "args",
    "int64_t", "size_t", "uint16_t", "uint32_t", "NULL", "labs", "assert", "errno",
    "main", "stdin", "stdout", "stderr", "exp", "log", "sqrt", "tanh", "pow", "fabs", NULL,
};

static const char *c_name(fg_arena *a, const char *name)
{
    size_t n = strlen(name);
    bool bad = n == 0 || name[n - 1] == '_';
    for (int i = 0; !bad && reserved[i]; i++)
        bad = !strcmp(reserved[i], name);
    return bad ? arena_printf(a, "%s_v", name) : name;
}

static bool has_axis(const fg_tensor *t, int axis)
{
    for (int k = 0; k < t->naxes; k++)
        if (t->axes[k] == axis)
            return true;
    return false;
}

static bool is_minmax(const fg_tensor *t)
{
    return t->kind == TENSOR_STMT && t->rhs && t->rhs->kind == E_REDUCE && t->rhs->op != R_SUM;
}

/* As the interpreter: a denominator that reads only reductions (and axes,
 * dims, params, numbers) gets the masked-row rule x / 0 = 0. */
static bool reads_only_reductions(const fg_plan *p, const fg_expr *e, bool *found, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH + p->ntensors)
        return false;
    switch (e->kind) {
    case E_REDUCE:
        *found = true;
        return true;
    case E_PREV:
        *found = true;
        return true;
    case E_TENSOR: {
        const fg_tensor *t = &p->tensors[e->ref];
        if (t->kind == TENSOR_INPUT || !t->rhs)
            return false;
        if (t->rhs->kind == E_REDUCE) {
            *found = true;
            return true;
        }
        return reads_only_reductions(p, t->rhs, found, depth + 1);
    }
    default:
        for (int i = 0; i < e->nargs; i++)
            if (!reads_only_reductions(p, e->args[i], found, depth + 1))
                return false;
        return true;
    }
}

/* ------------------------------------------------------------------ */
/* Expressions as C                                                    */
/* ------------------------------------------------------------------ */

typedef enum site {
    SITE_VALUE,   /* tile, epilogue, prologue: running values are current */
    SITE_CORR,    /* a correction in the tile loop: PREV = saved value */
    SITE_COMBINE, /* a correction in the combine: PREV = a split's partial */
    SITE_SCALAR,  /* validation and defaults: dims and params only */
    SITE_STRUCT   /* the mask's tile_state_: dims and params through x_-> */
} site;

typedef struct pctx {
    lc *L;
    site site;
    uint32_t used; /* axes read */
    bool mask_full; /* masking wheres read full_ */
} pctx;

static void pe(pctx *c, sb *b, const fg_expr *e, int prec);

static int prec_of(fg_expr_kind k)
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

static const char *binop_text(fg_expr_kind k)
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

static void print_float(sb *b, double v)
{
    if (isinf(v)) {
        sb_puts(b, v > 0 ? "INFINITY" : "-INFINITY");
        return;
    }
    char t[64];
    snprintf(t, sizeof t, "%.9g", v);
    if (!strpbrk(t, ".eEn"))
        strcat(t, ".0");
    sb_puts(b, t);
    sb_puts(b, "f");
}

/* The row-major index of statement tensor t in its buffer: over its axes
 * that are not outer loops (row tile -> i_, fused -> j_, others by name). */
static char *buf_index(pctx *c, const fg_tensor *t)
{
    lc *L = c->L;
    sb b = {L->a, NULL, 0, 0};
    int n = 0;
    for (int k = 0; k < t->naxes; k++) {
        int ax = t->axes[k];
        if (L->outer & (1u << ax))
            continue;
        const char *idx, *ext;
        if (ax == L->rowtile) {
            idx = "i_";
            ext = "TM_";
        } else if (ax == L->fused) {
            idx = "j_";
            ext = "TN_";
        } else {
            idx = L->aname[ax];
            ext = L->dname[L->p->axes[ax].dim];
            c->used |= 1u << ax;
        }
        if (n == 0)
            sb_puts(&b, idx);
        else {
            char *prev = arena_strdup(L->a, sb_str(&b));
            b.len = 0;
            if (n == 1)
                sb_printf(&b, "%s * %s + %s", prev, ext, idx);
            else
                sb_printf(&b, "(%s) * %s + %s", prev, ext, idx);
        }
        n++;
    }
    if (n == 0)
        sb_puts(&b, "0");
    return sb_str(&b);
}

/* Offset of an input element: its declared index expressions times the
 * strides of the argument. */
static void input_offset(pctx *c, sb *b, int ti)
{
    lc *L = c->L;
    const fg_tensor *t = &L->p->tensors[ti];
    for (int k = 0; k < t->nindex; k++) {
        if (k)
            sb_puts(b, " + ");
        /* a product binds tighter than anything but a unary or a name */
        pe(c, b, t->index[k], 6);
        sb_printf(b, " * args->%s.stride[%d]", L->tname[ti], k);
    }
    if (t->nindex == 0)
        sb_puts(b, "0");
}

static void print_running_read(pctx *c, sb *b, int ti, bool prev)
{
    lc *L = c->L;
    const fg_tensor *t = &L->p->tensors[ti];
    char *idx = buf_index(c, t);
    if (prev && c->site == SITE_COMBINE) {
        sb_printf(b, "%s_part_[s_ * %s_n_ + %s]", L->tname[ti], L->tname[ti], idx);
        return;
    }
    if (prev) {
        sb_printf(b, "%s_prev_[%s]", L->tname[ti], idx);
        return;
    }
    if (is_minmax(t))
        sb_printf(b, "safe_(%s[%s])", L->tname[ti], idx);
    else
        sb_printf(b, "%s[%s]", L->tname[ti], idx);
}

static void pe_args(pctx *c, sb *b, const fg_expr *e, bool to_float)
{
    for (int i = 0; i < e->nargs; i++) {
        if (i)
            sb_puts(b, ", ");
        if (to_float && e->args[i]->type == T_INT) {
            sb_puts(b, "(float)(");
            pe(c, b, e->args[i], 0);
            sb_puts(b, ")");
        } else
            pe(c, b, e->args[i], 0);
    }
}

static void pe(pctx *c, sb *b, const fg_expr *e, int prec)
{
    lc *L = c->L;
    const fg_plan *p = L->p;
    int my = prec_of(e->kind);
    bool paren = my < prec;
    if (paren)
        sb_puts(b, "(");
    switch (e->kind) {
    case E_NUM:
        if (e->type == T_INT || (e->is_int && e->type != T_FLOAT))
            sb_printf(b, "%ld", (long)e->num);
        else
            print_float(b, e->num);
        break;
    case E_INF:
        sb_puts(b, "INFINITY");
        break;
    case E_DIM:
        if (c->site == SITE_STRUCT)
            sb_printf(b, "x_->%s", L->dname[e->ref]);
        else
            sb_puts(b, L->dval[e->ref]);
        if (p->dims[e->ref].index_axis >= 0)
            c->used |= 1u << p->dims[e->ref].index_axis;
        break;
    case E_AXIS:
        c->used |= 1u << e->ref;
        sb_puts(b, L->aname[e->ref]);
        break;
    case E_PARAM: {
        const fg_param *pa = &p->params[e->ref];
        if (c->site == SITE_STRUCT)
            sb_printf(b, "x_->%s", L->pname[e->ref]);
        else if (pa->index_axis >= 0) {
            sb_printf(b, "%s[", L->pname[e->ref]);
            if (e->nargs > 0)
                pe(c, b, e->args[0], 0);
            else {
                c->used |= 1u << pa->index_axis;
                sb_puts(b, L->aname[pa->index_axis]);
            }
            sb_puts(b, "]");
        } else
            sb_puts(b, L->pname[e->ref]);
        break;
    }
    case E_TENSOR: {
        const fg_tensor *t = &p->tensors[e->ref];
        if (t->kind == TENSOR_INPUT) {
            sb_printf(b, "ld_(&args->%s, ", L->tname[e->ref]);
            input_offset(c, b, e->ref);
            sb_puts(b, ")");
        } else if (L->is_running[e->ref]) {
            print_running_read(c, b, e->ref, false);
        } else {
            char *idx = buf_index(c, t);
            if (is_minmax(t))
                sb_printf(b, "safe_(%s[%s])", L->tname[e->ref], idx);
            else
                sb_printf(b, "%s[%s]", L->tname[e->ref], idx);
        }
        break;
    }
    case E_PREV:
        print_running_read(c, b, e->ref, true);
        break;
    case E_ACC:
        sb_puts(b, "acc_");
        break;
    case E_NEG:
        sb_puts(b, "-");
        pe(c, b, e->args[0], 7);
        break;
    case E_NOT:
        sb_puts(b, "!");
        pe(c, b, e->args[0], 7);
        break;
    case E_DIV: {
        bool found = false;
        bool guarded = !(e->args[0]->type == T_INT && e->args[1]->type == T_INT) &&
                       reads_only_reductions(p, e->args[1], &found, 0) && found;
        if (guarded) {
            if (paren)
                b->len--, b->s[b->len] = '\0', paren = false;
            sb_puts(b, "div0_(");
            pe(c, b, e->args[0], 0);
            sb_puts(b, ", ");
            pe(c, b, e->args[1], 0);
            sb_puts(b, ")");
            break;
        }
        pe(c, b, e->args[0], my);
        sb_puts(b, " / ");
        pe(c, b, e->args[1], my + 1);
        break;
    }
    case E_ADD: case E_SUB: case E_MUL:
    case E_OR: case E_AND:
        pe(c, b, e->args[0], my);
        sb_puts(b, binop_text(e->kind));
        pe(c, b, e->args[1], my + 1);
        break;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
        pe(c, b, e->args[0], my + 1);
        sb_puts(b, binop_text(e->kind));
        pe(c, b, e->args[1], my + 1);
        break;
    case E_POW:
        sb_puts(b, "powf(");
        pe_args(c, b, e, true);
        sb_puts(b, ")");
        break;
    case E_CALL: {
        bool all_int = true;
        for (int i = 0; i < e->nargs; i++)
            all_int = all_int && e->args[i]->type == T_INT;
        const char *f = "?";
        switch (e->fn) {
        case F_EXP: f = "expf"; break;
        case F_EXP2: f = "exp2f"; break;
        case F_LOG: f = "logf"; break;
        case F_LOG2: f = "log2f"; break;
        case F_TANH: f = "tanhf"; break;
        case F_SIGMOID: f = "sigmoid_"; break;
        case F_SQRT: f = "sqrtf"; break;
        case F_RSQRT: f = "rsqrt_"; break;
        case F_ABS: f = all_int ? "labs" : "fabsf"; break;
        case F_MIN: f = all_int ? "min_l_" : "fminf"; break;
        case F_MAX: f = all_int ? "max_l_" : "fmaxf"; break;
        case F_POW: f = "powf"; break;
        case F_COUNT: break;
        }
        bool int_fn = all_int && (e->fn == F_ABS || e->fn == F_MIN || e->fn == F_MAX);
        sb_printf(b, "%s(", f);
        pe_args(c, b, e, !int_fn);
        sb_puts(b, ")");
        break;
    }
    case E_WHERE: {
        const fg_expr *no = e->args[2];
        bool mask = c->mask_full && no->kind == E_NEG && no->args[0]->kind == E_INF;
        if (paren)
            b->len--, b->s[b->len] = '\0', paren = false;
        sb_puts(b, "(");
        if (mask) {
            sb_puts(b, "(full_ || ");
            pe(c, b, e->args[0], 3);
            sb_puts(b, ")");
        } else
            pe(c, b, e->args[0], 2);
        sb_puts(b, " ? ");
        pe(c, b, e->args[1], 1);
        sb_puts(b, " : ");
        pe(c, b, e->args[2], 1);
        sb_puts(b, ")");
        break;
    }
    case E_NAME:
    case E_REDUCE:
    case E_COUNT:
        diag_internal(L->d, e->loc, "lower: an unresolved or nested expression (%s)",
                      fg_expr_kind_names[e->kind]);
        L->errors++;
        sb_puts(b, "0");
        break;
    }
    if (paren)
        sb_puts(b, ")");
}

static char *cexpr(lc *L, site s, const fg_expr *e, uint32_t *used)
{
    pctx c = {L, s, 0, L->mask_ok};
    sb b = {L->a, NULL, 0, 0};
    pe(&c, &b, e, 0);
    if (used)
        *used |= c.used;
    return sb_str(&b);
}

/* Plan syntax for comments: running values as NAME, previous ones NAME_prev. */
static void pp(lc *L, sb *b, const fg_expr *e, int prec)
{
    const fg_plan *p = L->p;
    int my = prec_of(e->kind);
    bool paren = my < prec;
    if (paren)
        sb_puts(b, "(");
    switch (e->kind) {
    case E_NUM:
        sb_printf(b, "%.9g", e->num);
        break;
    case E_INF: sb_puts(b, "inf"); break;
    case E_DIM: sb_puts(b, p->dims[e->ref].name); break;
    case E_AXIS: sb_puts(b, p->axes[e->ref].name); break;
    case E_PARAM: sb_puts(b, p->params[e->ref].name); break;
    case E_TENSOR: sb_puts(b, p->tensors[e->ref].name); break;
    case E_PREV: sb_printf(b, "%s_prev", p->tensors[e->ref].name); break;
    case E_ACC: sb_puts(b, "acc"); break;
    case E_NAME: sb_puts(b, e->name ? e->name : "?"); break;
    case E_NEG: sb_puts(b, "-"); pp(L, b, e->args[0], 7); break;
    case E_NOT: sb_puts(b, "!"); pp(L, b, e->args[0], 7); break;
    case E_POW:
        pp(L, b, e->args[0], 7);
        sb_puts(b, " ^ ");
        pp(L, b, e->args[1], 7);
        break;
    case E_CALL:
        sb_printf(b, "%s(", fg_func_names[e->fn]);
        for (int i = 0; i < e->nargs; i++) {
            if (i)
                sb_puts(b, ", ");
            pp(L, b, e->args[i], 0);
        }
        sb_puts(b, ")");
        break;
    case E_WHERE:
        sb_puts(b, "where(");
        for (int i = 0; i < 3; i++) {
            if (i)
                sb_puts(b, ", ");
            pp(L, b, e->args[i], 0);
        }
        sb_puts(b, ")");
        break;
    case E_REDUCE:
        sb_printf(b, "%s(%s: ", fg_reduce_names[e->op], p->axes[e->ref].name);
        pp(L, b, e->args[0], 0);
        sb_puts(b, ")");
        break;
    case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
        pp(L, b, e->args[0], my + 1);
        sb_puts(b, binop_text(e->kind));
        pp(L, b, e->args[1], my + 1);
        break;
    default:
        if (e->nargs == 2) {
            pp(L, b, e->args[0], my);
            sb_puts(b, binop_text(e->kind));
            pp(L, b, e->args[1], my + 1);
        }
        break;
    }
    if (paren)
        sb_puts(b, ")");
}

static char *plan_text(lc *L, const fg_expr *e)
{
    sb b = {L->a, NULL, 0, 0};
    pp(L, &b, e, 0);
    return comment_safe(L->a, sb_str(&b));
}

/* The statement as written on its plan line (comments and blanks trimmed). */
static char *source_line(lc *L, fg_loc loc)
{
    const fg_source *src = L->p->src;
    if (!src || !src->text || loc.line <= 0)
        return arena_strdup(L->a, "");
    const char *s = src->text;
    for (int l = 1; l < loc.line && *s; s++)
        if (*s == '\n')
            l++;
    const char *e = s;
    while (*e && *e != '\n' && *e != '#')
        e++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    /* squeeze runs of blanks for a one-line comment */
    sb b = {L->a, NULL, 0, 0};
    for (const char *q = s; q < e; q++) {
        if ((*q == ' ' || *q == '\t') && q + 1 < e && (q[1] == ' ' || q[1] == '\t'))
            continue;
        sb_putn(&b, *q == '\t' ? " " : q, 1);
    }
    return comment_safe(L->a, sb_str(&b));
}

/* ------------------------------------------------------------------ */
/* Setting up                                                          */
/* ------------------------------------------------------------------ */

static int lc_init(lc *L, fg_arena *a, const fg_fused *fz, fg_diag *d)
{
    memset(L, 0, sizeof *L);
    const fg_plan *p = fz->plan;
    L->a = a;
    L->fz = fz;
    L->p = p;
    L->d = d;
    L->fused = fz->axis;
    L->entry = arena_printf(a, "fg_%s_cpu", p->name);
    L->tname = ARENA_ARRAY(a, const char *, p->ntensors + 1);
    L->aname = ARENA_ARRAY(a, const char *, p->naxes + 1);
    L->dname = ARENA_ARRAY(a, const char *, p->ndims + 1);
    L->pname = ARENA_ARRAY(a, const char *, p->nparams + 1);
    L->needs_buf = ARENA_ARRAY(a, bool, p->ntensors + 1);
    L->is_running = ARENA_ARRAY(a, bool, p->ntensors + 1);
    L->run_index = ARENA_ARRAY(a, int, p->ntensors + 1);
    for (int i = 0; i < p->ntensors; i++) {
        L->tname[i] = c_name(a, p->tensors[i].name);
        L->run_index[i] = -1;
    }
    for (int i = 0; i < p->naxes; i++)
        L->aname[i] = c_name(a, p->axes[i].name);
    L->dval = ARENA_ARRAY(a, const char *, p->ndims + 1);
    for (int i = 0; i < p->ndims; i++) {
        L->dname[i] = c_name(a, p->dims[i].name);
        L->dval[i] = p->dims[i].index_axis >= 0 ? arena_printf(a, "%s_seq_", p->dims[i].name)
                                                : L->dname[i];
    }
    for (int i = 0; i < p->nparams; i++)
        L->pname[i] = c_name(a, p->params[i].name);
    for (int i = 0; i < fz->nrunning; i++) {
        L->is_running[fz->running[i].tensor] = true;
        L->run_index[fz->running[i].tensor] = i;
    }

    /* Row axes: the running state's axes that stay fixed per row. */
    uint32_t rows = fz->row_axes;
    if (!rows && fz->nrunning) {
        rows = ~0u;
        for (int i = 0; i < fz->nrunning; i++)
            rows &= p->tensors[fz->running[i].tensor].axis_mask;
    }
    rows &= ~(1u << L->fused);
    L->rowtile = -1;
    L->TN = 64;
    for (int i = 0; i < p->sched.ntiles; i++) {
        const fg_tile_size *ts = &p->sched.tiles[i];
        if (ts->axis == L->fused)
            L->TN = ts->size;
        else if (ts->axis >= 0 && (rows & (1u << ts->axis))) {
            L->rowtile = ts->axis;
            L->TM = ts->size;
        }
    }
    if (L->rowtile < 0 && rows && fz->nrunning) {
        /* No row tile in the schedule: the last row axis, one row at a time. */
        const fg_tensor *t = &p->tensors[fz->running[0].tensor];
        for (int k = 0; k < t->naxes; k++)
            if (rows & (1u << t->axes[k]))
                L->rowtile = t->axes[k];
        L->TM = 1;
    }
    if (L->TM <= 0)
        L->TM = 1;
    if (L->TN <= 0)
        L->TN = 64;
    L->outer = rows & ~(L->rowtile >= 0 ? 1u << L->rowtile : 0u);

    /* Buffers: statements that another statement reads. */
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT)
            continue;
        if (L->is_running[i])
            L->needs_buf[i] = true;
    }
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || !t->rhs)
            continue;
        /* walk the rhs for statement reads */
        const fg_expr *stack[FG_MAX_EXPR_DEPTH * 4];
        int sp = 0;
        stack[sp++] = t->rhs;
        while (sp) {
            const fg_expr *e = stack[--sp];
            if (e->kind == E_TENSOR && p->tensors[e->ref].kind == TENSOR_STMT)
                L->needs_buf[e->ref] = true;
            for (int k = 0; k < e->nargs && sp < (int)(sizeof stack / sizeof stack[0]); k++)
                stack[sp++] = e->args[k];
        }
    }

    L->mask_ok = fz->mask.present && fz->mask.root && fz->mask.col_axis == L->fused &&
                 (fz->mask.row_axis == L->rowtile ||
                  (fz->mask.row_axis >= 0 && (L->outer & (1u << fz->mask.row_axis))));
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT)
            continue;
        for (int k = 0; k < t->naxes; k++) {
            int ax = t->axes[k];
            if (ax == L->fused || (L->outer & (1u << ax)) || ax == L->rowtile)
                continue;
            if (rows & (1u << ax)) {
                diag_error(d, t->loc, "the C backend cannot place axis '%s' of '%s'",
                           p->axes[ax].name, t->name);
                return -1;
            }
        }
        if ((t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION) &&
            t->red_axis != L->fused && (rows & (1u << t->red_axis))) {
            diag_error(d, t->loc,
                       "'%s' reduces over row axis '%s', which the fused schedule keeps "
                       "fixed per row",
                       t->name, p->axes[t->red_axis].name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Loops and statements                                                */
/* ------------------------------------------------------------------ */

/* Wraps body (already printed, reading axes `used`) in loops over the
 * statement's axes that are not outer loops (skipping `skip_axis`). */
static char *loop_nest(lc *L, const fg_tensor *t, int skip_axis, uint32_t used, const char *body)
{
    sb b = {L->a, NULL, 0, 0};
    int depth = 0;
    for (int k = 0; k < t->naxes; k++) {
        int ax = t->axes[k];
        if ((L->outer & (1u << ax)) || ax == skip_axis)
            continue;
        if (ax == L->rowtile) {
            sb_printf(&b, "%*sfor (long i_ = 0; i_ < rows_; i_++) {\n", depth * 4, "");
            if (used & (1u << ax))
                sb_printf(&b, "%*s    const long %s = m0_ + i_;\n", depth * 4, "", L->aname[ax]);
        } else if (ax == L->fused) {
            sb_printf(&b, "%*sfor (long j_ = 0; j_ < cols_; j_++) {\n", depth * 4, "");
            if (used & (1u << ax))
                sb_printf(&b, "%*s    const long %s = n0_ + j_;\n", depth * 4, "", L->aname[ax]);
        } else {
            sb_printf(&b, "%*sfor (long %s = 0; %s < %s; %s++) {\n", depth * 4, "",
                      L->aname[ax], L->aname[ax], L->dname[L->p->axes[ax].dim], L->aname[ax]);
        }
        depth++;
    }
    sb_indented(&b, body, depth * 4);
    while (depth-- > 0)
        sb_printf(&b, "%*s}\n", depth * 4, "");
    return sb_str(&b);
}

static const char *identity_text(fg_reduce_op op)
{
    return op == R_SUM ? "0.0f" : op == R_MAX ? "-INFINITY" : "INFINITY";
}

static char *accumulate(fg_reduce_op op, fg_arena *a, const char *into, const char *v)
{
    if (op == R_SUM)
        return arena_printf(a, "%s += %s;", into, v);
    return arena_printf(a, "%s = %s(%s, %s);", into, op == R_MAX ? "fmaxf" : "fminf", into, v);
}

/* The offset of output element t[axes...] in its argument. */
static char *output_offset(lc *L, const fg_tensor *t, uint32_t *used)
{
    sb b = {L->a, NULL, 0, 0};
    for (int k = 0; k < t->naxes; k++) {
        if (k)
            sb_puts(&b, " + ");
        sb_printf(&b, "%s * args->%s.stride[%d]", L->aname[t->axes[k]], L->tname[t - L->p->tensors],
                  k);
        *used |= 1u << t->axes[k];
    }
    if (!t->naxes)
        sb_puts(&b, "0");
    return sb_str(&b);
}

/* Code that computes statement ti at every element of its non-outer axes
 * (reductions over an inner axis as plain loops), keeps it in its buffer
 * when another statement reads it, and stores it when it is an output. */
static char *stmt_code(lc *L, int ti)
{
    const fg_plan *p = L->p;
    const fg_tensor *t = &p->tensors[ti];
    uint32_t used = 0;
    sb body = {L->a, NULL, 0, 0};
    pctx c = {L, SITE_VALUE, 0, L->mask_ok};
    const char *val;
    if (t->hoisted && t->hoisted_from >= 0 && t->hoisted_from < p->ntensors)
        sb_printf(&body, "/* %s: the %s inside %s, plan line %d */\n", t->name,
                  fg_reduce_names[t->op], source_line(L, p->tensors[t->hoisted_from].loc),
                  t->loc.line);
    else
        sb_printf(&body, "/* %s, plan line %d */\n", source_line(L, t->loc), t->loc.line);
    if (t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION) {
        int ax = t->red_axis;
        sb v = {L->a, NULL, 0, 0};
        pe(&c, &v, t->body, 0);
        c.used &= ~(1u << ax);
        sb_printf(&body, "float acc_ = %s;\n", identity_text(t->op));
        sb_printf(&body, "for (long %s = 0; %s < %s; %s++)\n    %s\n", L->aname[ax], L->aname[ax],
                  L->dval[p->axes[ax].dim], L->aname[ax],
                  accumulate(t->op, L->a, "acc_", sb_str(&v)));
        val = "acc_";
    } else {
        sb v = {L->a, NULL, 0, 0};
        pe(&c, &v, t->rhs, 0);
        sb_printf(&body, "const float v_ = %s;\n", sb_str(&v));
        val = "v_";
    }
    if (L->needs_buf[ti])
        sb_printf(&body, "%s[%s] = %s;\n", L->tname[ti], buf_index(&c, t), val);
    if (t->is_output)
        sb_printf(&body, "st_(&args->%s, %s, %s);\n", L->tname[ti], output_offset(L, t, &used),
                  val);
    used |= c.used;
    return loop_nest(L, t, -1, used, sb_str(&body));
}

/* A short description of the producers a correction reads. */
static char *producers_text(lc *L, const fg_correction *cr)
{
    sb b = {L->a, NULL, 0, 0};
    for (int i = 0; i < L->p->ntensors && i < 64; i++)
        if (cr->producers & (1ull << i)) {
            const fg_tensor *t = &L->p->tensors[i];
            sb_printf(&b, "%s%s %s", b.len ? " and " : "",
                      t->op == R_MAX ? "max" : t->op == R_MIN ? "min" : "sum", t->name);
        }
    return sb_str(&b);
}

static char *correction_comment(lc *L, const fg_running *r)
{
    const fg_plan *p = L->p;
    const fg_tensor *t = &p->tensors[r->tensor];
    sb b = {L->a, NULL, 0, 0};
    sb_printf(&b, "%s: running %s", t->name, fg_reduce_names[r->op]);
    if (r->corr.kind != CORR_NONE && r->corr.factor) {
        sb_printf(&b, " under a moving %s; correction %s %s", producers_text(L, &r->corr),
                  r->corr.kind == CORR_SCALE ? "*" : "+", plan_text(L, r->corr.factor));
        if (r->corr.origin >= 0 && r->corr.origin < p->ntensors) {
            const fg_tensor *o = &p->tensors[r->corr.origin];
            sb_printf(&b, " from %s, plan line %d", source_line(L, o->loc), o->loc.line);
        }
    } else {
        sb_printf(&b, " over %s, plan line %d", p->axes[L->fused].name, t->loc.line);
    }
    return sb_str(&b);
}

/* One running reduction's step in a tile: save the previous value (when a
 * correction reads it), apply its own correction, add the tile. */
static char *running_code(lc *L, int ri, const bool *saved)
{
    const fg_plan *p = L->p;
    const fg_running *r = &L->fz->running[ri];
    const fg_tensor *t = &p->tensors[r->tensor];
    const char *nm = L->tname[r->tensor];
    pctx c = {L, SITE_VALUE, 0, L->mask_ok};
    char *idx = buf_index(&c, t);
    sb body = {L->a, NULL, 0, 0};
    sb_printf(&body, "/* %s */\n", correction_comment(L, r));
    if (saved[r->tensor])
        sb_printf(&body, "%s_prev_[%s] = %s[%s];\n", nm, idx, nm, idx);
    if (r->corr.kind != CORR_NONE && r->corr.factor) {
        pctx cc = {L, SITE_CORR, 0, false};
        sb f = {L->a, NULL, 0, 0};
        pe(&cc, &f, r->corr.factor, 0);
        c.used |= cc.used;
        sb_printf(&body, "%s[%s] %s= %s;\n", nm, idx, r->corr.kind == CORR_SCALE ? "*" : "+",
                  sb_str(&f));
    }
    sb v = {L->a, NULL, 0, 0};
    pctx tc = {L, SITE_VALUE, 0, L->mask_ok};
    pe(&tc, &v, t->body, 0);
    sb_printf(&body, "float acc_ = %s;\n", identity_text(r->op));
    sb_printf(&body, "for (long j_ = 0; j_ < cols_; j_++) {\n");
    if (tc.used & (1u << L->fused))
        sb_printf(&body, "    const long %s = n0_ + j_;\n", L->aname[L->fused]);
    sb_printf(&body, "    %s\n}\n", accumulate(r->op, L->a, "acc_", sb_str(&v)));
    char *into = arena_printf(L->a, "%s[%s]", nm, idx);
    sb_printf(&body, "%s\n", accumulate(r->op, L->a, into, "acc_"));
    c.used |= tc.used & ~(1u << L->fused);
    return loop_nest(L, t, L->fused, c.used, sb_str(&body));
}

/* The combine: each running value from the splits' partials, producers
 * first, with the same corrections (PREV = the split's partial). */
static char *combine_code(lc *L, int ri)
{
    const fg_plan *p = L->p;
    const fg_running *r = &L->fz->running[ri];
    const fg_tensor *t = &p->tensors[r->tensor];
    const char *nm = L->tname[r->tensor];
    pctx c = {L, SITE_COMBINE, 0, false};
    char *idx = buf_index(&c, t);
    sb body = {L->a, NULL, 0, 0};
    sb_printf(&body, "/* %s */\n", correction_comment(L, r));
    sb_printf(&body, "float acc_ = %s;\n", identity_text(r->op));
    sb_printf(&body, "for (long s_ = 0; s_ < splits_; s_++) {\n");
    char *part = arena_printf(L->a, "%s_part_[s_ * %s_n_ + %s]", nm, nm, idx);
    if (r->corr.kind != CORR_NONE && r->corr.factor) {
        sb f = {L->a, NULL, 0, 0};
        pe(&c, &f, r->corr.factor, 0);
        part = arena_printf(L->a, "%s %s %s", part, r->corr.kind == CORR_SCALE ? "*" : "+",
                            sb_str(&f));
    }
    sb_printf(&body, "    %s\n}\n", accumulate(r->op, L->a, "acc_", part));
    sb_printf(&body, "%s[%s] = acc_;\n", nm, idx);
    return loop_nest(L, t, L->fused, c.used, sb_str(&body));
}

/* ------------------------------------------------------------------ */
/* Validation                                                          */
/* ------------------------------------------------------------------ */

/* Where a dim's extent is first found: tensor and position. */
static int position_dim(const fg_plan *p, const fg_tensor *t, int k)
{
    if (t->kind == TENSOR_INPUT) {
        if (t->extent_dims && t->extent_dims[k] >= 0)
            return t->extent_dims[k];
        if (t->index[k]->kind == E_AXIS)
            return p->axes[t->index[k]->ref].dim;
        return -1;
    }
    return p->axes[t->axes[k]].dim;
}

static int tensor_rank(const fg_tensor *t)
{
    return t->kind == TENSOR_INPUT ? t->nindex : t->naxes;
}

/* Int divisors in e: each must be positive before e is evaluated. */
static void divisor_checks(lc *L, sb *b, const fg_expr *e, const char *ind)
{
    if (e->kind == E_DIV && e->args[0]->type == T_INT && e->args[1]->type == T_INT) {
        uint32_t used = 0;
        char *t = cexpr(L, SITE_SCALAR, e->args[1], &used);
        if (!used) {
            char *pt = plan_text(L, e->args[1]);
            sb_printf(b,
                      "%sif ((%s) <= 0)\n%s    return fg_set_error(FG_ERR_PARAM, \"%s: %s = %%ld "
                      "divides (plan line %d) and must be positive\", (long)(%s));\n",
                      ind, t, ind, L->entry, c_string(L->a, pt), e->loc.line, t);
        }
    }
    for (int i = 0; i < e->nargs; i++)
        divisor_checks(L, b, e->args[i], ind);
}

static char *validation_code(lc *L)
{
    const fg_plan *p = L->p;
    fg_arena *a = L->a;
    sb b = {a, NULL, 0, 0};
    const char *E = L->entry;
    sb_printf(&b, "if (!args)\n    return fg_set_error(FG_ERR_NULL, \"%s: args is NULL\");\n", E);
    sb_puts(&b, "fg_status status_;\n");
    /* tensors */
    const unsigned float_types = 1u | 2u | 4u;
    (void)float_types;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            sb_printf(&b,
                      "status_ = fg_check_tensor(&args->%s, \"%s: %s\", %d,\n"
                          "                          FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16) | "
                      "FG_DTYPE_BIT(FG_F32), 0);\n"
                      "if (status_ != FG_OK)\n    return status_;\n",
                      L->tname[i], E, t->name, tensor_rank(t));
        }
    /* dims: from the first position whose extent they are */
    int *from_t = ARENA_ARRAY(a, int, p->ndims + 1), *from_k = ARENA_ARRAY(a, int, p->ndims + 1);
    for (int k = 0; k < p->ndims; k++)
        from_t[k] = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            for (int k = 0; k < tensor_rank(t); k++) {
                int dm = position_dim(p, t, k);
                if (dm < 0)
                    continue;
                if (from_t[dm] < 0) {
                    from_t[dm] = i;
                    from_k[dm] = k;
                    sb_printf(&b, "const long %s = (long)args->%s.shape[%d];\n", L->dname[dm],
                              L->tname[i], k);
                } else {
                    sb_printf(&b,
                              "if (args->%s.shape[%d] != %s)\n"
                              "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s.shape[%d] is %%lld, "
                              "but %s is %%ld (from %s.shape[%d])\",\n"
                              "                        (long long)args->%s.shape[%d], %s);\n",
                              L->tname[i], k, L->dname[dm], E, t->name, k, p->dims[dm].name,
                              p->tensors[from_t[dm]].name, from_k[dm], L->tname[i], k,
                              L->dname[dm]);
                }
            }
        }
    for (int k = 0; k < p->ndims; k++)
        if (from_t[k] < 0) {
            diag_error(L->d, p->dims[k].loc,
                       "dim '%s' is the extent of no input or output position, so the "
                       "generated code cannot bind it",
                       p->dims[k].name);
            L->errors++;
        }
    /* per-sequence lengths: each within the stored extent */
    for (int k = 0; k < p->ndims; k++) {
        const fg_dim *dm = &p->dims[k];
        if (dm->index_axis < 0)
            continue;
        const char *own = L->dname[p->axes[dm->index_axis].dim];
        sb_printf(&b,
                  "if (args->%s_len)\n"
                  "    for (long i_ = 0; i_ < %s; i_++)\n"
                  "        if (args->%s_len[i_] < 0 || args->%s_len[i_] > %s)\n"
                  "            return fg_set_error(FG_ERR_SHAPE, \"%s: %s_len[%%ld] is %%ld, "
                  "outside 0..%%ld (%s)\",\n"
                  "                                i_, (long)args->%s_len[i_], %s);\n",
                  dm->name, own, dm->name, dm->name, L->dname[k], E, dm->name, dm->name, dm->name,
                  L->dname[k]);
    }
    /* scalar params, in declaration order */
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            continue;
        const char *ty = pa->dtype == DT_INT ? "long" : "float";
        const char *nm = L->pname[i];
        if (pa->deflt) {
            sb_printf(&b, "%s %s;\nif (args->has_%s) {\n    %s = args->%s;\n} else {\n", ty, nm,
                      pa->name, nm, pa->name);
            divisor_checks(L, &b, pa->deflt, "    ");
            sb_printf(&b, "    %s = %s;\n}\n", nm, cexpr(L, SITE_SCALAR, pa->deflt, NULL));
        } else {
            sb_printf(&b,
                      "if (!args->has_%s)\n    return fg_set_error(FG_ERR_PARAM, \"%s: parameter "
                      "%s has no default and was not given\");\n"
                      "const %s %s = args->%s;\n",
                      pa->name, E, pa->name, ty, nm, pa->name);
        }
        if (pa->dtype != DT_INT)
            sb_printf(&b,
                      "if (!isfinite(%s))\n    return fg_set_error(FG_ERR_PARAM, \"%s: parameter "
                      "%s is not finite\");\n",
                      nm, E, pa->name);
    }
    /* int divisors in statements and index expressions */
    sb divs = {a, NULL, 0, 0};
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT)
            for (int k = 0; k < t->nindex; k++)
                divisor_checks(L, &divs, t->index[k], "");
        else if (t->rhs)
            divisor_checks(L, &divs, t->rhs, "");
    }
    /* dedupe identical checks (the same divisor in several places) */
    {
        char *all = sb_str(&divs);
        char *s = all;
        sb seen = {a, NULL, 0, 0};
        while (*s) {
            char *e2 = strstr(s, ");\n");
            if (!e2)
                break;
            e2 += 3;
            char *chunk = arena_strndup(a, s, (size_t)(e2 - s));
            if (!seen.s || !strstr(seen.s, chunk)) {
                sb_puts(&seen, chunk);
            }
            s = e2;
        }
        if (seen.s)
            sb_puts(&b, seen.s);
    }
    /* index expressions that are not a plain axis: in range at both ends,
     * and `axis / P` needs the axis extent divisible by P */
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_INPUT)
            continue;
        for (int k = 0; k < t->nindex; k++) {
            const fg_expr *ix = t->index[k];
            if (ix->kind == E_AXIS)
                continue;
            int ax = -1;
            for (int q = 0; q < p->naxes; q++)
                if (ix->axes & (1u << q))
                    ax = q;
            if (ax < 0)
                continue;
            const char *an = L->aname[ax], *ext = L->dname[p->axes[ax].dim];
            int dm = position_dim(p, t, k);
            if (dm < 0)
                continue;
            if (ix->kind == E_DIV && ix->args[0]->kind == E_AXIS) {
                char *dv = cexpr(L, SITE_SCALAR, ix->args[1], NULL);
                sb_printf(&b,
                          "if (%s %% (%s) != 0)\n    return fg_set_error(FG_ERR_SHAPE, \"%s: %s "
                          "(%%ld) is not divisible by %s (%%ld), as %s[%s] needs\", %s, "
                          "(long)(%s));\n",
                          ext, dv, E, p->dims[p->axes[ax].dim].name,
                          c_string(a, plan_text(L, ix->args[1])), t->name,
                          c_string(a, plan_text(L, ix)), ext, dv);
            }
            uint32_t used = 0;
            char *ie = cexpr(L, SITE_SCALAR, ix, &used);
            sb_printf(&b,
                      "for (long e_ = 0; e_ < 2 && %s > 0; e_++) {\n"
                      "    const long %s = e_ ? %s - 1 : 0;\n"
                      "    const long x_ = %s;\n"
                      "    if (x_ < 0 || x_ >= %s)\n"
                      "        return fg_set_error(FG_ERR_SHAPE, \"%s: index %s of %s is %%ld at "
                      "%s = %%ld, outside [0, %%ld)\", x_, %s, %s);\n"
                      "}\n",
                      ext, an, ext, ie, L->dname[dm], E, c_string(a, plan_text(L, ix)), t->name,
                      p->axes[ax].name, an, L->dname[dm]);
        }
    }
    return sb_str(&b);
}

/* ------------------------------------------------------------------ */
/* Summary: operations and bytes per output row                        */
/* ------------------------------------------------------------------ */

#define MAXD 16
typedef struct mono {
    long coef;
    int ex[MAXD];
} mono;
typedef struct poly {
    mono m[64];
    int n;
} poly;

static void poly_add(poly *q, long coef, const int *ex)
{
    for (int i = 0; i < q->n; i++)
        if (!memcmp(q->m[i].ex, ex, sizeof q->m[i].ex)) {
            q->m[i].coef += coef;
            return;
        }
    if (q->n < 64) {
        q->m[q->n].coef = coef;
        memcpy(q->m[q->n].ex, ex, sizeof q->m[q->n].ex);
        q->n++;
    }
}

static int mono_cmp(const void *x, const void *y)
{
    const mono *a = x, *b = y;
    int da = 0, db = 0;
    for (int i = 0; i < MAXD; i++)
        da += a->ex[i], db += b->ex[i];
    if (da != db)
        return db - da;
    for (int i = 0; i < MAXD; i++)
        if (a->ex[i] != b->ex[i])
            return b->ex[i] - a->ex[i];
    return 0;
}

static char *poly_text(lc *L, poly *q)
{
    qsort(q->m, (size_t)q->n, sizeof q->m[0], mono_cmp);
    sb b = {L->a, NULL, 0, 0};
    for (int i = 0; i < q->n; i++) {
        if (!q->m[i].coef)
            continue;
        if (b.len)
            sb_puts(&b, " + ");
        bool any = false;
        sb_printf(&b, "%ld", q->m[i].coef);
        for (int k = 0; k < L->p->ndims && k < MAXD; k++)
            for (int e = 0; e < q->m[i].ex[k]; e++) {
                sb_printf(&b, "*%s", L->p->dims[k].name);
                any = true;
            }
        (void)any;
    }
    if (!b.len)
        sb_puts(&b, "0");
    return sb_str(&b);
}

static long count_ops(const fg_expr *e)
{
    long n = 0;
    switch (e->kind) {
    case E_NUM: case E_INF: case E_DIM: case E_AXIS: case E_PARAM: case E_TENSOR:
    case E_PREV: case E_ACC: case E_NAME:
        n = 0;
        break;
    case E_WHERE:
        n = 1;
        break;
    default:
        n = 1;
    }
    for (int i = 0; i < e->nargs; i++)
        n += count_ops(e->args[i]);
    return n;
}

static void elems_per_row(lc *L, const fg_tensor *t, int extra_axis, int *ex, uint32_t rows)
{
    memset(ex, 0, sizeof(int) * MAXD);
    if (t->kind == TENSOR_INPUT) {
        for (int k = 0; k < t->nindex; k++) {
            uint32_t ax = t->index[k]->axes;
            if (ax & rows)
                continue;
            int dm = position_dim(L->p, t, k);
            if (dm >= 0 && dm < MAXD)
                ex[dm]++;
        }
        return;
    }
    for (int k = 0; k < t->naxes; k++)
        if (!(rows & (1u << t->axes[k]))) {
            int dm = L->p->axes[t->axes[k]].dim;
            if (dm < MAXD)
                ex[dm]++;
        }
    if (extra_axis >= 0) {
        int dm = L->p->axes[extra_axis].dim;
        if (dm < MAXD)
            ex[dm]++;
    }
}

static void summary(lc *L, char **ops_out, char **bytes_out)
{
    const fg_plan *p = L->p;
    uint32_t rows = L->outer | (L->rowtile >= 0 ? 1u << L->rowtile : 0u);
    poly ops = {.n = 0}, bytes = {.n = 0};
    int ex[MAXD];
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT) {
            elems_per_row(L, t, -1, ex, rows);
            poly_add(&bytes, t->dtype == DT_F32 ? 4 : 2, ex);
            continue;
        }
        if (!t->rhs)
            continue;
        bool red = t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION;
        elems_per_row(L, t, red ? t->red_axis : -1, ex, rows);
        long n = red ? count_ops(t->body) + 1 : count_ops(t->rhs);
        if (n)
            poly_add(&ops, n, ex);
        if (t->is_output) {
            elems_per_row(L, t, -1, ex, rows);
            poly_add(&bytes, t->out_dtype == DT_F32 ? 4 : 2, ex);
        }
    }
    *ops_out = poly_text(L, &ops);
    *bytes_out = poly_text(L, &bytes);
}

/* ------------------------------------------------------------------ */
/* Definitions every backend shares                                    */
/* ------------------------------------------------------------------ */

static const char *plan_file(fg_arena *a, const fg_plan *p)
{
    const char *n = p->src && p->src->name ? p->src->name : "plan.fp";
    const char *s = strrchr(n, '/');
    return arena_printf(a, "plans/%s", s ? s + 1 : n);
}

static const char *shape_text(lc *L, const fg_tensor *t)
{
    sb b = {L->a, NULL, 0, 0};
    for (int k = 0; k < tensor_rank(t); k++) {
        int dm = position_dim(L->p, t, k);
        sb_printf(&b, "%s%s", k ? ", " : "", dm >= 0 ? L->p->dims[dm].name : "?");
    }
    return sb_str(&b);
}

static const char *index_text(lc *L, const fg_tensor *t)
{
    sb b = {L->a, NULL, 0, 0};
    if (t->kind == TENSOR_INPUT)
        for (int k = 0; k < t->nindex; k++)
            sb_printf(&b, "%s%s", k ? ", " : "", plan_text(L, t->index[k]));
    else
        for (int k = 0; k < t->naxes; k++)
            sb_printf(&b, "%s%s", k ? ", " : "", L->p->axes[t->axes[k]].name);
    return sb_str(&b);
}

int lower_common(fg_arena *a, const fg_fused *fz, fg_defs *defs, fg_diag *d)
{
    lc L;
    if (lc_init(&L, a, fz, d) < 0)
        return -1;
    const fg_plan *p = fz->plan;
    for (int i = 0; i < p->ntensors; i++) {
        const char *n = p->tensors[i].name;
        if (!strcmp(n, "splits") || !strncmp(n, "has_", 4)) {
            diag_error(d, p->tensors[i].loc, "'%s' clashes with a field of fg_%s_args", n,
                       p->name);
            return -1;
        }
    }
    for (int i = 0; i < p->nparams; i++) {
        const char *n = p->params[i].name;
        if (!strcmp(n, "splits") || !strncmp(n, "has_", 4) || plan_find_tensor(p, n) >= 0) {
            diag_error(d, p->params[i].loc, "'%s' clashes with a field of fg_%s_args", n,
                       p->name);
            return -1;
        }
    }
    fg_def_str(defs, "plan_name", p->name);
    fg_def_str(defs, "plan_file", plan_file(a, p));
    fg_def_str(defs, "plan_hash", p->hash);
    fg_def_str(defs, "doc", comment_safe(a, p->doc ? p->doc : ""));
    fg_def_bool(defs, "has_doc", p->doc && *p->doc);
    fg_def_str(defs, "form", fg_form_names[fz->form]);
    fg_def_bool(defs, "split", fz->form == FORM_SPLIT);
    bool attention = false;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].cls == CLASS_CONTRACTION)
            attention = true;
    fg_def_str(defs, "family", attention ? "attention" : "rowreduce");
    char *guard = arena_printf(a, "FUSEGEN_%s_H", p->name);
    for (char *q = guard; *q; q++)
        if (*q >= 'a' && *q <= 'z')
            *q = (char)(*q - 'a' + 'A');
    fg_def_str(defs, "guard", guard);
    fg_def_str(defs, "header_name", arena_printf(a, "fusegen_%s.h", p->name));
    fg_def_str(defs, "args_type", arena_printf(a, "fg_%s_args", p->name));
    fg_def_str(defs, "cpu_entry", arena_printf(a, "fg_%s_cpu", p->name));
    fg_def_str(defs, "gpu_entry", arena_printf(a, "fg_%s", p->name));
    fg_def_int(defs, "tile_rows", L.TM);
    fg_def_int(defs, "tile_keys", L.TN);
    fg_def_int(defs, "warps", p->sched.warps ? p->sched.warps : 4);
    fg_def_int(defs, "stages", p->sched.stages ? p->sched.stages : 1);
    fg_def_int(defs, "default_splits", p->sched.splits);
    fg_def_str(defs, "fused_axis", p->axes[L.fused].name);
    fg_def_str(defs, "row_axis", L.rowtile >= 0 ? p->axes[L.rowtile].name : "");

    char *ops, *bytes;
    summary(&L, &ops, &bytes);
    fg_def_str(defs, "flops_per_row", ops);
    fg_def_str(defs, "bytes_per_row", bytes);
    sb s = {a, NULL, 0, 0};
    if (p->doc && *p->doc)
        sb_printf(&s, " * %s\n", comment_safe(a, p->doc));
    sb_printf(&s, " * Schedule: %s over %s, tile %s = %d, %s = %d", fg_form_names[fz->form],
              p->axes[L.fused].name, L.rowtile >= 0 ? p->axes[L.rowtile].name : "rows", L.TM,
              p->axes[L.fused].name, L.TN);
    if (fz->form == FORM_SPLIT) {
        if (p->sched.splits)
            sb_printf(&s, ", splits %d", p->sched.splits);
        else
            sb_puts(&s, ", splits auto");
    }
    sb_puts(&s, ".\n");
    sb_printf(&s, " * Per output row: %s operations, %s bytes (inputs at their plan dtypes, no reuse).\n",
              ops, bytes);
    fg_def_code(defs, "summary_c", sb_str(&s));

    /* the argument struct */
    sb f = {a, NULL, 0, 0};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            if (pass == 0)
                sb_printf(&f,
                          "    fg_tensor %s; /* input %s[%s]: shape [%s], plan dtype %s "
                          "(bf16, fp16 or f32 accepted) */\n",
                          t->name, t->name, index_text(&L, t), shape_text(&L, t),
                          fg_dtype_names[t->dtype]);
            else
                sb_printf(&f,
                          "    fg_tensor %s; /* output %s[%s]: shape [%s], plan dtype %s "
                          "(f32, bf16 or fp16 accepted) */\n",
                          t->name, t->name, index_text(&L, t), shape_text(&L, t),
                          fg_dtype_names[t->out_dtype]);
        }
    if (p->nparams)
        sb_puts(&f, "    /* params: */\n");
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        const char *def = pa->deflt ? plan_text(&L, pa->deflt) : NULL;
        if (pa->index_axis >= 0) {
            const fg_axis *ax = &p->axes[pa->index_axis];
            sb_printf(&f, "    const float *%s; /* [%s], one per %s; %s */\n", pa->name,
                      p->dims[ax->dim].name, ax->name,
                      def ? arena_printf(a, "NULL: the default %s", def) : "required");
        } else {
            sb_printf(&f, "    %s %s; /* %s%s */\n", pa->dtype == DT_INT ? "int" : "float",
                      pa->name, pa->dtype == DT_INT ? "int" : "f32",
                      def ? arena_printf(a, "; default %s", def) : ", required");
            sb_printf(&f, "    int has_%s; /* 0: %s */\n", pa->name,
                      def ? "use the default" : "missing (an error)");
        }
    }
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        const fg_axis *ow = &p->axes[dm->index_axis];
        sb_printf(&f,
                  "    const int32_t *%s_len; /* [%s]: %s[%s], the length of each %s (0..%s, the "
                  "stored extent; NULL: all %s); host memory for the CPU entry, device memory "
                  "for the GPU ones */\n",
                  dm->name, p->dims[ow->dim].name, dm->name, ow->name, ow->name, dm->name,
                  dm->name);
    }
    if (fz->form == FORM_SPLIT)
        sb_printf(&f, "    int splits; /* splits of %s: 0 = %s, else 1 or more */\n",
                  p->axes[L.fused].name,
                  p->sched.splits ? arena_printf(a, "the plan's %d", p->sched.splits)
                                  : "auto (from the size)");
    else
        sb_printf(&f, "    int splits; /* rolling schedule: 0 or 1 (the CPU entry also takes more: "
                      "it then splits %s and combines) */\n",
                  p->axes[L.fused].name);
    fg_def_code(defs, "args_fields", sb_str(&f));
    return L.errors ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* The C backend                                                       */
/* ------------------------------------------------------------------ */

static char *mask_print(void *ctx, const fg_expr *e)
{
    lc *L = ctx;
    return cexpr(L, SITE_STRUCT, e, NULL);
}

int lower_c(fg_arena *a, const fg_fused *fz, fg_defs *defs, const char **template_rel,
            fg_diag *d)
{
    lc L;
    if (lc_init(&L, a, fz, d) < 0)
        return -1;
    const fg_plan *p = fz->plan;
    bool attention = false;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].cls == CLASS_CONTRACTION)
            attention = true;
    *template_rel = attention ? "c/attention.m4" : "c/rowreduce.m4";

    const char *NN = L.dval[p->axes[L.fused].dim];
    const char *MM = L.rowtile >= 0 ? L.dname[p->axes[L.rowtile].dim] : "1";
    fg_def_code(defs, "c_validate", ind(a, validation_code(&L), 4));
    fg_def_str(defs, "c_rows", MM);
    fg_def_str(defs, "c_keys", NN);
    fg_def_str(defs, "c_keys_full", L.dname[p->axes[L.fused].dim]);
    fg_def_str(defs, "c_ntiles", p->dims[p->axes[L.fused].dim].index_axis >= 0
                                     ? arena_printf(a, "(%s + TN_ - 1) / TN_", NN)
                                     : "ntiles_");

    /* per-sequence lengths (dim N[b]), set per row tile: b is an outer loop */
    sb rs = {a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        if (!(L.outer & (1u << dm->index_axis))) {
            diag_error(d, dm->index_loc,
                       "the C backend needs '%s', which the length of '%s' varies with, to be a "
                       "row axis of the running state outside the row tiles",
                       p->axes[dm->index_axis].name, dm->name);
            return -1;
        }
        sb_printf(&rs, "/* %s[%s]: the length of this %s */\n", dm->name,
                  p->axes[dm->index_axis].name, p->axes[dm->index_axis].name);
        sb_printf(&rs, "const long %s = args->%s_len ? (long)args->%s_len[%s] : %s;\n", L.dval[i],
                  dm->name, dm->name, L.aname[dm->index_axis], L.dname[i]);
        if (L.mask_ok)
            sb_printf(&rs, "x_.%s = %s;\n", L.dname[i], L.dval[i]);
    }
    fg_def_code(defs, "c_row_setup", ind(a, sb_str(&rs), 8));

    /* dims_ and the mask's tile classification */
    sb ds = {a, NULL, 0, 0};
    sb dset = {a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        sb_printf(&ds, "    long %s;\n", L.dname[i]);
        sb_printf(&dset, "x_.%s = %s;\n", L.dname[i], L.dname[i]);
    }
    for (int i = 0; i < p->nparams; i++)
        if (p->params[i].index_axis < 0) {
            sb_printf(&ds, "    %s %s;\n", p->params[i].dtype == DT_INT ? "long" : "float",
                      L.pname[i]);
            sb_printf(&dset, "x_.%s = %s;\n", L.pname[i], L.pname[i]);
        }
    fg_def_bool(defs, "c_mask", L.mask_ok);
    fg_def_code(defs, "c_dims_fields", sb_str(&ds));
    fg_def_code(defs, "c_dims_set", ind(a, sb_str(&dset), 4));
    if (L.mask_ok) {
        const fg_tensor *mt = fz->mask.stmt >= 0 ? &p->tensors[fz->mask.stmt] : NULL;
        fg_def_str(defs, "c_mask_origin",
                   mt ? arena_printf(a, "%s, plan line %d", source_line(&L, mt->loc),
                                     mt->loc.line)
                      : "");
        fg_def_code(defs, "c_tile_state", mask_emit_tile_state(a, &fz->mask, mask_print, &L));
        fg_def_code(defs, "c_key_range", mask_emit_key_range(a, &fz->mask, mask_print, &L));
        bool row_outer = fz->mask.row_axis != L.rowtile;
        const char *ra = row_outer ? L.aname[fz->mask.row_axis] : NULL;
        fg_def_str(defs, "c_mask_rows",
                   row_outer ? arena_printf(a, "%s, %s + 1", ra, ra) : "m0_, m0_ + rows_");
    } else {
        fg_def_str(defs, "c_mask_origin", "");
        fg_def_code(defs, "c_tile_state", "");
        fg_def_code(defs, "c_key_range", "");
        fg_def_str(defs, "c_mask_rows", "");
    }
    /* Tile outputs must be written on every tile: no skipping then. */
    bool tile_outputs = false;
    for (int i = 0; i < fz->ntile; i++)
        if (p->tensors[fz->tile[i]].is_output)
            tile_outputs = true;
    fg_def_bool(defs, "c_skip", L.mask_ok && !tile_outputs);

    /* param vectors */
    sb pv = {a, NULL, 0, 0}, pvfree = {a, NULL, 0, 0};
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis < 0)
            continue;
        const fg_axis *ax = &p->axes[pa->index_axis];
        const char *ext = L.dname[ax->dim];
        const char *nm = L.pname[i];
        sb_printf(&pv, "float *%s_own_ = NULL;\nconst float *%s = args->%s;\n", nm, nm, pa->name);
        if (pa->deflt) {
            uint32_t used = 0;
            char *de = cexpr(&L, SITE_SCALAR, pa->deflt, &used);
            sb_printf(&pv,
                      "if (!%s) {\n"
                      "    %s_own_ = malloc(sizeof(float) * (size_t)(%s > 0 ? %s : 1));\n"
                      "    if (!%s_own_)\n"
                      "        return fg_set_error(FG_ERR_NOMEM, \"%s: no memory for %s\");\n"
                      "    for (long %s = 0; %s < %s; %s++)\n"
                      "        %s_own_[%s] = %s;\n"
                      "    %s = %s_own_;\n"
                      "}\n",
                      nm, nm, ext, ext, nm, L.entry, pa->name, L.aname[ax - p->axes],
                      L.aname[ax - p->axes], ext, L.aname[ax - p->axes], nm,
                      L.aname[ax - p->axes], de, nm, nm);
        } else {
            sb_printf(&pv,
                      "if (!%s)\n"
                      "    return fg_set_error(FG_ERR_NULL, \"%s: %s (one value per %s) is NULL "
                      "and has no default\");\n",
                      nm, L.entry, pa->name, ax->name);
        }
        sb_printf(&pvfree, "free(%s_own_);\n", nm);
    }
    fg_def_code(defs, "c_param_vectors", ind(a, sb_str(&pv), 4));

    /* buffers */
    sb bufs = {a, NULL, 0, 0}, frees = {a, NULL, 0, 0}, nulls = {a, NULL, 0, 0};
    sb_puts(&frees, sb_str(&pvfree));
    bool *saved = ARENA_ARRAY(a, bool, p->ntensors + 1);
    for (int i = 0; i < fz->nrunning; i++)
        for (int k = 0; k < p->ntensors && k < 64; k++)
            if (fz->running[i].corr.kind != CORR_NONE && (fz->running[i].corr.producers & (1ull << k)))
                saved[k] = true;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || !L.needs_buf[i])
            continue;
        sb size = {a, NULL, 0, 0};
        for (int k = 0; k < t->naxes; k++) {
            int ax = t->axes[k];
            if (L.outer & (1u << ax))
                continue;
            sb_printf(&size, "%s%s", size.len ? " * " : "",
                      ax == L.rowtile ? "TM_" : ax == L.fused ? "TN_" : L.dname[p->axes[ax].dim]);
        }
        if (!size.len)
            sb_puts(&size, "1");
        const char *nm = L.tname[i];
        sb_printf(&bufs, "const long %s_n_ = %s; /* %s: %s */\n", nm, sb_str(&size), t->name,
                  fg_role_names[fz->role[i]]);
        sb_printf(&bufs, "float *%s = malloc(sizeof(float) * (size_t)%s_n_);\n", nm, nm);
        sb_printf(&nulls, " || !%s", nm);
        sb_printf(&frees, "free(%s);\n", nm);
        if (saved[i]) {
            sb_printf(&bufs, "float *%s_prev_ = malloc(sizeof(float) * (size_t)%s_n_);\n", nm, nm);
            sb_printf(&nulls, " || !%s_prev_", nm);
            sb_printf(&frees, "free(%s_prev_);\n", nm);
        }
        if (L.is_running[i]) {
            sb_printf(&bufs,
                      "float *%s_part_ = malloc(sizeof(float) * (size_t)%s_n_ * (size_t)splits_);\n",
                      nm, nm);
            sb_printf(&nulls, " || !%s_part_", nm);
            sb_printf(&frees, "free(%s_part_);\n", nm);
        }
    }
    fg_def_code(defs, "c_buffers", ind(a, sb_str(&bufs), 4));
    fg_def_str(defs, "c_buffers_missing", nulls.len ? sb_str(&nulls) + 4 : "0");
    fg_def_code(defs, "c_free", ind(a, sb_str(&frees), 4));

    /* loops over the outer row axes */
    sb outer = {a, NULL, 0, 0};
    for (int ax = 0; ax < p->naxes; ax++)
        if (L.outer & (1u << ax))
            sb_printf(&outer, "for (long %s = 0; %s < %s; %s++)\n", L.aname[ax], L.aname[ax],
                      L.dname[p->axes[ax].dim], L.aname[ax]);
    fg_def_code(defs, "c_outer_loops", ind(a, sb_str(&outer), 4));

    /* running state: identity at the start of each row tile (or split) */
    sb init = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        const char *nm = L.tname[fz->running[i].tensor];
        sb_printf(&init, "for (long k_ = 0; k_ < %s_n_; k_++)\n    %s[k_] = %s;\n", nm, nm,
                  identity_text(fz->running[i].op));
    }
    fg_def_code(defs, "c_running_init", ind(a, sb_str(&init), 12));

    /* prologue */
    sb pro = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nprologue; i++)
        sb_puts(&pro, stmt_code(&L, fz->prologue[i]));
    fg_def_code(defs, "c_prologue", ind(a, sb_str(&pro), 8));

    /* the tile body: tile statements and running steps in dependency order */
    sb tile = {a, NULL, 0, 0};
    for (int k = 0; k < p->norder; k++) {
        int ti = p->order[k];
        if (ti < 0 || ti >= p->ntensors)
            continue;
        if (fz->role[ti] == ROLE_TILE)
            sb_puts(&tile, stmt_code(&L, ti));
        else if (fz->role[ti] == ROLE_RUNNING && L.run_index[ti] >= 0)
            sb_puts(&tile, running_code(&L, L.run_index[ti], saved));
    }
    fg_def_code(defs, "c_tile_body", ind(a, sb_str(&tile), 16));

    /* split: save the partials, then combine */
    sb save = {a, NULL, 0, 0}, comb = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        const char *nm = L.tname[fz->running[i].tensor];
        sb_printf(&save, "memcpy(%s_part_ + s_ * %s_n_, %s, sizeof(float) * (size_t)%s_n_);\n", nm,
                  nm, nm, nm);
        sb_puts(&comb, combine_code(&L, i));
    }
    fg_def_code(defs, "c_save_partials", ind(a, sb_str(&save), 12));
    fg_def_code(defs, "c_combine", ind(a, sb_str(&comb), 8));

    /* epilogue: running outputs, row statements, then a pass over the fused
     * axis for epilogue statements that carry it */
    sb epi = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        int ti = fz->running[i].tensor;
        const fg_tensor *t = &p->tensors[ti];
        if (!t->is_output)
            continue;
        pctx c = {&L, SITE_VALUE, 0, false};
        uint32_t used = 0;
        char *body = arena_printf(a, "/* %s: the final value (a max/min stays +-inf here) */\n"
                                     "st_(&args->%s, %s, %s[%s]);\n",
                                  t->name, L.tname[ti], output_offset(&L, t, &used), L.tname[ti],
                                  buf_index(&c, t));
        sb_puts(&epi, loop_nest(&L, t, L.fused, used | c.used, body));
    }
    bool pass2 = false;
    for (int i = 0; i < fz->nepilogue; i++) {
        const fg_tensor *t = &p->tensors[fz->epilogue[i]];
        if (has_axis(t, L.fused))
            pass2 = true;
        else
            sb_puts(&epi, stmt_code(&L, fz->epilogue[i]));
    }
    fg_def_code(defs, "c_epilogue", ind(a, sb_str(&epi), 8));
    fg_def_bool(defs, "c_epilogue_pass", pass2);
    sb ep2 = {a, NULL, 0, 0};
    if (pass2) {
        /* tile statements the epilogue reads, recomputed with final values */
        bool *need = ARENA_ARRAY(a, bool, p->ntensors + 1);
        for (int i = 0; i < fz->nepilogue; i++) {
            const fg_tensor *t = &p->tensors[fz->epilogue[i]];
            if (has_axis(t, L.fused))
                need[fz->epilogue[i]] = true;
        }
        for (int k = p->norder - 1; k >= 0; k--) {
            int ti = p->order[k];
            if (!need[ti] || !p->tensors[ti].rhs)
                continue;
            const fg_expr *stack[FG_MAX_EXPR_DEPTH * 4];
            int sp = 0;
            stack[sp++] = p->tensors[ti].rhs;
            while (sp) {
                const fg_expr *e = stack[--sp];
                if (e->kind == E_TENSOR && fz->role[e->ref] == ROLE_TILE)
                    need[e->ref] = true;
                for (int q = 0; q < e->nargs && sp < (int)(sizeof stack / sizeof stack[0]); q++)
                    stack[sp++] = e->args[q];
            }
        }
        for (int k = 0; k < p->norder; k++) {
            int ti = p->order[k];
            if (!need[ti])
                continue;
            if (fz->role[ti] == ROLE_TILE || fz->role[ti] == ROLE_EPILOGUE) {
                if (fz->role[ti] == ROLE_TILE && p->tensors[ti].is_output)
                    continue; /* stored in the tile pass */
                sb_puts(&ep2, stmt_code(&L, ti));
            }
        }
    }
    fg_def_code(defs, "c_epilogue_tile", ind(a, sb_str(&ep2), 12));

    /* split count */
    int def_splits = fz->form == FORM_SPLIT ? p->sched.splits : 1;
    fg_def_str(defs, "c_default_splits",
               def_splits > 0 ? arena_printf(a, "%d", def_splits)
                              : "ntiles_ / 4 < 1 ? 1 : ntiles_ / 4 > 64 ? 64 : ntiles_ / 4");
    (void)d;
    return L.errors ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Registry entries                                                    */
/* ------------------------------------------------------------------ */

static const char *public_dtype(fg_dtype t)
{
    switch (t) {
    case DT_BF16: return "FG_BF16";
    case DT_FP16: return "FG_FP16";
    case DT_F32: return "FG_F32";
    case DT_INT: return "FG_I32";
    }
    return "FG_F32";
}

int lower_registry_entry(fg_arena *a, const fg_fused *fz, char **code, char **info_name,
                         fg_diag *d)
{
    lc L;
    if (lc_init(&L, a, fz, d) < 0)
        return -1;
    const fg_plan *p = fz->plan;
    const char *n = p->name;
    sb b = {a, NULL, 0, 0};
    sb_printf(&b, "/* %s: %s */\n", n, comment_safe(a, p->doc ? p->doc : ""));
    sb_printf(&b, "static const char *const %s_dims_[] = {", n);
    for (int i = 0; i < p->ndims; i++)
        sb_printf(&b, "%s\"%s\"", i ? ", " : "", p->dims[i].name);
    sb_puts(&b, "};\n");
    sb_printf(&b, "static const int %s_dim_over_[] = {", n);
    for (int i = 0; i < p->ndims; i++)
        sb_printf(&b, "%s%d", i ? ", " : "",
                  p->dims[i].index_axis >= 0 ? p->axes[p->dims[i].index_axis].dim : -1);
    sb_puts(&b, "};\n");
    int nin = 0, nout = 0;
    for (int pass = 0; pass < 2; pass++) {
        sb_printf(&b, "static const fg_plan_tensor_info %s_%s_[] = {\n", n,
                  pass ? "outputs" : "inputs");
        for (int i = 0; i < p->ntensors; i++) {
            const fg_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            *(pass ? &nout : &nin) += 1;
            sb_printf(&b, "    {\"%s\", %s, %d, {", t->name,
                      public_dtype(pass ? t->out_dtype : t->dtype), tensor_rank(t));
            for (int k = 0; k < tensor_rank(t); k++)
                sb_printf(&b, "%s%d", k ? ", " : "", position_dim(p, t, k));
            sb_puts(&b, "}},\n");
        }
        sb_puts(&b, "};\n");
    }
    if (p->nparams) {
        sb_printf(&b, "static const fg_plan_param_info %s_params_[] = {\n", n);
        for (int i = 0; i < p->nparams; i++) {
            const fg_param *pa = &p->params[i];
            sb_printf(&b, "    {\"%s\", %d, %d, %d, %d},\n", pa->name, pa->dtype == DT_INT,
                      pa->deflt != NULL, pa->index_axis,
                      pa->index_axis >= 0 ? p->axes[pa->index_axis].dim : -1);
        }
        sb_puts(&b, "};\n");
    }
    sb_printf(&b,
              "static fg_status %s_cpu_(const fg_tensor *inputs, const fg_tensor *outputs,\n"
              "                         const double *params, const int *has_params,\n"
              "                         const float *const *param_vectors,\n"
              "                         const int32_t *const *lens, int splits)\n{\n"
              "    fg_%s_args a_;\n    memset(&a_, 0, sizeof a_);\n"
              "    (void)params;\n    (void)has_params;\n    (void)param_vectors;\n"
              "    (void)lens;\n"
              "    if (!inputs || !outputs)\n"
              "        return fg_set_error(FG_ERR_NULL, \"%s: inputs or outputs is NULL\");\n",
              n, n, n);
    int ki = 0, ko = 0;
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT)
            sb_printf(&b, "    a_.%s = inputs[%d];\n", t->name, ki++);
    }
    for (int i = 0; i < p->ntensors; i++) {
        const fg_tensor *t = &p->tensors[i];
        if (t->is_output)
            sb_printf(&b, "    a_.%s = outputs[%d];\n", t->name, ko++);
    }
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            sb_printf(&b, "    a_.%s = param_vectors ? param_vectors[%d] : NULL;\n", pa->name, i);
        else
            sb_printf(&b,
                      "    if (params && has_params && has_params[%d]) {\n"
                      "        a_.%s = (%s)params[%d];\n        a_.has_%s = 1;\n    }\n",
                      i, pa->name, pa->dtype == DT_INT ? "int" : "float", i, pa->name);
    }
    for (int i = 0; i < p->ndims; i++)
        if (p->dims[i].index_axis >= 0)
            sb_printf(&b, "    a_.%s_len = lens ? lens[%d] : NULL;\n", p->dims[i].name, i);
    sb_printf(&b, "    a_.splits = splits;\n    return fg_%s_cpu(&a_);\n}\n", n);
    sb_printf(&b,
              "static const fg_plan_info %s_info_ = {\n"
              "    \"%s\", \"%s\", %d, %s_dims_, %s_dim_over_,\n"
              "    %d, %s_inputs_, %d, %s_outputs_,\n"
              "    %d, %s,\n"
              "    %s_cpu_,\n"
              "};\n",
              n, n, fg_form_names[fz->form], p->ndims, n, n, nin, n, nout, n, p->nparams,
              p->nparams ? arena_printf(a, "%s_params_", n) : "NULL", n);
    *code = sb_str(&b);
    *info_name = arena_printf(a, "%s_info_", n);
    (void)L;
    return 0;
}
