// sm80/rolling.cuh - the hand-written skeleton of the sm_80 attention family,
// part 2 of 3: the rolling-form kernel (FlashAttention-2: one CTA walks the key
// tiles of its query rows), fa_attn_fwd_kernel<T, fa_cfg<...>>, filled by the
// plan hooks that cuda/attention.m4 places before it (design notes in
// sm80/common.cuh).  Every plan includes it: the split form uses its primitives.


// ----------------------------------------------------------------------------
// Kernel arguments
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
  plan_params p;
};

// ---------------------------------------------------------------- primitives
__device__ __forceinline__ uint32_t fa_smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void fa_cp_async16(uint32_t dst, const void* src, bool valid) {
  const int n = valid ? 16 : 0;  // src-size 0: zero fill, nothing read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
}
// Opaque copy of a value, re-evaluated where it stands: stops the compiler from
// hoisting (base + constant) address pairs out of the key loop, which would keep one
// register per ldmatrix / cp.async address alive across the whole loop.
__device__ __forceinline__ uint32_t fa_opaque(uint32_t x) {
  uint32_t r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}
__device__ __forceinline__ void fa_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void fa_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fa_ldsm_x4(uint32_t* r, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void fa_ldsm_x4_t(uint32_t* r, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

template <bool B>
struct fa_bool {
  static constexpr bool value = B;
};

template <typename T>
struct fa_type;
template <>
struct fa_type<__nv_bfloat16> {
  static constexpr bool F32_RANGE = true;  // float's exponent range
  static __device__ __forceinline__ void mma(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
  }
  static __device__ __forceinline__ void unpack(uint32_t x, float* lo, float* hi) {
    *lo = __uint_as_float(x << 16);
    *hi = __uint_as_float(x & 0xffff0000u);
  }
};
template <>
struct fa_type<__half> {
  static constexpr bool F32_RANGE = false;  // 2^-24 .. 65504
  static __device__ __forceinline__ void mma(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
  }
  static __device__ __forceinline__ void unpack(uint32_t x, float* lo, float* hi) {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&x));
    *lo = f.x;
    *hi = f.y;
  }
};

// Independent chains (plan_nchains > 1): o, the row's D / 8 column pairs of
// this thread (row i, columns 8 db + 2 tq and the next), becomes the chain's
// term plus what the previous passes left in O (plan_chain_out).
template <typename T, int DB, typename F>
__device__ __forceinline__ void fa_chain_out(F&& o, const T* orow, bool adds, int tq, int D, const plan_params& p) {
#pragma unroll
  for (int db = 0; db < DB; ++db) {
    float x0 = 0.f, x1 = 0.f;
    const int col = db * 8 + 2 * tq;
    if (adds && col < D) fa_type<T>::unpack(*reinterpret_cast<const uint32_t*>(orow + col), &x0, &x1);
    o(db, 0) = plan_chain_out(o(db, 0), x0, p);
    o(db, 1) = plan_chain_out(o(db, 1), x1, p);
  }
}

// Tile configuration.
//   D: head dim; BM: query rows per CTA; BN: keys per tile; NW: warps (each owns
//   BM/NW consecutive query rows = MT m16 tiles); STAGES: K/V ring depth (>= 2);
//   QREG: keep Q fragments in registers (else re-read from smem by ldmatrix);
//   MINB: min CTAs per SM for __launch_bounds__; SKIP_RESCALE: see below.
template <int D_, int BM_, int BN_, int NW_, int STAGES_, bool QREG_, int MINB_ = 1, bool SKIP_RESCALE_ = false,
          bool FOLD_ = true>
