// hip/cdna/split.hpp - the hand-written skeleton of the CDNA attention family,
// part 3 of 3: the split form (FlashDecoding), fd_split_kernel<T, fd_cfg<...>>:
// each workgroup takes a range of key tiles of 16 packed query rows (the query
// heads of one kv head times the query positions), its wavefronts take 16-key
// blocks of each tile (16x16x16 MFMA) and merge their states through LDS; with
// more than one split the last workgroup of a row group (a ticket) combines the
// partials with the same corrections.  Filled by the same plan hooks as
// rolling.hpp; only split plans include it (hip/attention.m4).

struct fd_args {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  plan_rowvals rowvals;  // the values per row beside O (pointers may be null)
  float* o_part;       // [B,Hq,QL,S,D]   (splits > 1)
  float* m_part;       // [B,Hq,QL,S]
  float* l_part;       // [B,Hq,QL,S]
  const int* kv_len;   // [B] or null (then every sequence has N keys)
  unsigned* counters;  // [B*Hkv*rowgroups] tickets of the combine, 0 before the launch
  int64_t q_sb, q_sh, q_sm;
  int64_t k_sb, k_sh, k_sn;
  int64_t v_sb, v_sh, v_sn;
  int64_t o_sb, o_sh, o_sm;
  int B, Hq, Hkv, QL, N;
  int splits;     // S
  int chunk;      // tiles per split
  int rowgroups;  // row groups per kv head (the grid's y)
  plan_params p;
};

// Tile configuration (the parameters of the sm_80 family's fd_cfg).
//   D head dim; MT 16-row blocks (1); NW wavefronts, each takes BNW = 16 keys of
//   every tile of NW * BNW keys; STAGES LDS buffers (1); QREG Q in registers
//   (always); MINB unused on CDNA.
template <int D_, int MT_, int NW_, int BNW_, int STAGES_, bool QREG_, int MINB_>
struct fd_cfg {
  static constexpr int D = D_, NW = NW_, BNW = BNW_;
  static constexpr int NT = NW * 64, RB = 16, KT = NW * BNW;
  static constexpr int KSIZE = ck_lds_k_size(KT, D), RING = KSIZE + ck_lds_vt_size(KT, D);
  static constexpr int OROW = D + 4;  // padded fp32 row of the merge
  static constexpr int MERGE = (NW * RB * OROW + 2 * NW * RB) * 2;  // in 16-bit units
  static constexpr int LDS = RING > MERGE ? RING : MERGE;
  static_assert(MT_ == 1 && BNW == 16 && STAGES_ == 1 && QREG_ && MINB_ >= 1, "the CDNA split kernel's shape");
  static_assert(D % 16 == 0, "16-wide MFMA blocks");
  static_assert(LDS * 2 <= 65536, "LDS of a workgroup");
  template <typename T>
  static constexpr size_t smem_bytes() { return (size_t)LDS * 2; }
};

