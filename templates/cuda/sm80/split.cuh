// sm80/split.cuh - the hand-written skeleton of the sm_80 attention family,
// part 3 of 3: the split form (FlashDecoding), fd_split_kernel<T, fd_cfg<...>>
// (each CTA takes a range of keys of its packed query rows; the last CTA of a
// row group can fold the combine), fd_combine_kernel and the host split-count
// rule, filled by the same plan hooks as sm80/rolling.cuh.  Only split plans
// include it (cuda/attention.m4).


// ----------------------------------------------------------------------------
struct fd_args {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  plan_rowvals rowvals;  // the values per row beside O (pointers may be null)
  float* o_part;     // [B,Hq,QL,S,D]   (splits > 1)
  float* m_part;     // [B,Hq,QL,S]
  float* l_part;     // [B,Hq,QL,S]
  const int* kv_len; // [B] or null (then every sequence has N keys)
  unsigned* counters; // [B*Hkv*rowgroups] tickets of the folded combine (fold = 1)
  int64_t q_sb, q_sh, q_sm;
  int64_t k_sb, k_sh, k_sn;
  int64_t v_sb, v_sh, v_sn;
  int64_t o_sb, o_sh, o_sm;
  int B, Hq, Hkv, QL, N;
  int splits;       // S
  int chunk;        // warp tiles per split (multiple of NW)
  int fold;         // 1: the last CTA of each (b, kv head, row group) combines (counters)
  plan_params p;
};

__device__ __forceinline__ void fd_pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void fd_pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Tile configuration.
//   D head dim; MT m16 row tiles per CTA (rows = 16*MT, every warp owns all of them);
//   NW warps, each with its own ring; BNW keys per warp tile; STAGES ring depth;
//   QREG Q fragments kept in registers (else re-read by ldmatrix); MINB CTAs/SM hint.
template <int D_, int MT_, int NW_, int BNW_, int STAGES_, bool QREG_, int MINB_>
struct fd_cfg {
  static constexpr int D = D_, MT = MT_, NW = NW_, BNW = BNW_, STAGES = STAGES_, MINB = MINB_;
  static constexpr bool QREG = QREG_;
  static constexpr int NT = NW * 32;
  static constexpr int RB = 16 * MT;   // rows per CTA
  static constexpr int SROW = D + 8;   // padded smem row (elements) for Q/K/V
  static constexpr int OROW = D + 8;   // padded fp32 row for the merge
  static constexpr int CH = D / 8;     // 16-byte chunks per row
  static_assert(D % 32 == 0, "D");
  static_assert(BNW == 16 || BNW == 32, "BNW");
  static_assert((BNW * CH) % 32 == 0, "chunks per warp tile");
  template <typename T>
  __host__ __device__ static constexpr size_t q_bytes() { return (size_t)RB * SROW * sizeof(T); }
  template <typename T>
  static constexpr size_t ring_bytes() { return (size_t)NW * STAGES * 2 * BNW * SROW * sizeof(T); }
  static constexpr size_t merge_bytes() { return (size_t)NW * RB * OROW * 4 + 2 * (size_t)NW * RB * 4; }
  template <typename T>
  static constexpr size_t smem_bytes() {
    return q_bytes<T>() + (ring_bytes<T>() > merge_bytes() ? ring_bytes<T>() : merge_bytes());
  }
};

