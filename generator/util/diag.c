/* diag.c - sources and diagnostics.
 *
 * A diagnostic prints as "name:line:col: error: message", then the source
 * line and a caret under the column (chibicc style).  Errors are counted and
 * printing stops after max_errors (lemon style: report many, then stop). */
#include "generator.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_DEFAULT_MAX 50
/* Lines longer than this are shown as a window around the column. */
#define DIAG_LINE_WINDOW 120

typedef enum diag_kind { DK_ERROR, DK_WARNING, DK_NOTE, DK_INTERNAL } diag_kind;

static const char *const diag_kind_names[] = {"error", "warning", "note", "internal error"};

void diag_init(fg_diag *d, const fg_source *src, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->src = src;
    d->out = out;
}

static int diag_limit(const fg_diag *d)
{
    return d->max_errors > 0 ? d->max_errors : DIAG_DEFAULT_MAX;
}

bool diag_full(const fg_diag *d)
{
    return d->errors >= diag_limit(d);
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 if it is not one
 * (overlong forms, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x3fu >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Offset of line `line` (1-based) in the source, or SIZE_MAX if the source
 * has no such line.  Uses the cache in d so that reports in source order
 * scan the file once. */
static size_t line_offset(fg_diag *d, const fg_source *src, int line)
{
    size_t off = 0;
    int no = 1;
    if (d->line_src == src && d->line_no <= line && d->line_no > 0) {
        off = d->line_off;
        no = d->line_no;
    }
    while (no < line) {
        const char *nl = memchr(src->text + off, '\n', src->len - off);
        if (!nl)
            return SIZE_MAX;
        off = (size_t)(nl - src->text) + 1;
        no++;
    }
    d->line_src = src;
    d->line_no = no;
    d->line_off = off;
    return off;
}

/* Print bytes [b, e) of a source line: control characters and invalid
 * UTF-8 become '?', so a diagnostic never copies binary to the terminal. */
static void print_line_bytes(FILE *f, const unsigned char *b, const unsigned char *e)
{
    while (b < e) {
        size_t n = utf8_seq_len(b, (size_t)(e - b));
        if (n == 0 || (n == 1 && ((*b < 0x20 && *b != '\t') || *b == 0x7f))) {
            fputc('?', f);
            b++;
            continue;
        }
        fwrite(b, 1, n, f);
        b += n;
    }
}

/* Spaces (tabs kept) under bytes [b, e), one per character. */
static void print_caret_pad(FILE *f, const unsigned char *b, const unsigned char *e)
{
    while (b < e) {
        size_t n = utf8_seq_len(b, (size_t)(e - b));
        fputc(*b == '\t' ? '\t' : ' ', f);
        b += n ? n : 1;
    }
}

static void print_source_line(fg_diag *d, const fg_source *src, fg_loc loc)
{
    if (!src->text || src->len == 0)
        return;
    size_t off = line_offset(d, src, loc.line);
    if (off == SIZE_MAX || off > src->len)
        return;
    const unsigned char *text = (const unsigned char *)src->text;
    const unsigned char *end = memchr(text + off, '\n', src->len - off);
    if (!end)
        end = text + src->len;
    const unsigned char *b = text + off;
    size_t linelen = (size_t)(end - b);
    size_t col = loc.col > 0 ? (size_t)loc.col - 1 : 0;
    if (col > linelen)
        col = linelen;
    const unsigned char *caret = b + col;
    const unsigned char *show_b = b, *show_e = end;
    if (linelen > DIAG_LINE_WINDOW) {
        if (col > DIAG_LINE_WINDOW / 2)
            show_b = caret - DIAG_LINE_WINDOW / 2;
        while (show_b > b && (*show_b & 0xc0) == 0x80)
            show_b--;
        if ((size_t)(end - show_b) > DIAG_LINE_WINDOW) {
            show_e = show_b + DIAG_LINE_WINDOW;
            while (show_e < end && (*show_e & 0xc0) == 0x80)
                show_e++;
        }
    }
    FILE *f = d->out;
    if (show_b > b)
        fputs("...", f);
    print_line_bytes(f, show_b, show_e);
    if (show_e < end)
        fputs("...", f);
    fputc('\n', f);
    if (show_b > b)
        fputs("   ", f);
    print_caret_pad(f, show_b, caret);
    fputs("^\n", f);
}

static void report(fg_diag *d, diag_kind kind, fg_loc loc, const char *fmt, va_list ap)
{
    if (kind == DK_ERROR || kind == DK_INTERNAL)
        d->errors++;
    else if (kind == DK_WARNING)
        d->warnings++;
    if (kind == DK_INTERNAL)
        d->fatal++;
    if (d->muted || !d->out)
        return;
    FILE *f = d->out;
    const fg_source *src = d->src;
    if (src && loc.line > 0)
        fprintf(f, "%s:%d:%d: %s: ", src->name, loc.line, loc.col, diag_kind_names[kind]);
    else
        fprintf(f, "%s: %s: ", src ? src->name : "fusegen", diag_kind_names[kind]);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    if (src && loc.line > 0)
        print_source_line(d, src, loc);
    if ((kind == DK_ERROR || kind == DK_INTERNAL) && d->errors >= diag_limit(d)) {
        fprintf(f, "%s: note: too many errors (%d); stopping\n", src ? src->name : "fusegen",
                d->errors);
        d->muted = true;
    }
}

void diag_error(fg_diag *d, fg_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_ERROR, loc, fmt, ap);
    va_end(ap);
}

void diag_warning(fg_diag *d, fg_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_WARNING, loc, fmt, ap);
    va_end(ap);
}

