/* fusegen_internal.h - what the runtime and the generated entry points share
 * and the public header does not promise: error recording and argument
 * validation.  C11 and C++ compatible. */
#ifndef FUSEGEN_INTERNAL_H
#define FUSEGEN_INTERNAL_H

#include "fusegen.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FG_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define FG_PRINTF_LIKE(f, a)
#endif

/* Record the message that fg_last_error() returns on this thread (truncated
 * to 511 bytes) and return s, so that callers can `return fg_set_error(...)`. */
fg_status fg_set_error(fg_status s, const char *fmt, ...) FG_PRINTF_LIKE(2, 3);

/* Bits of fg_check_tensor's dtype_mask: the accepted element types, and
 * flags above them. */
#define FG_DTYPE_BIT(t) (1u << (unsigned)(t))
#define FG_DTYPES_ALL                                                       \
    (FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16) | FG_DTYPE_BIT(FG_F32) | \
     FG_DTYPE_BIT(FG_I32))
/* The innermost dimension must have stride 1 (vector loads along it). */
#define FG_CHECK_UNIT_INNER (1u << 16)

/* Validate one tensor argument: t and its data not NULL (data may be NULL
 * only when the tensor has no elements), rank == `rank` (1..FG_MAX_RANK),
 * no negative extent or stride, dtype among the FG_DTYPE_BITs of
 * dtype_mask, stride 1 innermost when FG_CHECK_UNIT_INNER is set, and, when
 * align_bytes > 0 (a power of two), the data pointer and every stride in
 * bytes multiples of align_bytes (a unit innermost stride and the strides
 * of extent-1 dimensions are exempt; a tensor with no elements is not
 * checked for alignment: it reads nothing).  Returns FG_OK, or the status after
 * fg_set_error with a message that names the argument `name`. */
fg_status fg_check_tensor(const fg_tensor *t, const char *name, int rank,
                          unsigned dtype_mask, int64_t align_bytes);

/* A value per row that a GPU attention entry writes beside O (the
 * log-sum-exp, the row max, ...), named `name` in messages of `entry`:
 * NULL data asks for it not to be computed (*out = NULL); else it must be
 * an f32 tensor of rank 3 with a unit inner stride, laid out densely as
 * [B, Hq, M] (its shape was checked against the plan's dims before), and
 * *out is its data. */
fg_status fg_check_row_output(const fg_tensor *t, const char *entry, const char *name,
                              int64_t B, int64_t Hq, int64_t M, float **out);

/* Tuned dispatch (docs/tuning.md).  A wisdom row as the generated
 * dispatch holds it: the dtype (1 bf16, 2 fp16), the compiled head dim, the
 * shape bucket (keys: ceil(log2 keys); work: ceil(log2 (batch x query heads
 * x rows))) and the variant it takes (an index of the plan's tuned
 * variants, or a split count). */
typedef struct fg_tune_row {
    int dtype, d, keys, work, variant;
    int line; /* of the row in its wisdom file */
} fg_tune_row;
/* One device's rows: the device name and SM count its wisdom file names. */
typedef struct fg_tune_table {
    const char *device;
    int sms;
    const char *file;
    const fg_tune_row *rows;
    int nrows;
} fg_tune_table;
/* Records, for fg_last_config(), the configuration a launch of `entry`
 * takes: file and line name the wisdom row that chose it (or its split
 * count), NULL and 0 the default rules.  All strings must be static. */
void fg_note_config(const char *entry, const char *config, const char *file, int line);
/* ceil(log2 n) for n >= 1; 0 for n <= 1. */
int fg_tune_bucket(long long n);
/* The row of rows[0..n) for (dtype, d) whose bucket is nearest (keys,
 * work): the smallest |keys - row.keys| + |work - row.work|, the first of
 * equals; -1 when no row has that dtype and head dim. */
int fg_tune_lookup(const fg_tune_row *rows, int n, int dtype, int d, int keys, int work);
/* The table of tables[0..n) for a device of that name and SM count, or -1.
 * $FUSEGEN_WISDOM_DEVICE, when set, names the device instead (the rows of
 * another device, to compare wisdom across devices): its table whatever
 * the SM count, -1 when none has that name. */
int fg_tune_table_for(const fg_tune_table *tables, int n, const char *device, int sms);
/* $FUSEGEN_CONFIG, the name of a compiled tuned configuration that every
 * launch of a head dim it serves takes in place of the table's (tests:
 * gpu_check --config walks them), or NULL when unset or empty.  Read at
 * each launch that has tuned configurations. */
const char *fg_forced_config(void);

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_INTERNAL_H */
