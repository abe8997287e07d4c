/* parse.c - the plan language (docs/plan-language.md) into fg_plan.
 *
 * A recursive-descent parser over the streaming lexer, one item per line.
 * On a syntax error it reports, skips to the next end of line outside
 * brackets, and goes on, so one run reports several errors.  Expression
 * nesting is counted at every recursive production and capped at
 * FG_MAX_EXPR_DEPTH, so no input can overflow the stack.
 *
 * Locations: an item's names carry their own locations; a binary or unary
 * node is located at its operator, a call or reduction at its name. */
#include "parse_internal.h"

#include <limits.h>
#include <string.h>


/* ---- tokens ---------------------------------------------------------- */

static void fill(parser *p)
{
    fg_token *t = &p->buf[p->nbuf++];
    if (lex_next(&p->lx, t) < 0)
        p->bad_line = t->loc.line;
}

static void drop(parser *p, int i)
{
    memmove(&p->buf[i], &p->buf[i + 1], sizeof(fg_token) * (size_t)(p->nbuf - i - 1));
    p->nbuf--;
}

/* The k-th token ahead (k < 3); inside brackets newlines are skipped. */
const fg_token *parse_peek_at(parser *p, int k)
{
    int i = 0, seen = 0;
    for (;;) {
        if (i == p->nbuf)
            fill(p);
        if (p->nest > 0 && p->buf[i].kind == TK_NEWLINE) {
            drop(p, i);
            continue;
        }
        if (seen == k || p->buf[i].kind == TK_EOF)
            return &p->buf[i];
        seen++;
        i++;
    }
}

const fg_token *parse_peek(parser *p)
{
    return parse_peek_at(p, 0);
}

bool parse_at(parser *p, fg_tok_kind k)
{
    return parse_peek(p)->kind == k;
}

fg_token parse_next(parser *p)
{
    fg_token t = *parse_peek(p);
    if (t.kind != TK_EOF)
        drop(p, 0);
    return t;
}

bool parse_accept(parser *p, fg_tok_kind k)
{
    if (!parse_at(p, k))
        return false;
    parse_next(p);
    return true;
}

/* "identifier 'x'", "number '12'", "'='", "end of line", ... */
static const char *describe(parser *p, const fg_token *t)
{
    switch (t->kind) {
    case TK_IDENT:
    case TK_NUMBER:
        return arena_printf(p->a, "%s '%.*s'", fg_tok_names[t->kind], (int)t->len, t->text);
    default:
        return fg_tok_names[t->kind];
    }
}

/* Report "expected WHAT, found <next token>" at the next token, unless a
 * lexical error on that line already explains it. */
int parse_expected(parser *p, const char *what)
{
    const fg_token *t = parse_peek(p);
    if (t->loc.line != p->bad_line)
        diag_error(p->d, t->loc, "expected %s, found %s", what, describe(p, t));
    return -1;
}

int parse_expect(parser *p, fg_tok_kind k, const char *context)
{
    if (parse_accept(p, k))
        return 0;
    return parse_expected(p, arena_printf(p->a, "%s%s", fg_tok_names[k], context));
}

static int expect_ident(parser *p, const char *what, fg_token *out)
{
    memset(out, 0, sizeof *out);
    if (!parse_at(p, TK_IDENT))
        return parse_expected(p, what);
    *out = parse_next(p);
    return 0;
}

const char *parse_tok_str(parser *p, const fg_token *t)
{
    return arena_strndup(p->a, t->text, t->len);
}

bool parse_tok_is(const fg_token *t, const char *word)
{
    return t->kind == TK_IDENT && strlen(word) == t->len && memcmp(t->text, word, t->len) == 0;
}

/* Skip to the end of the current line: the next newline outside the
 * brackets still open at the error (or any newline followed by a token in
 * column 1, where items start, so an unclosed bracket cannot swallow the
 * rest of the file).  Inside a block, also stop before the '}' that closes
 * it. */
