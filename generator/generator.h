/* generator.h - the one internal header of the generator (the public
 * runtime header is runtime/fusegen.h; the two never meet in one file).
 *
 * The pipeline, folder by folder (generator/README.md), each phase
 * producing a plain data structure that a test can build and print:
 *
 *   util/     arena.c, diag.c    memory, strings, sources, diagnostics
 *   front/    lex.c, parse.c     plan text -> fg_plan (syntax, every node located)
 *             expr.c             expression nodes, the kind/function tables, expr_eval
 *             check.c, check_order.c   fg_plan -> fg_plan resolved in place (the IR)
 *   middle/   algebra.c, verify.c     expressions -> derived, verified corrections
 *             fuse.c, masks.c    IR -> fg_fused (running state, corrections, mask)
 *             rules.c            the masked-row rules
 *             variants.c         the compiled GPU variants and their rules, as data
 *             kernel.c           fg_fused -> fg_kernel, the only thing backends read
 *             interp.c           IR + inputs -> outputs, naive double precision
 *   back/     backends.c         the table of backends
 *             common.c, print.c, defs.c   shared definitions, the C-family printer, m4 defs
 *             c/, cuda/          fg_kernel -> m4 definitions per backend
 *             emit.c             m4 definitions -> checked files, written all or nothing
 *
 * Memory: everything a plan owns lives in its arena (fg_arena) and is freed
 * at once.  Errors: every phase reports through fg_diag and returns -1; no
 * exit() below main.  Calls go down the list above, never back up.
 *
 * Each section below belongs to one phase.
 */
#ifndef FUSEGEN_GENERATOR_H
#define FUSEGEN_GENERATOR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* arena.c: memory                                                     */
/* ------------------------------------------------------------------ */

typedef struct fg_arena fg_arena;

fg_arena *arena_create(void);
void arena_destroy(fg_arena *a);
/* Zeroed memory, 16-byte aligned.  Never returns NULL: on out-of-memory it
 * prints "fusegen: out of memory" and calls abort(). */
