/* common.c - what every backend's files share: the plan's names, its
 * hash and summary, the argument struct of fusegen_PLAN.h, the generic
 * registry wrappers, and small text helpers for C-family output.
 *
 * Reads the kernel model only (kernel.c); calls nothing above it.
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <stdlib.h>
#include <string.h>

typedef fg_strbuf sb;
#define sb_putn strbuf_putn
#define sb_puts strbuf_puts
#define sb_printf strbuf_printf
#define sb_str strbuf_str

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

/* Every line of text indented by `ind` spaces (empty lines stay empty). */
void strbuf_indented(fg_strbuf *b, const char *text, int ind)
{
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n)
            sb_printf(b, "%*s%.*s", ind, "", (int)n, s);
        sb_puts(b, "\n");
        s += n + (nl ? 1 : 0);
    }
}

char *text_indented(fg_arena *a, const char *text, int n)
{
    sb b = {a, NULL, 0, 0};
    strbuf_indented(&b, text, n);
    return sb_str(&b);
}

/* Text for a C comment: no comment terminator inside. */
char *comment_safe(fg_arena *a, const char *s)
{
    sb b = {a, NULL, 0, 0};
    for (; *s; s++) {
        if (s[0] == '*' && s[1] == '/')
            sb_puts(&b, "* ");
        else if (s[0] == '/' && s[1] == '*')
            sb_puts(&b, "/ ");
        else
            sb_putn(&b, s, 1);
    }
    return sb_str(&b);
}

/* Text for a C string literal. */
char *c_string(fg_arena *a, const char *s)
{
    sb b = {a, NULL, 0, 0};
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putn(&b, "\\", 1);
        if (*s == '%') {
            sb_puts(&b, "%%");
            continue;
        }
        sb_putn(&b, s, 1);
    }
    return sb_str(&b);
}


/* ------------------------------------------------------------------ */
/* Tensors                                                             */
/* ------------------------------------------------------------------ */

/* Where a dim's extent is first found: tensor and position. */
int plan_position_dim(const fg_plan *p, const fg_ir_tensor *t, int k)
{
    if (t->kind == TENSOR_INPUT) {
        if (t->extent_dims && t->extent_dims[k] >= 0)
            return t->extent_dims[k];
        if (t->index[k]->kind == E_AXIS)
            return p->axes[t->index[k]->ref].dim;
        return -1;
    }
    return p->axes[t->axes[k]].dim;
}

int plan_tensor_rank(const fg_ir_tensor *t)
{
    return t->kind == TENSOR_INPUT ? t->nindex : t->naxes;
}

/* An output after the plan's first may be passed with NULL data: it is then
 * neither checked nor computed, as the CUDA entry treats LSE. Not when one
 * of its dims is found in no input and not in the first output: the entry
 * binds dims from the shapes, and would have nowhere else to read it. */
bool plan_output_optional(const fg_plan *p, int ti)
{
    const fg_ir_tensor *t = &p->tensors[ti];
    int first = -1;
    for (int i = 0; i < p->ntensors && first < 0; i++)
        if (p->tensors[i].is_output)
            first = i;
    if (!t->is_output || ti == first)
        return false;
    for (int k = 0; k < plan_tensor_rank(t); k++) {
        int dm = plan_position_dim(p, t, k);
        bool found = dm < 0;
        for (int i = 0; i < p->ntensors && !found; i++) {
            const fg_ir_tensor *u = &p->tensors[i];
            if (u->kind != TENSOR_INPUT && i != first)
                continue;
            for (int q = 0; q < plan_tensor_rank(u) && !found; q++)
                found = plan_position_dim(p, u, q) == dm;
        }
        if (!found)
            return false;
    }
    return true;
}
/* ------------------------------------------------------------------ */
/* Summary: operations and bytes per output row                        */
/* ------------------------------------------------------------------ */

#define MAXD 16
typedef struct mono {
    long coef;
    int ex[MAXD];
} mono;
typedef struct poly {
    mono m[64];
    int n;
} poly;

