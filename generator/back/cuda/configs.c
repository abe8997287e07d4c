/* configs.c - the CUDA backend's view of the table of compiled variants
 * (variants.c).
 *
 * From the table, cuda_config_defs writes a plan's `using NAME = fa_cfg<...>`
 * (rolling) or `fd_cfg<...>` (split) lines and the dispatch that
 * templates/cuda/sm80/launch.m4 places in plan_dispatch_t: a switch on the
 * head dim, then the rows of that dim in table order, first match.  The
 * plan's facts (is the score affine in Q.K, is it masked) are known here, so
 * a row whose rule cannot hold for the plan is left out (and its kernel is
 * not compiled); the shape conditions become code.  cuda_config_select
 * evaluates the same rules for one launch (tests/test_cuda.c checks it
 * against the rules as they were written by hand before).
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <string.h>

#define BOTH (CUDA_CFG_BF16 | CUDA_CFG_FP16)

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

static const char *dtypes_text(unsigned dtypes)
{
    return dtypes == CUDA_CFG_BF16 ? "bf16" : dtypes == CUDA_CFG_FP16 ? "fp16" : NULL;
}

static void add_part(fg_strbuf *b, const char *part)
{
    if (b->len)
        strbuf_puts(b, ", ");
    strbuf_puts(b, part);
}

/* One alternative in words; with plan_facts, without the parts that are the
 * plan's facts (they hold). */
static void when_text(fg_arena *a, fg_strbuf *b, const fg_cuda_when *w, bool plan_facts)
{
    if (!plan_facts && w->affine)
        add_part(b, "a score affine in Q.K");
    if (!plan_facts && w->masked != CUDA_ANY_MASK)
        add_part(b, w->masked == CUDA_MASKED   ? "masked"
                    : w->masked == CUDA_SPANS ? "masked by ids (span atoms)"
                                              : "unmasked");
    if (w->min_rows)
        add_part(b, arena_printf(a, "%ld query rows or more", w->min_rows));
    if (w->min_keys)
        add_part(b, arena_printf(a, "%ld keys or more", w->min_keys));
    if (w->min_packed)
        add_part(b, arena_printf(a, "more than %ld packed rows", w->min_packed - 1));
    if (w->max_packed)
        add_part(b, arena_printf(a, "%ld packed rows or fewer", w->max_packed));
}

/* The row's rule in words: dtype, then the alternatives the plan admits
 * (plan_facts) or all of them; "" when it takes every shape. */
static char *rule_text(fg_arena *a, const fg_cuda_config *k, bool plan_facts, bool affine_score,
                       int masked)
{
    fg_strbuf b = {a, NULL, 0, 0};
    if (dtypes_text(k->dtypes))
        add_part(&b, dtypes_text(k->dtypes));
    int shown = 0;
    for (int j = 0; j < k->nwhen; j++) {
        const fg_cuda_when *w = &k->when[j];
        if (plan_facts && !config_when_fits_plan(w, affine_score, masked))
            continue;
        fg_strbuf one = {a, NULL, 0, 0};
        when_text(a, &one, w, plan_facts);
        if (!one.len)
            continue;
        if (shown++)
            strbuf_puts(&b, "; or ");
        else if (b.len)
            strbuf_puts(&b, ", ");
        strbuf_puts(&b, strbuf_str(&one));
    }
    return strbuf_str(&b);
}

/* A C++ comment of `text`, wrapped at 100 columns after `indent`. */
static void comment(fg_strbuf *b, const char *indent, const char *text)
{
    const size_t width = 100 - strlen(indent) - 3;
    const char *s = text;
    while (*s) {
        size_t n = strlen(s);
        if (n > width) {
            n = width;
            while (n > 0 && s[n] != ' ')
                n--;
            if (!n)
                n = strcspn(s, " ");
        }
        strbuf_printf(b, "%s// %.*s\n", indent, (int)n, s);
        s += n;
        while (*s == ' ')
            s++;
    }
}

/* ------------------------------------------------------------------ */
/* The plan's definitions                                              */
/* ------------------------------------------------------------------ */

/* The shape condition of k's admitted alternatives as C++ over the kernel
 * arguments `a` (rows: the query rows per head; packed: a local). */
