/* test_fuse.c - the fused schedule: roles, running order, the derived
 * corrections as printed, golden --dump=fused for every plan, the rejected
 * plans' exact messages, and the corrections put to work: a simulation of
 * the rolling walk over key tiles and of the split combine, driven only by
 * the fused schedule, against a direct two-pass evaluation of each running
 * reduction.
 *
 * FG_UPDATE_GOLDEN=1 rewrites tests/golden/fused/<plan>.txt and
 * tests/bad/fuse-*.err; read them before committing. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <math.h>

#include <cmocka.h>

#include "generator.h"

typedef struct fixture {
    fg_arena *a;
    char *diag_text;
    size_t diag_len;
    fg_plan *plan;
    fg_fused *fz;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = arena_create();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    arena_destroy(f->a);
    free(f->diag_text);
    free(f);
    return 0;
}

static const char *srcdir(void)
{
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

static bool updating(void)
{
    const char *u = getenv("FG_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

/* Parse, check and fuse the file at path, naming it `name` in messages;
 * the diagnostics land in f->diag_text.  Returns fuse_plan's status, or -2
 * when the plan fails before fusion. */
static int load_named(fixture *f, const char *path, const char *name)
{
    free(f->diag_text);
    f->diag_text = NULL;
    FILE *out = open_memstream(&f->diag_text, &f->diag_len);
    assert_non_null(out);
    fg_diag d;
    diag_init(&d, NULL, out);
    fg_source *src = ARENA_NEW(f->a, fg_source);
    int rc = -2;
    if (source_read(f->a, path, src, &d) == 0) {
        src->name = name;
        diag_init(&d, src, out);
        if (parse_plan(f->a, src, &d, &f->plan) == 0 && check_plan(f->plan, &d) == 0)
            rc = fuse_plan(f->a, f->plan, &d, &f->fz);
    }
    fclose(out);
    return rc;
}

/* A plan from memory, fused; fails the test on any diagnostic. */
static void load_text(fixture *f, const char *name, const char *text)
{
    free(f->diag_text);
    f->diag_text = NULL;
    FILE *out = open_memstream(&f->diag_text, &f->diag_len);
    assert_non_null(out);
    fg_source *src = ARENA_NEW(f->a, fg_source);
    source_from_string(src, name, text);
    fg_diag d;
    diag_init(&d, src, out);
    int rc = -2;
    if (parse_plan(f->a, src, &d, &f->plan) == 0 && check_plan(f->plan, &d) == 0)
        rc = fuse_plan(f->a, f->plan, &d, &f->fz);
    fclose(out);
    if (rc != 0)
        fail_msg("%s: fuse failed (%d):\n%s", name, rc, f->diag_text);
}

static void load(fixture *f, const char *rel)
{
    const char *path = arena_printf(f->a, "%s/%s", srcdir(), rel);
    int rc = load_named(f, path, rel);
    if (rc != 0)
        fail_msg("%s: fuse failed (%d):\n%s", rel, rc, f->diag_text);
    assert_string_equal(f->diag_text, "");
}

static int tensor(const fixture *f, const char *name)
{
    int t = plan_find_tensor(f->plan, name);
    if (t < 0)
        fail_msg("no tensor %s", name);
    return t;
}

static const fg_running *running(const fixture *f, const char *name)
{
    int t = tensor(f, name);
    for (int k = 0; k < f->fz->nrunning; k++)
        if (f->fz->running[k].tensor == t)
            return &f->fz->running[k];
    fail_msg("%s is not running state", name);
    return NULL;
}

static const char *factor(fixture *f, const char *name)
{
    const fg_running *r = running(f, name);
    return r->corr.factor ? expr_to_string(f->a, f->plan, r->corr.factor) : "(none)";
}

static uint64_t bits(const fixture *f, const char *a, const char *b)
{
    uint64_t v = (uint64_t)1 << tensor(f, a);
    if (b)
        v |= (uint64_t)1 << tensor(f, b);
    return v;
}

/* ---- simulation of the fused schedule ----------------------------- */

#define SIM_MAX_KEYS 64
#define SIM_MAX_T 128

/* Each tensor read that is not running state is a random value per key,
 * the same wherever it is read; running reads give the current value of
 * the state, E_PREV its value before the current tile or, when combining
 * splits, the split's partial value. */
typedef struct sim {
    const fg_plan *p;
    double val[SIM_MAX_T][SIM_MAX_KEYS];
    double cur[SIM_MAX_T], prev[SIM_MAX_T];
    int key;
} sim;

