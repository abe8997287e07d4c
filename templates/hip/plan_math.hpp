// hip/plan_math.hpp - the plan's math functions in HIP device code, for the
// names the HIP dialect prints (generator/back/print.c): compiler builtins
// and v_exp_f32 only, no device-library call (gfx942 is built with
// -nogpulib where the toolchain has no device library for it).  Included by
// hip/attention.m4 and hip/rowreduce/math.hpp; compiled on the host too by
// tests/rows_hooks_sim.cc (then without the AMDGPU instructions).  Same
// conventions as the skeletons (templates/README.md).

// 2^x through the hardware instruction (v_exp_f32: about 1 ulp, 2^-inf = +0,
// results below 2^-126 flush to 0).
__device__ __forceinline__ float plan_ex2(float x) {
#if defined(__HIP_DEVICE_COMPILE__) && __has_builtin(__builtin_amdgcn_exp2f)
  return __builtin_amdgcn_exp2f(x);
#elif defined(__HIP_DEVICE_COMPILE__)
  float y;
  asm volatile("v_exp_f32 %0, %1" : "=v"(y) : "v"(x));
  return y;
#else
  return __builtin_exp2f(x);  // on the host (tests/rows_hooks_sim.cc)
#endif
}
__device__ __forceinline__ float plan_sigmoid(float x) { return 1.0f / (1.0f + plan_ex2(-x * 1.4426950408889634f)); }
// F sigmoid(x) from finv = 1 / F (gpu/hooks.m4's plan_weight_kv_recip, which
// the CDNA kernels do not call).
__device__ __forceinline__ float plan_sigmoid_recip(float x, float finv) {
  return 1.0f / __builtin_fmaf(plan_ex2(-x * 1.4426950408889634f), finv, finv);
}
// tanh(x) = 1 - 2 / (2^(2 x log2 e) + 1): +-1 at the ends, no library call.
__device__ __forceinline__ float fa_tanh(float x) { return 1.0f - 2.0f / (plan_ex2(x * 2.8853900817779268f) + 1.0f); }
__device__ __forceinline__ float plan_rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
// x ^ y as powf: an integer exponent up to 16 (the plan's constants: the
// branch folds) by products, so that the result keeps its accuracy (a
// negative one by the reciprocal's products where the product overflows);
// others as 2^(y log2 |x|), negative for a negative x (-0 too) and an odd
// integer y, NaN for a finite negative x and a y that is not an integer; x ^ 0 and
// 1 ^ y are 1, and (-1) ^ (+-inf) is 1, as for powf.
__device__ __forceinline__ float plan_pow(float x, float y) {
  const float ay = __builtin_fabsf(y), ax = __builtin_fabsf(x);
  if (y == 0.f || x == 1.f || (ax == 1.f && __builtin_isinf(y))) return 1.f;
  const bool yint = y == __builtin_truncf(y);  // false for NaN; true for +-inf
  if (yint && ay <= 16.f) {
    float r = 1.f, b = x;
    for (int n = (int)ay; n; n >>= 1, b *= b)
      if (n & 1) r *= b;
    if (y > 0.f) return r;
    if (!__builtin_isinf(r)) return 1.f / r;
    r = 1.f;  // |x| ^ |y| overflows: the reciprocal's products (subnormal results)
    b = 1.f / x;
    for (int n = (int)ay; n; n >>= 1, b *= b)
      if (n & 1) r *= b;
    return r;
  }
  const float r = plan_ex2(y * __builtin_log2f(ax));
  if (!__builtin_signbit(x)) return r;
  if (!yint) return __builtin_isinf(x) || x == 0.f ? r : __builtin_nanf("");
  // an odd integer below 2^24 (every float from 2^24 on is even)
  const bool odd = ay < 16777216.f && 0.5f * y != __builtin_truncf(0.5f * y);
  return odd ? -r : r;
}
__device__ __forceinline__ int plan_iabs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ int plan_imin(int x, int y) { return x < y ? x : y; }
__device__ __forceinline__ int plan_imax(int x, int y) { return x > y ? x : y; }
