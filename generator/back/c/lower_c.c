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
#include "lower_c_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */


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


typedef struct pctx {
    lc *L;
    site site;
    uint32_t used; /* axes read */
    bool mask_full; /* masking wheres read full_ */
    bool walk;      /* a running body: row statements as they stand in the walk */
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
        } else if (c->walk && L->fz->role[e->ref] == ROLE_EPILOGUE && t->rhs &&
                   !has_axis(t, L->fused)) {
            /* a row statement over running values (Var = Var_sum / C) read
             * by a running body: its value as the running values stand,
             * not the row's final one, which the epilogue computes after
             * the walk */
            sb_puts(b, "(");
            code_expr(pr, b, t->rhs, 0);
            sb_puts(b, ")");
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

char *lc_cexpr(lc *L, site s, const fg_expr *e, uint32_t *used)
{
    pctx c = {L, s, 0, L->mask_ok, false};
    sb b = {L->a, NULL, 0, 0};
    pe(&c, &b, e, 0);
    if (used)
        *used |= c.used;
    return sb_str(&b);
}

/* Plan syntax for comments. */
char *lc_plan_text(lc *L, const fg_expr *e)
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
    L->mask_skip = k->mask_skip;
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
    pctx c = {L, SITE_VALUE, 0, L->mask_ok, false};
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
                  r->corr.kind == CORR_SCALE ? "*" : "+", lc_plan_text(L, r->corr.factor));
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
    pctx c = {L, SITE_VALUE, 0, L->mask_ok, false};
    char *idx = buf_index(&c, t);
    sb body = {L->a, NULL, 0, 0};
    sb_printf(&body, "/* %s */\n", correction_comment(L, r));
    if (saved[r->tensor])
        sb_printf(&body, "%s_prev_[%s] = %s[%s];\n", nm, idx, nm, idx);
    if (r->corr.kind != CORR_NONE && r->corr.factor) {
        pctx cc = {L, SITE_CORR, 0, false, false};
        sb f = {L->a, NULL, 0, 0};
        pe(&cc, &f, r->corr.factor, 0);
        c.used |= cc.used;
        sb_printf(&body, "if (seen_)\n    %s[%s] %s= %s;\n", nm, idx,
                  r->corr.kind == CORR_SCALE ? "*" : "+", sb_str(&f));
    }
    sb v = {L->a, NULL, 0, 0};
    pctx tc = {L, SITE_VALUE, 0, L->mask_ok, true};
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
    pctx c = {L, SITE_COMBINE, 0, false, false};
    char *idx = buf_index(&c, t);
    sb body = {L->a, NULL, 0, 0};
    sb_printf(&body, "/* %s */\n", correction_comment(L, r));
    sb_printf(&body, "float acc_ = %s;\n", identity_text(r->op));
    sb_printf(&body, "for (long s_ = 0; s_ < splits_; s_++) {\n");
    sb_printf(&body, "    if (!seen_part_[s_])\n        continue; /* a run that added nothing */\n");
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

static char *mask_print(void *ctx, const fg_expr *e)
{
    lc *L = ctx;
    return lc_cexpr(L, SITE_STRUCT, e, NULL);
}

static int c_rows_defs(lc *L, fg_defs *defs)
{
    fg_arena *a = L->a;
    const fg_plan *p = L->p;
    const fg_fused *fz = L->fz;
    (void)fz;
    const char *NN = L->dval[p->axes[L->fused].dim];
    const char *MM = L->rowtile >= 0 ? L->dname[p->axes[L->rowtile].dim] : "1";
    fg_def_code(defs, "c_validate", text_indented(a, lc_validation_code(L), 4));
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
    /* Tile outputs must be written on every tile: no skipping then; nor
     * where a running value sees the keys the mask hides (an unmasked sum
     * beside a masked max). */
    bool tile_outputs = false;
    for (int i = 0; i < fz->ntile; i++)
        if (p->tensors[fz->tile[i]].is_output)
            tile_outputs = true;
    fg_def_bool(defs, "c_skip", L->mask_skip && !tile_outputs);
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
            char *de = lc_cexpr(L, SITE_SCALAR, pa->deflt, &used);
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
    /* per split: whether its run added anything (the combine skips it if not) */
    sb_puts(&bufs, "unsigned char *seen_part_ = malloc((size_t)splits_);\n");
    sb_puts(&nulls, " || !seen_part_");
    sb_puts(&frees, "free(seen_part_);\n");
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
    fg_def_code(defs, "c_save_partials", text_indented(a, sb_str(&save), 16));
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
        pctx c = {L, SITE_VALUE, 0, false, false};
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

/* The CPU entry's checks, for the GPU entry points (CUDA, HIP): plain C
 * that binds every dim and scalar param to a local of its C name; the data
 * is device memory, so per-sequence lengths are not read. */
char *lower_c_validation(fg_arena *a, const fg_kernel *k, const char *entry, fg_diag *d,
                         const char *const **tnames, const char *const **dnames,
                         const char *const **pnames)
{
    lc L;
    if (lc_init(&L, a, k, d) < 0)
        return NULL;
    L.entry = entry;
    L.device_data = true;
    char *code = lc_validation_code(&L);
    *tnames = L.tname;
    *dnames = L.dname;
    *pnames = L.pname;
    return L.errors ? NULL : code;
}