static void poly_add(poly *q, long coef, const int *ex)
{
    for (int i = 0; i < q->n; i++)
        if (!memcmp(q->m[i].ex, ex, sizeof q->m[i].ex)) {
            q->m[i].coef += coef;
            return;
        }
    if (q->n < 64) {
        q->m[q->n].coef = coef;
        memcpy(q->m[q->n].ex, ex, sizeof q->m[q->n].ex);
        q->n++;
    }
}

static int mono_cmp(const void *x, const void *y)
{
    const mono *a = x, *b = y;
    int da = 0, db = 0;
    for (int i = 0; i < MAXD; i++)
        da += a->ex[i], db += b->ex[i];
    if (da != db)
        return db - da;
    for (int i = 0; i < MAXD; i++)
        if (a->ex[i] != b->ex[i])
            return b->ex[i] - a->ex[i];
    return 0;
}

static char *poly_text(fg_arena *a, const fg_kernel *km, poly *q)
{
    qsort(q->m, (size_t)q->n, sizeof q->m[0], mono_cmp);
    sb b = {a, NULL, 0, 0};
    for (int i = 0; i < q->n; i++) {
        if (!q->m[i].coef)
            continue;
        if (b.len)
            sb_puts(&b, " + ");
        bool any = false;
        sb_printf(&b, "%ld", q->m[i].coef);
        for (int k = 0; k < km->plan->ndims && k < MAXD; k++)
            for (int e = 0; e < q->m[i].ex[k]; e++) {
                sb_printf(&b, "*%s", km->plan->dims[k].name);
                any = true;
            }
        (void)any;
    }
    if (!b.len)
        sb_puts(&b, "0");
    return sb_str(&b);
}

static long count_ops(const fg_expr *e)
{
    long n = 0;
    switch (e->kind) {
    case E_NUM: case E_INF: case E_DIM: case E_AXIS: case E_PARAM: case E_TENSOR:
    case E_PREV: case E_ACC: case E_NAME:
        n = 0;
        break;
    case E_WHERE:
        n = 1;
        break;
    default:
        n = 1;
    }
    for (int i = 0; i < e->nargs; i++)
        n += count_ops(e->args[i]);
    return n;
}

static void elems_per_row(const fg_kernel *km, const fg_ir_tensor *t, int extra_axis, int *ex, uint32_t rows)
{
    memset(ex, 0, sizeof(int) * MAXD);
    if (t->kind == TENSOR_INPUT) {
        for (int k = 0; k < t->nindex; k++) {
            uint32_t ax = t->index[k]->axes;
            if (ax & rows)
                continue;
            int dm = plan_position_dim(km->plan, t, k);
            if (dm >= 0 && dm < MAXD)
                ex[dm]++;
        }
        return;
    }
    for (int k = 0; k < t->naxes; k++)
        if (!(rows & (1u << t->axes[k]))) {
            int dm = km->plan->axes[t->axes[k]].dim;
            if (dm < MAXD)
                ex[dm]++;
        }
    if (extra_axis >= 0) {
        int dm = km->plan->axes[extra_axis].dim;
        if (dm < MAXD)
            ex[dm]++;
    }
}

static void summary(fg_arena *a, const fg_kernel *km, char **ops_out, char **bytes_out)
{
    const fg_plan *p = km->plan;
    uint32_t rows = km->sched.outer | (km->sched.row_axis >= 0 ? 1u << km->sched.row_axis : 0u);
    poly ops = {.n = 0}, bytes = {.n = 0};
    int ex[MAXD];
    for (int i = 0; i < p->ntensors; i++) {
        const fg_ir_tensor *t = &p->tensors[i];
        if (t->kind == TENSOR_INPUT) {
            elems_per_row(km, t, -1, ex, rows);
            poly_add(&bytes, t->dtype == DT_F32 ? 4 : 2, ex);
            continue;
        }
        if (!t->rhs)
            continue;
        bool red = t->cls == CLASS_REDUCTION || t->cls == CLASS_CONTRACTION;
        elems_per_row(km, t, red ? t->red_axis : -1, ex, rows);
        long n = red ? count_ops(t->body) + 1 : count_ops(t->rhs);
        if (n)
            poly_add(&ops, n, ex);
        if (t->is_output) {
            elems_per_row(km, t, -1, ex, rows);
            poly_add(&bytes, t->out_dtype == DT_F32 ? 4 : 2, ex);
        }
    }
    *ops_out = poly_text(a, km, &ops);
    *bytes_out = poly_text(a, km, &bytes);
}

