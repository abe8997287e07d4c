/* test_masks.c - the mask analysis: linear atoms, tile classification and
 * key ranges, each checked against brute force over every element of many
 * random tiles of random odd sizes, and the emitted C code compiled and run
 * against the same brute force when a C compiler is at hand. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "generator.h"

/* A plan built by hand: dims M, N, P, W; axes m: M, n: N, h: M; int param
 * Q (an offset); one statement T[m, n] = where(cond, 1, -inf). */
enum { DIM_M, DIM_N, DIM_P, DIM_W, NDIMS };
enum { AX_M, AX_N, AX_H, NAXES };

typedef struct fixture {
    fg_arena *a;
    fg_plan plan;
    fg_dim dims[NDIMS];
    fg_axis axes[NAXES];
    fg_param params[1];
    fg_ir_tensor tensors[2]; /* T, and D: an i32 input over h */
    int taxes[2];
    long dimval[NDIMS];
    long qval;
    fg_mask mask;
} fixture;

static fixture *F; /* the current fixture, for the expression helpers */

static fg_expr *ax(int i) { return expr_ref(F->a, E_AXIS, i, F->axes[i].name); }
static fg_expr *dm(int i) { return expr_ref(F->a, E_DIM, i, F->dims[i].name); }
static fg_expr *num(long v)
{
    fg_expr *e = expr_num(F->a, (double)v);
    e->is_int = true;
    return e;
}
static fg_expr *bin(fg_expr_kind k, fg_expr *x, fg_expr *y) { return expr_binary(F->a, k, x, y); }
static fg_expr *neg_inf(void)
{
    return expr_unary(F->a, E_NEG, expr_new(F->a, E_INF, (fg_loc){0, 0}, 0));
}
/* m + N - M: the bottom-right position of query m */
static fg_expr *pos(void) { return bin(E_SUB, bin(E_ADD, ax(AX_M), dm(DIM_N)), dm(DIM_M)); }

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = arena_create();
    const char *dn[NDIMS] = {"M", "N", "P", "W"};
    for (int i = 0; i < NDIMS; i++)
        f->dims[i].name = dn[i];
    const char *an[NAXES] = {"m", "n", "h"};
    const int ad[NAXES] = {DIM_M, DIM_N, DIM_M};
    for (int i = 0; i < NAXES; i++) {
        f->axes[i].name = an[i];
        f->axes[i].dim = ad[i];
    }
    f->params[0].name = "Q";
    f->params[0].dtype = DT_INT;
    f->params[0].index_axis = -1;
    f->taxes[0] = AX_M;
    f->taxes[1] = AX_N;
    f->tensors[0].name = "T";
    f->tensors[0].kind = TENSOR_STMT;
    f->tensors[0].naxes = 2;
    f->tensors[0].axes = f->taxes;
    f->tensors[0].axis_mask = (1u << AX_M) | (1u << AX_N);
    f->plan.arena = f->a;
    f->plan.name = "masks";
    f->plan.ndims = NDIMS;
    f->plan.dims = f->dims;
    f->plan.naxes = NAXES;
    f->plan.axes = f->axes;
    f->plan.nparams = 1;
    f->plan.params = f->params;
    f->tensors[1].name = "D";
    f->tensors[1].kind = TENSOR_INPUT;
    f->tensors[1].dtype = DT_INT;
    f->plan.ntensors = 2;
    f->plan.tensors = f->tensors;
    F = f;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    arena_destroy(f->a);
    free(f);
    F = NULL;
    return 0;
}

static double leaf(void *ctx, const fg_expr *e)
{
    fixture *f = ctx;
    if (e->kind == E_DIM)
        return (double)f->dimval[e->ref];
    if (e->kind == E_PARAM)
        return (double)f->qval;
    fail_msg("unexpected leaf %s", fg_expr_kind_names[e->kind]);
    return 0;
}

