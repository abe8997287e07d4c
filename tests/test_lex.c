/* test_lex.c - the lexer (generator/lex.c): token kinds, values, locations
 * and lexical errors. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

typedef struct fixture {
    fg_arena *a;
    char *buf;
    size_t len;
    FILE *out;
    fg_diag d;
    fg_source src;
    fg_token *toks;
    int ntoks;
    int rc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = arena_create();
    f->out = open_memstream(&f->buf, &f->len);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fclose(f->out);
    free(f->buf);
    arena_destroy(f->a);
    free(f);
    return 0;
}

static void lex(fixture *f, const char *text)
{
    source_from_string(&f->src, "lex.fp", text);
    diag_init(&f->d, &f->src, f->out);
    f->rc = lex_source(f->a, &f->src, &f->d, &f->toks, &f->ntoks);
}

static const char *output(fixture *f)
{
    fflush(f->out);
    return f->buf ? f->buf : "";
}

typedef struct expect_tok {
    fg_tok_kind kind;
    int line, col;
    const char *text;
} expect_tok;

static void check_tokens(fixture *f, const expect_tok *want, int n)
{
    assert_int_equal(f->ntoks, n);
    for (int i = 0; i < n; i++) {
        const fg_token *t = &f->toks[i];
        if (t->kind != want[i].kind || t->loc.line != want[i].line || t->loc.col != want[i].col)
            fail_msg("token %d: got %s at %d:%d, want %s at %d:%d", i, fg_tok_names[t->kind],
                     t->loc.line, t->loc.col, fg_tok_names[want[i].kind], want[i].line,
                     want[i].col);
        if (want[i].text) {
            assert_int_equal(t->len, strlen(want[i].text));
            assert_memory_equal(t->text, want[i].text, t->len);
        }
    }
}

static void test_lex_statement_tokens_and_locations(void **state)
{
    fixture *f = *state;
    lex(f, "O[b, m] = sum(n: P * V) / L\n");
    static const expect_tok want[] = {
        {TK_IDENT, 1, 1, "O"},     {TK_LBRACKET, 1, 2, "["}, {TK_IDENT, 1, 3, "b"},
        {TK_COMMA, 1, 4, ","},     {TK_IDENT, 1, 6, "m"},    {TK_RBRACKET, 1, 7, "]"},
        {TK_ASSIGN, 1, 9, "="},    {TK_IDENT, 1, 11, "sum"}, {TK_LPAREN, 1, 14, "("},
        {TK_IDENT, 1, 15, "n"},    {TK_COLON, 1, 16, ":"},   {TK_IDENT, 1, 18, "P"},
        {TK_STAR, 1, 20, "*"},     {TK_IDENT, 1, 22, "V"},   {TK_RPAREN, 1, 23, ")"},
        {TK_SLASH, 1, 25, "/"},    {TK_IDENT, 1, 27, "L"},   {TK_NEWLINE, 1, 28, "\n"},
        {TK_EOF, 1, 28, NULL},
    };
    check_tokens(f, want, (int)(sizeof want / sizeof want[0]));
    assert_int_equal(f->rc, 0);
    assert_string_equal(output(f), "");
}

static void test_lex_keywords_and_identifiers(void **state)
{
    fixture *f = *state;
    lex(f, "plan doc dim axis param input output schedule inf where planx sum exp _x9");
    static const expect_tok want[] = {
        {TK_KW_PLAN, 1, 1, "plan"},       {TK_KW_DOC, 1, 6, "doc"},
        {TK_KW_DIM, 1, 10, "dim"},        {TK_KW_AXIS, 1, 14, "axis"},
        {TK_KW_PARAM, 1, 19, "param"},    {TK_KW_INPUT, 1, 25, "input"},
        {TK_KW_OUTPUT, 1, 31, "output"},  {TK_KW_SCHEDULE, 1, 38, "schedule"},
        {TK_KW_INF, 1, 47, "inf"},        {TK_KW_WHERE, 1, 51, "where"},
        {TK_IDENT, 1, 57, "planx"},       {TK_IDENT, 1, 63, "sum"},
        {TK_IDENT, 1, 67, "exp"},         {TK_IDENT, 1, 71, "_x9"},
        {TK_EOF, 1, 74, NULL},
    };
    check_tokens(f, want, (int)(sizeof want / sizeof want[0]));
    assert_int_equal(f->rc, 0);
}

static void test_lex_operators(void **state)
{
    fixture *f = *state;
    lex(f, "< <= > >= == != && || ! = ^ - + { }");
    static const fg_tok_kind kinds[] = {TK_LT,  TK_LE,    TK_GT,    TK_GE,   TK_EQ,   TK_NE,
                                        TK_AND, TK_OR,    TK_NOT,   TK_ASSIGN, TK_CARET, TK_MINUS,
                                        TK_PLUS, TK_LBRACE, TK_RBRACE, TK_EOF};
    assert_int_equal(f->ntoks, (int)(sizeof kinds / sizeof kinds[0]));
    for (int i = 0; i < f->ntoks; i++)
        assert_int_equal(f->toks[i].kind, kinds[i]);
    assert_int_equal(f->toks[1].len, 2);
    assert_int_equal(f->toks[7].loc.col, 20);
    assert_int_equal(f->rc, 0);
}

static void test_lex_numbers(void **state)
{
    fixture *f = *state;
    lex(f, "4096 0.5 1e-3 .25 8.0 2E+2 7. 0");
    static const struct {
        double v;
        bool is_int;
        int col;
    } want[] = {{4096, true, 1}, {0.5, false, 6},  {1e-3, false, 10}, {0.25, false, 15},
                {8, false, 19},  {200, false, 23}, {7, false, 28},    {0, true, 31}};
    assert_int_equal(f->ntoks, 9);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(f->toks[i].kind, TK_NUMBER);
        assert_true(f->toks[i].num == want[i].v);
        assert_int_equal(f->toks[i].is_int, want[i].is_int);
        assert_int_equal(f->toks[i].loc.col, want[i].col);
    }
    assert_int_equal(f->rc, 0);
}

static void test_lex_strings_unescape(void **state)
{
    fixture *f = *state;
    lex(f, "doc \"say \\\"hi\\\" \\\\ \xc3\xa9\"");
    assert_int_equal(f->ntoks, 3);
    assert_int_equal(f->toks[1].kind, TK_STRING);
    assert_int_equal(f->toks[1].loc.col, 5);
    assert_string_equal(f->toks[1].str, "say \"hi\" \\ \xc3\xa9");
    assert_int_equal(f->toks[1].len, strlen("\"say \\\"hi\\\" \\\\ \xc3\xa9\""));
    assert_int_equal(f->rc, 0);
}

static void test_lex_comments_and_blank_lines(void **state)
{
    fixture *f = *state;
    lex(f, "\n\n# leading comment\ndim A # trailing\n\n/* block\n comment */ dim /* in line */ B\r\n\n");
    static const expect_tok want[] = {
        {TK_KW_DIM, 4, 1, "dim"},  {TK_IDENT, 4, 5, "A"},  {TK_NEWLINE, 4, 17, "\n"},
        {TK_KW_DIM, 7, 13, "dim"}, {TK_IDENT, 7, 31, "B"}, {TK_NEWLINE, 7, 33, "\n"},
        {TK_EOF, 8, 1, NULL},
    };
    check_tokens(f, want, (int)(sizeof want / sizeof want[0]));
    assert_int_equal(f->rc, 0);
}

