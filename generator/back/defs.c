/* defs.c - the definitions file m4 reads, written the way Bison does it.
 *
 * A leaf of the generator: the backends' lowerings and emit.c call it, it
 * calls nothing above it.  C computes every value; these few typed helpers
 * write them as m4 definitions, all through one escaping function
 * (m4_escape), so that no text of the user's or of a lowering can end a
 * quote or name a macro.  templates/README.md lists every definition.
 */
#include "generator.h"

#include <string.h>

typedef fg_strbuf sbuf;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts
#define sb_str strbuf_str

/* ------------------------------------------------------------------ */
/* Definitions                                                         */
/* ------------------------------------------------------------------ */

struct fg_defs {
    fg_arena *a;
    sbuf text;
};

/* The quotes the templates use: they never occur in an escaped value, and
 * the templates avoid them in C (no a[b[c[i]]]). */
#define LQ "[[["
#define RQ "]]]"

fg_defs *defs_create(fg_arena *a)
{
    fg_defs *d = ARENA_NEW(a, fg_defs);
    d->a = a;
    d->text.a = a;
    sb_puts(&d->text, "m4_changequote(`" LQ "', `" RQ "')m4_dnl\n"
                      "m4_divert(-1)\n"
                      "# Definitions written by fusegen (templates/README.md lists them).\n");
    return d;
}

char *m4_escape(fg_arena *a, const char *text)
{
    sbuf b = {a, NULL, 0, 0};
    for (const char *s = text; *s; s++) {
        if (*s == '@')
            sb_puts(&b, "@@");
        else if (*s == '[')
            sb_puts(&b, "@{");
        else if (*s == ']')
            sb_puts(&b, "@}");
        else if (*s == '$') /* $1, $@ would be arguments in a macro body */
            sb_puts(&b, "@D");
        else if ((s[0] == 'f' && s[1] == 'g' && s[2] == '_') ||
                 (s[0] == 'm' && s[1] == '4' && s[2] == '_')) {
            sb_putn(&b, s, 2);
            sb_puts(&b, "@&");
            s++; /* the '_' is copied by the next round */
        } else
            sb_putn(&b, s, 1);
    }
    return (char *)sb_str(&b);
}

static void def_raw(fg_defs *d, const char *name, const char *escaped)
{
    sb_puts(&d->text, "m4_define(" LQ "fg_");
    sb_puts(&d->text, name);
    sb_puts(&d->text, RQ ", " LQ);
    sb_puts(&d->text, escaped);
    sb_puts(&d->text, RQ ")\n");
}

void fg_def_int(fg_defs *d, const char *name, long v)
{
    def_raw(d, name, arena_printf(d->a, "%ld", v));
}

void fg_def_str(fg_defs *d, const char *name, const char *text)
{
    char *t = arena_strdup(d->a, text ? text : "");
    for (char *s = t; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
    def_raw(d, name, m4_escape(d->a, t));
}

void fg_def_code(fg_defs *d, const char *name, const char *code)
{
    def_raw(d, name, m4_escape(d->a, code ? code : ""));
}

void fg_def_bool(fg_defs *d, const char *name, int v)
{
    def_raw(d, name, arena_printf(d->a, "%d", v));
    sb_puts(&d->text, arena_printf(d->a,
                                   "m4_define(" LQ "fg_%s_if" RQ ", " LQ "fg_bool_if(" LQ "%s" RQ
                                   ", fg_%s, $@)" RQ ")\n",
                                   name, name, name));
}

const char *defs_text(const fg_defs *d)
{
    return d->text.s;
}

