/* lower_c_internal.h - what lower_c.c (the fused schedule as C) and
 * validate_c.c (the entry point's argument checks) share. */
#ifndef FG_LOWER_C_INTERNAL_H
#define FG_LOWER_C_INTERNAL_H

#include "generator.h"

typedef fg_strbuf sb;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts
#define sb_printf strbuf_printf
#define sb_str strbuf_str

/* ------------------------------------------------------------------ */
/* The lowering context                                                */
/* ------------------------------------------------------------------ */

typedef struct lc {
    fg_arena *a;
    const fg_kernel *k;
    const fg_fused *fz;
    const fg_plan *p;
    fg_diag *d;
    int fused;       /* the fused axis */
    int rowtile;     /* the row axis tiled by tile_rows, or -1 */
    uint32_t outer;  /* row axes looped outside the row tiles */
    int TM, TN;
    const char **tname, **aname, **dname, **pname;
    const char **dval; /* per dim: its value inside the row loops (N_seq_ for N[b]) */
    bool *needs_buf; /* per tensor: read by another statement */
    bool *is_running;
    int *run_index; /* per tensor: index in fz->running, or -1 */
    bool mask_ok;   /* the mask's axes are the row tile (or outer) axis and the fused axis */
    bool mask_skip; /* ... and the tiles it hides add nothing to any running value */
    const char *entry; /* fg_NAME_cpu */
    bool device_data;  /* the checks of a GPU entry: tensors and lengths are device memory */
    int errors;
} lc;

typedef enum site {
    SITE_VALUE,   /* tile, epilogue, prologue: running values are current */
    SITE_CORR,    /* a correction in the tile loop: PREV = saved value */
    SITE_COMBINE, /* a correction in the combine: PREV = a split's partial */
    SITE_SCALAR,  /* validation and defaults: dims and params only */
    SITE_STRUCT   /* the mask's tile_state_: dims and params through x_-> */
} site;

/* e as C at site s (lower_c.c); *used (if given) receives the axes read. */
char *lc_cexpr(lc *L, site s, const fg_expr *e, uint32_t *used);
/* e as the plan wrote it, for messages and comments (lower_c.c). */
char *lc_plan_text(lc *L, const fg_expr *e);
/* The entry point's validation: shapes, params, index tables, gathered
 * reads, divisors; each failure a status and a message (validate_c.c). */
char *lc_validation_code(lc *L);

#endif