static void sync(parser *p, bool in_block)
{
    int depth = p->nest;
    p->nest = 0;
    p->depth = 0;
    for (;;) {
        const fg_token *t = parse_peek(p);
        switch (t->kind) {
        case TK_EOF:
            return;
        case TK_NEWLINE:
            if (depth <= 0 || parse_peek_at(p, 1)->loc.col == 1)
                return;
            break;
        case TK_LPAREN:
        case TK_LBRACKET:
        case TK_LBRACE:
            depth++;
            break;
        case TK_RBRACE:
            if (depth == 0 && in_block)
                return;
            depth--;
            break;
        case TK_RPAREN:
        case TK_RBRACKET:
            depth--;
            break;
        default:
            break;
        }
        parse_next(p);
    }
}

/* ---- items ----------------------------------------------------------- */

/* A tensor type (bf16, fp16, f32/fp32) or, for parameters, f32 or int. */
static int parse_type(parser *p, bool param, fg_ir_dtype *out)
{
    if (!parse_at(p, TK_IDENT))
        return parse_expected(p, param ? "a parameter type (f32 or int)" : "a type (bf16, fp16, f32 or i32)");
    fg_token t = parse_next(p);
    if (parse_tok_is(&t, "f32") || parse_tok_is(&t, "fp32")) {
        *out = DT_F32;
        return 0;
    }
    if (param && parse_tok_is(&t, "int")) {
        *out = DT_INT;
        return 0;
    }
    if (!param && (parse_tok_is(&t, "bf16") || parse_tok_is(&t, "fp16"))) {
        *out = parse_tok_is(&t, "bf16") ? DT_BF16 : DT_FP16;
        return 0;
    }
    if (!param && parse_tok_is(&t, "i32")) {
        *out = DT_INT; /* int32 ids and lengths: inputs only (check.c) */
        return 0;
    }
    if (param && (parse_tok_is(&t, "bf16") || parse_tok_is(&t, "fp16")))
        diag_error(p->d, t.loc, "parameter type must be f32 or int, found '%.*s'", (int)t.len, t.text);
    else if (!param && parse_tok_is(&t, "int"))
        diag_error(p->d, t.loc, "'int' is not a tensor type: expected bf16, fp16, f32 or i32");
    else
        diag_error(p->d, t.loc, "unknown type '%.*s': expected %s", (int)t.len, t.text,
                   param ? "f32 or int" : "bf16, fp16, f32 or i32");
    return -1;
}

static int parse_plan_item(parser *p)
{
    fg_token kw = parse_next(p);
    fg_token name;
    if (expect_ident(p, "the plan's name after 'plan'", &name) < 0)
        return -1;
    if (p->plan->name) {
        diag_error(p->d, kw.loc, "duplicate 'plan': this file already names plan '%s'",
                   p->plan->name);
        return -1;
    }
    p->plan->name = parse_tok_str(p, &name);
    p->plan->name_loc = name.loc;
    return 0;
}

static int parse_doc(parser *p)
{
    fg_token kw = parse_next(p);
    if (!parse_at(p, TK_STRING))
        return parse_expected(p, "a string after 'doc'");
    fg_token s = parse_next(p);
    if (p->have_doc) {
        diag_error(p->d, kw.loc, "duplicate 'doc': a plan has one description");
        return -1;
    }
    p->have_doc = true;
    p->plan->doc = s.str;
    return 0;
}

static int parse_dim(parser *p)
{
    parse_next(p);
    do {
        fg_token name;
        if (expect_ident(p, "a dim name", &name) < 0)
            return -1;
        fg_dim *dim = ARENA_NEW(p->a, fg_dim);
        dim->name = parse_tok_str(p, &name);
        dim->loc = name.loc;
        dim->index_axis = -1;
        if (parse_accept(p, TK_LBRACKET)) {
            /* dim N[b]: one extent per index of axis b */
            fg_token axis;
            if (expect_ident(p, "the axis that the dim varies with", &axis) < 0)
                return -1;
            if (parse_expect(p, TK_RBRACKET,
                       " (a per-sequence dim varies with one axis: NAME[AXIS])") < 0)
                return -1;
            dim->index_name = parse_tok_str(p, &axis);
            dim->index_loc = axis.loc;
        }
        vec_push(p->a, &p->dims, dim);
    } while (parse_accept(p, TK_COMMA));
    return 0;
}

