/* fusegen.c - the runtime support library shared by every generated
 * library (CPU, CUDA, HIP): status messages, the per-thread last error,
 * dtype tables, host bf16/fp16 conversions and argument validation. */
#include "fusegen_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */
/* ------------------------------------------------------------------ */

static const char *const status_messages[FG_STATUS_COUNT] = {
    [FG_OK] = "success",
    [FG_ERR_NULL] = "a required pointer is NULL",
    [FG_ERR_SHAPE] = "tensor shapes disagree with each other or with the plan",
    [FG_ERR_DTYPE] = "element type not supported by this kernel",
    [FG_ERR_STRIDE] = "tensor strides not supported by this kernel",
    [FG_ERR_ALIGN] = "a pointer or stride is not aligned enough",
    [FG_ERR_UNSUPPORTED] = "no compiled kernel for these arguments",
    [FG_ERR_PARAM] = "a parameter value is out of range",
    [FG_ERR_WORKSPACE] = "workspace missing or too small",
    [FG_ERR_NOMEM] = "out of memory",
    [FG_ERR_DEVICE] = "no usable device, or a device query failed",
    [FG_ERR_LAUNCH] = "kernel launch failed",
};

const char *fg_strerror(fg_status s)
{
    if ((int)s < 0 || (int)s >= FG_STATUS_COUNT)
        return "unknown status";
    return status_messages[s];
}

#define FG_ERROR_BYTES 512
static _Thread_local char last_error[FG_ERROR_BYTES];

const char *fg_last_error(void)
{
    return last_error;
}

