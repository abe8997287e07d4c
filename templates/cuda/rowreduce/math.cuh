// cuda/rowreduce/math.cuh - the device functions the row hooks
// (gpu/rows_hooks.m4) call, in CUDA: the names lower_rows.c prints for the
// CUDA dialect (print.c) and the masked-row rules.  Also compiled on the
// host by tests/rows_hooks_sim.cc.  Same conventions as the skeleton.
__device__ __forceinline__ float plan_sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }
__device__ __forceinline__ float fa_tanh(float x) { return tanhf(x); }
// A max or min that has seen no finite value reads as 0; a division by a
// reduction that is exactly 0 gives 0 (the masked-row rules).
__device__ __forceinline__ float plan_safe(float x) { return isinf(x) ? 0.f : x; }
// The division is x times the correctly rounded reciprocal of y: y is a row's
// value, so ptxas computes the reciprocal once per row, not a division per
// element (two roundings: within 1.5 ulp of x / y while 1 / y is a normal
// float, |y| between 2^-126 and 2^126; beyond, 1 / y loses bits or is inf).
__device__ __forceinline__ float plan_div0(float x, float y) { return y == 0.f ? 0.f : x * __frcp_rn(y); }
// plan_div0(x, y) with r = 1 / y (correctly rounded) computed once per row
// in plan_finish.
__device__ __forceinline__ float plan_div0_r(float x, float y, float r) { return y == 0.f ? 0.f : x * r; }
// exp(a - b) as 2^(a log2(e) - b log2(e)): one FFMA and the exponential
// unit's approximate 2^x (as __expf; results below 2^-126 flush to 0).  b is
// the same at every element of a row (its product is computed once).
__device__ __forceinline__ float plan_exp_sub(float a, float b) {
  const float l2e = 1.4426950408889634f;
#ifdef __CUDA_ARCH__
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaf(a, l2e, -(b * l2e))));
  return y;
#else
  return exp2f(fmaf(a, l2e, -(b * l2e)));  // the hooks compiled for the host (tests/rows_hooks_sim.cc)
#endif
}
// x ^ 2 as a product (powf does not shorten a constant exponent).
__device__ __forceinline__ float plan_sq(float x) { return x * x; }