static int parse_axis(parser *p)
{
    parse_next(p);
    do {
        fg_token name, dim;
        if (expect_ident(p, "an axis name", &name) < 0)
            return -1;
        if (parse_expect(p, TK_COLON, arena_printf(p->a, " after axis '%.*s' (axis NAME: DIM)",
                                             (int)name.len, name.text)) < 0)
            return -1;
        if (expect_ident(p, "the axis's dim", &dim) < 0)
            return -1;
        if (p->axes.len == FG_MAX_AXES) {
            diag_error(p->d, name.loc, "too many axes: at most %d are supported", FG_MAX_AXES);
            return -1;
        }
        fg_axis *ax = ARENA_NEW(p->a, fg_axis);
        ax->name = parse_tok_str(p, &name);
        ax->loc = name.loc;
        ax->dim_name = parse_tok_str(p, &dim);
        ax->dim_loc = dim.loc;
        ax->dim = -1;
        vec_push(p->a, &p->axes, ax);
    } while (parse_accept(p, TK_COMMA));
    return 0;
}

static int parse_param(parser *p)
{
    parse_next(p);
    fg_token name;
    if (expect_ident(p, "a parameter name", &name) < 0)
        return -1;
    fg_param *pa = ARENA_NEW(p->a, fg_param);
    pa->name = parse_tok_str(p, &name);
    pa->loc = name.loc;
    pa->index_axis = -1;
    if (parse_accept(p, TK_LBRACKET)) {
        fg_token axis;
        if (expect_ident(p, "the axis that indexes the parameter", &axis) < 0)
            return -1;
        if (parse_expect(p, TK_RBRACKET, " (a parameter vector has one axis: NAME[AXIS])") < 0)
            return -1;
        pa->index_name = parse_tok_str(p, &axis);
        pa->index_loc = axis.loc;
    }
    if (parse_expect(p, TK_COLON, arena_printf(p->a, " and a type after parameter '%s'", pa->name)) < 0)
        return -1;
    fg_loc type_loc = parse_peek(p)->loc;
    if (parse_type(p, true, &pa->dtype) < 0)
        return -1;
    if (pa->index_name && pa->dtype != DT_F32) {
        diag_error(p->d, type_loc, "a parameter vector NAME[AXIS] must be f32");
        return -1;
    }
    if (parse_accept(p, TK_ASSIGN)) {
        pa->deflt = parse_expr(p);
        if (!pa->deflt)
            return -1;
    }
    vec_push(p->a, &p->params, pa);
    return 0;
}

