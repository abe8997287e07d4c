// sim_device.h - what the generated hooks take from CUDA, on the host, for
// the host simulations of span_hooks_sim.cc and bias_hooks_sim.cc (the
// hooks are extracted into hooks.h, included after this).
#ifndef FG_SIM_DEVICE_H
#define FG_SIM_DEVICE_H
#include <cmath>
#include <cstring>

#define __device__
#define __forceinline__ inline
enum { FG_F32 = 1, FG_BF16 = 2, FG_F16 = 3 };  // named by the loads of extra inputs
static inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
using std::isinf;
#endif
