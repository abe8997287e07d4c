// hip/cdna/rolling.hpp - the hand-written skeleton of the CDNA attention
// family, part 2 of 3: the rolling-form kernel (FlashAttention-2: one
// workgroup walks the key tiles of its query rows), fa_attn_fwd_kernel<T,
// fa_cfg<...>>, filled by the plan hooks before it (design notes in
// hip/cdna/common.hpp).  Every plan includes it.

struct fa_args {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  plan_rowvals rowvals;  // the values per row beside O (pointers may be null)
  int64_t q_sb, q_sh, q_sm;
  int64_t k_sb, k_sh, k_sn;
  int64_t v_sb, v_sh, v_sn;
  int64_t o_sb, o_sh, o_sm;
  int B, Hq, Hkv, M, N;
  int mblocks;  // row blocks (the grid's extent in them)
  plan_params p;
};

// Independent chains (plan_nchains > 1): the entry runs the kernel once per
// chain (plan_run, gpu/chains.m4), and the epilogue stores each element as
// the chain's term plus what the previous passes left in O (plan_chain_out).

// Tile configuration (the parameters of the sm_80 family's fa_cfg, so that one
// table of variants serves both).
//   D: head dim; BM: query rows per workgroup, 32 per wavefront (one 32x32x8
//   MFMA column block); BN: keys per tile (32-key MFMA row blocks); NW:
//   wavefronts; STAGES: LDS buffers of K/V (2: the next tile is loaded while
//   this one is computed, one barrier per tile); QREG: Q in registers (always).
template <int D_, int BM_, int BN_, int NW_, int STAGES_, bool QREG_>
struct fa_cfg {
  static constexpr int D = D_, BM = BM_, BN = BN_, NW = NW_, STAGES = STAGES_;
  static constexpr int NT = NW * 64;
  static constexpr int KSIZE = ck_lds_k_size(BN, D), SLOT = KSIZE + ck_lds_vt_size(BN, D);
  static_assert(BM == 32 * NW, "one 32-row MFMA block per wavefront");
  static_assert(D % 32 == 0 && BN % 32 == 0, "32-wide MFMA blocks");
  static_assert(STAGES == 1 || STAGES == 2, "one or two LDS buffers");
  static_assert(QREG_, "Q is kept in registers");
  static_assert(STAGES * SLOT * 2 <= 65536, "LDS of a workgroup");
  template <typename T>
  static constexpr size_t smem_bytes() { return (size_t)STAGES * SLOT * 2; }
};

// Workgroup -> (row block, head, batch): the grid of plan_grid.
__device__ __forceinline__ void fa_cta_coords(const fa_args& a, int* mblk, int* h, int* b) {
  const int x = (int)__builtin_amdgcn_workgroup_id_x(), y = (int)__builtin_amdgcn_workgroup_id_y();
  const int z = (int)__builtin_amdgcn_workgroup_id_z();
  if constexpr (plan_schedule == 1) {
    *h = x;                    // heads fastest,
    *b = y;                    // then batches,
    *mblk = a.mblocks - 1 - z;  // heaviest row blocks first
  } else {
    *mblk = x;
    *h = y;
    *b = z;
  }
}