static int parse_input(parser *p)
{
    parse_next(p);
    fg_token name;
    if (expect_ident(p, "an input name", &name) < 0)
        return -1;
    fg_ir_tensor *t = ARENA_NEW(p->a, fg_ir_tensor);
    t->name = parse_tok_str(p, &name);
    t->loc = name.loc;
    t->kind = TENSOR_INPUT;
    t->red_axis = -1;
    t->hoisted_from = -1;
    if (!parse_at(p, TK_LBRACKET))
        return parse_expected(p, arena_printf(p->a, "'[' after input '%s' (input NAME[INDEX, ...]: TYPE)",
                                        t->name));
    parse_next(p);
    p->nest++;
    fg_vec index = {0};
    if (parse_at(p, TK_RBRACKET))
        return parse_expected(p, "an index");
    if (parse_arg_list(p, TK_RBRACKET, &index,
                       arena_printf(p->a, "in the index list of input '%s'", t->name)) < 0)
        return -1;
    p->nest--;
    if (index.len > FG_MAX_INDICES) {
        diag_error(p->d, name.loc, "input '%s' has %d indices; at most %d are supported", t->name,
                   index.len, FG_MAX_INDICES);
        return -1;
    }
    t->nindex = index.len;
    t->index = ARENA_ARRAY(p->a, fg_expr *, index.len);
    for (int i = 0; i < index.len; i++)
        t->index[i] = index.items[i];
    if (parse_expect(p, TK_COLON, arena_printf(p->a, " and a type after input '%s[...]'", t->name)) < 0)
        return -1;
    if (parse_type(p, false, &t->dtype) < 0)
        return -1;
    if (parse_accept(p, TK_LBRACKET)) {
        p->nest++;
        fg_vec names = {0};
        do {
            fg_token dim;
            if (expect_ident(p, "a dim (the stored extent)", &dim) < 0)
                return -1;
            fg_token *copy = ARENA_NEW(p->a, fg_token);
            *copy = dim;
            vec_push(p->a, &names, copy);
        } while (parse_accept(p, TK_COMMA));
        if (parse_expect(p, TK_RBRACKET, " after the stored extents") < 0)
            return -1;
        p->nest--;
        if (names.len != t->nindex) {
            const fg_token *first = names.items[0];
            diag_error(p->d, first->loc,
                       "input '%s' has %d indices but %d stored extents", t->name, t->nindex,
                       names.len);
            return -1;
        }
        t->extent_names = ARENA_ARRAY(p->a, const char *, names.len);
        t->extent_locs = ARENA_ARRAY(p->a, fg_loc, names.len);
        t->extent_dims = ARENA_ARRAY(p->a, int, names.len);
        for (int i = 0; i < names.len; i++) {
            const fg_token *dim = names.items[i];
            t->extent_names[i] = parse_tok_str(p, dim);
            t->extent_locs[i] = dim->loc;
            t->extent_dims[i] = -1;
        }
    }
    vec_push(p->a, &p->tensors, t);
    return 0;
}

static int parse_output(parser *p)
{
    parse_next(p);
    do {
        fg_token name;
        if (expect_ident(p, "an output name", &name) < 0)
            return -1;
        if (parse_expect(p, TK_COLON, arena_printf(p->a, " and a type after output '%.*s'",
                                             (int)name.len, name.text)) < 0)
            return -1;
        pending_output *o = ARENA_NEW(p->a, pending_output);
        if (parse_type(p, false, &o->dtype) < 0)
            return -1;
        o->name = parse_tok_str(p, &name);
        o->loc = name.loc;
        vec_push(p->a, &p->outputs, o);
    } while (parse_accept(p, TK_COMMA));
    return 0;
}

/* NAME[AXIS, ...] = EXPR */
static int parse_statement(parser *p)
{
    fg_token name = parse_next(p);
    fg_ir_tensor *t = ARENA_NEW(p->a, fg_ir_tensor);
    t->name = parse_tok_str(p, &name);
    t->loc = name.loc;
    t->kind = TENSOR_STMT;
    t->dtype = DT_F32;
    t->red_axis = -1;
    t->hoisted_from = -1;
    if (!parse_at(p, TK_LBRACKET))
        return parse_expected(p, arena_printf(p->a, "'[' after '%s' (a statement is %s[AXIS, ...] = EXPR)",
                                        t->name, t->name));
    parse_next(p);
    p->nest++;
    fg_vec axes = {0};
    do {
        fg_token axis;
        if (expect_ident(p, "an axis", &axis) < 0)
            return -1;
        fg_token *copy = ARENA_NEW(p->a, fg_token);
        *copy = axis;
        vec_push(p->a, &axes, copy);
        if (parse_at(p, TK_COMMA) || parse_at(p, TK_RBRACKET))
            continue;
        return parse_expected(p, arena_printf(p->a, "',' or ']' after axis '%.*s'", (int)axis.len,
                                        axis.text));
    } while (parse_accept(p, TK_COMMA));
    parse_next(p); /* "]" */
    p->nest--;
    if (axes.len > FG_MAX_INDICES) {
        diag_error(p->d, name.loc, "statement '%s' has %d axes; at most %d are supported", t->name,
                   axes.len, FG_MAX_INDICES);
        return -1;
    }
    t->naxes = axes.len;
    t->axis_names = ARENA_ARRAY(p->a, const char *, axes.len);
    t->axis_locs = ARENA_ARRAY(p->a, fg_loc, axes.len);
    t->axes = ARENA_ARRAY(p->a, int, axes.len);
    for (int i = 0; i < axes.len; i++) {
        const fg_token *axis = axes.items[i];
        t->axis_names[i] = parse_tok_str(p, axis);
        t->axis_locs[i] = axis->loc;
        t->axes[i] = -1;
    }
    if (parse_expect(p, TK_ASSIGN, arena_printf(p->a, " after '%s[...]'", t->name)) < 0)
        return -1;
    t->rhs = parse_expr(p);
    if (!t->rhs)
        return -1;
    vec_push(p->a, &p->tensors, t);
    return 0;
}

