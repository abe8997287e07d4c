m4_dnl cuda/prelude.m4 - what every CUDA kernel source shares on the host:
m4_dnl the host versions of the plan's functions, for parameter defaults.
m4_dnl Included inside the plan's namespace.  The per-device facts, the
m4_dnl shared-memory opt-in, the workspace pool and the ticket buffers are
m4_dnl the runtime's (runtime/fusegen_cuda.cu, fusegen_cuda_internal.h).
m4_dnl emit.c also looks for this file to know the backend has templates.
// Host versions of the plan's functions, for parameter defaults.
static inline __attribute__((unused)) double plan_rsqrt_host(double x) { return 1.0 / sqrt(x); }
static inline __attribute__((unused)) double plan_sigmoid_host(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline __attribute__((unused)) long plan_min_host(long x, long y) { return x < y ? x : y; }
static inline __attribute__((unused)) long plan_max_host(long x, long y) { return x > y ? x : y; }

// The C backend's helpers: the argument checks of the entry point are the
// CPU entry's (validate_c.c), printed in C.
m4_include([[[c/helpers.m4]]])m4_dnl