// The combine, run by every thread of a workgroup after its partials are
// written (splits > 1): a ticket on the (b, kv head, row group) counter; the
// workgroup with the last ticket merges all splits of its rows into O and LSE
// and puts the counter back to 0.  scratch: 16 * (S + 1) floats of LDS.
template <typename T, class C>
__device__ __forceinline__ void fd_fold_tail(const fd_args& a, int b, int hkv, int r0, int nrows, float* scratch,
                                             unsigned* ticket) {
  constexpr int D = C::D, NT = C::NT, NW = C::NW;
  const int tid = ck_tid(), lane = tid & 63, wave = tid >> 6;
  const int S = a.splits, QL = a.QL, G = a.Hq / a.Hkv;
  const int bk = (int)__builtin_amdgcn_workgroup_id_z(), rg = (int)__builtin_amdgcn_workgroup_id_y();
  unsigned* ctr = a.counters + ((size_t)bk * a.rowgroups + rg);
  ck_barrier();  // every thread's partial stores are issued (and scratch is free)
  if (tid == 0) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");  // this workgroup's partials before its ticket
    *ticket = __hip_atomic_fetch_add(ctr, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");  // the others' partials after their tickets
  }
  ck_barrier();
  if (*ticket != (unsigned)(S - 1)) return;  // uniform
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
  float* sC = scratch;                 // [16][S] the correction of split s for row r (0: empty split)
  float* sInv = scratch + C::RB * S;   // [16] plan_out_scale(L)
  for (int r = wave; r < nrows; r += NW) {
    const int rr = r0 + r, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
    const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
    const float* mp = a.m_part + row * S;
    const float* lp = a.l_part + row * S;
    float mx = -INFINITY;
    for (int s = lane; s < S; s += 64) mx = ck_max(mx, mp[s]);
#pragma unroll
    for (int o = 32; o > 0; o >>= 1) mx = ck_max(mx, plan_shfl_xor(mx, o));
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    float L = 0.f;
    for (int s = lane; s < S; s += 64) {
      const float ms = mp[s];
      float c = 0.f;
      if (ms != -INFINITY) {  // empty split: l = 0, O_part unwritten
        c = plan_correction(ms, msafe);
        L += lp[s] * c;
      }
      sC[r * S + s] = c;
    }
#pragma unroll
    for (int o = 32; o > 0; o >>= 1) L += plan_shfl_xor(L, o);
    if (lane == 0) {
      sInv[r] = plan_out_scale(L);
      if (plan_rowvals_any(a.rowvals)) plan_rowvals_store(a.rowvals, mx, L, [&] { return row; });
    }
  }
  ck_barrier();
  for (int c = tid; c < nrows * D; c += NT) {
    const int r = c / D, d = c % D;
    const int rr = r0 + r, gi = rr / QL, qi = rr % QL, h = hkv * G + gi;
    const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
    const float* op = a.o_part + row * S * D + d;
    float acc = 0.f;
    for (int s = 0; s < S; ++s) {
      const float w = sC[r * S + s];
      if (w != 0.f) acc += op[(int64_t)s * D] * w;
    }
    uint16_t* og = reinterpret_cast<uint16_t*>(a.o) + b * a.o_sb + (int64_t)h * a.o_sh + (int64_t)qi * a.o_sm;
    og[d] = T::from_float(acc * sInv[r]);
  }
  if (tid == 0) *ctr = 0u;  // every ticket of this launch is drawn: ready for the next launch
}