/* ---- schedule -------------------------------------------------------- */

/* Every int the parser converts from a number token comes through here
 * (tile sizes, warps, stages, splits, tune values): a value past INT_MAX is
 * a located error, never a conversion (the lexer reports integers past
 * INT_MAX, and the parser then stays quiet about the same line). */
static int parse_int_from(parser *p, int *out, int min)
{
    const fg_token *t = parse_peek(p);
    if (t->kind != TK_NUMBER || !t->is_int || !(t->num >= min))
        return parse_expected(p, min ? "a positive integer" : "0 or a positive integer");
    if (!(t->num <= (double)INT_MAX)) {
        if (t->loc.line != p->bad_line)
            diag_error(p->d, t->loc, "integer '%.*s' is out of range (the limit is %d)",
                       (int)t->len, t->text, INT_MAX);
        return -1;
    }
    *out = (int)t->num;
    parse_next(p);
    return 0;
}

static int parse_positive_int(parser *p, int *out)
{
    return parse_int_from(p, out, 1);
}

static int once(parser *p, bool *seen, const fg_token *name)
{
    if (*seen) {
        diag_error(p->d, name->loc, "duplicate '%.*s' setting", (int)name->len, name->text);
        return -1;
    }
    *seen = true;
    return 0;
}

/* "{" N {, N} "}"; a switch (pingpong) also takes 0 */
static int parse_value_list(parser *p, fg_tune_knob *k)
{
    const int min = strcmp(k->knob, "pingpong") == 0 ? 0 : 1;
    if (parse_expect(p, TK_LBRACE, " to open the list of candidate values") < 0)
        return -1;
    p->nest++;
    fg_vec values = {0};
    do {
        int *v = ARENA_NEW(p->a, int);
        if (parse_int_from(p, v, min) < 0)
            return -1;
        vec_push(p->a, &values, v);
    } while (parse_accept(p, TK_COMMA));
    if (parse_expect(p, TK_RBRACE, " to close the list of values") < 0)
        return -1;
    p->nest--;
    k->nvalues = values.len;
    k->values = ARENA_ARRAY(p->a, int, values.len);
    for (int i = 0; i < values.len; i++)
        k->values[i] = *(int *)values.items[i];
    return 0;
}

static int parse_knob(parser *p)
{
    fg_token name;
    if (expect_ident(p, "a tuning knob (tile, warps, stages, splits or pingpong)", &name) < 0)
        return -1;
    if (parse_tok_is(&name, "tile")) {
        do {
            fg_token axis;
            if (expect_ident(p, "an axis", &axis) < 0)
                return -1;
            if (parse_expect(p, TK_ASSIGN, " after the tile axis") < 0)
                return -1;
            fg_tune_knob *k = ARENA_NEW(p->a, fg_tune_knob);
            k->knob = "tile";
            k->axis_name = parse_tok_str(p, &axis);
            k->loc = axis.loc;
            k->axis = -1;
            if (parse_value_list(p, k) < 0)
                return -1;
            vec_push(p->a, &p->knobs, k);
        } while (parse_accept(p, TK_COMMA));
        return 0;
    }
    static const char *const plain[] = {"warps", "stages", "splits", "pingpong"};
    for (int i = 0; i < 4; i++) {
        if (!parse_tok_is(&name, plain[i]))
            continue;
        if (parse_expect(p, TK_ASSIGN, arena_printf(p->a, " after '%s'", plain[i])) < 0)
            return -1;
        fg_tune_knob *k = ARENA_NEW(p->a, fg_tune_knob);
        k->knob = plain[i];
        k->loc = name.loc;
        k->axis = -1;
        if (parse_value_list(p, k) < 0)
            return -1;
        vec_push(p->a, &p->knobs, k);
        return 0;
    }
    diag_error(p->d, name.loc,
               "unknown tuning knob '%.*s': expected tile, warps, stages, splits or pingpong",
               (int)name.len,
               name.text);
    return -1;
}

