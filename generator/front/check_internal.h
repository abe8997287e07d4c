/* check_internal.h - what the checker's files share (check.c: names,
 * expressions, declarations; check_order.c: classification, order,
 * outputs and the schedule).  Not for the other phases: they read the
 * checked fg_plan. */
#ifndef CHECK_INTERNAL_H
#define CHECK_INTERNAL_H

#include "generator.h"

/* Where an expression sits decides which names it may use. */
typedef enum ctx_kind {
    CTX_DEFAULT, /* the default of a param */
    CTX_INDEX,   /* an index expression of an input */
    CTX_STMT     /* the right side of a statement */
} ctx_kind;

typedef enum name_kind {
    NAME_NONE,
    NAME_DIM,
    NAME_AXIS,
    NAME_PARAM,
    NAME_TENSOR,
    NAME_HOISTED /* a statement the checker made: taken, but not for the plan to read */
} name_kind;

/* Names to their first definition, open addressing: plans may hold many
 * thousands of statements, and every read looks a name up. */
typedef struct name_slot {
    const char *name;
    name_kind kind;
    int index;
} name_slot;

typedef struct name_table {
    name_slot *slots;
    size_t mask; /* capacity - 1; the capacity is a power of two */
    size_t used;
} name_table;

typedef struct checker {
    fg_plan *p;
    fg_diag *d;
    fg_arena *a;
    name_table names;
    int nuser;      /* tensors written in the plan; hoisted ones follow */
    bool *decl_bad; /* per tensor, hoisted ones included once they are
                       appended: its declaration failed */
    fg_vec hoisted; /* fg_ir_tensor *: statements made from nested reductions */
    ctx_kind ctx;
    int owner; /* the param (CTX_DEFAULT) or tensor being checked */
    int depth; /* of the node being checked, in its tree */
    bool too_deep; /* the tree being checked was reported as too deep */
    fg_vec *deps;  /* per tensor, fg_ir_tensor *: the statements its right side
                      reads, once per read (check_order_statements) */
} checker;

/* check.c */
name_kind check_lookup(const checker *ck, const char *name, int *index);
/* check_names.c: the table of declared names and what messages say of them */
void check_table_add(fg_arena *a, name_table *t, const char *name, name_kind kind, int index);
void check_build_names(checker *ck);
const char *check_kind_phrase(const fg_plan *p, name_kind k, int index);
fg_ir_tensor *check_tensor_at(checker *ck, int t);
bool check_name_taken(checker *ck, const char *name);
/* The kinds of name an unknown name may be meant as (check_report_unknown's
 * `want`): suggestions come from these. */
enum { WANT_DIM = 1, WANT_AXIS = 2, WANT_PARAM = 4, WANT_TENSOR = 8, WANT_ANY = 15 };
void check_report_unknown(checker *ck, const char *name, fg_loc loc, unsigned want);
bool check_loc_before(fg_loc x, fg_loc y);
uint32_t check_axis_bit(int axis);
int check_resolve_axis(checker *ck, const char *name, fg_loc loc);
/* A read of statement ti (t, not yet in the plan's tensors) at its own axes. */
fg_expr *check_stmt_read(checker *ck, int ti, const fg_ir_tensor *t, uint32_t axes, fg_loc loc);

/* check_order.c */
void check_classify(fg_ir_tensor *t);
void check_order_statements(checker *ck);
bool check_written_out(checker *ck);
void check_outputs(checker *ck);
void check_schedule(checker *ck);
void check_fused_contractions(checker *ck);
void check_ragged(checker *ck);

/* check_aux.c */
void check_power_sums(checker *ck);

#endif /* CHECK_INTERNAL_H */
