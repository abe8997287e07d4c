m4_dnl gpu/hooks.m4 - the plan hooks of the GPU attention skeletons, one text
m4_dnl for CUDA (cuda/attention.m4) and HIP (hip/attention.m4): what
m4_dnl gpu_attention_defs (generator/back/cuda/lower_cuda.c) computes from the
m4_dnl fused schedule, printed in each backend's device dialect.  The family's
m4_dnl common header defines plan_wave, plan_lane() and plan_shfl_xor() before
m4_dnl it; the backend's main template defines plan_sigmoid and its helpers.
// ============================ PLAN HOOKS BEGIN ============================
// Generated from the fused schedule of plan fg_plan_name.

// Per-launch scalars, filled by the entry point below; plan_head_setup runs on
// a private copy per CTA (per query row in the decode kernel) with its batch
// and query head.
struct plan_params {
fg_cuda_params_fields[[[]]]m4_dnl
};
fg_cuda_vector_fns[[[]]]m4_dnl
fg_cuda_aux_if([[[m4_dnl
// Loads of the extra inputs the score, the mask and the weight read, in the
// dtype given at run time (f32, bf16 or fp16), without a branch: a branch
// around each load splits a tile's unrolled loads into blocks that the
// compiler schedules one at a time (siggate's per-key loads: 396 branches
// in one kernel's PTX, 0.41 of sigmoid's speed).  The entry gives each
// input w, its 16-bit words an element (2 or 1), and masks m, all ones for
// f32 (m[0]) and for fp16 (m[1]): values the compiler cannot turn back into
// a test of the dtype.  Two 16-bit loads, the second the first again in a
// 16-bit dtype, so that hi << 16 | lo, with lo masked out unless f32, is
// the bits of an f32 or a bf16; an fp16's are the device's conversion
// (plan_half_float, the family's), taken by the mask.
inline void plan_aux_dtype(fg_dtype dt, int* w, unsigned* m) {
  *w = dt == FG_F32 ? 2 : 1;
  m[0] = dt == FG_F32 ? ~0u : 0u;
  m[1] = dt == FG_FP16 ? ~0u : 0u;
}
__device__ __forceinline__ float plan_aux_float(const void* base, int w, const unsigned* m, long long i) {
  const unsigned short* a = static_cast<const unsigned short*>(base) + i * w;
  const unsigned lo = a[0], hi = a[w - 1], v = hi << 16 | (lo & m[0]);
  return __uint_as_float((v & ~m[1]) | (__float_as_uint(plan_half_float((unsigned short)lo)) & m[1]));
}
__device__ __forceinline__ int plan_aux_i32(const void* base, long long i) {
  return static_cast<const int*>(base)[i];
}
fg_cuda_aux_fns[[[]]]m4_dnl
]]])m4_dnl

// CTA order: 0 = row blocks fastest; 1 = heaviest row block first (masked plans).
constexpr int plan_schedule = fg_cuda_schedule;
// plan_score_folds: the score is plan_score_inner times plan_score_scale, a
// constant > 0 (checked on the host): the kernels take the row max on the
// inner part and fold the constant into the exp2 argument's FFMA.
constexpr bool plan_score_folds = fg_cuda_fold_if([[[true]]], [[[false]]]);
__device__ __forceinline__ float plan_score_scale(const plan_params& p) {
  (void)p;
  return fg_cuda_fold_scale;
}
// plan_score_bound: |plan_score_inner| <= plan_score_bound everywhere (tanh's
// 1), 0 when unbounded or when a value per row is not the same for any offset
// of the max (the max itself as an output): where it is > 0, the sm_90a
// kernel may hold the max at a fixed offset instead of a running one.
__attribute__((unused)) constexpr float plan_score_bound = fg_cuda_fold_bound;
// plan_max_free: every value per row is the same for any offset of the max
// (one chain, or several and no value per row): the kernels may hold the max
// at a value other than the true one (the sm_90a kernel lets it lag while
// the weights stay below 2^8, where the score has no bound; with one chain
// and a value per row that reads the max itself, it keeps the true max
// beside the held one for those values).
__attribute__((unused)) constexpr bool plan_max_free = fg_cuda_max_free_if([[[true]]], [[[false]]]);

__device__ __forceinline__ void plan_head_setup(plan_params& p, int b, int h) {
fg_cuda_head_setup[[[]]]m4_dnl
}

