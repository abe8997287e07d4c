/* interp.c - the naive reference: a checked plan evaluated literally in
 * double precision.
 *
 * Every statement is materialised over the full extents of its axes (dense,
 * row-major in the statement's axis order), in dependency order; reductions
 * and contractions are plain loops.  Nothing is fused, tiled or reordered:
 * this is what the generated C backend and the GPU kernels are compared
 * with, so it follows docs/plan-language.md word for word, masked-row rules
 * included:
 *   - a max/min reduction whose value is +-inf reads as 0 wherever another
 *     expression consumes it (it stays +-inf when it is itself an output);
 *   - a division whose denominator reads only reductions (a sum directly,
 *     or an expression of reductions) and is exactly 0 yields 0.
 * It evaluates expressions itself rather than through expr_eval: both rules
 * and nested reductions need the expression's context, not just its leaves.
 */
#include "generator.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Materialised intermediates beyond this are refused. */
#define INTERP_MAX_BYTES ((size_t)2 << 30)

typedef struct interp {
    const fg_plan *p;
    const fg_interp_binding *b;
    fg_diag *d;
    long idx[FG_MAX_AXES]; /* current value of each bound axis */
    uint32_t bound;        /* bit per axis: idx holds a value */
    double *scalar;        /* per param: its value (params without an axis) */
    double **vec;          /* per param: values over its axis (params with one) */
    double **buf;          /* per tensor: the materialised statement */
    const fg_expr *root;   /* rhs of the statement being evaluated */
    bool failed;           /* an error was reported; results are void */
} interp;

/* Reports the first error of a run only: later ones are consequences. */
static double fail_at(interp *it, fg_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static double fail_at(interp *it, fg_loc loc, const char *fmt, ...)
{
    if (!it->failed) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        diag_error(it->d, loc, "reference interpreter: %s", msg);
    }
    it->failed = true;
    return NAN;
}

static double fail_internal(interp *it, fg_loc loc, const char *what)
{
    if (!it->failed)
        diag_internal(it->d, loc, "reference interpreter: %s", what);
    it->failed = true;
    return NAN;
}

static long axis_extent(const fg_plan *p, const long *dims, int axis)
{
    return dims[p->axes[axis].dim];
}

/* The lengths of a per-sequence dim, or NULL (plain dim, or none given). */
static const long *dim_lens(const interp *it, int dim)
{
    if (it->p->dims[dim].index_axis < 0 || !it->b->lens)
        return NULL;
    return it->b->lens[dim];
}

/* The value of dim `dim` where it is read: for N[b], the length of the
 * current b (the checker makes every reader carry b). */
static double dim_value(interp *it, const fg_expr *e, int dim)
{
    const long *lens = dim_lens(it, dim);
    if (!lens)
        return (double)it->b->dims[dim];
    int owner = it->p->dims[dim].index_axis;
    if (!(it->bound & (1u << owner)))
        return fail_internal(it, e->loc, "per-sequence dim read outside its axis");
    return (double)lens[it->idx[owner]];
}

/* The walked extent of an axis at the current indices. */
static long walk_extent(interp *it, int axis)
{
    int dim = it->p->axes[axis].dim;
    const long *lens = dim_lens(it, dim);
    if (lens && (it->bound & (1u << it->p->dims[dim].index_axis)))
        return lens[it->idx[it->p->dims[dim].index_axis]];
    return it->b->dims[dim];
}

/* Stored extent of position k of an input: its declared extent, or the
 * extent of the plain axis that indexes it. */
static long input_extent(const fg_plan *p, const fg_ir_tensor *t, int k, const long *dims)
{
    if (t->extent_dims)
        return dims[t->extent_dims[k]];
    if (t->index[k]->kind == E_AXIS)
        return axis_extent(p, dims, t->index[k]->ref);
    return -1;
}

static int tensor_rank(const fg_ir_tensor *t)
{
    return t->kind == TENSOR_INPUT ? t->nindex : t->naxes;
}

