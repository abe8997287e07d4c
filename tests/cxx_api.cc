// cxx_api.cc - the public and internal runtime headers compile as C++ and
// link against the C runtime (extern "C").  Exit status 0 when every check
// holds.
#include "fusegen.h"
#include "fusegen_internal.h"

#include <cstdio>
#include <cstring>

static int failures;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "cxx_api: FAILED: %s\n", what);
        failures++;
    }
}

int main()
{
    static unsigned short data[4 * 16];
    const int64_t shape[2] = {4, 16};
    fg_tensor t = fg_tensor_dense(data, FG_BF16, 2, shape);
    expect(t.stride[0] == 16 && t.stride[1] == 1, "fg_tensor_dense strides");
    expect(fg_check_tensor(&t, "X", 2, FG_DTYPE_BIT(FG_BF16) | FG_CHECK_UNIT_INNER, 0) == FG_OK,
           "fg_check_tensor accepts a dense bf16 tensor");
    expect(fg_check_tensor(&t, "X", 3, FG_DTYPES_ALL, 0) == FG_ERR_SHAPE,
           "fg_check_tensor rejects a wrong rank");
    expect(std::strcmp(fg_last_error(), "X: rank 2, expected 3") == 0, "fg_last_error message");
    expect(fg_set_error(FG_ERR_LAUNCH, "launch %d", 7) == FG_ERR_LAUNCH &&
               std::strcmp(fg_last_error(), "launch 7") == 0,
           "fg_set_error");
    expect(std::strcmp(fg_strerror(FG_ERR_ALIGN), fg_strerror(FG_ERR_STRIDE)) != 0,
           "distinct status messages");
    expect(fg_float_to_half(-2.0f) == 0xc000 && fg_bf16_to_float(0xbf80) == -1.0f,
           "conversions");
    if (failures == 0)
        std::printf("cxx_api: the runtime headers work from C++\n");
    return failures ? 1 : 0;
}