// The score fg_cuda_softmax_if([[[in the exp2 domain (fg_cuda_score_domain)]]], [[[as plan_weight reads it]]]), from the plan's statements
fg_cuda_score_chain[[[]]]m4_dnl
// with qk = the contraction (plan line fg_cuda_plan_line_S), i, j, h = the row, key and head.
__device__ __forceinline__ float plan_score(float qk, int i, int j, int h, const plan_params& p) {
  (void)i; (void)j; (void)h; (void)p;
fg_cuda_aux_clamp_score[[[]]]m4_dnl
  return fg_cuda_score;
}
// Its varying part, on which the kernels take the row max when it folds (qk
// when the score is qk times a constant).
__device__ __forceinline__ float plan_score_inner(float qk, int i, int j, int h, const plan_params& p) {
  (void)i; (void)j; (void)h; (void)p;
fg_cuda_aux_clamp_score[[[]]]m4_dnl
  return fg_cuda_score_inner;
}

fg_cuda_softmax_if([[[m4_dnl
// The softmax chain: a key's weight is exp2 of its score less the running max,
// which the kernels compute themselves (plan_weight is not called).
__attribute__((unused)) constexpr bool plan_softmax = true;
__device__ __forceinline__ float plan_weight(float x, int, int, int, const plan_params&) {
  return x;
}
]]], [[[m4_dnl
// No softmax chain: O adds each key's weight times V, no running max, no
// correction, no division; a key's weight from its masked score x
// (fg_cuda_weight_plan), 0 for a masked key (the kernels skip those).
__attribute__((unused)) constexpr bool plan_softmax = false;
__device__ __forceinline__ float plan_weight(float x, int i, int j, int h, const plan_params& p) {
  (void)i; (void)j; (void)h; (void)p;
fg_cuda_aux_clamp_weight[[[]]]m4_dnl
  return fg_cuda_weight;
}
]]])m4_dnl

// plan_nkeyvals: the weight's reads of extra inputs at the key alone (a
// per-key gate), which the sm_90a kernel and the CDNA kernels' weight pass
// load (plan_key_values) and plan_weight_kv reads back from kv; plan_weight,
// which the sm_80 kernels call, reads them itself.
__attribute__((unused)) constexpr int plan_nkeyvals = fg_cuda_nkeyvals;
__device__ __forceinline__ void plan_key_values(int j, const plan_params& p, float* kv) {
  (void)j; (void)p; (void)kv;
fg_cuda_key_values[[[]]]m4_dnl
}
__device__ __forceinline__ float plan_weight_kv(float x, int i, int j, int h, const float* kv,
                                                const plan_params& p) {
  (void)i; (void)j; (void)h; (void)kv; (void)p;
fg_cuda_aux_clamp_weight_kv[[[]]]m4_dnl
  return fg_cuda_weight_kv;
}
// plan_kv_recip: the weight is sigmoid(X) times F, an expression of the key
// values alone (plan_key_factor), X free of extra inputs: the sm_90a kernel
// takes 1 / F once a key and the weight as plan_weight_kv_recip, F sigmoid(X)
// = 1 / (F^-1 (1 + e^-X)), with the multiply by F folded into an FFMA.
__attribute__((unused)) constexpr bool plan_kv_recip = fg_cuda_kv_recip_if([[[true]]], [[[false]]]);
__device__ __forceinline__ float plan_key_factor(const float* kv, const plan_params& p) {
  (void)kv; (void)p;
  return fg_cuda_key_factor;
}
__device__ __forceinline__ float plan_weight_kv_recip(float x, int i, int j, int h, float finv,
                                                      const plan_params& p) {
  (void)i; (void)j; (void)h; (void)finv; (void)p;
  return fg_cuda_weight_kv_recip;
}

fg_cuda_tile_affine_if([[[m4_dnl
// The score is qk times a constant plus a term that reads an extra input at
// the row and key (exp2 domain: fg_cuda_tile_bias_plan).  On a tile where
// every such read is at one element (a table at a clamped distance past its
// last entry), the score is qk * *scale + *bias there: the kernel takes the
// fold's path with an offset.
__attribute__((unused)) constexpr bool plan_score_tile_affine = true;
__device__ __forceinline__ bool plan_score_tile_bias(int m0, int m1, int n0, int n1, int h, const plan_params& p,
                                                     float* scale, float* bias) {
  (void)h;
fg_cuda_tile_bias[[[]]]m4_dnl
}
]]], [[[m4_dnl
__attribute__((unused)) constexpr bool plan_score_tile_affine = false;  // no tile where the score is qk times a constant plus one value
__device__ __forceinline__ bool plan_score_tile_bias(int, int, int, int, int, const plan_params&, float*, float*) {
  return false;
}
]]])m4_dnl

