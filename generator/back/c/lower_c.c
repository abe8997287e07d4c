/* lower_c.c - the C backend: the kernel model as portable C.
 *
 * Everything numeric and every C expression is computed here; the templates
 * (templates/c/) only select and format (templates/README.md lists the
 * definitions).  The C backend runs the same fused schedule as the GPU
 * kernels: rows in tiles of the row tile, the fused axis in tiles of its
 * tile size, running state per row, corrections before each tile's
 * contribution, an epilogue after the last tile, and in split form a
 * combine of the splits' partial states.
 *
 * Names in the emitted C: plan names as written (S, Mx, L, O_sum); the
 * generator's own names end in '_' (i_, n0_, Mx_prev_, ld_); a plan name
 * that is a C keyword, a library name the code uses, or ends in '_' gets
 * the suffix "_v".
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

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

/* ------------------------------------------------------------------ */
/* The lowering context                                                */
/* ------------------------------------------------------------------ */

typedef struct lc {
    fg_arena *a;
    const fg_kernel *k;
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

static bool has_axis(const fg_ir_tensor *t, int axis)
{
    for (int k = 0; k < t->naxes; k++)
        if (t->axes[k] == axis)
            return true;
    return false;
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

/* The row-major index of statement tensor t in its buffer: over its axes
 * that are not outer loops (row tile -> i_, fused -> j_, others by name). */
static char *buf_index(pctx *c, const fg_ir_tensor *t)
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

/* Offset of an input element: the read's index expressions (the declared
 * ones, or those written at the read) times the strides of the argument;
 * the entry checked their ranges before any work (validate_reads). */
static void input_offset(pctx *c, sb *b, const fg_expr *read)
{
    lc *L = c->L;
    for (int k = 0; k < read->nargs; k++) {
        if (k)
            sb_puts(b, " + ");
        /* a product binds tighter than anything but a unary or a name */
        pe(c, b, read->args[k], 6);
        sb_printf(b, " * args->%s.stride[%d]", L->tname[read->ref], k);
    }
    if (read->nargs == 0)
        sb_puts(b, "0");
}

static void print_running_read(pctx *c, sb *b, int ti, bool prev)
{
    lc *L = c->L;
    const fg_ir_tensor *t = &L->p->tensors[ti];
    char *idx = buf_index(c, t);
    if (prev && c->site == SITE_COMBINE) {
        sb_printf(b, "%s_part_[s_ * %s_n_ + %s]", L->tname[ti], L->tname[ti], idx);
        return;
    }
    if (prev) {
        sb_printf(b, "%s_prev_[%s]", L->tname[ti], idx);
        return;
    }
    if (rule_masked_minmax(t))
        sb_printf(b, "safe_(%s[%s])", L->tname[ti], idx);
    else
        sb_printf(b, "%s[%s]", L->tname[ti], idx);
}

/* The leaves of an expression in the C tiles: dims (their value inside
 * the row loops), axes, params, input elements through ld_, statement
 * buffers, running values (and their previous values at this site). */
static void leaf_c(fg_printer *pr, fg_strbuf *b, const fg_expr *e)
{
    pctx *c = pr->ctx;
    lc *L = c->L;
    const fg_plan *p = L->p;
    switch (e->kind) {
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
                code_expr(pr, b, e->args[0], 0);
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
        const fg_ir_tensor *t = &p->tensors[e->ref];
        if (t->kind == TENSOR_INPUT) {
            if (t->dtype == DT_INT) {
                /* an i32 input (ids, lengths): int arithmetic, read as long */
                sb_printf(b, "(long)((const int32_t *)args->%s.data)[", L->tname[e->ref]);
                input_offset(c, b, e);
                sb_puts(b, "]");
            } else {
                sb_printf(b, "ld_(&args->%s, ", L->tname[e->ref]);
                input_offset(c, b, e);
                sb_puts(b, ")");
            }
        } else if (L->is_running[e->ref]) {
            print_running_read(c, b, e->ref, false);
        } else {
            char *idx = buf_index(c, t);
            if (rule_masked_minmax(t))
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
    default:
        diag_internal(L->d, e->loc, "lower_c: an expression the C tiles cannot read (%s)",
                      fg_expr_kind_names[e->kind]);
        L->errors++;
        sb_puts(b, "0");
        break;
    }
}

static void pe(pctx *c, sb *b, const fg_expr *e, int prec)
{
    fg_printer pr = {.a = c->L->a, .p = c->L->p, .dl = &fg_dialects[DIALECT_C], .leaf = leaf_c,
                     .ctx = c, .where_full = c->mask_full ? "full_" : NULL, .masked_div = true};
    code_expr(&pr, b, e, prec);
    if (pr.errors) {
        diag_internal(c->L->d, e->loc, "lower_c: an unresolved or nested expression");
        c->L->errors++;
    }
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

/* Plan syntax for comments. */
static char *plan_text(lc *L, const fg_expr *e)
{
    return comment_safe(L->a, expr_to_string(L->a, L->p, e));
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

static int lc_init(lc *L, fg_arena *a, const fg_kernel *k, fg_diag *d)
{
    memset(L, 0, sizeof *L);
    const fg_fused *fz = k->fz;
    const fg_plan *p = k->plan;
    L->a = a;
    L->k = k;
    L->fz = fz;
    L->p = p;
    L->d = d;
    L->fused = k->sched.reduced_axis;
    L->rowtile = k->sched.row_axis;
    L->outer = k->sched.outer;
    L->TM = k->sched.tile_rows;
    L->TN = k->sched.tile_keys;
    L->mask_ok = k->mask_rows_keys;
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
    for (int i = 0; i < k->nvalues; i++) {
        L->is_running[k->values[i].tensor] = true;
        L->run_index[k->values[i].tensor] = i;
    }
    /* Buffers: running values, and statements that another statement reads. */
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || !t->rhs)
            continue;
        L->needs_buf[i] |= L->is_running[i];
        const fg_expr *stack[FG_MAX_EXPR_DEPTH * 4];
        int sp = 0;
        stack[sp++] = t->rhs;
        while (sp) {
            const fg_expr *e = stack[--sp];
            if (e->kind == E_TENSOR && p->tensors[e->ref].kind == TENSOR_STMT)
                L->needs_buf[e->ref] = true;
            for (int j = 0; j < e->nargs && sp < (int)(sizeof stack / sizeof stack[0]); j++)
                stack[sp++] = e->args[j];
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Loops and statements                                                */
/* ------------------------------------------------------------------ */

/* Wraps body (already printed, reading axes `used`) in loops over the
 * statement's axes that are not outer loops (skipping `skip_axis`). */
static char *loop_nest(lc *L, const fg_ir_tensor *t, int skip_axis, uint32_t used, const char *body)
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
    strbuf_indented(&b, body, depth * 4);
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
static char *output_offset(lc *L, const fg_ir_tensor *t, uint32_t *used)
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
    const fg_ir_tensor *t = &p->tensors[ti];
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
    /* an optional output with NULL data is not stored; nor computed, when
     * no other statement reads it */
    bool opt = t->is_output && plan_output_optional(p, ti);
    if (t->is_output)
        sb_printf(&body, "%sst_(&args->%s, %s, %s);\n",
                  opt && L->needs_buf[ti] ? arena_printf(L->a, "if (args->%s.data)\n    ",
                                                         L->tname[ti])
                                          : "",
                  L->tname[ti], output_offset(L, t, &used), val);
    used |= c.used;
    char *code = loop_nest(L, t, -1, used, sb_str(&body));
    if (opt && !L->needs_buf[ti])
        return arena_printf(L->a, "if (args->%s.data) { /* NULL data: not computed */\n%s}\n",
                            L->tname[ti], text_indented(L->a, code, 4));
    return code;
}

/* A short description of the producers a correction reads. */
static char *producers_text(lc *L, const fg_correction *cr)
{
    sb b = {L->a, NULL, 0, 0};
    for (int i = 0; i < L->p->ntensors && i < 64; i++)
        if (cr->producers & (1ull << i)) {
            const fg_ir_tensor *t = &L->p->tensors[i];
            sb_printf(&b, "%s%s %s", b.len ? " and " : "",
                      t->op == R_MAX ? "max" : t->op == R_MIN ? "min" : "sum", t->name);
        }
    return sb_str(&b);
}

static char *correction_comment(lc *L, const fg_running *r)
{
    const fg_plan *p = L->p;
    const fg_ir_tensor *t = &p->tensors[r->tensor];
    sb b = {L->a, NULL, 0, 0};
    sb_printf(&b, "%s: running %s", t->name, fg_reduce_names[r->op]);
    if (r->corr.kind != CORR_NONE && r->corr.factor) {
        sb_printf(&b, " under a moving %s; correction %s %s", producers_text(L, &r->corr),
                  r->corr.kind == CORR_SCALE ? "*" : "+", plan_text(L, r->corr.factor));
        if (r->corr.origin >= 0 && r->corr.origin < p->ntensors) {
            const fg_ir_tensor *o = &p->tensors[r->corr.origin];
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
    const fg_ir_tensor *t = &p->tensors[r->tensor];
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
    const fg_ir_tensor *t = &p->tensors[r->tensor];
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

/* Validation, part 1: the tensors, the dims bound from their shapes, the
 * per-sequence lengths. */
static void validate_shapes(lc *L, sb *bp)
{
    const fg_plan *p = L->p;
    fg_arena *a = L->a;
    const char *E = L->entry;
    sb b = *bp;
    /* tensors */
    const unsigned float_types = 1u | 2u | 4u;
    (void)float_types;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            /* an optional output with NULL data is not computed (as the
             * CUDA entry treats LSE): checked only when given */
            bool opt = plan_output_optional(p, i);
            sb chk = {a, NULL, 0, 0};
            sb_printf(&chk,
                      "status_ = fg_check_tensor(&args->%s, \"%s: %s\", %d,\n"
                          "                          %s,\n"
                      "                          (int64_t)fg_dtype_size(args->%s.dtype));\n"
                      "if (status_ != FG_OK)\n    return status_;\n",
                      L->tname[i], E, t->name, plan_tensor_rank(t),
                      t->kind == TENSOR_INPUT && t->dtype == DT_INT
                          ? "FG_DTYPE_BIT(FG_I32)"
                          : "FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16) | FG_DTYPE_BIT(FG_F32)",
                      L->tname[i]);
            if (opt)
                sb_printf(&b, "if (args->%s.data) { /* NULL data: %s is not computed */\n%s}\n",
                          L->tname[i], t->name, text_indented(a, sb_str(&chk), 4));
            else
                sb_puts(&b, sb_str(&chk));
        }
    /* dims: from the first position whose extent they are */
    int *from_t = ARENA_ARRAY(a, int, p->ndims + 1), *from_k = ARENA_ARRAY(a, int, p->ndims + 1);
    for (int k = 0; k < p->ndims; k++)
        from_t[k] = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            /* an optional output binds no dim (plan_output_optional): its
             * shape is compared only when it is given */
            bool opt = plan_output_optional(p, i);
            sb cmp = {a, NULL, 0, 0};
            for (int k = 0; k < plan_tensor_rank(t); k++) {
                int dm = plan_position_dim(p, t, k);
                if (dm < 0)
                    continue;
                if (from_t[dm] < 0) {
                    from_t[dm] = i;
                    from_k[dm] = k;
                    sb_printf(&b, "const long %s = (long)args->%s.shape[%d];\n", L->dname[dm],
                              L->tname[i], k);
                } else {
                    sb_printf(&cmp,
                              "if (args->%s.shape[%d] != %s)\n"
                              "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s.shape[%d] is %%lld, "
                              "but %s is %%ld (from %s.shape[%d])\",\n"
                              "                        (long long)args->%s.shape[%d], %s);\n",
                              L->tname[i], k, L->dname[dm], E, t->name, k, p->dims[dm].name,
                              p->tensors[from_t[dm]].name, from_k[dm], L->tname[i], k,
                              L->dname[dm]);
                }
            }
            if (opt && cmp.len)
                sb_printf(&b, "if (args->%s.data) {\n%s}\n", L->tname[i],
                          text_indented(a, sb_str(&cmp), 4));
            else if (cmp.len)
                sb_puts(&b, sb_str(&cmp));
        }
    for (int k = 0; k < p->ndims; k++)
        if (from_t[k] < 0) {
            diag_error(L->d, p->dims[k].loc,
                       "dim '%s' is the extent of no input or output position, so the "
                       "generated code cannot bind it",
                       p->dims[k].name);
            L->errors++;
        }
    /* every extent must be positive, as on the CUDA entry: an empty dim is
     * a shape error (FG_ERR_SHAPE) before any param is computed from it
     * (G = Hq / Hkv). A contraction's dim (other than the fused axis) gets
     * the reason: it would reduce over nothing and divide by it (rsqrt(D)).
     * An empty sequence is a length (N_len[b] = 0), not an extent. */
    for (int k = 0; k < p->ndims; k++) {
        if (from_t[k] < 0)
            continue;
        const fg_ir_tensor *red = NULL;
        for (int i = 0; i < p->ntensors && !red; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (t->kind != TENSOR_INPUT && t->cls == CLASS_CONTRACTION && t->red_axis >= 0 &&
                t->red_axis != L->fused && p->axes[t->red_axis].dim == k)
                red = t;
        }
        if (red)
            sb_printf(&b,
                      "if (%s == 0)\n"
                      "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s is 0, but %s (plan line %d) "
                      "reduces over it\");\n",
                      L->dname[k], E, p->dims[k].name,
                      red->hoisted && red->hoisted_from >= 0 ? p->tensors[red->hoisted_from].name
                                                             : red->name,
                      red->loc.line);
        else
            sb_printf(&b,
                      "if (%s == 0)\n"
                      "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s is 0 (%s.shape[%d]): an "
                      "empty extent is refused\");\n",
                      L->dname[k], E, p->dims[k].name, p->tensors[from_t[k]].name, from_k[k]);
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
    *bp = b;
}

/* Validation, part 2: the scalar params and their defaults. */
static void validate_params(lc *L, sb *bp)
{
    const fg_plan *p = L->p;
    const char *E = L->entry;
    sb b = *bp;
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
    *bp = b;
}

/* Validation, part 3: int divisors, and index expressions that are not a
 * plain axis (in range at both ends). */
static void validate_indices(lc *L, sb *bp)
{
    const fg_plan *p = L->p;
    fg_arena *a = L->a;
    const char *E = L->entry;
    sb b = *bp;
    /* int divisors in statements and index expressions */
    sb divs = {a, NULL, 0, 0};
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT)
            for (int k = 0; k < t->nindex; k++)
                divisor_checks(L, &divs, t->index[k], "");
        else if (t->rhs)
            divisor_checks(L, &divs, t->rhs, "");
    }
    /* dedupe identical checks (the same divisor twice on one plan line) */
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
        const fg_ir_tensor *t = &p->tensors[i];
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
            int dm = plan_position_dim(p, t, k);
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
                /* the quotient must cover the position's whole extent (as
                 * the CUDA entry requires Hq = G * Hkv): else a kv head is
                 * silently never read */
                if (dm != p->axes[ax].dim)
                    sb_printf(&b,
                              "if (%s / (%s) != %s)\n    return fg_set_error(FG_ERR_SHAPE, "
                              "\"%s: %s = %%ld, %s = %%ld and %s = %%ld: %s[%s] needs %s = %s * "
                              "%s\", %s, %s, (long)(%s));\n",
                              ext, dv, L->dname[dm], E, p->dims[p->axes[ax].dim].name,
                              p->dims[dm].name, c_string(a, plan_text(L, ix->args[1])), t->name,
                              c_string(a, plan_text(L, ix)), p->dims[p->axes[ax].dim].name,
                              c_string(a, plan_text(L, ix->args[1])), p->dims[dm].name, ext,
                              L->dname[dm], dv);
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
    *bp = b;
}

/* The interval [*lo, *hi] (C text, long) of an int index expression over
 * the whole extent of every axis it reads (a per-sequence extent: its full
 * extent, which holds every length), with the dims and int params of the
 * entry; interval arithmetic, exact for an expression monotone in each
 * axis (clamp(n - m + c, 0, R - 1)) and conservative otherwise.  False for
 * a node it cannot bound. */
static bool index_interval(lc *L, const fg_expr *e, char **lo, char **hi)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    char *l1, *h1, *l2, *h2;
    switch (e->kind) {
    case E_NUM:
        if (!e->is_int && e->num != floor(e->num))
            return false;
        *lo = *hi = arena_printf(a, "%ldL", (long)e->num);
        return true;
    case E_DIM:
        *hi = arena_printf(a, "%s", L->dname[e->ref]);
        *lo = p->dims[e->ref].index_axis >= 0 ? "0L" : *hi;
        return true;
    case E_PARAM:
        if (p->params[e->ref].dtype != DT_INT || p->params[e->ref].index_axis >= 0)
            return false;
        *lo = *hi = arena_printf(a, "%s", L->pname[e->ref]);
        return true;
    case E_AXIS:
        *lo = "0L";
        *hi = arena_printf(a, "(%s - 1)", L->dname[p->axes[e->ref].dim]);
        return true;
    case E_NEG:
        if (!index_interval(L, e->args[0], &l1, &h1))
            return false;
        *lo = arena_printf(a, "(-%s)", h1);
        *hi = arena_printf(a, "(-%s)", l1);
        return true;
    case E_ADD:
    case E_SUB:
        if (!index_interval(L, e->args[0], &l1, &h1) || !index_interval(L, e->args[1], &l2, &h2))
            return false;
        if (e->kind == E_ADD) {
            *lo = arena_printf(a, "(%s + %s)", l1, l2);
            *hi = arena_printf(a, "(%s + %s)", h1, h2);
        } else {
            *lo = arena_printf(a, "(%s - %s)", l1, h2);
            *hi = arena_printf(a, "(%s - %s)", h1, l2);
        }
        return true;
    case E_MUL:
    case E_DIV: {
        if (!index_interval(L, e->args[0], &l1, &h1) || !index_interval(L, e->args[1], &l2, &h2))
            return false;
        /* the extremes sit at the corners; a divisor is a positive dim or
         * param expression (checked before), never an axis */
        if (e->kind == E_DIV && e->args[1]->axes)
            return false;
        const char *op = e->kind == E_MUL ? "*" : "/";
        char *c[4] = {arena_printf(a, "%s %s %s", l1, op, l2), arena_printf(a, "%s %s %s", l1, op, h2),
                      arena_printf(a, "%s %s %s", h1, op, l2), arena_printf(a, "%s %s %s", h1, op, h2)};
        *lo = arena_printf(a, "min_l_(min_l_(%s, %s), min_l_(%s, %s))", c[0], c[1], c[2], c[3]);
        *hi = arena_printf(a, "max_l_(max_l_(%s, %s), max_l_(%s, %s))", c[0], c[1], c[2], c[3]);
        return true;
    }
    case E_CALL:
        if (e->fn == F_MIN || e->fn == F_MAX) {
            if (!index_interval(L, e->args[0], &l1, &h1) ||
                !index_interval(L, e->args[1], &l2, &h2))
                return false;
            const char *f = e->fn == F_MIN ? "min_l_" : "max_l_";
            *lo = arena_printf(a, "%s(%s, %s)", f, l1, l2);
            *hi = arena_printf(a, "%s(%s, %s)", f, h1, h2);
            return true;
        }
        if (e->fn == F_ABS) {
            if (!index_interval(L, e->args[0], &l1, &h1))
                return false;
            *lo = arena_printf(a, "(%s >= 0 ? %s : %s <= 0 ? -%s : 0L)", l1, l1, h1, h1);
            *hi = arena_printf(a, "max_l_(-%s, %s)", l1, h1);
            return true;
        }
        return false;
    case E_WHERE:
        if (!index_interval(L, e->args[1], &l1, &h1) || !index_interval(L, e->args[2], &l2, &h2))
            return false;
        *lo = arena_printf(a, "min_l_(%s, %s)", l1, l2);
        *hi = arena_printf(a, "max_l_(%s, %s)", h1, h2);
        return true;
    default:
        return false;
    }
}

/* Whether e is min(max(x, 0), DIM - 1), clamp(x, 0, DIM - 1): in [0, DIM)
 * by construction whenever DIM >= 1 (known at generation). */
static bool clamped_into(const fg_expr *e, int dim)
{
    if (e->kind != E_CALL || e->fn != F_MIN || e->nargs != 2)
        return false;
    const fg_expr *mx = e->args[0], *top = e->args[1];
    if (mx->kind != E_CALL || mx->fn != F_MAX || mx->nargs != 2)
        return false;
    bool zero = mx->args[1]->kind == E_NUM && mx->args[1]->num == 0;
    return zero && top->kind == E_SUB && top->args[0]->kind == E_DIM &&
           top->args[0]->ref == dim && top->args[1]->kind == E_NUM && top->args[1]->num == 1;
}

/* Validation, part 4: every read of an input at indices other than its
 * declared ones (a gather: T[clamp(n - m + c, 0, R - 1)], a vector read at
 * another axis) is in range over every element it can reach, checked once
 * before any work, so no load is ever out of bounds. */
static void validate_reads(lc *L, sb *bp, const fg_expr *e, sb *seen)
{
    const fg_plan *p = L->p;
    fg_arena *a = L->a;
    for (int i = 0; i < e->nargs; i++)
        validate_reads(L, bp, e->args[i], seen);
    if (e->kind != E_TENSOR || p->tensors[e->ref].kind != TENSOR_INPUT)
        return;
    const fg_ir_tensor *t = &p->tensors[e->ref];
    for (int k = 0; k < e->nargs && k < t->nindex; k++) {
        const fg_expr *ix = e->args[k];
        int dm = plan_position_dim(p, t, k);
        if (expr_equal(ix, t->index[k]) || dm < 0)
            continue; /* the declared index: validate_indices checks it */
        if (ix->kind == E_AXIS && p->axes[ix->ref].dim == dm)
            continue; /* a whole axis over the stored extent */
        char *text = plan_text(L, ix);
        const char *ext = L->dname[dm];
        /* the axes the index reads: no element to read when one is empty */
        sb live = {a, NULL, 0, 0};
        for (int q = 0; q < p->naxes; q++)
            if (ix->axes & (1u << q))
                sb_printf(&live, " && %s > 0", L->dname[p->axes[q].dim]);
        const char *when = live.len ? sb_str(&live) + 4 : "1";
        char *check;
        if (clamped_into(ix, dm)) {
            /* in range by construction: the table must not be empty */
            check = arena_printf(a,
                                 "/* %s[%s]: in [0, %s) by construction when %s >= 1 */\n"
                                 "if ((%s) && %s < 1)\n"
                                 "    return fg_set_error(FG_ERR_SHAPE, \"%s: %s is 0, but %s is "
                                 "read at %s (plan line %d)\");\n",
                                 t->name, text, p->dims[dm].name, p->dims[dm].name, when, ext,
                                 L->entry, p->dims[dm].name, t->name, c_string(a, text),
                                 ix->loc.line);
        } else {
            char *lo, *hi;
            if (!index_interval(L, ix, &lo, &hi)) {
                diag_error(L->d, ix->loc,
                           "the C backend cannot bound index '%s' of '%s': an index read at a "
                           "gather may use +, -, * and / of axes, dims, int params and "
                           "numbers, min, max, clamp, abs and where",
                           expr_to_string(a, p, ix), t->name);
                L->errors++;
                return;
            }
            check = arena_printf(
                a,
                "{\n"
                "    /* %s[%s], plan line %d: its range over every element */\n"
                "    const long lo_ = %s;\n"
                "    const long hi_ = %s;\n"
                "    if ((%s) && (lo_ < 0 || hi_ >= %s))\n"
                "        return fg_set_error(FG_ERR_SHAPE, \"%s: index %s of %s (plan line %d) "
                "takes values %%ld to %%ld, outside [0, %%ld) = [0, %s)\", lo_, hi_, %s);\n"
                "}\n",
                t->name, text, ix->loc.line, lo, hi, when, ext, L->entry, c_string(a, text),
                t->name, ix->loc.line, p->dims[dm].name, ext);
        }
        if (seen->s && strstr(seen->s, check))
            continue;
        sb_puts(seen, check);
    }
}

/* The argument checks of the CPU entry, in the order they run. */
static char *validation_code(lc *L)
{
    sb b = {L->a, NULL, 0, 0};
    sb_printf(&b, "if (!args)\n    return fg_set_error(FG_ERR_NULL, \"%s: args is NULL\");\n",
              L->entry);
    sb_puts(&b, "fg_status status_;\n");
    validate_shapes(L, &b);
    validate_params(L, &b);
    validate_indices(L, &b);
    sb gathers = {L->a, NULL, 0, 0};
    for (int i = 0; i < L->p->ntensors; i++)
        if (L->p->tensors[i].kind == TENSOR_STMT && L->p->tensors[i].rhs)
            validate_reads(L, &b, L->p->tensors[i].rhs, &gathers);
    if (gathers.len)
        sb_puts(&b, sb_str(&gathers));
    return sb_str(&b);
}

/* ------------------------------------------------------------------ */
/* The C backend                                                       */
/* ------------------------------------------------------------------ */

static char *mask_print(void *ctx, const fg_expr *e)
{
    lc *L = ctx;
    return cexpr(L, SITE_STRUCT, e, NULL);
}

static int c_rows_defs(lc *L, fg_defs *defs)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    const char *NN = L->dval[p->axes[L->fused].dim];
    const char *MM = L->rowtile >= 0 ? L->dname[p->axes[L->rowtile].dim] : "1";
    fg_def_code(defs, "c_validate", text_indented(a, validation_code(L), 4));
    fg_def_str(defs, "c_rows", MM);
    fg_def_str(defs, "c_keys", NN);
    fg_def_str(defs, "c_keys_full", L->dname[p->axes[L->fused].dim]);
    fg_def_str(defs, "c_ntiles", p->dims[p->axes[L->fused].dim].index_axis >= 0
                                     ? arena_printf(a, "(%s + TN_ - 1) / TN_", NN)
                                     : "ntiles_");

    /* per-sequence lengths (dim N[b]), set per row tile: b is an outer loop */
    sb rs = {a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        if (!(L->outer & (1u << dm->index_axis))) {
            diag_error(L->d, dm->index_loc,
                       "the C backend needs '%s', which the length of '%s' varies with, to be a "
                       "row axis of the running state outside the row tiles",
                       p->axes[dm->index_axis].name, dm->name);
            return -1;
        }
        sb_printf(&rs, "/* %s[%s]: the length of this %s */\n", dm->name,
                  p->axes[dm->index_axis].name, p->axes[dm->index_axis].name);
        sb_printf(&rs, "const long %s = args->%s_len ? (long)args->%s_len[%s] : %s;\n", L->dval[i],
                  dm->name, dm->name, L->aname[dm->index_axis], L->dname[i]);
        if (L->mask_ok)
            sb_printf(&rs, "x_.%s = %s;\n", L->dname[i], L->dval[i]);
    }
    fg_def_code(defs, "c_row_setup", text_indented(a, sb_str(&rs), 8));
    return 0;
}

static void c_mask_defs(lc *L, fg_defs *defs)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    /* dims_ and the mask's tile classification */
    sb ds = {a, NULL, 0, 0};
    sb dset = {a, NULL, 0, 0};
    for (int i = 0; i < p->ndims; i++) {
        sb_printf(&ds, "    long %s;\n", L->dname[i]);
        sb_printf(&dset, "x_.%s = %s;\n", L->dname[i], L->dname[i]);
    }
    for (int i = 0; i < p->nparams; i++)
        if (p->params[i].index_axis < 0) {
            sb_printf(&ds, "    %s %s;\n", p->params[i].dtype == DT_INT ? "long" : "float",
                      L->pname[i]);
            sb_printf(&dset, "x_.%s = %s;\n", L->pname[i], L->pname[i]);
        }
    fg_def_bool(defs, "c_mask", L->mask_ok);
    fg_def_code(defs, "c_dims_fields", sb_str(&ds));
    fg_def_code(defs, "c_dims_set", text_indented(a, sb_str(&dset), 4));
    if (L->mask_ok) {
        const fg_ir_tensor *mt = fz->mask.stmt >= 0 ? &p->tensors[fz->mask.stmt] : NULL;
        fg_def_str(defs, "c_mask_origin",
                   mt ? arena_printf(a, "%s, plan line %d", source_line(L, mt->loc),
                                     mt->loc.line)
                      : "");
        fg_def_code(defs, "c_tile_state", mask_emit_tile_state(a, &fz->mask, mask_print, L));
        fg_def_code(defs, "c_key_range", mask_emit_key_range(a, &fz->mask, mask_print, L));
        bool row_outer = fz->mask.row_axis != L->rowtile;
        const char *ra = row_outer ? L->aname[fz->mask.row_axis] : NULL;
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
    fg_def_bool(defs, "c_skip", L->mask_ok && !tile_outputs);
}

/* The param vectors (param slope[h]): the caller's, or the default filled
 * into a buffer of the entry's own.  An error on the way frees the
 * buffers of the vectors before it. */
static const char *c_param_vector_defs(lc *L, fg_defs *defs)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    sb pv = {a, NULL, 0, 0}, pvfree = {a, NULL, 0, 0};
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis < 0)
            continue;
        const fg_axis *ax = &p->axes[pa->index_axis];
        const char *ext = L->dname[ax->dim];
        const char *nm = L->pname[i];
        const char *an = L->aname[ax - p->axes];
        /* the frees of the earlier vectors, before an error's return */
        const char *undo = text_indented(a, sb_str(&pvfree), 8);
        sb_printf(&pv, "float *%s_own_ = NULL;\nconst float *%s = args->%s;\n", nm, nm, pa->name);
        if (pa->deflt) {
            uint32_t used = 0;
            char *de = cexpr(L, SITE_SCALAR, pa->deflt, &used);
            sb_printf(&pv,
                      "if (!%s) {\n"
                      "    %s_own_ = malloc(sizeof(float) * (size_t)(%s > 0 ? %s : 1));\n"
                      "    if (!%s_own_) {\n"
                      "%s"
                      "        return fg_set_error(FG_ERR_NOMEM, \"%s: no memory for %s\");\n"
                      "    }\n"
                      "    for (long %s = 0; %s < %s; %s++)\n"
                      "        %s_own_[%s] = %s;\n"
                      "    %s = %s_own_;\n"
                      "}\n",
                      nm, nm, ext, ext, nm, undo, L->entry, pa->name, an, an, ext, an, nm, an, de,
                      nm, nm);
        } else {
            sb_printf(&pv,
                      "if (!%s) {\n"
                      "%s"
                      "    return fg_set_error(FG_ERR_NULL, \"%s: %s (one value per %s) is NULL "
                      "and has no default\");\n"
                      "}\n",
                      nm, text_indented(a, sb_str(&pvfree), 4), L->entry, pa->name, ax->name);
        }
        sb_printf(&pvfree, "free(%s_own_);\n", nm);
    }
    fg_def_code(defs, "c_param_vectors", text_indented(a, sb_str(&pv), 4));
    return sb_str(&pvfree);
}