/* Analyse T = where(cond, 1, -inf) (or where(cond, -inf, 1) when flipped). */
static void analyse(fixture *f, fg_expr *cond, bool flipped)
{
    f->tensors[0].rhs = expr_new(f->a, E_WHERE, (fg_loc){3, 15}, 3);
    f->tensors[0].rhs->args[0] = cond;
    f->tensors[0].rhs->args[1] = flipped ? neg_inf() : num(1);
    f->tensors[0].rhs->args[2] = flipped ? num(1) : neg_inf();
    fg_diag d;
    diag_init(&d, NULL, stderr);
    assert_int_equal(mask_analyse(f->a, &f->plan, AX_M, AX_N, &f->mask, &d), 0);
    assert_int_equal(d.errors, 0);
    assert_true(f->mask.present);
    assert_int_equal(f->mask.stmt, 0);
}

/* Does the condition hold at (row, col)?  Evaluated on the expression,
 * independently of the atoms. */
static long eval(fixture *f, const fg_expr *e, long r, long c)
{
    switch (e->kind) {
    case E_NUM: return (long)e->num;
    case E_AXIS: return e->ref == AX_M ? r : e->ref == AX_N ? c : 3;
    case E_DIM: return f->dimval[e->ref];
    case E_PARAM: return f->qval;
    case E_NEG: return -eval(f, e->args[0], r, c);
    case E_NOT: return !eval(f, e->args[0], r, c);
    case E_TENSOR: /* D: runs of 13 equal ids, as packed documents */
        return eval(f, e->args[0], r, c) / 13;
    default: break;
    }
    long x = eval(f, e->args[0], r, c), y = eval(f, e->args[1], r, c);
    switch (e->kind) {
    case E_ADD: return x + y;
    case E_SUB: return x - y;
    case E_MUL: return x * y;
    case E_DIV: return x / y;
    case E_LT: return x < y;
    case E_LE: return x <= y;
    case E_GT: return x > y;
    case E_GE: return x >= y;
    case E_EQ: return x == y;
    case E_NE: return x != y;
    case E_AND: return x && y;
    case E_OR: return x || y;
    default: fail_msg("eval: kind %s", fg_expr_kind_names[e->kind]);
    }
    return 0;
}

static bool visible(fixture *f, long r, long c)
{
    const fg_expr *w = f->tensors[0].rhs;
    bool cond = eval(f, w->args[0], r, c) != 0;
    return w->args[2]->kind == E_NEG ? cond : !cond;
}

/* Brute force over the box: the tile state, and the key range of its rows
 * over all keys [0, N). */
static fg_tile_state brute_state(fixture *f, long r0, long r1, long c0, long c1)
{
    long seen = 0, total = 0;
    for (long r = r0; r < r1; r++)
        for (long c = c0; c < c1; c++, total++)
            seen += visible(f, r, c);
    return seen == 0 ? TILE_SKIP : seen == total ? TILE_FULL : TILE_PARTIAL;
}

static void brute_range(fixture *f, long r0, long r1, long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    bool any = false;
    for (long r = r0; r < r1; r++)
        for (long c = 0; c < f->dimval[DIM_N]; c++)
            if (visible(f, r, c)) {
                if (!any || c < *lo)
                    *lo = c;
                if (!any || c + 1 > *hi)
                    *hi = c + 1;
                any = true;
            }
}

static unsigned long rng_state = 12345;
static long rnd(long n) /* [0, n) */
{
    rng_state = rng_state * 6364136223846793005ul + 1442695040888963407ul;
    return (long)((rng_state >> 33) % (unsigned long)n);
}

/* (M, N, P, W, Q) settings: square, M > N, M < N, tiny windows. */
static const long shapes[][5] = {
    {37, 37, 5, 9, 0}, {53, 29, 3, 7, 2}, {21, 67, 11, 13, -3}, {45, 45, 0, 1, 4},
    {9, 71, 70, 33, 1}, {61, 17, 20, 5, -1},
};

/* Random tiles of random odd sizes (boxes may hang over the edges by a few
 * rows or keys, as the last tiles do).  exact: the classification and the
 * key range must equal brute force; otherwise only be safe. */
