/* tune.h - fusegen-tune's parts (docs/tuning.md): the sweep and its shape
 * buckets (sweep.c; the bucket is the runtime's, fg_tune_bucket), the
 * program (fusegen-tune.c). */
#ifndef FUSEGEN_TUNE_H
#define FUSEGEN_TUNE_H

#include <stdbool.h>
#include <stdio.h>

enum { TUNE_BF16 = 1, TUNE_FP16 = 2 };
#define TUNE_MAX_POINTS 256
#define TUNE_MAX_SHAPES 16

typedef struct tune_point {
    bool decode;
    long batch, len;
} tune_point;

typedef struct tune_sweep {
    int dims[8], ndims;
    unsigned dtypes;
    int heads;
    int groups[8], ngroups;
    tune_point points[TUNE_MAX_POINTS];
    int npoints;
} tune_sweep;

/* One launch shape: batch, query heads, kv heads, query rows, keys. */
typedef struct tune_shape {
    long b, hq, hkv, m, n;
} tune_shape;

/* The shapes of one bucket (ceil(log2 keys), ceil(log2 (b hq m))): a
 * variant's time in the bucket is the sum of its times on them. */
typedef struct tune_bucket {
    int keys, work;
    int nshapes;
    tune_shape shapes[TUNE_MAX_SHAPES];
} tune_bucket;

extern const char tune_default_sweep[];
/* Parses a sweep; errors "NAME:LINE: error: ..." on err; -1 on error. */
int sweep_parse(const char *name, const char *text, tune_sweep *sw, FILE *err);
/* The buckets of a plan of the split form (decode) or not, grouping heads
 * or not, into out[0..max); their number, -1 past max. */
int sweep_buckets(const tune_sweep *sw, bool decode, bool grouped, tune_bucket *out, int max);

#endif