static long tensor_extent(const fg_plan *p, const fg_ir_tensor *t, int k, const long *dims)
{
    return t->kind == TENSOR_INPUT ? input_extent(p, t, k, dims)
                                   : axis_extent(p, dims, t->axes[k]);
}

size_t interp_tensor_size(const fg_plan *p, int tensor, const long *dims)
{
    if (tensor < 0 || tensor >= p->ntensors)
        return 0;
    const fg_ir_tensor *t = &p->tensors[tensor];
    size_t n = 1;
    for (int k = 0; k < tensor_rank(t); k++) {
        long e = tensor_extent(p, t, k, dims);
        if (e < 0)
            return SIZE_MAX;
        if (e != 0 && n > SIZE_MAX / (size_t)e)
            return SIZE_MAX;
        n *= (size_t)e;
    }
    return n;
}


static double eval(interp *it, const fg_expr *e);

/* Position k of a read of `name`: an int value inside [0, extent). */
static bool eval_index(interp *it, const fg_expr *e, const char *name, int k, long extent,
                       long *out)
{
    double v = eval(it, e);
    if (it->failed)
        return false;
    if (v != floor(v) || v < 0 || v >= (double)extent) {
        fail_at(it, e->loc, "index %d of '%s' is %g, outside its extent %ld", k + 1, name, v,
                extent);
        return false;
    }
    *out = (long)v;
    return true;
}

static double eval_tensor(interp *it, const fg_expr *e)
{
    const fg_plan *p = it->p;
    const long *dims = it->b->dims;
    const fg_ir_tensor *t = &p->tensors[e->ref];
    int rank = tensor_rank(t);
    if (e->nargs != rank)
        return fail_internal(it, e->loc, "tensor read with a wrong index count");
    size_t off = 0;
    for (int k = 0; k < rank; k++) {
        long ext = tensor_extent(p, t, k, dims), i;
        if (!eval_index(it, e->args[k], t->name, k, ext, &i))
            return NAN;
        off = off * (size_t)ext + (size_t)i;
    }
    if (t->kind == TENSOR_INPUT)
        return it->b->inputs[e->ref][off];
    if (!it->buf[e->ref])
        return fail_internal(it, e->loc, "statement read before it was evaluated");
    double v = it->buf[e->ref][off];
    if (rule_masked_minmax(t) && isinf(v))
        return 0.0; /* a fully masked row's max/min reads as 0 */
    return v;
}

static double eval_param(interp *it, const fg_expr *e)
{
    const fg_param *pa = &it->p->params[e->ref];
    if (pa->index_axis < 0)
        return it->scalar[e->ref];
    long i, ext = axis_extent(it->p, it->b->dims, pa->index_axis);
    if (e->nargs == 1) {
        if (!eval_index(it, e->args[0], pa->name, 0, ext, &i))
            return NAN;
    } else if (it->bound & (1u << pa->index_axis)) {
        i = it->idx[pa->index_axis];
    } else {
        return fail_internal(it, e->loc, "per-index parameter read outside its axis");
    }
    return it->vec[e->ref][i];
}

static double eval_reduce(interp *it, const fg_expr *e)
{
    int ax = e->ref;
    if (ax < 0 || ax >= it->p->naxes)
        return fail_internal(it, e->loc, "reduction over an unresolved axis");
    long ext = walk_extent(it, ax);
    long saved_idx = it->idx[ax];
    uint32_t saved_bound = it->bound;
    it->bound |= 1u << ax;
    double acc = e->op == R_SUM ? 0.0 : e->op == R_MAX ? -INFINITY : INFINITY;
    for (long i = 0; i < ext && !it->failed; i++) {
        it->idx[ax] = i;
        double v = eval(it, e->args[0]);
        if (e->op == R_SUM)
            acc += v;
        else if (isnan(v) || (e->op == R_MAX ? v > acc : v < acc))
            acc = isnan(acc) ? acc : v; /* NaN, once seen, stays */
    }
    it->idx[ax] = saved_idx;
    it->bound = saved_bound;
    if (e->op != R_SUM && isinf(acc) && e != it->root)
        return 0.0; /* a nested max/min (hand-built plans: check.c hoists them) */
    return acc;
}