static void check_against_brute_force(fixture *f, bool exact_state, bool exact_range)
{
    fg_eval_env env = {leaf, f};
    int checked = 0, partial = 0, skipped = 0, full = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int i = 0; i < NDIMS; i++)
            f->dimval[i] = shapes[s][i];
        f->qval = shapes[s][4];
        long M = f->dimval[DIM_M], N = f->dimval[DIM_N];
        for (int k = 0; k < 300; k++) {
            long th = 2 * rnd(8) + 1, tw = 2 * rnd(10) + 1;
            long r0 = rnd(M + 2) - 1, c0 = rnd(N + 2) - 1;
            long r1 = r0 + th, c1 = c0 + tw;
            fg_tile_state got = mask_classify(&f->mask, r0, r1, c0, c1, &env);
            fg_tile_state want = brute_state(f, r0, r1, c0, c1);
            if (exact_state) {
                if (got != want)
                    fail_msg("shape %zu tile [%ld,%ld)x[%ld,%ld): state %d, brute force %d", s,
                             r0, r1, c0, c1, got, want);
            } else {
                assert_true(want == TILE_PARTIAL || got == want || got == TILE_PARTIAL);
            }
            partial += want == TILE_PARTIAL;
            skipped += want == TILE_SKIP;
            full += want == TILE_FULL;
            long lo, hi, blo, bhi;
            long rr0 = r0 < 0 ? 0 : r0, rr1 = r1 > M ? M : r1;
            assert_int_equal(mask_key_range(&f->mask, rr0, rr1, N, &env, &lo, &hi), 0);
            brute_range(f, rr0, rr1, &blo, &bhi);
            if (exact_range) {
                if (lo != blo || hi != bhi)
                    fail_msg("shape %zu rows [%ld,%ld): keys [%ld,%ld), brute force [%ld,%ld)", s,
                             rr0, rr1, lo, hi, blo, bhi);
            } else if (blo < bhi) {
                assert_true(lo <= blo && hi >= bhi);
            }
            checked++;
        }
    }
    assert_int_equal(checked, 1800);
    /* The random tiles must have exercised every outcome. */
    assert_true(partial > 0 && skipped > 0 && full > 0);
}

/* mask_rows_exact: whether it says so (want) and, when it does, that every
 * row of every shape sees exactly the keys mask_key_range gives the row
 * alone, starting at key 0 when it also says so (from0).  When it says no
 * (want false), differ says whether some row of the shapes sees other keys
 * than that interval (a gap, or an opaque leaf's narrower set). */
static void check_rows_exact(fixture *f, bool want, bool want_from0, bool differ)
{
    fg_eval_env env = {leaf, f};
    bool from0 = !want_from0;
    assert_int_equal(mask_rows_exact(&f->mask, &from0), want);
    assert_int_equal(from0, want && want_from0);
    int rows = 0, gaps = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int i = 0; i < NDIMS; i++)
            f->dimval[i] = shapes[s][i];
        f->qval = shapes[s][4];
        long M = f->dimval[DIM_M], N = f->dimval[DIM_N];
        for (long r = 0; r < M; r++) {
            long lo, hi;
            assert_int_equal(mask_key_range(&f->mask, r, r + 1, N, &env, &lo, &hi), 0);
            bool gap = false;
            for (long c = 0; c < N; c++)
                if (visible(f, r, c) != (c >= lo && c < hi)) {
                    gap = true;
                    if (want)
                        fail_msg("shape %zu row %ld: keys [%ld,%ld), key %ld visible %d", s, r, lo,
                                 hi, c, visible(f, r, c));
                }
            if (want && from0 && lo < hi && lo != 0)
                fail_msg("shape %zu row %ld: keys [%ld,%ld) do not start at 0", s, r, lo, hi);
            gaps += gap;
            rows++;
        }
    }
    assert_true(rows > 100);
    if (!want)
        assert_int_equal(gaps > 0, differ);
}

/* ---- the emitted code, compiled and run ---------------------------- */

static char *print_plain(void *ctx, const fg_expr *e)
{
    fixture *f = ctx;
    return expr_to_string(f->a, &f->plan, e);
}

/* Compile tile_state and key_range as emitted, run them over random tiles,
 * compare with mask_classify and mask_key_range, and with brute force
 * (exactly when exact, else for safety).  Returns false (and the test skips) without a
 * C compiler. */
