/* load_plugin.c - dlopen()s softmax_plugin.so (argument 1), calls its
 * plugin_softmax on random rows and checks every value against a naive
 * double-precision softmax; exits 1 on a mismatch or a failed load. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*softmax_fn)(const float *, float *, long, long, const char **);

enum { ROWS = 9, COLS = 1000 };

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: load_plugin PATH/softmax_plugin.so\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "load_plugin: %s\n", dlerror());
        return 1;
    }
    softmax_fn fn;
    *(void **)&fn = dlsym(h, "plugin_softmax");
    if (!fn) {
        fprintf(stderr, "load_plugin: %s\n", dlerror());
        return 1;
    }
    static float x[ROWS * COLS], y[ROWS * COLS];
    unsigned long long s = 77;
    for (int i = 0; i < ROWS * COLS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 20.0 - 10.0);
    }
    const char *why = "";
    if (fn(x, y, ROWS, COLS, &why) != 0) {
        fprintf(stderr, "load_plugin: plugin_softmax: %s\n", why);
        return 1;
    }
    for (int r = 0; r < ROWS; r++) {
        double mx = -INFINITY, l = 0;
        for (int c = 0; c < COLS; c++)
            mx = fmax(mx, x[r * COLS + c]);
        for (int c = 0; c < COLS; c++)
            l += exp(x[r * COLS + c] - mx);
        for (int c = 0; c < COLS; c++) {
            double want = exp(x[r * COLS + c] - mx) / l;
            if (!(fabs(y[r * COLS + c] - want) <= 1e-5 * want + 1e-9)) {
                fprintf(stderr, "load_plugin: y[%d][%d] is %.7g, the naive softmax %.7g\n", r, c,
                        (double)y[r * COLS + c], want);
                return 1;
            }
        }
    }
    dlclose(h);
    printf("load_plugin: the softmax of the loaded object agrees with the naive one\n");
    return 0;
}
