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
 */
#include "generator.h"

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
