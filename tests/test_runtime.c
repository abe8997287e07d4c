/* test_runtime.c - the runtime support library: status messages, dtype
 * tables, bf16/fp16 conversions, fg_check_tensor, fg_check_row_output. */
#define _POSIX_C_SOURCE 200809L /* pthreads */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fusegen_internal.h"

static float f_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_from_f(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ---- status messages and dtypes ---------------------------------- */

static void test_every_status_has_a_distinct_message(void **state)
{
    (void)state;
    for (int s = 0; s < FG_STATUS_COUNT; s++) {
        const char *m = fg_strerror((fg_status)s);
        assert_non_null(m);
        assert_true(strlen(m) > 0);
        assert_string_not_equal(m, "unknown status");
        for (int t = 0; t < s; t++)
            assert_string_not_equal(m, fg_strerror((fg_status)t));
    }
    assert_string_equal(fg_strerror((fg_status)FG_STATUS_COUNT), "unknown status");
    assert_string_equal(fg_strerror((fg_status)-1), "unknown status");
    assert_string_equal(fg_strerror(FG_OK), "success");
}

static void test_dtype_sizes_and_names(void **state)
{
    (void)state;
    assert_int_equal(fg_dtype_size(FG_BF16), 2);
    assert_int_equal(fg_dtype_size(FG_FP16), 2);
    assert_int_equal(fg_dtype_size(FG_F32), 4);
    assert_int_equal(fg_dtype_size(FG_I32), 4);
    assert_int_equal(fg_dtype_size((fg_dtype)17), 0);
    assert_string_equal(fg_dtype_name(FG_BF16), "bf16");
    assert_string_equal(fg_dtype_name(FG_FP16), "fp16");
    assert_string_equal(fg_dtype_name(FG_F32), "f32");
    assert_string_equal(fg_dtype_name(FG_I32), "i32");
    assert_string_equal(fg_dtype_name((fg_dtype)17), "unknown");
}

static void test_tensor_dense_strides_are_row_major(void **state)
{
    (void)state;
    int64_t shape[4] = {2, 3, 5, 7};
    float buf[1];
    fg_tensor t = fg_tensor_dense(buf, FG_F32, 4, shape);
    assert_ptr_equal(t.data, buf);
    assert_int_equal(t.dtype, FG_F32);
    assert_int_equal(t.rank, 4);
    int64_t want[4] = {105, 35, 7, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(t.shape[i], shape[i]);
        assert_int_equal(t.stride[i], want[i]);
    }
    /* A rank beyond FG_MAX_RANK leaves shape and strides zero. */
    fg_tensor bad = fg_tensor_dense(buf, FG_F32, FG_MAX_RANK + 1, shape);
    assert_int_equal(bad.rank, FG_MAX_RANK + 1);
    assert_int_equal(bad.shape[0], 0);
}

static void *set_error_in_thread(void *arg)
{
    (void)arg;
    static char seen[64];
    /* a new thread starts with no message */
    snprintf(seen, sizeof seen, "%s", fg_last_error());
    fg_set_error(FG_ERR_DEVICE, "from the other thread");
    return seen;
}

static void test_last_error_is_per_thread(void **state)
{
    (void)state;
    fg_set_error(FG_ERR_SHAPE, "from the main thread");
    pthread_t th;
    void *seen = NULL;
    assert_int_equal(pthread_create(&th, NULL, set_error_in_thread, NULL), 0);
    assert_int_equal(pthread_join(th, &seen), 0);
    assert_string_equal((const char *)seen, "");
    assert_string_equal(fg_last_error(), "from the main thread");
}

static void test_last_error_is_formatted_and_truncated(void **state)
{
    (void)state;
    fg_status s = fg_set_error(FG_ERR_PARAM, "window %d out of range", -3);
    assert_int_equal(s, FG_ERR_PARAM);
    assert_string_equal(fg_last_error(), "window -3 out of range");
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    fg_set_error(FG_ERR_SHAPE, "%s", big);
    assert_int_equal(strlen(fg_last_error()), 511);
}

/* ---- conversions -------------------------------------------------- */

struct conv_case {
    uint32_t f;   /* float bits */
    uint16_t out; /* expected bits */
};

static void test_float_to_bf16_table_with_ties(void **state)
{
    (void)state;
    static const struct conv_case cases[] = {
        {0x3f800000u, 0x3f80}, /* 1 */
        {0xbf800000u, 0xbf80}, /* -1 */
        {0x00000000u, 0x0000}, /* +0 */
        {0x80000000u, 0x8000}, /* -0 */
        {0x3f808000u, 0x3f80}, /* tie, even below: down */
        {0x3f818000u, 0x3f82}, /* tie, odd below: up */
        {0x3f808001u, 0x3f81}, /* above the tie: up */
        {0x3f807fffu, 0x3f80}, /* below the tie: down */
        {0x7f7fffffu, 0x7f80}, /* largest float rounds to inf */
        {0x7f7f7fffu, 0x7f7f}, /* largest bf16 stays */
        {0x7f800000u, 0x7f80}, /* +inf */
        {0xff800000u, 0xff80}, /* -inf */
        {0x00008000u, 0x0000}, /* subnormal tie to even 0 */
        {0x00018000u, 0x0002}, /* subnormal tie to even 2 */
        {0x00010001u, 0x0001}, /* subnormal, down */
        {0x007fffffu, 0x0080}, /* largest subnormal rounds to smallest normal */
        {0x40490fdbu, 0x4049}, /* pi */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = fg_float_to_bf16(f_from_bits(cases[i].f));
        if (got != cases[i].out)
            fail_msg("bf16(0x%08x) = 0x%04x, expected 0x%04x", cases[i].f, got, cases[i].out);
    }
    /* NaN stays NaN, quiet, sign kept. */
    uint16_t qn = fg_float_to_bf16(f_from_bits(0x7fc00000u));
    assert_int_equal(qn, 0x7fc0);
    uint16_t sn = fg_float_to_bf16(f_from_bits(0xff800001u)); /* signalling, tiny payload */
    assert_int_equal(sn & 0xff80, 0xff80);
    assert_true((sn & 0x007f) != 0);
    assert_true(isnan(fg_bf16_to_float(sn)));
}

static void test_every_bf16_round_trips_through_float(void **state)
{
    (void)state;
    for (uint32_t x = 0; x <= 0xffffu; x++) {
        float f = fg_bf16_to_float((uint16_t)x);
        assert_int_equal(bits_from_f(f), x << 16); /* exact widening */
        uint16_t back = fg_float_to_bf16(f);
        int is_nan = (x & 0x7f80u) == 0x7f80u && (x & 0x7fu);
        if (is_nan) {
            /* quieted: the quiet bit is set, everything else kept */
            if (back != (uint16_t)(x | 0x40u))
                fail_msg("bf16 NaN 0x%04x came back as 0x%04x", x, back);
        } else if (back != x) {
            fail_msg("bf16 0x%04x came back as 0x%04x", x, back);
        }
    }
}

static void test_float_to_half_table_with_ties_and_subnormals(void **state)
{
    (void)state;
    static const struct conv_case cases[] = {
        {0x3f800000u, 0x3c00}, /* 1 */
        {0xc0000000u, 0xc000}, /* -2 */
        {0x00000000u, 0x0000}, /* +0 */
        {0x80000000u, 0x8000}, /* -0 */
        {0x477fe000u, 0x7bff}, /* 65504, the largest half */
        {0x477fefffu, 0x7bff}, /* just below 65520: down */
        {0x477ff000u, 0x7c00}, /* 65520: tie, rounds to even = inf */
        {0x47800000u, 0x7c00}, /* 65536 */
        {0x7f7fffffu, 0x7c00}, /* largest float */
        {0x7f800000u, 0x7c00}, /* +inf */
        {0xff800000u, 0xfc00}, /* -inf */
        {0x3f801000u, 0x3c00}, /* 1 + 2^-11: tie, even: down */
        {0x3f803000u, 0x3c02}, /* 1 + 3*2^-11: tie, odd: up */
        {0x3f801001u, 0x3c01}, /* above the tie */
        {0x38800000u, 0x0400}, /* 2^-14, smallest normal half */
        {0x387fc000u, 0x03ff}, /* largest subnormal half */
        {0x387fe000u, 0x0400}, /* tie between the largest subnormal and 2^-14 */
        {0x33800000u, 0x0001}, /* 2^-24, smallest subnormal half */
        {0x33000000u, 0x0000}, /* 2^-25: tie, even = 0 */
        {0x33000001u, 0x0001}, /* just above 2^-25 */
        {0x33c00000u, 0x0002}, /* 1.5 * 2^-24: tie, odd: up to 2 */
        {0x34200000u, 0x0002}, /* 2.5 * 2^-24: tie, even: down to 2 */
        {0xb3c00000u, 0x8002}, /* negative subnormal */
        {0x32ffffffu, 0x0000}, /* below 2^-25 */
        {0x00000001u, 0x0000}, /* float subnormal */
        {0x40490fdbu, 0x4248}, /* pi */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = fg_float_to_half(f_from_bits(cases[i].f));
        if (got != cases[i].out)
            fail_msg("half(0x%08x) = 0x%04x, expected 0x%04x", cases[i].f, got, cases[i].out);
    }
    uint16_t n = fg_float_to_half(f_from_bits(0xffc00000u));
    assert_int_equal(n & 0xfc00, 0xfc00);
    assert_true((n & 0x3ff) != 0);
}

static void test_half_to_float_table(void **state)
{
    (void)state;
    assert_true(fg_half_to_float(0x3c00) == 1.0f);
    assert_true(fg_half_to_float(0x7bff) == 65504.0f);
    assert_true(fg_half_to_float(0x0001) == ldexpf(1.0f, -24));
    assert_true(fg_half_to_float(0x03ff) == ldexpf(1023.0f, -24));
    assert_true(fg_half_to_float(0x0400) == ldexpf(1.0f, -14));
    assert_true(fg_half_to_float(0x8001) == -ldexpf(1.0f, -24));
    assert_int_equal(bits_from_f(fg_half_to_float(0x8000)), 0x80000000u);
    assert_true(isinf(fg_half_to_float(0x7c00)) && fg_half_to_float(0x7c00) > 0);
    assert_true(isinf(fg_half_to_float(0xfc00)) && fg_half_to_float(0xfc00) < 0);
    assert_true(isnan(fg_half_to_float(0x7e00)));
    assert_true(isnan(fg_half_to_float(0x7c01)));
}

/* Every half value is exactly a float; the value of the bits computed
 * independently: (-1)^s * 2^(e-15) * (1 + m/1024), or 2^-24 * m. */
static void test_every_half_round_trips_and_matches_its_value(void **state)
{
    (void)state;
    for (uint32_t x = 0; x <= 0xffffu; x++) {
        uint32_t e = (x >> 10) & 0x1f, m = x & 0x3ff;
        float f = fg_half_to_float((uint16_t)x);
        if (e == 0x1f) {
            assert_true(m ? isnan(f) : isinf(f));
        } else {
            double v = e ? ldexp(1.0 + m / 1024.0, (int)e - 15) : ldexp((double)m, -24);
            if (x & 0x8000)
                v = -v;
            if ((double)f != v)
                fail_msg("half 0x%04x = %a, expected %a", x, (double)f, v);
        }
        uint16_t back = fg_float_to_half(f);
        uint16_t want = (e == 0x1f && m) ? (uint16_t)(x | 0x200u) : (uint16_t)x;
        if (back != want)
            fail_msg("half 0x%04x came back as 0x%04x", x, back);
    }
}

/* Between two neighbouring halves, the midpoint decides: below rounds to
 * the lower, above to the upper, the midpoint itself to the even one. */
static void test_half_rounding_at_every_midpoint(void **state)
{
    (void)state;
    for (uint32_t x = 0; x < 0x7bffu; x++) {
        double lo = fg_half_to_float((uint16_t)x);
        double hi = fg_half_to_float((uint16_t)(x + 1));
        float mid = (float)((lo + hi) / 2); /* exact: 12 significant bits */
        assert_true((double)mid == (lo + hi) / 2);
        uint16_t even = (x & 1u) ? (uint16_t)(x + 1) : (uint16_t)x;
        assert_int_equal(fg_float_to_half(mid), even);
        assert_int_equal(fg_float_to_half(nextafterf(mid, 0.0f)), x);
        assert_int_equal(fg_float_to_half(nextafterf(mid, INFINITY)), x + 1);
        assert_int_equal(fg_float_to_half(-mid), 0x8000u | even);
    }
}

/* An independent reference: round to `bits` significant bits with rint()
 * (round to nearest even in the default mode), in double. */
static double round_significand(double v, int bits)
{
    int e;
    double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= |m| < 1 */
    return ldexp(rint(ldexp(m, bits)), e - bits);
}

static uint32_t lcg_state = 12345u;
static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state;
}

