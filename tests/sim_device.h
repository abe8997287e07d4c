// sim_device.h - what the generated hooks take from CUDA, on the host, for
// the host simulations of span_hooks_sim.cc and bias_hooks_sim.cc (the
// hooks are extracted into hooks.h, included after this).
#ifndef FG_SIM_DEVICE_H
#define FG_SIM_DEVICE_H
#include <cmath>
#include <cstring>

#define __device__
#define __forceinline__ inline
typedef enum fg_dtype { FG_BF16 = 0, FG_FP16, FG_F32, FG_I32 } fg_dtype;  // as runtime/fusegen.h
static inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
// The device's half conversion (cvt.f32.f16), from the bits: normal numbers
// rebased in the exponent, subnormals exact through an integer, infinity and
// NaN the all-ones exponent.
static inline float plan_half_float(unsigned short x)
{
    const unsigned s = (x & 0x8000u) << 16, em = x & 0x7fffu;
    const float sub = (float)em * 5.9604644775390625e-8f;
    const unsigned bits = em < 0x400u ? __float_as_uint(sub) : em >= 0x7c00u ? (em << 13) | 0x7f800000u : (em << 13) + (112u << 23);
    return __uint_as_float(s | bits);
}
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
using std::isinf;
#endif