static void c_buffer_defs(lc *L, fg_defs *defs, const char *pvfree, bool *saved)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    /* buffers */
    sb bufs = {a, NULL, 0, 0}, frees = {a, NULL, 0, 0}, nulls = {a, NULL, 0, 0};
    sb_puts(&frees, pvfree);
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind != TENSOR_STMT || !L->needs_buf[i])
            continue;
        sb size = {a, NULL, 0, 0};
        for (int k = 0; k < t->naxes; k++) {
            int ax = t->axes[k];
            if (L->outer & (1u << ax))
                continue;
            sb_printf(&size, "%s%s", size.len ? " * " : "",
                      ax == L->rowtile ? "TM_" : ax == L->fused ? "TN_" : L->dname[p->axes[ax].dim]);
        }
        if (!size.len)
            sb_puts(&size, "1");
        const char *nm = L->tname[i];
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
        if (L->is_running[i]) {
            sb_printf(&bufs,
                      "float *%s_part_ = malloc(sizeof(float) * (size_t)%s_n_ * (size_t)splits_);\n",
                      nm, nm);
            sb_printf(&nulls, " || !%s_part_", nm);
            sb_printf(&frees, "free(%s_part_);\n", nm);
        }
    }
    fg_def_code(defs, "c_buffers", text_indented(a, sb_str(&bufs), 4));
    fg_def_str(defs, "c_buffers_missing", nulls.len ? sb_str(&nulls) + 4 : "0");
    fg_def_code(defs, "c_free", text_indented(a, sb_str(&frees), 4));
}