/* Lines of settings up to the closing '}' ("{" already consumed). */
static int parse_block(parser *p, fg_loc open, const char *what, int (*line)(parser *))
{
    int rc = 0;
    for (;;) {
        while (parse_accept(p, TK_NEWLINE))
            ;
        if (parse_accept(p, TK_RBRACE))
            return rc;
        if (parse_at(p, TK_EOF) || diag_full(p->d)) {
            parse_expected(p, arena_printf(p->a, "'}' to close the %s block", what));
            diag_note(p->d, open, "the %s block opens here", what);
            return -1;
        }
        if (line(p) < 0) {
            rc = -1;
            sync(p, true);
            continue;
        }
        if (!parse_at(p, TK_NEWLINE) && !parse_at(p, TK_RBRACE)) {
            parse_expected(p, arena_printf(p->a, "end of line after the %s setting", what));
            rc = -1;
            sync(p, true);
        }
    }
}

static int parse_setting(parser *p)
{
    fg_schedule *s = &p->plan->sched;
    fg_token name;
    if (expect_ident(p, "a schedule setting (reduce, tile, warps, stages, splits, tune or target)",
                     &name) < 0)
        return -1;
    if (parse_tok_is(&name, "reduce")) {
        if (once(p, &p->seen_reduce, &name) < 0)
            return -1;
        fg_token axis, form;
        if (expect_ident(p, "the reduced axis", &axis) < 0 ||
            parse_expect(p, TK_COLON, " after the reduced axis (reduce AXIS: rolling|split)") < 0 ||
            expect_ident(p, "'rolling' or 'split'", &form) < 0)
            return -1;
        s->reduce_axis_name = parse_tok_str(p, &axis);
        s->reduce_loc = axis.loc;
        if (parse_tok_is(&form, "rolling")) {
            s->form = FORM_ROLLING;
        } else if (parse_tok_is(&form, "split")) {
            s->form = FORM_SPLIT;
        } else {
            diag_error(p->d, form.loc, "unknown form '%.*s': expected rolling or split",
                       (int)form.len, form.text);
            return -1;
        }
        return 0;
    }
    if (parse_tok_is(&name, "tile")) {
        do {
            fg_token axis;
            if (expect_ident(p, "an axis", &axis) < 0)
                return -1;
            fg_tile_size *ts = ARENA_NEW(p->a, fg_tile_size);
            ts->axis_name = parse_tok_str(p, &axis);
            ts->loc = axis.loc;
            ts->axis = -1;
            if (parse_expect(p, TK_ASSIGN, " after the tile axis (tile AXIS = N)") < 0 ||
                parse_positive_int(p, &ts->size) < 0)
                return -1;
            vec_push(p->a, &p->tiles, ts);
        } while (parse_accept(p, TK_COMMA));
        return 0;
    }
    if (parse_tok_is(&name, "warps") || parse_tok_is(&name, "stages")) {
        bool warps = parse_tok_is(&name, "warps");
        if (once(p, warps ? &p->seen_warps : &p->seen_stages, &name) < 0)
            return -1;
        if (parse_expect(p, TK_ASSIGN, warps ? " after 'warps'" : " after 'stages'") < 0)
            return -1;
        return parse_positive_int(p, warps ? &s->warps : &s->stages);
    }
    if (parse_tok_is(&name, "splits")) {
        if (once(p, &p->seen_splits, &name) < 0 || parse_expect(p, TK_ASSIGN, " after 'splits'") < 0)
            return -1;
        if (parse_tok_is(parse_peek(p), "auto")) {
            parse_next(p);
            s->splits = 0;
            return 0;
        }
        if (parse_peek(p)->kind != TK_NUMBER)
            return parse_expected(p, "a positive integer or 'auto'");
        return parse_positive_int(p, &s->splits);
    }
    if (parse_tok_is(&name, "tune")) {
        if (once(p, &p->seen_tune, &name) < 0)
            return -1;
        fg_loc open = parse_peek(p)->loc;
        if (parse_expect(p, TK_LBRACE, " after 'tune'") < 0)
            return -1;
        return parse_block(p, open, "tune", parse_knob);
    }
    if (parse_tok_is(&name, "target")) {
        if (once(p, &p->seen_target, &name) < 0)
            return -1;
        do {
            fg_token t;
            if (expect_ident(p, "a target (cuda, hip or c)", &t) < 0)
                return -1;
            unsigned bit = parse_tok_is(&t, "cuda")  ? TARGET_CUDA
                           : parse_tok_is(&t, "hip") ? TARGET_HIP
                           : parse_tok_is(&t, "c")   ? TARGET_C
                                               : 0;
            if (!bit) {
                diag_error(p->d, t.loc, "unknown target '%.*s': expected cuda, hip or c",
                           (int)t.len, t.text);
                return -1;
            }
            s->targets |= bit;
        } while (parse_accept(p, TK_COMMA));
        return 0;
    }
    diag_error(p->d, name.loc,
               "unknown schedule setting '%.*s': expected reduce, tile, warps, stages, splits, "
               "tune or target",
               (int)name.len, name.text);
    return -1;
}