fg_cuda_tile_diag_if([[[m4_dnl
// The score is qk * plan_score_qk_scale(p) plus a term that reads the row
// and key only through their difference (exp2 domain, plan_score_bias:
// fg_cuda_tile_diag_plan): the sm_90a kernel evaluates the term once a
// diagonal of a thread's elements, on tiles where it is not one value.
__attribute__((unused)) constexpr bool plan_score_diag = true;
__device__ __forceinline__ float plan_score_qk_scale(const plan_params& p) {
  (void)p;
  return fg_cuda_tile_qk_scale;
}
__device__ __forceinline__ float plan_score_bias(int i, int j, int h, const plan_params& p) {
  (void)i; (void)j; (void)h; (void)p;
fg_cuda_aux_clamp_score[[[]]]m4_dnl
  return fg_cuda_tile_diag_bias;
}
]]], [[[m4_dnl
__attribute__((unused)) constexpr bool plan_score_diag = false;  // no score term on diagonals
__device__ __forceinline__ float plan_score_qk_scale(const plan_params&) { return 1.f; }
__device__ __forceinline__ float plan_score_bias(int, int, int, const plan_params&) { return 0.f; }
]]])m4_dnl

fg_cuda_keylin_if([[[m4_dnl
// The score is qk * plan_keylin_qk(p) plus plan_keylin_slope(p) times an
// integer term that changes by plan_keylin_step a key (fg_cuda_keylin_plan):
// the sm_90a kernel starts a thread's accumulators of S at its first row's
// terms over plan_keylin_qk(p) (from one value a tile; the same for all of its
// rows), so that the product adds qk to them, takes the row max on that sum
// and multiplies by plan_keylin_qk(p) in the exp2 argument (the host refuses
// a factor that is not > 0), and adds each row's own offset to its max at
// the end.
__attribute__((unused)) constexpr bool plan_score_keylin = true;
__attribute__((unused)) constexpr int plan_keylin_step = fg_cuda_keylin_step;
__device__ __forceinline__ float plan_keylin_qk(const plan_params& p) {
  (void)p;
  return fg_cuda_keylin_qk;
}
__device__ __forceinline__ float plan_keylin_slope(const plan_params& p) {
  (void)p;
  return fg_cuda_keylin_slope;
}
__device__ __forceinline__ int plan_keylin_int(int i, int j, const plan_params& p) {
  (void)i; (void)j; (void)p;
  return fg_cuda_keylin_int;
}
]]], [[[m4_dnl
__attribute__((unused)) constexpr bool plan_score_keylin = false;  // no score linear in the key past qk
__attribute__((unused)) constexpr int plan_keylin_step = 0;
__device__ __forceinline__ float plan_keylin_qk(const plan_params&) { return 1.f; }
__device__ __forceinline__ float plan_keylin_slope(const plan_params&) { return 0.f; }
__device__ __forceinline__ int plan_keylin_int(int, int, const plan_params&) { return 0; }
]]])m4_dnl

// The mask (fg_cuda_mask_origin).
__device__ __forceinline__ bool plan_visible(int i, int j, const plan_params& p) {
  (void)i; (void)j; (void)p;
fg_cuda_aux_clamp_visible[[[]]]m4_dnl
  return fg_cuda_visible;
}

// The keys [*n_begin, *n_end) that rows [m0, m1) can see.
__device__ __forceinline__ void plan_key_range(int m0, int m1, const plan_params& p, int* n_begin, int* n_end) {
fg_cuda_mask_skip_if([[[m4_dnl
  const long r0 = m0, r1 = m1;
  long c_lo, c_hi;
fg_cuda_key_range_lanes_if([[[m4_dnl
  // The kernels call this with all plan_wave lanes of each warp (wavefront)
  // together (at the top, outside any branch): each lane walks every
  // plan_wave-th row, then the lanes merge.
  const int lane = plan_lane();
fg_cuda_key_range[[[]]]m4_dnl
  int any = c_lo < c_hi;
  for (int o = plan_wave / 2; o > 0; o >>= 1) {
    const long lo_o = plan_shfl_xor(c_lo, o);
    const long hi_o = plan_shfl_xor(c_hi, o);
    const int any_o = plan_shfl_xor(any, o);
    if (any_o) {
      c_lo = any ? (c_lo < lo_o ? c_lo : lo_o) : lo_o;
      c_hi = any ? (c_hi > hi_o ? c_hi : hi_o) : hi_o;
      any = 1;
    }
  }
  if (!any) c_lo = c_hi = 0;
]]], [[[m4_dnl
fg_cuda_key_range[[[]]]m4_dnl
]]])m4_dnl
  *n_begin = (int)c_lo;
  *n_end = (int)c_hi;
]]], [[[m4_dnl
  (void)m0;
  (void)m1;
  *n_begin = 0;
  *n_end = p.N;
]]])m4_dnl
}