static double nan_min(double x, double y)
{
    return isnan(x) || isnan(y) ? NAN : x < y ? x : y;
}

static double nan_max(double x, double y)
{
    return isnan(x) || isnan(y) ? NAN : x > y ? x : y;
}

static double eval_call(interp *it, const fg_expr *e)
{
    double x = eval(it, e->args[0]);
    double y = e->nargs > 1 ? eval(it, e->args[1]) : 0.0;
    switch (e->fn) {
    case F_EXP: return exp(x);
    case F_EXP2: return exp2(x);
    case F_LOG: return log(x);
    case F_LOG2: return log2(x);
    case F_TANH: return tanh(x);
    case F_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case F_SQRT: return sqrt(x);
    case F_RSQRT: return 1.0 / sqrt(x);
    case F_ABS: return fabs(x);
    case F_MIN: return nan_min(x, y);
    case F_MAX: return nan_max(x, y);
    case F_POW: return pow(x, y);
    case F_COUNT: break;
    }
    return fail_internal(it, e->loc, "unknown function");
}

static double eval_div(interp *it, const fg_expr *e)
{
    double x = eval(it, e->args[0]);
    double y = eval(it, e->args[1]);
    if (e->args[0]->type == T_INT && e->args[1]->type == T_INT) {
        if (y == 0)
            return fail_at(it, e->loc, "integer division by zero");
        return (double)((long long)x / (long long)y); /* truncates, as in C */
    }
    if (y == 0 && rule_masked_div(it->p, e))
        return 0.0; /* the masked-row rule (rules.c) */
    return x / y;
}

static double eval(interp *it, const fg_expr *e)
{
    if (it->failed)
        return NAN;
    switch (e->kind) {
    case E_NUM: return e->num;
    case E_INF: return INFINITY;
    case E_DIM: return dim_value(it, e, e->ref);
    case E_AXIS:
        if (!(it->bound & (1u << e->ref)))
            return fail_internal(it, e->loc, "axis read outside its loop");
        return (double)it->idx[e->ref];
    case E_PARAM: return eval_param(it, e);
    case E_TENSOR: return eval_tensor(it, e);
    case E_REDUCE: return eval_reduce(it, e);
    case E_CALL: return eval_call(it, e);
    case E_DIV: return eval_div(it, e);
    case E_WHERE:
        return eval(it, e->args[0]) != 0 ? eval(it, e->args[1]) : eval(it, e->args[2]);
    case E_AND: return eval(it, e->args[0]) != 0 && eval(it, e->args[1]) != 0;
    case E_OR: return eval(it, e->args[0]) != 0 || eval(it, e->args[1]) != 0;
    case E_NOT: return eval(it, e->args[0]) == 0;
    case E_NEG: return -eval(it, e->args[0]);
    case E_POW: return pow(eval(it, e->args[0]), e->args[1]->num);
    case E_NAME:
    case E_PREV:
    case E_ACC:
    case E_COUNT: return fail_internal(it, e->loc, "expression kind not valid in a checked plan");
    default: break;
    }
    /* The remaining kinds are binary on numbers. */
    double x = eval(it, e->args[0]), y = eval(it, e->args[1]);
    switch (e->kind) {
    case E_ADD: return x + y;
    case E_SUB: return x - y;
    case E_MUL: return x * y;
    case E_LT: return x < y;
    case E_LE: return x <= y;
    case E_GT: return x > y;
    case E_GE: return x >= y;
    case E_EQ: return x == y;
    case E_NE: return x != y;
    default: return fail_internal(it, e->loc, "expression kind not valid in a checked plan");
    }
}

