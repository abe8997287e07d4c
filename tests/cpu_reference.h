/* cpu_reference.h - the reference interpreter behind plain types, for the
 * numerics harness: the generator's internal header and the public runtime
 * header both define fg_dtype and fg_tensor, so no file includes both. */
#ifndef CPU_REFERENCE_H
#define CPU_REFERENCE_H

#include <stddef.h>

typedef struct ref_plan ref_plan;

/* Parse and check a plan file; NULL after printing the errors. */
ref_plan *ref_load(const char *path);
void ref_free(ref_plan *r);
int ref_ntensors(const ref_plan *r);
int ref_nparams(const ref_plan *r);
int ref_find_tensor(const ref_plan *r, const char *name);
size_t ref_tensor_size(const ref_plan *r, int tensor, const long *dims);
/* interp_run: inputs[t] for input tensors, outputs[t] (allocated by the
 * caller) for outputs; params[k] per scalar param, NAN (or params NULL) for
 * its default; lens[k] per dim, the lengths of a per-sequence dim (NULL, or
 * lens NULL: full extents).  0 or -1. */
int ref_run(const ref_plan *r, const long *dims, long **lens, const double *params,
            double **inputs, double **outputs);

/* While set, ref_run reports its errors nowhere (a case the generated entry
 * refused, which the reference must refuse too). */
void ref_set_quiet(int q);

#endif /* CPU_REFERENCE_H */
