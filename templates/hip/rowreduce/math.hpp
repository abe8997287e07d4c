// hip/rowreduce/math.hpp - the device functions the row hooks
// (gpu/rows_hooks.m4) call, in HIP: the plan's math (hip/plan_math.hpp,
// shared with the attention kernels), the masked-row rules and the rows'
// own forms, through compiler builtins only (no device-library function:
// gfx942 is built with -nogpulib where the toolchain has no device library
// for it).  Also compiled on the host by tests/rows_hooks_sim.cc (then
// without the AMDGPU instructions).  Same conventions as the skeleton
// (templates/README.md).

m4_include([[[hip/plan_math.hpp]]])m4_dnl
// A max or min that has seen no finite value reads as 0; a division by a
// reduction that is exactly 0 gives 0 (the masked-row rules).
__device__ __forceinline__ float plan_safe(float x) { return __builtin_isinf(x) ? 0.f : x; }
// The correctly rounded reciprocal (HIP's float division is correctly
// rounded): y is a row's value, computed once per row.
__device__ __forceinline__ float plan_rcp_rn(float y) { return 1.0f / y; }
// x times the correctly rounded reciprocal of y (two roundings: within 1.5
// ulp of x / y while 1 / y is a normal float).
__device__ __forceinline__ float plan_div0(float x, float y) { return y == 0.f ? 0.f : x * plan_rcp_rn(y); }
// plan_div0(x, y) with r = 1 / y computed once per row in plan_finish.
__device__ __forceinline__ float plan_div0_r(float x, float y, float r) { return y == 0.f ? 0.f : x * r; }
// exp(a - b) as 2^(a log2(e) - b log2(e)): one FMA and v_exp_f32.  b is the
// same at every element of a row (its product is computed once).
__device__ __forceinline__ float plan_exp_sub(float a, float b) {
  const float l2e = 1.4426950408889634f;
  return plan_ex2(__builtin_fmaf(a, l2e, -(b * l2e)));
}
// x ^ 2 as a product.
__device__ __forceinline__ float plan_sq(float x) { return x * x; }