static bool run_emitted(fixture *f, bool exact)
{
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    const char *tmp = getenv("TMPDIR");
    char dir[200];
    snprintf(dir, sizeof dir, "%s/fg_masks_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fail_msg("mkdtemp %s failed", dir);
    char src[256], exe[256], in[256], outp[256], cmd[1024];
    snprintf(src, sizeof src, "%s/t.c", dir);
    snprintf(exe, sizeof exe, "%s/t", dir);
    snprintf(in, sizeof in, "%s/in.txt", dir);
    snprintf(outp, sizeof outp, "%s/out.txt", dir);
    FILE *fp = fopen(src, "w");
    assert_non_null(fp);
    fprintf(fp, "#include <stdio.h>\nstatic long M, N, P, W, Q;\n");
    fprintf(fp, "static int tile_state(long r0, long r1, long c0, long c1)\n{\n%s}\n",
            mask_emit_tile_state(f->a, &f->mask, print_plain, f));
    fprintf(fp, "static void key_range(long r0, long r1, long *lo, long *hi)\n{\n"
                "    long c_lo, c_hi;\n%s    *lo = c_lo;\n    *hi = c_hi;\n}\n",
            mask_emit_key_range(f->a, &f->mask, print_plain, f));
    fprintf(fp, "int main(void)\n{\n    long r0, r1, c0, c1, lo, hi;\n"
                "    while (scanf(\"%%ld %%ld %%ld %%ld %%ld %%ld %%ld %%ld %%ld\", &M, &N, &P, "
                "&W, &Q, &r0, &r1, &c0, &c1) == 9) {\n"
                "        key_range(r0, r1, &lo, &hi);\n"
                "        printf(\"%%d %%ld %%ld\\n\", tile_state(r0, r1, c0, c1), lo, hi);\n"
                "    }\n    (void)P; (void)W; (void)Q;\n    return 0;\n}\n");
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Werror -o %s %s 2>%s/cc.txt", cc, exe, src, dir);
    if (system(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc);
        bool have_cc = system(cmd) == 0;
        if (have_cc) {
            snprintf(cmd, sizeof cmd, "cat %s/cc.txt %s >&2", dir, src);
            (void)system(cmd);
            fail_msg("the emitted mask code does not compile");
        }
        return false;
    }
    fp = fopen(in, "w");
    assert_non_null(fp);
    long tiles[2000][9];
    int n = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int k = 0; k < 300; k++, n++) {
            long M = shapes[s][0], N = shapes[s][1];
            long r0 = rnd(M), c0 = rnd(N);
            long r1 = r0 + 2 * rnd(8) + 1, c1 = c0 + 2 * rnd(10) + 1;
            if (r1 > M)
                r1 = M;
            for (int i = 0; i < 5; i++)
                tiles[n][i] = shapes[s][i];
            tiles[n][5] = r0;
            tiles[n][6] = r1;
            tiles[n][7] = c0;
            tiles[n][8] = c1;
            for (int i = 0; i < 9; i++)
                fprintf(fp, "%ld ", tiles[n][i]);
            fputc('\n', fp);
        }
    }
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s < %s > %s", exe, in, outp);
    assert_int_equal(system(cmd), 0);
    fp = fopen(outp, "r");
    assert_non_null(fp);
    for (int i = 0; i < n; i++) {
        int st;
        long lo, hi, blo, bhi;
        assert_int_equal(fscanf(fp, "%d %ld %ld", &st, &lo, &hi), 3);
        for (int j = 0; j < NDIMS; j++)
            f->dimval[j] = tiles[i][j];
        f->qval = tiles[i][4];
        long *t = tiles[i];
        fg_tile_state want = brute_state(f, t[5], t[6], t[7], t[8]);
        brute_range(f, t[5], t[6], &blo, &bhi);
        if (exact && (st != (int)want || lo != blo || hi != bhi))
            fail_msg("emitted code, tile %d: state %d keys [%ld,%ld); brute force %d [%ld,%ld)", i,
                     st, lo, hi, want, blo, bhi);
        /* always: the same answers as mask_classify and mask_key_range, and
         * safe against brute force */
        fg_eval_env env = {leaf, f};
        long mlo, mhi;
        mask_key_range(&f->mask, t[5], t[6], f->dimval[DIM_N], &env, &mlo, &mhi);
        if (st != (int)mask_classify(&f->mask, t[5], t[6], t[7], t[8], &env) || lo != mlo ||
            hi != mhi)
            fail_msg("emitted code, tile %d: state %d keys [%ld,%ld); mask_classify %d [%ld,%ld)",
                     i, st, lo, hi, mask_classify(&f->mask, t[5], t[6], t[7], t[8], &env), mlo,
                     mhi);
        assert_true(want == TILE_PARTIAL || st == (int)want || st == TILE_PARTIAL);
        if (blo < bhi)
            assert_true(lo <= blo && hi >= bhi);
    }
    fclose(fp);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)system(cmd);
    return true;
}

