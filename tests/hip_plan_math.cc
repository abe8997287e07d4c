// hip_plan_math.cc - templates/hip/plan_math.hpp's plan_pow, compiled for the
// host (its AMDGPU instruction aside: plan_ex2 is exp2f there), against the
// C library's powf on signed, zero, infinite and NaN bases and integer,
// non-integer, large, infinite and NaN exponents: the HIP kernels print
// x ^ y as plan_pow (the HIP dialect has no device library), and the C and
// CUDA kernels as powf.  The first version took 2^(y log2 x) alone: NaN for
// a negative base, which made moments' third power about the mean NaN.
#include <cmath>
#include <cstdio>

#define __device__
#define __forceinline__ inline
#include "plan_math.hpp"

int main() {
  const float xs[] = {-2.f, -1.f, 0.f, -0.f, 1.f, 2.f, 300.f, -300.f, 0.5f, -0.5f, 3.7f, -3.7f, 1e-3f,
                      -1e-3f, INFINITY, -INFINITY, NAN};
  const float ys[] = {0.f, 1.f, 2.f, 3.f, 4.f, 16.f, -1.f, -2.f, -3.f, -16.f, 17.f, 20.f, -17.f, 0.5f,
                      -0.5f, 2.5f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN};
  int bad = 0, n = 0;
  for (float x : xs)
    for (float y : ys) {
      const float a = plan_pow(x, y), b = powf(x, y);
      n++;
      // the same value, both NaN, or within 2e-6 relative (exp2 and log2
      // of the host's library on the non-integer path; 16 products)
      const bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                      (std::isfinite(b) && std::fabs(a - b) <= 2e-6f * std::fabs(b) + 1e-44f);
      if (!ok) {
        printf("FAIL: plan_pow(%g, %g) = %g, powf %g\n", x, y, a, b);
        bad++;
      }
    }
  printf("plan_pow against powf: %d cases, %d differ\n", n, bad);
  return bad ? 1 : 0;
}