static void test_random_floats_round_like_rint_reference(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        uint32_t u = lcg_next();
        float f = f_from_bits(u);
        if (!isfinite(f))
            continue;
        /* bf16: 8 significant bits, same exponent range as float (normal) */
        if (fabsf(f) >= 0x1p-126f && fabsf(f) < 0x1.fep127f) {
            double want = round_significand(f, 8);
            double got = fg_bf16_to_float(fg_float_to_bf16(f));
            if (got != want)
                fail_msg("bf16 of %a: got %a, expected %a", (double)f, got, want);
        }
        /* fp16 over its normal range: 11 significant bits */
        float g = ldexpf(f_from_bits(0x3f800000u | (u & 0x7fffffu)), (int)(u >> 27) - 14);
        if (u & 0x40000000u)
            g = -g;
        double want = round_significand(g, 11);
        if (fabs(want) < 65520.0) {
            double got = fg_half_to_float(fg_float_to_half(g));
            if (got != want)
                fail_msg("half of %a: got %a, expected %a", (double)g, got, want);
        }
    }
}

/* ---- fg_check_tensor ---------------------------------------------- */

typedef struct check_fixture {
    _Alignas(64) uint16_t buf[4096];
    fg_tensor t; /* a valid [2, 3, 4, 16] bf16 tensor */
} check_fixture;