// Folded combine, run by every thread of a CTA after its partials are written (splits > 1).
// Ticket on the (b, kv head, row group) counter; the CTA with the last ticket merges all
// splits of its rows (as fd_combine_kernel) into O / LSE and resets the counter.
// scratch: >= RB*(S+1) floats of shared memory that the caller no longer needs.
template <typename T, class C>
__device__ __forceinline__ void fd_fold_tail(const fd_args& a, int b, int hkv, int r0, int nrows, float* scratch) {
  constexpr int D = C::D, NT = C::NT, NW = C::NW, D4 = D / 4;
  using TT = fa_type<T>;
  __shared__ unsigned s_ticket;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int S = a.splits, QL = a.QL, G = a.Hq / a.Hkv;
  unsigned* ctr = a.counters + ((size_t)blockIdx.z * gridDim.y + blockIdx.y);
  __syncthreads();  // every thread's partial stores are issued (and scratch is free)
  if (tid == 0) {
    __threadfence();  // release: this CTA's partials before the ticket (cumulative over the barrier)
    const unsigned t = atomicAdd(ctr, 1u);
    __threadfence();  // acquire: the other CTAs' partials after their tickets
    s_ticket = t;
  }
  __syncthreads();
  if (s_ticket != (unsigned)(S - 1)) return;  // uniform
  float* sC = scratch;          // [RB][S] correction of split s for row r (0: empty split)
  float* sInv = scratch + C::RB * S;  // [RB] 1 / L
  for (int r = warp; r < nrows; r += NW) {
    const int rr = r0 + r, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
    const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
    const float* mp = a.m_part + row * S;
    const float* lp = a.l_part + row * S;
    float mx = -INFINITY;
    for (int s = lane; s < S; s += 32) mx = fmaxf(mx, __ldcg(mp + s));
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    float L = 0.f;
    for (int s = lane; s < S; s += 32) {
      const float ms = __ldcg(mp + s);
      float c = 0.f;
      if (ms != -INFINITY) {  // empty split: l = 0, O_part unwritten
        c = plan_correction(ms, msafe);
        L += __ldcg(lp + s) * c;
      }
      sC[r * S + s] = c;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) L += __shfl_xor_sync(0xffffffffu, L, o);
    if (lane == 0) {
      sInv[r] = plan_out_scale(L);
      if (plan_rowvals_any(a.rowvals)) plan_rowvals_store(a.rowvals, mx, L, [&] { return row; });
    }
  }
  __syncthreads();
  for (int c = tid; c < nrows * D4; c += NT) {
    const int r = c / D4, c4 = c % D4;
    const int rr = r0 + r, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
    const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
    const float* op = a.o_part + row * S * D + c4 * 4;
    const float* cr = sC + r * S;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
    for (int s = 0; s < S; ++s) {
      const float w = cr[s];
      if (w != 0.f) {
        const float4 x = __ldcg(reinterpret_cast<const float4*>(op + (int64_t)s * D));
        acc.x += x.x * w; acc.y += x.y * w; acc.z += x.z * w; acc.w += x.w * w;
      }
    }
    const float inv = sInv[r];
    uint2 pk;
    pk.x = TT::pack(acc.x * inv, acc.y * inv);
    pk.y = TT::pack(acc.z * inv, acc.w * inv);
    T* og = reinterpret_cast<T*>(a.o) + b * a.o_sb + (int64_t)h * a.o_sh + (int64_t)qi * a.o_sm;
    *reinterpret_cast<uint2*>(og + c4 * 4) = pk;
  }
  if (tid == 0) *ctr = 0u;  // every ticket of this launch is drawn: ready for the next launch
}

