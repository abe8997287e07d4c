/* rules.c - the masked-row rules of docs/plan-language.md, in one place.
 *
 * A row whose every key is masked (where(cond, x, -inf) false everywhere)
 * has an empty sum and a max of -inf.  The plan language defines what such
 * a row reads as, and every evaluator of a plan (the interpreter, the C
 * backend, the GPU kernels through the kernel model) asks these functions,
 * so they cannot disagree:
 *   - a float division whose denominator reads only reductions (and dims,
 *     params, axes, numbers) is 0 when the denominator is 0;
 *   - a max or min reduction that saw only -inf (+inf) reads as 0 where an
 *     elementwise statement uses it.
 * And what the fused walk cannot do with such a max: rescale a sum by a
 * ratio of it (rule_masked_ratio, which the algebra refuses).
 */
#include "generator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* True when e reads no input and no elementwise statement except ones made
 * of reductions, and reads at least one reduction (*found). */
static bool reads_only_reductions(const fg_plan *p, const fg_expr *e, bool *found, int depth)
{
    if (depth > FG_MAX_EXPR_DEPTH + p->ntensors)
        return false;
    switch (e->kind) {
    case E_REDUCE:
    case E_PREV:
        *found = true;
        return true;
    case E_TENSOR: {
        const fg_ir_tensor *t = &p->tensors[e->ref];
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

bool rule_masked_div(const fg_plan *p, const fg_expr *div)
{
    if (div->kind != E_DIV || div->nargs != 2)
        return false;
    if (div->args[0]->type == T_INT && div->args[1]->type == T_INT)
        return false; /* integer division: a zero divisor is an error */
    bool found = false;
    return reads_only_reductions(p, div->args[1], &found, 0) && found;
}

bool rule_masked_minmax(const fg_ir_tensor *t)
{
    return t->kind == TENSOR_STMT && t->rhs && t->rhs->kind == E_REDUCE && t->rhs->op != R_SUM;
}

/* Whether e holds an infinity a where puts in place of a masked element
 * (where(cond, x, -inf)), following the statements it reads.  seen[t] is
 * 1 + the least depth statement t was followed from (0: never): a
 * statement read twice (T1 = T0 + T0, T2 = T1 + T1, ...) is walked again
 * only from a shallower read, where the depth limit cuts less of it, not
 * once per path to it, which doubles at every step. */
static bool masked_to_inf(const fg_plan *p, const fg_expr *e, int *seen, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH + 64)
        return false;
    if (e->kind == E_WHERE && e->nargs == 3)
        for (int i = 1; i < 3; i++) {
            const fg_expr *b = e->args[i];
            while (b->kind == E_NEG && b->nargs == 1)
                b = b->args[0];
            if (b->kind == E_INF || (b->kind == E_NUM && isinf(b->num)))
                return true;
        }
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < p->ntensors &&
        (!seen[e->ref] || depth + 1 < seen[e->ref])) {
        const fg_ir_tensor *t = &p->tensors[e->ref];
        seen[e->ref] = depth + 1;
        if (t->kind == TENSOR_STMT && t->rhs && t->cls != CLASS_REDUCTION &&
            masked_to_inf(p, t->rhs, seen, depth + 1))
            return true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (masked_to_inf(p, e->args[i], seen, depth + 1))
            return true;
    return false;
}

/* Whether e reads tensor t (or its previous value) other than inside an
 * exponential. */
static bool reads_outside_exp(const fg_expr *e, int t, int depth)
{
    if (!e || depth > FG_MAX_EXPR_DEPTH)
        return false;
    if (e->kind == E_CALL && (e->fn == F_EXP || e->fn == F_EXP2))
        return false;
    if ((e->kind == E_TENSOR || e->kind == E_PREV) && e->ref == t)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_outside_exp(e->args[i], t, depth + 1))
            return true;
    return false;
}

/* A scale factor that reads a masked running max or min other than inside
 * an exponential (a ratio P_prev / P): while the mask has hidden every key
 * so far, the max holds -inf, the terms added meanwhile are divided by it
 * (lost), and the ratio that should rescale them is not a number.  exp of
 * the difference takes -inf (it is 0).  The masked producer, or -1. */
int rule_masked_ratio(const fg_plan *p, uint64_t prod, const fg_expr *factor)
{
    for (int k = 0; k < 64 && k < p->ntensors; k++) {
        if (!(prod >> k & 1u))
            continue;
        const fg_ir_tensor *t = &p->tensors[k];
        if (t->kind != TENSOR_STMT || t->cls != CLASS_REDUCTION ||
            (t->op != R_MAX && t->op != R_MIN))
            continue;
        int *seen = calloc((size_t)p->ntensors + 1, sizeof(int));
        if (!seen) {
            fputs("fusegen: out of memory\n", stderr);
            abort();
        }
        bool inf = masked_to_inf(p, t->body, seen, 0);
        free(seen);
        if (inf && reads_outside_exp(factor, k, 0))
            return k;
    }
    return -1;
}
