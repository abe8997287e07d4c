/* parse_internal.h - what parse.c (tokens, items, the driver) and
 * parse_expr.c (the expression grammar) share. */
#ifndef FG_PARSE_INTERNAL_H
#define FG_PARSE_INTERNAL_H

#include "generator.h"

#define LOOKAHEAD 8

typedef struct pending_output {
    const char *name;
    fg_loc loc;
    fg_ir_dtype dtype;
} pending_output;

typedef struct parser {
    fg_arena *a;
    fg_diag *d;
    fg_lexer lx;
    fg_token buf[LOOKAHEAD]; /* tokens read ahead */
    int nbuf;
    int nest;  /* > 0 inside brackets of an expression: newlines are blanks */
    int depth; /* expression nesting, against FG_MAX_EXPR_DEPTH */
    int bad_line; /* a lexical error was reported on this line */
    fg_plan *plan;
    bool have_doc;
    fg_vec dims, axes, params, tensors, outputs;
    /* schedule settings seen, for duplicate checks */
    bool seen_reduce, seen_warps, seen_stages, seen_splits, seen_tune, seen_target;
    fg_vec tiles, knobs;
} parser;

/* Tokens (parse.c): the k-th token ahead (k < 3; inside brackets newlines
 * are skipped), the next one, whether it is of kind k (and take it), an
 * error naming what was expected (-1), its text. */
const fg_token *parse_peek_at(parser *p, int k);
const fg_token *parse_peek(parser *p);
bool parse_at(parser *p, fg_tok_kind k);
fg_token parse_next(parser *p);
bool parse_accept(parser *p, fg_tok_kind k);
int parse_expected(parser *p, const char *what);
int parse_expect(parser *p, fg_tok_kind k, const char *context);
const char *parse_tok_str(parser *p, const fg_token *t);
bool parse_tok_is(const fg_token *t, const char *word);

/* Expressions (parse_expr.c): one expression, NULL after a reported error;
 * a bracketed argument list up to `close` into args (-1 on error). */
fg_expr *parse_expr(parser *p);
int parse_arg_list(parser *p, fg_tok_kind close, fg_vec *args, const char *what);

#endif