static int parse_schedule(parser *p)
{
    fg_token kw = parse_next(p);
    fg_schedule *s = &p->plan->sched;
    if (s->present) {
        diag_error(p->d, kw.loc, "duplicate 'schedule': a plan has one schedule block");
        return -1;
    }
    s->present = true;
    s->loc = kw.loc;
    fg_loc open = parse_peek(p)->loc;
    if (parse_expect(p, TK_LBRACE, " after 'schedule'") < 0)
        return -1;
    return parse_block(p, open, "schedule", parse_setting);
}

static int parse_item(parser *p)
{
    switch (parse_peek(p)->kind) {
    case TK_KW_PLAN: return parse_plan_item(p);
    case TK_KW_DOC: return parse_doc(p);
    case TK_KW_DIM: return parse_dim(p);
    case TK_KW_AXIS: return parse_axis(p);
    case TK_KW_PARAM: return parse_param(p);
    case TK_KW_INPUT: return parse_input(p);
    case TK_KW_OUTPUT: return parse_output(p);
    case TK_KW_SCHEDULE: return parse_schedule(p);
    case TK_IDENT: return parse_statement(p);
    default:
        return parse_expected(p, "an item (plan, doc, dim, axis, param, input, output, schedule, "
                           "or a statement NAME[AXIS, ...] = EXPR)");
    }
}

/* ---- the plan -------------------------------------------------------- */

#define FLATTEN(p, vec, T, count, array)                                  \
    do {                                                                  \
        (count) = (vec).len;                                              \
        (array) = ARENA_ARRAY((p)->a, T, (vec).len > 0 ? (vec).len : 1); \
        for (int i_ = 0; i_ < (vec).len; i_++)                            \
            (array)[i_] = *(T *)(vec).items[i_];                          \
    } while (0)

