/* dump_ir.c - the checked plan as readable, stable text (--dump=ir).
 *
 * One declaration per line, statements in dependency order, each with its
 * computed type, its class and the plan line it came from.  The output is
 * golden-tested (tests/golden/ir/), so it holds nothing that varies between
 * runs or machines: no addresses, no absolute paths.
 */
#include "generator.h"

static const char *type_name(fg_type t)
{
    switch (t) {
    case T_BOOL:
        return "bool";
    case T_INT:
        return "int";
    case T_FLOAT:
        return "f32";
    default:
        return "?";
    }
}

/* Marks every tensor and indexed-param read as bracketed, so that the dump
 * shows the indices each read resolved to. */
static void show_indices(fg_expr *e)
{
    if ((e->kind == E_TENSOR || e->kind == E_PARAM) && e->nargs > 0)
        e->bracketed = true;
    for (int i = 0; i < e->nargs; i++)
        show_indices(e->args[i]);
}

/* An expression with every read's indices written out. */
static void print_resolved(FILE *f, const fg_plan *p, const fg_expr *e)
{
    fg_arena *a = arena_create();
    fg_expr *c = expr_clone(a, e);
    show_indices(c);
    fputs(expr_to_string(a, p, c), f);
    arena_destroy(a);
}

static const char *axis_name(const fg_plan *p, int axis)
{
    return axis >= 0 && axis < p->naxes ? p->axes[axis].name : "?";
}

static void dump_header(FILE *f, const fg_plan *p)
{
    fprintf(f, "plan %s (hash %s)\n", p->name, p->hash);
    if (p->ndims > 0) {
        fputs("dim", f);
        for (int i = 0; i < p->ndims; i++) {
            fprintf(f, "%s %s", i ? "," : "", p->dims[i].name);
            if (p->dims[i].index_name)
                fprintf(f, "[%s]", p->dims[i].index_name);
        }
        fputc('\n', f);
    }
    if (p->naxes > 0) {
        fputs("axis", f);
        for (int i = 0; i < p->naxes; i++)
            fprintf(f, "%s %s: %s", i ? "," : "", p->axes[i].name, p->axes[i].dim_name);
        fputc('\n', f);
    }
    for (int i = 0; i < p->nparams; i++) {
        const fg_param *pa = &p->params[i];
        fprintf(f, "param %s", pa->name);
        if (pa->index_name)
            fprintf(f, "[%s]", pa->index_name);
        fprintf(f, ": %s", fg_dtype_names[pa->dtype]);
        if (pa->deflt) {
            fputs(" = ", f);
            expr_print(f, p, pa->deflt);
        } else {
            fputs(pa->index_name ? " (input vector)" : " (given at run time)", f);
        }
        fputc('\n', f);
    }
}

static void dump_input(FILE *f, const fg_plan *p, const fg_ir_tensor *t)
{
    fprintf(f, "input %s[", t->name);
    for (int i = 0; i < t->nindex; i++) {
        if (i)
            fputs(", ", f);
        expr_print(f, p, t->index[i]);
    }
    fprintf(f, "]: %s", t->dtype == DT_INT ? "i32" : fg_dtype_names[t->dtype]);
    if (t->extent_names) {
        fputc('[', f);
        for (int i = 0; i < t->nindex; i++)
            fprintf(f, "%s%s", i ? ", " : "", t->extent_names[i]);
        fputc(']', f);
    }
    fputc('\n', f);
}

static void dump_statement(FILE *f, const fg_plan *p, const fg_ir_tensor *t)
{
    fprintf(f, "%s[", t->name);
    for (int i = 0; i < t->naxes; i++)
        fprintf(f, "%s%s", i ? ", " : "", axis_name(p, t->axes[i]));
    fprintf(f, "] : %s = ", type_name(t->rhs ? t->rhs->type : T_NONE));
    if (t->rhs)
        print_resolved(f, p, t->rhs);
    fputs("   # ", f);
    switch (t->cls) {
    case CLASS_CONTRACTION:
        fprintf(f, "contraction over %s", axis_name(p, t->red_axis));
        break;
    case CLASS_REDUCTION:
        fprintf(f, "reduction %s over %s", fg_reduce_names[t->op], axis_name(p, t->red_axis));
        break;
    case CLASS_ELEMENTWISE:
        fputs("elementwise", f);
        break;
    default:
        fputs("unclassified", f);
        break;
    }
    if (t->hoisted && t->hoisted_from >= 0 && t->hoisted_from < p->ntensors)
        fprintf(f, ", hoisted from %s", p->tensors[t->hoisted_from].name);
    if (t->powsum && t->powsum->of >= 0 && t->powsum->of < p->ntensors) {
        if (&p->tensors[t->powsum->of] == t)
            fprintf(f, ", a power %d about a running value", t->powsum->k);
        else
            fprintf(f, ", carried for %s", p->tensors[t->powsum->of].name);
    }
    fprintf(f, ", line %d\n", t->loc.line);
}

