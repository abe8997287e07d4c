/* c_api.c - the public header compiles as strict C11 (-std=c11 -pedantic)
 * and links against the runtime alone.  Exit status 0 when every check
 * holds; each failed check is printed. */
#include "fusegen.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "c_api: FAILED: %s\n", what);
        failures++;
    }
}

int main(void)
{
    static float data[2 * 3 * 5];
    const int64_t shape[3] = {2, 3, 5};
    fg_tensor t = fg_tensor_dense(data, FG_F32, 3, shape);
    expect(t.data == (void *)data, "fg_tensor_dense keeps the pointer");
    expect(t.rank == 3 && t.shape[0] == 2 && t.shape[2] == 5, "fg_tensor_dense keeps the shape");
    expect(t.stride[0] == 15 && t.stride[1] == 5 && t.stride[2] == 1,
           "fg_tensor_dense strides are row-major");
    expect(strcmp(fg_strerror(FG_OK), "success") == 0, "fg_strerror(FG_OK)");
    expect(strcmp(fg_strerror(FG_ERR_NULL), fg_strerror(FG_ERR_SHAPE)) != 0,
           "distinct status messages");
    expect(strcmp(fg_last_error(), "") == 0, "no error recorded yet");
    expect(fg_dtype_size(FG_BF16) == 2 && fg_dtype_size(FG_F32) == 4, "fg_dtype_size");
    expect(strcmp(fg_dtype_name(FG_FP16), "fp16") == 0, "fg_dtype_name");
    expect(fg_float_to_bf16(1.0f) == 0x3f80 && fg_bf16_to_float(0x4049) == 3.140625f,
           "bf16 conversions");
    expect(fg_float_to_half(1.0f) == 0x3c00 && fg_half_to_float(0x7bff) == 65504.0f,
           "fp16 conversions");
    expect(FG_MAX_RANK == 8 && FG_STATUS_COUNT > FG_ERR_LAUNCH, "header constants");
    if (failures == 0)
        printf("c_api: the public header works from C11\n");
    return failures ? 1 : 0;
}
