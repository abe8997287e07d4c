m4_dnl c/prelude.m4 - what the C backend adds to every kernel source: loads
m4_dnl and stores that convert, and the masked-row rules as helpers.
/* Every plan gets every helper, and a plan uses only some of them: clang
 * warns about an unused static inline function of the main file
 * (-Wunused-function), which fails a vendored build under -Werror. */
#if defined(__GNUC__) || defined(__clang__)
#define maybe_unused_ __attribute__((unused))
#else
#define maybe_unused_
#endif

/* Element i of a tensor as float (bf16 and fp16 converted on load). */
static inline maybe_unused_ float ld_(const fg_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case FG_BF16: return fg_bf16_to_float(((const uint16_t *)t->data)[i]);
    case FG_FP16: return fg_half_to_float(((const uint16_t *)t->data)[i]);
    default: return ((const float *)t->data)[i];
    }
}

/* Store v as element i, rounding to nearest even for bf16 and fp16. */
static inline maybe_unused_ void st_(const fg_tensor *t, int64_t i, float v)
{
    switch (t->dtype) {
    case FG_BF16: ((uint16_t *)t->data)[i] = fg_float_to_bf16(v); break;
    case FG_FP16: ((uint16_t *)t->data)[i] = fg_float_to_half(v); break;
    default: ((float *)t->data)[i] = v; break;
    }
}

/* A max or min that has seen no finite value reads as 0 (masked rows). */
static inline maybe_unused_ float safe_(float x) { return isinf(x) ? 0.0f : x; }
/* A division by a reduction that is exactly 0 gives 0 (masked rows). */
static inline maybe_unused_ float div0_(float x, float y) { return y == 0.0f ? 0.0f : x / y; }
static inline maybe_unused_ float sigmoid_(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline maybe_unused_ float rsqrt_(float x) { return 1.0f / sqrtf(x); }
static inline maybe_unused_ long min_l_(long x, long y) { return x < y ? x : y; }
static inline maybe_unused_ long max_l_(long x, long y) { return x > y ? x : y; }