struct fa_cfg {
  static constexpr int D = D_, BM = BM_, BN = BN_, NW = NW_, STAGES = STAGES_, MINB = MINB_;
  static constexpr bool QREG = QREG_;
  static constexpr int NT = NW * 32;
  static constexpr int MT = BM / (16 * NW);
  static constexpr int SROW = D + 8;  // padded smem row (elements): +16 B kills ldmatrix conflicts
  static constexpr int CH = D / 8;    // 16-byte chunks per row
  static constexpr int QK_UNROLL = D / 16;  // unroll of the Q.K^T k-loop when Q is read from smem
  // Skip the O rescale of a tile when no row of the warp changed its running max
  // (warp vote; exact: the skipped factor is exactly 1).
  static constexpr bool SKIP_RESCALE = SKIP_RESCALE_;
  static constexpr bool FOLD = FOLD_;  // use plan_score_folds when the plan sets it
  static_assert(MT * 16 * NW == BM, "BM must be a multiple of 16*NW");
  static_assert(D % 32 == 0 && BN % 16 == 0 && STAGES >= 2, "bad tile");
  template <typename T>
  static constexpr size_t smem_bytes() {
    return (size_t)(BM + 2 * STAGES * BN) * SROW * sizeof(T);
  }
};

// CTA -> (row block, head, batch) straight from blockIdx (no division: ptxas can
// re-read blockIdx instead of keeping these live); the grid of plan_grid.
__device__ __forceinline__ void fa_cta_coords(int* mblk, int* h, int* b) {
  if constexpr (plan_schedule == 1) {
    *h = blockIdx.x;                     // heads fastest,
    *b = blockIdx.y;                     // then batches,
    *mblk = gridDim.z - 1 - blockIdx.z;  // heaviest row blocks first
  } else {
    *mblk = blockIdx.x;
    *h = blockIdx.y;
    *b = blockIdx.z;
  }
}

// The rows' ranges of the span atoms' values (K lows, then K highs), one
// copy per CTA: instantiated only for plans with span atoms.
template <int K>
__device__ __forceinline__ long* fa_span_rows() {
  __shared__ long rows[2 * K];
  return rows;
}