template <typename T, class C>
__global__ void __launch_bounds__(C::NT) fa_attn_fwd_kernel(fa_args a) {
  constexpr int D = C::D, BM = C::BM, BN = C::BN, NT = C::NT, STAGES = C::STAGES;
  constexpr int NKB = BN / 32;  // 32-key blocks of S^T per tile
  constexpr int NDB = D / 32;   // 32-dim blocks of O^T
  constexpr int QS = D / 8;     // k steps of S^T = K Q^T
  __shared__ uint16_t lds[STAGES * C::SLOT];

  const int tid = ck_tid(), lane = tid & 63, wave = tid >> 6;
  int mblk, h, b;
  fa_cta_coords(a, &mblk, &h, &b);
  const int hkv = h / (a.Hq / a.Hkv);
  const int M = a.M, N = a.N;
  const int m0 = mblk * BM;
  const int m1 = min(m0 + BM, M);
  plan_params p = a.p;
  plan_head_setup(p, b, h);

  int nbeg, nend;
  plan_key_range(m0, m1, p, &nbeg, &nend);
  nbeg = max(nbeg, 0);
  nend = min(nend, N);
  const int t_lo = nbeg / BN;
  const int t_hi = nend > nbeg ? (nend + BN - 1) / BN : t_lo;

  const uint16_t* kg = reinterpret_cast<const uint16_t*>(a.k) + b * a.k_sb + hkv * a.k_sh;
  const uint16_t* vg = reinterpret_cast<const uint16_t*>(a.v) + b * a.v_sb + hkv * a.v_sh;
  auto load_kv = [&](int t, int slot) {
    uint16_t* sk = lds + slot * C::SLOT;
    ck_load_kv<D, BN>(sk, sk + C::KSIZE, kg, vg, a.k_sn, a.v_sn, t * BN, N, tid, NT);
  };
  if (t_lo < t_hi) load_kv(t_lo, 0);

  // Q as B operands of S^T = K Q^T: this lane's query row, 4 dims per k step.
  const int wrow = m0 + wave * 32;
  const int qi = wrow + ck_op_row(lane, 32);
  typename T::op qf[QS];
  {
    const uint16_t* qg = reinterpret_cast<const uint16_t*>(a.q) + b * a.q_sb + h * a.q_sh + (int64_t)qi * a.q_sm;
#pragma unroll
    for (int s = 0; s < QS; ++s) qf[s] = qi < M ? ck_load_op<T>(qg + s * 8 + ck_op_k(lane, 0, 32)) : ck_zero_op<T>();
  }

  // Running state of this lane's query row (both half-waves keep the same m).
  ck_f16 o[NDB];
#pragma unroll
  for (int db = 0; db < NDB; ++db)
#pragma unroll
    for (int r = 0; r < 16; ++r) o[db][r] = 0.f;
  float mrow = -INFINITY, lrow = 0.f;
  const int i = wrow + ck_acc_col(lane, 32);  // the query row of this lane's accumulator column

  // S^T = K Q^T for the K tile at sk.
  auto qk = [&](ck_f16* s, const uint16_t* sk) {
#pragma unroll
    for (int kb = 0; kb < NKB; ++kb) {
#pragma unroll
      for (int r = 0; r < 16; ++r) s[kb][r] = 0.f;
      const uint16_t* kr = sk + ck_lds_k(kb * 32 + ck_op_row(lane, 32), ck_op_k(lane, 0, 32), D);
#pragma unroll
      for (int st = 0; st < QS; ++st) s[kb] = T::mfma(s[kb], ck_load_op<T>(kr + st * 8), qf[st]);
    }
  };

  // Score and mask hooks, online softmax, O^T += V^T P^T for the tile at keys n0.
  auto softpv = [&](auto masked_tag, ck_f16* s, const uint16_t* svt, int n0) {
    constexpr bool MASKED = decltype(masked_tag)::value;
    // FOLD: the score is plan_score_inner times plan_score_scale(p) > 0: the
    // row max is taken on the inner part and the constant folded into the
    // exp2 argument.
    constexpr bool FOLD = plan_score_folds;
    const float sc = FOLD ? plan_score_scale(p) : 1.f;
    float tm = -INFINITY;
    // with an interval of keys per row (plan_mask_rows), the lane's row's
    // bounds: a key's test is one or two compares, in place of plan_visible
    int klo = 0, khi = 0;
    if constexpr (MASKED && plan_mask_rows) plan_row_keys(i, p, &klo, &khi);
#pragma unroll
    for (int kb = 0; kb < NKB; ++kb)
#pragma unroll
      for (int r = 0; r < 16; ++r) {
        const int j = n0 + kb * 32 + ck_acc_row(lane, r, 32);
        float x = FOLD ? plan_score_inner(s[kb][r], i, j, h, p) : plan_score(s[kb][r], i, j, h, p);
        // no softmax chain: the key's weight (with values read at the key,
        // plan_nkeyvals, in a second pass below)
        if constexpr (!plan_softmax && plan_nkeyvals == 0) x = plan_weight(x, i, j, h, p);
        if constexpr (MASKED) {
          const bool vis = plan_mask_rows ? (plan_mask_rows_from0 || j >= klo) && j < khi
                                          : j < N && plan_visible(i, j, p);
          if (!vis) x = plan_softmax || plan_nkeyvals > 0 ? -INFINITY : 0.f;
        }
        s[kb][r] = x;
        tm = ck_max(tm, x);
      }
    // A weight that reads values at the key (a per-key gate) is applied in a
    // pass of its own, two keys at a time: with the loads in the pass above,
    // the 256-column kernel spilled on gfx942.  A masked key (its score -inf
    // here) weighs 0.
    if constexpr (!plan_softmax && plan_nkeyvals > 0) {
#pragma unroll
      for (int kb = 0; kb < NKB; ++kb)
#pragma unroll 2
        for (int r = 0; r < 16; ++r) {
          const int j = n0 + kb * 32 + ck_acc_row(lane, r, 32);
          float kv[plan_nkeyvals > 0 ? plan_nkeyvals : 1];
          plan_key_values(j, p, kv);
          const float x = s[kb][r];
          s[kb][r] = x == -INFINITY ? 0.f : plan_weight_kv(x, i, j, h, kv, p);
        }
    }
    // the online softmax; without a softmax chain s holds the weights (P) and O
    // takes no correction
    if constexpr (plan_softmax) {
      // the other half-wave holds the other keys of this row
#pragma unroll
      for (int st = 0; st < ck_reduce_steps(32); ++st) tm = ck_max(tm, plan_shfl_xor(tm, ck_reduce_xor(st, 32)));
      const float mx = ck_max(mrow, FOLD ? tm * sc : tm);
      const float msafe = (mx == -INFINITY) ? 0.f : mx;
      const float corr = plan_correction(mrow, msafe);
      mrow = mx;
      float sum = 0.f;
#pragma unroll
      for (int kb = 0; kb < NKB; ++kb)
#pragma unroll
        for (int r = 0; r < 16; ++r) {
          const float pv = fa_ex2(FOLD ? __builtin_fmaf(s[kb][r], sc, -msafe) : s[kb][r] - msafe);
          s[kb][r] = pv;
          sum += pv;
        }
      lrow = lrow * corr + sum;  // lane-partial; the half-waves are summed at the end
#pragma unroll
      for (int db = 0; db < NDB; ++db) o[db] *= corr;
    }
    // P^T accumulator registers 4ks..4ks+3 are the B operand of k step ks.
#pragma unroll
    for (int kb = 0; kb < NKB; ++kb)
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        const typename T::op pb = T::pack(s[kb][4 * ks], s[kb][4 * ks + 1], s[kb][4 * ks + 2], s[kb][4 * ks + 3]);
        const int key = kb * 32 + ks * 8 + ck_op_k(lane, 0, 32);
#pragma unroll
        for (int db = 0; db < NDB; ++db)
          o[db] = T::mfma(o[db], ck_load_op<T>(svt + ck_lds_vt(key, db * 32 + ck_op_row(lane, 32), BN)), pb);
      }
  };

  ck_barrier();
  for (int t = t_lo; t < t_hi; ++t) {
    const int it = t - t_lo;
    if (STAGES == 2 && t + 1 < t_hi) load_kv(t + 1, (it + 1) & 1);  // its readers passed the last barrier
    const uint16_t* sk = lds + (STAGES == 2 ? (it & 1) : 0) * C::SLOT;
    const int n0 = t * BN;
    int cls = plan_tile_class(m0, m1, n0, min(n0 + BN, N), p);
    if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
    if (cls != 0) {
      ck_f16 s[NKB];
      qk(s, sk);
      if (cls == 2)
        softpv(fa_bool<false>{}, s, sk + C::KSIZE, n0);
      else
        softpv(fa_bool<true>{}, s, sk + C::KSIZE, n0);
    }
    ck_barrier();
    if (STAGES == 1 && t + 1 < t_hi) {
      load_kv(t + 1, 0);
      ck_barrier();
    }
  }

  // Epilogue: O / l and LSE; each lane writes 4 consecutive dims at a time.
  float l = lrow;