/* Parameters in declaration order: a default may read earlier ones. */
static void bind_params(interp *it)
{
    const fg_plan *p = it->p;
    const fg_interp_binding *b = it->b;
    for (int i = 0; i < p->nparams && !it->failed; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis < 0) {
            double v = b->params ? b->params[i] : NAN;
            if (isnan(v)) {
                if (!pa->deflt) {
                    fail_at(it, pa->loc, "no value given for parameter '%s'", pa->name);
                    return;
                }
                it->bound = 0;
                v = eval(it, pa->deflt);
            }
            if (pa->dtype == DT_INT && v != floor(v)) {
                fail_at(it, pa->loc, "int parameter '%s' given a non-integral value %g",
                        pa->name, v);
                return;
            }
            it->scalar[i] = v;
            continue;
        }
        long ext = axis_extent(p, b->dims, pa->index_axis);
        it->vec[i] = calloc((size_t)(ext > 0 ? ext : 1), sizeof(double));
        if (!it->vec[i]) {
            fail_at(it, pa->loc, "out of memory for parameter '%s'", pa->name);
            return;
        }
        const double *given = b->param_vectors ? b->param_vectors[i] : NULL;
        if (!given && !pa->deflt) {
            fail_at(it, pa->loc, "no values given for parameter '%s'", pa->name);
            return;
        }
        for (long j = 0; j < ext; j++) {
            if (given) {
                it->vec[i][j] = given[j];
                continue;
            }
            it->bound = 1u << pa->index_axis;
            it->idx[pa->index_axis] = j;
            it->vec[i][j] = eval(it, pa->deflt);
        }
        it->bound = 0;
    }
}

/* Every point of the statement's axes, row-major; the rhs at each. */
static void eval_statement(interp *it, int ti, double *out)
{
    const fg_plan *p = it->p;
    const fg_ir_tensor *t = &p->tensors[ti];
    long ext[FG_MAX_INDICES], i[FG_MAX_INDICES];
    if (t->naxes > FG_MAX_INDICES) {
        fail_internal(it, t->loc, "statement rank beyond FG_MAX_RANK");
        return;
    }
    it->bound = 0;
    for (int k = 0; k < t->naxes; k++) {
        ext[k] = axis_extent(p, it->b->dims, t->axes[k]);
        if (ext[k] == 0)
            return;
        i[k] = 0;
        it->idx[t->axes[k]] = 0;
        it->bound |= 1u << t->axes[k];
    }
    it->root = t->rhs;
    for (size_t off = 0;; off++) {
        /* Beyond a sequence's length the element does not exist: NaN, never
         * read (reductions stop at the length, and no output carries it). */
        bool beyond = false;
        for (int k = 0; k < t->naxes; k++)
            if (i[k] >= walk_extent(it, t->axes[k]))
                beyond = true;
        out[off] = beyond ? NAN : eval(it, t->rhs);
        if (it->failed)
            return;
        int k = t->naxes - 1;
        while (k >= 0 && ++i[k] == ext[k]) {
            i[k] = 0;
            it->idx[t->axes[k]] = 0;
            k--;
        }
        if (k < 0)
            break;
        it->idx[t->axes[k]] = i[k];
    }
    it->root = NULL;
}