template <typename T, class C>
__global__ void __launch_bounds__(C::NT, C::MINB) fd_split_kernel(const __grid_constant__ fd_args a) {
  constexpr int D = C::D, MT = C::MT, NW = C::NW, BNW = C::BNW, STAGES = C::STAGES;
  constexpr int NT = C::NT, RB = C::RB, SROW = C::SROW, OROW = C::OROW, CH = C::CH;
  constexpr int NB = BNW / 8;  // n8 blocks of S per warp tile
  constexpr int DB = D / 8;    // n8 blocks of O
  using TT = fa_type<T>;

  extern __shared__ __align__(128) unsigned char fa_smem[];
  T* sQ = reinterpret_cast<T*>(fa_smem);
  unsigned char* ring = fa_smem + C::template q_bytes<T>();

  fd_pdl_launch_dependents();

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, tq = lane & 3;
  const int split = blockIdx.x, rg = blockIdx.y;
  const int bk = blockIdx.z;
  const int hkv = bk % a.Hkv, b = bk / a.Hkv;
  const int G = a.Hq / a.Hkv, QL = a.QL, S = a.splits;
  const int R = G * QL;  // packed rows of this kv head
  const int r0 = rg * RB;
  const int nrows = min(RB, R - r0);

  plan_params p = a.p;
  const int Nb = a.kv_len ? max(0, min(a.kv_len[b], a.N)) : a.N;  // out-of-range lengths clamp to 0..N
  p.N = Nb;
  p.M = QL;
  p.off = Nb - QL;

  // ---- this CTA's warp-tile range
  int nbeg, nend;
  plan_key_range(0, QL, p, &nbeg, &nend);
  nbeg = max(nbeg, 0);
  nend = min(nend, Nb);
  const int t_lo = nbeg / BNW;
  const int t_hi = nend > nbeg ? (nend + BNW - 1) / BNW : t_lo;
  const int tbeg = max(t_lo, split * a.chunk);
  const int tend = min(t_hi, (split + 1) * a.chunk);

  if (tbeg >= tend) {  // empty split: cheap exit (uniform across the CTA)
    if (tid < nrows) {
      const int rr = r0 + tid, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
      const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
      if (S == 1) {
        if (plan_rowvals_any(a.rowvals)) plan_rowvals_store(a.rowvals, -INFINITY, 0.f, [&] { return row; });  // no key
      } else {
        a.m_part[row * S + split] = -INFINITY;
        a.l_part[row * S + split] = 0.f;
      }
    }
    if (S > 1 && a.fold) fd_fold_tail<T, C>(a, b, hkv, r0, nrows, reinterpret_cast<float*>(ring));
    if (S == 1) {  // final output of an empty sequence: zeros
      T* og = reinterpret_cast<T*>(a.o);
      for (int c = tid; c < nrows * CH; c += NT) {
        const int rr = r0 + c / CH, cc = c % CH, gi = rr / QL, qi = rr % QL;
        *reinterpret_cast<uint4*>(og + b * a.o_sb + (int64_t)(hkv * G + gi) * a.o_sh + (int64_t)qi * a.o_sm + cc * 8) =
            make_uint4(0, 0, 0, 0);
      }
    }
    return;
  }

  // ---- Q rows -> smem (zero-filled past the packed rows)
  {
    const T* qg = reinterpret_cast<const T*>(a.q) + b * a.q_sb;
    for (int c = tid; c < RB * CH; c += NT) {
      const int r = c / CH, cc = c % CH;
      const int rr = r0 + r;
      const bool ok = r < nrows;
      const int gi = ok ? rr / QL : 0, qi = ok ? rr % QL : 0;
      const T* src = qg + (int64_t)(hkv * G + gi) * a.q_sh + (int64_t)qi * a.q_sm + cc * 8;
      fa_cp_async16(fa_smem_u32(sQ + r * SROW + cc * 8), ok ? src : qg, ok);
    }
    fa_cp_async_commit();
  }

  // ---- per-warp K/V ring
  const T* kg = reinterpret_cast<const T*>(a.k) + b * a.k_sb + hkv * a.k_sh;
  const T* vg = reinterpret_cast<const T*>(a.v) + b * a.v_sb + hkv * a.v_sh;
  const int64_t ksn = a.k_sn, vsn = a.v_sn;
  constexpr int SLOT = BNW * SROW * (int)sizeof(T);  // bytes of one K (or V) slot
  const uint32_t wring = fa_smem_u32(ring) + warp * (STAGES * 2 * SLOT);
  // warp tiles of this warp: tbeg + warp + NW*k < tend
  const int first = tbeg + warp;
  const int ntw = first < tend ? (tend - first + NW - 1) / NW : 0;

  // lane's chunks: c = lane + 32*i -> row c / CH, column chunk c % CH
  auto load_tile = [&](int t, int slot) {
    const int n0 = t * BNW;
    const uint32_t ks = wring + slot * (2 * SLOT), vs = ks + SLOT;
#pragma unroll
    for (int i = 0; i < BNW * CH / 32; ++i) {
      const int c = lane + 32 * i;
      const int r = c / CH, cc = c % CH;
      const int j = n0 + r;
      const bool ok = j < Nb;
      const uint32_t so = (r * SROW + cc * 8) * (int)sizeof(T);
      fa_cp_async16(ks + so, ok ? (const void*)(kg + (int64_t)j * ksn + cc * 8) : (const void*)kg, ok);
      fa_cp_async16(vs + so, ok ? (const void*)(vg + (int64_t)j * vsn + cc * 8) : (const void*)vg, ok);
    }
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ntw) load_tile(first + s * NW, s);
    fa_cp_async_commit();
  }

  // ---- per-row constants of this thread's rows (rows g, g+8 of each m16 tile)
  int qrow[MT][2];
  plan_params prow[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int r = mt * 16 + g + hr * 8;
      const int rr = min(r0 + r, R - 1);  // padding rows mirror the last real row
      const int gi = rr / QL;
      qrow[mt][hr] = rr % QL;
      prow[mt][hr] = p;
      plan_head_setup(prow[mt][hr], b, hkv * G + gi);
    }
  int hrow[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) hrow[mt][hr] = hkv * G + min(r0 + mt * 16 + g + hr * 8, R - 1) / QL;

  const uint32_t sQ_u32 = fa_smem_u32(sQ);
  const uint32_t q_off = sQ_u32 + (((lane & 7) + ((lane >> 3) & 1) * 8) * SROW + (lane >> 4) * 8) * (int)sizeof(T);
  const uint32_t k_off = ((((lane & 7) + (lane >> 4) * 8) * SROW) + ((lane >> 3) & 1) * 8) * (int)sizeof(T);
  const uint32_t v_off = ((((lane & 7) + ((lane >> 3) & 1) * 8) * SROW) + (lane >> 4) * 8) * (int)sizeof(T);

  fa_cp_async_wait<STAGES - 1>();  // Q (the oldest group) landed for this thread
  __syncthreads();                 // ... for every thread

  uint32_t qf[C::QREG ? MT : 1][C::QREG ? D / 16 : 1][4];
  if constexpr (C::QREG) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) fa_ldsm_x4(qf[mt][kk], q_off + (mt * 16 * SROW + kk * 16) * (int)sizeof(T));
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

  // ---- one warp tile: S = Q K^T, hooks, online softmax, O += P V
  auto step = [&](auto masked_tag, int slot, int n0) {
    constexpr bool MASKED = decltype(masked_tag)::value;
    const uint32_t kb = wring + slot * (2 * SLOT) + k_off;
    const uint32_t vb = wring + slot * (2 * SLOT) + SLOT + v_off;
    float s[MT][NB][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nb][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t af[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (C::QREG) {
#pragma unroll
          for (int e = 0; e < 4; ++e) af[mt][e] = qf[C::QREG ? mt : 0][C::QREG ? kk : 0][e];
        } else {
          fa_ldsm_x4(af[mt], q_off + (mt * 16 * SROW + kk * 16) * (int)sizeof(T));
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
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NB; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int hr = e >> 1;
          const int i = qrow[mt][hr];
          const int j = n0 + nb * 8 + 2 * tq + (e & 1);
          float x = plan_score(s[mt][nb][e], i, j, hrow[mt][hr], prow[mt][hr]);
          if constexpr (MASKED) {
            if (!(j < Nb && plan_visible(i, j, prow[mt][hr]))) x = -INFINITY;
          }
          s[mt][nb][e] = x;
        }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        float mx = mrow[mt][hr];
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) mx = fmaxf(mx, fmaxf(s[mt][nb][2 * hr], s[mt][nb][2 * hr + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float msafe = (mx == -INFINITY) ? 0.f : mx;
        const float corr = plan_correction(mrow[mt][hr], msafe);
        mrow[mt][hr] = mx;
        float sum = 0.f;
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) {
          const float p0 = fa_ex2(s[mt][nb][2 * hr] - msafe);
          const float p1 = fa_ex2(s[mt][nb][2 * hr + 1] - msafe);
          s[mt][nb][2 * hr] = p0;
          s[mt][nb][2 * hr + 1] = p1;
          sum += p0 + p1;
        }
        lrow[mt][hr] = lrow[mt][hr] * corr + sum;
#pragma unroll
        for (int db = 0; db < DB; ++db) {
          o[mt][db][2 * hr] *= corr;
          o[mt][db][2 * hr + 1] *= corr;
        }
      }
#pragma unroll
    for (int kk = 0; kk < BNW / 16; ++kk) {
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

  // ---- main loop: this warp's tiles, its own ring, no CTA barrier
  for (int it = 0; it < ntw; ++it) {
    fa_cp_async_wait<STAGES - 2>();  // tile it landed (this lane's copies)
    __syncwarp();                    // ... every lane's; slot (it-1)%STAGES is free
    {
      const int in = it + STAGES - 1;
      if (in < ntw) load_tile(first + in * NW, in % STAGES);
      fa_cp_async_commit();
    }
    const int t = first + it * NW;
    const int n0 = t * BNW;
    const int n1 = min(n0 + BNW, Nb);
    int cls = plan_tile_class(0, QL, n0, n1, p);
    if (cls == 2 && n0 + BNW > Nb) cls = 1;  // ragged last tile
    if (cls == 2)
      step(fa_bool<false>{}, it % STAGES, n0);
    else if (cls == 1)
      step(fa_bool<true>{}, it % STAGES, n0);
  }
  fa_cp_async_wait<0>();

  // ---- merge the NW warp states through shared memory (reuses the rings)
  __syncthreads();  // every warp is done with its ring
  float* sOw = reinterpret_cast<float*>(ring);       // [NW][RB][OROW]
  float* sM = sOw + NW * RB * OROW;                   // [NW][RB]
  float* sL = sM + NW * RB;                           // [NW][RB]
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      float l = lrow[mt][hr];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      lrow[mt][hr] = l;
      if (tq == 0) {
        const int r = mt * 16 + g + hr * 8;
        sM[warp * RB + r] = mrow[mt][hr];
        sL[warp * RB + r] = l;
      }
    }
  __syncthreads();
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int r = mt * 16 + g + hr * 8;
      float mx = -INFINITY;
#pragma unroll
      for (int w = 0; w < NW; ++w) mx = fmaxf(mx, sM[w * RB + r]);
      const float msafe = (mx == -INFINITY) ? 0.f : mx;
      const float sc = plan_correction(mrow[mt][hr], msafe);
      float* dst = sOw + (warp * RB + r) * OROW + 2 * tq;
#pragma unroll
      for (int db = 0; db < DB; ++db)
        *reinterpret_cast<float2*>(dst + db * 8) = make_float2(o[mt][db][2 * hr] * sc, o[mt][db][2 * hr + 1] * sc);
    }
  __syncthreads();

  // per-row totals (M, L): threads 0..RB-1; kept in sM[0][r] / sL[0][r] after a barrier
  float Mr = 0.f, Lr = 0.f;
  if (tid < RB) {
    const int r = tid;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < NW; ++w) mx = fmaxf(mx, sM[w * RB + r]);
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    float L = 0.f;
#pragma unroll
    for (int w = 0; w < NW; ++w) {
      const float mw = sM[w * RB + r];
      if (mw != -INFINITY) L += sL[w * RB + r] * plan_correction(mw, msafe);
    }
    Mr = mx;
    Lr = L;
  }
  __syncthreads();  // all reads of sM/sL done
  if (tid < RB) {
    sM[tid] = Mr;
    sL[tid] = Lr;
    if (tid < nrows) {
      const int rr = r0 + tid, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
      const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
      if (S == 1) {
        if (plan_rowvals_any(a.rowvals)) plan_rowvals_store(a.rowvals, Mr, Lr, [&] { return row; });
      } else {
        a.m_part[row * S + split] = Mr;
        a.l_part[row * S + split] = Lr;
      }
    }
  }
  __syncthreads();

  // sum the NW scaled accumulators, write O (S == 1) or the fp32 partial
  constexpr int D4 = D / 4;
  for (int c = tid; c < nrows * D4; c += NT) {
    const int r = c / D4, c4 = c % D4;
    float4 acc = *reinterpret_cast<const float4*>(sOw + r * OROW + c4 * 4);
#pragma unroll
    for (int w = 1; w < NW; ++w) {
      const float4 x = *reinterpret_cast<const float4*>(sOw + (w * RB + r) * OROW + c4 * 4);
      acc.x += x.x; acc.y += x.y; acc.z += x.z; acc.w += x.w;
    }
    const int rr = r0 + r, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
    if (S == 1) {
      const float L = sL[r];
      const float inv = plan_out_scale(L);
      uint2 pk;
      pk.x = TT::pack(acc.x * inv, acc.y * inv);
      pk.y = TT::pack(acc.z * inv, acc.w * inv);
      T* og = reinterpret_cast<T*>(a.o) + b * a.o_sb + (int64_t)h * a.o_sh + (int64_t)qi * a.o_sm;
      *reinterpret_cast<uint2*>(og + c4 * 4) = pk;
    } else {
      const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
      *reinterpret_cast<float4*>(a.o_part + (row * S + split) * D + c4 * 4) = acc;
    }
  }
  if (S > 1 && a.fold) fd_fold_tail<T, C>(a, b, hkv, r0, nrows, reinterpret_cast<float*>(ring));
}