static char *shape_code(fg_arena *a, const fg_cuda_config *k, bool affine_score, int masked,
                        const char *rows, bool *uses_packed)
{
    fg_strbuf b = {a, NULL, 0, 0};
    int nalt = 0;
    for (int j = 0; j < k->nwhen; j++)
        nalt += config_when_fits_plan(&k->when[j], affine_score, masked);
    for (int j = 0; j < k->nwhen; j++) {
        const fg_cuda_when *w = &k->when[j];
        if (!config_when_fits_plan(w, affine_score, masked))
            continue;
        fg_strbuf c = {a, NULL, 0, 0};
        int nterms = 0;
        if (w->min_rows)
            strbuf_printf(&c, "%s%s >= %ld", nterms++ ? " && " : "", rows, w->min_rows);
        if (w->min_keys)
            strbuf_printf(&c, "%sa.N >= %ld", nterms++ ? " && " : "", w->min_keys);
        if (w->min_packed)
            strbuf_printf(&c, "%spacked > %ld", nterms++ ? " && " : "", w->min_packed - 1);
        if (w->max_packed)
            strbuf_printf(&c, "%spacked <= %ld", nterms++ ? " && " : "", w->max_packed);
        if (w->min_packed || w->max_packed)
            *uses_packed = true;
        if (b.len)
            strbuf_puts(&b, " || ");
        if (nalt > 1 && nterms > 1)
            strbuf_printf(&b, "(%s)", strbuf_str(&c));
        else
            strbuf_puts(&b, strbuf_str(&c));
    }
    return strbuf_str(&b);
}

/* One admitted row: its alias, its header line and its dispatch lines. */
typedef struct row_text {
    fg_strbuf *use, *sum, *body;
    const char *rows;  /* the query rows per head in the kernel arguments */
    bool *uses_packed; /* the dispatch reads `packed` */
    bool tuned_splits; /* split: the dispatch has tuned_file and tuned_line */
    int nspans;        /* the plan's span atoms (config_nspans): shared memory */
    int ring_floats;   /* floats a key in the sm_90a ring of key values: shared memory */
} row_text;

static void row_defs(fg_arena *a, const row_text *rt, const fg_cuda_config *k, bool split,
                     bool affine_score, int masked, int admits, unsigned dts)
{
    fg_strbuf *use = rt->use, *sum = rt->sum, *body = rt->body;
    const char *all_rule = rule_text(a, k, false, affine_score, masked);
    const char *plan_rule = rule_text(a, k, true, affine_score, masked);
    /* the alias and the header line */
    const bool hopper = !strcmp(k->arch, "sm90");
    if (hopper)
        strbuf_printf(use, "using %s = fh_cfg<%d, %d, %d, %d, %s>;  // %s\n", k->name, k->d,
                      k->bm, k->bn, k->stages, k->pingpong ? "true" : "false", k->note);
    else if (split)
        strbuf_printf(use, "using %s = fd_cfg<%d, %d, %d, %d, %d, %s, %d>;  // %s\n",
                      k->name, k->d, k->mt, k->warps, k->bnw, k->stages,
                      k->qreg ? "true" : "false", k->minb, k->note);
    else
        strbuf_printf(use, "using %s = fa_cfg<%d, %d, %d, %d, %d, %s>;  // %s\n", k->name,
                      k->d, k->bm, k->bn, k->warps, k->stages, k->qreg ? "true" : "false",
                      k->note);
    if (split)
        strbuf_printf(sum,
                      " * D %d%s%s: %d rows x %d keys per warp tile, %d threads, %d "
                      "stages, %ld bytes of shared memory\n",
                      k->d, *plan_rule ? ", " : "", plan_rule, 16 * k->mt, k->bnw,
                      k->warps * 32, k->stages, config_smem(k, rt->nspans, rt->ring_floats));
    else
        strbuf_printf(sum,
                      " * %sD %d%s%s: %d query rows x %d keys per tile, %d threads, %d "
                      "stages, %ld bytes of shared memory\n",
                      hopper ? "sm_90a, " : "", k->d, *plan_rule ? ", " : "", plan_rule, k->bm,
                      k->bn, k->warps * 32, k->stages, config_smem(k, rt->nspans, rt->ring_floats));
    /* the dispatch */
    comment(body, "      ",
            arena_printf(a, "%s: %s. Source: %s.", k->name, *all_rule ? all_rule : "any shape",
                         k->origin));
    const char *launch =
        hopper  ? arena_printf(a, "plan_launch_sm90<T, %s>(a, D, st, dev, entry, done)", k->name)
        : split ? arena_printf(a, "plan_launch_split<T, %s>(a, st, dev, splits, entry)", k->name)
                : arena_printf(a, "plan_launch<T, %s>(a, st, dev, entry)", k->name);
    const char *ind = "      ";
    if (dts != BOTH) {
        strbuf_printf(body, "      if constexpr (std::is_same<T, %s>::value) {\n",
                      !strcmp(k->arch, "cdna") ? (dts == CUDA_CFG_BF16 ? "ck_bf16" : "ck_fp16")
                      : dts == CUDA_CFG_BF16  ? "__nv_bfloat16"
                                              : "__half");
        ind = "        ";
    }
    const char *note = arena_printf(a, "fg_note_config(entry, \"%s\", %s)", k->name,
                                    split && rt->tuned_splits ? "tuned_file, tuned_line"
                                                              : "nullptr, 0");
    if (admits == 1)
        strbuf_printf(body, "%s%s;\n%sreturn %s;\n", ind, note, ind, launch);
    else
        strbuf_printf(body, "%sif (%s) {\n%s  %s;\n%s  return %s;\n%s}\n", ind,
                      shape_code(a, k, affine_score, masked, rt->rows, rt->uses_packed), ind,
                      note, ind, launch, ind);
    if (dts != BOTH)
        strbuf_puts(body, "      }\n");
}

