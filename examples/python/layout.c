/* layout.c - the byte layout of fg_tensor and fg_gqa_args as this C
 * compiler lays them out, for fusegen_attn.py: its ctypes mirror of the
 * structs is written by hand, and a field out of place would pass garbage
 * to the library without any error.  The module compares its own offsets
 * with these on load and refuses to run on a difference.  The order of the
 * values is fixed; fusegen_attn.py (LAYOUT_FIELDS) lists the same names. */
#include <stddef.h>
#include <stdint.h>

#include "fusegen.h"
#include "fusegen_gqa.h"

/* Writes at most n values into out and returns how many there are. */
int fgpy_layout(int64_t *out, int n);

int fgpy_layout(int64_t *out, int n)
{
    const int64_t v[] = {
        FG_MAX_RANK,
        FG_BF16, FG_FP16, FG_F32, FG_I32,
        FG_OK,
        (int64_t)sizeof(fg_dtype),
        (int64_t)sizeof(fg_tensor),
        (int64_t)offsetof(fg_tensor, data),
        (int64_t)offsetof(fg_tensor, dtype),
        (int64_t)offsetof(fg_tensor, rank),
        (int64_t)offsetof(fg_tensor, shape),
        (int64_t)offsetof(fg_tensor, stride),
        (int64_t)sizeof(fg_gqa_args),
        (int64_t)offsetof(fg_gqa_args, Q),
        (int64_t)offsetof(fg_gqa_args, K),
        (int64_t)offsetof(fg_gqa_args, V),
        (int64_t)offsetof(fg_gqa_args, O),
        (int64_t)offsetof(fg_gqa_args, LSE),
        (int64_t)offsetof(fg_gqa_args, G),
        (int64_t)offsetof(fg_gqa_args, has_G),
        (int64_t)offsetof(fg_gqa_args, scale),
        (int64_t)offsetof(fg_gqa_args, has_scale),
        (int64_t)offsetof(fg_gqa_args, splits),
    };
    const int count = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < count && i < n; i++)
        out[i] = v[i];
    return count;
}
