/* check.c - resolve, type, hoist, classify and order a parsed plan.
 *
 * check_plan() turns parse.c's syntax tree into the IR every later phase
 * reads, in place: names become references (E_DIM, E_AXIS, E_PARAM,
 * E_TENSOR), every expression node gets a type and an axis mask, reductions
 * nested in larger expressions become statements of their own, statements
 * are classified and put in dependency order, and the schedule is validated.
 *
 * It reports every error it can without cascading: a declaration that failed
 * is marked, reads of it stay untyped (T_NONE), and checks above an untyped
 * node stay silent.
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>


static const char *type_phrase(fg_type t)
{
    switch (t) {
    case T_BOOL:
        return "a boolean";
    case T_INT:
        return "an int";
    case T_FLOAT:
        return "a float";
    default:
        return "nothing";
    }
}

static const char *op_symbol(fg_expr_kind k)
{
    switch (k) {
    case E_NEG:
    case E_SUB:
        return "-";
    case E_NOT:
        return "!";
    case E_ADD:
        return "+";
    case E_MUL:
        return "*";
    case E_DIV:
        return "/";
    case E_POW:
        return "^";
    case E_LT:
        return "<";
    case E_LE:
        return "<=";
    case E_GT:
        return ">";
    case E_GE:
        return ">=";
    case E_EQ:
        return "==";
    case E_NE:
        return "!=";
    case E_AND:
        return "&&";
    case E_OR:
        return "||";
    default:
        return fg_expr_kind_names[k];
    }
}

static int loc_cmp(fg_loc x, fg_loc y);

bool check_loc_before(fg_loc x, fg_loc y)
{
    return loc_cmp(x, y) < 0;
}

/* Where an expression starts in the source: its leftmost located node. */
static fg_loc start_loc(const fg_expr *e)
{
    fg_loc best = e->loc;
    for (int i = 0; i < e->nargs; i++) {
        fg_loc l = start_loc(e->args[i]);
        if (l.line > 0 && (best.line == 0 || check_loc_before(l, best)))
            best = l;
    }
    return best;
}

/* A number (int or float) is wanted; reports a boolean.  Returns false when
 * x is not a number (an earlier error included). */
static bool want_number(checker *ck, const fg_expr *x, const char *role)
{
    if (x->type == T_INT || x->type == T_FLOAT)
        return true;
    if (x->type == T_BOOL)
        diag_error(ck->d, start_loc(x), "expected a number as %s, but found a boolean", role);
    return false;
}

static bool want_bool(checker *ck, const fg_expr *x, const char *role)
{
    if (x->type == T_BOOL)
        return true;
    if (x->type != T_NONE)
        diag_error(ck->d, start_loc(x), "expected a boolean as %s, but found %s", role,
                   type_phrase(x->type));
    return false;
}

static const char *context_phrase(checker *ck)
{
    if (ck->ctx == CTX_DEFAULT)
        return arena_printf(ck->a, "the default of '%s'", ck->p->params[ck->owner].name);
    return arena_printf(ck->a, "an index of '%s'", ck->p->tensors[ck->owner].name);
}

/* ------------------------------------------------------------------ */
/* Names defined twice                                                 */
/* ------------------------------------------------------------------ */

typedef struct definition {
    const char *name;
    fg_loc loc;
    const struct definition *first; /* set on a duplicate: the definition it repeats */
} definition;

static int loc_cmp(fg_loc x, fg_loc y)
{
    if (x.line != y.line)
        return x.line < y.line ? -1 : 1;
    if (x.col != y.col)
        return x.col < y.col ? -1 : 1;
    return 0;
}

static int by_name_then_loc(const void *x, const void *y)
{
    const definition *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : loc_cmp(a->loc, b->loc);
}

static int by_loc(const void *x, const void *y)
{
    return loc_cmp((*(const definition *const *)x)->loc, (*(const definition *const *)y)->loc);
}

/* Every repeated name, reported in source order at the repeat, with a note
 * at the first definition. */
