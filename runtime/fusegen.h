/* fusegen.h - public interface of the kernels that fusegen generates.
 *
 * Every plan NAME gets a generated header fusegen_NAME.h with an argument
 * struct fg_NAME_args and its entry points:
 *   fg_status fg_NAME_cpu(const fg_NAME_args *args);             libfusegen_cpu.a
 *   fg_status fg_NAME(const fg_NAME_args *args, cudaStream_t s); libfusegen_cuda.a
 * Entry points validate every argument before any work and return a status;
 * fg_last_error() then gives a message naming the argument at fault.
 *
 * This header is C11 and C++ compatible and needs no GPU headers.
 */
#ifndef FUSEGEN_PUBLIC_H
#define FUSEGEN_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FG_MAX_RANK 8

typedef enum fg_status {
    FG_OK = 0,
    FG_ERR_NULL,        /* a required pointer is NULL */
    FG_ERR_SHAPE,       /* shapes disagree with each other or the plan */
    FG_ERR_DTYPE,       /* element type not supported by this kernel */
    FG_ERR_STRIDE,      /* strides the kernel cannot take */
    FG_ERR_ALIGN,       /* a pointer or stride is not aligned enough */
    FG_ERR_UNSUPPORTED, /* e.g. a head dimension with no compiled kernel */
    FG_ERR_PARAM,       /* a parameter value is out of range */
    FG_ERR_WORKSPACE,   /* workspace missing or too small */
    FG_ERR_NOMEM,       /* host or device allocation failed */
    FG_ERR_DEVICE,      /* no usable device, or a device query failed */
    FG_ERR_LAUNCH,      /* the kernel launch failed */
    FG_STATUS_COUNT
} fg_status;

typedef enum fg_dtype { FG_BF16 = 0, FG_FP16, FG_F32, FG_I32 } fg_dtype;

/* A strided view of a tensor.  Shapes and strides count elements; the
 * index order is the plan's declared order. */
typedef struct fg_tensor {
    void *data;
    fg_dtype dtype;
    int rank;
    int64_t shape[FG_MAX_RANK];
    int64_t stride[FG_MAX_RANK];
} fg_tensor;

/* A dense row-major view (strides computed from the shape). */
fg_tensor fg_tensor_dense(void *data, fg_dtype dtype, int rank, const int64_t *shape);

const char *fg_strerror(fg_status s);
/* The message of the last failed call on this thread ("" if none). */
const char *fg_last_error(void);

/* The configuration the last GPU launch on this thread took and where it
 * came from: "fg_NAME: CONFIG, tuned (WISDOM-FILE:LINE)" when a wisdom row
 * chose it (or, in the split form, its split count), "fg_NAME: CONFIG, by
 * the default rules" otherwise; "" before any launch.  Valid until the
 * next call on this thread (docs/tuning.md). */
const char *fg_last_config(void);
size_t fg_dtype_size(fg_dtype t);
const char *fg_dtype_name(fg_dtype t);

/* Host conversions, round to nearest even.  NaN stays NaN (quieted, sign
 * kept), infinities and subnormals are exact where representable, values
 * beyond the largest finite one round to infinity. */
float fg_bf16_to_float(uint16_t x);
uint16_t fg_float_to_bf16(float f);
float fg_half_to_float(uint16_t x);
uint16_t fg_float_to_half(float f);

#ifdef __cplusplus
}
#endif

#endif /* FUSEGEN_PUBLIC_H */
