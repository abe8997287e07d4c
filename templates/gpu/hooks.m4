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
// Loads of the extra inputs the score and the mask read (dtype as given).
__device__ __forceinline__ float plan_half_bits(unsigned short x) {
  const unsigned s = (x & 0x8000u) << 16, e = (x >> 10) & 0x1fu, m = x & 0x3ffu;
  if (e == 0x1fu) return __uint_as_float(s | 0x7f800000u | (m << 13));
  if (e == 0) return __uint_as_float(s) + (s ? -1.f : 1.f) * (float)m * 5.9604644775390625e-8f;
  return __uint_as_float(s | ((e + 112u) << 23) | (m << 13));
}
__device__ __forceinline__ float plan_aux_float(const void* base, int dt, long long i) {
  if (dt == FG_F32) return static_cast<const float*>(base)[i];
  const unsigned short x = static_cast<const unsigned short*>(base)[i];
  return dt == FG_BF16 ? __uint_as_float((unsigned)x << 16) : plan_half_bits(x);
}
__device__ __forceinline__ int plan_aux_i32(const void* base, long long i) {
  return static_cast<const int*>(base)[i];
}
fg_cuda_aux_fns[[[]]]m4_dnl
]]])m4_dnl

// CTA order: 0 = row blocks fastest; 1 = heaviest row block first (masked plans).
constexpr int plan_schedule = fg_cuda_schedule;
// The score is qk times a constant > 0 (checked on the host): the kernel takes
// the row max on raw qk and folds the constant into one FFMA per element.
constexpr bool plan_score_is_scaled_qk = fg_cuda_fold_if([[[true]]], [[[false]]]);
__device__ __forceinline__ float plan_score_scale(const plan_params& p) {
  (void)p;
  return fg_cuda_fold_scale;
}

__device__ __forceinline__ void plan_head_setup(plan_params& p, int b, int h) {
fg_cuda_head_setup[[[]]]m4_dnl
}

// The score in the exp2 domain (times log2(e)), from the plan's statements
fg_cuda_score_chain[[[]]]m4_dnl
// with qk = the contraction (plan line fg_cuda_plan_line_S), i, j, h = the row, key and head.
__device__ __forceinline__ float plan_score(float qk, int i, int j, int h, const plan_params& p) {
  (void)i; (void)j; (void)h; (void)p;
fg_cuda_aux_clamp_score[[[]]]m4_dnl
  return fg_cuda_score;
}

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

// fg_cuda_correction_origin.
// The derived factor fg_cuda_correction_plan, printed in the exp2 domain of the
// kernels (their running max m holds fg_cuda_max_name * log2(e)); the combine of
// the split form merges partials with the same factor.
__device__ __forceinline__ float plan_correction(float m_prev, float m_new_safe) {
  return fg_cuda_correction;
}

// The epilogue, fg_cuda_epilogue_origin:
// O = O_sum * plan_out_scale(l), l the final running sum fg_cuda_sum_name; a row that
// sees no key reads the masked-row values (docs/plan-language.md).
__device__ __forceinline__ float plan_out_scale(float l) {
  return fg_cuda_out_scale;
}
// The log-sum-exp output from the final m (fg_cuda_max_name * log2(e)) and l.
__device__ __forceinline__ float plan_lse(float m, float l) {
  (void)m; (void)l;
  return fg_cuda_lse_value;
}
// ============================= PLAN HOOKS END =============================