// ----------------------------------------------------------------------------
// Combine: one warp per (b, h, query row); lane owns D/32 consecutive elements.
template <typename T, int D>
__global__ void __launch_bounds__(128) fd_combine_kernel(const __grid_constant__ fd_args a) {
  constexpr int EPL = D / 32;
  using TT = fa_type<T>;
  fd_pdl_wait();  // partials of the split kernel are complete and visible
  const int lane = threadIdx.x & 31;
  const int64_t row = (int64_t)blockIdx.x * 4 + (threadIdx.x >> 5);
  const int64_t rows = (int64_t)a.B * a.Hq * a.QL;
  if (row >= rows) return;
  const int S = a.splits;
  const float* mp = a.m_part + row * S;
  const float* lp = a.l_part + row * S;
  float mx = -INFINITY;
  for (int s = lane; s < S; s += 32) mx = fmaxf(mx, mp[s]);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  const float msafe = (mx == -INFINITY) ? 0.f : mx;
  float acc[EPL];
#pragma unroll
  for (int e = 0; e < EPL; ++e) acc[e] = 0.f;
  float L = 0.f;
  const float* op = a.o_part + row * S * D + lane * EPL;
  for (int s = 0; s < S; ++s) {
    const float ms = mp[s];
    if (ms == -INFINITY) continue;  // empty split: O_part unwritten
    const float corr = plan_correction(ms, msafe);
    L += lp[s] * corr;
    const float* src = op + (int64_t)s * D;
    if constexpr (EPL % 4 == 0) {
#pragma unroll
      for (int e = 0; e < EPL; e += 4) {
        const float4 x = *reinterpret_cast<const float4*>(src + e);
        acc[e] += x.x * corr; acc[e + 1] += x.y * corr; acc[e + 2] += x.z * corr; acc[e + 3] += x.w * corr;
      }
    } else if constexpr (EPL % 2 == 0) {
#pragma unroll
      for (int e = 0; e < EPL; e += 2) {
        const float2 x = *reinterpret_cast<const float2*>(src + e);
        acc[e] += x.x * corr; acc[e + 1] += x.y * corr;
      }
    } else {
#pragma unroll
      for (int e = 0; e < EPL; ++e) acc[e] += src[e] * corr;
    }
  }
  const float inv = plan_out_scale(L);
  const int qi = (int)(row % a.QL);
  const int h = (int)((row / a.QL) % a.Hq);
  const int b = (int)(row / ((int64_t)a.QL * a.Hq));
  T* og = reinterpret_cast<T*>(a.o) + b * a.o_sb + (int64_t)h * a.o_sh + (int64_t)qi * a.o_sm + lane * EPL;
  if constexpr (EPL % 2 == 0) {
#pragma unroll
    for (int e = 0; e < EPL; e += 2) *reinterpret_cast<uint32_t*>(og + e) = TT::pack(acc[e] * inv, acc[e + 1] * inv);
  } else {
#pragma unroll
    for (int e = 0; e < EPL; ++e) og[e] = T(acc[e] * inv);
  }
  if (plan_rowvals_any(a.rowvals) && lane == 0) plan_rowvals_store(a.rowvals, mx, L, [&] { return row; });
}

