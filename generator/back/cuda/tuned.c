/* tuned.c - the CUDA backend's tuned dispatch (docs/tuning.md).
 *
 * From the kernel model's tuning (middle/tune.c):
 * - fusegen --tuning: every candidate of the tune block is compiled, and a
 *   hook that fusegen-tune calls (fg_tune_NAME_force) makes every launch
 *   take one of them, or fail saying why it cannot;
 * - otherwise, with wisdom rows for the plan: the winners are compiled, and
 *   a table per device (each row commented with its wisdom file, line and
 *   times) picks the variant of the nearest tuned shape bucket; a device,
 *   dtype or head dim without rows takes the default rules (variants.c).
 * The split form's tuned knob is the split count of a launch that asks for
 * the plan's (splits 0).  Every launch records the configuration it took
 * and why (fg_note_config; fg_last_config() returns it).
 */
#define _POSIX_C_SOURCE 200809L
#include "generator.h"

#include <stdlib.h>
#include <string.h>

/* The variants the tuned code names: every candidate (tuning) or the
 * winners of the rows, in order of first appearance; split: none. */
typedef struct tuned {
    const fg_ktune *t;
    int n;
    const fg_cuda_config **v;
} tuned;

static int variant_index(const tuned *tv, const char *name)
{
    for (int i = 0; i < tv->n; i++)
        if (!strcmp(tv->v[i]->name, name))
            return i;
    return -1;
}

static tuned tuned_variants(fg_arena *a, const fg_kernel *k)
{
    tuned tv = {k->tune, 0, NULL};
    const fg_ktune *t = k->tune;
    if (!t)
        return tv;
    tv.v = ARENA_ARRAY(a, const fg_cuda_config *, t->ncands + 1);
    if (t->tuning) {
        for (int i = 0; i < t->ncands; i++)
            tv.v[tv.n++] = &t->cands[i];
        return tv;
    }
    for (int w = 0; w < t->nwisdom; w++)
        for (int i = 0; i < t->nrows[w]; i++) {
            const fg_cuda_config *c = tune_find(t, t->rows[w][i]->variant);
            if (c && variant_index(&tv, c->name) < 0)
                tv.v[tv.n++] = c;
        }
    return tv;
}

static bool has_tuned(const fg_kernel *k, bool split)
{
    const fg_ktune *t = k->tune;
    if (!t)
        return false;
    if (t->tuning)
        return !split && t->ncands > 0;
    return t->nwisdom > 0;
}

static const char *dtype_name(unsigned dt)
{
    return dt == CUDA_CFG_BF16 ? "bf16" : "fp16";
}