static int setup_tensor(void **state)
{
    static check_fixture fx;
    int64_t shape[4] = {2, 3, 4, 16};
    fx.t = fg_tensor_dense(fx.buf, FG_BF16, 4, shape);
    fg_set_error(FG_OK, "%s", "");
    *state = &fx;
    return 0;
}

static int teardown_tensor(void **state)
{
    (void)state;
    return 0;
}

#define BF16_ONLY FG_DTYPE_BIT(FG_BF16)

static void test_check_tensor_accepts_a_valid_tensor(void **state)
{
    check_fixture *fx = *state;
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY | FG_CHECK_UNIT_INNER, 16), FG_OK);
    assert_string_equal(fg_last_error(), "");
    /* a NULL pointer is fine for an empty tensor */
    fx->t.data = NULL;
    fx->t.shape[2] = 0;
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY, 0), FG_OK);
    /* and so are any pointer and strides: an empty tensor reads nothing
     * (the entries refuse the empty extent as a shape, naming the dim) */
    fx->t.data = fx->buf + 1; /* 2 bytes off */
    fx->t.stride[1] = 3;
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY | FG_CHECK_UNIT_INNER, 16), FG_OK);
    fx->t.shape[2] = 1; /* not empty: the same pointer is refused */
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY | FG_CHECK_UNIT_INNER, 16),
                     FG_ERR_ALIGN);
}

