/* lower_hip.c - the HIP backend: the kernel model as the hooks of the CDNA
 * attention skeletons (templates/hip/cdna/: wave64, MFMA), and the row
 * kernels (lower_rows.c in the HIP dialect: templates/hip/rowreduce.m4).
 *
 * The hooks are the CUDA backend's (gpu_attention_defs in lower_cuda.c):
 * the same score in the exp2 domain, mask, tile classes, corrections and
 * host checks, printed in the HIP dialect (builtins only, so that a target
 * without a device library, gfx942 under Debian's clang, links) and with
 * plan_key_range walked by the 64 lanes of a wavefront.  What is HIP's own:
 * the template, the rows of the table of variants for the "cdna" family
 * (variants.c, printed by gpu_config_defs) and the registry entry.  It
 * serves the CUDA backend's plans (lower_cuda_supported): attention, several
 * independent chains too (one pass each: gpu/chains.m4), and the row kernels.
 */
#include "generator.h"

int lower_hip(fg_arena *a, const fg_kernel *k, fg_defs *defs, const char **template_rel,
              fg_diag *d)
{
    const fg_plan *p = k->plan;
    if (k->family == FAMILY_ROWREDUCE)
        return lower_hip_rows(a, k, defs, template_rel, d);
    if (!k->attn_ok) {
        diag_error(d, k->attn_why_loc, "plan '%s' does not fit the HIP attention kernel: %s",
                   p->name, k->attn_why);
        return -1;
    }
    *template_rel = "hip/attention.m4";
    gpu_config_defs(a, defs, k, "cdna", k->sched.form == FORM_SPLIT, k->attn.affine_score,
                    config_masking(k), 0);
    return gpu_attention_defs(a, k, defs, arena_printf(a, "fg_%s_hip", p->name), DIALECT_HIP, 64, NULL, d);
}

/* The plan's entry in fusegen_plans_hip.c: the generic wrapper. */
int lower_hip_registry_entry(fg_arena *a, const fg_kernel *k, char **code, char **list_line,
                             fg_diag *d)
{
    (void)d;
    const char *n = k->plan->name;
    const char *fn = arena_printf(a, "%s_hip_", n);
    *code = registry_wrapper(a, k->plan, fn, arena_printf(a, "fg_%s_hip", n), "ihipStream_t");
    *list_line = arena_printf(a, "{\"%s\", %s},", n, fn);
    return 0;
}