static double sim_leaf(void *ctx, const fg_expr *e)
{
    sim *s = ctx;
    switch (e->kind) {
    case E_TENSOR:
        if (!isnan(s->cur[e->ref]))
            return s->cur[e->ref]; /* running state */
        if (s->key < 0)
            fail_msg("sim: %s read outside a key", s->p->tensors[e->ref].name);
        return s->val[e->ref][s->key];
    case E_PREV: return s->prev[e->ref];
    case E_DIM: return 64;
    case E_PARAM: return 0.75;
    case E_AXIS: return s->key;
    default: fail_msg("sim: leaf %s", fg_expr_kind_names[e->kind]);
    }
    return 0;
}

static double combine(fg_reduce_op op, double x, double y)
{
    return op == R_SUM ? x + y : op == R_MAX ? fmax(x, y) : fmin(x, y);
}

static double body_at(sim *s, const fg_running *r, int key)
{
    fg_eval_env env = {sim_leaf, s};
    s->key = key;
    double v = expr_eval(r->body_inlined, &env);
    s->key = -1;
    return v;
}

static double correct(sim *s, const fg_running *r, double acc)
{
    fg_eval_env env = {sim_leaf, s};
    if (r->corr.kind == CORR_SCALE)
        return acc * expr_eval(r->corr.factor, &env);
    if (r->corr.kind == CORR_SHIFT)
        return acc + expr_eval(r->corr.factor, &env);
    return acc;
}

static void sim_init(sim *s, const fg_fused *fz, unsigned seed)
{
    memset(s, 0, sizeof *s);
    s->p = fz->plan;
    s->key = -1;
    assert_true(fz->plan->ntensors <= SIM_MAX_T);
    srand(seed);
    for (int t = 0; t < SIM_MAX_T; t++) {
        s->cur[t] = NAN; /* not running: read per key */
        for (int k = 0; k < SIM_MAX_KEYS; k++)
            s->val[t][k] = 4.0 * rand() / RAND_MAX - 2.0;
    }
}

/* The running state of keys [k0, k1) walked in tiles of tw keys, with the
 * corrections applied before each tile; result in out[tensor]. */
static void sim_rolling(sim *s, const fg_fused *fz, int k0, int k1, int tw, double *out)
{
    for (int i = 0; i < fz->nrunning; i++)
        s->cur[fz->running[i].tensor] = fz->running[i].identity;
    for (int t0 = k0; t0 < k1; t0 += tw) {
        int t1 = t0 + tw < k1 ? t0 + tw : k1;
        for (int i = 0; i < fz->nrunning; i++)
            s->prev[fz->running[i].tensor] = s->cur[fz->running[i].tensor];
        for (int i = 0; i < fz->nrunning; i++) {
            const fg_running *r = &fz->running[i];
            /* producers (earlier in order) already hold their new values */
            double acc = correct(s, r, s->prev[r->tensor]);
            for (int k = t0; k < t1; k++)
                acc = combine(r->op, acc, body_at(s, r, k));
            s->cur[r->tensor] = acc;
        }
    }
    for (int i = 0; i < fz->nrunning; i++)
        out[fz->running[i].tensor] = s->cur[fz->running[i].tensor];
}

/* Direct: each reduction over all keys with its producers' final values. */
static void sim_direct(sim *s, const fg_fused *fz, int nkeys, double *out)
{
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_running *r = &fz->running[i];
        double acc = r->identity;
        for (int k = 0; k < nkeys; k++)
            acc = combine(r->op, acc, body_at(s, r, k));
        s->cur[r->tensor] = acc;
        out[r->tensor] = acc;
    }
}

/* Splits walked separately, then merged in running order: R = (+)_s h(R_s)
 * with E_PREV = the split's partial producers, E_TENSOR = the combined. */
static void sim_split(sim *s, const fg_fused *fz, int nkeys, int nsplits, int tw, double *out)
{
    static double part[8][SIM_MAX_T];
    assert_true(nsplits <= 8);
    for (int sp = 0; sp < nsplits; sp++) {
        int k0 = nkeys * sp / nsplits, k1 = nkeys * (sp + 1) / nsplits;
        sim_rolling(s, fz, k0, k1, tw, part[sp]);
    }
    for (int i = 0; i < fz->nrunning; i++) {
        const fg_running *r = &fz->running[i];
        double acc = r->identity;
        for (int sp = 0; sp < nsplits; sp++) {
            for (int j = 0; j < fz->nrunning; j++)
                s->prev[fz->running[j].tensor] = part[sp][fz->running[j].tensor];
            acc = combine(r->op, acc, correct(s, r, part[sp][r->tensor]));
        }
        s->cur[r->tensor] = acc; /* the combined value, for later states */
        out[r->tensor] = acc;
    }
}