static void c_loop_defs(lc *L, fg_defs *defs, const bool *saved)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    /* loops over the outer row axes */
    sb outer = {a, NULL, 0, 0};
    for (int ax = 0; ax < p->naxes; ax++)
        if (L->outer & (1u << ax))
            sb_printf(&outer, "for (long %s = 0; %s < %s; %s++)\n", L->aname[ax], L->aname[ax],
                      L->dname[p->axes[ax].dim], L->aname[ax]);
    fg_def_code(defs, "c_outer_loops", text_indented(a, sb_str(&outer), 4));

    /* running state: identity at the start of each row tile (or split) */
    sb init = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        const char *nm = L->tname[fz->running[i].tensor];
        sb_printf(&init, "for (long k_ = 0; k_ < %s_n_; k_++)\n    %s[k_] = %s;\n", nm, nm,
                  identity_text(fz->running[i].op));
    }
    fg_def_code(defs, "c_running_init", text_indented(a, sb_str(&init), 12));

    /* prologue */
    sb pro = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nprologue; i++)
        sb_puts(&pro, stmt_code(L, fz->prologue[i]));
    fg_def_code(defs, "c_prologue", text_indented(a, sb_str(&pro), 8));

    /* the tile body: tile statements and running steps in dependency order */
    sb tile = {a, NULL, 0, 0};
    for (int k = 0; k < p->norder; k++) {
        int ti = p->order[k];
        if (ti < 0 || ti >= p->ntensors)
            continue;
        if (fz->role[ti] == ROLE_TILE)
            sb_puts(&tile, stmt_code(L, ti));
        else if (fz->role[ti] == ROLE_RUNNING && L->run_index[ti] >= 0)
            sb_puts(&tile, running_code(L, L->run_index[ti], saved));
    }
    fg_def_code(defs, "c_tile_body", text_indented(a, sb_str(&tile), 16));

    /* split: save the partials, then combine */
    sb save = {a, NULL, 0, 0}, comb = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        const char *nm = L->tname[fz->running[i].tensor];
        sb_printf(&save, "memcpy(%s_part_ + s_ * %s_n_, %s, sizeof(float) * (size_t)%s_n_);\n", nm,
                  nm, nm, nm);
        sb_puts(&comb, combine_code(L, i));
    }
    fg_def_code(defs, "c_save_partials", text_indented(a, sb_str(&save), 12));
    fg_def_code(defs, "c_combine", text_indented(a, sb_str(&comb), 8));
}