#pragma unroll
  for (int st = 0; st < ck_reduce_steps(32); ++st) l += plan_shfl_xor(l, ck_reduce_xor(st, 32));
  if (i < M) {
    const float inv = plan_out_scale(l);
    uint16_t* og = reinterpret_cast<uint16_t*>(a.o) + b * a.o_sb + h * a.o_sh + (int64_t)i * a.o_sm;
#pragma unroll
    for (int db = 0; db < NDB; ++db)
#pragma unroll
      for (int g = 0; g < 4; ++g) {
        uint16_t* at = og + db * 32 + ck_acc_row(lane, 4 * g, 32);
        float y[4] = {o[db][4 * g] * inv, o[db][4 * g + 1] * inv, o[db][4 * g + 2] * inv, o[db][4 * g + 3] * inv};
        if constexpr (plan_nchains > 1) {
          float x[4] = {0.f, 0.f, 0.f, 0.f};
          if (plan_chain_adds(p)) ck_load4<T>(at, x);
#pragma unroll
          for (int e = 0; e < 4; ++e) y[e] = plan_chain_out(y[e], x[e], p);
        }
        ck_store4<T>(at, y[0], y[1], y[2], y[3]);
      }
    if (plan_rowvals_any(a.rowvals) && lane < 32)
      plan_rowvals_store(a.rowvals, mrow, l, [&] { return ((int64_t)b * a.Hq + h) * M + i; });
  }
}
