/* replay.c - runs seeds through the fuzz target without libFuzzer, so that
 * `make check` replays the whole corpus with the project's compiler and
 * sanitizers (a finding aborts, and the test fails).
 *
 *   replay [FILE|DIR]...
 *
 * With no arguments it replays the seed corpus under $srcdir (default .):
 * every *.fp in plans/, tests/bad/, tests/cuda-bad/ and tests/plans/, and
 * every file in tests/fuzz/corpus/ (the reproducers of past findings).
 */
#define _GNU_SOURCE
#include "fuzz_plan.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        abort();
    size_t n;
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                abort();
        }
    }
    fclose(f);
    fg_fuzz_plan(buf, len);
    free(buf);
    replayed++;
    return 0;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every regular file in dir (only NAME.fp when fp_only), in name order. */
static int replay_dir(const char *dir, int fp_only)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || (fp_only && (l < 4 || strcmp(e->d_name + l - 3, ".fp"))))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                abort();
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(l);
        if (!path)
            abort();
        snprintf(path, l, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && replay_file(path) < 0)
            rc = -1;
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                rc |= replay_dir(argv[i], 0);
            else
                rc |= replay_file(argv[i]);
        }
    } else {
        const char *top = getenv("srcdir");
        if (!top || !*top)
            top = ".";
        static const char *const fp_dirs[] = {"plans", "tests/bad", "tests/cuda-bad",
                                              "tests/plans"};
        char path[4096];
        for (size_t i = 0; i < sizeof fp_dirs / sizeof fp_dirs[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", top, fp_dirs[i]);
            rc |= replay_dir(path, 1);
        }
        snprintf(path, sizeof path, "%s/tests/fuzz/corpus", top);
        rc |= replay_dir(path, 0);
    }
    printf("replay: %d inputs replayed through the fuzz target\n", replayed);
    if (replayed == 0) {
        fputs("replay: no inputs\n", stderr);
        return 1;
    }
    return rc ? 1 : 0;
}