static void c_epilogue_defs(lc *L, fg_defs *defs)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    /* epilogue: running outputs, row statements, then a pass over the fused
     * axis for epilogue statements that carry it */
    sb epi = {a, NULL, 0, 0};
    for (int i = 0; i < fz->nrunning; i++) {
        int ti = fz->running[i].tensor;
        const fg_ir_tensor *t = &p->tensors[ti];
        if (!t->is_output)
            continue;
        pctx c = {L, SITE_VALUE, 0, false};
        uint32_t used = 0;
        char *body = arena_printf(a, "/* %s: the final value (a max/min stays +-inf here) */\n"
                                     "st_(&args->%s, %s, %s[%s]);\n",
                                  t->name, L->tname[ti], output_offset(L, t, &used), L->tname[ti],
                                  buf_index(&c, t));
        char *code = loop_nest(L, t, L->fused, used | c.used, body);
        if (plan_output_optional(p, ti))
            sb_printf(&epi, "if (args->%s.data) { /* NULL data: not stored */\n%s}\n",
                      L->tname[ti], text_indented(a, code, 4));
        else
            sb_puts(&epi, code);
    }
    bool pass2 = false;
    for (int i = 0; i < fz->nepilogue; i++) {
        const fg_ir_tensor *t = &p->tensors[fz->epilogue[i]];
        if (has_axis(t, L->fused))
            pass2 = true;
        else
            sb_puts(&epi, stmt_code(L, fz->epilogue[i]));
    }
    fg_def_code(defs, "c_epilogue", text_indented(a, sb_str(&epi), 8));
    fg_def_bool(defs, "c_epilogue_pass", pass2);
    sb ep2 = {a, NULL, 0, 0};
    if (pass2) {
        /* tile statements the epilogue reads, recomputed with final values */
        bool *need = ARENA_ARRAY(a, bool, p->ntensors + 1);
        for (int i = 0; i < fz->nepilogue; i++) {
            const fg_ir_tensor *t = &p->tensors[fz->epilogue[i]];
            if (has_axis(t, L->fused))
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
                sb_puts(&ep2, stmt_code(L, ti));
            }
        }
    }
    fg_def_code(defs, "c_epilogue_tile", text_indented(a, sb_str(&ep2), 12));
}