static void check_simulation(fixture *f, const char *rel)
{
    load(f, rel);
    const fg_fused *fz = f->fz;
    assert_true(fz->nrunning > 0);
    static const int keys[] = {37, 1, 23, 61};
    static const int tiles[] = {8, 5, 16, 7};
    for (int c = 0; c < 4; c++) {
        sim s;
        double want[SIM_MAX_T], got[SIM_MAX_T], split[SIM_MAX_T];
        sim_init(&s, fz, 1000u + (unsigned)c);
        sim_direct(&s, fz, keys[c], want);
        sim_init(&s, fz, 1000u + (unsigned)c);
        sim_rolling(&s, fz, 0, keys[c], tiles[c], got);
        sim_init(&s, fz, 1000u + (unsigned)c);
        sim_split(&s, fz, keys[c], keys[c] < 3 ? 1 : 3, tiles[c], split);
        for (int i = 0; i < fz->nrunning; i++) {
            int t = fz->running[i].tensor;
            double tol = 1e-9 * fmax(1.0, fabs(want[t]));
            if (!(fabs(got[t] - want[t]) <= tol) || !(fabs(split[t] - want[t]) <= tol))
                fail_msg("%s: %s over %d keys in tiles of %d: rolling %.17g, split %.17g, "
                         "direct %.17g",
                         rel, f->plan->tensors[t].name, keys[c], tiles[c], got[t], split[t],
                         want[t]);
        }
    }
}

/* ---- golden text ------------------------------------------------------ */

