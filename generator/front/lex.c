/* lex.c - tokens of the plan language (docs/plan-language.md, "Lexical
 * structure").  Every token carries its line and byte column.  Lexical
 * errors are reported and the offending characters skipped, so one run
 * reports several; once the diagnostics are full the lexer returns TK_EOF. */
#include "generator.h"

#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *word;
    fg_tok_kind kind;
} keywords[] = {
    {"plan", TK_KW_PLAN},     {"doc", TK_KW_DOC},       {"dim", TK_KW_DIM},
    {"axis", TK_KW_AXIS},     {"param", TK_KW_PARAM},   {"input", TK_KW_INPUT},
    {"output", TK_KW_OUTPUT}, {"schedule", TK_KW_SCHEDULE}, {"inf", TK_KW_INF},
    {"where", TK_KW_WHERE},
};

void lexer_init(fg_lexer *lx, fg_arena *a, const fg_source *src, fg_diag *d)
{
    memset(lx, 0, sizeof *lx);
    lx->arena = a;
    lx->src = src;
    lx->diag = d;
    lx->line = 1;
    lx->newline_pending = true; /* no NEWLINE before the first item */
}

static fg_loc loc_at(const fg_lexer *lx, size_t pos)
{
    return (fg_loc){lx->line, (int)(pos - lx->line_start) + 1};
}

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident_char(int c)
{
    return is_ident_start(c) || is_digit(c);
}

/* Length of the UTF-8 sequence starting at s (1 for anything invalid). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
    if (len > n)
        return 1;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 1;
    return len;
}

/* Report a character that starts no token and return how many bytes to skip. */
static size_t bad_character(fg_lexer *lx, size_t pos)
{
    const unsigned char *s = (const unsigned char *)lx->src->text + pos;
    size_t left = lx->src->len - pos;
    fg_loc loc = loc_at(lx, pos);
    int c = s[0];
    if (c == '&' || c == '|')
        diag_error(lx->diag, loc, "unexpected character '%c' (did you mean '%c%c'?)", c, c, c);
    else if (c > 0x20 && c < 0x7f)
        diag_error(lx->diag, loc, "unexpected character '%c'", c);
    else if (c < 0x80 || utf8_len(s, left) == 1)
        diag_error(lx->diag, loc, "unexpected byte 0x%02x", (unsigned)c);
    else {
        size_t n = utf8_len(s, left);
        diag_error(lx->diag, loc, "unexpected character '%.*s'", (int)n, (const char *)s);
        return n;
    }
    return 1;
}

static int lex_number(fg_lexer *lx, fg_token *t)
{
    const char *text = lx->src->text;
    size_t len = lx->src->len, start = lx->pos, p = start;
    bool is_int = true, ok = true;
    while (p < len && is_digit(text[p]))
        p++;
    if (p < len && text[p] == '.') {
        is_int = false;
        p++;
        while (p < len && is_digit(text[p]))
            p++;
    }
    if (p < len && (text[p] == 'e' || text[p] == 'E')) {
        is_int = false;
        size_t q = p + 1;
        if (q < len && (text[q] == '+' || text[q] == '-'))
            q++;
        if (q < len && is_digit(text[q])) {
            while (q < len && is_digit(text[q]))
                q++;
            p = q;
        } else {
            diag_error(lx->diag, loc_at(lx, start), "malformed number '%.*s': exponent has no digits",
                       (int)(q - start), text + start);
            ok = false;
            p = q;
        }
    }
    if (ok && p < len && is_ident_char(text[p])) {
        size_t q = p;
        while (q < len && is_ident_char(text[q]))
            q++;
        diag_error(lx->diag, loc_at(lx, p), "invalid suffix '%.*s' on number '%.*s'",
                   (int)(q - p), text + p, (int)(p - start), text + start);
        ok = false;
        p = q;
    }
    t->kind = TK_NUMBER;
    t->loc = loc_at(lx, start);
    t->text = text + start;
    t->len = p - start;
    t->is_int = is_int;
    lx->pos = p;
    if (!ok) {
        t->num = 0;
        return -1;
    }
    char *copy = arena_strndup(lx->arena, text + start, t->len);
    t->num = strtod(copy, NULL);
    if (is_int && t->num > (double)INT_MAX) {
        diag_error(lx->diag, t->loc, "integer '%s' is out of range (the limit is %d)", copy, INT_MAX);
        return -1;
    }
    if (t->num > FLT_MAX) {
        diag_error(lx->diag, t->loc, "number '%s' is out of range for f32", copy);
        return -1;
    }
    return 0;
}

