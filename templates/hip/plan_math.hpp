// hip/plan_math.hpp - the plan's math functions in HIP device code, for the
// names the HIP dialect prints (generator/back/print.c): compiler builtins
// and v_exp_f32 only, no device-library call (gfx942 is built with
// -nogpulib where the toolchain has no device library for it).  Included by
// hip/attention.m4 and hip/rowreduce.m4; compiled on the host too by
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
__device__ __forceinline__ float plan_rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
// x ^ y as powf: an integer exponent up to 16 (the plan's constants: the
// branch folds) by products, so that a negative x keeps its sign and the
// result its accuracy; others as 2^(y log2 x) (NaN for x < 0, as powf).
__device__ __forceinline__ float plan_pow(float x, float y) {
  if (y == __builtin_truncf(y) && __builtin_fabsf(y) <= 16.f) {
    int n = (int)__builtin_fabsf(y);
    float r = 1.f, b = x;
    for (; n; n >>= 1, b *= b)
      if (n & 1) r *= b;
    return y < 0.f ? 1.f / r : r;
  }
  return plan_ex2(y * __builtin_log2f(x));
}
__device__ __forceinline__ int plan_iabs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ int plan_imin(int x, int y) { return x < y ? x : y; }
__device__ __forceinline__ int plan_imax(int x, int y) { return x > y ? x : y; }