void *arena_alloc(fg_arena *a, size_t size);
char *arena_strdup(fg_arena *a, const char *s);
char *arena_strndup(fg_arena *a, const char *s, size_t n);
char *arena_printf(fg_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* A growable string in an arena, for every printer and emitter. */
typedef struct fg_strbuf {
    fg_arena *a;
    char *s;
    size_t len, cap;
} fg_strbuf;
void strbuf_putn(fg_strbuf *b, const char *s, size_t n);
void strbuf_puts(fg_strbuf *b, const char *s);
void strbuf_printf(fg_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); it stays valid in the arena. */
char *strbuf_str(fg_strbuf *b);

/* A growable array of pointers in an arena (old storage is left behind). */
typedef struct fg_vec {
    void **items;
    int len, cap;
} fg_vec;
void vec_push(fg_arena *a, fg_vec *v, void *item);

/* ------------------------------------------------------------------ */
/* diag.c: sources and diagnostics                                     */
/* ------------------------------------------------------------------ */

#define FG_MAX_SOURCE_BYTES (16u << 20)

typedef struct fg_source {
    const char *name; /* as given on the command line: used in messages */
    const char *text; /* NUL-terminated copy of the file */
    size_t len;
} fg_source;

/* 1-based line and column (column counts bytes); line 0 means "no location". */
typedef struct fg_loc {
    int line, col;
} fg_loc;

typedef struct fg_diag {
    const fg_source *src; /* may be NULL: then messages carry no location */
    FILE *out;            /* stderr in the program, a memstream in tests */
    int errors, warnings;
    int max_errors; /* stop reporting after this many (0 = 50) */
    int fatal;      /* internal and I/O errors among `errors` (exit status 3) */
    bool muted;     /* the cap was reached: nothing more is printed */
    /* A cache that finds source lines without rescanning the file: */
    const fg_source *line_src;
    int line_no;
    size_t line_off;
} fg_diag;

void diag_init(fg_diag *d, const fg_source *src, FILE *out);
/* "name:line:col: error: message\n" then the source line and a caret. */
void diag_error(fg_diag *d, fg_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(fg_diag *d, fg_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(fg_diag *d, fg_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An internal error: a bug in fusegen, never the user's fault. */
void diag_internal(fg_diag *d, fg_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An I/O failure (cannot open, read or write a file): "fusegen: error: msg",
 * or "name: error: msg" when d has a source.  Counts as an error and as
 * fatal (exit status 3). */
void diag_io_error(fg_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True once max_errors errors were reported: phases should stop early. */
bool diag_full(const fg_diag *d);

/* Read a whole file into an arena; checks size, NUL bytes and UTF-8.
 * Returns 0, or -1 after reporting through d (whose src may be NULL); a
 * file that cannot be opened or read is reported with diag_io_error. */
int source_read(fg_arena *a, const char *path, fg_source *out, fg_diag *d);
/* A source from memory (tests). */
void source_from_string(fg_source *out, const char *name, const char *text);

/* ------------------------------------------------------------------ */
/* lex.c: tokens                                                       */
/* ------------------------------------------------------------------ */

#define FG_TOKENS(X)                                                       \
    X(EOF, "end of file")                                                  \
    X(NEWLINE, "end of line")                                              \
    X(IDENT, "identifier")                                                 \
    X(NUMBER, "number")                                                    \
    X(STRING, "string")                                                    \
    X(KW_PLAN, "'plan'")                                                   \
    X(KW_DOC, "'doc'")                                                     \
    X(KW_DIM, "'dim'")                                                     \
    X(KW_AXIS, "'axis'")                                                   \
    X(KW_PARAM, "'param'")                                                 \
    X(KW_INPUT, "'input'")                                                 \
    X(KW_OUTPUT, "'output'")                                               \
    X(KW_SCHEDULE, "'schedule'")                                           \
    X(KW_INF, "'inf'")                                                     \
    X(KW_WHERE, "'where'")                                                 \
    X(LPAREN, "'('")                                                       \
    X(RPAREN, "')'")                                                       \
    X(LBRACKET, "'['")                                                     \
    X(RBRACKET, "']'")                                                     \
    X(LBRACE, "'{'")                                                       \
    X(RBRACE, "'}'")                                                       \
    X(COMMA, "','")                                                        \
    X(COLON, "':'")                                                        \
    X(ASSIGN, "'='")                                                       \
    X(PLUS, "'+'")                                                         \
    X(MINUS, "'-'")                                                        \
    X(STAR, "'*'")                                                         \
    X(SLASH, "'/'")                                                        \
    X(CARET, "'^'")                                                        \
    X(LT, "'<'")                                                           \
    X(LE, "'<='")                                                          \
    X(GT, "'>'")                                                           \
    X(GE, "'>='")                                                          \
    X(EQ, "'=='")                                                          \
    X(NE, "'!='")                                                          \
    X(AND, "'&&'")                                                         \
    X(OR, "'||'")                                                          \
    X(NOT, "'!'")

typedef enum fg_tok_kind {
#define X(name, text) TK_##name,
    FG_TOKENS(X)
#undef X
        TK_COUNT
} fg_tok_kind;

extern const char *const fg_tok_names[TK_COUNT]; /* for messages */

typedef struct fg_token {
    fg_tok_kind kind;
    fg_loc loc;
    const char *text; /* points into the source */
    size_t len;
    double num;   /* TK_NUMBER */
    bool is_int;  /* TK_NUMBER written without '.' or exponent */
    char *str;    /* TK_STRING: the unescaped value (arena) */
} fg_token;

/* Tokenise a whole source.  Lexical errors are reported (several per run)
 * and the bad characters skipped; returns -1 if any error was reported.
 * The token array always ends with TK_EOF. */
int lex_source(fg_arena *a, const fg_source *src, fg_diag *d, fg_token **out,
               int *ntokens);

/* The same lexer one token at a time (the parser's way: memory stays
 * bounded on huge inputs).  Runs of blank lines give one TK_NEWLINE; after
 * TK_EOF it keeps returning TK_EOF.  A TK_EOF after a final newline is
 * located at that newline.  lex_next returns 0, or -1 if it reported a
 * lexical error while producing this token. */
typedef struct fg_lexer {
    fg_arena *arena;
    const fg_source *src;
    fg_diag *diag;
    size_t pos, line_start;
    int line;
    bool newline_pending; /* the last token returned was TK_NEWLINE */
} fg_lexer;
void lexer_init(fg_lexer *lx, fg_arena *a, const fg_source *src, fg_diag *d);
int lex_next(fg_lexer *lx, fg_token *out);

/* ------------------------------------------------------------------ */
/* Expressions (shared by every phase)                                 */
/* ------------------------------------------------------------------ */

/* One X-macro table of expression kinds: name, arity (-1 = variable). */
#define FG_EXPR_KINDS(X)                                                   \
    X(NUM, 0)     /* number literal: num */                                \
    X(INF, 0)     /* +inf (negative infinity is NEG(INF)) */               \
    X(NAME, -1)   /* unresolved name (parser); args = index list */        \
    X(DIM, 0)     /* resolved: ref = dim index */                          \
    X(AXIS, 0)    /* resolved: ref = axis index (the current index) */     \
    X(PARAM, -1)  /* resolved: ref = param index; args = [index] if any */ \
    X(TENSOR, -1) /* resolved: ref = tensor index; args = index list */    \
    X(PREV, 0)    /* fusion: previous value of running tensor ref */       \
    X(ACC, 0)     /* fusion: the accumulated value a correction acts on */ \
    X(NEG, 1)                                                              \
    X(NOT, 1)                                                              \
    X(ADD, 2)                                                              \
    X(SUB, 2)                                                              \
    X(MUL, 2)                                                              \
    X(DIV, 2)                                                              \
    X(POW, 2) /* args[1] is a NUM */                                       \
    X(LT, 2)                                                               \
    X(LE, 2)                                                               \
    X(GT, 2)                                                               \
    X(GE, 2)                                                               \
    X(EQ, 2)                                                               \
    X(NE, 2)                                                               \
    X(AND, 2)                                                              \
    X(OR, 2)                                                               \
    X(CALL, -1)  /* fn, args */                                            \
    X(WHERE, 3)  /* cond, then, else */                                    \
    X(REDUCE, 1) /* op, ref = axis index (after check), args[0] = body */ \
    X(KCONST, 0) /* kernel model: hoisted constant ref of fg_kernel.consts */

typedef enum fg_expr_kind {
#define X(name, arity) E_##name,
    FG_EXPR_KINDS(X)
#undef X
        E_COUNT
} fg_expr_kind;

extern const char *const fg_expr_kind_names[E_COUNT];
extern const int fg_expr_kind_arity[E_COUNT];

/* Functions: name, arity, C (double) name, CUDA float name. */
#define FG_FUNCS(X)                                                        \
    X(EXP, "exp", 1)                                                       \
    X(EXP2, "exp2", 1)                                                     \
    X(LOG, "log", 1)                                                       \
    X(LOG2, "log2", 1)                                                     \
    X(TANH, "tanh", 1)                                                     \
    X(SIGMOID, "sigmoid", 1)                                               \
    X(SQRT, "sqrt", 1)                                                     \
    X(RSQRT, "rsqrt", 1)                                                   \
    X(ABS, "abs", 1)                                                       \
    X(MIN, "min", 2)                                                       \
    X(MAX, "max", 2)                                                       \
    X(POW, "pow", 2)

typedef enum fg_func {
#define X(id, name, arity) F_##id,
    FG_FUNCS(X)
#undef X
        F_COUNT
} fg_func;

extern const char *const fg_func_names[F_COUNT];
extern const int fg_func_arity[F_COUNT];

typedef enum fg_reduce_op { R_SUM, R_MAX, R_MIN } fg_reduce_op;
extern const char *const fg_reduce_names[3]; /* "sum", "max", "min" */

typedef enum fg_type { T_NONE = 0, T_BOOL, T_INT, T_FLOAT } fg_type;

typedef struct fg_expr fg_expr;
struct fg_expr {
    fg_expr_kind kind;
    fg_loc loc;
    double num;       /* E_NUM */
    bool is_int;      /* E_NUM written as an integer */
    const char *name; /* E_NAME, and kept on resolved references */
    int ref;          /* E_DIM/AXIS/PARAM/TENSOR/PREV: index; E_REDUCE: axis */
    fg_func fn;       /* E_CALL */
    fg_reduce_op op;  /* E_REDUCE */
    const char *reduce_axis_name; /* E_REDUCE, as written */
    fg_loc reduce_axis_loc;
    bool bracketed;   /* E_NAME/TENSOR/PARAM: an index list was written */
    int nargs;
    fg_expr **args;
    /* Set by check.c: */
    fg_type type;
    uint32_t axes; /* bit i set: the value depends on axis i */
};

/* expr.c: construction, tables and basic operations (all in the arena) */
fg_expr *expr_new(fg_arena *a, fg_expr_kind kind, fg_loc loc, int nargs);
fg_expr *expr_num(fg_arena *a, double v);
fg_expr *expr_unary(fg_arena *a, fg_expr_kind kind, fg_expr *x);
fg_expr *expr_binary(fg_arena *a, fg_expr_kind kind, fg_expr *x, fg_expr *y);
fg_expr *expr_call1(fg_arena *a, fg_func fn, fg_expr *x);
fg_expr *expr_ref(fg_arena *a, fg_expr_kind kind, int ref, const char *name);
fg_expr *expr_clone(fg_arena *a, const fg_expr *e);
bool expr_equal(const fg_expr *x, const fg_expr *y); /* structural */
/* Whether e reads tensor t (E_TENSOR, or E_PREV: its value before a tile). */
bool expr_reads(const fg_expr *e, int t);
/* Whether part occurs in e (expr_equal). */
bool expr_holds(const fg_expr *e, const fg_expr *part);

/* ------------------------------------------------------------------ */
/* parse.c: the plan (syntax tree; check.c resolves it in place)       */
/* ------------------------------------------------------------------ */

#define FG_MAX_AXES 32   /* axes fit a uint32_t mask */
#define FG_MAX_INDICES 8    /* indices per tensor (the runtime's FG_MAX_RANK is at least this) */
#define FG_MAX_EXPR_DEPTH 256
/* operations in one statement with the statements it reads written out
 * (check_written_out refuses more) */
#define FG_MAX_WRITTEN_OUT 65536

typedef enum fg_ir_dtype { DT_BF16, DT_FP16, DT_F32, DT_INT } fg_ir_dtype;
extern const char *const fg_dtype_names[4]; /* "bf16", "fp16", "f32", "int" */

typedef struct fg_dim {
    const char *name;
    fg_loc loc;
    /* dim N[b]: a per-sequence extent, one value per index of axis b (the
     * tensors are stored at the full extent N; index i of b uses N[i] of
     * them).  NULL for a plain dim. */
    const char *index_name;
    fg_loc index_loc;
    int index_axis; /* check: the axis it varies with, or -1 */
} fg_dim;

typedef struct fg_axis {
    const char *name;
    fg_loc loc;
    const char *dim_name; /* as written */
    fg_loc dim_loc;
    int dim; /* check: index into plan->dims */
} fg_axis;

typedef struct fg_param {
    const char *name;
    fg_loc loc;
    fg_ir_dtype dtype;            /* DT_F32 or DT_INT */
    const char *index_name;    /* param NAME[AXIS]: the axis as written, or NULL */
    fg_loc index_loc;
    int index_axis;            /* check: axis index, or -1 */
    fg_expr *deflt;            /* default value; NULL = must be given */
} fg_param;

typedef enum fg_tensor_kind { TENSOR_INPUT, TENSOR_STMT } fg_tensor_kind;

typedef enum fg_stmt_class {
    CLASS_NONE = 0,
    CLASS_ELEMENTWISE, /* no reduction */
    CLASS_REDUCTION,   /* rhs is exactly REDUCE(op, axis, body), not a contraction */
    CLASS_CONTRACTION  /* rhs is REDUCE(sum, axis, A * B [* scalars]) with axis in A and B */
} fg_stmt_class;

typedef struct fg_ir_tensor {
    const char *name;
    fg_loc loc;
    fg_tensor_kind kind;
    fg_ir_dtype dtype; /* input: stored type; statement: f32, or the output type */
    /* input NAME[INDEX,...]: DTYPE [ [DIM,...] ] */
    int nindex;
    fg_expr **index;          /* index expressions, as declared */
    const char **extent_names; /* the optional stored extents, or NULL */
    fg_loc *extent_locs;
    int *extent_dims;         /* check: dim index per position */
    /* statement NAME[AXIS,...] = rhs */
    int naxes;
    const char **axis_names; /* as written */
    fg_loc *axis_locs;
    int *axes;               /* check: axis indices */
    fg_expr *rhs;
    /* output NAME: DTYPE */
    bool is_output;
    fg_loc output_loc;
    fg_ir_dtype out_dtype;
    /* Set by check.c: */
    fg_stmt_class cls;
    fg_reduce_op op;   /* REDUCTION/CONTRACTION */
    int red_axis;      /* REDUCTION/CONTRACTION: the reduced axis */
    fg_expr *body;     /* REDUCTION/CONTRACTION: rhs->args[0] */
    bool hoisted;      /* created by the checker from a nested reduction */
    int hoisted_from;  /* tensor index of the statement it came from, or -1 */
    uint32_t axis_mask;
    /* check_aux.c: a power sum about a running value, or a sum it carries
     * (NULL for any other statement). */
    const struct fg_powsum *powsum;
} fg_ir_tensor;

/* A sum of a power of a difference from a running value,
 * T = sum(a: (c + g(r)) ^ k) with c complete and g(r) reading only running
 * values, carries the sums of the lower powers of the same difference and
 * the count of the elements: when r moves by d = g(r') - g(r),
 * T += sum over i < k of binomial(k, i) * T_i * d ^ (k - i), each T_i
 * (T_0 the count) as it was before the move.  With g(r) the running mean
 * this is Welford's update (T_1 stays 0), and merging two partial states
 * the same way is Chan's pairwise combine.  The checker makes the carried
 * sums as statements of their own, named after the power sum. */
#define FG_MAX_POWER 4
typedef struct fg_powsum {
    int k;                 /* the power; 0 for the count */
    int aux[FG_MAX_POWER]; /* the count, then the sums of the powers 1 .. k - 1 */
    int of;                /* the power sum the plan wrote (messages name it) */
} fg_powsum;

typedef enum fg_form { FORM_ROLLING, FORM_SPLIT } fg_form;
extern const char *const fg_form_names[2]; /* "rolling", "split" */

enum { TARGET_CUDA = 1, TARGET_HIP = 2, TARGET_C = 4 };

typedef struct fg_tile_size {
    const char *axis_name;
    fg_loc loc;
    int axis; /* check */
    int size;
} fg_tile_size;

/* One tunable knob and its candidate values: "tile" (with an axis),
 * "warps", "stages", "splits". */
typedef struct fg_tune_knob {
    const char *knob;
    const char *axis_name; /* tile only */
    fg_loc loc;
    int axis;              /* check; -1 when not a tile */
    int nvalues;
    int *values;
} fg_tune_knob;

typedef struct fg_schedule {
    bool present;
    fg_loc loc;
    const char *reduce_axis_name;
    fg_loc reduce_loc;
    int reduce_axis; /* check */
    fg_form form;
    int ntiles;
    fg_tile_size *tiles;
    int warps;  /* 0 = not given */
    int stages; /* 0 = not given */
    int splits; /* 0 = auto */
    int nknobs;
    fg_tune_knob *knobs;
    unsigned targets; /* TARGET_* bits; 0 = not given (all) */
} fg_schedule;

typedef struct fg_plan {
    fg_arena *arena;
    const fg_source *src;
    const char *name;
    fg_loc name_loc;
    const char *doc; /* NULL if none */
    int ndims;
    fg_dim *dims;
    int naxes;
    fg_axis *axes;
    int nparams;
    fg_param *params;
    int ntensors; /* inputs and statements, in source order (hoisted after) */
    fg_ir_tensor *tensors;
    fg_schedule sched;
    /* Set by check.c: */
    int norder;
    int *order; /* statement tensors in dependency order */
    char hash[17]; /* 64-bit FNV-1a of the source text, hex */
} fg_plan;

/* Lex and parse one source.  Returns 0, or -1 after reporting errors (the
 * parser recovers at the next line and reports several per run). */
int parse_plan(fg_arena *a, const fg_source *src, fg_diag *d, fg_plan **out);
/* Parse a lone expression (tests, and the algebra's test helpers). */
int parse_expr_string(fg_arena *a, const char *text, fg_diag *d, fg_expr **out);

/* dump.c: printing (stable, golden-tested text); dump_ir is in dump_ir.c */
void dump_ast(FILE *f, const fg_plan *p);
void dump_ir(FILE *f, const fg_plan *p);
/* An expression in plan syntax, minimal parentheses. */
void expr_print(FILE *f, const fg_plan *p, const fg_expr *e);
char *expr_to_string(fg_arena *a, const fg_plan *p, const fg_expr *e);

/* ------------------------------------------------------------------ */
/* check.c: resolve, type, classify, hoist, order                      */
/* ------------------------------------------------------------------ */

/* Resolves every name, types every expression, computes axis masks,
 * hoists nested reductions into statements, classifies statements,
 * orders them (reporting cycles), validates the schedule.  Reports every
 * error it can; returns 0 or -1. */
int check_plan(fg_plan *p, fg_diag *d);

int plan_find_tensor(const fg_plan *p, const char *name); /* -1 if none */
/* Names for messages, which speak of the user's statements: the statement a
 * hoisted reduction came from (O for O_sum); an expression with hoisted
 * reads written out as their reductions; a quoted reference to t ("'Mx'",
 * or "'sum(c: X)' in 'Mean'" for a hoisted one).  Arena strings. */
const char *plan_user_name(const fg_plan *p, int t);
char *plan_user_expr(fg_arena *a, const fg_plan *p, const fg_expr *e);
char *plan_user_ref(fg_arena *a, const fg_plan *p, int t);
int plan_find_axis(const fg_plan *p, const char *name);
int plan_find_dim(const fg_plan *p, const char *name);
int plan_find_param(const fg_plan *p, const char *name);

/* ------------------------------------------------------------------ */
/* algebra.c: corrections                                              */
/* ------------------------------------------------------------------ */

typedef enum fg_corr_kind {
    CORR_NONE,  /* the reduction's body reads no running value */
    CORR_SCALE, /* new = ACC * factor */
    CORR_SHIFT  /* new = ACC + factor */
} fg_corr_kind;

typedef struct fg_correction {
    fg_corr_kind kind;
    /* In terms of E_PREV(r) (the value r had when ACC was accumulated) and
     * E_TENSOR(r) (r's new value) for each running producer r, plus
     * dims/params.  NULL for CORR_NONE. */
    fg_expr *factor;
    uint64_t producers; /* bit per tensor index: the running values it reads */
    /* Why it holds, in one line, for comments and --dump=fused:
     * "P = exp(T - Mx) separates into exp(T) * exp(-Mx); under sum the
     *  factor exp(-Mx) rescales by exp(Mx_prev - Mx)" */
    const char *why;
    int origin;        /* tensor whose definition introduced the dependency */
    bool verified;     /* passed the numeric check */
    double max_rel_err; /* of the numeric check */
} fg_correction;

/* Environment for evaluating expressions in double precision.  Leaves are
 * read through the callback (E_DIM, E_AXIS, E_PARAM, E_TENSOR, E_PREV,
 * E_ACC); everything else is computed by expr_eval. */
typedef struct fg_eval_env {
    double (*leaf)(void *ctx, const fg_expr *e);
    void *ctx;
} fg_eval_env;
double expr_eval(const fg_expr *e, const fg_eval_env *env);

/* Derive the correction for a running reduction `op` whose body, with the
 * per-tile statements inlined, is `body`; `running` marks (bit = tensor
 * index) the reductions over the same axis that are still running.  The
 * correction is verified numerically before it is returned.  On failure
 * reports a located error at `loc` naming the statement, the producer and
 * the reason, and returns -1. */
int derive_correction(fg_arena *a, const fg_plan *p, const fg_expr *body,
                      fg_reduce_op op, uint64_t running, int stmt, fg_loc loc,
                      fg_correction *out, fg_diag *d);
/* The numeric check alone, for a correction built by hand or elsewhere
 * (kind and factor set): g(r', c) == h(g(r, c)), h(x (+) y) == h(x) (+) h(y)
 * and a folded row, each at 200 random points in double precision.  Sets
 * verified and max_rel_err; on a mismatch reports an internal error at loc
 * and returns -1. */
int verify_correction(fg_arena *a, const fg_plan *p, const fg_expr *body,
                      fg_reduce_op op, uint64_t running, int stmt, fg_loc loc,
                      fg_correction *corr, fg_diag *d);

/* ------------------------------------------------------------------ */
/* masks.c: tile classification from where(cond, x, -inf)              */
/* ------------------------------------------------------------------ */

typedef enum fg_tile_state { TILE_SKIP = 0, TILE_PARTIAL = 1, TILE_FULL = 2 } fg_tile_state;

/* A linear atom  a_row*row + a_col*col + c  (< or <=) 0, where c is an
 * int expression of dims and params. */
typedef struct fg_mask_atom {
    int a_row, a_col;
    fg_expr *c;
    bool strict; /* '<' rather than '<=' */
} fg_mask_atom;

/* A span atom  row_side OP col_side  of int expressions that are not
 * linear (they read an input, as document ids do), the row side free of
 * col and the col side free of row.  On a tile it is decided from the
 * ranges [min, max] of each side over the tile's rows and keys, which the
 * kernels compute on the device; everywhere else it is "maybe". */
typedef struct fg_mask_span {
    fg_expr_kind cmp;        /* E_EQ, E_NE, E_LT, E_LE, E_GT or E_GE */
    const fg_expr *row, *col;
    int id;                  /* index in fg_mask.spans */
} fg_mask_span;

typedef enum fg_mask_op {
    MASK_TRUE, MASK_ATOM, MASK_AND, MASK_OR, MASK_NOT, MASK_OPAQUE, MASK_SPAN
} fg_mask_op;

typedef struct fg_mask_node fg_mask_node;
struct fg_mask_node {
    fg_mask_op op;
    fg_mask_atom atom;      /* MASK_ATOM */
    fg_mask_span span;      /* MASK_SPAN */
    fg_mask_node *lhs, *rhs; /* AND/OR; NOT uses lhs */
    const fg_expr *expr;    /* the source condition (OPAQUE: not linear) */
};

#define FG_MAX_SPANS 4 /* span atoms a mask may keep; more are opaque */

typedef struct fg_mask {
    bool present;      /* the plan masks with where(cond, x, -inf) */
    int stmt;          /* the statement holding the where */
    const fg_expr *cond;
    int row_axis, col_axis; /* e.g. m and n */
    fg_mask_node *root;
    /* Additions of masks.c: */
    fg_loc loc;          /* the (first) where */
    int nwheres;         /* masking wheres found; their conditions AND together */
    fg_expr *col_extent; /* E_DIM: the extent of col_axis (the key count) */
    int nspans;          /* span atoms in the tree */
    const fg_mask_span *spans[FG_MAX_SPANS];
} fg_mask;

int mask_analyse(fg_arena *a, const fg_plan *p, int row_axis, int col_axis,
                 fg_mask *out, fg_diag *d);
/* Classify the tile rows [r0, r1) x cols [c0, c1) given values of dims and
 * params (through env); used by the C backend's tests and the emitters. */
fg_tile_state mask_classify(const fg_mask *m, long r0, long r1, long c0, long c1,
                            const fg_eval_env *env);
/* The keys [*lo, *hi) that rows [r0, r1) can see (the union over the rows
 * of each row's visible interval); *lo == *hi == 0 when none.  Exact when
 * each row sees an interval (causal, window, prefix-LM and conjunctions). */
int mask_key_range(const fg_mask *m, long r0, long r1, long ncols, const fg_eval_env *env,
                   long *lo, long *hi);

/* Whether every row's visible columns are exactly the interval that
 * mask_key_range gives the row alone (linear atoms, their ANDs, and ORs of
 * intervals that share an end); *from0 (may be NULL): each starts at 0. */
bool mask_rows_exact(const fg_mask *m, bool *from0);

/* Code for the backends.  print returns the backend's text (an arena
 * string) for an int expression of dims and params (E_NUM, E_DIM, E_PARAM,
 * + - * /, min, max, abs); the emitted code uses `long` arithmetic. */
typedef char *(*fg_mask_print_fn)(void *ctx, const fg_expr *e);
/* Statements: the body of
 *   int tile_state(long r0, long r1, long c0, long c1)
 * returning 0 (skip), 1 (partial: apply the mask), 2 (full: no mask code). */
char *mask_emit_tile_state(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* The same, deciding the span atoms from their sides' ranges over the tile:
 * span k's row side lies in [rlo[k], rhi[k]] and its col side in
 * [clo[k], chi[k]] (arrays of long named so by the caller). */
char *mask_emit_tile_state_spans(fg_arena *a, const fg_mask *m, fg_mask_print_fn print,
                                 void *ctx);
/* Whether the mask has no leaf beside linear and span atoms, so that on a
 * tile where every span atom is known (mask_emit_spans_known) each element
 * of the tile (a real row and key) is decided by the spans' states and its
 * linear atoms (mask_emit_visible_known). */
bool mask_decided_by_spans(const fg_mask *m);
/* Statements: the body of a function of rlo, rhi, clo, chi (as for
 * mask_emit_tile_state_spans) and `unsigned *truth` returning whether
 * every span atom holds at all of the tile's pairs or at none, with bit k
 * of *truth set where span k holds. */
char *mask_emit_spans_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* For a mask that mask_decided_by_spans accepts: the body of a function of
 * the row `i`, the key `j` (int) and `truth` (unsigned, as above) returning
 * the element's visibility, each span atom taken from its bit; "" for
 * others. */
char *mask_emit_visible_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* Statements that set `c_lo` and `c_hi` (long, declared by the caller) to
 * the keys rows [r0, r1) can see, as mask_key_range; empty: 0 and 0. */
char *mask_emit_key_range(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* For a mask that mask_rows_exact accepts: statements that set `k_lo` and
 * `k_hi` (long, declared by the caller) to the keys that row `row` (long)
 * can see, clipped to the key count; none when k_lo >= k_hi. */
char *mask_emit_row_keys(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* Whether a mask that mask_decided_by_spans accepts gives each row one
 * interval of keys on a tile whose span atoms are known, whatever their
 * truth (a span atom is then every key or none). */
bool mask_rows_exact_known(const fg_mask *m);
/* For such a mask: statements that set `k_lo` and `k_hi` (long, declared by
 * the caller) to the keys that row `row` (long) sees on a tile whose span
 * atoms are known, bit k of `truth` (unsigned) set where span k holds;
 * clipped to the key count; "" for others. */
char *mask_emit_row_keys_known(fg_arena *a, const fg_mask *m, fg_mask_print_fn print, void *ctx);
/* Whether such a mask is its span atoms ANDed with the rest, none of them
 * !=: where each span's key side is nondecreasing in the key, the keys on
 * which it holds for one row are one interval, and so are the row's. */
bool mask_rows_sorted(const fg_mask *m);
/* For such a mask: the body of plan_span_keys_sorted(k, v, h, p, lo, hi),
 * span k's interval of keys for a row of side v from binary searches
 * (plan_span_search); "" for others. */
char *mask_emit_span_keys_sorted(fg_arena *a, const fg_mask *m);
/* The same with the walk over the rows starting at `first` (C text) and
 * stepping by `step` (a GPU warp's lanes share the rows); *walks (may be
 * NULL) says whether the code walks the rows at all. */
char *mask_emit_key_range_strided(fg_arena *a, const fg_mask *m, fg_mask_print_fn print,
                                  void *ctx, const char *first, int step, bool *walks);
/* An atom in plan syntax over the axis names: "n - m + M - N <= 0". */
char *mask_atom_to_string(fg_arena *a, const fg_plan *p, const fg_mask *m,
                          const fg_mask_atom *at);
/* When a tile rows [r0, r1) x keys [c0, c1) is skipped and when it needs
 * no mask code, in plan syntax (--dump=fused). */
char *mask_describe_tiles(fg_arena *a, const fg_plan *p, const fg_mask *m);

/* ------------------------------------------------------------------ */
/* fuse.c: the fused schedule                                          */
/* ------------------------------------------------------------------ */

typedef enum fg_role {
    ROLE_INPUT,    /* an input tensor */
    ROLE_PROLOGUE, /* does not depend on the reduced axis nor on running values */
    ROLE_TILE,     /* carries the reduced axis: evaluated per tile element */
    ROLE_RUNNING,  /* a reduction over the reduced axis: running state */
    ROLE_EPILOGUE  /* after the loop: reads final running values */
} fg_role;
extern const char *const fg_role_names[5];

typedef struct fg_running {
    int tensor;          /* the REDUCTION/CONTRACTION statement */
    fg_reduce_op op;
    fg_expr *body_inlined; /* body with tile statements inlined */
    fg_correction corr;
    double identity;     /* 0 for sum, -inf for max, +inf for min */
} fg_running;

typedef struct fg_fused {
    const fg_plan *plan;
    int axis;        /* the reduced axis */
    fg_form form;
    uint32_t row_axes; /* axes of the running state that stay fixed per row */
    fg_role *role;   /* per tensor */
    int ntile;
    int *tile;       /* ROLE_TILE statements, in order */
    int nrunning;
    fg_running *running; /* in order: producers before consumers */
    int nepilogue;
    int *epilogue;   /* ROLE_EPILOGUE statements, in order */
    int nprologue;
    int *prologue;
    fg_mask mask;
    /* Additions of fuse.c.  An epilogue statement that carries the reduced
     * axis (softmax's Y = E / L) is evaluated in a second pass over the
     * tiles, with the final running values and the tile statements it reads
     * recomputed from them.  mask_skippable: at an element where every
     * masking where is -inf, each running body adds exactly its identity,
     * so key tiles that mask_classify calls TILE_SKIP may be skipped. */
    bool mask_skippable;
} fg_fused;

int fuse_plan(fg_arena *a, const fg_plan *p, fg_diag *d, fg_fused **out);
void dump_fused(FILE *f, const fg_fused *fz);

/* ------------------------------------------------------------------ */
/* interp.c: the naive reference, double precision                     */
/* ------------------------------------------------------------------ */

typedef struct fg_interp_binding {
    long *dims;        /* per plan dim (a per-sequence dim: its full extent) */
    long **lens;       /* per plan dim: for a per-sequence dim N[b], its extent
                          per index of b (each 0..dims[N]), or NULL (every index
                          has the full extent); NULL: none given */
    double *params;    /* per scalar param (NAN = use default) */
    double **param_vectors; /* per param NAME[AXIS]: values over AXIS, or NULL
                               (then its default at each index); may be NULL */
    double **inputs;   /* per tensor (inputs only): dense, row-major over the
                          stored extents, in declared index order */
    double **outputs;  /* per tensor (outputs only): dense over its axes;
                          allocated by the caller (interp_tensor_size) */
} fg_interp_binding;

/* Elements of tensor `tensor` at these dims: inputs over their stored
 * extents, statements over their axes.  0 for a tensor index out of range,
 * SIZE_MAX when a dim is negative or the count overflows. */
size_t interp_tensor_size(const fg_plan *p, int tensor, const long *dims);
/* Evaluates a checked plan and writes its outputs (the masked-row rules of
 * docs/plan-language.md apply).  Returns 0, or -1 after reporting through d
 * (missing data, an index outside a stored extent, intermediates over
 * 2 GiB). */
int interp_run(const fg_plan *p, const fg_interp_binding *b, fg_diag *d);

/* ------------------------------------------------------------------ */
/* rules.c: the masked-row rules (docs/plan-language.md)               */
/* ------------------------------------------------------------------ */

/* A float division x / y whose y reads only reductions: 0 when y is 0. */
bool rule_masked_div(const fg_plan *p, const fg_expr *div);
/* A max or min reduction: reads as 0 where it saw only -inf (+inf). */
bool rule_masked_minmax(const fg_ir_tensor *t);
/* Of the running values in prod, a masked max or min (its body holds a
 * where with an infinite branch) that factor reads other than inside an
 * exponential: a ratio of it cannot rescale a sum (algebra.c refuses it);
 * -1 if none. */
int rule_masked_ratio(const fg_plan *p, uint64_t prod, const fg_expr *factor);

/* ------------------------------------------------------------------ */
/* kernel.c: the kernel model, the one thing backends read             */
/* ------------------------------------------------------------------ */

typedef enum fg_family { FAMILY_ATTENTION, FAMILY_ROWREDUCE } fg_family;
extern const char *const fg_family_names[2]; /* "attention", "rowreduce" */

/* The resolved schedule: the plan's, with defaults filled in (later: from
 * wisdom).  Nothing downstream reads p->sched again. */
typedef struct fg_ksched {
    fg_form form;
    int reduced_axis;   /* the fused (key) axis */
    int row_axis;       /* the row axis tiled by tile_rows, or -1 */
    uint32_t outer;     /* row axes looped outside the row tiles */
    int tile_rows, tile_keys;
    int warps, stages;  /* 4 and 1 when the plan gives none */
    int splits;         /* the plan's splits = N; 0 = auto */
    unsigned targets;   /* TARGET_* the plan names (all when it names none) */
} fg_ksched;

/* A running value: its reducer, identity and derived correction. */
typedef struct fg_kvalue {
    int tensor;
    fg_reduce_op op;
    double identity;
    const fg_correction *corr; /* as fuse.c derived it (kind, factor, why) */
    const char *role;          /* attention: "max", "sum", "contraction" */
} fg_kvalue;

/* A constant hoisted out of the per-element code: host (dims and scalar
 * params, computed once per launch) or per head (reads the head axis or a
 * per-head param vector, computed once per CTA). */
typedef struct fg_kconst {
    fg_expr *e;      /* in plan terms */
    const char *why; /* plan syntax, for comments */
    bool per_head;
} fg_kconst;

#define FG_MAX_KCONSTS 16
#define FG_MAX_AUX 8 /* extra inputs the attention score, mask and weight may read */
#define FG_MAX_ROW_OUTS 8 /* values per row the attention kernels write beside O */
#define FG_MAX_CHAINS 4 /* independent softmax chains of one attention plan */

/* One of a plan's independent softmax chains (tensor indices): its Q, K and
 * V, its running max, sum and P.V contraction, and its coefficient in O. */
typedef struct fg_kchain {
    int q, k, v, mx, l, osum;
    fg_expr *coef; /* O = sum over chains of coef * O_sum / L: scalars only */
} fg_kchain;

/* The roles the attention family binds (tensor, axis and dim indices). */
typedef struct fg_kattn {
    int q, k, v, s, mx, l, osum, o, t; /* s = Q.K^T, t = the masked score */
    /* softmax: the chain Mx, L, O_sum = sum(n: exp(T - Mx) * V), O = O_sum / L;
     * else one contraction O = sum(n: W * V) (sigmoid attention), mx and
     * l -1, no value per row, and W = weight(T) with an E_ACC leaf for T,
     * 0 where T is -inf (a masked key adds nothing, so its tiles may be
     * skipped); W may also read what the score may (extra inputs at the
     * row and key: a per-key gate; per-head params). */
    bool softmax;
    fg_expr *weight;
    /* base2: the chain is written in base 2 (exp2(T - Mx), corrections
     * exp2(Mx_prev - Mx)), the kernels' own domain: no log2(e) factors.
     * rows: the values per row written beside O, each at tensor row_t[i]
     * (LSE = Mx + log(L), the max or the sum as outputs, any function of
     * them), row_e[i] reading Mx and L only. */
    bool base2;
    int nrows;
    int row_t[FG_MAX_ROW_OUTS];
    const fg_expr *row_e[FG_MAX_ROW_OUTS];
    int ax_b, ax_h, ax_m, ax_n, ax_d;
    int dim_b, dim_h, dim_hkv, dim_m, dim_n, dim_d;
    const fg_expr *kv_head; /* K's head index: AXIS h, or h / G */
    bool grouped;
    const fg_expr *tval;    /* T with the tile statements inlined */
    const fg_expr *score;   /* the value T selects (tval without the where) */
    const fg_expr *cond;    /* the where's condition, or NULL */
    bool affine_score;      /* the score calls no function */
    bool mask_tiles;        /* tiles are classified by the mask (rows m, keys n) */
    bool mask_skip;         /* ... and fully masked ones skipped */
    /* The score in the exp2 domain (times log2(e)), constant factors
     * hoisted into E_KCONST leaves; fold: it is fold_inner (qk alone, or
     * the product of the score's varying factors, as cap * tanh(S / cap)
     * has tanh(qk * k)) times consts[fold_const] (> 0, checked on the
     * host), so the row max may be taken on fold_inner and the constant
     * folded into the exp2 argument's FFMA. */
    fg_expr *score_l2;
    bool fold;
    int fold_const;
    fg_expr *fold_inner;      /* exp2 domain's varying part, constants hoisted */
    const fg_expr *fold_expr; /* the plan expression of the fold's constant
                               * factors, NULL when there are none (log2(e)) */
    /* fold_bound: |fold_inner| <= fold_bound everywhere (tanh's 1, a product
     * of bounded factors), 0 when no bound is known.  With it the exp2
     * argument is bounded by fold_bound times the fold's constant, and the
     * sm_90a kernel may take a fixed offset for the running max. */
    double fold_bound;
    /* tile_fold: the score is qk times consts[tile_fold_const] plus a term
     * score_bias_l2 (exp2 domain) free of qk; on a tile where that term is
     * one value (a table read at a clamped distance past its last entry)
     * the kernels take the fold's path with it as an offset. */
    bool tile_fold;
    int tile_fold_const;
    fg_expr *score_bias_l2;
    /* tile_diag (with tile_fold): that term reads the row and the key only
     * through their difference, so a thread of the sm_90a kernel, whose
     * elements lie on 2 (BN / 8 + 1) diagonals of a tile, evaluates it once
     * a diagonal where the tile is not one value. */
    bool tile_diag;
    /* keylin: the score is qk times keylin_qk plus keylin_slope times
     * keylin_int, an integer expression that reads no input and changes by
     * keylin_step per key (ALiBi's slope * (n - (m + N - M))); both E_KCONST
     * leaves (exp2 domain), keylin_slope negated for a subtracted term.
     * Over a tile, a thread's keys then take fmaf(slope, step k, base) from
     * one base per tile, the same values for all of its rows (each row's own
     * offset is constant along the row, and the softmax does not see it:
     * the sm_90a kernel adds it to the row's max once, at the end).
     * keylin_qk_expr: the plan expression of qk's factor, without log2(e)
     * (NULL for qk alone); the kernels take the row max before multiplying
     * by it, so the host checks that it is > 0. */
    bool keylin;
    fg_expr *keylin_qk;
    const fg_expr *keylin_qk_expr;
    bool keylin_qk_div; /* qk / keylin_qk_expr */
    fg_expr *keylin_slope;
    const fg_expr *keylin_int;
    int keylin_step;
    int nscore_chain;
    int *score_chain;       /* the tile statements the score comes from */
    /* Inputs other than Q, K and V that the score, the mask or the weight
     * (without a softmax chain) reads (a bias table, document ids, a
     * per-key vector or gate), at any indices over the batch, head, row and
     * key axes; bound from their shapes on the host. */
    int naux;
    int aux[FG_MAX_AUX];
    /* Independent chains (differential attention: two softmaxes over their
     * own Q.K^T, one O): the kernels run once per chain, each with the
     * chain's Q, K and V, the same hooks (the chains' scores and masks are
     * one up to their tensors), and O = sum of coef * O_sum / L built up in
     * the output by the epilogues.  nchains 1: the plan's one chain. */
    int nchains;
    fg_kchain chain[FG_MAX_CHAINS];
} fg_kattn;

/* The roles the rowreduce family binds: each row of the running state (one
 * index of the row axes) is one independent row of the GPU kernels, walked
 * along the fused axis in chunks; outputs along the fused axis are written
 * by a second walk with the final running values.  Tensor indices. */
#define FG_KROWS_MAX 8
typedef struct fg_krows {
    uint32_t row_axes;               /* the running state's axes, rows in plan order */
    int nrow_axes, row_axis[FG_MAX_AXES];
    int nin_c, in_c[FG_KROWS_MAX];   /* inputs along the fused axis, read per element */
    int nin_row, in_row[FG_KROWS_MAX]; /* inputs without it, read once per row */
    int nout_c, out_c[FG_KROWS_MAX]; /* outputs along the fused axis (the second walk) */
    int nout_row, out_row[FG_KROWS_MAX]; /* outputs per row: running or epilogue */
    int npro, pro[FG_KROWS_MAX];     /* row statements before the walk (prologue) */
    int nfin, fin[FG_KROWS_MAX];     /* row statements after it (epilogue), in order */
    /* Per running value (fg_kernel.values order): its body; per out_c: its
     * value; each with every per-element statement inlined, so they read
     * inputs, axes, dims, params, running values and row statements only. */
    fg_expr **body;
    fg_expr **out_value;
} fg_krows;

struct fg_cuda_config;

typedef struct fg_kernel {
    const fg_fused *fz;
    const fg_plan *plan;
    fg_family family;
    fg_ksched sched;
    int nvalues;
    fg_kvalue *values;      /* the running state, producers first */
    /* The mask (masks.c): its structure, and how the tiles may use it. */
    const fg_mask *mask;
    bool mask_rows_keys;    /* the mask is over the row tile (or an outer row) and the key axis */
    bool mask_skip;         /* ... and fully masked key tiles may be skipped */
    /* Facts: params that divide somewhere (must be > 0 at run time). */
    bool *divides;          /* per param */
    int nvectors;           /* params with one value per index (param slope[h]) */
    int nconsts;
    fg_kconst consts[FG_MAX_KCONSTS];
    /* The attention family's binding; attn_ok says whether the GPU
     * attention kernels can compute the plan, else why (and where). */
    bool attn_ok;
    fg_loc attn_why_loc;
    const char *attn_why;
    fg_kattn attn;
    /* The rowreduce family's binding; rows_ok says whether the GPU row
     * kernels can compute the plan, else why (and where). */
    bool rows_ok;
    fg_loc rows_why_loc;
    const char *rows_why;
    fg_krows rows;
    /* The compiled variants (variants.c) the plan's GPU kernels can take,
     * in dispatch order; each launch takes the first whose rule holds. */
    int nconfigs;
    const struct fg_cuda_config **configs;
    /* Tuning (tune.c): the candidates of the plan's tune block, and the
     * wisdom rows that pick among them per device and shape bucket. */
    const struct fg_ktune *tune;
} fg_kernel;

/* Builds the kernel model of a fused plan; a plan whose schedule the
 * backends cannot place gets a located error (-1). */
int kernel_build(fg_arena *a, const fg_fused *fz, fg_diag *d, fg_kernel **out);
void dump_kernel(FILE *f, const fg_kernel *k);
/* kernel_sched.c: the facts and the schedule kernel_build resolves. */
bool kernel_divides_by(const fg_plan *p, int param);
void kernel_resolve_schedule(fg_kernel *k);
int kernel_check_placement(fg_kernel *k, fg_diag *d);
void kernel_resolve_configs(fg_kernel *k, fg_arena *a);
/* kernel_rows.c: binds the rowreduce roles (k->rows, rows_ok, rows_why). */
void kernel_bind_rows(fg_arena *a, fg_kernel *k);
/* e with every elementwise tile statement inlined (running values and
 * contractions stay references); NULL when nested too deeply. */
fg_expr *kernel_inline_tiles(fg_arena *a, const fg_fused *fz, const fg_expr *e);

/* ------------------------------------------------------------------ */
/* print.c: expressions as C, CUDA and HIP                             */
/* ------------------------------------------------------------------ */

/* C for the CPU kernels, CUDA and HIP device code, host C++ of the GPU
 * entry points (parameter defaults, hoisted constants). */
typedef enum fg_dialect_id {
    DIALECT_C,
    DIALECT_CUDA,
    DIALECT_HIP,
    DIALECT_HOST,
    DIALECT_COUNT
} fg_dialect_id;

typedef struct fg_dialect {
    const char *name;
    const char *fn[F_COUNT];                 /* float math functions */
    const char *int_abs, *int_min, *int_max; /* the int forms */
    const char *float_suffix;                /* "f" for float literals */
    const char *to_float;                    /* an int argument of a float function */
    const char *div0;                        /* the masked-row division, or NULL */
    const char *square;                      /* x ^ 2 as square(x), or NULL (pow) */
} fg_dialect;
extern const fg_dialect fg_dialects[DIALECT_COUNT];

typedef struct fg_printer fg_printer;
struct fg_printer {
    fg_arena *a;
    const fg_plan *p;
    const fg_dialect *dl;
    /* prints the leaves: E_DIM, E_AXIS, E_PARAM, E_TENSOR, E_PREV, E_ACC,
     * E_KCONST */
    void (*leaf)(fg_printer *pr, fg_strbuf *b, const fg_expr *e);
    void *ctx;
    const char *where_full; /* where(c, x, -inf) prints (FULL || c): the C tiles */
    bool masked_div;        /* divisions under the masked-row rule use dl->div0 */
    int errors;             /* unprintable nodes met (an internal error) */
};
int code_prec(fg_expr_kind k);
void code_expr(fg_printer *pr, fg_strbuf *b, const fg_expr *e, int prec);
char *code_expr_text(fg_printer *pr, const fg_expr *e);
void print_float(fg_strbuf *b, double v, const char *suffix);

/* ------------------------------------------------------------------ */
/* back/: backends, definitions, emission                              */
/* ------------------------------------------------------------------ */

typedef struct fg_emit_options {
    const char *outdir;
    const char *templates_dir;
    const char *m4;          /* the m4 program ("m4") */
    const char *command_line; /* recorded in the header of every file */
    unsigned targets;        /* TARGET_* bits */
    const char *version;     /* the generator's version, named in every kernel file */
} fg_emit_options;

/* The m4 interface (emit.c).  C computes every value; the templates only
 * select and format.  Every value goes through m4_escape ('@' -> "@@",
 * '[' -> "@{", ']' -> "@}", '$' -> "@D", "fg_" -> "fg@&_", "m4_" ->
 * "m4@&_"), so no text
 * can close a quote ([[[ ]]]) or name a macro; emit decodes the output
 * after m4.  templates/README.md lists every definition. */
typedef struct fg_defs fg_defs;
fg_defs *defs_create(fg_arena *a);
void fg_def_int(fg_defs *d, const char *name, long v);
void fg_def_str(fg_defs *d, const char *name, const char *text); /* newlines become spaces */
void fg_def_code(fg_defs *d, const char *name, const char *code); /* any text */
/* fg_NAME (0 or 1) and fg_NAME_if(THEN, ELSE), which stops m4 with an
 * error when the value is anything but 0 or 1. */
void fg_def_bool(fg_defs *d, const char *name, int v);
const char *defs_text(const fg_defs *d);
char *m4_escape(fg_arena *a, const char *text);

/* Run m4 -P over templates_dir/template_rel after the definitions, then
 * decode the escapes and check the output: a leftover fg_ or m4_ token that
 * is not a runtime API name or fg_<plan>[_args|_cpu] of a plan in `plans`
 * (NULL-terminated, may be NULL) is an error located in the output, named
 * out_name.  Returns 0 and the text in *out, or -1 after reporting. */
int emit_render(fg_arena *a, const fg_emit_options *o, const fg_defs *defs,
                const char *template_rel, const char *out_name,
                const char *const *plans, char **out, fg_diag *d);

/* Write dir/name only when its content differs (through a temporary file
 * in dir and a rename), so an unchanged file keeps its mtime. */
int emit_write_file(const char *dir, const char *name, const char *text, fg_diag *d);

/* The backends (backends.c): each reads the kernel model only. */
typedef struct fg_backend {
    const char *name;        /* "c", "cuda", "hip" */
    const char *title;       /* in messages: "C", "CUDA", "HIP" */
    unsigned target;         /* TARGET_* */
    const char *ext;         /* ".c", ".cu", ".hip" */
    const char *suffix;      /* per-plan kernel file NAME<suffix><ext>: "_cpu" */
    const char *sources_var; /* kernels.mk variable: "FG_CPU_KERNEL_FILES" */
    const char *templates;   /* a template whose presence says the backend has templates */
    /* 0 when the backend can serve the plan, else -1 with the reason and
     * its location (nothing reported); NULL: every plan. */
    int (*supported)(const fg_kernel *k, fg_loc *loc, const char **why);
    /* The definitions of the plan's kernel source and its template
     * (relative to the templates dir); NULL while it has no lowering. */
    int (*lower)(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                 fg_diag *d);
    /* The plan's part of the registry file: code, and its line of the list. */
    int (*registry_entry)(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                          fg_diag *d);
    const char *registry_template, *registry_file;
    bool registry_always; /* written even when no plan of the run has this backend */
} fg_backend;
#define FG_NBACKENDS 3
extern const fg_backend fg_backends[FG_NBACKENDS];

/* common.c: what every backend's files share */
/* Definitions of every per-plan file: names, hash, doc, the summary, the
 * argument struct (see templates/README.md). */
int lower_common(fg_arena *a, const fg_kernel *k, fg_defs *defs, fg_diag *d);
/* The generic wrapper `fn` of an entry point (with a stream argument when
 * `stream`, the tag of the stream's struct): it takes the registry's
 * arrays and calls `entry`. */
char *registry_wrapper(fg_arena *a, const fg_plan *p, const char *fn, const char *entry,
                       const char *stream);
char *comment_safe(fg_arena *a, const char *s); /* no comment terminator inside */
char *c_string(fg_arena *a, const char *s);     /* the body of a C string literal */
void strbuf_indented(fg_strbuf *b, const char *text, int ind);
char *text_indented(fg_arena *a, const char *text, int ind);
int plan_position_dim(const fg_plan *p, const fg_ir_tensor *t, int k); /* dim at position k */
int plan_tensor_rank(const fg_ir_tensor *t);
/* An output after the first, which the entries take with NULL data (not computed). */
bool plan_output_optional(const fg_plan *p, int ti);

/* lower_c.c: the C backend (templates/c/) */
int lower_c(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
            fg_diag *d);
int lower_c_registry_entry(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                           fg_diag *d);

/* back/cuda/lower_cuda.c: the CUDA backend (templates/cuda/), attention */
int lower_cuda_supported(const fg_kernel *k, fg_loc *loc, const char **why);
int lower_cuda(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
               fg_diag *d);
int lower_cuda_registry_entry(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                              fg_diag *d);
/* The definitions both GPU backends share (lower_cuda.c): the plan hooks
 * of the attention skeletons and the host entry's dims and params, in the
 * device dialect given, plan_key_range walked by `wave` lanes together;
 * *ring_floats (where not NULL): the floats a key of the sm_90a kernel's
 * ring of key values, 0 without one (config_smem). */
int gpu_attention_defs(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char *entry,
                       fg_dialect_id dialect, int wave, int *ring_floats, fg_diag *d);

/* back/hip/lower_hip.c: the HIP backend (templates/hip/): attention and the row kernels on CDNA */
int lower_hip(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
              fg_diag *d);
int lower_hip_registry_entry(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                             fg_diag *d);

/* back/cuda/lower_rows.c: the rowreduce family of the CUDA backend
 * (templates/cuda/rowreduce.m4) and of the HIP backend (hip/rowreduce.m4),
 * one lowering in two dialects */
int lower_cuda_rows(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                    fg_diag *d);
int lower_hip_rows(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
                   fg_diag *d);
/* back/c/lower_c.c: the CPU entry's argument checks for another entry point
 * (named `entry`), the C names of the args fields (per tensor), and of the
 * locals the checks bind every dim and scalar param to. */
char *lower_c_validation(fg_arena *a, const fg_kernel *k, const char *entry, fg_diag *d,
                         const char *const **tnames, const char *const **dnames,
                         const char *const **pnames);

/* middle/variants.c, back/cuda/configs.c: the compiled tile configurations of the CUDA kernels,
 * one row per variant, with the rule that selects it as data.  For one
 * launch, the rows of the family and head dim are tried in table order;
 * the first whose rule holds is taken.  A rule holds when it has no
 * alternative (nwhen 0) or when one of its alternatives holds; an
 * alternative holds when each of its set fields does. */
enum { CUDA_CFG_BF16 = 1, CUDA_CFG_FP16 = 2 }; /* dtype bits */
typedef enum fg_cuda_family { CUDA_FAMILY_ROLLING, CUDA_FAMILY_SPLIT } fg_cuda_family;
/* A row's condition on the plan's mask: CUDA_SPANS, masked with span atoms
 * (ids compared: a document mask).  The plan's fact is an int: 0 unmasked,
 * 1 masked, 2 masked with span atoms (config_masking). */
typedef enum fg_cuda_masking { CUDA_ANY_MASK, CUDA_MASKED, CUDA_UNMASKED, CUDA_SPANS } fg_cuda_masking;
typedef struct fg_cuda_when {
    bool affine;            /* the score is affine in Q.K (calls no function) */
    fg_cuda_masking masked; /* the plan's mask (lower_cuda's `mask`: masks.c classifies it) */
    long min_rows;          /* query rows per head M (decode: QL) >= this; 0: any */
    long min_keys;          /* keys N >= this; 0: any */
    long min_packed;        /* packed rows per kv head (Hq/Hkv * M) >= this; 0: any */
    long max_packed;        /* packed rows <= this; 0: any */
} fg_cuda_when;
typedef struct fg_cuda_config {
    fg_cuda_family family;
    const char *arch;  /* the skeleton family: "sm80", "sm90" (templates/cuda/ARCH/), "cdna" (templates/hip/cdna/) */
    const char *name;  /* the C++ alias: using NAME = fa_cfg<...> / fd_cfg<...> */
    int d;             /* head dim */
    int bm, bn;        /* rolling: query rows per CTA, keys per tile */
    int mt, bnw, minb; /* split: m16 row tiles, keys per warp tile, CTAs per SM hint */
    int warps, stages;
    bool qreg;         /* Q fragments kept in registers (sm80) */
    bool pingpong;     /* sm90: the consumer warpgroups take turns on the tensor cores */
    unsigned dtypes;   /* CUDA_CFG_* bits it serves */
    int nwhen;
    fg_cuda_when when[2];
    const char *note;   /* what the variant is */
    const char *origin; /* where its numbers and its rule come from */
} fg_cuda_config;
extern const fg_cuda_config fg_cuda_configs[];
extern const int fg_cuda_nconfigs;
/* The row a launch takes in the sm80 family (NULL: none): dtype bf16 or
 * fp16, head dim d, query rows m, keys n, query heads per kv head group;
 * affine_score and masked are the plan's facts. */
const fg_cuda_config *cuda_config_select(fg_cuda_family family, bool affine_score, int masked,
                                         bool bf16, int d, long m, long n, long group);
/* Whether variant k belongs to the family of the skeletons this generator
 * has; whether an alternative's plan facts hold; the alternatives of k the
 * plan admits: -1 none (never taken), 1 one holds on every shape, 0 shape
 * conditions decide (variants.c). */
bool config_in_family(const fg_cuda_config *k, fg_cuda_family family);
bool config_in_arch(const fg_cuda_config *k, fg_cuda_family family, const char *arch);
bool config_when_fits_plan(const fg_cuda_when *w, bool affine_score, int masked);
int config_admits(const fg_cuda_config *k, bool affine_score, int masked);
/* The plan's mask as the rows' conditions see it: 0 unmasked, 1 masked, 2
 * masked with span atoms that the kernels classify tiles by. */
int config_masking(const fg_kernel *k);
/* Shared memory of one CTA of variant k, 16-bit elements, as the kernels'
 * smem_bytes(), for a plan whose mask has nspans span atoms (config_nspans)
 * and whose weight has ring_floats floats a key in the sm_90a kernel's ring
 * of key values (0: none; gpu_attention_defs). */
long config_smem(const fg_cuda_config *k, int nspans, int ring_floats);
/* The span atoms the GPU kernels classify tiles by (0 where they do not). */
int config_nspans(const fg_kernel *k);
/* The head dims of the family's rows of arch that the plan's facts admit,
 * ascending, into ds[0..max); their number. */
int config_dims(fg_cuda_family family, const char *arch, bool affine_score, int masked, int *ds,
                int max);
/* The definitions of the plan's configurations: cuda_configs (the using
 * lines), cuda_config_summary, cuda_dispatch (the body of plan_dispatch_t:
 * the rules as code), cuda_head_dims and cuda_head_dim_unsupported. */
void cuda_config_defs(fg_arena *a, fg_defs *defs, const fg_kernel *k, bool split,
                      bool affine_score, int masked, int ring_floats);
/* The same from the rows of one skeleton family: "sm80" (with the sm90
 * rows of a rolling plan, as cuda_config_defs) or "cdna" (the HIP backend). */
void gpu_config_defs(fg_arena *a, fg_defs *defs, const fg_kernel *k, const char *arch, bool split,
                     bool affine_score, int masked, int ring_floats);
/* back/cuda/tuned.c: the tuned dispatch (docs/tuning.md): cuda_tuned,
 * cuda_tuned_configs and cuda_tuned_code; the tuned cases at the head of
 * the sm_90a block of compiled head dim d (rows: the query rows of the
 * kernel arguments); the tuned split count of the split form. */
void cuda_tuned_defs(fg_arena *a, fg_defs *defs, const fg_kernel *k, bool split);
char *cuda_tuned_cases(fg_arena *a, const fg_kernel *k, int d, const char *rows);
char *cuda_tuned_splits(fg_arena *a, const fg_kernel *k);

/* ------------------------------------------------------------------ */
/* middle/tune.c, middle/wisdom.c: ahead-of-time tuning (docs/tuning.md) */
/* ------------------------------------------------------------------ */

/* A wisdom file (docs/tuning.md): the header, then one row per (plan,
 * dtype, head dim, shape bucket) with the winner of fusegen-tune.  A
 * bucket is (ceil(log2 keys), ceil(log2 (batch x query heads x rows))). */
typedef struct fg_wisdom_row {
    fg_loc loc;
    const char *plan, *hash; /* the plan's name and source hash */
    unsigned dtype;          /* CUDA_CFG_BF16 or CUDA_CFG_FP16 */
    int d;                   /* the compiled head dim */
    int keys, work;          /* the bucket */
    const char *variant;     /* a candidate (tune_space) or "splits=N" */
    double ms;               /* its median time */
    const char *runner;      /* the runner-up ("-": none) */
    double runner_ms, spread; /* the runner-up's median; the winner's (max-min)/median */
} fg_wisdom_row;
typedef struct fg_wisdom {
    const char *path;
    const fg_source *src; /* the file's text: warnings about its rows are located in it */
    int version;
    const char *fusegen, *templates, *nvcc, *driver, *device, *date;
    fg_loc templates_loc;
    int cc_major, cc_minor, sms;
    long memclock_khz;
    int nrows;
    fg_wisdom_row *rows;
} fg_wisdom;
#define FG_WISDOM_VERSION 1
/* Parses a wisdom file's text; each fault is "NAME:LINE:COL: error: ..."
 * through d and the result is -1 (nothing of the file may be used). */
int wisdom_parse(fg_arena *a, const fg_source *src, fg_diag *d, fg_wisdom **out);
/* back/emit.c: FNV-1a over the templates the attention kernels' device
 * code comes from (templates/cuda/sm80/ and cuda/sm90/, the kernels and
 * their launchers; cuda/attention.m4 and cuda/prelude.m4 around them;
 * gpu/hooks.m4, chains.m4 and validate.m4, the hooks printed into them),
 * as the templates hash of generated files is over all templates: a
 * wisdom file names it, and rows tuned on other templates are stale.  The
 * generator's lowering (lower_cuda.c) is not covered. */
const char *tune_templates_hash(fg_arena *a, const char *templates_dir);

/* What tuning gives one plan's kernel. */
typedef struct fg_ktune {
    bool tuning;              /* fusegen --tuning: every candidate compiled and forceable */
    int ncands;
    struct fg_cuda_config *cands; /* the sm_90a rolling candidates (tune_space) */
    int nwisdom;              /* wisdom files with rows for this plan, and their rows */
    const fg_wisdom **wisdom;
    int *nrows;               /* per file: its usable rows for the plan */
    const fg_wisdom_row ***rows;
} fg_ktune;
/* The sm_90a rolling candidates of k's tune block (empty for the split
 * form: its knob is the run-time split count); dims (ndims > 0) restricts
 * the head dims. */
int tune_space(fg_arena *a, const fg_kernel *k, const int *dims, int ndims,
               struct fg_cuda_config **out);
/* The candidate of k named `name`, or NULL. */
const struct fg_cuda_config *tune_find(const fg_ktune *t, const char *name);
/* Attaches tuning to k: the candidates, and the rows of `wisdom` (nw
 * files) that are for this plan, current and usable; a row that is not
 * (another plan source, an unknown candidate) is a warning through d. */
int tune_attach(fg_arena *a, fg_kernel *k, bool tuning, const int *dims, int ndims,
                const fg_wisdom *const *wisdom, int nw, fg_diag *d);

/* A run: every plan of one fusegen invocation.  Files are rendered into
 * memory and written by emit_run_finish, only if no plan of the run
 * failed (emit_run_plan returned -1 or emit_run_mark_failed was called):
 * a run that fails writes nothing.  Per plan NAME: fusegen_NAME.h and one
 * kernel source per backend; per run: fusegen_plans.h, fusegen_plans.c
 * and kernels.mk.  With o->command_line NULL, the recorded command is the
 * canonical "fusegen [--target=...] -o generated plans/FILE.fp ...". */
typedef struct fg_emit_run fg_emit_run;
int emit_run_begin(const fg_emit_options *o, fg_emit_run **out, fg_diag *d);
int emit_run_plan(fg_emit_run *r, const fg_kernel *k, fg_diag *d);
void emit_run_mark_failed(fg_emit_run *r);
int emit_run_finish(fg_emit_run *r, fg_diag *d); /* writes, and frees r */
void emit_run_free(fg_emit_run *r);              /* frees r, writes nothing */
/* --check: what a run would report for plan k (a backend asked for that
 * cannot serve it: a located warning, or an error when --target named it
 * or the plan's targets leave it out) and the lowering of every backend
 * that serves it, rendering and writing nothing.  0, or -1 after errors. */
int emit_check_plan(const fg_emit_options *o, const fg_kernel *k, fg_diag *d);

#endif /* FUSEGEN_GENERATOR_H */
