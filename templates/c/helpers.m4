m4_dnl c/helpers.m4 - the scalar helpers of the plan's expressions as the C
m4_dnl backend prints them (print.c, dialect c): in every CPU kernel source
m4_dnl (c/prelude.m4), and on the host side of every GPU one (cuda/prelude.m4),
m4_dnl whose entry points run the same argument checks (validate_c.c).
/* Every plan gets every helper, and a plan uses only some of them: clang
 * warns about an unused static inline function of the main file
 * (-Wunused-function), which fails a vendored build under -Werror. */
#if defined(__GNUC__) || defined(__clang__)
#define maybe_unused_ __attribute__((unused))
#else
#define maybe_unused_
#endif

/* A max or min that has seen no finite value reads as 0 (masked rows). */
static inline maybe_unused_ float safe_(float x) { return isinf(x) ? 0.0f : x; }
/* A division by a reduction that is exactly 0 gives 0 (masked rows). */
static inline maybe_unused_ float div0_(float x, float y) { return y == 0.0f ? 0.0f : x / y; }
static inline maybe_unused_ float sigmoid_(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline maybe_unused_ float rsqrt_(float x) { return 1.0f / sqrtf(x); }
static inline maybe_unused_ long min_l_(long x, long y) { return x < y ? x : y; }
static inline maybe_unused_ long max_l_(long x, long y) { return x > y ? x : y; }