static void test_lex_eof_sits_on_the_last_line(void **state)
{
    fixture *f = *state;
    lex(f, "dim A\n");
    assert_int_equal(f->ntoks, 4);
    assert_int_equal(f->toks[2].kind, TK_NEWLINE);
    assert_int_equal(f->toks[3].kind, TK_EOF);
    assert_int_equal(f->toks[3].loc.line, 1);
    assert_int_equal(f->toks[3].loc.col, 6);
    lex(f, "");
    assert_int_equal(f->ntoks, 1);
    assert_int_equal(f->toks[0].loc.line, 1);
    assert_int_equal(f->toks[0].loc.col, 1);
}

static void test_lex_unterminated_comment(void **state)
{
    fixture *f = *state;
    lex(f, "plan x\n  /* never\nclosed\n");
    assert_int_equal(f->rc, -1);
    assert_string_equal(output(f), "lex.fp:2:3: error: unterminated comment: '/*' has no matching '*/'\n"
                                   "  /* never\n"
                                   "  ^\n");
    assert_int_equal(f->toks[f->ntoks - 1].kind, TK_EOF);
}

static void test_lex_unterminated_string(void **state)
{
    fixture *f = *state;
    lex(f, "doc \"abc\ndim A\n");
    assert_int_equal(f->rc, -1);
    assert_string_equal(output(f),
                        "lex.fp:1:5: error: unterminated string: a string ends with '\"' on the same line\n"
                        "doc \"abc\n"
                        "    ^\n");
    /* Lexing goes on with the next line. */
    assert_int_equal(f->toks[2].kind, TK_NEWLINE);
    assert_int_equal(f->toks[3].kind, TK_KW_DIM);
    assert_int_equal(f->toks[3].loc.line, 2);
}