// ----------------------------------------------------------------------------
// Host side.
// Split count: ONE wave of CTAs, the longest per-CTA key ranges that still fill it:
//   S = floor(num_sms * ctas_per_sm / (B * Hkv * rowgroups)), >= 1, each split >= min_keys.
// Measured on an H200 (bench/NOTES.md, decode kernel, call 1): every b1-32k case was
// fastest at ~128 CTAs of 8 warps (one per SM), and 2-wave choices (S = 17 / 33 / 66)
// lost 8-40 % (per-CTA ramp-up and drain, and the larger partial round trip); when
// B * Hkv already fills the machine, S = 1 (no partials, no combine).
static inline int fd_choose_splits(int B, int Hkv, int N, int num_sms, int ctas_per_sm = 1, int rowgroups = 1,
                                    int min_keys = 256, int max_splits = 128) {
  const long base = (long)B * Hkv * rowgroups;
  const long slots = (long)num_sms * ctas_per_sm;
  if (base >= slots) return 1;
  long s = slots / base;
  long cap = N / min_keys;
  if (cap < 1) cap = 1;
  if (s > cap) s = cap;
  if (s > max_splits) s = max_splits;
  return s < 1 ? 1 : (int)s;
}

// Largest split count the folded combine takes (its per-(row, split) weights live in the
// CTA's ring / merge shared memory); above it fd_launch uses the combine kernel.
template <typename T, class C>
static constexpr int fd_fold_max_splits() {
  return (int)(C::template smem_bytes<T>() - C::template q_bytes<T>()) / (4 * C::RB) - 1;
}

