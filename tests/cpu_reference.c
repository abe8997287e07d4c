/* cpu_reference.c - the reference interpreter behind plain types (see
 * cpu_reference.h). */
#include "cpu_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "generator.h"

struct ref_plan {
    fg_arena *arena;
    fg_source src;
    fg_plan *plan;
};

ref_plan *ref_load(const char *path)
{
    fg_arena *a = arena_create();
    ref_plan *r = ARENA_NEW(a, ref_plan);
    r->arena = a;
    fg_diag d;
    diag_init(&d, NULL, stderr);
    if (source_read(a, path, &r->src, &d) < 0) {
        arena_destroy(a);
        return NULL;
    }
    diag_init(&d, &r->src, stderr);
    if (parse_plan(a, &r->src, &d, &r->plan) < 0 || check_plan(r->plan, &d) < 0) {
        arena_destroy(a);
        return NULL;
    }
    return r;
}

void ref_free(ref_plan *r)
{
    if (r)
        arena_destroy(r->arena);
}

int ref_ntensors(const ref_plan *r) { return r->plan->ntensors; }
int ref_nparams(const ref_plan *r) { return r->plan->nparams; }

int ref_find_tensor(const ref_plan *r, const char *name)
{
    return plan_find_tensor(r->plan, name);
}

size_t ref_tensor_size(const ref_plan *r, int tensor, const long *dims)
{
    return interp_tensor_size(r->plan, tensor, dims);
}

static int quiet;

void ref_set_quiet(int q)
{
    quiet = q;
}

int ref_run(const ref_plan *r, const long *dims, long **lens, const double *given,
            double **inputs, double **outputs)
{
    const fg_plan *p = r->plan;
    double *params = calloc((size_t)p->nparams + 1, sizeof(double));
    double **vecs = calloc((size_t)p->nparams + 1, sizeof(double *));
    if (!params || !vecs) {
        free(params);
        free(vecs);
        return -1;
    }
    for (int i = 0; i < p->nparams; i++)
        params[i] = given ? given[i] : NAN; /* NAN: the default */
    fg_interp_binding b = {(long *)dims, lens, params, vecs, inputs, outputs};
    fg_diag d;
    FILE *out = quiet ? tmpfile() : NULL;
    diag_init(&d, p->src, out ? out : stderr);
    int rc = interp_run(p, &b, &d);
    if (out)
        fclose(out);
    free(params);
    free(vecs);
    return rc;
}