void cuda_tuned_defs(fg_arena *a, fg_defs *defs, const fg_kernel *k, bool split)
{
    const fg_ktune *t = k->tune;
    const char *name = k->plan->name;
    fg_strbuf use = {a, NULL, 0, 0}, code = {a, NULL, 0, 0};
    const bool on = has_tuned(k, split);
    fg_def_bool(defs, "cuda_tuned", on);
    if (!on) {
        fg_def_code(defs, "cuda_tuned_configs", "");
        fg_def_code(defs, "cuda_tuned_code", "");
        return;
    }
    tuned tv = tuned_variants(a, k);
    if (tv.n) {
        strbuf_printf(&use, "// %s (generator/middle/tune.c):  D BM BN STAGES PINGPONG\n",
                      t->tuning ? "Every candidate of the plan's tune block, for fusegen-tune"
                                : "The tuned configurations: winners of the wisdom rows below");
        for (int i = 0; i < tv.n; i++) {
            const fg_cuda_config *c = tv.v[i];
            strbuf_printf(&use, "using %s = fh_cfg<%d, %d, %d, %d, %s>;  // %s\n", c->name, c->d,
                          c->bm, c->bn, c->stages, c->pingpong ? "true" : "false", c->note);
        }
    }
    if (t->tuning) {
        strbuf_printf(&code,
                      "// fusegen --tuning: fusegen-tune forces one candidate on every launch "
                      "(-1: the default rules).\n"
                      "static int plan_force = -1;\n"
                      "static const struct { const char* name; int d; } plan_candidates[] = {\n");
        for (int i = 0; i < tv.n; i++)
            strbuf_printf(&code, "  {\"%s\", %d},\n", tv.v[i]->name, tv.v[i]->d);
        strbuf_printf(&code,
                      "};\n"
                      "extern \"C\" int fg_tune_%s_count(void) { return %d; }\n"
                      "extern \"C\" const char* fg_tune_%s_name(int i, int* d) {\n"
                      "  if (i < 0 || i >= %d) return nullptr;\n"
                      "  if (d) *d = plan_candidates[i].d;\n"
                      "  return plan_candidates[i].name;\n"
                      "}\n"
                      "extern \"C\" void fg_tune_%s_force(int i) { plan_force = i >= 0 && i < %d ? i : -1; }\n"
                      "// The forced candidate (-2: one of another head dim), else -1.\n"
                      "static int plan_tuned(long long keys, long long work, int dtype, int d, int dev, "
                      "const char** file, int* line) {\n"
                      "  (void)keys; (void)work; (void)dtype; (void)dev; *file = \"fusegen-tune\"; *line = 0;\n"
                      "  if (plan_force < 0) return -1;\n"
                      "  return plan_candidates[plan_force].d == d ? plan_force : -2;\n"
                      "}\n",
                      name, tv.n, name, tv.n, name, tv.n);
        fg_def_code(defs, "cuda_tuned_configs", strbuf_str(&use));
        fg_def_code(defs, "cuda_tuned_code", strbuf_str(&code));
        return;
    }
    strbuf_puts(&code,
                "// Tuned dispatch (docs/tuning.md): per device, the rows of its wisdom file\n"
                "// for this plan.  A launch takes the row of its dtype (1 bf16, 2 fp16) and\n"
                "// head dim whose bucket (ceil(log2 keys), ceil(log2 (batch x heads x rows)))\n"
                "// is nearest its own; a device, dtype or head dim without rows: the default\n"
                "// rules.  Columns: dtype, D, keys, work, variant, wisdom line.\n");
    for (int w = 0; w < t->nwisdom; w++) {
        const fg_wisdom *wf = t->wisdom[w];
        strbuf_printf(&code,
                      "// %s: %s, compute capability %d.%d, %d SMs, memory clock %ld kHz;\n"
                      "// tuned %s by fusegen %s (nvcc %s, driver %s).\n"
                      "static const fg_tune_row plan_wisdom_%d[] = {\n",
                      wf->path, wf->device, wf->cc_major, wf->cc_minor, wf->sms,
                      wf->memclock_khz, wf->date ? wf->date : "(no date)", wf->fusegen, wf->nvcc,
                      wf->driver, w);
        for (int i = 0; i < t->nrows[w]; i++) {
            const fg_wisdom_row *r = t->rows[w][i];
            int v = !strcmp(r->variant, "default") ? -1
                    : split                             ? atoi(r->variant + 7)
                                                        : variant_index(&tv, r->variant);
            strbuf_printf(&code,
                          "  // line %d: %s D %d, 2^%d keys, 2^%d rows of work: %s %.4g ms; "
                          "runner-up %s %.4g ms; spread %.1f %%\n"
                          "  {%d, %d, %d, %d, %d, %d},\n",
                          r->loc.line, dtype_name(r->dtype), r->d, r->keys, r->work, r->variant,
                          r->ms, r->runner, r->runner_ms, 100.0 * r->spread,
                          r->dtype == CUDA_CFG_BF16 ? 1 : 2, r->d, r->keys, r->work, v,
                          r->loc.line);
        }
        strbuf_puts(&code, "};\n");
    }
    if (!split) {
        strbuf_puts(&code,
                    "// The variants of the rows by name and head dim, for $FUSEGEN_CONFIG\n"
                    "// (fg_forced_config: a test takes each of them by name).\n"
                    "static const struct { const char* name; int d; } plan_variants[] = {\n");
        for (int i = 0; i < tv.n; i++)
            strbuf_printf(&code, "  {\"%s\", %d},\n", tv.v[i]->name, tv.v[i]->d);
        strbuf_puts(&code, "  {nullptr, 0},\n};\n");
    }
    strbuf_puts(&code, "static const fg_tune_table plan_wisdom[] = {\n");
    for (int w = 0; w < t->nwisdom; w++)
        strbuf_printf(&code, "  {\"%s\", %d, \"%s\", plan_wisdom_%d, %d},\n", t->wisdom[w]->device,
                      t->wisdom[w]->sms, t->wisdom[w]->path, w, t->nrows[w]);
    strbuf_printf(&code,
                  "};\n"
                  "// The tuned %s of a launch, or -1 (the default rules); *file and\n"
                  "// *line: the wisdom row it came from.\n"
                  "static int plan_tuned(long long keys, long long work, int dtype, int d, int dev, "
                  "const char** file, int* line) {\n"
                  "%s"
                  "  static fg_cuda_per_device cache;\n"
                  "  const int t = fg_cuda_tune_table(plan_wisdom, %d, dev, &cache);\n"
                  "  if (t < 0) return -1;\n"
                  "  const int r = fg_tune_lookup(plan_wisdom[t].rows, plan_wisdom[t].nrows, dtype, d, "
                  "fg_tune_bucket(keys), fg_tune_bucket(work));\n"
                  "  if (r < 0) return -1;\n"
                  "  *file = plan_wisdom[t].file;\n"
                  "  *line = plan_wisdom[t].rows[r].line;\n"
                  "  return plan_wisdom[t].rows[r].variant;\n"
                  "}\n",
                  split ? "split count" : "variant",
                  split ? ""
                        : "  // $FUSEGEN_CONFIG: the variant of that name where it serves this head dim\n"
                          "  if (const char* f = fg_forced_config())\n"
                          "    for (int i = 0; plan_variants[i].name; ++i)\n"
                          "      if (plan_variants[i].d == d && !strcmp(f, plan_variants[i].name)) {\n"
                          "        *file = \"$FUSEGEN_CONFIG\";\n"
                          "        *line = 0;\n"
                          "        return i;\n"
                          "      }\n",
                  t->nwisdom);
    fg_def_code(defs, "cuda_tuned_configs", strbuf_str(&use));
    fg_def_code(defs, "cuda_tuned_code", strbuf_str(&code));
}

