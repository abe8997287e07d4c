/* kernel_internal.h - what kernel.c (matching the attention roles) and
 * kernel_score.c (the score in the exp2 domain, constants hoisted) share. */
#ifndef KERNEL_INTERNAL_H
#define KERNEL_INTERNAL_H

#include "generator.h"

/* The builder's state while matching the attention roles. */
typedef struct kb {
    fg_arena *a;
    const fg_fused *fz;
    const fg_plan *p;
    fg_kernel *k;
    int q, k_, v, ssum, mx, l, osum, o, tstmt;
    int ax_b, ax_h, ax_m, ax_n, ax_d;
    int dim_b, dim_h, dim_hkv, dim_m, dim_n, dim_d;
    const fg_expr *kv_head, *tval, *score, *cond;
    bool softmax;   /* a softmax chain, else one contraction sum(n: W * V) */
    bool base2;     /* the chain in base 2: exp2(T - Mx), exp2(Mx_prev - Mx) */
    int fa1_l;      /* the FlashAttention-1 form: P.V kept divided by this sum, or -1 */
    /* the values per row besides O (LSE, the max, ...): tensors, values */
    int nrows, row_t[FG_MAX_ROW_OUTS];
    const fg_expr *row_e[FG_MAX_ROW_OUTS];
    fg_expr *weight; /* without the chain: W with E_ACC for the masked score */
    bool in_weight;  /* check_score_expr is checking the weight: its E_ACC is the score */
    int naux, aux[FG_MAX_AUX];
    /* matching one of several independent chains (kernel_chains.c): the
     * tensors of the other chains, per tensor, or NULL */
    const uint8_t *foreign;
    fg_loc why_loc;
    const char *why;
} kb;

static inline bool is_axis(const fg_expr *e, int ax) { return e && e->kind == E_AXIS && e->ref == ax; }
static inline bool is_tensor(const fg_expr *e, int t) { return e && e->kind == E_TENSOR && e->ref == t; }

/* kernel.c: the first reason a match fails (kept), -1 */
int kb_fail(kb *c, fg_loc loc, const char *why);
/* kernel.c: the attention roles of a plan of one chain, and their binding
 * into c->k->attn */
int kb_match_attention(kb *c);
void kb_bind_attention(kb *c);
/* kernel_chains.c: the independent chains among the running values, and a
 * plan of several matched and bound chain by chain */
int kb_count_chains(kb *c);
int kb_match_chains(kb *c);

/* kernel_score.c: the factors of a float product/quotient chain
 * (numerators and denominators; integer products and quotients stay one
 * factor), and whether an expression is a host constant (0: numbers, dims,
 * scalar params), one value per head (1) or per element (2). */
typedef struct factors {
    const fg_expr *num[32], *den[32];
    int nnum, nden;
    bool ok;
} factors;
void kb_collect(const fg_expr *e, bool den, factors *f);
int kb_constness(kb *c, const fg_expr *e);

/* kernel_score.c: the score, constants hoisted, into the attention model */
void kb_bind_score(kb *c, fg_kattn *at);

#endif /* KERNEL_INTERNAL_H */