// The keys [*lo, *hi) that row i sees, with plan_mask_rows: then a key is
// visible exactly when it lies there (the mask is an interval of keys per
// row), and the sm_90a and CDNA masked steps compare each key with the row's
// bounds instead of calling plan_visible; with plan_mask_rows_from0 *lo is 0.
fg_cuda_mask_rows_if([[[m4_dnl
__attribute__((unused)) constexpr bool plan_mask_rows = true;
__attribute__((unused)) constexpr bool plan_mask_rows_from0 = fg_cuda_mask_rows_from0_if([[[true]]], [[[false]]]);
__device__ __forceinline__ void plan_row_keys(int i, const plan_params& p, int* lo, int* hi) {
  const long row = i;
  long k_lo, k_hi;
fg_cuda_row_keys[[[]]]m4_dnl
  *lo = (int)k_lo;
  *hi = (int)k_hi;
}
]]], [[[m4_dnl
__attribute__((unused)) constexpr bool plan_mask_rows = false;  // not an interval of keys per row: plan_visible
__attribute__((unused)) constexpr bool plan_mask_rows_from0 = false;
__device__ __forceinline__ void plan_row_keys(int, const plan_params& p, int* lo, int* hi) {
  *lo = 0;
  *hi = p.N;
}
]]])m4_dnl