template <typename T, class C>
__global__ void __launch_bounds__(C::NT) fd_split_kernel(fd_args a) {
  constexpr int D = C::D, NW = C::NW, BNW = C::BNW, NT = C::NT, RB = C::RB, KT = C::KT, OROW = C::OROW;
  constexpr int QS = D / 16;   // k steps of S^T = K Q^T
  constexpr int NDB = D / 16;  // 16-dim blocks of O^T
  __shared__ uint16_t lds[C::LDS];
  __shared__ unsigned ticket;

  const int tid = ck_tid(), lane = tid & 63, wave = tid >> 6;
  const int split = (int)__builtin_amdgcn_workgroup_id_x(), rg = (int)__builtin_amdgcn_workgroup_id_y();
  const int bk = (int)__builtin_amdgcn_workgroup_id_z();
  const int hkv = bk % a.Hkv, b = bk / a.Hkv;
  const int G = a.Hq / a.Hkv, QL = a.QL, S = a.splits;
  const int R = G * QL;  // packed rows of this kv head
  const int r0 = rg * RB;
  const int nrows = min(RB, R - r0);
  float* fl = reinterpret_cast<float*>(lds);

  plan_params p = a.p;
  const int Nb = a.kv_len ? max(0, min(a.kv_len[b], a.N)) : a.N;  // out-of-range lengths clamp to 0..N
  p.N = Nb;
  p.M = QL;
  p.off = Nb - QL;

  int nbeg, nend;
  plan_key_range(0, QL, p, &nbeg, &nend);
  nbeg = max(nbeg, 0);
  nend = min(nend, Nb);
  const int t_lo = nbeg / KT;
  const int t_hi = nend > nbeg ? (nend + KT - 1) / KT : t_lo;
  const int tbeg = max(t_lo, split * a.chunk);
  const int tend = min(t_hi, (split + 1) * a.chunk);

  if (tbeg >= tend) {  // empty split (uniform across the workgroup)
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
    if (S == 1) {  // the final output of an empty sequence: zeros
      for (int c = tid; c < nrows * D; c += NT) {
        const int rr = r0 + c / D, d = c % D, gi = rr / QL, qi = rr % QL;
        uint16_t* og = reinterpret_cast<uint16_t*>(a.o) + b * a.o_sb + (int64_t)(hkv * G + gi) * a.o_sh +
                       (int64_t)qi * a.o_sm;
        og[d] = 0;
      }
    } else {
      fd_fold_tail<T, C>(a, b, hkv, r0, nrows, fl, &ticket);
    }
    return;
  }

  // This lane's packed row: Q as B operands, its head and position.
  const int rr = min(r0 + ck_op_row(lane, 16), R - 1);  // padding rows mirror the last real row
  const int hq = hkv * G + rr / QL, i = rr % QL;
  plan_params prow = p;
  plan_head_setup(prow, b, hq);
  typename T::op qf[QS];
  {
    const uint16_t* qg = reinterpret_cast<const uint16_t*>(a.q) + b * a.q_sb + (int64_t)hq * a.q_sh + (int64_t)i * a.q_sm;
#pragma unroll
    for (int s = 0; s < QS; ++s) qf[s] = ck_load_op<T>(qg + s * 16 + ck_op_k(lane, 0, 16));
  }
  const uint16_t* kg = reinterpret_cast<const uint16_t*>(a.k) + b * a.k_sb + hkv * a.k_sh;
  const uint16_t* vg = reinterpret_cast<const uint16_t*>(a.v) + b * a.v_sb + hkv * a.v_sh;

  ck_f4 o[NDB];
#pragma unroll
  for (int db = 0; db < NDB; ++db) o[db] = ck_f4{0.f, 0.f, 0.f, 0.f};
  float mrow = -INFINITY, lrow = 0.f;

  // One wavefront's 16 keys at n0 (LDS rows kr of the tile).
  auto step = [&](auto masked_tag, int kr, int n0) {
    constexpr bool MASKED = decltype(masked_tag)::value;
    ck_f4 s = {0.f, 0.f, 0.f, 0.f};
    const uint16_t* kp = lds + ck_lds_k(kr + ck_op_row(lane, 16), ck_op_k(lane, 0, 16), D);
#pragma unroll
    for (int st = 0; st < QS; ++st) s = T::mfma(s, ck_load_op<T>(kp + st * 16), qf[st]);
    float tm = -INFINITY;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int j = n0 + ck_acc_row(lane, r, 16);
      float x = plan_score(s[r], i, j, hq, prow);
      if constexpr (MASKED) {
        if (!(j < Nb && plan_visible(i, j, prow))) x = -INFINITY;
      }
      s[r] = x;
      tm = ck_max(tm, x);
    }
#pragma unroll
    for (int st = 0; st < ck_reduce_steps(16); ++st) tm = ck_max(tm, plan_shfl_xor(tm, ck_reduce_xor(st, 16)));
    const float mx = ck_max(mrow, tm);
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    const float corr = plan_correction(mrow, msafe);
    mrow = mx;
    float sum = 0.f;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      s[r] = fa_ex2(s[r] - msafe);
      sum += s[r];
    }
    lrow = lrow * corr + sum;
    const typename T::op pb = T::pack(s[0], s[1], s[2], s[3]);
    const uint16_t* vt = lds + C::KSIZE;
    const int key = kr + ck_op_k(lane, 0, 16);