/* ---- tests ----------------------------------------------------------- */

static void test_bottom_right_causal_is_one_atom(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_LE, ax(AX_N), pos()), false);
    const fg_mask_node *n = f->mask.root;
    assert_int_equal(n->op, MASK_ATOM);
    assert_int_equal(n->atom.a_row, -1);
    assert_int_equal(n->atom.a_col, 1);
    assert_false(n->atom.strict);
    assert_string_equal(expr_to_string(f->a, &f->plan, n->atom.c), "M - N");
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &n->atom),
                        "-m + n + M - N <= 0");
    assert_int_equal(f->mask.col_extent->kind, E_DIM);
    assert_int_equal(f->mask.col_extent->ref, DIM_N);
    check_against_brute_force(f, true, true);
    check_rows_exact(f, true, true, false);
}

static void test_top_left_causal_matches_brute_force(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_GE, ax(AX_M), ax(AX_N)), false); /* m >= n: n - m <= 0 */
    const fg_mask_node *n = f->mask.root;
    assert_int_equal(n->op, MASK_ATOM);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &n->atom), "-m + n <= 0");
    check_against_brute_force(f, true, true);
}

static void test_greater_than_moves_terms_and_stays_strict(void **state)
{
    fixture *f = *state;
    /* 2 * m + Q > n - 3  <=>  n - 2m - Q - 3 < 0 */
    analyse(f, bin(E_GT, bin(E_ADD, bin(E_MUL, num(2), ax(AX_M)), expr_ref(f->a, E_PARAM, 0, "Q")),
                   bin(E_SUB, ax(AX_N), num(3))),
            false);
    const fg_mask_node *n = f->mask.root;
    assert_int_equal(n->op, MASK_ATOM);
    assert_true(n->atom.strict);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &n->atom),
                        "-2 * m + n - Q - 3 < 0");
    check_against_brute_force(f, true, true);
}

static void test_sliding_window_is_a_conjunction(void **state)
{
    fixture *f = *state;
    /* n <= m + N - M && m + N - M - n < W */
    analyse(f, bin(E_AND, bin(E_LE, ax(AX_N), pos()),
                   bin(E_LT, bin(E_SUB, pos(), ax(AX_N)), dm(DIM_W))),
            false);
    const fg_mask_node *n = f->mask.root;
    assert_int_equal(n->op, MASK_AND);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &n->rhs->atom),
                        "m - n + N - M - W < 0");
    check_against_brute_force(f, true, true);
    check_rows_exact(f, true, false, false);
}

static void test_prefix_lm_is_a_disjunction(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_OR, bin(E_LT, ax(AX_N), dm(DIM_P)), bin(E_LE, ax(AX_N), pos())), false);
    assert_int_equal(f->mask.root->op, MASK_OR);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &f->mask.root->lhs->atom),
                        "n - P < 0");
    check_against_brute_force(f, true, true);
    check_rows_exact(f, true, true, false); /* [0, P) and [0, i + N - M] share key 0 */
}

static void test_prefix_or_window_has_gaps(void **state)
{
    fixture *f = *state;
    /* attention sinks: the first P keys, and a window of W keys ending at
     * the row's own; between them a gap, so no interval per row */
    fg_expr *window = bin(E_AND, bin(E_LE, ax(AX_N), pos()),
                          bin(E_LT, bin(E_SUB, pos(), ax(AX_N)), dm(DIM_W)));
    analyse(f, bin(E_OR, bin(E_LT, ax(AX_N), dm(DIM_P)), window), false);
    check_against_brute_force(f, false, true); /* an OR of two partial atoms may be full */
    check_rows_exact(f, false, false, true);
}