/* ------------------------------------------------------------------ */
/* Definitions every backend shares                                    */
/* ------------------------------------------------------------------ */

static const char *plan_file(fg_arena *a, const fg_plan *p)
{
    const char *n = p->src && p->src->name ? p->src->name : "plan.fp";
    const char *s = strrchr(n, '/');
    return arena_printf(a, "plans/%s", s ? s + 1 : n);
}

static const char *shape_text(fg_arena *a, const fg_kernel *km, const fg_ir_tensor *t)
{
    sb b = {a, NULL, 0, 0};
    for (int k = 0; k < plan_tensor_rank(t); k++) {
        int dm = plan_position_dim(km->plan, t, k);
        sb_printf(&b, "%s%s", k ? ", " : "", dm >= 0 ? km->plan->dims[dm].name : "?");
    }
    return sb_str(&b);
}

static const char *index_text(fg_arena *a, const fg_kernel *km, const fg_ir_tensor *t)
{
    sb b = {a, NULL, 0, 0};
    if (t->kind == TENSOR_INPUT)
        for (int k = 0; k < t->nindex; k++)
            sb_printf(&b, "%s%s", k ? ", " : "", comment_safe(a, expr_to_string(a, km->plan, t->index[k])));
    else
        for (int k = 0; k < t->naxes; k++)
            sb_printf(&b, "%s%s", k ? ", " : "", km->plan->axes[t->axes[k]].name);
    return sb_str(&b);
}

/* The fields of fg_PLAN_args, each with its comment. */
static char *args_fields(fg_arena *a, const fg_kernel *km)
{
    const fg_plan *p = km->plan;
    const fg_ksched *ks = &km->sched;
    /* the argument struct */
    sb f = {a, NULL, 0, 0};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->ntensors; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            if (pass == 0)
                sb_printf(&f,
                          "    fg_tensor %s; /* input %s[%s]: shape [%s], plan dtype %s "
                          "(%s) */\n",
                          t->name, t->name, index_text(a, km, t), shape_text(a, km, t),
                          fg_dtype_names[t->dtype],
                          t->dtype == DT_INT ? "FG_I32 only" : "bf16, fp16 or f32 accepted");
            else
                sb_printf(&f,
                          "    fg_tensor %s; /* output %s[%s]: shape [%s], plan dtype %s "
                          "(f32, bf16 or fp16 accepted)%s */\n",
                          t->name, t->name, index_text(a, km, t), shape_text(a, km, t),
                          fg_dtype_names[t->out_dtype],
                          plan_output_optional(p, i) ? "; NULL data: not computed" : "");
        }
    if (p->nparams)
        sb_puts(&f, "    /* params: */\n");
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        const char *def = pa->deflt ? comment_safe(a, expr_to_string(a, p, pa->deflt)) : NULL;
        if (pa->index_axis >= 0) {
            const fg_axis *ax = &p->axes[pa->index_axis];
            sb_printf(&f, "    const float *%s; /* [%s], one per %s; %s */\n", pa->name,
                      p->dims[ax->dim].name, ax->name,
                      def ? arena_printf(a, "NULL: the default %s", def) : "required");
        } else {
            sb_printf(&f, "    %s %s; /* %s%s */\n", pa->dtype == DT_INT ? "int" : "float",
                      pa->name, pa->dtype == DT_INT ? "int" : "f32",
                      def ? arena_printf(a, "; default %s", def) : ", required");
            sb_printf(&f, "    int has_%s; /* 0: %s */\n", pa->name,
                      def ? "use the default" : "missing (an error)");
        }
    }
    for (int i = 0; i < p->ndims; i++) {
        const fg_dim *dm = &p->dims[i];
        if (dm->index_axis < 0)
            continue;
        const fg_axis *ow = &p->axes[dm->index_axis];
        sb_printf(&f,
                  "    const int32_t *%s_len; /* [%s]: %s[%s], the length of each %s (0..%s, the "
                  "stored extent; NULL: all %s); host memory for the CPU entry, device memory "
                  "for the GPU ones */\n",
                  dm->name, p->dims[ow->dim].name, dm->name, ow->name, ow->name, dm->name,
                  dm->name);
    }
    if (km->family == FAMILY_ROWREDUCE)
        sb_printf(&f, "    int splits; /* parts of each row along %s: 0 = by shape (the GPU kernels "
                      "split rows that are few and long; the CPU entry walks them whole), else 1 "
                      "or more */\n",
                  p->axes[ks->reduced_axis].name);
    else if (ks->form == FORM_SPLIT)
        sb_printf(&f, "    int splits; /* splits of %s: 0 = %s, else 1 or more */\n",
                  p->axes[ks->reduced_axis].name,
                  ks->splits ? arena_printf(a, "the plan's %d", ks->splits)
                                  : "auto (from the size)");
    else
        sb_printf(&f, "    int splits; /* rolling schedule: 0 or 1 (the CPU entry also takes more: "
                      "it then splits %s and combines) */\n",
                  p->axes[ks->reduced_axis].name);
    return sb_str(&f);
}