#pragma unroll
    for (int db = 0; db < NDB; ++db)
      o[db] = T::mfma(o[db] * corr, ck_load_op<T>(vt + ck_lds_vt(key, db * 16 + ck_op_row(lane, 16), KT)), pb);
  };

  for (int t = tbeg; t < tend; ++t) {
    ck_load_kv<D, KT>(lds, lds + C::KSIZE, kg, vg, a.k_sn, a.v_sn, t * KT, Nb, tid, NT);
    ck_barrier();
    const int n0 = t * KT + wave * BNW;
    int cls = n0 < Nb ? plan_tile_class(0, QL, n0, min(n0 + BNW, Nb), p) : 0;
    if (cls == 2 && n0 + BNW > Nb) cls = 1;  // ragged last block
    if (cls == 2)
      step(fa_bool<false>{}, wave * BNW, n0);
    else if (cls == 1)
      step(fa_bool<true>{}, wave * BNW, n0);
    ck_barrier();
  }

  // Merge the NW wavefront states through LDS (over the tiles).
  float* sOw = fl;                    // [NW][16][OROW]
  float* sM = sOw + NW * RB * OROW;   // [NW][16]
  float* sL = sM + NW * RB;           // [NW][16]
  const int q = ck_acc_col(lane, 16);  // == ck_op_row: this lane's row
  float l = lrow;
#pragma unroll
  for (int st = 0; st < ck_reduce_steps(16); ++st) l += plan_shfl_xor(l, ck_reduce_xor(st, 16));
  if (lane < 16) {
    sM[wave * RB + q] = mrow;
    sL[wave * RB + q] = l;
  }
  ck_barrier();
  {
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < NW; ++w) mx = ck_max(mx, sM[w * RB + q]);
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    const float sc = plan_correction(mrow, msafe);
#pragma unroll
    for (int db = 0; db < NDB; ++db)
#pragma unroll
      for (int r = 0; r < 4; ++r) sOw[(wave * RB + q) * OROW + db * 16 + ck_acc_row(lane, r, 16)] = o[db][r] * sc;
  }
  ck_barrier();
  float Mr = 0.f, Lr = 0.f;
  if (tid < RB) {
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < NW; ++w) mx = ck_max(mx, sM[w * RB + tid]);
    const float msafe = (mx == -INFINITY) ? 0.f : mx;
    float L = 0.f;
#pragma unroll
    for (int w = 0; w < NW; ++w) {
      const float mw = sM[w * RB + tid];
      if (mw != -INFINITY) L += sL[w * RB + tid] * plan_correction(mw, msafe);
    }
    Mr = mx;
    Lr = L;
  }
  ck_barrier();  // every read of sM and sL is done
  if (tid < RB) {
    sM[tid] = Mr;
    sL[tid] = Lr;
    if (tid < nrows) {
      const int rt = r0 + tid, h = hkv * G + rt / QL;
      const int64_t row = ((int64_t)b * a.Hq + h) * QL + rt % QL;
      if (S == 1) {
        if (plan_rowvals_any(a.rowvals)) plan_rowvals_store(a.rowvals, Mr, Lr, [&] { return row; });
      } else {
        a.m_part[row * S + split] = Mr;
        a.l_part[row * S + split] = Lr;
      }
    }
  }
  ck_barrier();
  for (int c = tid; c < nrows * D; c += NT) {
    const int r = c / D, d = c % D;
    float acc = 0.f;
#pragma unroll
    for (int w = 0; w < NW; ++w) acc += sOw[(w * RB + r) * OROW + d];
    const int rt = r0 + r, h = hkv * G + rt / QL, qi = rt % QL;
    if (S == 1) {
      uint16_t* og = reinterpret_cast<uint16_t*>(a.o) + b * a.o_sb + (int64_t)h * a.o_sh + (int64_t)qi * a.o_sm;
      og[d] = T::from_float(acc * plan_out_scale(sL[r]));
    } else {
      const int64_t row = ((int64_t)b * a.Hq + h) * QL + qi;
      a.o_part[(row * S + split) * D + d] = acc;
    }
  }
  if (S > 1) fd_fold_tail<T, C>(a, b, hkv, r0, nrows, fl, &ticket);
}

// The largest split count the combine takes: its weights, 16 * (S + 1)
// floats, live in the workgroup's LDS.
template <class C>
constexpr int fd_max_splits() {
  return C::LDS * 2 / (4 * C::RB) - 1;
}