template <typename T, class C>
__global__ void __launch_bounds__(C::NT, C::MINB) fa_attn_fwd_kernel(const __grid_constant__ fa_args a) {
  constexpr int D = C::D, BM = C::BM, BN = C::BN, NT = C::NT, MT = C::MT, SROW = C::SROW, CH = C::CH;
  constexpr int STAGES = C::STAGES;
  constexpr int NB = BN / 8;  // n8 blocks of S per row strip
  constexpr int DB = D / 8;   // n8 blocks of O
  using TT = fa_type<T>;

  extern __shared__ __align__(128) unsigned char fa_smem[];
  T* sQ = reinterpret_cast<T*>(fa_smem);
  T* sK = sQ + BM * SROW;
  T* sV = sK + STAGES * BN * SROW;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, tq = lane & 3;
  int mblk, h, b;
  fa_cta_coords(&mblk, &h, &b);
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
  // span atoms: the keys some row may see, and the rows' ranges of values
  // (kept in shared memory: registers are this kernel's bound; the main
  // loop's first barrier publishes them)
  if constexpr (plan_nspans > 0) {
    plan_span_narrow<NT>(m0, m1, h, p, nullptr, &nbeg, &nend);  // the whole CTA, every chunk read
    long rlo[plan_nspans], rhi[plan_nspans];
    plan_span_range<true>(m0, m1, h, p, rlo, rhi);
    if (threadIdx.x == 0)
      for (int k = 0; k < plan_nspans; ++k) {
        fa_span_rows<plan_nspans>()[k] = rlo[k];
        fa_span_rows<plan_nspans>()[plan_nspans + k] = rhi[k];
      }
  }
  const int t_lo = nbeg / BN;
  const int t_hi = nend > nbeg ? (nend + BN - 1) / BN : t_lo;

  // ---- Q tile -> smem (zero-filled past M)
  {
    const T* qg = reinterpret_cast<const T*>(a.q) + b * a.q_sb + h * a.q_sh;
#pragma unroll
    for (int c0 = 0; c0 < BM * CH; c0 += NT) {
      const int c = c0 + tid;
      if ((BM * CH) % NT == 0 || c < BM * CH) {
        const int r = c / CH, cc = c % CH;
        const bool ok = m0 + r < M;
        const T* src = ok ? qg + (int64_t)(m0 + r) * a.q_sm + cc * 8 : qg;
        fa_cp_async16(fa_smem_u32(sQ + r * SROW + cc * 8), src, ok);
      }
    }
    fa_cp_async_commit();
  }

  // ---- K/V tile loader
  const T* kg = reinterpret_cast<const T*>(a.k) + b * a.k_sb + hkv * a.k_sh;
  const T* vg = reinterpret_cast<const T*>(a.v) + b * a.v_sb + hkv * a.v_sh;
  const int64_t ksn = a.k_sn, vsn = a.v_sn;
  const uint32_t sK_u32 = fa_smem_u32(sK), sV_u32 = fa_smem_u32(sV);
  // Per-thread constant part of the K/V chunk addresses: chunk c = tid + i*NT.
  // When NT is a multiple of CH every chunk of this thread has the same column and
  // rows tid/CH + i*(NT/CH), so one pointer per matrix plus a row step suffices.
  constexpr bool KV_REGULAR = (NT % CH) == 0 && (BN * CH) % NT == 0;
  const int kv_r0 = KV_REGULAR ? tid / CH : 0;
  const int kv_c0 = KV_REGULAR ? tid % CH : 0;
  auto load_kv = [&](int t, int slot, bool do_k, bool do_v) {
    const int n0 = t * BN;
    const uint32_t kslot = fa_opaque(sK_u32 + slot * (BN * SROW * (int)sizeof(T)));
    const uint32_t vslot = fa_opaque(sV_u32 + slot * (BN * SROW * (int)sizeof(T)));
    if constexpr (KV_REGULAR) {
      // tile base pointers are CTA-uniform; per-chunk offsets fit in 32 bits
      // (the launcher checks BN * stride < 2^31)
      constexpr int RSTEP = NT / CH;
      const T* kt = kg + (int64_t)n0 * ksn;
      const T* vt = vg + (int64_t)n0 * vsn;
      const uint32_t so = (kv_r0 * SROW + kv_c0 * 8) * (int)sizeof(T);
#pragma unroll
      for (int i = 0; i < BN / RSTEP; ++i) {
        const int r = kv_r0 + i * RSTEP;
        const bool ok = n0 + r < N;
        const int ko = r * (int)ksn + kv_c0 * 8, vo = r * (int)vsn + kv_c0 * 8;
        if (do_k) fa_cp_async16(kslot + so + i * RSTEP * SROW * (int)sizeof(T), kt + (ok ? ko : 0), ok);
        if (do_v) fa_cp_async16(vslot + so + i * RSTEP * SROW * (int)sizeof(T), vt + (ok ? vo : 0), ok);
      }
    } else {
#pragma unroll
      for (int c0 = 0; c0 < BN * CH; c0 += NT) {
        const int c = c0 + tid;
        if ((BN * CH) % NT == 0 || c < BN * CH) {
          const int r = c / CH, cc = c % CH;
          const int j = n0 + r;
          const bool ok = j < N;
          const uint32_t so = (r * SROW + cc * 8) * (int)sizeof(T);
          if (do_k) fa_cp_async16(kslot + so, ok ? kg + (int64_t)j * ksn + cc * 8 : kg, ok);
          if (do_v) fa_cp_async16(vslot + so, ok ? vg + (int64_t)j * vsn + cc * 8 : vg, ok);
        }
      }
    }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (t_lo + s < t_hi) load_kv(t_lo + s, s, true, true);
    fa_cp_async_commit();
  }

  // per-lane ldmatrix byte offsets (within a tile)
  const int wrow = warp * 16 * MT;  // first query row of this warp within the tile
  const uint32_t sQ_u32 = fa_smem_u32(sQ);
  const uint32_t q_off =
      sQ_u32 + ((wrow + (lane & 7) + ((lane >> 3) & 1) * 8) * SROW + (lane >> 4) * 8) * (int)sizeof(T);
  const uint32_t k_off = ((((lane & 7) + (lane >> 4) * 8) * SROW) + ((lane >> 3) & 1) * 8) * (int)sizeof(T);
  const uint32_t v_off = ((((lane & 7) + ((lane >> 3) & 1) * 8) * SROW) + (lane >> 4) * 8) * (int)sizeof(T);

  fa_cp_async_wait<STAGES - 1>();  // Q landed
  __syncthreads();

  uint32_t qf[C::QREG ? MT : 1][C::QREG ? D / 16 : 1][4];
  if constexpr (C::QREG) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        fa_ldsm_x4(qf[mt][kk], q_off + (mt * 16 * SROW + kk * 16) * (int)sizeof(T));
  }

  float o[MT][DB][4];
  float mrow[MT][2], lrow[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int db = 0; db < DB; ++db)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][db][e] = 0.f;
    mrow[mt][0] = mrow[mt][1] = -INFINITY;
    lrow[mt][0] = lrow[mt][1] = 0.f;
  }

  // ---- one K/V tile: S = Q K^T, score/mask hooks, online softmax, O += P V
  using Sacc = float[MT][NB][4];
  // S = Q K^T for the K tile in ring slot kslot
  auto qk = [&](Sacc& s, int kslot) {
    const uint32_t kb = fa_opaque(sK_u32 + kslot * (BN * SROW * (int)sizeof(T)) + k_off);
    const uint32_t qb = fa_opaque(q_off);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nb][e] = 0.f;

