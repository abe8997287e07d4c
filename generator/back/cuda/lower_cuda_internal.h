/* lower_cuda_internal.h - what lower_cuda.c, weight_cuda.c and score_cuda.c
 * share: the text buffer, the lowering's state (cu), the expression printers
 * and the helpers on extra inputs.  The
 * CUDA and HIP attention hooks are printed from one cu (c->dialect).
 */
#ifndef FG_LOWER_CUDA_INTERNAL_H
#define FG_LOWER_CUDA_INTERNAL_H

#include "generator.h"

typedef fg_strbuf cb;
#define cb_putn strbuf_putn
#define cb_puts strbuf_puts
#define cb_printf strbuf_printf
#define cb_str strbuf_str

typedef int fold_row[FG_MAX_INDICES];

typedef struct cu {
    fg_arena *a;
    const fg_kernel *k;
    const fg_plan *p;
    const fg_kattn *at;
    const char **dfield, **pfield; /* names of the plan_params fields */
    const char **afield;           /* per tensor: an extra input's field stem, or NULL */
    fold_row *afold; /* per extra input and position: the axis (batch or head)
                      * its every read has there, folded into its offset per
                      * CTA; -1: indexed per element */
    fg_dialect_id dialect;         /* device code: DIALECT_CUDA or DIALECT_HIP */
    int wave;                      /* lanes that walk plan_key_range together: 32 or 64 */
    /* the weight's reads of float extra inputs at the key alone (their other
     * indices folded per CTA: a per-key gate g[b, n]), distinct: the sm_90a
     * kernel loads them once a key and tile (plan_key_values) */
    int nkv;
    const fg_expr *kv[FG_MAX_AUX];
    /* floats a key the sm_90a kernel's ring of key values holds (fh_cfg's
     * KV_NSH where the plan has key values and no softmax chain: 1 with
     * plan_kv_recip, else nkv), 0 without a ring; cu_weight_defs sets it */
    int ring_floats;
} cu;

/* lower_cuda.c */
int aux_index(const cu *c, int t); /* tensor t's extra-input number, or -1 */
void leaf_device(fg_printer *pr, fg_strbuf *b, const fg_expr *e);
char *plan_line(cu *c, int t);
bool reads_aux(const cu *c, const fg_expr *e);
/* whether e reads axis ax (in an extra input's index too) */
bool reads_axis(const cu *c, const fg_expr *e, int ax);
char *cu_text(cu *c, const fg_expr *e, bool host); /* device (or host) code of e */
char *plan_expr(cu *c, const fg_expr *e);          /* e in plan syntax, for comments */
const char *aux_clamp_text(const cu *c);

/* weight_cuda.c: the weight of a plan without a softmax chain
 * (plan_weight, the key values, plan_kv_recip), or its defaults */
void cu_weight_defs(cu *c, fg_defs *defs);

/* score_cuda.c: the score's tile-affine, diagonal and key-linear forms
 * (plan_score_tile_bias, plan_score_diag, plan_keylin_*) */
void cu_score_form_defs(cu *c, fg_defs *defs);

#endif