/* Dims, inputs and outputs present and sensible; the intermediates fit. */
static void check_binding(interp *it)
{
    const fg_plan *p = it->p;
    const fg_interp_binding *b = it->b;
    fg_loc none = {0, 0};
    if (!p->order) {
        fail_internal(it, none, "plan has not been checked");
        return;
    }
    if (!b || !b->dims) {
        fail_at(it, p->name_loc, "no dims bound for plan '%s'", p->name);
        return;
    }
    for (int i = 0; i < p->ndims; i++)
        if (b->dims[i] < 0) {
            fail_at(it, p->dims[i].loc, "dim '%s' is negative (%ld)", p->dims[i].name,
                    b->dims[i]);
            return;
        }
    for (int i = 0; i < p->ndims; i++) {
        const long *lens = dim_lens(it, i);
        long n = lens ? axis_extent(p, b->dims, p->dims[i].index_axis) : 0;
        for (long j = 0; j < n; j++)
            if (lens[j] < 0 || lens[j] > b->dims[i]) {
                fail_at(it, p->dims[i].loc,
                        "length %ld of '%s' (index %ld of '%s') is outside 0..%ld", lens[j],
                        p->dims[i].name, j, p->axes[p->dims[i].index_axis].name, b->dims[i]);
                return;
            }
    }
    size_t bytes = 0;
    for (int ti = 0; ti < p->ntensors; ti++) {
        const fg_ir_tensor *t = &p->tensors[ti];
        size_t n = interp_tensor_size(p, ti, b->dims);
        if (n == SIZE_MAX) {
            fail_at(it, t->loc, "the extents of '%s' overflow", t->name);
            return;
        }
        if (t->kind == TENSOR_INPUT) {
            if (n && (!b->inputs || !b->inputs[ti])) {
                fail_at(it, t->loc, "no data bound for input '%s'", t->name);
                return;
            }
            continue;
        }
        if (t->is_output && n && (!b->outputs || !b->outputs[ti])) {
            fail_at(it, t->loc, "no buffer bound for output '%s'", t->name);
            return;
        }
        if (n > (INTERP_MAX_BYTES - bytes) / sizeof(double)) {
            fail_at(it, p->name_loc,
                    "the intermediates of plan '%s' need more than %zu bytes at these "
                    "extents (first over at '%s')",
                    p->name, INTERP_MAX_BYTES, t->name);
            return;
        }
        bytes += n * sizeof(double);
    }
}

int interp_run(const fg_plan *p, const fg_interp_binding *b, fg_diag *d)
{
    interp it;
    memset(&it, 0, sizeof it);
    it.p = p;
    it.b = b;
    it.d = d;
    check_binding(&it);
    if (it.failed)
        return -1;
    int nt = p->ntensors > 0 ? p->ntensors : 1, np = p->nparams > 0 ? p->nparams : 1;
    it.scalar = calloc((size_t)np, sizeof(double));
    it.vec = calloc((size_t)np, sizeof(double *));
    it.buf = calloc((size_t)nt, sizeof(double *));
    if (!it.scalar || !it.vec || !it.buf)
        fail_at(&it, p->name_loc, "out of memory for plan '%s'", p->name);
    if (!it.failed)
        bind_params(&it);
    for (int k = 0; k < p->norder && !it.failed; k++) {
        int ti = p->order[k];
        size_t n = interp_tensor_size(p, ti, b->dims);
        it.buf[ti] = malloc((n ? n : 1) * sizeof(double));
        if (!it.buf[ti]) {
            fail_at(&it, p->tensors[ti].loc, "out of memory for tensor '%s'",
                    p->tensors[ti].name);
            break;
        }
        eval_statement(&it, ti, it.buf[ti]);
    }
    for (int ti = 0; ti < p->ntensors && !it.failed; ti++) {
        const fg_ir_tensor *t = &p->tensors[ti];
        size_t n = interp_tensor_size(p, ti, b->dims);
        if (t->kind != TENSOR_STMT || !t->is_output || n == 0)
            continue;
        if (!it.buf[ti]) {
            fail_internal(&it, t->loc, "output not in the statement order");
            break;
        }
        memcpy(b->outputs[ti], it.buf[ti], n * sizeof(double));
    }
    if (it.buf)
        for (int ti = 0; ti < p->ntensors; ti++)
            free(it.buf[ti]);
    if (it.vec)
        for (int i = 0; i < p->nparams; i++)
            free(it.vec[i]);
    free(it.buf);
    free(it.vec);
    free(it.scalar);
    return it.failed ? -1 : 0;
}