static void test_check_tensor_rejects_null_descriptor(void **state)
{
    (void)state;
    assert_int_equal(fg_check_tensor(NULL, "K", 4, BF16_ONLY, 0), FG_ERR_NULL);
    assert_string_equal(fg_last_error(), "K: the tensor descriptor is NULL");
}

static void test_check_tensor_rejects_null_data(void **state)
{
    check_fixture *fx = *state;
    fx->t.data = NULL;
    assert_int_equal(fg_check_tensor(&fx->t, "V", 4, BF16_ONLY, 0), FG_ERR_NULL);
    assert_string_equal(fg_last_error(), "V: data pointer is NULL");
}

static void test_check_tensor_rejects_wrong_rank(void **state)
{
    check_fixture *fx = *state;
    assert_int_equal(fg_check_tensor(&fx->t, "O", 3, BF16_ONLY, 0), FG_ERR_SHAPE);
    assert_string_equal(fg_last_error(), "O: rank 4, expected 3");
    fx->t.rank = 9;
    assert_int_equal(fg_check_tensor(&fx->t, "O", 9, BF16_ONLY, 0), FG_ERR_SHAPE);
    assert_string_equal(fg_last_error(), "O: rank 9, expected 9");
}

static void test_check_tensor_rejects_negative_extent(void **state)
{
    check_fixture *fx = *state;
    fx->t.shape[1] = -2;
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY, 0), FG_ERR_SHAPE);
    assert_string_equal(fg_last_error(), "Q: extent 1 is negative (-2)");
}

