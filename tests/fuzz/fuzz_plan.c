/* fuzz_plan.c - the front end, fusion and the kernel model under a fuzzer.
 *
 * One plan text in: read (as fusegen reads a file: NUL bytes and invalid
 * UTF-8 are refused there), lexed, parsed, checked, fused, the masks
 * analysed, classified and printed, every dump written; diagnostics go to a
 * memstream.  Nothing may crash, leak, hit undefined behaviour, or fail
 * without saying why (a phase that returns -1 with no error counted is a
 * finding too).  Inputs over FG_FUZZ_MAX_BYTES are skipped, which bounds the
 * time and memory of one input.
 *
 * Built twice: with clang and -fsanitize=fuzzer as the libFuzzer target
 * (`make fuzz`), and with the project's compiler as tests/fuzz/replay,
 * whose main (replay.c) runs every seed of the corpus through the same
 * function under `make check`.
 */
#define _GNU_SOURCE
#include "fuzz_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "generator.h"

/* A leaf of a mask's int expressions: dims and params get fixed values. */
static double leaf(void *ctx, const fg_expr *e)
{
    (void)ctx;
    if (e->kind == E_DIM)
        return 96 + 16 * (e->ref % 4);
    if (e->kind == E_PARAM)
        return 3;
    return 0;
}

static char *print_expr(void *ctx, const fg_expr *e)
{
    const fg_fused *fz = ctx;
    return expr_to_string(fz->plan->arena, fz->plan, e);
}

static void exercise_mask(fg_arena *a, const fg_fused *fz, FILE *out)
{
    const fg_mask *m = &fz->mask;
    if (!m->present)
        return;
    fg_eval_env env = {leaf, NULL};
    fputs(mask_describe_tiles(a, fz->plan, m), out);
    if (m->root) {
        fputs(mask_emit_tile_state(a, m, print_expr, (void *)fz), out);
        fputs(mask_emit_key_range(a, m, print_expr, (void *)fz), out);
    }
    for (long r0 = 0; r0 < 128; r0 += 32)
        for (long c0 = 0; c0 < 128; c0 += 64) {
            fprintf(out, "%d", (int)mask_classify(m, r0, r0 + 32, c0, c0 + 64, &env));
            long lo = 0, hi = 0;
            if (mask_key_range(m, r0, r0 + 32, 128, &env, &lo, &hi) == 0)
                fprintf(out, " [%ld, %ld)", lo, hi);
            fputc('\n', out);
        }
}

/* The text through source_read, as fusegen reads a plan file. */
static int read_plan(fg_arena *a, const uint8_t *data, size_t size, fg_source *src, fg_diag *d)
{
    int fd = memfd_create("plan.fp", 0);
    if (fd < 0) {
        FILE *t = tmpfile();
        if (!t)
            abort();
        fd = dup(fileno(t));
        fclose(t);
    }
    if (fd < 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int rc = source_read(a, path, src, d);
    close(fd);
    if (rc == 0)
        src->name = "plan.fp";
    return rc;
}

/* A phase failed: it must have said why. */
static void failed(const fg_diag *d, int errors_before)
{
    if (d->errors <= errors_before) {
        fputs("fuzz_plan: a phase failed without reporting an error\n", stderr);
        abort();
    }
}

int fg_fuzz_plan(const uint8_t *data, size_t size)
{
    if (size > FG_FUZZ_MAX_BYTES)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    fg_arena *a = arena_create();
    fg_diag d;
    diag_init(&d, NULL, out);
    fg_source src;
    fg_plan *p = NULL;
    fg_fused *fz = NULL;
    if (read_plan(a, data, size, &src, &d) < 0) {
        failed(&d, 0);
        goto done;
    }
    d.src = &src;
    if (parse_plan(a, &src, &d, &p) < 0) {
        failed(&d, 0);
        goto done;
    }
    dump_ast(out, p);
    if (check_plan(p, &d) < 0) {
        failed(&d, 0);
        goto done;
    }
    dump_ir(out, p);
    if (fuse_plan(a, p, &d, &fz) < 0) {
        failed(&d, 0);
        goto done;
    }
    dump_fused(out, fz);
    exercise_mask(a, fz, out);
    fg_kernel *k = NULL;
    if (kernel_build(a, fz, &d, &k) < 0) {
        failed(&d, 0);
        goto done;
    }
    dump_kernel(out, k);
done:
    fclose(out);
    free(text);
    arena_destroy(a);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fg_fuzz_plan(data, size);
}
