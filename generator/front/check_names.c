/* check_names.c - the names of a plan for check.c: lookups by name, the
 * user's spelling of statements and hoisted reads (for messages), the hash
 * table of declared names, and "did you mean" suggestions for unknown ones.
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Lookups                                                             */
/* ------------------------------------------------------------------ */

int plan_find_dim(const fg_plan *p, const char *name)
{
    for (int i = 0; i < p->ndims; i++)
        if (strcmp(p->dims[i].name, name) == 0)
            return i;
    return -1;
}

int plan_find_axis(const fg_plan *p, const char *name)
{
    for (int i = 0; i < p->naxes; i++)
        if (strcmp(p->axes[i].name, name) == 0)
            return i;
    return -1;
}

int plan_find_param(const fg_plan *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i].name, name) == 0)
            return i;
    return -1;
}

int plan_find_tensor(const fg_plan *p, const char *name)
{
    for (int i = 0; i < p->ntensors; i++)
        if (strcmp(p->tensors[i].name, name) == 0)
            return i;
    return -1;
}

/* Messages name the user's statements: a reduction the checker hoisted out
 * of a statement (O_sum out of O) is named by that statement. */
const char *plan_user_name(const fg_plan *p, int t)
{
    for (int hops = 0; t >= 0 && t < p->ntensors && hops < p->ntensors; hops++) {
        const fg_ir_tensor *ts = &p->tensors[t];
        if (ts->powsum && ts->powsum->of != t) {
            t = ts->powsum->of; /* a sum the checker made for a power sum */
            continue;
        }
        if (!ts->hoisted || ts->hoisted_from < 0)
            return ts->name;
        t = ts->hoisted_from;
    }
    return "?";
}

/* A copy of e with every read of a hoisted statement written out as the
 * reduction it stands for, as the user wrote it. */
static fg_expr *user_expr(fg_arena *a, const fg_plan *p, const fg_expr *e, int depth)
{
    if (e->kind == E_TENSOR && e->ref >= 0 && e->ref < p->ntensors &&
        p->tensors[e->ref].hoisted && p->tensors[e->ref].rhs && depth < FG_MAX_EXPR_DEPTH)
        return user_expr(a, p, p->tensors[e->ref].rhs, depth + 1);
    fg_expr *c = ARENA_NEW(a, fg_expr);
    *c = *e;
    c->args = c->nargs ? ARENA_ARRAY(a, fg_expr *, c->nargs) : NULL;
    for (int i = 0; i < c->nargs; i++)
        c->args[i] = depth < FG_MAX_EXPR_DEPTH ? user_expr(a, p, e->args[i], depth + 1)
                                               : e->args[i];
    return c;
}

char *plan_user_expr(fg_arena *a, const fg_plan *p, const fg_expr *e)
{
    return expr_to_string(a, p, user_expr(a, p, e, 0));
}