static void test_check_tensor_rejects_wrong_dtype(void **state)
{
    check_fixture *fx = *state;
    fx->t.dtype = FG_F32;
    unsigned mask = FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16);
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, mask, 0), FG_ERR_DTYPE);
    assert_string_equal(fg_last_error(),
                        "Q: element type f32 not supported (accepted: bf16, fp16)");
    fx->t.dtype = (fg_dtype)7;
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, FG_DTYPES_ALL, 0), FG_ERR_DTYPE);
    assert_string_equal(fg_last_error(),
                        "Q: element type unknown not supported (accepted: bf16, fp16, f32, i32)");
}

static void test_check_tensor_rejects_negative_stride(void **state)
{
    check_fixture *fx = *state;
    fx->t.stride[0] = -192;
    assert_int_equal(fg_check_tensor(&fx->t, "K", 4, BF16_ONLY, 0), FG_ERR_STRIDE);
    assert_string_equal(fg_last_error(), "K: stride 0 is negative (-192)");
}

static void test_check_tensor_rejects_non_unit_inner_stride_when_required(void **state)
{
    check_fixture *fx = *state;
    fx->t.stride[3] = 2;
    assert_int_equal(fg_check_tensor(&fx->t, "K", 4, BF16_ONLY, 0), FG_OK);
    assert_int_equal(fg_check_tensor(&fx->t, "K", 4, BF16_ONLY | FG_CHECK_UNIT_INNER, 0),
                     FG_ERR_STRIDE);
    assert_string_equal(fg_last_error(), "K: innermost stride is 2, must be 1");
}

static void test_check_tensor_rejects_misaligned_pointer(void **state)
{
    check_fixture *fx = *state;
    fx->t.data = fx->buf + 1; /* 2 bytes past a 64-byte boundary */
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY, 2), FG_OK);
    assert_int_equal(fg_check_tensor(&fx->t, "Q", 4, BF16_ONLY, 16), FG_ERR_ALIGN);
    assert_non_null(strstr(fg_last_error(), "Q: data pointer "));
    assert_non_null(strstr(fg_last_error(), " is not 16-byte aligned"));
}

static void test_check_tensor_rejects_misaligned_stride(void **state)
{
    check_fixture *fx = *state;
    fx->t.stride[2] = 20; /* 40 bytes: not a multiple of 16 */
    assert_int_equal(fg_check_tensor(&fx->t, "V", 4, BF16_ONLY, 8), FG_OK);
    assert_int_equal(fg_check_tensor(&fx->t, "V", 4, BF16_ONLY, 16), FG_ERR_ALIGN);
    assert_string_equal(fg_last_error(), "V: stride 2 is 40 bytes, not a multiple of 16");
    /* the stride of an extent-1 dimension never matters */
    fx->t.shape[2] = 1;
    assert_int_equal(fg_check_tensor(&fx->t, "V", 4, BF16_ONLY, 16), FG_OK);
}