int lower_c(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
            fg_diag *d)
{
    lc L;
    if (lc_init(&L, a, k, d) < 0)
        return -1;
    const fg_plan *p = k->plan;
    *template_rel = "c/fused.m4";
    if (c_rows_defs(&L, defs) < 0)
        return -1;
    c_mask_defs(&L, defs);
    const char *pvfree = c_param_vector_defs(&L, defs);
    /* running values a correction reads keep their previous value */
    bool *saved = ARENA_ARRAY(a, bool, p->ntensors + 1);
    for (int i = 0; i < k->nvalues; i++)
        for (int t = 0; t < p->ntensors && t < 64; t++)
            if (k->values[i].corr->kind != CORR_NONE && (k->values[i].corr->producers & (1ull << t)))
                saved[t] = true;
    c_buffer_defs(&L, defs, pvfree, saved);
    c_loop_defs(&L, defs, saved);
    c_epilogue_defs(&L, defs);
    /* split count: the plan's, else from the key tiles */
    int def_splits = k->sched.form == FORM_SPLIT ? k->sched.splits : 1;
    fg_def_str(defs, "c_default_splits",
               def_splits > 0 ? arena_printf(a, "%d", def_splits)
                              : "ntiles_ / 4 < 1 ? 1 : ntiles_ / 4 > 64 ? 64 : ntiles_ / 4");
    return L.errors ? -1 : 0;
}