/* "'Mx'", or for a hoisted reduction "'sum(c: X)' in 'Mean'". */
char *plan_user_ref(fg_arena *a, const fg_plan *p, int t)
{
    if (t < 0 || t >= p->ntensors)
        return arena_strdup(a, "'?'");
    const fg_ir_tensor *ts = &p->tensors[t];
    if (!ts->hoisted || !ts->rhs)
        return arena_printf(a, "'%s'", ts->name);
    return arena_printf(a, "'%s' in '%s'", plan_user_expr(a, p, ts->rhs), plan_user_name(p, t));
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The slot of `name`, or the free slot where it would go.  The table must
 * have slots: callers that only look up use table_find. */
static name_slot *table_slot(const name_table *t, const char *name)
{
    size_t i = (size_t)name_hash(name) & t->mask;
    while (t->slots[i].name && strcmp(t->slots[i].name, name) != 0)
        i = (i + 1) & t->mask;
    return &t->slots[i];
}

static void table_grow(fg_arena *a, name_table *t)
{
    name_table old = *t;
    size_t cap = old.slots ? (old.mask + 1) * 2 : 64;
    t->slots = ARENA_ARRAY(a, name_slot, cap);
    t->mask = cap - 1;
    for (size_t i = 0; old.slots && i <= old.mask; i++)
        if (old.slots[i].name)
            *table_slot(t, old.slots[i].name) = old.slots[i];
}

/* The slot of `name`, or an empty slot (name NULL) when it is not there;
 * an empty table (a plan that declares nothing) has no slots at all. */
static const name_slot *table_find(const name_table *t, const char *name)
{
    static const name_slot none = {0};
    if (!t->slots)
        return &none;
    return table_slot(t, name);
}

/* Adds a name unless it is there already: the first definition wins. */
void check_table_add(fg_arena *a, name_table *t, const char *name, name_kind kind, int index)
{
    if (!t->slots || (t->used + 1) * 2 > t->mask + 1)
        table_grow(a, t);
    name_slot *s = table_slot(t, name);
    if (s->name)
        return;
    *s = (name_slot){name, kind, index};
    t->used++;
}

/* One namespace, in the order dims, axes, params, tensors (duplicates are
 * reported separately). */
void check_build_names(checker *ck)
{
    const fg_plan *p = ck->p;
    for (int i = 0; i < p->ndims; i++)
        check_table_add(ck->a, &ck->names, p->dims[i].name, NAME_DIM, i);
    for (int i = 0; i < p->naxes; i++)
        check_table_add(ck->a, &ck->names, p->axes[i].name, NAME_AXIS, i);
    for (int i = 0; i < p->nparams; i++)
        check_table_add(ck->a, &ck->names, p->params[i].name, NAME_PARAM, i);
    for (int i = 0; i < p->ntensors; i++)
        check_table_add(ck->a, &ck->names, p->tensors[i].name, NAME_TENSOR, i);
}

name_kind check_lookup(const checker *ck, const char *name, int *index)
{
    const name_slot *s = table_find(&ck->names, name);
    *index = s->index;
    return s->name && s->kind != NAME_HOISTED ? s->kind : NAME_NONE;
}

const char *check_kind_phrase(const fg_plan *p, name_kind k, int index)
{
    switch (k) {
    case NAME_DIM:
        return "a dim";
    case NAME_AXIS:
        return "an axis";
    case NAME_PARAM:
        return "a param";
    case NAME_TENSOR:
        return p->tensors[index].kind == TENSOR_INPUT ? "an input" : "a tensor";
    default:
        return "unknown";
    }
}

fg_ir_tensor *check_tensor_at(checker *ck, int t)
{
    if (t < ck->p->ntensors)
        return &ck->p->tensors[t];
    return ck->hoisted.items[t - ck->p->ntensors];
}

bool check_name_taken(checker *ck, const char *name)
{
    return table_find(&ck->names, name)->name != NULL;
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* Levenshtein distance, or a large number for names too long to compare. */
static int edit_distance(const char *x, const char *y)
{
    enum { MAXLEN = 64 };
    size_t n = strlen(x), m = strlen(y);
    if (n >= MAXLEN || m >= MAXLEN)
        return MAXLEN;
    int row[MAXLEN + 1];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int best = diag + (x[i - 1] != y[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}


static void consider(const char *name, const char *cand, const char **best, int *best_dist)
{
    int dist = edit_distance(name, cand);
    int longer = (int)(strlen(name) > strlen(cand) ? strlen(name) : strlen(cand));
    /* A suggestion must keep most of the name: 'Zed' is not a typo of 'd'. */
    if (dist <= 2 && 2 * dist <= longer && dist < *best_dist) {
        *best = cand;
        *best_dist = dist;
    }
}

/* The closest name of the wanted kinds within edit distance 2, or NULL. */
static const char *suggest(const fg_plan *p, const char *name, unsigned want)
{
    const char *best = NULL;
    int dist = 3;
    if (want & WANT_DIM)
        for (int i = 0; i < p->ndims; i++)
            consider(name, p->dims[i].name, &best, &dist);
    if (want & WANT_AXIS)
        for (int i = 0; i < p->naxes; i++)
            consider(name, p->axes[i].name, &best, &dist);
    if (want & WANT_PARAM)
        for (int i = 0; i < p->nparams; i++)
            consider(name, p->params[i].name, &best, &dist);
    if (want & WANT_TENSOR)
        for (int i = 0; i < p->ntensors; i++)
            consider(name, p->tensors[i].name, &best, &dist);
    return best;
}

void check_report_unknown(checker *ck, const char *name, fg_loc loc, unsigned want)
{
    /* Past the error cap nothing prints: spare the search. */
    const char *close = diag_full(ck->d) ? NULL : suggest(ck->p, name, want);
    if (close)
        diag_error(ck->d, loc, "unknown identifier '%s'; did you mean '%s'?", name, close);
    else
        diag_error(ck->d, loc, "unknown identifier '%s'", name);
}