// Tile rows [m0, m1) x keys [n0, n1): 0 = nothing visible (skipped), 1 = some
// (mask applied), 2 = all (no mask code).
__device__ __forceinline__ int plan_tile_class(int m0, int m1, int n0, int n1, const plan_params& p) {
fg_cuda_mask_if([[[m4_dnl
  const long r0 = m0, r1 = m1, c0 = n0, c1 = n1;
  const int state = [&]() -> int {
fg_cuda_tile_state[[[]]]m4_dnl
  }();
fg_cuda_mask_skip_if([[[m4_dnl
  return state;
]]], [[[m4_dnl
  return state == 0 ? 1 : state;  // a masked element may still count: never skip
]]])m4_dnl
]]], [[[m4_dnl
  (void)m0; (void)m1; (void)n0; (void)n1; (void)p;
  return fg_cuda_masked_if([[[1;  // no tile analysis of the mask: every tile applies it]]], [[[2;]]])
]]])m4_dnl
}

fg_cuda_spans_if([[[m4_dnl
// The mask's span atoms (masks.c): a value read at the row compared with one
// read at the key (an extra input's ids), which no closed form bounds.  The
// kernels that take them compute each side's range over a tile's rows and
// keys (plan_span_range) and classify the tile from the ranges; the rolling
// kernel also narrows its key range to the keys some row could see
// (plan_span_narrow).
__attribute__((unused)) constexpr int plan_nspans = fg_cuda_nspans;
// Whether the mask, its span atoms among it, reads no head (ids per batch
// and key): the sm_90a launch then makes its summary, key ranges and rows
// once a batch for every head (fh_span_bh).
__attribute__((unused)) constexpr bool plan_span_head_free = fg_cuda_spans_head_free_if([[[true]]], [[[false]]]);
// Span k's side at row i, key j (in range: 0 <= i < M, 0 <= j < N).
__device__ __forceinline__ long plan_span_row(int k, int i, int h, const plan_params& p) {
  (void)h;
fg_cuda_span_rows[[[]]]m4_dnl
  return 0;
}
__device__ __forceinline__ long plan_span_col(int k, int j, int h, const plan_params& p) {
  (void)h;
fg_cuda_span_cols[[[]]]m4_dnl
  return 0;
}
// Each lane's ranges [lo[k], hi[k]] merged across the warp (wavefront).
__device__ __forceinline__ void plan_span_merge(long* lo, long* hi) {
  for (int o = plan_wave / 2; o > 0; o >>= 1)
#pragma unroll
    for (int k = 0; k < plan_nspans; ++k) {
      const long l = plan_shfl_xor(lo[k], o), u = plan_shfl_xor(hi[k], o);
      lo[k] = l < lo[k] ? l : lo[k];
      hi[k] = u > hi[k] ? u : hi[k];
    }
}
// [lo[k], hi[k]]: span k's row side over rows [x0, x1) (ROW) or its key side
// over keys [x0, x1); every lane of the warp (wavefront) calls it and gets
// the whole range; an empty range gives lo > hi.
template <bool ROW>
__device__ __forceinline__ void plan_span_range(int x0, int x1, int h, const plan_params& p, long* lo, long* hi) {
#pragma unroll
  for (int k = 0; k < plan_nspans; ++k) {
    lo[k] = 9223372036854775807L;
    hi[k] = -9223372036854775807L - 1;
  }
  // unrolled so that a tile's loads (128 rows: 4 a lane) are in flight together
#pragma unroll 4
  for (int x = x0 + plan_lane(); x < x1; x += plan_wave)
#pragma unroll
    for (int k = 0; k < plan_nspans; ++k) {
      const long v = ROW ? plan_span_row(k, x, h, p) : plan_span_col(k, x, h, p);
      lo[k] = v < lo[k] ? v : lo[k];
      hi[k] = v > hi[k] ? v : hi[k];
    }
  plan_span_merge(lo, hi);
}
// The same for keys [n0, n1) (n0 < n1) in two halves: plan_span_load reads
// the PER values of each span this lane takes (keys n0 + lane + w * plan_wave;
// past n1 the value at n0 again), plan_span_fold reduces them; between the
// two the loads' latency can hide behind other work.
template <int PER>
__device__ __forceinline__ void plan_span_load(int n0, int n1, int h, const plan_params& p, long (*v)[PER]) {
#pragma unroll
  for (int k = 0; k < plan_nspans; ++k)
#pragma unroll
    for (int w = 0; w < PER; ++w) {
      const int x = n0 + plan_lane() + w * plan_wave;
      v[k][w] = plan_span_col(k, x < n1 ? x : n0, h, p);
    }
}
template <int PER>
__device__ __forceinline__ void plan_span_fold(const long (*v)[PER], long* lo, long* hi) {
#pragma unroll
  for (int k = 0; k < plan_nspans; ++k) {
    lo[k] = hi[k] = v[k][0];
#pragma unroll
    for (int w = 1; w < PER; ++w) {
      lo[k] = v[k][w] < lo[k] ? v[k][w] : lo[k];
      hi[k] = v[k][w] > hi[k] ? v[k][w] : hi[k];
    }
  }
  plan_span_merge(lo, hi);
}
// plan_tile_class, with span k's row side in [rlo[k], rhi[k]] over the rows
// and its key side in [clo[k], chi[k]] over the keys.
__device__ __forceinline__ int plan_tile_class_spans(int m0, int m1, int n0, int n1, const long* rlo,
                                                     const long* rhi, const long* clo, const long* chi,
                                                     const plan_params& p) {
  const long r0 = m0, r1 = m1, c0 = n0, c1 = n1;
  (void)p;
  return [&]() -> int {
fg_cuda_tile_state_spans[[[]]]m4_dnl
  }();
}
// plan_spans_decide: the mask's leaves are linear and span atoms only (no
// other test of an input).  Where plan_spans_known(rlo, rhi, clo, chi,
// &truth) says that every span atom holds at all of a tile's pairs or at
// none (bit k of truth: span k holds), plan_visible_known(i, j, truth, p)
// is element (i, j)'s visibility on that tile: the linear atoms at the
// element, the span atoms from truth, so the sm_90a masked step reads no
// ids there (masks.c mask_decided_by_spans, mask_emit_spans_known,
// mask_emit_visible_known).
__attribute__((unused)) constexpr bool plan_spans_decide = fg_cuda_spans_decide_if([[[true]]], [[[false]]]);
__device__ __forceinline__ bool plan_spans_known(const long* rlo, const long* rhi, const long* clo,
                                                 const long* chi, unsigned* truth) {
fg_cuda_spans_known[[[]]]m4_dnl
}
__device__ __forceinline__ bool plan_visible_known(int i, int j, unsigned truth, const plan_params& p) {
fg_cuda_spans_decide_if([[[m4_dnl
  (void)p;
fg_cuda_visible_known[[[]]]m4_dnl
]]], [[[m4_dnl
  (void)i; (void)j; (void)truth; (void)p;
  return false;  // not taken: the mask has other leaves
]]])m4_dnl
}
// plan_known_rows: on a tile whose span atoms are known (truth as above),
// row i sees the keys [*lo, *hi) and no others, the same keys as
// plan_visible_known's (masks.c mask_rows_exact_known: the linear atoms'
// intervals, each span atom every key or none), so that the sm_90a masked
// step compares each key with its row's bounds, as plan_mask_rows does.
__attribute__((unused)) constexpr bool plan_known_rows = fg_cuda_known_rows_if([[[true]]], [[[false]]]);
__device__ __forceinline__ void plan_row_keys_known(int i, unsigned truth, const plan_params& p, int* lo, int* hi) {
fg_cuda_known_rows_if([[[m4_dnl
  const long row = i;
  long k_lo, k_hi;
fg_cuda_row_keys_known[[[]]]m4_dnl
  *lo = (int)k_lo;
  *hi = (int)k_hi;
]]], [[[m4_dnl
  (void)i; (void)truth;
  *lo = 0;  // not taken: plan_visible_known
  *hi = p.N;
]]])m4_dnl
}
// DR, plan_sorted_rows: the mask is its span atoms ANDed with the rest (none
// of them !=) and plan_known_rows holds (masks.c mask_rows_sorted), so where
// each span's key side is nondecreasing in the key (the sm_90a launch checks
// it on the ids: fh_span_sum_kernel) the keys on which span k holds for a row
// whose side is v are one interval, plan_span_keys_sorted, and row i's keys
// are every span's interval intersected with plan_row_keys_known(i, every
// span holds): plan_row_keys_sorted.
__attribute__((unused)) constexpr bool plan_sorted_rows = fg_cuda_sorted_rows_if([[[true]]], [[[false]]]);
// The first key j in [0, N) whose span-k key side is >= v (UPPER: > v), N if
// none; the side nondecreasing (a binary search).
template <bool UPPER>
__device__ __forceinline__ int plan_span_search(int k, long v, int h, const plan_params& p) {
  int lo = 0, hi = p.N;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const long c = plan_span_col(k, mid, h, p);
    if (UPPER ? c <= v : c < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
__device__ __forceinline__ void plan_span_keys_sorted(int k, long v, int h, const plan_params& p, int* lo, int* hi) {
fg_cuda_sorted_rows_if([[[m4_dnl
fg_cuda_span_keys_sorted[[[]]]m4_dnl
]]], [[[m4_dnl
  (void)k; (void)v; (void)h;
]]])m4_dnl
  *lo = 0;  // not taken
  *hi = p.N;
}
// Row i's keys [*lo, *hi) (none: 0, 0), with plan_sorted_rows and every
// span's key side nondecreasing.
__device__ __forceinline__ void plan_row_keys_sorted(int i, int h, const plan_params& p, int* lo, int* hi) {
  int l, u;
  plan_row_keys_known(i, (1u << plan_nspans) - 1u, p, &l, &u);
#pragma unroll
  for (int k = 0; k < plan_nspans; ++k) {
    int sl, su;
    plan_span_keys_sorted(k, plan_span_row(k, i, h, p), h, p, &sl, &su);
    l = sl > l ? sl : l;
    u = su < u ? su : u;
  }
  l = l > 0 ? l : 0;
  u = u < p.N ? u : p.N;
  *lo = l < u ? l : 0;
  *hi = l < u ? u : 0;
}
// Narrows the keys [*n_begin, *n_end) of rows [m0, m1) to a hull of those
// keys some row may see: every thread of the block (NT of them) calls it
// together, outside any branch.  It runs before the CTA's first tile, so its
// time is latency.
// sum: null, or the launch's summary of this CTA's (batch, head) from the
// sm_90a launch's fh_span_sum_kernel: each chunk of plan_span_chunk keys'
// [lo, hi] per span.  With it each thread takes a chunk (NT chunks a round),
// classifies it from two loads a span against the rows' range, and the hull
// is that of the chunks some row may see, whole; no key's id is read (the
// rows' are, for their range).  Where each chunk's range is exact for the
// rows (ids that keep one value over runs of keys, as packed documents'
// sorted ids) the tiles are those of the exact hull when the tile is a
// multiple of the chunk, and at most one more at each end otherwise; where
// it is not (unsorted ids) the hull may be wider: more tiles classified and
// skipped, the same results.  Without it, keys
// go by chunks of plan_wave * PER a warp, a chunk's class from its values'
// range, and in a chunk some row may see (and only partly: class 1) the keys
// are tested one by one from the chunk's values in registers; the hull is
// that of the keys that pass (the test is the class of a single key over the
// rows' range: it never fails a key some row sees).  A lane's PER loads of a
// chunk are issued together, and no key is read twice (reading them again
// cost two more trips to L2 on the slowest warp, which the CTA's barrier
// waits for: bench/NOTES.md, 2026-11-28); but every chunk in range is read,
// so under a causal mask the scan grows with the row block's position (at
// 32k keys it was what grew a docmask CTA: bench/NOTES.md, twenty-fourth
// session).
__attribute__((unused)) constexpr int plan_span_chunk = 64;
template <int NT>
__device__ void plan_span_narrow(int m0, int m1, int h, const plan_params& p, const long* sum, int* n_begin,
                                 int* n_end) {
  constexpr int NW = NT / plan_wave, PER = 16, CH = plan_wave * PER;
  __shared__ int plan_span_red[NW][2];
  long rlo[plan_nspans], rhi[plan_nspans];
  plan_span_range<true>(m0, m1, h, p, rlo, rhi);
  const int nb = *n_begin, ne = *n_end;
  const int warp = (int)(threadIdx.x / plan_wave);
  int first = 2147483647, last = -1;  // this lane's lowest and highest key some row may see
  // keys [c0, c1) of a chunk: each key's test from the values of the chunk
  auto test_keys = [&](int c0, int c1) {
    long v[plan_nspans][PER], lo[plan_nspans], hi[plan_nspans];
    plan_span_load<PER>(c0, c1, h, p, v);  // key c0 + lane + w * plan_wave in v[k][w]
    plan_span_fold<PER>(v, lo, hi);
    if (plan_tile_class_spans(m0, m1, c0, c1, rlo, rhi, lo, hi, p) != 0) {
#pragma unroll
      for (int w = 0; w < PER; ++w) {
        const int j = c0 + plan_lane() + w * plan_wave;
        long vj[plan_nspans];
#pragma unroll
        for (int k = 0; k < plan_nspans; ++k) vj[k] = v[k][w];
        if (j < c1 && plan_tile_class_spans(m0, m1, j, j + 1, rlo, rhi, vj, vj, p) != 0) {
          first = j < first ? j : first;
          last = j > last ? j : last;
        }
      }
    }
  };
  if (sum) {
    constexpr int SC = plan_span_chunk;
    const int cb = nb / SC, ce = nb < ne ? (ne + SC - 1) / SC : cb;  // an empty range: no chunk
    for (int c = cb + (int)threadIdx.x; c < ce; c += NT) {
      const int c0 = c * SC > nb ? c * SC : nb, c1 = c * SC + SC < ne ? c * SC + SC : ne;
      long lo[plan_nspans], hi[plan_nspans];
#pragma unroll
      for (int k = 0; k < plan_nspans; ++k) {
        lo[k] = sum[2 * ((long)c * plan_nspans + k)];
        hi[k] = sum[2 * ((long)c * plan_nspans + k) + 1];
      }
      if (plan_tile_class_spans(m0, m1, c0, c1, rlo, rhi, lo, hi, p) != 0) {
        first = c0 < first ? c0 : first;
        last = c1 - 1 > last ? c1 - 1 : last;
      }
    }
  } else {
    for (int c0 = nb + warp * CH; c0 < ne; c0 += NW * CH) test_keys(c0, c0 + CH < ne ? c0 + CH : ne);
  }
  for (int o = plan_wave / 2; o > 0; o >>= 1) {
    const int a = plan_shfl_xor(first, o), b = plan_shfl_xor(last, o);
    first = a < first ? a : first;
    last = b > last ? b : last;
  }
  if (plan_lane() == 0) {
    plan_span_red[warp][0] = first;
    plan_span_red[warp][1] = last;
  }
  __syncthreads();
  for (int w = 0; w < NW; ++w) {
    first = plan_span_red[w][0] < first ? plan_span_red[w][0] : first;
    last = plan_span_red[w][1] > last ? plan_span_red[w][1] : last;
  }
  *n_begin = last < 0 ? 0 : first;
  *n_end = last < 0 ? 0 : last + 1;
}
]]], [[[m4_dnl
// No span atoms: the tile classes are closed forms.  The kernels call the span
// hooks only when plan_nspans > 0; these stand in for them.
__attribute__((unused)) constexpr int plan_nspans = 0;
__attribute__((unused)) constexpr bool plan_span_head_free = false;
__device__ __forceinline__ long plan_span_row(int, int, int, const plan_params&) { return 0; }
__device__ __forceinline__ long plan_span_col(int, int, int, const plan_params&) { return 0; }
template <bool ROW>
__device__ __forceinline__ void plan_span_range(int, int, int, const plan_params&, long*, long*) {}
template <int PER>
__device__ __forceinline__ void plan_span_load(int, int, int, const plan_params&, long (*)[PER]) {}
template <int PER>
__device__ __forceinline__ void plan_span_fold(const long (*)[PER], long*, long*) {}
__device__ __forceinline__ int plan_tile_class_spans(int m0, int m1, int n0, int n1, const long*, const long*,
                                                     const long*, const long*, const plan_params& p) {
  return plan_tile_class(m0, m1, n0, n1, p);
}
__attribute__((unused)) constexpr int plan_span_chunk = 64;
template <int NT>
__device__ __forceinline__ void plan_span_narrow(int, int, int, const plan_params&, const long*, int*, int*) {}
__attribute__((unused)) constexpr bool plan_spans_decide = false;
__device__ __forceinline__ bool plan_spans_known(const long*, const long*, const long*, const long*, unsigned*) {
  return false;
}
__device__ __forceinline__ bool plan_visible_known(int, int, unsigned, const plan_params&) { return false; }
__attribute__((unused)) constexpr bool plan_known_rows = false;
__device__ __forceinline__ void plan_row_keys_known(int, unsigned, const plan_params& p, int* lo, int* hi) {
  *lo = 0;
  *hi = p.N;
}
__attribute__((unused)) constexpr bool plan_sorted_rows = false;
__device__ __forceinline__ void plan_row_keys_sorted(int, int, const plan_params& p, int* lo, int* hi) {
  *lo = 0;
  *hi = p.N;
}
]]])m4_dnl

// fg_cuda_correction_origin.
// The derived factor fg_cuda_correction_plan, printed in the exp2 domain of the
// kernels (their running max m holds fg_cuda_max_held); the combine of
// the split form merges partials with the same factor.
__device__ __forceinline__ float plan_correction(float m_prev, float m_new_safe) {
  (void)m_prev; (void)m_new_safe;
  return fg_cuda_correction;
}

// The epilogue, fg_cuda_epilogue_origin:
// O = O_sum * plan_out_scale(l), l the final running sum fg_cuda_sum_name; a row that
// sees no key reads the masked-row values (docs/plan-language.md).
__device__ __forceinline__ float plan_out_scale(float l) {
  (void)l;
  return fg_cuda_out_scale;
}
// Independent chains: fg_cuda_nchains.  With more than one, the entry runs the
// kernels once per chain (p.chain) with the chain's Q, K and V, and the
// epilogue of each pass adds the chain's term, its coefficient times
// O_sum / L, to O as the previous pass left it (the first pass writes it).
constexpr int plan_nchains = fg_cuda_nchains;
__device__ __forceinline__ bool plan_chain_adds(const plan_params& p) {
  (void)p;
  return fg_cuda_chains_if([[[p.chain > 0]]], [[[false]]]);
}
__device__ __forceinline__ float plan_chain_out(float o, float prev, const plan_params& p) {
  (void)p; (void)prev;
  return fg_cuda_chains_if([[[fmaf(o, p.chain_cf, prev)]]], [[[o]]]);
}
// The values per row besides O (the log-sum-exp, the max or the sum
// themselves, any function of them): fg_cuda_nrowvals of them, value k from the
// final m (fg_cuda_max_held) and l; l == 0 in a row that sees no key.
constexpr int plan_nrowvals = fg_cuda_nrowvals;
struct plan_rowvals {
  float* p[plan_nrowvals > 0 ? plan_nrowvals : 1];  // null: not asked for
};
__device__ __forceinline__ float plan_rowval(int k, float m, float l) {
  (void)k; (void)m; (void)l;
fg_cuda_rowvals_value[[[]]]m4_dnl
}
// Whether any value per row is asked for (the kernels test it first).
__device__ __forceinline__ bool plan_rowvals_any(const plan_rowvals& r) {
  (void)r;
  return fg_cuda_rowvals_any;
}
// Each value asked for, at element row() of its tensor, where
// plan_rowvals_any holds (with one value, that is its test).
template <typename I>
__device__ __forceinline__ void plan_rowvals_store(const plan_rowvals& r, float m, float l, I row) {
#pragma unroll
  for (int k = 0; k < plan_nrowvals; ++k)
    if (plan_nrowvals == 1 || r.p[k] != nullptr) r.p[k][row()] = plan_rowval(k, m, l);
}
// ============================= PLAN HOOKS END =============================