int lower_common(fg_arena *a, const fg_kernel *km, fg_defs *defs, fg_diag *d)
{
    const fg_plan *p = km->plan;
    const fg_ksched *ks = &km->sched;
    for (int i = 0; i < p->ntensors; i++) {
        const char *n = p->tensors[i].name;
        if (!strcmp(n, "splits") || !strncmp(n, "has_", 4)) {
            diag_error(d, p->tensors[i].loc, "'%s' clashes with a field of fg_%s_args", n,
                       p->name);
            return -1;
        }
    }
    for (int i = 0; i < p->nparams; i++) {
        const char *n = p->params[i].name;
        if (!strcmp(n, "splits") || !strncmp(n, "has_", 4) || plan_find_tensor(p, n) >= 0) {
            diag_error(d, p->params[i].loc, "'%s' clashes with a field of fg_%s_args", n,
                       p->name);
            return -1;
        }
    }
    fg_def_str(defs, "plan_name", p->name);
    fg_def_str(defs, "plan_file", plan_file(a, p));
    fg_def_str(defs, "plan_hash", p->hash);
    fg_def_bool(defs, "split", ks->form == FORM_SPLIT);
    fg_def_bool(defs, "rowreduce", km->family == FAMILY_ROWREDUCE);
    char *guard = arena_printf(a, "FUSEGEN_%s_H", p->name);
    for (char *q = guard; *q; q++)
        if (*q >= 'a' && *q <= 'z')
            *q = (char)(*q - 'a' + 'A');
    fg_def_str(defs, "guard", guard);
    fg_def_str(defs, "header_name", arena_printf(a, "fusegen_%s.h", p->name));
    fg_def_str(defs, "args_type", arena_printf(a, "fg_%s_args", p->name));
    fg_def_str(defs, "cpu_entry", arena_printf(a, "fg_%s_cpu", p->name));
    fg_def_str(defs, "gpu_entry", arena_printf(a, "fg_%s", p->name));
    fg_def_int(defs, "tile_rows", ks->tile_rows);
    fg_def_int(defs, "tile_keys", ks->tile_keys);
    fg_def_str(defs, "fused_axis", p->axes[ks->reduced_axis].name);
    fg_def_str(defs, "row_axis", ks->row_axis >= 0 ? p->axes[ks->row_axis].name : "");

    char *ops, *bytes;
    summary(a, km, &ops, &bytes);
    sb s = {a, NULL, 0, 0};
    if (p->doc && *p->doc)
        sb_printf(&s, " * %s\n", comment_safe(a, p->doc));
    sb_printf(&s, " * Schedule: %s over %s, tile %s = %d, %s = %d", fg_form_names[ks->form],
              p->axes[ks->reduced_axis].name, ks->row_axis >= 0 ? p->axes[ks->row_axis].name : "rows", ks->tile_rows,
              p->axes[ks->reduced_axis].name, ks->tile_keys);
    if (ks->form == FORM_SPLIT) {
        if (ks->splits)
            sb_printf(&s, ", splits %d", ks->splits);
        else
            sb_puts(&s, ", splits auto");
    }
    sb_puts(&s, ".\n");
    sb_printf(&s, " * Per output row: %s operations, %s bytes (inputs at their plan dtypes, no reuse).\n",
              ops, bytes);
    fg_def_code(defs, "summary_c", sb_str(&s));

    fg_def_code(defs, "args_fields", args_fields(a, km));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Registry entries                                                    */
/* ------------------------------------------------------------------ */

static const char *public_dtype(fg_ir_dtype t)
{
    switch (t) {
    case DT_BF16: return "FG_BF16";
    case DT_FP16: return "FG_FP16";
    case DT_F32: return "FG_F32";
    case DT_INT: return "FG_I32";
    }
    return "FG_F32";
}

/* The generic wrapper of an entry point: it takes the registry's arrays
 * (inputs, outputs, params, param vectors, lengths, splits) and calls
 * `entry` with the plan's argument struct; `stream` (a struct tag:
 * "CUstream_st", "ihipStream_t"; NULL for none) adds a stream argument,
 * passed on as the entry's second. */
char *registry_wrapper(fg_arena *a, const fg_plan *p, const char *fn, const char *entry,
                       const char *stream)
{
    sb b = {a, NULL, 0, 0};
    sb_printf(&b,
              "static fg_status %s(const fg_tensor *inputs, const fg_tensor *outputs,\n"
              "    const double *params, const int *has_params, const float *const *param_vectors,\n"
              "    const int32_t *const *lens, int splits%s)\n{\n"
              "    fg_%s_args a_;\n    memset(&a_, 0, sizeof a_);\n"
              "    (void)params;\n    (void)has_params;\n    (void)param_vectors;\n"
              "    (void)lens;\n"
              "    if (!inputs || !outputs)\n"
              "        return fg_set_error(FG_ERR_NULL, \"%s: inputs or outputs is NULL\");\n",
              fn, stream ? ", void *stream" : "", p->name, p->name);
    int ki = 0, ko = 0;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == TENSOR_INPUT)
            sb_printf(&b, "    a_.%s = inputs[%d];\n", p->tensors[i].name, ki++);
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].is_output)
            sb_printf(&b, "    a_.%s = outputs[%d];\n", p->tensors[i].name, ko++);
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        if (pa->index_axis >= 0)
            sb_printf(&b, "    a_.%s = param_vectors ? param_vectors[%d] : NULL;\n", pa->name, i);
        else
            sb_printf(&b,
                      "    if (params && has_params && has_params[%d]) {\n"
                      "        a_.%s = (%s)params[%d];\n        a_.has_%s = 1;\n    }\n",
                      i, pa->name, pa->dtype == DT_INT ? "int" : "float", i, pa->name);
    }
    for (int i = 0; i < p->ndims; i++)
        if (p->dims[i].index_axis >= 0)
            sb_printf(&b, "    a_.%s_len = lens ? lens[%d] : NULL;\n", p->dims[i].name, i);
    sb_printf(&b, "    a_.splits = splits;\n    return %s(&a_%s%s%s);\n}\n", entry,
              stream ? ", (struct " : "", stream ? stream : "", stream ? " *)stream" : "");
    return sb_str(&b);
}