static void test_prefix_lm_within_a_window_conjunction(void **state)
{
    fixture *f = *state;
    fg_expr *prefix = bin(E_OR, bin(E_LT, ax(AX_N), dm(DIM_P)), bin(E_LE, ax(AX_N), pos()));
    fg_expr *window = bin(E_LT, bin(E_SUB, pos(), ax(AX_N)), dm(DIM_W));
    analyse(f, bin(E_AND, prefix, window), false);
    check_against_brute_force(f, true, true);
    check_rows_exact(f, true, false, false);
}

static void test_negation_is_pushed_to_the_atoms(void **state)
{
    fixture *f = *state;
    /* where(!(n > m + N - M), x, -inf) is the causal mask again */
    analyse(f, expr_unary(f->a, E_NOT, bin(E_GT, ax(AX_N), pos())), false);
    assert_int_equal(f->mask.root->op, MASK_ATOM);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &f->mask.root->atom),
                        "-m + n + M - N <= 0");
    check_against_brute_force(f, true, true);
}

static void test_flipped_where_masks_the_condition(void **state)
{
    fixture *f = *state;
    /* where(n > m, -inf, x): visible when n <= m */
    analyse(f, bin(E_GT, ax(AX_N), ax(AX_M)), true);
    assert_int_equal(f->mask.root->op, MASK_ATOM);
    assert_string_equal(mask_atom_to_string(f->a, &f->plan, &f->mask, &f->mask.root->atom),
                        "-m + n <= 0");
    check_against_brute_force(f, true, true);
}

static void test_equality_and_inequality(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_EQ, ax(AX_N), bin(E_ADD, ax(AX_M), num(2))), false);
    assert_int_equal(f->mask.root->op, MASK_AND);
    check_against_brute_force(f, true, true);
    analyse(f, bin(E_NE, ax(AX_N), ax(AX_M)), false);
    assert_int_equal(f->mask.root->op, MASK_OR);
    /* each row sees two runs of keys: the range is their hull */
    check_against_brute_force(f, true, false);
}

static void test_non_linear_condition_is_opaque_and_safe(void **state)
{
    fixture *f = *state;
    /* n * m < 200 is not linear; h is not a tile index */
    analyse(f, bin(E_AND, bin(E_LT, bin(E_MUL, ax(AX_N), ax(AX_M)), num(200)),
                   bin(E_LE, ax(AX_N), pos())),
            false);
    assert_int_equal(f->mask.root->op, MASK_AND);
    assert_int_equal(f->mask.root->lhs->op, MASK_OPAQUE);
    assert_int_equal(f->mask.root->rhs->op, MASK_ATOM);
    check_against_brute_force(f, false, false);
    check_rows_exact(f, false, false, true); /* the interval is causal's, wider than n m < 200 */
    analyse(f, bin(E_LE, ax(AX_N), ax(AX_H)), false);
    assert_int_equal(f->mask.root->op, MASK_OPAQUE);
    fg_eval_env env = {leaf, f};
    f->dimval[DIM_M] = f->dimval[DIM_N] = 16;
    assert_int_equal(mask_classify(&f->mask, 0, 4, 0, 4, &env), TILE_PARTIAL);
    long lo, hi;
    mask_key_range(&f->mask, 0, 4, 16, &env, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 16);
}

/* A constant too large to evaluate (999999999^3 overflows a long, and N^17
 * does at these extents) makes the atom "maybe" everywhere: the tile is
 * partial and every key may be seen, with no overflow on the way. */
