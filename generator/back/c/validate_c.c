/* validate_c.c - the argument checks of a generated CPU entry point: every
 * tensor's dtype, rank, alignment and shape against the plan's dims (dims
 * taken from the first position that has them), params (finite, positive
 * where they divide), per-sequence lengths, the index ranges of gathered
 * reads (proved at generation where an index is clamped into its extent,
 * computed by interval arithmetic at run time otherwise), and int divisors.
 * Everything is checked before any work, so a refused call writes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include "lower_c_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Int divisors in e: each must be positive before e is evaluated. */
static void divisor_checks(lc *L, sb *b, const fg_expr *e, const char *ind)
{
    if (e->kind == E_DIV && e->args[0]->type == T_INT && e->args[1]->type == T_INT) {
        uint32_t used = 0;
        char *t = lc_cexpr(L, SITE_SCALAR, e->args[1], &used);
        if (!used) {
            char *pt = lc_plan_text(L, e->args[1]);
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
        if (L->device_data) {
            /* not readable on the host without a copy and a wait, which a
             * stream or graph capture cannot have: the kernels clamp */
            sb_printf(&b,
                      "/* %s_len: device memory, not read here: the kernels clamp each length "
                      "to 0..%s */\n",
                      dm->name, dm->name);
            continue;
        }
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
            sb_printf(&b, "    %s = %s;\n}\n", nm, lc_cexpr(L, SITE_SCALAR, pa->deflt, NULL));
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
                char *dv = lc_cexpr(L, SITE_SCALAR, ix->args[1], NULL);
                sb_printf(&b,
                          "if (%s %% (%s) != 0)\n    return fg_set_error(FG_ERR_SHAPE, \"%s: %s "
                          "(%%ld) is not divisible by %s (%%ld), as %s[%s] needs\", %s, "
                          "(long)(%s));\n",
                          ext, dv, E, p->dims[p->axes[ax].dim].name,
                          c_string(a, lc_plan_text(L, ix->args[1])), t->name,
                          c_string(a, lc_plan_text(L, ix)), ext, dv);
                /* the quotient must cover the position's whole extent (as
                 * the CUDA entry requires Hq = G * Hkv): else a kv head is
                 * silently never read */
                if (dm != p->axes[ax].dim)
                    sb_printf(&b,
                              "if (%s / (%s) != %s)\n    return fg_set_error(FG_ERR_SHAPE, "
                              "\"%s: %s = %%ld, %s = %%ld and %s = %%ld: %s[%s] needs %s = %s * "
                              "%s\", %s, %s, (long)(%s));\n",
                              ext, dv, L->dname[dm], E, p->dims[p->axes[ax].dim].name,
                              p->dims[dm].name, c_string(a, lc_plan_text(L, ix->args[1])), t->name,
                              c_string(a, lc_plan_text(L, ix)), p->dims[p->axes[ax].dim].name,
                              c_string(a, lc_plan_text(L, ix->args[1])), p->dims[dm].name, ext,
                              L->dname[dm], dv);
            }
            uint32_t used = 0;
            char *ie = lc_cexpr(L, SITE_SCALAR, ix, &used);
            sb_printf(&b,
                      "for (long e_ = 0; e_ < 2 && %s > 0; e_++) {\n"
                      "    const long %s = e_ ? %s - 1 : 0;\n"
                      "    const long x_ = %s;\n"
                      "    if (x_ < 0 || x_ >= %s)\n"
                      "        return fg_set_error(FG_ERR_SHAPE, \"%s: index %s of %s is %%ld at "
                      "%s = %%ld, outside [0, %%ld)\", x_, %s, %s);\n"
                      "}\n",
                      ext, an, ext, ie, L->dname[dm], E, c_string(a, lc_plan_text(L, ix)), t->name,
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
        char *text = lc_plan_text(L, ix);
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
char *lc_validation_code(lc *L)
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

