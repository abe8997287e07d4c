/* sweep.c - the shape sweep of fusegen-tune (docs/tuning.md, "Sweep files")
 * and its shape buckets.
 *
 *   dims D...            head dims tuned
 *   dtypes bf16 fp16     element types tuned
 *   heads H              query heads of every point
 *   groups G...          query heads per kv head (plans that group heads)
 *   prefill B L...       points: batch B, L query rows = L keys
 *   decode B L...        points: batch B, one query row, L keys
 *
 * '#' starts a comment line.  Errors are "FILE:LINE: error: ...".
 */
#include "tune.h"

#include "fusegen_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char tune_default_sweep[] =
    "# The default sweep (docs/tuning.md)\n"
    "dims 64 128\n"
    "dtypes bf16 fp16\n"
    "heads 16\n"
    "groups 1 2 4 8\n"
    "prefill 1 256 512 1024 2048 4096 8192 16384 32768\n"
    "prefill 2 8192\n"
    "prefill 4 8192\n"
    "prefill 8 8192\n"
    "prefill 16 8192\n"
    "prefill 32 8192\n"
    "prefill 64 1024\n"
    "prefill 32 2048\n"
    "decode 1 256 512 1024 2048 4096 8192 16384 32768\n"
    "decode 2 8192\n"
    "decode 4 8192\n"
    "decode 8 8192\n"
    "decode 16 8192\n"
    "decode 32 8192\n";

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int sweep_parse(const char *name, const char *text, tune_sweep *sw, FILE *err)
{
    memset(sw, 0, sizeof *sw);
    sw->heads = 16;
    int line = 0;
    const char *s = text;
    while (*s) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        char buf[1024];
        if (len >= sizeof buf) {
            fprintf(err, "%s:%d: error: line too long\n", name, line);
            return -1;
        }
        memcpy(buf, s, len);
        buf[len] = 0;
        s = eol ? eol + 1 : s + len;
        char *f[64];
        int n = 0;
        for (char *t = strtok(buf, " \t\r"); t && n < 64; t = strtok(NULL, " \t\r"))
            f[n++] = t;
        if (n == 0 || f[0][0] == '#')
            continue;
        long v;
        if (!strcmp(f[0], "dims") || !strcmp(f[0], "groups")) {
            bool dims = f[0][0] == 'd';
            int *arr = dims ? sw->dims : sw->groups, *cnt = dims ? &sw->ndims : &sw->ngroups;
            *cnt = 0;
            for (int i = 1; i < n; i++) {
                if (parse_long(f[i], 1, dims ? 256 : 64, &v) < 0 || *cnt == 8 ||
                    (dims && v % 8)) {
                    fprintf(err, "%s:%d: error: bad %s value '%s' (%s)\n", name, line, f[0], f[i],
                            dims ? "a multiple of 8 up to 256, 8 values at most"
                                 : "1 to 64, 8 values at most");
                    return -1;
                }
                arr[(*cnt)++] = (int)v;
            }
        } else if (!strcmp(f[0], "dtypes")) {
            sw->dtypes = 0;
            for (int i = 1; i < n; i++) {
                if (!strcmp(f[i], "bf16"))
                    sw->dtypes |= TUNE_BF16;
                else if (!strcmp(f[i], "fp16"))
                    sw->dtypes |= TUNE_FP16;
                else {
                    fprintf(err, "%s:%d: error: dtype '%s': expected bf16 or fp16\n", name, line,
                            f[i]);
                    return -1;
                }
            }
        } else if (!strcmp(f[0], "heads")) {
            if (n != 2 || parse_long(f[1], 1, 1024, &v) < 0) {
                fprintf(err, "%s:%d: error: 'heads' takes one count from 1 to 1024\n", name, line);
                return -1;
            }
            sw->heads = (int)v;
        } else if (!strcmp(f[0], "prefill") || !strcmp(f[0], "decode")) {
            long b;
            if (n < 3 || parse_long(f[1], 1, 4096, &b) < 0) {
                fprintf(err, "%s:%d: error: '%s' takes a batch (1 to 4096) and lengths\n", name,
                        line, f[0]);
                return -1;
            }
            for (int i = 2; i < n; i++) {
                if (parse_long(f[i], 1, 1L << 20, &v) < 0 || sw->npoints == TUNE_MAX_POINTS) {
                    fprintf(err, "%s:%d: error: bad length '%s' (1 to 1048576; %d points at most)\n",
                            name, line, f[i], TUNE_MAX_POINTS);
                    return -1;
                }
                sw->points[sw->npoints++] = (tune_point){f[0][0] == 'd', b, v};
            }
        } else {
            fprintf(err,
                    "%s:%d: error: unknown sweep line '%s': expected dims, dtypes, heads, "
                    "groups, prefill or decode\n",
                    name, line, f[0]);
            return -1;
        }
    }
    if (!sw->ndims || !sw->dtypes || !sw->npoints) {
        fprintf(err, "%s: error: a sweep needs dims, dtypes and at least one point\n", name);
        return -1;
    }
    if (!sw->ngroups)
        sw->groups[sw->ngroups++] = 1;
    return 0;
}

/* The buckets of one plan: its points (prefill or decode, by form), each
 * with every group the plan takes, grouped by (keys, work). */
int sweep_buckets(const tune_sweep *sw, bool decode, bool grouped, tune_bucket *out, int max)
{
    int n = 0;
    for (int i = 0; i < sw->npoints; i++) {
        const tune_point *p = &sw->points[i];
        if (p->decode != decode)
            continue;
        for (int g = 0; g < (grouped ? sw->ngroups : 1); g++) {
            const int group = grouped ? sw->groups[g] : 1;
            if (sw->heads % group)
                continue;
            tune_shape sh = {p->batch, sw->heads, sw->heads / group, decode ? 1 : p->len, p->len};
            const int keys = fg_tune_bucket(sh.n);
            const int work = fg_tune_bucket((long long)sh.b * sh.hq * sh.m);
            int at = -1;
            for (int j = 0; j < n; j++)
                if (out[j].keys == keys && out[j].work == work)
                    at = j;
            if (at < 0) {
                if (n == max)
                    return -1;
                at = n++;
                out[at] = (tune_bucket){keys, work, 0, {{0}}};
            }
            if (out[at].nshapes < TUNE_MAX_SHAPES)
                out[at].shapes[out[at].nshapes++] = sh;
        }
    }
    return n;
}
