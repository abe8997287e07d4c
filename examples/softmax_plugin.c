/* softmax_plugin.c - a shared object (a plugin, a Python extension) with
 * libfusegen_cpu.a linked into it, which the archive's position-independent
 * code allows:
 *
 *     cc -shared -fPIC $(pkg-config --cflags fusegen-cpu) softmax_plugin.c \
 *        $(pkg-config --libs fusegen-cpu) -o softmax_plugin.so
 *
 * load_plugin.c loads it with dlopen and calls its one function. */
#include "fusegen_softmax.h"

/* Row softmax of x[rows][cols] into y; 0, or -1 with the reason in
 * fg_last_error() (inside this object). */
int plugin_softmax(const float *x, float *y, long rows, long cols, const char **why)
{
    fg_softmax_args a = {0};
    a.X = fg_tensor_dense((void *)x, FG_F32, 2, (int64_t[]){rows, cols});
    a.Y = fg_tensor_dense(y, FG_F32, 2, (int64_t[]){rows, cols});
    if (fg_softmax_cpu(&a) != FG_OK) {
        *why = fg_last_error();
        return -1;
    }
    return 0;
}