/* Attach `output NAME: TYPE` to the statements they name. */
static void resolve_outputs(parser *p, bool report)
{
    fg_plan *plan = p->plan;
    for (int i = 0; i < p->outputs.len; i++) {
        const pending_output *o = p->outputs.items[i];
        fg_ir_tensor *t = NULL;
        for (int j = 0; j < plan->ntensors && !t; j++)
            if (strcmp(plan->tensors[j].name, o->name) == 0)
                t = &plan->tensors[j];
        if (!t) {
            if (report)
                diag_error(p->d, o->loc, "output '%s' is not defined by any statement", o->name);
        } else if (t->kind == TENSOR_INPUT) {
            if (report)
                diag_error(p->d, o->loc, "output '%s' is an input; outputs are statements",
                           o->name);
        } else if (t->is_output) {
            if (report)
                diag_error(p->d, o->loc, "'%s' is listed as an output twice", o->name);
        } else if (o->dtype == DT_INT) {
            if (report)
                diag_error(p->d, o->loc,
                           "output '%s' cannot be i32: statements are computed in f32 "
                           "(bf16, fp16 or f32)",
                           o->name);
        } else {
            t->is_output = true;
            t->output_loc = o->loc;
            t->out_dtype = o->dtype;
        }
    }
}

static void parser_init(parser *p, fg_arena *a, const fg_source *src, fg_diag *d)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->d = d;
    lexer_init(&p->lx, a, src, d);
}

int parse_plan(fg_arena *a, const fg_source *src, fg_diag *d, fg_plan **out)
{
    parser *p = ARENA_NEW(a, parser);
    parser_init(p, a, src, d);
    int errors_before = d->errors;
    fg_plan *plan = ARENA_NEW(a, fg_plan);
    plan->arena = a;
    plan->src = src;
    plan->sched.reduce_axis = -1;
    p->plan = plan;
    bool first = true;
    for (;;) {
        while (parse_accept(p, TK_NEWLINE))
            ;
        if (parse_at(p, TK_EOF) || diag_full(d))
            break;
        if (first && !parse_at(p, TK_KW_PLAN))
            parse_expected(p, "'plan NAME' as the first item");
        first = false;
        p->depth = 0;
        p->nest = 0;
        if (parse_item(p) < 0) {
            sync(p, false);
            continue;
        }
        if (!parse_at(p, TK_NEWLINE) && !parse_at(p, TK_EOF)) {
            parse_expected(p, "end of line after the item");
            sync(p, false);
        }
    }
    if (first && !diag_full(d))
        diag_error(d, (fg_loc){1, 1}, "empty plan: expected 'plan NAME'");
    FLATTEN(p, p->dims, fg_dim, plan->ndims, plan->dims);
    FLATTEN(p, p->axes, fg_axis, plan->naxes, plan->axes);
    FLATTEN(p, p->params, fg_param, plan->nparams, plan->params);
    FLATTEN(p, p->tensors, fg_ir_tensor, plan->ntensors, plan->tensors);
    FLATTEN(p, p->tiles, fg_tile_size, plan->sched.ntiles, plan->sched.tiles);
    FLATTEN(p, p->knobs, fg_tune_knob, plan->sched.nknobs, plan->sched.knobs);
    resolve_outputs(p, d->errors == errors_before);
    *out = plan;
    return d->errors > errors_before ? -1 : 0;
}

int parse_expr_string(fg_arena *a, const char *text, fg_diag *d, fg_expr **out)
{
    fg_source *src = ARENA_NEW(a, fg_source);
    source_from_string(src, "<expr>", arena_strdup(a, text));
    const fg_source *saved = d->src;
    d->src = src;
    int errors_before = d->errors;
    parser *p = ARENA_NEW(a, parser);
    parser_init(p, a, src, d);
    *out = NULL;
    if (parse_at(p, TK_EOF)) {
        parse_expected(p, "an expression");
    } else {
        fg_expr *e = parse_expr(p);
        if (e) {
            while (parse_accept(p, TK_NEWLINE))
                ;
            if (!parse_at(p, TK_EOF))
                parse_expected(p, "end of the expression");
            else
                *out = e;
        }
    }
    d->src = saved;
    d->line_src = NULL;
    if (d->errors > errors_before) {
        *out = NULL;
        return -1;
    }
    return 0;
}