static void test_check_tensor_rejects_alignment_not_power_of_two(void **state)
{
    check_fixture *fx = *state;
    assert_int_equal(fg_check_tensor(&fx->t, "V", 4, BF16_ONLY, 12), FG_ERR_PARAM);
    assert_string_equal(fg_last_error(), "V: alignment 12 is not a power of two");
}

/* A value per row of a GPU attention entry: NULL data is "not computed",
 * else f32, rank 3, dense [B, Hq, M]; messages name the entry and the
 * tensor. */
static void test_check_row_output(void **state)
{
    check_fixture *fx = *state;
    float *out = (float *)fx->buf;
    const int64_t shape[3] = {2, 3, 5};
    fg_tensor t = fg_tensor_dense(fx->buf, FG_F32, 3, shape);
    assert_int_equal(fg_check_row_output(&t, "fg_p", "LSE", 2, 3, 5, &out), FG_OK);
    assert_ptr_equal(out, fx->buf);
    t.data = NULL; /* not asked for */
    assert_int_equal(fg_check_row_output(&t, "fg_p", "LSE", 2, 3, 5, &out), FG_OK);
    assert_null(out);
    t.data = fx->buf;
    t.stride[1] = 6; /* rows padded: the kernels write densely */
    t.stride[0] = 18;
    assert_int_equal(fg_check_row_output(&t, "fg_p", "Mx", 2, 3, 5, &out), FG_ERR_STRIDE);
    assert_string_equal(fg_last_error(),
                        "fg_p: the kernel writes Mx densely: strides must be [15, 5, 1]");
    assert_null(out);
    t = fg_tensor_dense(fx->buf, FG_BF16, 3, shape);
    assert_int_equal(fg_check_row_output(&t, "fg_p", "Mx", 2, 3, 5, &out), FG_ERR_DTYPE);
    assert_non_null(strstr(fg_last_error(), "fg_p: Mx: element type bf16 not supported"));
    assert_int_equal(fg_check_row_output(NULL, "fg_p", "Mx", 2, 3, 5, &out), FG_ERR_NULL);
}

#define TENSOR_TEST(f) cmocka_unit_test_setup_teardown(f, setup_tensor, teardown_tensor)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_status_has_a_distinct_message),
        cmocka_unit_test(test_dtype_sizes_and_names),
        cmocka_unit_test(test_tensor_dense_strides_are_row_major),
        cmocka_unit_test(test_last_error_is_formatted_and_truncated),
        cmocka_unit_test(test_last_error_is_per_thread),
        cmocka_unit_test(test_float_to_bf16_table_with_ties),
        cmocka_unit_test(test_every_bf16_round_trips_through_float),
        cmocka_unit_test(test_float_to_half_table_with_ties_and_subnormals),
        cmocka_unit_test(test_half_to_float_table),
        cmocka_unit_test(test_every_half_round_trips_and_matches_its_value),
        cmocka_unit_test(test_half_rounding_at_every_midpoint),
        cmocka_unit_test(test_random_floats_round_like_rint_reference),
        TENSOR_TEST(test_check_tensor_accepts_a_valid_tensor),
        TENSOR_TEST(test_check_tensor_rejects_null_descriptor),
        TENSOR_TEST(test_check_tensor_rejects_null_data),
        TENSOR_TEST(test_check_tensor_rejects_wrong_rank),
        TENSOR_TEST(test_check_tensor_rejects_negative_extent),
        TENSOR_TEST(test_check_tensor_rejects_wrong_dtype),
        TENSOR_TEST(test_check_tensor_rejects_negative_stride),
        TENSOR_TEST(test_check_tensor_rejects_non_unit_inner_stride_when_required),
        TENSOR_TEST(test_check_tensor_rejects_misaligned_pointer),
        TENSOR_TEST(test_check_tensor_rejects_misaligned_stride),
        TENSOR_TEST(test_check_tensor_rejects_alignment_not_power_of_two),
        TENSOR_TEST(test_check_row_output),
    };
    return cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
}
