m4_dnl gpu/rows_hooks.m4 - the plan hooks of the row-reduction skeleton
m4_dnl (gpu/rows.hpp), one text for CUDA (cuda/rowreduce.m4) and HIP
m4_dnl (hip/rowreduce.m4): lower_rows.c prints them in the backend's dialect.
m4_dnl The including template defines, before it, the device functions the
m4_dnl hooks call (cuda/rowreduce/math.cuh, hip/rowreduce/math.hpp).
// ============================ PLAN HOOKS BEGIN ============================
// Generated from the fused schedule of plan fg_plan_name:
fg_cuda_rows_chain[[[]]]m4_dnl
// A row is one index of the running state's axes; the kernels walk its
// elements along fg_cuda_rows_axis in chunks of V.
constexpr int plan_nin = fg_cuda_rows_nin;    // inputs along fg_cuda_rows_axis (one dtype: the kernels' template)
constexpr int plan_nin1 = fg_cuda_rows_nin1;  // ... of which the running values read the first plan_nin1 (the others: the outputs only)
constexpr int plan_nrin = fg_cuda_rows_nrin;  // inputs read once per row
constexpr int plan_nout = fg_cuda_rows_nout;  // outputs along fg_cuda_rows_axis (the second walk)
constexpr int plan_nrout = fg_cuda_rows_nrout; // outputs per row
constexpr int plan_naxes = fg_cuda_rows_naxes; // row axes
constexpr int plan_nstate = fg_cuda_rows_nstate; // floats of the running state
constexpr int plan_nlevels = fg_cuda_rows_nlevels; // levels of the running values (the kept forms)
// The kept forms take both levels per thread, then rebase the second to the
// row's first with plan_level_rebase (two levels, the first of maxima or
// minima, the second corrected to it).
constexpr bool plan_rows_rebase = fg_cuda_rows_rebase;
constexpr int plan_nin_a = plan_nin > 0 ? plan_nin : 1;
constexpr int plan_nin1_a = plan_nin1 > 0 ? plan_nin1 : 1;
constexpr int plan_nrin_a = plan_nrin > 0 ? plan_nrin : 1;
constexpr int plan_nout_a = plan_nout > 0 ? plan_nout : 1;
constexpr int plan_nrout_a = plan_nrout > 0 ? plan_nrout : 1;
constexpr int plan_naxes_a = plan_naxes > 0 ? plan_naxes : 1;
constexpr int plan_nlevels_a = plan_nlevels > 0 ? plan_nlevels : 1;


// Per launch, filled by the entry point below.
struct plan_params {
  long long rows, ncols;  // rows (the product of the row axes' extents), elements per row
  long long ext[plan_naxes_a];  // the row axes' extents, in plan order (the last varies fastest)
  const void* in[plan_nin_a];  // inputs along the axis: data, stride along it, strides per row axis
  long long in_sc[plan_nin_a];
  long long in_rs[plan_nin_a][plan_naxes_a];
  const void* rin[plan_nrin_a];  // inputs per row: data, dtype, strides per row axis
  int rin_dt[plan_nrin_a];
  long long rin_rs[plan_nrin_a][plan_naxes_a];
  void* out[plan_nout_a];  // outputs along the axis (NULL: not computed)
  int out_dt[plan_nout_a];
  long long out_sc[plan_nout_a];
  long long out_rs[plan_nout_a][plan_naxes_a];
  void* rout[plan_nrout_a];  // outputs per row (NULL: not stored)
  int rout_dt[plan_nrout_a];
  long long rout_rs[plan_nrout_a][plan_naxes_a];
  int vec;    // unit strides along the axis everywhere: 16-byte accesses where a row's start allows
  int pass2;  // an output along the axis is wanted: the second walk
fg_cuda_rows_params_fields[[[]]]m4_dnl
};

// One row: its indices, its offset in each tensor, the values read or
// computed once per row before the walk.
struct plan_row {
  long long in_off[plan_nin_a], rin_off[plan_nrin_a], out_off[plan_nout_a], rout_off[plan_nrout_a];
fg_cuda_rows_row_fields[[[]]]m4_dnl
};

// The running state of a row (or of a thread's part of it); `any` is 0
// until it has taken an element (then corrections apply).
struct plan_state {
fg_cuda_rows_state_fields[[[]]]m4_dnl
  float any;
};

// The row statements after the walk.
struct plan_fin {
fg_cuda_rows_fin_fields[[[]]]m4_dnl
};

__device__ __forceinline__ float rr_load1(const void* base, int dt, long long off);
__device__ __forceinline__ void rr_store1(void* base, int dt, long long off, float v);

__device__ __forceinline__ void plan_row_setup(const plan_params& p, long long row, plan_row& r) {
fg_cuda_rows_row_setup[[[]]]m4_dnl
}

__device__ __forceinline__ void plan_state_init(plan_state& s) {
fg_cuda_rows_state_init[[[]]]m4_dnl
  s.any = 0.f;
}

__device__ __forceinline__ plan_state plan_state_shfl(const plan_state& s, int o) {
  plan_state t;
fg_cuda_rows_state_shfl[[[]]]m4_dnl
  return t;
}