static char *read_text(fg_arena *a, const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = arena_alloc(a, (size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, fp);
    s[got] = '\0';
    fclose(fp);
    return s;
}

static void compare_golden(fixture *f, const char *golden, const char *text)
{
    if (updating()) {
        FILE *fp = fopen(golden, "wb");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
        return;
    }
    char *want = read_text(f->a, golden);
    if (!want)
        fail_msg("missing golden %s (FG_UPDATE_GOLDEN=1 writes it)", golden);
    if (strcmp(want, text) != 0)
        fail_msg("%s differs; got:\n%s", golden, text);
}

static char *dump_text(fixture *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    dump_fused(out, f->fz);
    fclose(out);
    char *copy = arena_strdup(f->a, text);
    free(text);
    return copy;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The files in dir with the prefix and suffix, sorted. */
static int list_files(fg_arena *a, const char *dir, const char *prefix, const char *suffix,
                      char **names, int max)
{
    DIR *dp = opendir(dir);
    if (!dp)
        fail_msg("cannot open %s", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name), pl = strlen(prefix), sl = strlen(suffix);
        if (len > pl + sl && strncmp(de->d_name, prefix, pl) == 0 &&
            strcmp(de->d_name + len - sl, suffix) == 0 && n < max)
            names[n++] = arena_strndup(a, de->d_name, len - sl);
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    return n;
}

/* ---- tests -------------------------------------------------------------- */

static void test_roles_of_causal_attention(void **state)
{
    fixture *f = *state;
    load(f, "plans/causal.fp");
    static const struct {
        const char *name;
        fg_role role;
    } want[] = {
        {"Q", ROLE_INPUT},  {"K", ROLE_INPUT},    {"V", ROLE_INPUT},        {"S_sum", ROLE_TILE},
        {"S", ROLE_TILE},   {"T", ROLE_TILE},     {"P", ROLE_TILE},         {"Mx", ROLE_RUNNING},
        {"L", ROLE_RUNNING}, {"O_sum", ROLE_RUNNING}, {"O", ROLE_EPILOGUE}, {"LSE", ROLE_EPILOGUE},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (f->fz->role[tensor(f, want[i].name)] != want[i].role)
            fail_msg("%s: role %s, want %s", want[i].name,
                     fg_role_names[f->fz->role[tensor(f, want[i].name)]],
                     fg_role_names[want[i].role]);
    assert_int_equal(f->fz->axis, plan_find_axis(f->plan, "n"));
    assert_int_equal(f->fz->form, FORM_ROLLING);
    uint32_t rows = 1u << plan_find_axis(f->plan, "b") | 1u << plan_find_axis(f->plan, "h") |
                    1u << plan_find_axis(f->plan, "m");
    assert_int_equal(f->fz->row_axes, rows);
    assert_int_equal(f->fz->ntile, 4);
    assert_int_equal(f->fz->nepilogue, 2);
    assert_int_equal(f->fz->nprologue, 0);
    assert_int_equal(f->fz->epilogue[0], tensor(f, "O"));
    assert_int_equal(f->fz->epilogue[1], tensor(f, "LSE"));
}

static void test_running_order_puts_producers_first(void **state)
{
    fixture *f = *state;
    load(f, "plans/causal.fp");
    assert_int_equal(f->fz->nrunning, 3);
    assert_int_equal(f->fz->running[0].tensor, tensor(f, "Mx"));
    assert_int_equal(f->fz->running[1].tensor, tensor(f, "L"));
    assert_int_equal(f->fz->running[2].tensor, tensor(f, "O_sum"));
    assert_int_equal(running(f, "Mx")->corr.kind, CORR_NONE);
    assert_true(isinf(running(f, "Mx")->identity) && running(f, "Mx")->identity < 0);
    assert_true(running(f, "L")->identity == 0.0);
    assert_int_equal(running(f, "L")->corr.producers, bits(f, "Mx", NULL));
    assert_int_equal(running(f, "O_sum")->corr.producers, bits(f, "Mx", NULL));
    assert_int_equal(running(f, "L")->corr.origin, tensor(f, "P"));
    /* the inlined bodies read complete values and running state only */
    assert_string_equal(expr_to_string(f->a, f->plan, running(f, "L")->body_inlined),
                        "exp(T - Mx)");
    assert_string_equal(expr_to_string(f->a, f->plan, running(f, "O_sum")->body_inlined),
                        "exp(T - Mx) * V");
}

static void test_corrections_of_the_bundled_plans(void **state)
{
    fixture *f = *state;
    static const char *const plans[] = {"plans/causal.fp", "plans/softcap.fp", "plans/alibi.fp",
                                        "plans/gqa.fp", "plans/window.fp", "plans/global.fp"};
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        load(f, plans[i]);
        assert_string_equal(factor(f, "Mx"), "(none)");
        assert_string_equal(factor(f, "L"), "exp(Mx_prev - Mx)");
        assert_string_equal(factor(f, "O_sum"), "exp(Mx_prev - Mx)");
        assert_int_equal(running(f, "O_sum")->corr.kind, CORR_SCALE);
        assert_true(running(f, "O_sum")->corr.verified);
        assert_true(running(f, "O_sum")->corr.max_rel_err < 1e-9);
    }
    load(f, "plans/softmax.fp");
    assert_string_equal(factor(f, "L"), "exp(Mx_prev - Mx)");
    assert_int_equal(running(f, "L")->corr.origin, tensor(f, "E"));
    /* Y = E / L needs the final L: a second pass over c, not a tile value */
    assert_int_equal(f->fz->role[tensor(f, "Y")], ROLE_EPILOGUE);
    assert_int_equal(f->fz->role[tensor(f, "E")], ROLE_TILE);
    load(f, "plans/logsumexp.fp");
    assert_int_equal(f->fz->form, FORM_SPLIT);
    assert_string_equal(factor(f, "L"), "exp(Mx_prev - Mx)");
    assert_int_equal(running(f, "L")->corr.origin, tensor(f, "L"));
    assert_int_equal(f->fz->role[tensor(f, "LSE")], ROLE_EPILOGUE);
}

static void test_split_combine_is_printed_in_running_order(void **state)
{
    fixture *f = *state;
    load(f, "plans/causal_decode.fp");
    char *text = dump_text(f);
    const char *want = "combine (split form), the partial states r_s of the splits s:\n"
                       "  Mx = max over s of Mx_s\n"
                       "  L = sum over s of L_s * exp(Mx_s - Mx)\n"
                       "  O_sum = sum over s of O_sum_s * exp(Mx_s - Mx)\n";
    if (!strstr(text, want))
        fail_msg("no combine section in:\n%s", text);
    load(f, "plans/causal.fp");
    assert_null(strstr(dump_text(f), "combine"));
    /* The same schedule printed rolling: only the header and the combine
     * section differ. */
    load(f, "plans/causal_decode.fp");
    char *split = dump_text(f);
    f->fz->form = FORM_ROLLING;
    char *rolling = dump_text(f);
    char *cut = strstr(split, want);
    assert_non_null(cut);
    /* Cut the combine section out (a plain copy loop: gcc's -Warray-bounds
     * misreads a memmove here under -O2 with the sanitizers). */
    for (const char *src = cut + strlen(want); (*cut = *src) != '\0'; cut++, src++)
        ;
    const char *head_split = "fused causal_decode: reduce n (split), tiles m=16 n=64, splits auto\n";
    const char *head_rolling = "fused causal_decode: reduce n (rolling), tiles m=16 n=64\n";
    assert_int_equal(strncmp(split, head_split, strlen(head_split)), 0);
    assert_int_equal(strncmp(rolling, head_rolling, strlen(head_rolling)), 0);
    assert_string_equal(split + strlen(head_split), rolling + strlen(head_rolling));
}

static void test_flash_attention_1_form_has_two_producers(void **state)
{
    fixture *f = *state;
    load(f, "plans/fa1.fp");
    const fg_running *o = running(f, "O");
    assert_int_equal(o->corr.kind, CORR_SCALE);
    assert_int_equal(o->corr.producers, bits(f, "Mx", "L"));
    assert_string_equal(factor(f, "O"), "L_prev / L * exp(Mx_prev - Mx)");
    assert_int_equal(o->corr.origin, tensor(f, "W"));
    assert_int_equal(f->fz->role[tensor(f, "W")], ROLE_TILE);
    assert_int_equal(f->fz->nepilogue, 0);
    check_simulation(f, "plans/fa1.fp");
}

static void test_max_under_a_shift_is_corrected_by_a_shift(void **state)
{
    fixture *f = *state;
    load(f, "tests/plans/maxshift.fp");
    const fg_running *z = running(f, "Z");
    assert_int_equal(z->corr.kind, CORR_SHIFT);
    assert_string_equal(factor(f, "Z"), "S1_prev - S1");
    assert_int_equal(z->corr.producers, bits(f, "S1", NULL));
    if (!strstr(dump_text(f), "  Z = max over s of (Z_s + S1_s - S1)\n"))
        fail_msg("combine of Z missing:\n%s", dump_text(f));
    check_simulation(f, "tests/plans/maxshift.fp");
}

static void test_prefix_lm_mask_is_a_disjunction(void **state)
{
    fixture *f = *state;
    load(f, "tests/plans/prefix_lm.fp");
    const fg_mask *m = &f->fz->mask;
    assert_true(m->present);
    assert_int_equal(m->stmt, tensor(f, "T"));
    assert_int_equal(m->row_axis, plan_find_axis(f->plan, "m"));
    assert_int_equal(m->col_axis, plan_find_axis(f->plan, "n"));
    assert_int_equal(m->root->op, MASK_OR);
    assert_string_equal(mask_atom_to_string(f->a, f->plan, m, &m->root->lhs->atom), "n - P < 0");
    assert_string_equal(mask_atom_to_string(f->a, f->plan, m, &m->root->rhs->atom),
                        "-m + n + M - N <= 0");
}

static const char row_plan_head[] = "plan rows\n"
                                    "dim R, C\n"
                                    "axis r: R, c: C\n"
                                    "input X[r, c]: f32\n"
                                    "input Bias[r]: f32\n";
static const char row_plan_tail[] = "schedule {\n"
                                    "  reduce c: rolling\n"
                                    "  tile r = 4, c = 64\n"
                                    "}\n";

static void test_prologue_and_second_pass_roles(void **state)
{
    fixture *f = *state;
    const char *text = arena_printf(f->a,
                                    "%s"
                                    "B2[r] = 2 * Bias\n"
                                    "Y[r, c] = X + B2\n"
                                    "Mx[r] = max(c: Y)\n"
                                    "E[r, c] = exp(Y - Mx)\n"
                                    "L[r] = sum(c: E)\n"
                                    "Out[r, c] = E / L\n"
                                    "Tot[r] = L + B2\n"
                                    "output Out: f32, Tot: f32\n%s",
                                    row_plan_head, row_plan_tail);
    load_text(f, "rows.fp", text);
    const fg_fused *fz = f->fz;
    assert_int_equal(fz->role[tensor(f, "B2")], ROLE_PROLOGUE);
    assert_int_equal(fz->role[tensor(f, "Y")], ROLE_TILE);
    assert_int_equal(fz->role[tensor(f, "E")], ROLE_TILE);
    assert_int_equal(fz->role[tensor(f, "Out")], ROLE_EPILOGUE);
    assert_int_equal(fz->role[tensor(f, "Tot")], ROLE_EPILOGUE);
    assert_int_equal(fz->nprologue, 1);
    assert_int_equal(fz->prologue[0], tensor(f, "B2"));
    assert_int_equal(fz->row_axes, 1u << plan_find_axis(f->plan, "r"));
    /* Y does not depend on running values: it stays a read in the bodies */
    assert_string_equal(expr_to_string(f->a, f->plan, running(f, "L")->body_inlined),
                        "exp(Y - Mx)");
    char *dump = dump_text(f);
    assert_non_null(strstr(dump, "prologue (once per row block):\n  B2[r] = 2 * Bias"));
    assert_non_null(strstr(dump, "epilogue (after the last tile):\n  Tot[r] = L + B2"));
    assert_non_null(strstr(dump, "second pass over the tiles of c (final running values):\n"
                                 "  Out[r, c] = E / L"));
}

static void test_row_value_read_in_the_loop_is_inlined(void **state)
{
    fixture *f = *state;
    /* Mean is a row value of a running sum; Z reads it per key, so Z's body
     * is X - Mean_sum / C: a shift of a max, corrected by a shift. */
    const char *text = arena_printf(f->a,
                                    "%s"
                                    "Mean[r] = sum(c: X) / C\n"
                                    "Z[r] = max(c: X - Mean)\n"
                                    "output Z: f32\n%s",
                                    row_plan_head, row_plan_tail);
    load_text(f, "mean.fp", text);
    assert_int_equal(f->fz->role[tensor(f, "Mean")], ROLE_EPILOGUE);
    assert_int_equal(f->fz->role[tensor(f, "Mean_sum")], ROLE_RUNNING);
    const fg_running *z = running(f, "Z");
    assert_string_equal(expr_to_string(f->a, f->plan, z->body_inlined), "X - Mean_sum / C");
    assert_int_equal(z->corr.kind, CORR_SHIFT);
    assert_int_equal(z->corr.producers, bits(f, "Mean_sum", NULL));
    assert_int_equal(z->corr.origin, tensor(f, "Mean"));
    sim s;
    double want[SIM_MAX_T], got[SIM_MAX_T], split[SIM_MAX_T];
    sim_init(&s, f->fz, 7);
    sim_direct(&s, f->fz, 29, want);
    sim_init(&s, f->fz, 7);
    sim_rolling(&s, f->fz, 0, 29, 4, got);
    sim_init(&s, f->fz, 7);
    sim_split(&s, f->fz, 29, 3, 4, split);
    int t = tensor(f, "Z");
    assert_true(fabs(got[t] - want[t]) <= 1e-9 * fmax(1.0, fabs(want[t])));
    assert_true(fabs(split[t] - want[t]) <= 1e-9 * fmax(1.0, fabs(want[t])));
}

static void test_wheres_inside_reduction_bodies_are_masks_too(void **state)
{
    fixture *f = *state;
    const char *text = arena_printf(f->a,
                                    "%s"
                                    "Mx[r] = max(c: where(c <= r, X, -inf))\n"
                                    "L[r] = sum(c: exp(where(c <= r + 2, X, -inf) - Mx))\n"
                                    "output L: f32\n%s",
                                    row_plan_head, row_plan_tail);
    load_text(f, "inbody.fp", text);
    const fg_mask *m = &f->fz->mask;
    assert_true(m->present);
    assert_int_equal(m->nwheres, 2);
    assert_int_equal(m->root->op, MASK_AND);
    assert_string_equal(expr_to_string(f->a, f->plan, m->cond), "c <= r && c <= r + 2");
    assert_string_equal(mask_atom_to_string(f->a, f->plan, m, &m->root->rhs->atom),
                        "-r + c - 2 <= 0");
    assert_true(f->fz->mask_skippable);
    assert_string_equal(factor(f, "L"), "exp(Mx_prev - Mx)");
}

static void test_masked_tiles_are_skipped_only_when_they_add_nothing(void **state)
{
    fixture *f = *state;
    static const char *const masked[] = {"plans/causal.fp", "plans/window.fp",
                                         "plans/alibi_decode.fp", "tests/plans/prefix_lm.fp"};
    for (size_t i = 0; i < sizeof masked / sizeof masked[0]; i++) {
        load(f, masked[i]);
        assert_true(f->fz->mask.present);
        assert_true(f->fz->mask_skippable);
    }
    load(f, "plans/global.fp");
    assert_false(f->fz->mask.present);
    assert_false(f->fz->mask_skippable);
    /* Sm = sum(c: X) adds X at keys the mask hides from Mx */
    load(f, "tests/plans/masked_rowsum.fp");
    assert_true(f->fz->mask.present);
    assert_int_equal(f->fz->mask.row_axis, plan_find_axis(f->plan, "r"));
    assert_false(f->fz->mask_skippable);
    assert_non_null(strstr(dump_text(f), "tiles are never skipped"));
}

/* Statements that each read the one before twice double when written out;
 * the mask check writes every statement out, so thirty of them took 2^30
 * copies (the old code ran for hours; the checker now refuses past
 * FG_MAX_WRITTEN_OUT operations, tests/bad/sem-written-out.fp).  Ten
 * stay within the checker's bound and go past the mask check's cap of
 * 4096 nodes: past it the masked tiles are simply not skipped, which is
 * always correct. */
static void test_a_doubling_chain_under_a_mask_stays_bounded(void **state)
{
    fixture *f = *state;
    fg_strbuf b = {.a = f->a};
    strbuf_puts(&b, "plan chain\ndim R, C\naxis r: R, c: C\ninput X[r, c]: f32\n"
                    "T0[r, c] = where(c <= r, X, -inf)\n");
    for (int i = 1; i <= 10; i++)
        strbuf_printf(&b, "T%d[r, c] = T%d + T%d * 3\n", i, i - 1, i - 1);
    strbuf_puts(&b, "Mx[r] = max(c: T10)\nL[r] = sum(c: exp(T10 - Mx))\n"
                    "LSE[r] = Mx + log(L)\noutput LSE: f32\n");
    load_text(f, "chain.fp", strbuf_str(&b));
    assert_true(f->fz->mask.present);
    assert_false(f->fz->mask_skippable);
}

static void test_rolling_and_split_walks_match_a_direct_evaluation(void **state)
{
    fixture *f = *state;
    char *names[64];
    const char *dir = arena_printf(f->a, "%s/plans", srcdir());
    int n = list_files(f->a, dir, "", ".fp", names, 64);
    assert_true(n >= 13);
    for (int i = 0; i < n; i++)
        check_simulation(f, arena_printf(f->a, "plans/%s.fp", names[i]));
    check_simulation(f, "tests/plans/prefix_lm.fp");
    check_simulation(f, "tests/plans/masked_rowsum.fp");
}

/* Issue 13: a plan whose only running value carries an axis that a tile
 * statement reduces over (sigmoid attention: O[b, h, m, d] = sum(n: W * V),
 * S = sum(d: Q * K)) keeps d as O's own axis, not a row axis, and builds a
 * kernel model (it was refused: "'S_sum' reduces over row axis 'd'"); a
 * product of two inputs over the fused axis is a row reduction beside the
 * running max (it was refused as a contraction of two inputs). */
static void test_running_value_with_an_axis_reduced_elsewhere(void **state)
{
    fixture *f = *state;
    load(f, "plans/sigmoid.fp");
    const fg_plan *p = f->plan;
    uint32_t want = 1u << plan_find_axis(p, "b") | 1u << plan_find_axis(p, "h") |
                    1u << plan_find_axis(p, "m");
    assert_int_equal(f->fz->row_axes, want);
    assert_int_equal(f->fz->nrunning, 1);
    fg_kernel *k = NULL;
    fg_diag d;
    diag_init(&d, f->plan->src, stderr);
    assert_int_equal(kernel_build(f->a, f->fz, &d, &k), 0);
    assert_int_equal(k->sched.row_axis, plan_find_axis(p, "m"));

    load(f, "tests/plans/kvsum.fp");
    assert_int_equal(f->plan->tensors[tensor(f, "KV")].cls, CLASS_REDUCTION);
    assert_int_equal(running(f, "KV")->corr.kind, CORR_NONE);
    assert_int_equal(running(f, "Mx")->op, R_MAX);
    check_simulation(f, "tests/plans/kvsum.fp");
}

static void test_golden_fused_dumps(void **state)
{
    fixture *f = *state;
    char *names[64];
    int n = list_files(f->a, arena_printf(f->a, "%s/plans", srcdir()), "", ".fp", names, 64);
    int m = list_files(f->a, arena_printf(f->a, "%s/tests/plans", srcdir()), "", ".fp", names + n,
                       64 - n);
    assert_true(n >= 13 && m >= 4);
    for (int i = 0; i < n + m; i++) {
        const char *rel = arena_printf(f->a, "%s/%s.fp", i < n ? "plans" : "tests/plans", names[i]);
        load(f, rel);
        compare_golden(f, arena_printf(f->a, "%s/tests/golden/fused/%s.txt", srcdir(), names[i]),
                       dump_text(f));
    }
}

static void test_rejected_plans_give_their_exact_messages(void **state)
{
    fixture *f = *state;
    char *names[64];
    const char *dir = arena_printf(f->a, "%s/tests/bad", srcdir());
    int n = list_files(f->a, dir, "fuse-", ".fp", names, 64);
    assert_true(n >= 5);
    for (int i = 0; i < n; i++) {
        const char *base = arena_printf(f->a, "%s.fp", names[i]);
        int rc = load_named(f, arena_printf(f->a, "%s/%s", dir, base), base);
        if (rc != -1)
            fail_msg("%s: fuse_plan returned %d, want -1; diagnostics:\n%s", base, rc,
                     f->diag_text);
        assert_null(f->fz);
        compare_golden(f, arena_printf(f->a, "%s/%s.err", dir, names[i]), f->diag_text);
    }
}

static void test_messages_name_statement_and_reason(void **state)
{
    fixture *f = *state;
    const char *dir = arena_printf(f->a, "%s/tests/bad", srcdir());
    assert_int_equal(load_named(f, arena_printf(f->a, "%s/fuse-two-axes.fp", dir), "y.fp"), -1);
    assert_non_null(strstr(f->diag_text, "y.fp:10:17: error: cannot fuse 'Cm': it reduces over "
                                         "the tiled axis 'm'"));
    assert_int_equal(load_named(f, arena_printf(f->a, "%s/fuse-power.fp", dir), "z.fp"), -1);
    /* the user's statements, not the hoisted Var_sum and Mean_sum (issue 13) */
    assert_non_null(strstr(f->diag_text, "z.fp:10:11: error: cannot fuse 'Var' over 'c': its body "
                                         "reads the running sum 'Mean' inside '(X - sum(c: X) / "
                                         "C) ^ 5'"));
    assert_null(strstr(f->diag_text, "_sum"));
    assert_non_null(strstr(f->diag_text, "up to the power 4"));
}

/* Power sums about a running value (issue 13): the checker carries the
 * count and the lower powers beside them, each shifted by the binomial
 * theorem; the simulation folds rows tile by tile and split by split
 * (Welford's update, Chan's combine) against the naive sums. */
static void test_power_sums_carry_their_lower_powers(void **state)
{
    fixture *f = *state;
    load(f, "tests/plans/maxpow.fp");
    const fg_plan *p = f->plan;
    int l = tensor(f, "L");
    assert_non_null(p->tensors[l].powsum);
    assert_int_equal(p->tensors[l].powsum->k, 3);
    const int *aux = p->tensors[l].powsum->aux;
    assert_string_equal(p->tensors[aux[0]].name, "L_count");
    assert_string_equal(p->tensors[aux[1]].name, "L_pow1");
    assert_string_equal(p->tensors[aux[2]].name, "L_pow2");
    const fg_running *r = running(f, "L");
    assert_int_equal(r->corr.kind, CORR_SHIFT);
    assert_true(r->corr.verified);
    assert_int_equal(r->corr.producers, bits(f, "Mx", "L_count") | bits(f, "L_pow1", "L_pow2"));
    assert_string_equal(factor(f, "L"),
                        "where(L_count_prev > 0, L_count_prev * (Mx_prev - Mx) ^ 3 + 3 * "
                        "(L_pow1_prev * (Mx_prev - Mx) ^ 2) + 3 * (L_pow2_prev * (Mx_prev - "
                        "Mx)), 0)");
    assert_string_equal(plan_user_name(p, aux[1]), "L");
    check_simulation(f, "tests/plans/maxpow.fp");
    load(f, "plans/layernorm.fp");
    /* the running mean is the sum over the count so far (Welford's) */
    assert_non_null(strstr(dump_text(f), "update Var_sum = Var_sum + (X - Mean_sum / "
                                         "Var_sum_count) ^ 2"));
    check_simulation(f, "plans/layernorm.fp");
    /* a shift under a sum carries the count alone */
    load(f, "tests/plans/shiftsum.fp");
    assert_string_equal(factor(f, "L"), "where(L_count_prev > 0, L_count_prev * (Mx_prev - Mx), 0)");
    check_simulation(f, "tests/plans/shiftsum.fp");
    /* a running value reading a row statement over another (Var = Var_sum
     * / C): the scale follows the running sum, divided by the dim */
    load(f, "tests/plans/varexp.fp");
    assert_string_equal(factor(f, "Z"), "exp((Var_sum_prev - Var_sum) / C)");
    check_simulation(f, "tests/plans/varexp.fp");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_roles_of_causal_attention),
        T(test_running_order_puts_producers_first),
        T(test_corrections_of_the_bundled_plans),
        T(test_split_combine_is_printed_in_running_order),
        T(test_flash_attention_1_form_has_two_producers),
        T(test_max_under_a_shift_is_corrected_by_a_shift),
        T(test_prefix_lm_mask_is_a_disjunction),
        T(test_prologue_and_second_pass_roles),
        T(test_row_value_read_in_the_loop_is_inlined),
        T(test_wheres_inside_reduction_bodies_are_masks_too),
        T(test_masked_tiles_are_skipped_only_when_they_add_nothing),
        T(test_a_doubling_chain_under_a_mask_stays_bounded),
        T(test_rolling_and_split_walks_match_a_direct_evaluation),
        T(test_running_value_with_an_axis_reduced_elsewhere),
        T(test_golden_fused_dumps),
        T(test_rejected_plans_give_their_exact_messages),
        T(test_messages_name_statement_and_reason),
        T(test_power_sums_carry_their_lower_powers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