static void test_constants_too_large_to_evaluate_are_safe(void **state)
{
    fixture *f = *state;
    fg_expr *big = bin(E_MUL, bin(E_MUL, num(999999999), num(999999999)), num(999999999));
    analyse(f, bin(E_LE, ax(AX_N), bin(E_ADD, ax(AX_M), big)), false);
    assert_int_equal(f->mask.root->op, MASK_ATOM);
    fg_eval_env env = {leaf, f};
    f->dimval[DIM_M] = f->dimval[DIM_N] = 144;
    assert_int_equal(mask_classify(&f->mask, 0, 16, 0, 64, &env), TILE_PARTIAL);
    long lo, hi;
    assert_int_equal(mask_key_range(&f->mask, 0, 16, 144, &env, &lo, &hi), 0);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 144);
    fg_expr *power = dm(DIM_N);
    for (int i = 1; i < 17; i++)
        power = bin(E_MUL, power, dm(DIM_N));
    analyse(f, bin(E_LE, ax(AX_N), bin(E_ADD, ax(AX_M), power)), false);
    assert_int_equal(mask_classify(&f->mask, 0, 16, 0, 64, &env), TILE_PARTIAL);
    assert_int_equal(mask_key_range(&f->mask, 0, 16, 144, &env, &lo, &hi), 0);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 144);
}

static void test_rows_that_see_nothing_get_an_empty_range(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_LE, ax(AX_N), pos()), false);
    fg_eval_env env = {leaf, f};
    f->dimval[DIM_M] = 100;
    f->dimval[DIM_N] = 10; /* rows m < 90 see no key */
    long lo, hi;
    mask_key_range(&f->mask, 0, 90, 10, &env, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 0);
    mask_key_range(&f->mask, 80, 92, 10, &env, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 2);
    assert_int_equal(mask_classify(&f->mask, 0, 90, 0, 10, &env), TILE_SKIP);
    assert_int_equal(mask_classify(&f->mask, 95, 100, 0, 5, &env), TILE_FULL);
    assert_int_equal(mask_classify(&f->mask, 89, 91, 0, 5, &env), TILE_PARTIAL);
}

static void test_emitted_code_agrees_with_brute_force(void **state)
{
    fixture *f = *state;
    fg_expr *prefix = bin(E_OR, bin(E_LT, ax(AX_N), dm(DIM_P)), bin(E_LE, ax(AX_N), pos()));
    fg_expr *window = bin(E_LT, bin(E_SUB, pos(), ax(AX_N)), bin(E_MUL, num(2), dm(DIM_W)));
    fg_expr *strided = bin(E_LE, bin(E_MUL, num(3), ax(AX_N)),
                           bin(E_ADD, bin(E_MUL, num(2), ax(AX_M)), dm(DIM_N)));
    fg_expr *lower = bin(E_GE, bin(E_MUL, num(2), ax(AX_N)), bin(E_SUB, ax(AX_M), dm(DIM_P)));
    analyse(f, bin(E_AND, bin(E_AND, prefix, window), bin(E_AND, strided, lower)), false);
    if (!run_emitted(f, false))
        skip();
    analyse(f, bin(E_AND, prefix, window), false);
    assert_true(run_emitted(f, true));
    analyse(f, bin(E_LE, ax(AX_N), pos()), false);
    assert_true(run_emitted(f, true));
}

static fg_expr *ity(fg_expr *e) /* int, every node, as check.c types it */
{
    e->type = T_INT;
    for (int i = 0; i < e->nargs; i++)
        ity(e->args[i]);
    return e;
}

/* D[x]: the i32 input read at an int expression, typed as check.c does */
static fg_expr *rd(fg_expr *x)
{
    fg_expr *e = expr_new(F->a, E_TENSOR, (fg_loc){0, 0}, 1);
    e->ref = 1;
    e->name = "D";
    e->args[0] = ity(x);
    e->type = T_INT;
    return e;
}

/* A comparison of values read at the row with values read at the key (an
 * input's ids) is a span atom, oriented row side OP key side; sides that
 * read both, or a non-int side, stay opaque. */