fg_status fg_set_error(fg_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------------ */
/* Dtypes and tensors                                                  */
/* ------------------------------------------------------------------ */

#define FG_DTYPE_COUNT 4
static const size_t dtype_sizes[FG_DTYPE_COUNT] = {2, 2, 4, 4};
static const char *const dtype_names[FG_DTYPE_COUNT] = {"bf16", "fp16", "f32", "i32"};

static int dtype_valid(fg_dtype t)
{
    return (int)t >= 0 && (int)t < FG_DTYPE_COUNT;
}

size_t fg_dtype_size(fg_dtype t)
{
    return dtype_valid(t) ? dtype_sizes[t] : 0;
}

const char *fg_dtype_name(fg_dtype t)
{
    return dtype_valid(t) ? dtype_names[t] : "unknown";
}

fg_tensor fg_tensor_dense(void *data, fg_dtype dtype, int rank, const int64_t *shape)
{
    fg_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    t.rank = rank;
    if (rank < 0 || rank > FG_MAX_RANK || (rank > 0 && !shape))
        return t; /* fg_check_tensor rejects it */
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        t.shape[i] = shape[i];
        t.stride[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* Host conversions (round to nearest even)                            */
/* ------------------------------------------------------------------ */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float fg_bf16_to_float(uint16_t x)
{
    return bits_float((uint32_t)x << 16);
}

uint16_t fg_float_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep sign and payload, quiet */
        return (uint16_t)((u >> 16) | 0x0040u);
    /* Adding 0x7fff plus the lowest kept bit rounds ties to even; a carry
     * into the exponent is the correct rounding (up to infinity). */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float fg_half_to_float(uint16_t x)
{
    uint32_t sign = (uint32_t)(x & 0x8000u) << 16;
    uint32_t exp = (x >> 10) & 0x1fu;
    uint32_t mant = x & 0x3ffu;
    if (exp == 0x1f) /* infinity or NaN */
        return bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0)
            return bits_float(sign);
        /* Subnormal half: normalise into a float exponent. */
        uint32_t e = 113; /* float exponent of 2^-14 */
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e--;
        }
        return bits_float(sign | (e << 23) | ((mant & 0x3ffu) << 13));
    }
    return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t fg_float_to_half(float f)
{
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    u &= 0x7fffffffu;
    if (u > 0x7f800000u) /* NaN: quiet, keep the top payload bits */
        return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
    if (u >= 0x47800000u) /* >= 65536, and infinity: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (u < 0x38800000u) {
        /* Below 2^-14: a half subnormal (or zero), a multiple of 2^-24.
         * Shift the 24-bit significand right and round to nearest even. */
        uint32_t e = u >> 23;
        if (e < 102) /* below 2^-25: rounds to zero */
            return sign;
        uint32_t mant = (u & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - e; /* 14..24 */
        uint32_t q = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    /* Normal: rebias the exponent, then round the 13 dropped bits to even;
     * a carry out of the mantissa moves to the next binade or infinity. */
    uint32_t v = u - (112u << 23);
    v += 0x0fffu + ((v >> 13) & 1u);
    return (uint16_t)(sign | (v >> 13));
}

/* ------------------------------------------------------------------ */
/* Argument validation                                                 */
/* ------------------------------------------------------------------ */

fg_status fg_check_tensor(const fg_tensor *t, const char *name, int rank,
                          unsigned dtype_mask, int64_t align_bytes)
{
    if (!name)
        name = "tensor";
    if (!t)
        return fg_set_error(FG_ERR_NULL, "%s: the tensor descriptor is NULL", name);
    if (t->rank != rank || rank < 1 || rank > FG_MAX_RANK)
        return fg_set_error(FG_ERR_SHAPE, "%s: rank %d, expected %d", name, t->rank, rank);
    int64_t count = 1;
    for (int i = 0; i < rank; i++) {
        if (t->shape[i] < 0)
            return fg_set_error(FG_ERR_SHAPE, "%s: extent %d is negative (%lld)", name, i,
                                (long long)t->shape[i]);
        count = t->shape[i] == 0 ? 0 : count;
    }
    if (!t->data && count != 0)
        return fg_set_error(FG_ERR_NULL, "%s: data pointer is NULL", name);
    if (!dtype_valid(t->dtype) || !(dtype_mask & FG_DTYPE_BIT(t->dtype))) {
        char accepted[64] = "";
        for (int d = 0; d < FG_DTYPE_COUNT; d++) {
            if (!(dtype_mask & FG_DTYPE_BIT(d)))
                continue;
            if (accepted[0])
                strcat(accepted, ", ");
            strcat(accepted, dtype_names[d]);
        }
        return fg_set_error(FG_ERR_DTYPE, "%s: element type %s not supported (accepted: %s)",
                            name, fg_dtype_name(t->dtype), accepted[0] ? accepted : "none");
    }
    for (int i = 0; i < rank; i++)
        if (t->stride[i] < 0)
            return fg_set_error(FG_ERR_STRIDE, "%s: stride %d is negative (%lld)", name, i,
                                (long long)t->stride[i]);
    if ((dtype_mask & FG_CHECK_UNIT_INNER) && t->stride[rank - 1] != 1 && t->shape[rank - 1] > 1)
        return fg_set_error(FG_ERR_STRIDE, "%s: innermost stride is %lld, must be 1", name,
                            (long long)t->stride[rank - 1]);
    if (align_bytes > 0 && (align_bytes & (align_bytes - 1)))
        return fg_set_error(FG_ERR_PARAM, "%s: alignment %lld is not a power of two", name,
                            (long long)align_bytes);
    /* an empty tensor reads nothing: its pointer and strides may be anything
     * (the entries refuse an empty extent as a shape, naming the dim) */
    if (align_bytes > 0 && count != 0) {
        if ((uintptr_t)t->data % (uintptr_t)align_bytes)
            return fg_set_error(FG_ERR_ALIGN, "%s: data pointer %p is not %lld-byte aligned",
                                name, t->data, (long long)align_bytes);
        int64_t esize = (int64_t)fg_dtype_size(t->dtype);
        for (int i = 0; i < rank; i++) {
            if (t->shape[i] <= 1 || (i == rank - 1 && t->stride[i] == 1))
                continue;
            if ((t->stride[i] * esize) % align_bytes)
                return fg_set_error(FG_ERR_ALIGN,
                                    "%s: stride %d is %lld bytes, not a multiple of %lld", name,
                                    i, (long long)(t->stride[i] * esize),
                                    (long long)align_bytes);
        }
    }
    return FG_OK;
}

fg_status fg_check_row_output(const fg_tensor *t, const char *entry, const char *name,
                              int64_t B, int64_t Hq, int64_t M, float **out)
{
    char what[256];
    snprintf(what, sizeof what, "%s: %s", entry, name);
    *out = NULL;
    if (!t)
        return fg_set_error(FG_ERR_NULL, "%s: the tensor descriptor is NULL", what);
    if (!t->data) /* not computed */
        return FG_OK;
    fg_status st = fg_check_tensor(t, what, 3, FG_DTYPE_BIT(FG_F32) | FG_CHECK_UNIT_INNER, 4);
    if (st != FG_OK)
        return st;
    if ((Hq > 1 && t->stride[1] != M) || (B > 1 && t->stride[0] != Hq * M))
        return fg_set_error(FG_ERR_STRIDE,
                            "%s: the kernel writes %s densely: strides must be [%lld, %lld, 1]",
                            entry, name, (long long)(Hq * M), (long long)M);
    *out = (float *)t->data;
    return FG_OK;
}

/* ------------------------------------------------------------------ */
/* Tuned dispatch                                                      */
/* ------------------------------------------------------------------ */

static _Thread_local struct {
    const char *entry, *config, *file;
    int line;
} last_config;
static _Thread_local char last_config_text[FG_ERROR_BYTES];

void fg_note_config(const char *entry, const char *config, const char *file, int line)
{
    last_config.entry = entry;
    last_config.config = config;
    last_config.file = file;
    last_config.line = line;
}

const char *fg_last_config(void)
{
    if (!last_config.config)
        return "";
    if (last_config.file)
        snprintf(last_config_text, sizeof last_config_text, "%s: %s, tuned (%s:%d)",
                 last_config.entry, last_config.config, last_config.file, last_config.line);
    else
        snprintf(last_config_text, sizeof last_config_text, "%s: %s, by the default rules",
                 last_config.entry, last_config.config);
    return last_config_text;
}

int fg_tune_bucket(long long n)
{
    int b = 0;
    while (b < 62 && (1LL << b) < n)
        b++;
    return b;
}

int fg_tune_lookup(const fg_tune_row *rows, int n, int dtype, int d, int keys, int work)
{
    int best = -1;
    long best_dist = 0;
    for (int i = 0; rows && i < n; i++) {
        if (rows[i].dtype != dtype || rows[i].d != d)
            continue;
        long dk = rows[i].keys - keys, dw = rows[i].work - work;
        long dist = (dk < 0 ? -dk : dk) + (dw < 0 ? -dw : dw);
        if (best < 0 || dist < best_dist) {
            best = i;
            best_dist = dist;
        }
    }
    return best;
}

const char *fg_forced_config(void)
{
    const char *f = getenv("FUSEGEN_CONFIG");
    return f && *f ? f : NULL;
}

int fg_tune_table_for(const fg_tune_table *tables, int n, const char *device, int sms)
{
    const char *forced = getenv("FUSEGEN_WISDOM_DEVICE");
    for (int i = 0; tables && i < n; i++) {
        if (forced && *forced) {
            if (!strcmp(tables[i].device, forced))
                return i;
        } else if (device && !strcmp(tables[i].device, device) && tables[i].sms == sms) {
            return i;
        }
    }
    return -1;
}