/* A dim's role in the kernel family, as fusegen_registry.h names it. */
static const char *dim_role(const fg_kernel *km, int dim)
{
    const fg_plan *p = km->plan;
    if (km->attn_ok) {
        const fg_kattn *at = &km->attn;
        if (dim == at->dim_b)
            return "FG_ROLE_BATCH";
        if (dim == at->dim_h)
            return "FG_ROLE_HEADS";
        if (dim == at->dim_hkv)
            return "FG_ROLE_KV_HEADS";
        if (dim == at->dim_m)
            return "FG_ROLE_ROWS";
        if (dim == at->dim_n)
            return "FG_ROLE_KEYS";
        if (dim == at->dim_d)
            return "FG_ROLE_HEAD_DIM";
        return "FG_ROLE_NONE";
    }
    if (dim == p->axes[km->sched.reduced_axis].dim)
        return "FG_ROLE_KEYS";
    if (km->sched.row_axis >= 0 && dim == p->axes[km->sched.row_axis].dim)
        return "FG_ROLE_ROWS";
    return "FG_ROLE_NONE";
}

/* The C backend's registry entry: the plan's static tables (dims, tensors,
 * params), its generic CPU wrapper and its fg_plan_info. */
int lower_c_registry_entry(fg_arena *a, const fg_kernel *km, char **code, char **list_line,
                           fg_diag *d)
{
    const fg_plan *p = km->plan;
    (void)d;
    const char *n = p->name;
    sb b = {a, NULL, 0, 0};
    sb_printf(&b, "/* %s: %s */\n", n, comment_safe(a, p->doc ? p->doc : ""));
    sb_printf(&b, "static const char *const %s_dims_[] = {", n);
    for (int i = 0; i < p->ndims; i++)
        sb_printf(&b, "%s\"%s\"", i ? ", " : "", p->dims[i].name);
    sb_puts(&b, "};\n");
    sb_printf(&b, "static const int %s_dim_role_[] = {", n);
    for (int i = 0; i < p->ndims; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", dim_role(km, i));
    sb_puts(&b, "};\n");
    sb_printf(&b, "static const int %s_dim_over_[] = {", n);
    for (int i = 0; i < p->ndims; i++)
        sb_printf(&b, "%s%d", i ? ", " : "",
                  p->dims[i].index_axis >= 0 ? p->axes[p->dims[i].index_axis].dim : -1);
    sb_puts(&b, "};\n");
    int nin = 0, nout = 0;
    for (int pass = 0; pass < 2; pass++) {
        sb_printf(&b, "static const fg_plan_tensor_info %s_%s_[] = {\n", n,
                  pass ? "outputs" : "inputs");
        for (int i = 0; i < p->ntensors; i++) {
            const fg_ir_tensor *t = &p->tensors[i];
            if (pass == 0 ? t->kind != TENSOR_INPUT : !t->is_output)
                continue;
            *(pass ? &nout : &nin) += 1;
            sb_printf(&b, "    {\"%s\", %s, %d, {", t->name,
                      public_dtype(pass ? t->out_dtype : t->dtype), plan_tensor_rank(t));
            for (int k = 0; k < plan_tensor_rank(t); k++)
                sb_printf(&b, "%s%d", k ? ", " : "", plan_position_dim(p, t, k));
            sb_puts(&b, "}},\n");
        }
        sb_puts(&b, "};\n");
    }
    if (p->nparams) {
        sb_printf(&b, "static const fg_plan_param_info %s_params_[] = {\n", n);
        for (int i = 0; i < p->nparams; i++) {
            const fg_param *pa = &p->params[i];
            sb_printf(&b, "    {\"%s\", %d, %d, %d, %d},\n", pa->name, pa->dtype == DT_INT,
                      pa->deflt != NULL, pa->index_axis,
                      pa->index_axis >= 0 ? p->axes[pa->index_axis].dim : -1);
        }
        sb_puts(&b, "};\n");
    }
    sb_puts(&b, registry_wrapper(a, p, arena_printf(a, "%s_cpu_", n),
                                 arena_printf(a, "fg_%s_cpu", n), NULL));
    sb_printf(&b,
              "static const fg_plan_info %s_info_ = {\n"
              "    \"%s\", \"%s\", \"%s\", %d, %s_dims_, %s_dim_role_, %s_dim_over_,\n"
              "    %d, %s_inputs_, %d, %s_outputs_,\n"
              "    %d, %s,\n"
              "    %s_cpu_,\n"
              "};\n",
              n, n, fg_form_names[km->sched.form], fg_family_names[km->family], p->ndims, n, n, n,
              nin, n, nout, n, p->nparams,
              p->nparams ? arena_printf(a, "%s_params_", n) : "NULL", n);
    *code = sb_str(&b);
    *list_line = arena_printf(a, "&%s_info_,", n);
    return 0;
}
