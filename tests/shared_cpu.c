/* shared_cpu.c - libfusegen_cpu.a goes into a shared object: the archive's
 * objects are position-independent (-fPIC, configure's FG_PIC_CFLAGS), so
 * `cc -shared -Wl,--whole-archive libfusegen_cpu.a` links (a non-PIC object
 * fails it with "relocation R_X86_64_32 ... recompile with -fPIC"), and the
 * object works once dlopen()ed: fg_plan_list from dlsym, gqa's CPU entry
 * through the registry on a small problem.  The shared object
 * (tests/libfgcpu_shared.so) is built by tests/emit.mk; its path is
 * $top_builddir/tests/libfgcpu_shared.so. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusegen.h"
#include "fusegen_registry.h"

int main(void)
{
    const char *top = getenv("top_builddir");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/libfgcpu_shared.so", top && *top ? top : ".");
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "shared_cpu: dlopen %s: %s\n", path, dlerror());
        return 1;
    }
    const fg_plan_info *const *list = (const fg_plan_info *const *)dlsym(so, "fg_plan_list");
    const char *(*last_error)(void) = (const char *(*)(void))dlsym(so, "fg_last_error");
    if (!list || !last_error) {
        fprintf(stderr, "shared_cpu: fg_plan_list or fg_last_error missing in %s\n", path);
        return 1;
    }
    const fg_plan_info *info = NULL;
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i]->name, "gqa"))
            info = list[i];
    if (!info) {
        fprintf(stderr, "shared_cpu: no plan gqa in the shared object's registry\n");
        return 1;
    }
    /* Q [1, 4, 3, 8], K and V [1, 2, 5, 8], O [1, 4, 3, 8], LSE [1, 4, 3] */
    static float q[96], k[80], v[80], o[96], lse[12];
    for (int i = 0; i < 96; i++)
        q[i] = (float)(i % 5) * 0.25f;
    for (int i = 0; i < 80; i++) {
        k[i] = (float)(i % 3) * 0.5f;
        v[i] = (float)(i % 7) - 3.0f;
    }
    const int64_t sq[4] = {1, 4, 3, 8}, skv[4] = {1, 2, 5, 8}, sl[3] = {1, 4, 3};
    fg_tensor in[3], out[2];
    /* fg_tensor_dense is the runtime's; fill by hand to use only the entry */
    float *bufs[5] = {q, k, v, o, lse};
    const int64_t *shapes[5] = {sq, skv, skv, sq, sl};
    for (int t = 0; t < 5; t++) {
        fg_tensor *x = t < 3 ? &in[t] : &out[t - 3];
        memset(x, 0, sizeof *x);
        x->data = bufs[t];
        x->dtype = FG_F32;
        x->rank = t == 4 ? 3 : 4;
        int64_t stride = 1;
        for (int d = x->rank - 1; d >= 0; d--) {
            x->shape[d] = shapes[t][d];
            x->stride[d] = stride;
            stride *= shapes[t][d];
        }
    }
    fg_status st = info->cpu(in, out, NULL, NULL, NULL, NULL, 0);
    if (st != FG_OK) {
        fprintf(stderr, "shared_cpu: gqa through the shared object: %s\n", last_error());
        return 1;
    }
    for (int i = 0; i < 96; i++)
        if (!isfinite(o[i])) {
            fprintf(stderr, "shared_cpu: O[%d] is not finite\n", i);
            return 1;
        }
    dlclose(so);
    printf("shared_cpu: libfusegen_cpu.a linked into %s and ran gqa\n", path);
    return 0;
}