#pragma unroll(C::QREG ? D / 16 : C::QK_UNROLL)
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t af[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (C::QREG) {
#pragma unroll
          for (int e = 0; e < 4; ++e) af[mt][e] = qf[C::QREG ? mt : 0][C::QREG ? kk : 0][e];
        } else {
          fa_ldsm_x4(af[mt], qb + (mt * 16 * SROW + kk * 16) * (int)sizeof(T));
        }
      }
#pragma unroll
      for (int jp = 0; jp < NB / 2; ++jp) {
        uint32_t bf[4];
        fa_ldsm_x4(bf, kb + (jp * 16 * SROW + kk * 16) * (int)sizeof(T));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          TT::mma(s[mt][2 * jp], af[mt], bf[0], bf[1]);
          TT::mma(s[mt][2 * jp + 1], af[mt], bf[2], bf[3]);
        }
      }
    }

  };

  // score/mask hooks, online softmax and O += P V for the V tile in ring slot vslot
  auto softpv = [&](auto masked_tag, Sacc& s, int vslot, int n0) {
    constexpr bool MASKED = decltype(masked_tag)::value;
    const uint32_t vb = fa_opaque(sV_u32 + vslot * (BN * SROW * (int)sizeof(T)) + v_off);
    // FOLD: the plan declares plan_score(qk) == plan_score_inner(qk) *
    // plan_score_scale(p) with a positive constant; the row max is then taken on
    // the inner part and the constant is folded into the exp2 argument (one FFMA
    // per element instead of FMUL + FADD).
    constexpr bool FOLD = C::FOLD && plan_score_folds;
    const float sc = FOLD ? plan_score_scale(p) : 1.f;
    // score hook (+ mask hook on partial tiles).  Row/column bases are made opaque
    // per tile so that (row, column) constant pairs are not hoisted out of the loop.
    const int ibase = (int)fa_opaque((uint32_t)(m0 + wrow + g));
    const int jbase = (int)fa_opaque((uint32_t)(n0 + 2 * tq));
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int i = ibase + mt * 16 + (e >> 1) * 8;
          const int j = jbase + nb * 8 + (e & 1);
          float x = FOLD ? plan_score_inner(s[mt][nb][e], i, j, h, p) : plan_score(s[mt][nb][e], i, j, h, p);
          if constexpr (!plan_softmax) x = plan_weight(x, i, j, h, p);  // no softmax chain: the key's weight
          // (plan_row_keys, the row's interval of keys that the sm_90a
          // skeleton tests instead, is not used here: ptxas spilled more with
          // its bounds live in these kernels, bench/NOTES.md)
          if constexpr (MASKED) {
            if (!(j < N && plan_visible(i, j, p))) x = plan_softmax ? -INFINITY : 0.f;
          }
          s[mt][nb][e] = x;
        }

    // online softmax (exp2 domain); row sums stay thread-partial until the end;
    // without a softmax chain s holds the weights (P) and O takes no correction
    if constexpr (plan_softmax) {
      float cr[MT][2];
      bool changed = false;
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int hr = 0; hr < 2; ++hr) {
          float tm = fmaxf(s[mt][0][2 * hr], s[mt][0][2 * hr + 1]);
#pragma unroll
          for (int nb = 1; nb < NB; ++nb) tm = fmaxf(tm, fmaxf(s[mt][nb][2 * hr], s[mt][nb][2 * hr + 1]));
          tm = fmaxf(tm, __shfl_xor_sync(0xffffffffu, tm, 1));
          tm = fmaxf(tm, __shfl_xor_sync(0xffffffffu, tm, 2));
          const float mx = fmaxf(mrow[mt][hr], FOLD ? tm * sc : tm);
          const float msafe = (mx == -INFINITY) ? 0.f : mx;
          const float mprev = mrow[mt][hr];
          const float corr = plan_correction(mprev, msafe);
          mrow[mt][hr] = mx;
          float sum = 0.f;
#pragma unroll
          for (int nb = 0; nb < NB; ++nb) {
            const float p0 = fa_ex2(FOLD ? fmaf(s[mt][nb][2 * hr], sc, -msafe) : s[mt][nb][2 * hr] - msafe);
            const float p1 = fa_ex2(FOLD ? fmaf(s[mt][nb][2 * hr + 1], sc, -msafe) : s[mt][nb][2 * hr + 1] - msafe);
            s[mt][nb][2 * hr] = p0;
            s[mt][nb][2 * hr + 1] = p1;
            sum += p0 + p1;
          }
          lrow[mt][hr] = lrow[mt][hr] * corr + sum;
          if constexpr (C::SKIP_RESCALE) {
            cr[mt][hr] = corr;
            changed |= (mx != mprev);
          } else {
#pragma unroll
            for (int db = 0; db < DB; ++db) {
              o[mt][db][2 * hr] *= corr;
              o[mt][db][2 * hr + 1] *= corr;
            }
          }
        }
      if constexpr (C::SKIP_RESCALE) {
        if (__any_sync(0xffffffffu, changed)) {
#pragma unroll
          for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int db = 0; db < DB; ++db)
#pragma unroll
              for (int e = 0; e < 4; ++e) o[mt][db][e] *= cr[mt][e >> 1];
        }
      }
    }

    // O += P V  (P re-packed in registers as A fragments)
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      uint32_t pa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        pa[mt][0] = TT::pack(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        pa[mt][1] = TT::pack(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        pa[mt][2] = TT::pack(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        pa[mt][3] = TT::pack(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int dp = 0; dp < DB / 2; ++dp) {
        uint32_t vf[4];
        fa_ldsm_x4_t(vf, vb + (kk * 16 * SROW + dp * 16) * (int)sizeof(T));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          TT::mma(o[mt][2 * dp], pa[mt], vf[0], vf[1]);
          TT::mma(o[mt][2 * dp + 1], pa[mt], vf[2], vf[3]);
        }
      }
    }
  };

  // With span atoms, the class of tile t from the ranges of their values,
  // taken before Q K_t^T while S holds nothing (registers are this kernel's
  // bound); every warp gets the same ranges.
  auto span_class = [&](int t) {
    int cls = 1;
    if constexpr (plan_nspans > 0) {
      const int n0 = t * BN;
      const int n1 = min(n0 + BN, N);
      long clo[plan_nspans], chi[plan_nspans];
      plan_span_range<false>(n0, n1, h, p, clo, chi);
      const long* rs = fa_span_rows<plan_nspans>();
      cls = plan_tile_class_spans(m0, m1, n0, n1, rs, rs + plan_nspans, clo, chi, p);
    }
    return cls;
  };
  // softmax + PV of tile t (S holds Q K_t^T); cls_spans: span_class(t)
  auto tile_step = [&](Sacc& S, int t, int vslot, int cls_spans) {
    const int n0 = t * BN;
    const int n1 = min(n0 + BN, N);
    int cls = plan_tile_class(m0, m1, n0, n1, p);
    if constexpr (plan_nspans > 0) cls = cls_spans;
    if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
    if (cls == 2)
      softpv(fa_bool<false>{}, S, vslot, n0);
    else if (cls == 1)
      softpv(fa_bool<true>{}, S, vslot, n0);
  };

  // ---- main loop over visible key tiles: K/V ring of STAGES slots, one barrier per tile
  for (int t = t_lo; t < t_hi; ++t) {
    const int it = t - t_lo;
    fa_cp_async_wait<STAGES - 2>();  // tile t landed
    __syncthreads();                 // ... for all threads; slot (it-1)%STAGES is free
    {
      const int tn = t + STAGES - 1;
      if (tn < t_hi) load_kv(tn, (it + STAGES - 1) % STAGES, true, true);
      fa_cp_async_commit();
    }
    const int slot = it % STAGES;
    int cls_spans = 0;
    if constexpr (plan_nspans > 0) cls_spans = span_class(t);
    Sacc S;
    qk(S, slot);
    tile_step(S, t, slot, cls_spans);
  }
  fa_cp_async_wait<0>();

  // ---- epilogue: O / l, the values per row; stage O through this warp's own Q rows in smem
  const plan_rowvals rowvals = a.rowvals;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      float l = lrow[mt][hr];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = plan_out_scale(l);