static void check_duplicates(checker *ck)
{
    fg_plan *p = ck->p;
    int n = p->ndims + p->naxes + p->nparams + p->ntensors, k = 0, ndup = 0;
    if (n == 0)
        return;
    definition *defs = ARENA_ARRAY(ck->a, definition, n);
    for (int i = 0; i < p->ndims; i++)
        defs[k++] = (definition){p->dims[i].name, p->dims[i].loc, NULL};
    for (int i = 0; i < p->naxes; i++)
        defs[k++] = (definition){p->axes[i].name, p->axes[i].loc, NULL};
    for (int i = 0; i < p->nparams; i++)
        defs[k++] = (definition){p->params[i].name, p->params[i].loc, NULL};
    for (int i = 0; i < p->ntensors; i++)
        defs[k++] = (definition){p->tensors[i].name, p->tensors[i].loc, NULL};
    qsort(defs, (size_t)n, sizeof *defs, by_name_then_loc);
    const definition **dups = ARENA_ARRAY(ck->a, const definition *, n);
    for (int i = 1, first = 0; i < n; i++) {
        if (strcmp(defs[i].name, defs[first].name) != 0) {
            first = i;
            continue;
        }
        defs[i].first = &defs[first];
        dups[ndup++] = &defs[i];
    }
    qsort(dups, (size_t)ndup, sizeof *dups, by_loc);
    for (int i = 0; i < ndup; i++) {
        diag_error(ck->d, dups[i]->loc, "duplicate definition of '%s'", dups[i]->name);
        diag_note(ck->d, dups[i]->first->loc, "previous definition is here");
    }
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static fg_expr *check_expr(checker *ck, fg_expr *e, bool root);

uint32_t check_axis_bit(int axis)
{
    return (uint32_t)1 << axis;
}

static fg_expr *axis_ref(checker *ck, int axis, fg_loc loc)
{
    fg_expr *x = expr_ref(ck->a, E_AXIS, axis, ck->p->axes[axis].name);
    x->loc = loc;
    x->type = T_INT;
    x->axes = check_axis_bit(axis);
    return x;
}

static void set_locs(fg_expr *e, fg_loc loc)
{
    e->loc = loc;
    for (int i = 0; i < e->nargs; i++)
        set_locs(e->args[i], loc);
}

/* The one axis an index expression uses, or -1 if none (or several). */
static int single_axis(uint32_t mask)
{
    if (mask == 0 || (mask & (mask - 1)) != 0)
        return -1;
    int i = 0;
    while (!(mask & 1u)) {
        mask >>= 1;
        i++;
    }
    return i;
}

/* The axis declared at position i of tensor t, or -1 if it has none. */
static int declared_axis(const fg_ir_tensor *t, int i)
{
    if (t->kind == TENSOR_STMT)
        return t->axes[i];
    return single_axis(t->index[i]->axes);
}

static int declared_rank(const fg_ir_tensor *t)
{
    return t->kind == TENSOR_STMT ? t->naxes : t->nindex;
}

static const char *plural_indices(int n)
{
    return n == 1 ? "index" : "indices";
}

/* Checks a written index list against a declaration: the same axes in the
 * same positions (a tensor is never transposed or shifted on read).  The
 * declared index of position i is decl[i], or the axis decl_axes[i] when
 * decl is NULL (statements and params). */
static bool check_written_indices(checker *ck, fg_expr *e, const char *what, int rank,
                                  const int *decl_axes, fg_expr *const *decl)
{
    if (e->nargs != rank) {
        diag_error(ck->d, e->loc, "'%s' has %d %s, but %d %s given", what, rank,
                   plural_indices(rank), e->nargs, e->nargs == 1 ? "was" : "were");
        return false;
    }
    bool ok = true;
    for (int i = 0; i < e->nargs; i++) {
        fg_expr *w = e->args[i] = check_expr(ck, e->args[i], false);
        if (w->type == T_NONE) {
            ok = false;
            continue;
        }
        int want = decl_axes[i];
        if (w->kind == E_AXIS && want >= 0 && w->ref == want)
            continue;
        if (decl && decl[i] && expr_equal(w, decl[i]))
            continue;
        ok = false;
        const char *written = w->kind == E_AXIS ? arena_printf(ck->a, "axis '%s'", w->name)
                                                : arena_printf(ck->a, "index '%s'",
                                                               expr_to_string(ck->a, ck->p, w));
        const char *declared = decl && decl[i] ? expr_to_string(ck->a, ck->p, decl[i])
                                               : ck->p->axes[want].name;
        diag_error(ck->d, start_loc(w), "%s used where '%s' was defined with '%s' (position %d)",
                   written, what, declared, i + 1);
    }
    return ok;
}

static fg_expr *untyped(fg_expr *e)
{
    e->type = T_NONE;
    e->axes = 0;
    return e;
}

/* An input read with an index list: any int expression per stored
 * position, of any axes, dims and int params (a vector read at m here and
 * at n there, a table read at clamp(n - m + c, 0, R - 1)).  The generated
 * code checks every read's range before it runs (lower_c.c). */
static fg_expr *check_input_gather(checker *ck, fg_expr *e, int ti, int rank)
{
    fg_ir_tensor *t = &ck->p->tensors[ti];
    if (e->nargs != rank) {
        diag_error(ck->d, e->loc, "'%s' has %d %s, but %d %s given", e->name, rank,
                   plural_indices(rank), e->nargs, e->nargs == 1 ? "was" : "were");
        return untyped(e);
    }
    bool ok = true;
    e->axes = 0;
    for (int i = 0; i < rank; i++) {
        fg_expr *w = e->args[i] = check_expr(ck, e->args[i], false);
        if (w->type == T_NONE) {
            ok = false;
            continue;
        }
        if (w->type != T_INT) {
            diag_error(ck->d, start_loc(w), "expected an int as index %d of '%s', but found %s",
                       i + 1, t->name, type_phrase(w->type));
            ok = false;
        }
        e->axes |= w->axes;
    }
    if (!ok)
        return untyped(e);
    e->kind = E_TENSOR;
    e->ref = ti;
    e->type = t->dtype == DT_INT ? T_INT : T_FLOAT;
    return e;
}

static fg_expr *check_tensor_read(checker *ck, fg_expr *e, int ti)
{
    fg_plan *p = ck->p;
    fg_ir_tensor *t = &p->tensors[ti];
    if (ck->ctx != CTX_STMT) {
        diag_error(ck->d, e->loc, "%s cannot read tensor '%s'", context_phrase(ck), e->name);
        return untyped(e);
    }
    if (ck->decl_bad[ti])
        return untyped(e); /* its declaration was reported already */
    int rank = declared_rank(t);
    int *decl_axes = ARENA_ARRAY(ck->a, int, rank > 0 ? rank : 1);
    for (int i = 0; i < rank; i++)
        decl_axes[i] = declared_axis(t, i);
    if (e->bracketed && t->kind == TENSOR_INPUT)
        return check_input_gather(ck, e, ti, rank);
    if (e->bracketed && !check_written_indices(ck, e, e->name, rank, decl_axes, NULL))
        return untyped(e);
    /* The read's indices are the declaration's, located at the read. */
    e->kind = E_TENSOR;
    e->ref = ti;
    e->nargs = rank;
    e->args = ARENA_ARRAY(ck->a, fg_expr *, rank > 0 ? rank : 1);
    e->axes = 0;
    for (int i = 0; i < rank; i++) {
        if (t->kind == TENSOR_STMT) {
            e->args[i] = axis_ref(ck, t->axes[i], e->loc);
        } else {
            e->args[i] = expr_clone(ck->a, t->index[i]);
            set_locs(e->args[i], e->loc);
        }
        e->axes |= e->args[i]->axes;
    }
    e->type = t->kind == TENSOR_INPUT && t->dtype == DT_INT ? T_INT : T_FLOAT;
    return e;
}

static fg_expr *check_param_read(checker *ck, fg_expr *e, int pi)
{
    fg_param *pa = &ck->p->params[pi];
    if (ck->ctx == CTX_DEFAULT &&
        (pi >= ck->owner || pa->dtype != DT_INT || pa->index_axis >= 0)) {
        diag_error(ck->d, e->loc,
                   "%s cannot use '%s': a default may use dims, numbers and int params "
                   "declared before it",
                   context_phrase(ck), e->name);
        return untyped(e);
    }
    int rank = pa->index_name ? 1 : 0;
    if (pa->index_name && pa->index_axis < 0)
        return untyped(e); /* its axis was reported already */
    if (e->bracketed && !check_written_indices(ck, e, e->name, rank, &pa->index_axis, NULL))
        return untyped(e);
    e->kind = E_PARAM;
    e->ref = pi;
    e->nargs = rank;
    e->axes = 0;
    if (rank) {
        e->args = ARENA_ARRAY(ck->a, fg_expr *, 1);
        e->args[0] = axis_ref(ck, pa->index_axis, e->loc);
        e->axes = e->args[0]->axes;
    }
    e->type = pa->dtype == DT_INT ? T_INT : T_FLOAT;
    return e;
}

static fg_expr *check_name(checker *ck, fg_expr *e)
{
    int idx;
    name_kind k = check_lookup(ck, e->name, &idx);
    switch (k) {
    case NAME_NONE:
    case NAME_HOISTED: /* lookup never answers it */
        check_report_unknown(ck, e->name, e->loc, WANT_ANY);
        return untyped(e);
    case NAME_DIM:
    case NAME_AXIS:
        if (e->bracketed) {
            diag_error(ck->d, e->loc, "'%s' is %s and takes no indices", e->name,
                       check_kind_phrase(ck->p, k, idx));
            return untyped(e);
        }
        if (k == NAME_AXIS && ck->ctx == CTX_DEFAULT &&
            ck->p->params[ck->owner].index_axis != idx) {
            diag_error(ck->d, e->loc, "%s cannot depend on axis '%s'", context_phrase(ck),
                       e->name);
            return untyped(e);
        }
        if (k == NAME_DIM && ck->p->dims[idx].index_name && ck->ctx != CTX_STMT) {
            diag_error(ck->d, e->loc,
                       "%s cannot use '%s': its extent varies with '%s' (dim %s[%s])",
                       context_phrase(ck), e->name, ck->p->dims[idx].index_name, e->name,
                       ck->p->dims[idx].index_name);
            return untyped(e);
        }
        e->kind = k == NAME_DIM ? E_DIM : E_AXIS;
        e->ref = idx;
        e->type = T_INT;
        e->axes = k == NAME_AXIS ? check_axis_bit(idx) : 0;
        /* A per-sequence dim N[b] reads as the extent of the current b. */
        if (k == NAME_DIM && ck->p->dims[idx].index_axis >= 0)
            e->axes = check_axis_bit(ck->p->dims[idx].index_axis);
        return e;
    case NAME_PARAM:
        return check_param_read(ck, e, idx);
    case NAME_TENSOR:
        return check_tensor_read(ck, e, idx);
    }
    return untyped(e);
}

/* Makes a statement of a reduction nested in a larger expression and
 * returns the read that replaces it. */
static fg_expr *hoist(checker *ck, fg_expr *r)
{
    fg_plan *p = ck->p;
    const fg_ir_tensor *from = check_tensor_at(ck, ck->owner);
    const char *base = arena_printf(ck->a, "%s_%s", from->name, fg_reduce_names[r->op]);
    const char *name = base;
    for (int n = 2; check_name_taken(ck, name); n++)
        name = arena_printf(ck->a, "%s_%d", base, n);

    fg_ir_tensor *t = ARENA_NEW(ck->a, fg_ir_tensor);
    t->name = name;
    t->loc = r->loc;
    t->kind = TENSOR_STMT;
    t->dtype = DT_F32;
    for (int i = 0; i < p->naxes; i++)
        if (r->axes & check_axis_bit(i))
            t->naxes++;
    t->axis_names = ARENA_ARRAY(ck->a, const char *, t->naxes + 1);
    t->axis_locs = ARENA_ARRAY(ck->a, fg_loc, t->naxes + 1);
    t->axes = ARENA_ARRAY(ck->a, int, t->naxes + 1);
    for (int i = 0, k = 0; i < p->naxes; i++)
        if (r->axes & check_axis_bit(i)) {
            t->axis_names[k] = p->axes[i].name;
            t->axis_locs[k] = r->loc;
            t->axes[k++] = i;
        }
    t->rhs = r;
    t->hoisted = true;
    t->hoisted_from = ck->owner;
    t->red_axis = -1;
    int ti = p->ntensors + ck->hoisted.len;
    vec_push(ck->a, &ck->hoisted, t);
    check_table_add(ck->a, &ck->names, name, NAME_HOISTED, ti);

    return check_stmt_read(ck, ti, t, r->axes, r->loc);
}

fg_expr *check_stmt_read(checker *ck, int ti, const fg_ir_tensor *t, uint32_t axes, fg_loc loc)
{
    fg_expr *read = expr_ref(ck->a, E_TENSOR, ti, t->name);
    read->loc = loc;
    read->nargs = t->naxes;
    read->args = ARENA_ARRAY(ck->a, fg_expr *, t->naxes + 1);
    for (int k = 0; k < t->naxes; k++)
        read->args[k] = axis_ref(ck, t->axes[k], loc);
    read->type = T_FLOAT;
    read->axes = axes;
    return read;
}

static fg_expr *check_reduce(checker *ck, fg_expr *e, bool root)
{
    const char *op = fg_reduce_names[e->op];
    if (ck->ctx != CTX_STMT) {
        diag_error(ck->d, e->loc, "a reduction cannot appear in %s", context_phrase(ck));
        return untyped(e);
    }
    int axis;
    name_kind k = check_lookup(ck, e->reduce_axis_name, &axis);
    bool ok = true;
    if (k == NAME_NONE) {
        check_report_unknown(ck, e->reduce_axis_name, e->reduce_axis_loc, WANT_AXIS);
        ok = false;
    } else if (k != NAME_AXIS) {
        diag_error(ck->d, e->reduce_axis_loc, "'%s' reduces over '%s', which is %s, not an axis",
                   op, e->reduce_axis_name, check_kind_phrase(ck->p, k, axis));
        ok = false;
    }
    e->args[0] = check_expr(ck, e->args[0], false);
    const char *role = arena_printf(ck->a, "the operand of '%s'", op);
    if (!want_number(ck, e->args[0], role) || !ok)
        return untyped(e);
    e->ref = axis;
    if (!(e->args[0]->axes & check_axis_bit(axis))) {
        diag_error(ck->d, e->loc, "reduction over '%s', but its operand does not depend on '%s'",
                   e->reduce_axis_name, e->reduce_axis_name);
        return untyped(e);
    }
    e->type = T_FLOAT;
    e->axes = e->args[0]->axes & ~check_axis_bit(axis);
    return root ? e : hoist(ck, e);
}

/* pow's exponent must be a constant: a number, or a negated number (folded). */
static bool constant_exponent(checker *ck, fg_expr **xp, const char *what)
{
    fg_expr *x = *xp;
    if (x->kind == E_NEG && x->args[0]->kind == E_NUM) {
        fg_expr *n = x->args[0];
        n->num = -n->num;
        n->loc = x->loc;
        *xp = x = n;
    }
    if (x->kind == E_NUM)
        return true;
    if (x->type != T_NONE)
        diag_error(ck->d, start_loc(x), "the exponent of '%s' must be a constant number", what);
    return false;
}

static fg_type arith_type(const fg_expr *x, const fg_expr *y)
{
    return x->type == T_INT && y->type == T_INT ? T_INT : T_FLOAT;
}

static fg_expr *check_call(checker *ck, fg_expr *e)
{
    const char *fn = fg_func_names[e->fn];
    int arity = fg_func_arity[e->fn];
    bool ok = true;
    for (int i = 0; i < e->nargs; i++)
        e->args[i] = check_expr(ck, e->args[i], false);
    if (e->nargs != arity) {
        diag_error(ck->d, e->loc, "'%s' takes %d argument%s, but %d %s given", fn, arity,
                   arity == 1 ? "" : "s", e->nargs, e->nargs == 1 ? "was" : "were");
        return untyped(e);
    }
    const char *role = arena_printf(ck->a, "%s argument of '%s'", arity == 1 ? "the" : "an", fn);
    bool all_int = true;
    e->axes = 0;
    for (int i = 0; i < e->nargs; i++) {
        if (!want_number(ck, e->args[i], role))
            ok = false;
        all_int = all_int && e->args[i]->type == T_INT;
        e->axes |= e->args[i]->axes;
    }
    if (ok && e->fn == F_POW && !constant_exponent(ck, &e->args[1], fn))
        ok = false;
    if (!ok)
        return untyped(e);
    bool keeps_int = e->fn == F_ABS || e->fn == F_MIN || e->fn == F_MAX;
    e->type = keeps_int && all_int ? T_INT : T_FLOAT;
    return e;
}

static fg_expr *check_node(checker *ck, fg_expr *e, bool root);

/* Checks a node and what is below it; the recursion stops at the depth
 * the parser allows for nesting (an operator chain such as X + X + ... is
 * as deep as it is long, and the parser lets it through). */
static fg_expr *check_expr(checker *ck, fg_expr *e, bool root)
{
    if (ck->depth > FG_MAX_EXPR_DEPTH) {
        if (!ck->too_deep)
            diag_error(ck->d, e->loc, "expression nested deeper than %d levels",
                       FG_MAX_EXPR_DEPTH);
        ck->too_deep = true;
        return untyped(e);
    }
    ck->depth++;
    e = check_node(ck, e, root);
    ck->depth--;
    return e;
}

/* A whole tree: a param's default, an input's index, a right side. */
static fg_expr *check_tree(checker *ck, fg_expr *e, bool root)
{
    ck->depth = 0;
    ck->too_deep = false;
    return check_expr(ck, e, root);
}

static fg_expr *check_node(checker *ck, fg_expr *e, bool root)
{
    fg_expr_kind k = e->kind;
    switch (k) {
    case E_NUM:
        e->type = e->is_int ? T_INT : T_FLOAT;
        e->axes = 0;
        return e;
    case E_INF:
        e->type = T_FLOAT;
        e->axes = 0;
        return e;
    case E_NAME:
        return check_name(ck, e);
    case E_REDUCE:
        return check_reduce(ck, e, root);
    case E_CALL:
        return check_call(ck, e);
    default:
        break;
    }
    if (k == E_DIM || k == E_AXIS || k == E_PARAM || k == E_TENSOR || k == E_PREV ||
        k == E_ACC) {
        diag_internal(ck->d, e->loc, "the checker met an already resolved '%s' node",
                      fg_expr_kind_names[k]);
        return untyped(e);
    }
    e->axes = 0;
    for (int i = 0; i < e->nargs; i++) {
        e->args[i] = check_expr(ck, e->args[i], false);
        e->axes |= e->args[i]->axes;
    }
    const char *role = arena_printf(ck->a, "an operand of '%s'", op_symbol(k));
    bool ok = true;
    switch (k) {
    case E_NEG:
        ok = want_number(ck, e->args[0], role);
        e->type = e->args[0]->type;
        break;
    case E_NOT:
        ok = want_bool(ck, e->args[0], role);
        e->type = T_BOOL;
        break;
    case E_ADD:
    case E_SUB:
    case E_MUL:
    case E_DIV:
        ok = want_number(ck, e->args[0], role);
        ok = want_number(ck, e->args[1], role) && ok;
        e->type = ok ? arith_type(e->args[0], e->args[1]) : T_NONE;
        break;
    case E_POW:
        ok = want_number(ck, e->args[0], role);
        ok = ok && want_number(ck, e->args[1], role) && constant_exponent(ck, &e->args[1], "^");
        e->type = ok && e->args[0]->type == T_INT && e->args[1]->is_int && e->args[1]->num >= 0
                      ? T_INT
                      : T_FLOAT;
        break;
    case E_LT:
    case E_LE:
    case E_GT:
    case E_GE:
    case E_EQ:
    case E_NE:
        ok = want_number(ck, e->args[0], role);
        ok = want_number(ck, e->args[1], role) && ok;
        e->type = T_BOOL;
        break;
    case E_AND:
    case E_OR:
        ok = want_bool(ck, e->args[0], role);
        ok = want_bool(ck, e->args[1], role) && ok;
        e->type = T_BOOL;
        break;
    case E_WHERE:
        ok = want_bool(ck, e->args[0], "the condition of 'where'");
        ok = want_number(ck, e->args[1], "a value of 'where'") && ok;
        ok = want_number(ck, e->args[2], "a value of 'where'") && ok;
        e->type = ok ? arith_type(e->args[1], e->args[2]) : T_NONE;
        break;
    default:
        diag_internal(ck->d, e->loc, "the checker met an unexpected '%s' node",
                      (unsigned)k < E_COUNT ? fg_expr_kind_names[k] : "?");
        ok = false;
        break;
    }
    if (!ok)
        return untyped(e);
    return e;
}

/* ------------------------------------------------------------------ */
/* Declarations                                                        */
/* ------------------------------------------------------------------ */

/* A name that must be a dim (an axis's extent, a stored extent). */
static int resolve_dim(checker *ck, const char *name, fg_loc loc)
{
    int idx;
    name_kind k = check_lookup(ck, name, &idx);
    if (k == NAME_DIM)
        return idx;
    if (k == NAME_NONE)
        check_report_unknown(ck, name, loc, WANT_DIM);
    else
        diag_error(ck->d, loc, "'%s' is %s, not a dim", name, check_kind_phrase(ck->p, k, idx));
    return -1;
}

/* A name that must be an axis (a param's index, a statement's axis, a tile). */
int check_resolve_axis(checker *ck, const char *name, fg_loc loc)
{
    int idx;
    name_kind k = check_lookup(ck, name, &idx);
    if (k == NAME_AXIS)
        return idx;
    if (k == NAME_NONE)
        check_report_unknown(ck, name, loc, WANT_AXIS);
    else
        diag_error(ck->d, loc, "'%s' is %s, not an axis", name, check_kind_phrase(ck->p, k, idx));
    return -1;
}

static void check_axes(checker *ck)
{
    fg_plan *p = ck->p;
    for (int i = 0; i < p->naxes; i++) {
        fg_axis *ax = &p->axes[i];
        ax->dim = resolve_dim(ck, ax->dim_name, ax->dim_loc);
    }
    /* dim N[b]: b is an axis over a plain dim, and N is the extent of one axis */
    for (int i = 0; i < p->ndims; i++) {
        fg_dim *dm = &p->dims[i];
        dm->index_axis = -1;
        if (!dm->index_name)
            continue;
        int ax = check_resolve_axis(ck, dm->index_name, dm->index_loc);
        if (ax < 0)
            continue;
        int owner_dim = p->axes[ax].dim;
        if (owner_dim == i) {
            diag_error(ck->d, dm->index_loc, "dim '%s' cannot vary with '%s', an axis over itself",
                       dm->name, dm->index_name);
            continue;
        }
        if (owner_dim >= 0 && p->dims[owner_dim].index_name) {
            diag_error(ck->d, dm->index_loc,
                       "dim '%s' varies with '%s', whose extent '%s' varies per sequence too; "
                       "only one level is supported",
                       dm->name, dm->index_name, p->dims[owner_dim].name);
            continue;
        }
        int count = 0;
        for (int a = 0; a < p->naxes; a++)
            if (p->axes[a].dim == i && count++ > 0)
                diag_error(ck->d, p->axes[a].loc,
                           "axis '%s' is a second axis over '%s', whose extent varies per '%s'; "
                           "a per-sequence dim has one axis",
                           p->axes[a].name, dm->name, dm->index_name);
        if (count == 0) {
            diag_error(ck->d, dm->loc, "dim '%s' varies per '%s', but no axis is over it",
                       dm->name, dm->index_name);
            continue;
        }
        dm->index_axis = ax;
    }
}

static void check_params(checker *ck)
{
    for (int i = 0; i < ck->p->nparams; i++) {
        fg_param *pa = &ck->p->params[i];
        pa->index_axis = -1;
        if (pa->index_name)
            pa->index_axis = check_resolve_axis(ck, pa->index_name, pa->index_loc);
    }
    ck->ctx = CTX_DEFAULT;
    for (int i = 0; i < ck->p->nparams; i++) {
        fg_param *pa = &ck->p->params[i];
        if (!pa->deflt)
            continue;
        ck->owner = i;
        pa->deflt = check_tree(ck, pa->deflt, false);
        const char *role = arena_printf(ck->a, "the default of '%s'", pa->name);
        if (pa->dtype == DT_INT && pa->deflt->type != T_INT && pa->deflt->type != T_NONE)
            diag_error(ck->d, start_loc(pa->deflt), "expected an int as %s, but found %s", role,
                       type_phrase(pa->deflt->type));
        else
            want_number(ck, pa->deflt, role);
    }
}

static void check_input(checker *ck, int ti)
{
    fg_ir_tensor *t = &ck->p->tensors[ti];
    bool ok = true, plain = true;
    uint32_t used = 0;
    ck->ctx = CTX_INDEX;
    ck->owner = ti;
    if (t->nindex > FG_MAX_INDICES) {
        diag_error(ck->d, t->loc, "'%s' has %d indices; at most %d are supported", t->name,
                   t->nindex, FG_MAX_INDICES);
        ck->decl_bad[ti] = true;
        return;
    }
    for (int i = 0; i < t->nindex; i++) {
        fg_expr *x = t->index[i] = check_tree(ck, t->index[i], false);
        if (x->type == T_NONE) {
            ok = false;
            continue;
        }
        if (x->type != T_INT) {
            diag_error(ck->d, start_loc(x), "expected an int as index %d of '%s', but found %s",
                       i + 1, t->name, type_phrase(x->type));
            ok = false;
            continue;
        }
        if (x->axes != 0 && single_axis(x->axes) < 0) {
            diag_error(ck->d, start_loc(x), "index %d of '%s' uses more than one axis", i + 1,
                       t->name);
            ok = false;
            continue;
        }
        if (x->axes & used) {
            diag_error(ck->d, start_loc(x), "axis '%s' appears in more than one index of '%s'",
                       ck->p->axes[single_axis(x->axes)].name, t->name);
            ok = false;
        }
        used |= x->axes;
        if (x->kind != E_AXIS)
            plain = false;
    }
    if (t->extent_names) {
        t->extent_dims = ARENA_ARRAY(ck->a, int, t->nindex + 1);
        for (int i = 0; i < t->nindex; i++) {
            int dim = resolve_dim(ck, t->extent_names[i], t->extent_locs[i]);
            t->extent_dims[i] = dim;
            ok = ok && dim >= 0;
        }
    } else if (ok && !plain) {
        for (int i = 0; i < t->nindex; i++)
            if (t->index[i]->kind != E_AXIS) {
                diag_error(ck->d, start_loc(t->index[i]),
                           "index %d of '%s' is not a plain axis, so its stored extents are "
                           "needed: write '%s[...]: %s[DIM, ...]'",
                           i + 1, t->name, t->name, t->dtype == DT_INT ? "i32" : fg_dtype_names[t->dtype]);
                break;
            }
        ok = false;
    }
    ck->decl_bad[ti] = !ok;
}

/* Extents are stored as names; the parser gives their count as nindex (a
 * different count is the parser's to report), so only the names remain. */
static void check_inputs(checker *ck)
{
    for (int i = 0; i < ck->p->ntensors; i++)
        if (ck->p->tensors[i].kind == TENSOR_INPUT)
            check_input(ck, i);
}

static void check_stmt_lhs(checker *ck, int ti)
{
    fg_ir_tensor *t = &ck->p->tensors[ti];
    bool ok = true;
    uint32_t seen = 0;
    t->axes = ARENA_ARRAY(ck->a, int, t->naxes + 1);
    for (int i = 0; i < t->naxes; i++) {
        int axis = check_resolve_axis(ck, t->axis_names[i], t->axis_locs[i]);
        t->axes[i] = axis;
        if (axis < 0) {
            ok = false;
            continue;
        }
        if (seen & check_axis_bit(axis)) {
            diag_error(ck->d, t->axis_locs[i], "axis '%s' appears twice on the left side of '%s'",
                       t->axis_names[i], t->name);
            ok = false;
        }
        seen |= check_axis_bit(axis);
    }
    t->axis_mask = seen;
    ck->decl_bad[ti] = !ok;
}

static const char *axis_list(checker *ck, uint32_t mask, const fg_ir_tensor *t)
{
    char *s = "";
    for (int i = 0; i < t->naxes; i++)
        if (t->axes[i] >= 0 && (mask & check_axis_bit(t->axes[i])))
            s = arena_printf(ck->a, "%s%s%s", s, *s ? ", " : "", ck->p->axes[t->axes[i]].name);
    return s;
}

/* The first node (in source order) that brings `axis` into e from outside
 * any reduction over it: where a stray dependency is reported. */
static const fg_expr *find_axis_use(const fg_expr *e, int axis)
{
    if (!(e->axes & check_axis_bit(axis)))
        return NULL;
    if (e->kind == E_AXIS || e->kind == E_TENSOR || e->kind == E_PARAM || e->kind == E_DIM)
        return e;
    for (int i = 0; i < e->nargs; i++) {
        const fg_expr *u = find_axis_use(e->args[i], axis);
        if (u)
            return u;
    }
    return e;
}

static void check_stmt_rhs(checker *ck, int ti)
{
    fg_ir_tensor *t = &ck->p->tensors[ti];
    ck->ctx = CTX_STMT;
    ck->owner = ti;
    t->rhs = check_tree(ck, t->rhs, true);
    const char *role = arena_printf(ck->a, "the right side of '%s'", t->name);
    if (!want_number(ck, t->rhs, role) || ck->decl_bad[ti])
        return;
    uint32_t extra = t->rhs->axes & ~t->axis_mask;
    if (extra == 0)
        return;
    int axis = 0;
    while (!(extra & check_axis_bit(axis)))
        axis++;
    const fg_expr *use = find_axis_use(t->rhs, axis);
    if (use->kind == E_DIM)
        diag_error(ck->d, start_loc(use),
                   "'%s' is defined over [%s] but its right side depends on '%s' through '%s' "
                   "(dim %s[%s])",
                   t->name, axis_list(ck, t->axis_mask, t), ck->p->axes[axis].name, use->name,
                   use->name, ck->p->axes[axis].name);
    else
        diag_error(ck->d, start_loc(use),
                   "'%s' is defined over [%s] but its right side depends on '%s'", t->name,
                   axis_list(ck, t->axis_mask, t), ck->p->axes[axis].name);
}

/* Appends the hoisted statements to the plan's tensors. */
static void append_hoisted(checker *ck)
{
    fg_plan *p = ck->p;
    if (ck->hoisted.len == 0)
        return;
    int n = p->ntensors + ck->hoisted.len;
    fg_ir_tensor *all = ARENA_ARRAY(ck->a, fg_ir_tensor, n);
    memcpy(all, p->tensors, sizeof *all * (size_t)p->ntensors);
    /* decl_bad must cover every tensor the later checks walk; a hoisted
     * statement's declaration is the checker's own and never failed */
    bool *bad = ARENA_ARRAY(ck->a, bool, n);
    memcpy(bad, ck->decl_bad, sizeof *bad * (size_t)p->ntensors);
    ck->decl_bad = bad;
    for (int i = 0; i < ck->hoisted.len; i++) {
        fg_ir_tensor *h = ck->hoisted.items[i];
        all[p->ntensors + i] = *h;
        all[p->ntensors + i].axis_mask = h->rhs->axes;
    }
    p->tensors = all;
    p->ntensors = n;
}

/* ------------------------------------------------------------------ */
/* The phase                                                           */
/* ------------------------------------------------------------------ */

static void plan_hash(fg_plan *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (p->src)
        for (size_t i = 0; i < p->src->len; i++) {
            h ^= (unsigned char)p->src->text[i];
            h *= 0x100000001b3ull;
        }
    snprintf(p->hash, sizeof p->hash, "%016llx", (unsigned long long)h);
}

int check_plan(fg_plan *p, fg_diag *d)
{
    int errors = d->errors;
    checker ck = {.p = p, .d = d, .a = p->arena, .nuser = p->ntensors};
    ck.decl_bad = ARENA_ARRAY(ck.a, bool, p->ntensors + 1);
    plan_hash(p);
    check_build_names(&ck);
    if (p->naxes > FG_MAX_AXES) {
        /* axis masks are 32 bits wide: nothing below can work */
        diag_error(d, p->axes[FG_MAX_AXES].loc, "a plan may have at most %d axes", FG_MAX_AXES);
        return -1;
    }
    check_duplicates(&ck);
    check_axes(&ck);
    check_params(&ck);
    check_inputs(&ck);
    for (int i = 0; i < p->ntensors; i++) {
        p->tensors[i].hoisted_from = -1;
        p->tensors[i].red_axis = -1;
        if (p->tensors[i].kind == TENSOR_STMT)
            check_stmt_lhs(&ck, i);
    }
    for (int i = 0; i < ck.nuser; i++)
        if (p->tensors[i].kind == TENSOR_STMT && p->tensors[i].rhs)
            check_stmt_rhs(&ck, i);
    append_hoisted(&ck);
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == TENSOR_STMT)
            check_classify(&p->tensors[i]);
    check_order_statements(&ck);
    if (!check_written_out(&ck))
        return -1; /* the walks below would not end */
    check_outputs(&ck);
    check_schedule(&ck);
    check_fused_contractions(&ck);
    check_ragged(&ck);
    if (d->errors == errors)
        check_power_sums(&ck);
    return d->errors > errors ? -1 : 0;
}