static void test_reads_of_an_input_compared_are_span_atoms(void **state)
{
    fixture *f = *state;
    analyse(f, bin(E_AND, bin(E_EQ, rd(ax(AX_N)), rd(ity(pos()))), bin(E_LE, ax(AX_N), pos())),
            false);
    assert_int_equal(f->mask.root->op, MASK_AND);
    assert_int_equal(f->mask.root->lhs->op, MASK_SPAN);
    assert_int_equal(f->mask.root->rhs->op, MASK_ATOM);
    assert_int_equal(f->mask.nspans, 1);
    const fg_mask_span *sp = f->mask.spans[0];
    assert_int_equal(sp->cmp, E_EQ);
    assert_int_equal(sp->id, 0);
    assert_int_equal(sp->row->kind, E_TENSOR); /* D[m + N - M]: swapped to the row side */
    assert_int_equal(sp->row->args[0]->kind, E_SUB);
    assert_int_equal(sp->col->args[0]->kind, E_AXIS);
    /* without the ranges a span is "maybe": the C backend's tiles mask it */
    check_against_brute_force(f, false, false);

    /* D[n] > D[m] is D[m] < D[n]; its negation D[m] >= D[n] */
    analyse(f, bin(E_GT, rd(ax(AX_N)), rd(ax(AX_M))), false);
    assert_int_equal(f->mask.root->op, MASK_SPAN);
    assert_int_equal(f->mask.root->span.cmp, E_LT);
    assert_int_equal(f->mask.root->span.row->args[0]->ref, AX_M);
    analyse(f, bin(E_GT, rd(ax(AX_N)), rd(ax(AX_M))), true);
    assert_int_equal(f->mask.root->op, MASK_SPAN);
    assert_int_equal(f->mask.root->span.cmp, E_GE);
    /* a constant side: D[n] != 3 keeps the constant as the row side */
    analyse(f, bin(E_NE, rd(ax(AX_N)), ity(num(3))), false);
    assert_int_equal(f->mask.root->op, MASK_SPAN);
    assert_int_equal(f->mask.root->span.cmp, E_NE);
    assert_int_equal(f->mask.root->span.row->kind, E_NUM);

    /* D[n] == n reads the key on both sides; D[m + n] reads both axes */
    analyse(f, bin(E_EQ, rd(ax(AX_N)), ity(ax(AX_N))), false);
    assert_int_equal(f->mask.root->op, MASK_OPAQUE);
    analyse(f, bin(E_EQ, rd(ity(bin(E_ADD, ax(AX_M), ax(AX_N)))), num(1)), false);
    assert_int_equal(f->mask.root->op, MASK_OPAQUE);
    assert_int_equal(f->mask.nspans, 0);

    /* the emitted classification reads the ranges and names the sides */
    analyse(f, bin(E_EQ, rd(ax(AX_N)), rd(ax(AX_M))), false);
    char *code = mask_emit_tile_state_spans(f->a, &f->mask, print_plain, f);
    assert_non_null(strstr(code, "rhi[0] < clo[0] || chi[0] < rlo[0] ? 0"));
    assert_non_null(strstr(code, "rlo[0] == clo[0] ? 2 : 1"));
    assert_null(strstr(mask_emit_tile_state(f->a, &f->mask, print_plain, f), "rlo[0]"));
}

static void test_no_where_means_no_mask(void **state)
{
    fixture *f = *state;
    f->tensors[0].rhs = ax(AX_N);
    fg_diag d;
    diag_init(&d, NULL, stderr);
    assert_int_equal(mask_analyse(f->a, &f->plan, AX_M, AX_N, &f->mask, &d), 0);
    assert_false(f->mask.present);
    fg_eval_env env = {leaf, f};
    assert_int_equal(mask_classify(&f->mask, 0, 8, 0, 8, &env), TILE_FULL);
    long lo, hi;
    mask_key_range(&f->mask, 0, 8, 33, &env, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 33);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_bottom_right_causal_is_one_atom),
        T(test_top_left_causal_matches_brute_force),
        T(test_greater_than_moves_terms_and_stays_strict),
        T(test_sliding_window_is_a_conjunction),
        T(test_prefix_lm_is_a_disjunction),
        T(test_prefix_lm_within_a_window_conjunction),
        T(test_negation_is_pushed_to_the_atoms),
        T(test_flipped_where_masks_the_condition),
        T(test_equality_and_inequality),
        T(test_non_linear_condition_is_opaque_and_safe),
        T(test_constants_too_large_to_evaluate_are_safe),
        T(test_rows_that_see_nothing_get_an_empty_range),
        T(test_emitted_code_agrees_with_brute_force),
        T(test_reads_of_an_input_compared_are_span_atoms),
        T(test_no_where_means_no_mask),
        T(test_prefix_or_window_has_gaps), /* last: the others' random tiles as before */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