__device__ __forceinline__ void plan_state_save(float* w, const plan_state& s) {
fg_cuda_rows_state_save[[[]]]m4_dnl
}

__device__ __forceinline__ plan_state plan_state_load(const float* w) {
  plan_state s;
fg_cuda_rows_state_load[[[]]]m4_dnl
  return s;
}

// One chunk of the row: elements c0 .. c0 + n - 1 (n <= V), x[k][e] the
// element c0 + e of input k.  Each running value, producers first: its
// correction to the producers' new values (when it holds something), then
// the chunk's contribution.
template <int V>
__device__ __forceinline__ void plan_accumulate(plan_state& s, const float (&x)[plan_nin_a][V], int n, long long c0,
                                                const plan_params& p, const plan_row& r) {
  (void)x;
  (void)c0;
  (void)p;
  (void)r;
fg_cuda_rows_accumulate[[[]]]m4_dnl
}

// a <- the merge of states a and b (threads, or the CTAs of a split row),
// each side corrected to the merged values with the same corrections.
__device__ __forceinline__ void plan_merge(plan_state& a, const plan_state& b, const plan_params& p) {
  (void)p;
fg_cuda_rows_merge[[[]]]m4_dnl
}

// The parts of the kept forms' terms that are the same at every element of
// the row (a running mean S / N, with its reciprocal): computed once a level
// by plan_level_consts from the lower levels, read by plan_level_accumulate
// (neither NVVM nor ptxas merges the correctly rounded reciprocals of a
// per-chunk h0_ = S / N: one a chunk, 8 in the 512-thread form).
struct plan_lc {
fg_cuda_rows_level_fields[[[]]]m4_dnl
};

template <int L>
__device__ __forceinline__ void plan_level_consts(plan_lc& h, const plan_state& s, const plan_params& p,
                                                  const plan_row& r) {
  (void)h;
  (void)s;
  (void)p;
  (void)r;
fg_cuda_rows_level_consts[[[]]]m4_dnl
}

// The kept forms, where a thread has its part of the row in registers, take
// the running values one level at a time (a value's level: one more than the
// highest of the values it reads).  Level L of one chunk, the lower levels
// being final for the row (h: their constants): no correction applies.
template <int L, int V>
__device__ __forceinline__ void plan_level_accumulate(plan_state& s, const plan_lc& h, const float (&x)[plan_nin_a][V],
                                                      int n, long long c0, const plan_params& p, const plan_row& r) {
  (void)s;
  (void)h;
  (void)x;
  (void)n;
  (void)c0;
  (void)p;
  (void)r;
fg_cuda_rows_level_accumulate[[[]]]m4_dnl
}

// The first level where it is one max or min of an input as loaded: the kept
// forms take it from the packed 16-bit pairs of input plan_pair_input (-1:
// none) and fold the pairs' result m into s here.
constexpr int plan_pair_input = fg_cuda_rows_pair_input;
constexpr bool plan_pair_max = fg_cuda_rows_pair_max;  // false: a min
__device__ __forceinline__ void plan_level0_pair(plan_state& s, float m) {
fg_cuda_rows_pair_set[[[]]]m4_dnl
}

// Level L of s merged with lane (this lane xor o)'s: the plain reducers.
template <int L>
__device__ __forceinline__ void plan_level_shfl(plan_state& s, int o) {
  (void)s;
  (void)o;
fg_cuda_rows_level_shfl[[[]]]m4_dnl
}

// Level L of s back to the reducers' identities.
template <int L>
__device__ __forceinline__ void plan_level_init(plan_state& s) {
  (void)s;
fg_cuda_rows_level_init[[[]]]m4_dnl
}

// With plan_rows_rebase: s holds the row's first level (its second level is
// not this thread's: the level's merge copies whole states), own the
// thread's state before the row merged the first level.  Each value of the
// second level is own's, corrected from own's first level to the row's (the
// merge's correction of one side).
__device__ __forceinline__ void plan_level_rebase(plan_state& s, const plan_state& own, const plan_params& p) {
  (void)p;
fg_cuda_rows_level_rebase[[[]]]m4_dnl
}

__device__ __forceinline__ void plan_finish(plan_fin& f, const plan_state& s, const plan_params& p, const plan_row& r) {
fg_cuda_rows_finish[[[]]]m4_dnl
}

__device__ __forceinline__ void plan_store_row(const plan_fin& f, const plan_state& s, const plan_params& p,
                                               const plan_row& r) {
fg_cuda_rows_store_row[[[]]]m4_dnl
}

// The outputs along the axis at elements c0 .. c0 + V - 1, from the final
// state (the caller stores only the elements of the row).
template <int V>
__device__ __forceinline__ void plan_elementwise(float (&y)[plan_nout_a][V], const float (&x)[plan_nin_a][V], long long c0,
                                                 const plan_fin& f, const plan_state& s, const plan_params& p,
                                                 const plan_row& r) {
fg_cuda_rows_elementwise[[[]]]m4_dnl
}
// ============================= PLAN HOOKS END =============================