#pragma unroll
      for (int db = 0; db < DB; ++db) {
        o[mt][db][2 * hr] *= inv;
        o[mt][db][2 * hr + 1] *= inv;
      }
      const int i = m0 + wrow + mt * 16 + g + hr * 8;
      if constexpr (plan_nchains > 1)
        fa_chain_out<T, DB>([&](int db, int e) -> float& { return o[mt][db][2 * hr + e]; },
                            reinterpret_cast<const T*>(a.o) + b * a.o_sb + h * a.o_sh + (int64_t)i * a.o_sm,
                            plan_chain_adds(p) && i < M, tq, D, p);
      if (plan_rowvals_any(rowvals) && tq == 0 && i < M)
        plan_rowvals_store(rowvals, mrow[mt][hr], l, [&] { return ((int64_t)b * a.Hq + h) * M + i; });
    }
  __syncwarp();
  T* sO = sQ + wrow * SROW;  // this warp's rows only (read by this warp alone)
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int db = 0; db < DB; ++db)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int r = mt * 16 + g + hr * 8;
        *reinterpret_cast<uint32_t*>(sO + r * SROW + db * 8 + 2 * tq) =
            TT::pack(o[mt][db][2 * hr], o[mt][db][2 * hr + 1]);
      }
  __syncwarp();
  T* og = reinterpret_cast<T*>(a.o) + b * a.o_sb + h * a.o_sh;
#pragma unroll
  for (int c0 = 0; c0 < 16 * MT * CH; c0 += 32) {
    const int c = c0 + lane;
    if ((16 * MT * CH) % 32 == 0 || c < 16 * MT * CH) {
      const int r = c / CH, cc = c % CH;
      const int i = m0 + wrow + r;
      if (i < M)
        *reinterpret_cast<uint4*>(og + (int64_t)i * a.o_sm + cc * 8) =
            *reinterpret_cast<const uint4*>(sO + r * SROW + cc * 8);
    }
  }
}