void diag_note(fg_diag *d, fg_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_NOTE, loc, fmt, ap);
    va_end(ap);
}

void diag_internal(fg_diag *d, fg_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_INTERNAL, loc, fmt, ap);
    va_end(ap);
}

void diag_io_error(fg_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_ERROR, (fg_loc){0, 0}, fmt, ap);
    va_end(ap);
    d->fatal++;
}

void source_from_string(fg_source *out, const char *name, const char *text)
{
    out->name = name;
    out->text = text;
    out->len = strlen(text);
}

/* Report a problem of the file itself at byte `off` (or without a location
 * when off is SIZE_MAX), through a temporary source so that the line and
 * caret print even though d has no source yet. */
static void report_file(fg_diag *d, const fg_source *file, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report_file(fg_diag *d, const fg_source *file, size_t off, const char *fmt, ...)
{
    fg_loc loc = {0, 0};
    if (off != SIZE_MAX) {
        loc.line = 1;
        size_t line_start = 0;
        for (size_t i = 0; i < off; i++) {
            if (file->text[i] == '\n') {
                loc.line++;
                line_start = i + 1;
            }
        }
        loc.col = (int)(off - line_start) + 1;
    }
    const fg_source *saved = d->src;
    d->src = file;
    va_list ap;
    va_start(ap, fmt);
    report(d, DK_ERROR, loc, fmt, ap);
    va_end(ap);
    d->src = saved;
    d->line_src = NULL;
}

int source_read(fg_arena *a, const char *path, fg_source *out, fg_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_io_error(d, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1u << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        diag_io_error(d, "cannot read '%s': out of memory", path);
        return -1;
    }
    bool too_big = false;
    for (;;) {
        if (len == cap) {
            if (cap > FG_MAX_SOURCE_BYTES) {
                too_big = true;
                break;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(f);
                diag_io_error(d, "cannot read '%s': out of memory", path);
                return -1;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    bool failed = ferror(f) != 0;
    int err = errno;
    fclose(f);
    if (failed) {
        free(buf);
        diag_io_error(d, "cannot read '%s': %s", path, strerror(err));
        return -1;
    }
    fg_source file = {path, NULL, 0};
    if (too_big || len > FG_MAX_SOURCE_BYTES) {
        free(buf);
        report_file(d, &file, SIZE_MAX, "file is larger than %u MiB; plans are small text files",
                    FG_MAX_SOURCE_BYTES >> 20);
        return -1;
    }
    char *text = arena_strndup(a, buf, len);
    free(buf);
    file.text = text;
    file.len = len;
    const unsigned char *u = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        if (u[i] == 0) {
            report_file(d, &file, i, "NUL byte in the file: a plan must be UTF-8 text");
            return -1;
        }
        size_t n = utf8_seq_len(u + i, len - i);
        if (n == 0) {
            report_file(d, &file, i, "invalid UTF-8 (byte 0x%02x): a plan must be UTF-8 text",
                        u[i]);
            return -1;
        }
        i += n;
    }
    *out = file;
    return 0;
}