void cuda_config_defs(fg_arena *a, fg_defs *defs, const fg_kernel *kern, bool split,
                      bool affine_score, int masked, int ring_floats)
{
    gpu_config_defs(a, defs, kern, "sm80", split, affine_score, masked, ring_floats);
}

void gpu_config_defs(fg_arena *a, fg_defs *defs, const fg_kernel *kern, const char *arch,
                     bool split, bool affine_score, int masked, int ring_floats)
{
    /* tuning (tuned.c) serves the CUDA families only */
    const bool cuda = !strcmp(arch, "sm80");
    const char *tuned_splits = split && cuda ? cuda_tuned_splits(a, kern) : "";
    const fg_cuda_family family = split ? CUDA_FAMILY_SPLIT : CUDA_FAMILY_ROLLING;
    const char *rows = split ? "a.QL" : "a.M";
    fg_strbuf use = {a, NULL, 0, 0}, sum = {a, NULL, 0, 0}, body = {a, NULL, 0, 0};
    fg_strbuf dims = {a, NULL, 0, 0}, unsupported = {a, NULL, 0, 0};
    bool uses_packed = false;

    if (split)
        strbuf_puts(&use, "// Split-form configurations (generator/middle/variants.c):  D MT NW BNW "
                          "ST QREG MINB\n");
    else
        strbuf_puts(&use, "// Rolling-form configurations (generator/middle/variants.c):  D BM BN NW "
                          "STAGES QREG\n");

    /* the head dims, in table order */
    int ds[16], nd = 0;
    for (int i = 0; i < fg_cuda_nconfigs; i++) {
        const fg_cuda_config *k = &fg_cuda_configs[i];
        if (!config_in_arch(k, family, arch))
            continue;
        bool seen = false;
        for (int j = 0; j < nd; j++)
            seen |= ds[j] == k->d;
        if (!seen && nd < (int)(sizeof ds / sizeof ds[0]))
            ds[nd++] = k->d;
    }

    strbuf_printf(&body,
                  "  // The plan's facts that the rules read: affine_score = %d (the score %s), "
                  "masked = %d%s.\n",
                  affine_score, affine_score ? "calls no function" : "calls a function", masked,
                  masked == 2 ? " (with span atoms)" : "");
    strbuf_puts(&body, "  switch (D) {\n");
    for (int di = 0; di < nd; di++) {
        const int d = ds[di];
        strbuf_printf(&body, "    case %d:\n", d);
        unsigned covered = 0; /* dtypes an earlier row takes on every shape */
        bool open = true;
        for (int i = 0; i < fg_cuda_nconfigs; i++) {
            const fg_cuda_config *k = &fg_cuda_configs[i];
            if (!config_in_arch(k, family, arch) || k->d != d)
                continue;
            const char *all_rule = rule_text(a, k, false, affine_score, masked);
            const int admits = config_admits(k, affine_score, masked);
            const unsigned dts = k->dtypes & ~covered;
            if (admits < 0 || !dts || !open) {
                const char *why = arena_printf(
                    a, "%s: not for this plan (%s).", k->name,
                    admits < 0 ? arena_printf(a, "its rule: %s", all_rule)
                               : "an earlier row takes every launch");
                comment(&use, "", why);
                comment(&body, "      ", why);
                continue;
            }
            row_text rt = {&use, &sum, &body, rows, &uses_packed, *tuned_splits != 0, config_nspans(kern), ring_floats};
            row_defs(a, &rt, k, split, affine_score, masked, admits, dts);
            if (admits == 1) {
                covered |= dts;
                if (covered == BOTH)
                    open = false;
            }
        }
        if (open)
            strbuf_puts(&body, "      break;\n");
        strbuf_printf(&dims, "%s%d", di == 0 ? "" : di == nd - 1 ? " or " : ", ", d);
        strbuf_printf(&unsupported, "%sD != %d", di ? " && " : "", d);
    }
    strbuf_puts(&body, "  }\n");
    strbuf_printf(&body,
                  "  return fg_set_error(FG_ERR_UNSUPPORTED, \"%%s: head dim %%d has no compiled "
                  "kernel%s (%s)\", entry, D);\n",
                  split ? "" : cuda ? " of the sm_80 family" : " of the CDNA family",
                  strbuf_str(&dims));
    if (uses_packed || *tuned_splits) {
        fg_strbuf head = {a, NULL, 0, 0};
        strbuf_puts(&head, tuned_splits);
        if (uses_packed)
            strbuf_printf(&head,
                          "  const int packed = (a.Hq / a.Hkv) * %s;  // packed rows per kv head\n",
                          rows);
        strbuf_puts(&head, strbuf_str(&body));
        body = head;
    }
    if (split)
        strbuf_puts(&sum, " * combine: one warp per query row, 128 threads, no shared memory\n");
    /* The Hopper family (rolling form only): the compiled dims in
     * ascending order; a launch takes the first whose dim is at least its
     * own (a multiple of 8), then that dim's rows in table order. */
    fg_strbuf huse = {a, NULL, 0, 0}, hbody = {a, NULL, 0, 0};
    int hd[16], nhd = 0;
    bool huses_packed = false;
    if (!split && cuda)
        nhd = config_dims(family, "sm90", affine_score, masked, hd, 16);
    if (nhd) {
        strbuf_puts(&huse, "// Hopper configurations (generator/middle/variants.c):  D BM BN STAGES "
                           "PINGPONG\n");
        strbuf_puts(&hbody, "  if (D < 8 || D % 8 != 0) return FG_OK;  // not for the sm_90a family\n");
        for (int di = 0; di < nhd; di++) {
            const int d = hd[di];
            strbuf_printf(&hbody, "  if (D <= %d) {\n", d);
            strbuf_puts(&hbody, cuda_tuned_cases(a, kern, d, rows));
            unsigned covered = 0;
            for (int i = 0; i < fg_cuda_nconfigs; i++) {
                const fg_cuda_config *k = &fg_cuda_configs[i];
                if (!config_in_arch(k, family, "sm90") || k->d != d)
                    continue;
                const int admits = config_admits(k, affine_score, masked);
                const unsigned dts = k->dtypes & ~covered;
                if (admits < 0 || !dts)
                    continue;
                row_text rt = {&huse, &sum, &hbody, rows, &huses_packed, false, config_nspans(kern), ring_floats};
                row_defs(a, &rt, k, false, affine_score, masked, admits, dts);
                if (admits == 1)
                    covered |= dts;
            }
            strbuf_puts(&hbody, "  }\n");
        }
        strbuf_printf(&hbody, "  return FG_OK;  // head dims above %d: not for the sm_90a family\n",
                      hd[nhd - 1]);
        if (huses_packed) {
            fg_strbuf head = {a, NULL, 0, 0};
            strbuf_printf(&head,
                          "  const int packed = (a.Hq / a.Hkv) * %s;  // packed rows per kv head\n",
                          rows);
            strbuf_puts(&head, strbuf_str(&hbody));
            hbody = head;
        }
        strbuf_printf(&dims, "; on sm_90a, every multiple of 8 up to %d", hd[nhd - 1]);
        unsupported = (fg_strbuf){a, NULL, 0, 0};
        strbuf_printf(&unsupported, "D < 8 || D %% 8 != 0 || D > %d", hd[nhd - 1]);
    }
    fg_def_bool(defs, "cuda_sm90", nhd > 0);
    fg_def_code(defs, "cuda_configs_sm90", strbuf_str(&huse));
    fg_def_code(defs, "cuda_dispatch_sm90", strbuf_str(&hbody));
    fg_def_code(defs, "cuda_configs", strbuf_str(&use));
    fg_def_code(defs, "cuda_config_summary", strbuf_str(&sum));
    fg_def_code(defs, "cuda_dispatch", strbuf_str(&body));
    fg_def_str(defs, "cuda_head_dims", strbuf_str(&dims));
    fg_def_str(defs, "cuda_head_dim_unsupported", strbuf_str(&unsupported));
}
