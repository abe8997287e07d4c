/* wisdom.c - the wisdom file reader (the format: docs/tuning.md).
 *
 *   fusegen-wisdom 1                   first line that is not a comment
 *   KEY VALUE...                       the header, each key once
 *   row PLAN HASH DTYPE D KEYS WORK VARIANT MS RUNNER RUNNER_MS SPREAD
 *
 * Lines are split at blanks; '#' starts a comment line.  Every fault is a
 * located error and makes the whole file unusable: a file is trusted as a
 * whole or not at all, never in part.  fusegen-tune writes these files
 * (tune/wisdom_out.c); a person may edit them.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

typedef struct field {
    const char *text;
    int len;
    fg_loc loc;
} field;

typedef struct reader {
    fg_arena *a;
    fg_diag *d;
    fg_wisdom *w;
    int line;
} reader;

static char *field_str(reader *r, const field *f)
{
    return arena_printf(r->a, "%.*s", f->len, f->text);
}

static bool field_is(const field *f, const char *s)
{
    return (int)strlen(s) == f->len && !strncmp(f->text, s, (size_t)f->len);
}

/* An integer in [lo, hi]. */
static int get_int(reader *r, const field *f, const char *what, long lo, long hi, long *out)
{
    char *s = field_str(r, f), *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        diag_error(r->d, f->loc, "%s '%s' is not an integer from %ld to %ld", what, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* A finite number >= 0 (> 0 when positive). */
static int get_num(reader *r, const field *f, const char *what, bool positive, double *out)
{
    char *s = field_str(r, f), *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0 || (positive && v == 0)) {
        diag_error(r->d, f->loc, "%s '%s' is not a %s number", what, s,
                   positive ? "positive" : "non-negative");
        return -1;
    }
    *out = v;
    return 0;
}

/* A name: letters, digits, '_', '=' (a variant), '.', '-'. */
static int get_name(reader *r, const field *f, const char *what, char **out)
{
    for (int i = 0; i < f->len; i++) {
        unsigned char c = (unsigned char)f->text[i];
        if (!isalnum(c) && c != '_' && c != '=' && c != '.' && c != '-') {
            diag_error(r->d, (fg_loc){f->loc.line, f->loc.col + i},
                       "%s '%.*s' has a character that no name has", what, f->len, f->text);
            return -1;
        }
    }
    *out = field_str(r, f);
    return 0;
}

/* The rest of the line from field i on, blanks kept (the device name). */
static char *rest(reader *r, const field *fs, int n, int i)
{
    const field *last = &fs[n - 1];
    return arena_printf(r->a, "%.*s", (int)(last->text + last->len - fs[i].text), fs[i].text);
}

static int header_line(reader *r, const field *fs, int n, unsigned *seen)
{
    static const char *const keys[] = {"fusegen", "templates", "nvcc", "driver", "device",
                                       "cc",      "sms",       "memclock", "date"};
    fg_wisdom *w = r->w;
    int key = -1;
    for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
        if (field_is(&fs[0], keys[i]))
            key = i;
    if (key < 0) {
        diag_error(r->d, fs[0].loc,
                   "unknown wisdom line '%.*s': expected row or a header key (fusegen, "
                   "templates, nvcc, driver, device, cc, sms, memclock, date)",
                   fs[0].len, fs[0].text);
        return -1;
    }
    if (*seen & (1u << key)) {
        diag_error(r->d, fs[0].loc, "header key '%s' given twice", keys[key]);
        return -1;
    }
    *seen |= 1u << key;
    if (n < 2 || (key != 4 && n != 2)) {
        diag_error(r->d, fs[0].loc, "header key '%s' takes %s", keys[key],
                   key == 4 ? "a device name" : "one value");
        return -1;
    }
    long v = 0;
    switch (key) {
    case 0:
        w->fusegen = field_str(r, &fs[1]);
        break;
    case 1:
        w->templates = field_str(r, &fs[1]);
        w->templates_loc = fs[1].loc;
        if (fs[1].len != 16 || strspn(w->templates, "0123456789abcdef") != 16) {
            diag_error(r->d, fs[1].loc, "templates hash '%s' is not 16 hex digits", w->templates);
            return -1;
        }
        break;
    case 2:
        w->nvcc = field_str(r, &fs[1]);
        break;
    case 3:
        w->driver = field_str(r, &fs[1]);
        break;
    case 4:
        w->device = rest(r, fs, n, 1);
        break;
    case 5: {
        char *s = field_str(r, &fs[1]), *end = NULL;
        long major = strtol(s, &end, 10), minor = -1;
        if (end && *end == '.')
            minor = strtol(end + 1, &end, 10);
        if (!end || *end || major < 1 || major > 99 || minor < 0 || minor > 9) {
            diag_error(r->d, fs[1].loc, "compute capability '%s' is not MAJOR.MINOR", s);
            return -1;
        }
        w->cc_major = (int)major;
        w->cc_minor = (int)minor;
        break;
    }
    case 6:
        if (get_int(r, &fs[1], "SM count", 1, 4096, &v) < 0)
            return -1;
        w->sms = (int)v;
        break;
    case 7:
        if (get_int(r, &fs[1], "memory clock (kHz)", 1, 100000000, &v) < 0)
            return -1;
        w->memclock_khz = v;
        break;
    default:
        w->date = field_str(r, &fs[1]);
        break;
    }
    return 0;
}

static int row_line(reader *r, const field *fs, int n, fg_vec *rows)
{
    if (n != 12) {
        diag_error(r->d, fs[0].loc,
                   "a row has 11 fields (plan hash dtype d keys work variant ms runner "
                   "runner_ms spread); this one has %d",
                   n - 1);
        return -1;
    }
    fg_wisdom_row *w = ARENA_NEW(r->a, fg_wisdom_row);
    char *s;
    long v;
    w->loc = fs[0].loc;
    if (get_name(r, &fs[1], "plan", &s) < 0)
        return -1;
    w->plan = s;
    w->hash = field_str(r, &fs[2]);
    if (fs[2].len != 16 || strspn(w->hash, "0123456789abcdef") != 16) {
        diag_error(r->d, fs[2].loc, "plan hash '%s' is not 16 hex digits", w->hash);
        return -1;
    }
    if (field_is(&fs[3], "bf16"))
        w->dtype = CUDA_CFG_BF16;
    else if (field_is(&fs[3], "fp16"))
        w->dtype = CUDA_CFG_FP16;
    else {
        diag_error(r->d, fs[3].loc, "dtype '%.*s': expected bf16 or fp16", fs[3].len,
                   fs[3].text);
        return -1;
    }
    if (get_int(r, &fs[4], "head dim", 8, 256, &v) < 0)
        return -1;
    if (v % 8) {
        diag_error(r->d, fs[4].loc, "head dim %ld is not a multiple of 8", v);
        return -1;
    }
    w->d = (int)v;
    if (get_int(r, &fs[5], "keys bucket (log2)", 0, 31, &v) < 0)
        return -1;
    w->keys = (int)v;
    if (get_int(r, &fs[6], "work bucket (log2)", 0, 62, &v) < 0)
        return -1;
    w->work = (int)v;
    if (get_name(r, &fs[7], "variant", &s) < 0)
        return -1;
    w->variant = s;
    if (get_num(r, &fs[8], "time (ms)", true, &w->ms) < 0)
        return -1;
    if (get_name(r, &fs[9], "runner-up", &s) < 0)
        return -1;
    w->runner = s;
    if (get_num(r, &fs[10], "runner-up time (ms)", false, &w->runner_ms) < 0 ||
        get_num(r, &fs[11], "spread", false, &w->spread) < 0)
        return -1;
    for (int i = 0; i < rows->len; i++) {
        const fg_wisdom_row *o = rows->items[i];
        if (!strcmp(o->plan, w->plan) && o->dtype == w->dtype && o->d == w->d &&
            o->keys == w->keys && o->work == w->work) {
            diag_error(r->d, fs[0].loc,
                       "a second row for plan %s, %s, head dim %d, bucket (%d, %d): the "
                       "first is on line %d",
                       w->plan, w->dtype == CUDA_CFG_BF16 ? "bf16" : "fp16", w->d, w->keys,
                       w->work, o->loc.line);
            return -1;
        }
    }
    vec_push(r->a, rows, w);
    return 0;
}

int wisdom_parse(fg_arena *a, const fg_source *src, fg_diag *d, fg_wisdom **out)
{
    *out = NULL;
    fg_wisdom *w = ARENA_NEW(a, fg_wisdom);
    w->path = src->name;
    w->src = src;
    reader r = {a, d, w, 0};
    const int errors0 = d->errors;
    unsigned seen = 0;
    bool magic = false;
    fg_vec rows = {0};
    const char *s = src->text;
    int line = 0;
    while (*s && d->errors == errors0) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        field fs[MAX_FIELDS];
        int n = 0;
        size_t i = 0;
        while (i < len) {
            while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
                i++;
            if (i >= len)
                break;
            if (n == 0 && s[i] == '#')
                break;
            size_t j = i;
            while (j < len && s[j] != ' ' && s[j] != '\t' && s[j] != '\r')
                j++;
            if (n == MAX_FIELDS) {
                diag_error(d, (fg_loc){line, (int)i + 1}, "too many fields on one line");
                break;
            }
            fs[n++] = (field){s + i, (int)(j - i), {line, (int)i + 1}};
            i = j;
        }
        s = eol ? eol + 1 : s + len;
        if (n == 0 || d->errors != errors0)
            continue;
        if (!magic) {
            long v = 0;
            if (!field_is(&fs[0], "fusegen-wisdom") || n != 2) {
                diag_error(d, fs[0].loc,
                           "not a fusegen wisdom file: its first line must be "
                           "'fusegen-wisdom %d'",
                           FG_WISDOM_VERSION);
                break;
            }
            if (get_int(&r, &fs[1], "wisdom format version", 1, 1000, &v) < 0)
                break;
            if (v != FG_WISDOM_VERSION) {
                diag_error(d, fs[1].loc,
                           "wisdom format version %ld: this fusegen reads version %d", v,
                           FG_WISDOM_VERSION);
                break;
            }
            w->version = (int)v;
            magic = true;
        } else if (field_is(&fs[0], "row")) {
            static const char *const need[] = {"fusegen", "templates", "nvcc", "driver",
                                               "device",  "cc",        "sms",  "memclock"};
            for (int k = 0; k < 8; k++)
                if (!(seen & (1u << k))) {
                    diag_error(d, fs[0].loc,
                               "a row before the header's '%s' line: the header comes first, "
                               "complete",
                               need[k]);
                    break;
                }
            if (d->errors == errors0)
                row_line(&r, fs, n, &rows);
        } else {
            header_line(&r, fs, n, &seen);
        }
    }
    if (d->errors == errors0 && !magic)
        diag_error(d, (fg_loc){line ? line : 1, 1}, "not a fusegen wisdom file: it is empty");
    if (d->errors == errors0 && (seen & 0xffu) != 0xffu)
        diag_error(d, (fg_loc){line, 1}, "the header is incomplete: it needs fusegen, templates, "
                                         "nvcc, driver, device, cc, sms and memclock");
    if (d->errors != errors0)
        return -1;
    w->nrows = rows.len;
    w->rows = ARENA_ARRAY(a, fg_wisdom_row, rows.len + 1);
    for (int i = 0; i < rows.len; i++)
        w->rows[i] = *(fg_wisdom_row *)rows.items[i];
    *out = w;
    return 0;
}
