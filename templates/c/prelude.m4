m4_dnl c/prelude.m4 - what the C backend adds to every kernel source: loads
m4_dnl and stores that convert, and the masked-row rules as helpers.
m4_include([[[c/helpers.m4]]])m4_dnl

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