static int lex_string(fg_lexer *lx, fg_token *t)
{
    const char *text = lx->src->text;
    size_t len = lx->src->len, start = lx->pos, p = start + 1;
    fg_loc loc = loc_at(lx, start);
    int rc = 0;
    size_t end = p;
    while (end < len && text[end] != '"' && text[end] != '\n') {
        if (text[end] == '\\' && end + 1 < len && text[end + 1] != '\n')
            end++;
        end++;
    }
    if (end >= len || text[end] != '"') {
        diag_error(lx->diag, loc, "unterminated string: a string ends with '\"' on the same line");
        lx->pos = end;
        t->kind = TK_STRING;
        t->loc = loc;
        t->text = text + start;
        t->len = end - start;
        t->str = arena_strdup(lx->arena, "");
        return -1;
    }
    /* The value is never longer than the literal. */
    char *value = arena_alloc(lx->arena, end - p + 1);
    size_t n = 0;
    while (p < end) {
        if (text[p] == '\\') {
            char e = text[p + 1];
            if (e == '"' || e == '\\') {
                value[n++] = e;
            } else {
                diag_error(lx->diag, loc_at(lx, p),
                           "unknown escape '\\%c' in string: only '\\\"' and '\\\\' are allowed",
                           e);
                rc = -1;
            }
            p += 2;
        } else {
            value[n++] = text[p++];
        }
    }
    value[n] = '\0';
    t->kind = TK_STRING;
    t->loc = loc;
    t->text = text + start;
    t->len = end + 1 - start;
    t->str = value;
    lx->pos = end + 1;
    return rc;
}

/* Where end of file is reported: just after the last character, or at the
 * final newline when the file ends with one (so it points at a real line). */
static fg_loc eof_loc(const fg_lexer *lx)
{
    const char *text = lx->src->text;
    size_t len = lx->src->len;
    if (len == 0)
        return (fg_loc){1, 1};
    if (text[len - 1] != '\n' || lx->line == 1)
        return loc_at(lx, len);
    size_t ls = len - 1;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    return (fg_loc){lx->line - 1, (int)(len - 1 - ls) + 1};
}

static int lex_operator(fg_lexer *lx, fg_token *t)
{
    const char *s = lx->src->text + lx->pos;
    size_t left = lx->src->len - lx->pos;
    char c = s[0], c1 = left > 1 ? s[1] : '\0';
    fg_tok_kind k;
    size_t n = 1;
    switch (c) {
    case '(': k = TK_LPAREN; break;
    case ')': k = TK_RPAREN; break;
    case '[': k = TK_LBRACKET; break;
    case ']': k = TK_RBRACKET; break;
    case '{': k = TK_LBRACE; break;
    case '}': k = TK_RBRACE; break;
    case ',': k = TK_COMMA; break;
    case ':': k = TK_COLON; break;
    case '+': k = TK_PLUS; break;
    case '-': k = TK_MINUS; break;
    case '*': k = TK_STAR; break;
    case '/': k = TK_SLASH; break;
    case '^': k = TK_CARET; break;
    case '=': k = c1 == '=' ? (n = 2, TK_EQ) : TK_ASSIGN; break;
    case '<': k = c1 == '=' ? (n = 2, TK_LE) : TK_LT; break;
    case '>': k = c1 == '=' ? (n = 2, TK_GE) : TK_GT; break;
    case '!': k = c1 == '=' ? (n = 2, TK_NE) : TK_NOT; break;
    case '&':
        if (c1 != '&')
            return 0;
        k = TK_AND;
        n = 2;
        break;
    case '|':
        if (c1 != '|')
            return 0;
        k = TK_OR;
        n = 2;
        break;
    default:
        return 0;
    }
    t->kind = k;
    t->loc = loc_at(lx, lx->pos);
    t->text = s;
    t->len = n;
    lx->pos += n;
    return 1;
}