char *cuda_tuned_cases(fg_arena *a, const fg_kernel *k, int d, const char *rows)
{
    fg_strbuf b = {a, NULL, 0, 0};
    if (!has_tuned(k, false))
        return "";
    tuned tv = tuned_variants(a, k);
    bool any = false;
    for (int i = 0; i < tv.n; i++)
        any |= tv.v[i]->d == d;
    if (!any && !k->tune->tuning)
        return "";
    strbuf_printf(&b,
                  "    {\n"
                  "      const char* file = nullptr;\n"
                  "      int line = 0;\n"
                  "      const int tv = plan_tuned(a.N, (long long)a.B * a.Hq * %s, "
                  "std::is_same<T, __nv_bfloat16>::value ? 1 : 2, %d, dev, &file, &line);\n"
                  "      switch (tv) {\n",
                  rows, d);
    if (k->tune->tuning)
        strbuf_printf(&b, "        case -2: return fg_set_error(FG_ERR_UNSUPPORTED, \"%%s: the forced "
                          "candidate is not for head dim %%d\", entry, D);\n");
    for (int i = 0; i < tv.n; i++) {
        const fg_cuda_config *c = tv.v[i];
        if (c->d != d)
            continue;
        if (k->tune->tuning)
            strbuf_printf(&b,
                          "        case %d: {\n"
                          "          fg_note_config(entry, \"%s\", file, line);\n"
                          "          const fg_status s = plan_launch_sm90<T, %s>(a, D, st, dev, entry, done);\n"
                          "          if (s == FG_OK && !*done)\n"
                          "            return fg_set_error(FG_ERR_UNSUPPORTED, \"%%s: candidate %s did "
                          "not launch (no sm_90a code for this device, or strides the copy "
                          "engine cannot take)\", entry);\n"
                          "          return s;\n"
                          "        }\n",
                          i, c->name, c->name, c->name);
        else
            strbuf_printf(&b,
                          "        case %d: fg_note_config(entry, \"%s\", file, line); "
                          "return plan_launch_sm90<T, %s>(a, D, st, dev, entry, done);\n",
                          i, c->name, c->name);
    }
    strbuf_puts(&b, "        default: break;  // the default rules\n      }\n    }\n");
    return strbuf_str(&b);
}

char *cuda_tuned_splits(fg_arena *a, const fg_kernel *k)
{
    if (!has_tuned(k, true))
        return "";
    fg_strbuf b = {a, NULL, 0, 0};
    strbuf_puts(&b,
                "  // splits 0 asks for the plan's split count: the tuned one where wisdom has it\n"
                "  const char* tuned_file = nullptr;\n"
                "  int tuned_line = 0;\n"
                "  if (splits == 0) {\n"
                "    const int ts = plan_tuned(a.N, (long long)a.B * a.Hq * a.QL, "
                "std::is_same<T, __nv_bfloat16>::value ? 1 : 2, D, dev, &tuned_file, &tuned_line);\n"
                "    if (ts > 0) splits = ts;\n"
                "    else tuned_file = nullptr;\n"
                "  }\n");
    return strbuf_str(&b);
}