static void test_lex_bad_characters_are_reported_and_skipped(void **state)
{
    fixture *f = *state;
    lex(f, "a $ b & c | d @\xc3\xa9 \xff");
    assert_int_equal(f->rc, -1);
    assert_int_equal(f->d.errors, 6);
    assert_string_equal(output(f),
                        "lex.fp:1:3: error: unexpected character '$'\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "  ^\n"
                        "lex.fp:1:7: error: unexpected character '&' (did you mean '&&'?)\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "      ^\n"
                        "lex.fp:1:11: error: unexpected character '|' (did you mean '||'?)\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "          ^\n"
                        "lex.fp:1:15: error: unexpected character '@'\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "              ^\n"
                        "lex.fp:1:16: error: unexpected character '\xc3\xa9'\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "               ^\n"
                        "lex.fp:1:19: error: unexpected byte 0xff\n"
                        "a $ b & c | d @\xc3\xa9 ?\n"
                        "                 ^\n");
    static const expect_tok want[] = {
        {TK_IDENT, 1, 1, "a"}, {TK_IDENT, 1, 5, "b"}, {TK_IDENT, 1, 9, "c"},
        {TK_IDENT, 1, 13, "d"}, {TK_EOF, 1, 20, NULL},
    };
    check_tokens(f, want, (int)(sizeof want / sizeof want[0]));
}

static void test_lex_number_errors(void **state)
{
    fixture *f = *state;
    lex(f, "1e+ 12abc 3000000000 1e39");
    assert_int_equal(f->rc, -1);
    assert_int_equal(f->d.errors, 4);
    assert_string_equal(output(f),
                        "lex.fp:1:1: error: malformed number '1e+': exponent has no digits\n"
                        "1e+ 12abc 3000000000 1e39\n"
                        "^\n"
                        "lex.fp:1:7: error: invalid suffix 'abc' on number '12'\n"
                        "1e+ 12abc 3000000000 1e39\n"
                        "      ^\n"
                        "lex.fp:1:11: error: integer '3000000000' is out of range (the limit is 2147483647)\n"
                        "1e+ 12abc 3000000000 1e39\n"
                        "          ^\n"
                        "lex.fp:1:22: error: number '1e39' is out of range for f32\n"
                        "1e+ 12abc 3000000000 1e39\n"
                        "                     ^\n");
}

static void test_lex_bad_escape(void **state)
{
    fixture *f = *state;
    lex(f, "doc \"a\\nb\"");
    assert_int_equal(f->rc, -1);
    assert_string_equal(output(f),
                        "lex.fp:1:7: error: unknown escape '\\n' in string: only '\\\"' and '\\\\' are allowed\n"
                        "doc \"a\\nb\"\n"
                        "      ^\n");
}

static void test_lex_reserved_prefixes(void **state)
{
    fixture *f = *state;
    lex(f, "dim fg_B, m4_C, fgB, m4x");
    assert_int_equal(f->rc, -1);
    assert_int_equal(f->d.errors, 2);
    assert_string_equal(output(f),
                        "lex.fp:1:5: error: reserved name 'fg_B': names beginning with 'fg_' or 'm4_' belong to the generator\n"
                        "dim fg_B, m4_C, fgB, m4x\n"
                        "    ^\n"
                        "lex.fp:1:11: error: reserved name 'm4_C': names beginning with 'fg_' or 'm4_' belong to the generator\n"
                        "dim fg_B, m4_C, fgB, m4x\n"
                        "          ^\n");
    /* The names are still tokens, so parsing can go on. */
    assert_int_equal(f->toks[1].kind, TK_IDENT);
    assert_int_equal(f->toks[3].kind, TK_IDENT);
}

static void test_lex_next_streams_and_stops_at_the_cap(void **state)
{
    fixture *f = *state;
    source_from_string(&f->src, "cap.fp", "$ $ $ $ $ a");
    diag_init(&f->d, &f->src, f->out);
    f->d.max_errors = 2;
    fg_lexer lx;
    lexer_init(&lx, f->a, &f->src, &f->d);
    fg_token t;
    assert_int_equal(lex_next(&lx, &t), -1);
    /* Two errors fill the diagnostics: the lexer stops there. */
    assert_int_equal(t.kind, TK_EOF);
    assert_int_equal(f->d.errors, 2);
    assert_int_equal(lex_next(&lx, &t), 0);
    assert_int_equal(t.kind, TK_EOF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(test_lex_statement_tokens_and_locations),
        T(test_lex_keywords_and_identifiers),
        T(test_lex_operators),
        T(test_lex_numbers),
        T(test_lex_strings_unescape),
        T(test_lex_comments_and_blank_lines),
        T(test_lex_eof_sits_on_the_last_line),
        T(test_lex_unterminated_comment),
        T(test_lex_unterminated_string),
        T(test_lex_bad_characters_are_reported_and_skipped),
        T(test_lex_number_errors),
        T(test_lex_bad_escape),
        T(test_lex_reserved_prefixes),
        T(test_lex_next_streams_and_stops_at_the_cap),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