/* Outputs in the order the plan lists them. */
static void dump_outputs(FILE *f, const fg_plan *p)
{
    int printed = 0;
    fg_loc last = {0, 0};
    for (;;) {
        int next = -1;
        for (int i = 0; i < p->ntensors; i++) {
            fg_loc l = p->tensors[i].output_loc;
            bool after = l.line > last.line || (l.line == last.line && l.col > last.col);
            if (!p->tensors[i].is_output || (printed && !after))
                continue;
            fg_loc b = next >= 0 ? p->tensors[next].output_loc : l;
            if (next < 0 || l.line < b.line || (l.line == b.line && l.col < b.col))
                next = i;
        }
        if (next < 0)
            break;
        const fg_ir_tensor *t = &p->tensors[next];
        fprintf(f, "%s %s: %s", printed ? "," : "output", t->name, fg_dtype_names[t->out_dtype]);
        last = t->output_loc;
        printed++;
    }
    if (printed)
        fputc('\n', f);
}

static void dump_schedule(FILE *f, const fg_plan *p)
{
    const fg_schedule *s = &p->sched;
    fprintf(f, "schedule%s\n", s->present ? "" : " (default)");
    if (s->reduce_axis >= 0)
        fprintf(f, "  reduce %s: %s\n", axis_name(p, s->reduce_axis), fg_form_names[s->form]);
    if (s->ntiles > 0) {
        fputs("  tile", f);
        for (int i = 0; i < s->ntiles; i++)
            fprintf(f, "%s %s = %d", i ? "," : "", s->tiles[i].axis_name, s->tiles[i].size);
        fputc('\n', f);
    }
    if (s->warps > 0)
        fprintf(f, "  warps = %d\n", s->warps);
    if (s->stages > 0)
        fprintf(f, "  stages = %d\n", s->stages);
    if (s->form == FORM_SPLIT) {
        if (s->splits > 0)
            fprintf(f, "  splits = %d\n", s->splits);
        else
            fputs("  splits = auto\n", f);
    }
    for (int i = 0; i < s->nknobs; i++) {
        const fg_tune_knob *k = &s->knobs[i];
        fprintf(f, "  tune %s", k->knob);
        if (k->axis_name)
            fprintf(f, " %s", k->axis_name);
        fputs(" = {", f);
        for (int v = 0; v < k->nvalues; v++)
            fprintf(f, "%s%d", v ? ", " : "", k->values[v]);
        fputs("}\n", f);
    }
    unsigned targets = s->targets ? s->targets : (TARGET_CUDA | TARGET_HIP | TARGET_C);
    fputs("  target", f);
    bool first = true;
    static const struct {
        unsigned bit;
        const char *name;
    } target_names[] = {{TARGET_CUDA, "cuda"}, {TARGET_HIP, "hip"}, {TARGET_C, "c"}};
    for (int i = 0; i < 3; i++)
        if (targets & target_names[i].bit) {
            fprintf(f, "%s %s", first ? "" : ",", target_names[i].name);
            first = false;
        }
    fputc('\n', f);
}

void dump_ir(FILE *f, const fg_plan *p)
{
    dump_header(f, p);
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == TENSOR_INPUT)
            dump_input(f, p, &p->tensors[i]);
    if (p->order) {
        for (int i = 0; i < p->norder; i++)
            dump_statement(f, p, &p->tensors[p->order[i]]);
    } else {
        for (int i = 0; i < p->ntensors; i++)
            if (p->tensors[i].kind == TENSOR_STMT)
                dump_statement(f, p, &p->tensors[i]);
    }
    dump_outputs(f, p);
    dump_schedule(f, p);
}