int lex_next(fg_lexer *lx, fg_token *t)
{
    const char *text = lx->src->text;
    size_t len = lx->src->len;
    int rc = 0;
    memset(t, 0, sizeof *t);
    for (;;) {
        if (diag_full(lx->diag))
            lx->pos = len; /* enough errors: stop here */
        if (lx->pos >= len) {
            t->kind = TK_EOF;
            t->loc = eof_loc(lx);
            t->text = text + len;
            lx->newline_pending = false;
            return rc;
        }
        size_t pos = lx->pos;
        char c = text[pos];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
            continue;
        }
        if (c == '\n') {
            fg_loc loc = loc_at(lx, pos);
            lx->pos++;
            lx->line++;
            lx->line_start = lx->pos;
            if (lx->newline_pending)
                continue;
            lx->newline_pending = true;
            t->kind = TK_NEWLINE;
            t->loc = loc;
            t->text = text + pos;
            t->len = 1;
            return rc;
        }
        if (c == '#') {
            const char *nl = memchr(text + pos, '\n', len - pos);
            lx->pos = nl ? (size_t)(nl - text) : len;
            continue;
        }
        if (c == '/' && pos + 1 < len && text[pos + 1] == '*') {
            fg_loc loc = loc_at(lx, pos);
            size_t p = pos + 2;
            while (p < len && !(text[p] == '*' && p + 1 < len && text[p + 1] == '/')) {
                if (text[p] == '\n') {
                    lx->line++;
                    lx->line_start = p + 1;
                }
                p++;
            }
            if (p >= len) {
                diag_error(lx->diag, loc, "unterminated comment: '/*' has no matching '*/'");
                rc = -1;
                lx->pos = len;
                continue;
            }
            lx->pos = p + 2;
            continue;
        }
        lx->newline_pending = false;
        if (is_ident_start((unsigned char)c)) {
            size_t p = pos;
            while (p < len && is_ident_char((unsigned char)text[p]))
                p++;
            t->kind = TK_IDENT;
            t->loc = loc_at(lx, pos);
            t->text = text + pos;
            t->len = p - pos;
            lx->pos = p;
            for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
                if (strlen(keywords[i].word) == t->len &&
                    memcmp(keywords[i].word, t->text, t->len) == 0) {
                    t->kind = keywords[i].kind;
                    return rc;
                }
            }
            if (t->len >= 3 && (memcmp(t->text, "fg_", 3) == 0 || memcmp(t->text, "m4_", 3) == 0)) {
                diag_error(lx->diag, t->loc,
                           "reserved name '%.*s': names beginning with 'fg_' or 'm4_' belong to "
                           "the generator",
                           (int)t->len, t->text);
                rc = -1;
            }
            return rc;
        }
        if (is_digit((unsigned char)c) ||
            (c == '.' && pos + 1 < len && is_digit((unsigned char)text[pos + 1]))) {
            if (lex_number(lx, t) < 0)
                rc = -1;
            return rc;
        }
        if (c == '"') {
            if (lex_string(lx, t) < 0)
                rc = -1;
            return rc;
        }
        if (lex_operator(lx, t))
            return rc;
        lx->pos += bad_character(lx, pos);
        rc = -1;
    }
}

int lex_source(fg_arena *a, const fg_source *src, fg_diag *d, fg_token **out, int *ntokens)
{
    fg_lexer lx;
    lexer_init(&lx, a, src, d);
    int n = 0, cap = 64, rc = 0;
    fg_token *toks = ARENA_ARRAY(a, fg_token, cap);
    for (;;) {
        if (n == cap) {
            fg_token *bigger = ARENA_ARRAY(a, fg_token, cap * 2);
            memcpy(bigger, toks, sizeof(fg_token) * (size_t)n);
            toks = bigger;
            cap *= 2;
        }
        if (lex_next(&lx, &toks[n]) < 0)
            rc = -1;
        if (toks[n++].kind == TK_EOF)
            break;
    }
    *out = toks;
    *ntokens = n;
    return rc;
}
