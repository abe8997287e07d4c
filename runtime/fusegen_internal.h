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

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_INTERNAL_H */
