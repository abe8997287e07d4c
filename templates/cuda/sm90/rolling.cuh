// sm90/rolling.cuh - the hand-written skeleton of the sm_90a attention family,
// part 2 of 2: the rolling-form kernel (one CTA walks the key tiles of its
// query rows), fh_attn_fwd_kernel<T, fh_cfg<...>>, filled by the same plan
// hooks as the sm_80 family (plan_score, plan_visible, plan_tile_class,
// plan_key_range, plan_correction, plan_out_scale, plan_rowvals_store; with span atoms
// plan_span_*, plan_tile_class_spans, plan_spans_known and plan_visible_known, with a
// tile-affine score plan_score_tile_bias), which cuda/attention.m4 places before it.
//
// Design (FlashAttention-3 style), one CTA of three warpgroups per 128 query
// rows of one (batch, head), or of two per 64 rows (BM 64, two CTAs a SM):
// - warpgroup 0 is the producer: it gives registers back (setmaxnreg) and one
//   thread drives the tensor memory accelerator: the Q tile once, then the K
//   and V tiles of the visible key range through a ring of STAGES slots, each
//   slot with "K full", "V full", "K empty" and "V empty" mbarriers (K is
//   given back once S has landed, V once P V has);
// - warpgroups 1 and 2 (BM 64: 1) are the consumers, 64 query rows each,
//   with the registers the producer gave back.  Per key tile: S = Q K^T by wgmma from
//   shared memory (both operands K-major in the copy engine's 128-byte
//   swizzled layout; where the registers allow, QR below, Q's fragments are
//   read once into registers and only K from shared memory), the score and
//   mask hooks, the online softmax in the exp2 domain with the plan's derived
//   correction (without a softmax chain, plan_weight of each key's masked
//   score and no correction), then O += P V by wgmma
//   with P from registers (the S accumulators re-packed as A fragments, no
//   shuffles) and V from shared memory (MN-major, the transposed-B form).
//   Inside a group, S of the next tile is issued before P V of the current
//   one, so the softmax runs while a product is on the tensor cores; with
//   PINGPONG the two groups also take turns issuing (named barriers).
// - tile classes from the hooks: the key range bounds the loads and the
//   tiles; in it, fully visible tiles run the mask-free step, partial ones,
//   the ragged last tile and those a consumer group's rows do not see the
//   masked step (no product is issued under a condition).  A
//   mask that compares ids read at the row and the key (span atoms) narrows
//   the key range once per CTA (while Q's copy is in flight; from the ids'
//   ranges per 64-key chunk that fh_span_sum_kernel, launched first, wrote,
//   reading no key's id, or where the launch has no workspace for it from
//   the ids themselves) and classifies each tile: with that summary, tiles of
//   whole chunks and at most 32 tiles in the range, once per consumer warp
//   for its 16 rows from the summary (CLS), else for the group's rows from
//   the ids' ranges, read one tile ahead; a masked tile where
//   every span atom is known (plan_spans_known) takes each element from the
//   spans' truth and its linear atoms (plan_visible_known), reading no ids;
//   one where they are not decides each element's span atoms between its
//   row's value (two loads a thread) and its key's, from the warp's copy in
//   shared memory of the values its classification read (VALS), in place of
//   two id loads an element;
//   a tile where the score is qk times a constant plus one value
//   (plan_score_tile_bias) takes the fold's path with an offset,
//   and on the other tiles a term that reads the row and key only through
//   their difference is taken once a diagonal of a thread's elements
//   (plan_score_diag).
// - epilogue: O / l (plan_out_scale), the values per row (plan_rowvals_store), O staged through the
//   group's own rows of the Q tile in the same swizzled layout (conflict
//   free) and written with 16-byte stores; rows past M and columns past the
//   launch's head dim are not written.
// The compiled head dim D is a multiple of 16; a launch with a smaller head
// dim (a multiple of 8) runs on it: the copy engine reads the columns past
// the tensor's extent as zero, so they add nothing to Q.K and give O columns
// that are not stored.

// Tile configuration: D the compiled head dim, BM query rows per CTA (128:
// two consumer warpgroups, one CTA a SM; 64: one consumer group, and a CTA
// small enough that two share a SM, one's prologue and epilogue under the
// other's tiles), BN keys per tile, STAGES the depth of the K/V ring, PP
// whether the two consumer groups take turns issuing their products
// (ping-pong).
template <int D_, int BM_, int BN_, int STAGES_, bool PP_>
struct fh_cfg {
  static constexpr int D = D_, BM = BM_, BN = BN_, STAGES = STAGES_;
  static constexpr bool PP = PP_;
  static constexpr int NCG = BM / 64;            // consumer groups, 64 query rows each
  static constexpr int NT = 128 * (1 + NCG);     // the producer group and the consumers
  static constexpr int MINB = NCG == 1 ? 2 : 1;  // CTAs a SM the registers are sized for
  // a consumer's registers after setmaxnreg: the CTA's share of the register
  // file (65536 / MINB) less the producer's 24 a thread, over its threads
  static constexpr int CREGS = NCG == 1 ? 232 : 240;
  static constexpr int ATOMS = (D + 63) / 64;    // blocks of 64 columns (128 bytes) per row
  static constexpr int Q_BYTES = ATOMS * BM * 128;
  static constexpr int KV_BYTES = ATOMS * BN * 128;  // one K or V tile
  static constexpr int NS = BN / 2;              // S accumulators per consumer thread
  static constexpr int NO = D / 2;               // O accumulators per consumer thread
  static_assert(D % 16 == 0 && D <= 256 && BN % 16 == 0 && BN <= 256 && STAGES >= 2, "bad tile");
  static_assert((BM == 64 || BM == 128) && (!PP || BM == 128), "BM 64 or 128; ping-pong takes two groups");
  static constexpr int SPAN_OFF = (8 * (1 + 4 * STAGES) + 15) & ~15;  // the mbarriers, to 16 bytes
  // 1024 for aligning the tiles to the swizzle atom, then the tiles, the
  // mbarriers (Q full; K full, V full, K empty and V empty per slot) and
  // with span atoms the rows' and the keys' ranges per consumer warp
  static constexpr size_t BASE_BYTES =
      1024 + (size_t)Q_BYTES + 2 * (size_t)STAGES * KV_BYTES +
      (plan_nspans > 0 ? SPAN_OFF + 2 * 4 * NCG * 16 * (size_t)plan_nspans : 8 * (1 + 4 * STAGES));
  // then, where the 227 KB a CTA may have leave room for it (not at D 96 on
  // 128-key tiles, three stages), each consumer warp's copy of a masked
  // tile's key values for VALS (the softmax below), 8 bytes a key and span
  static constexpr size_t VALS_BYTES = 4 * NCG * BN * 8 * (size_t)plan_nspans;
  // (VALS itself: below KVG)
  // KVG: a weight that reads values at the key alone (plan_key_values, a
  // per-key gate; no softmax chain): where the 227 KB leave room for it, the
  // producer group's second warp loads them, a tile at a time, into a ring
  // beside the K and V slots (KV_NSH floats a key: with plan_kv_recip the
  // one value 1 / F), after the mbarriers, the spans' words and VALS's
  // copies, at KEYV_OFF bytes past the mbarriers, 16-aligned: first a
  // "values empty" mbarrier per slot (KE_BYTES), then the slots.  Where it does
  // not fit (no bundled plan: two key values beside 128-key tiles of three
  // stages at D 96 or 128), the consumers load them and shuffle (the
  // softmax below).  The ring before VALS, which has a path without it.
  static constexpr bool KVS = !plan_softmax && plan_nkeyvals > 0;
  static constexpr int KV_NSH = KVS && plan_kv_recip ? 1 : (plan_nkeyvals > 0 ? plan_nkeyvals : 1);
  static constexpr size_t KEYV_STAGE = (size_t)BN * KV_NSH * 4;
  static constexpr size_t KE_BYTES = (8 * STAGES + 15) & ~15;
  static constexpr size_t RING_BYTES = 16 + KE_BYTES + STAGES * KEYV_STAGE;
  static constexpr bool KVG = KVS && BASE_BYTES + RING_BYTES <= 227 * 1024;
  static constexpr bool VALS = plan_nspans > 0 && BASE_BYTES + VALS_BYTES + (KVG ? RING_BYTES : 0) <= 227 * 1024;
  static constexpr size_t KEYV_OFF =
      (BASE_BYTES - 1024 - Q_BYTES - 2 * (size_t)STAGES * KV_BYTES + (VALS ? VALS_BYTES : 0) + 15) & ~(size_t)15;
  template <typename T>
  static constexpr size_t smem_bytes() {
    return BASE_BYTES + (VALS ? VALS_BYTES : 0) + (KVG ? RING_BYTES : 0);
  }
};

struct fh_args {
  fh_tmap tq, tk, tv;  // Q [B,Hq,M,D], K and V [B,Hkv,N,D]: boxes of 64 columns
  void* o;
  plan_rowvals rowvals;  // the values per row beside O (pointers may be null)
  int64_t o_sb, o_sh, o_sm;
  int B, Hq, Hkv, M, N;
  int D;  // the launch's head dim (at most the compiled one)
  plan_params p;
  // with span atoms: null, or fh_span_sum_kernel's summary, [B][Hq][span_chunks]
  // chunks of plan_span_chunk keys, each [lo, hi] per span (plan_span_narrow)
  const long* span_sum;
  int span_chunks;
  // with span_sum: null, or fh_span_rng_kernel's key range per row block,
  // [B][Hq][span_mblks] of {nbeg, nend, dr, 0} (RB; dr: DR's rows below hold)
  const int* span_rng;
  int span_mblks;
  // with span_rng: null, or each row's keys [lo, hi) by DR, [B][Hq][M]
  // (fh_span_rng_kernel, where its dr is set)
  const int2* span_rows;
  // fh_head_groups plans: 0, or the query heads a group
  // (fh_cta_coords; the launcher's plan_head_group), a multiple of Hq / Hkv
  int hgroup;
};

// Whether launches may take the heads in groups (fh_cta_coords; the
// launcher's plan_head_group says why and how large): heaviest-first plans
// whose every row block reads its keys from key 0.
constexpr bool fh_head_groups = plan_schedule == 1 && plan_mask_rows_from0;

// The CTA's (row block, head, batch).  With a.hgroup > 0 (fh_head_groups),
// the CTAs, in the order the grid launches them, take the (batch, head)
// pairs a group at a time, all the group's row blocks heaviest first and
// its heads fastest, then the next group: the CTAs that run at once read
// the K and V of one group's kv heads, which the launcher (plan_head_group)
// sizes to half the L2, where heads fastest over all heads had every SM of
// the GPU streaming a different head's K and V from memory (a causal launch
// of 32 heads: about 4 CTAs a head at a time).  The groups have a.hgroup
// query heads but the first, which has the remainder (a multiple of Hq / Hkv
// too): a small group last would start its heaviest blocks when the others'
// lightest are ending, and finish alone.  Else fa_cta_coords.  AGAIN: the same
// values computed anew from opaque inputs (the epilogue's stores): fa_cta_coords's
// come from blockIdx, which the compiler reads again where it needs them, but
// these would be kept live through the key tiles.
template <bool AGAIN = false>
__device__ __forceinline__ void fh_cta_coords(const fh_args& a, int* mblk, int* h, int* b) {
  if constexpr (fh_head_groups) {
    if (a.hgroup > 0) {
      const int nb = (int)gridDim.z, hb_all = (int)(gridDim.x * gridDim.y);
      const int S = AGAIN ? (int)fa_opaque((uint32_t)a.hgroup) : a.hgroup;
      const int first = hb_all - (hb_all - 1) / S * S;  // in (0, S]
      int L = (int)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
      if constexpr (AGAIN) L = (int)fa_opaque((uint32_t)L);
      int base = 0, sg = first;
      if (L >= first * nb) {
        L -= first * nb;
        const int g = L / (S * nb);
        L -= g * S * nb;
        base = first + g * S;
        sg = S;
      }
      const int hb = base + L % sg;
      *mblk = nb - 1 - L / sg;
      *h = hb % a.Hq;
      *b = hb / a.Hq;
      return;
    }
  }
  fa_cta_coords(mblk, h, b);
}

// The (batch, head) slot of the span workspace (the summary, the sorted
// words, RB's ranges, DR's rows) and the heads it has slots for: where the
// mask reads no head (plan_span_head_free: ids per batch and key, as
// docmask's), one slot a batch serves every head, made once; else one a
// (batch, query head).  Thirty-two heads of docmask-pf-32k made their rows'
// binary searches 32 times over (bench/NOTES.md, forty-first session).
__host__ __device__ constexpr int fh_span_heads(int Hq) { return plan_span_head_free ? 1 : Hq; }
__host__ __device__ constexpr long fh_span_bh(int b, int h, int Hq) {
  return plan_span_head_free ? (long)b : (long)b * Hq + h;
}

// The summary of the span atoms' key sides that plan_span_narrow reads: for
// each (batch, query head) slot bh = fh_span_bh(b, h, Hq) and chunk c of
// plan_span_chunk keys, span k's range over keys [c * chunk, min(c * chunk +
// chunk, N)) at sum[(bh * chunks + c) * nspans + k][0 and 1].  One warp a
// chunk, grid (chunks / warps a block, fh_span_heads(Hq), B); launched before
// the attention kernel on the same stream, so that each CTA's scan reads two
// values a chunk instead of the ids.
template <int NT>
// DR: with sorted (null: none), bit k of sorted[bh] (set by the
// launch) is cleared where span k's key side decreases somewhere: from a
// chunk's keys and the key before it.
__global__ void __launch_bounds__(NT) fh_span_sum_kernel(const plan_params p0, long* sum, int chunks,
                                                         unsigned* sorted) {
  const int c = (int)(blockIdx.x * (NT / 32) + threadIdx.x / 32);
  const int h = (int)blockIdx.y, b = (int)blockIdx.z;
  if (c >= chunks) return;  // uniform in a warp
  plan_params p = p0;
  plan_head_setup(p, b, h);
  const int x0 = c * plan_span_chunk, x1 = min(x0 + plan_span_chunk, p.N);
  long lo[plan_nspans > 0 ? plan_nspans : 1], hi[plan_nspans > 0 ? plan_nspans : 1];
  plan_span_range<false>(x0, x1, h, p, lo, hi);
  if (plan_sorted_rows && sorted) {
    unsigned down = 0;  // bit k: span k's key side decreases at a key of this lane's
    for (int x = x0 + (int)(threadIdx.x & 31); x < x1; x += 32)
#pragma unroll
      for (int k = 0; k < plan_nspans; ++k)
        if (x > 0 && plan_span_col(k, x - 1, h, p) > plan_span_col(k, x, h, p)) down |= 1u << k;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) down |= __shfl_xor_sync(0xffffffffu, down, o);
    if ((threadIdx.x & 31) == 0 && down) atomicAnd(&sorted[fh_span_bh(b, h, p.Hq)], ~down);
  }
  if ((threadIdx.x & 31) == 0) {
    long* out = sum + (fh_span_bh(b, h, p.Hq) * chunks + c) * (2 * plan_nspans);
#pragma unroll
    for (int k = 0; k < plan_nspans; ++k) {
      out[2 * k] = lo[k];
      out[2 * k + 1] = hi[k];
    }
  }
}

// RB: each row block's key range, narrowed by plan_span_narrow from the
// summary, at rng[(bh * mblks + mblk) * 4 + 0 and 1] (bh = fh_span_bh), for the
// attention kernel's CTAs to read instead of scanning the summary each: the
// scan, its loads of the rows' values and its barrier are latency before a
// CTA's first copy of K (docmask's CTA start was 15.7 % of its stall samples
// on an H200, bench/NOTES.md, thirty-eighth session).  One block a row block
// of BM rows, grid (mblks, fh_span_heads(Hq), B); launched after fh_span_sum_kernel on the
// same stream.  The range is plan_span_narrow's for any NT (a hull of whole
// chunks), so the same as the attention kernel's own scan.
// DR: where rows is not null and the summary found every span's key side
// nondecreasing (sorted, plan_sorted_rows), each row's keys instead
// (plan_row_keys_sorted: binary searches in the ids) into rows[bh * M + i],
// the range their hull, and rng[.. + 2] = 1: the attention
// kernel then classifies tiles and masks keys by the rows' bounds.
template <int NT, int BM>
__global__ void __launch_bounds__(NT) fh_span_rng_kernel(const __grid_constant__ fh_args a, int* rng,
                                                         const unsigned* sorted, int2* rows) {
  const int mblk = (int)blockIdx.x, h = (int)blockIdx.y, b = (int)blockIdx.z;
  const int m0 = mblk * BM, m1 = min(m0 + BM, a.M);
  const long bh = fh_span_bh(b, h, a.Hq);
  plan_params p = a.p;
  plan_head_setup(p, b, h);
  constexpr unsigned all = plan_nspans > 0 ? (1u << plan_nspans) - 1u : 0u;
  const bool dr = plan_sorted_rows && rows && sorted && (sorted[bh] & all) == all;  // the same in the block
  int nbeg, nend;
  if (dr) {
    __shared__ int red[NT / 32][2];
    int first = 2147483647, last = -1;  // the hull of the rows' nonempty intervals
    for (int i = m0 + (int)threadIdx.x; i < m1; i += NT) {
      int lo, hi;
      plan_row_keys_sorted(i, h, p, &lo, &hi);
      rows[bh * a.M + i] = make_int2(lo, hi);
      if (lo < hi) {
        first = min(first, lo);
        last = max(last, hi - 1);
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      first = min(first, __shfl_xor_sync(0xffffffffu, first, o));
      last = max(last, __shfl_xor_sync(0xffffffffu, last, o));
    }
    if ((threadIdx.x & 31) == 0) {
      red[threadIdx.x / 32][0] = first;
      red[threadIdx.x / 32][1] = last;
    }
    __syncthreads();
    for (int w = 0; w < NT / 32; ++w) {
      first = min(first, red[w][0]);
      last = max(last, red[w][1]);
    }
    nbeg = last < 0 ? 0 : first;
    nend = last < 0 ? 0 : last + 1;
  } else {
    plan_key_range(m0, m1, p, &nbeg, &nend);  // every warp, all lanes
    nbeg = max(nbeg, 0);
    nend = min(nend, a.N);
    plan_span_narrow<NT>(m0, m1, h, p, a.span_sum + bh * a.span_chunks * (2 * plan_nspans), &nbeg, &nend);
  }
  if (threadIdx.x == 0) {
    int* r = rng + (bh * gridDim.x + mblk) * 4;
    r[0] = nbeg;
    r[1] = nend;
    r[2] = dr ? 1 : 0;
    r[3] = 0;
  }
}

// DR's class code for a masked tile (3 + 4 truth, as the known tiles'): a
// truth no plan's span atoms give (at most FG_MAX_SPANS of them), read by the
// masked step as "the rows' bounds from span_rows"
constexpr unsigned fh_dr_truth = 1u << 8;
static_assert(!plan_sorted_rows || plan_known_rows, "DR takes the known tiles' masked step");

__device__ __forceinline__ void fh_st_shared_u32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void fh_st_shared_v2_s64(uint32_t addr, long x, long y) {
  asm volatile("st.shared.v2.s64 [%0], {%1, %2};\n" ::"r"(addr), "l"(x), "l"(y) : "memory");
}
__device__ __forceinline__ void fh_st_shared_s64(uint32_t addr, long x) {
  asm volatile("st.shared.s64 [%0], %1;\n" ::"r"(addr), "l"(x) : "memory");
}
__device__ __forceinline__ void fh_ld_shared_v2_s64(uint32_t addr, long* x, long* y) {
  asm volatile("ld.shared.v2.s64 {%0, %1}, [%2];\n" : "=l"(*x), "=l"(*y) : "r"(addr) : "memory");
}
__device__ __forceinline__ void fh_st_shared_f32(uint32_t addr, float x) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(x) : "memory");
}
__device__ __forceinline__ void fh_ld_shared_v2_f32(uint32_t addr, float* x, float* y) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(*x), "=f"(*y) : "r"(addr) : "memory");
}
__device__ __forceinline__ uint4 fh_ld_shared_v4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

template <typename T, class C>
__global__ void __launch_bounds__(C::NT, C::MINB) fh_attn_fwd_kernel(const __grid_constant__ fh_args a) {
#if FH_SM90A
  constexpr int D = C::D, BM = C::BM, BN = C::BN, STAGES = C::STAGES;
  constexpr int NS = C::NS, NO = C::NO, NB = BN / 8, DB = D / 8;
  using TT = fa_type<T>;
  using MS = fh_mma<T, BN>;  // S = Q K^T: m64 x BN
  using MO = fh_mma<T, D>;   // O += P V:  m64 x D

  extern __shared__ unsigned char fh_smem[];
  const uint32_t sQ = (fa_smem_u32(fh_smem) + 1023u) & ~1023u;  // tiles on 1024-byte atoms
  const uint32_t sK = sQ + C::Q_BYTES;
  const uint32_t sV = sK + STAGES * C::KV_BYTES;
  const uint32_t bars = sV + STAGES * C::KV_BYTES;
  const uint32_t q_full = bars;
  auto k_full = [&](int s) { return bars + 8u * (1 + s); };
  auto v_full = [&](int s) { return bars + 8u * (1 + STAGES + s); };
  auto k_empty = [&](int s) { return bars + 8u * (1 + 2 * STAGES + s); };
  auto v_empty = [&](int s) { return bars + 8u * (1 + 3 * STAGES + s); };
  // KVG: the ring of key values: its "values empty" barriers (fh_cfg::KE_BYTES),
  // then its slots
  auto keyv_empty = [&](int s) { return bars + (uint32_t)C::KEYV_OFF + 8u * s; };
  auto keyv_slot_at = [&](int s) { return bars + (uint32_t)(C::KEYV_OFF + C::KE_BYTES + s * C::KEYV_STAGE); };

  // the warpgroup through a broadcast from lane 0, so that the compiler
  // knows it is the same in every lane of a warp: what derives from it
  // (the consumer's Q rows, the operands' descriptors) then lives in
  // uniform registers, with no conversion from vector registers per product
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wg = __shfl_sync(0xffffffffu, tid >> 7, 0);
  int mblk, h, b;
  fh_cta_coords(a, &mblk, &h, &b);
  const int hkv = h / (a.Hq / a.Hkv);
  const int M = a.M, N = a.N;
  const int m0 = mblk * BM;
  const int m1 = min(m0 + BM, M);
  plan_params p = a.p;
  plan_head_setup(p, b, h);

  if (tid == 0) {
    fh_bar_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      fh_bar_init(k_full(s), C::KVG ? 33 : 1);  // KVG: and the key values' 32 lanes
      fh_bar_init(v_full(s), 1);
      fh_bar_init(k_empty(s), 4 * C::NCG);  // one arrival per consumer warp
      fh_bar_init(v_empty(s), 4 * C::NCG);
      if (C::KVG) fh_bar_init(keyv_empty(s), 128 * C::NCG);  // every consumer thread
    }
    fh_bar_init_fence();
  }
  __syncthreads();
  // The Q tile does not depend on the key range: its copy is in flight while
  // the range is found (with span atoms, a scan by the whole CTA).
  if (tid == 0) {
    fh_tma_prefetch_map(&a.tq);
    fh_tma_prefetch_map(&a.tk);
    fh_tma_prefetch_map(&a.tv);
    fh_bar_expect(q_full, C::Q_BYTES);
#pragma unroll
    for (int c = 0; c < C::ATOMS; ++c) fh_tma_load(sQ + c * (BM * 128), &a.tq, c * 64, m0, h, b, q_full);
  }

  int nbeg, nend;
  plan_key_range(m0, m1, p, &nbeg, &nend);  // every warp, all lanes
  nbeg = max(nbeg, 0);
  nend = min(nend, N);
  // DR: this CTA's rows' bounds (fh_span_rng_kernel), or null
  const int2* drows = nullptr;
  if constexpr (plan_nspans > 0) {
    if (a.span_rng) {  // RB: the range fh_span_rng_kernel narrowed
      const int4 r = *reinterpret_cast<const int4*>(a.span_rng + (fh_span_bh(b, h, a.Hq) * a.span_mblks + mblk) * 4);
      nbeg = r.x;
      nend = r.y;
      if (plan_sorted_rows && r.z && a.span_rows) drows = a.span_rows + fh_span_bh(b, h, a.Hq) * M;
    } else {  // the whole CTA (a.span_rng is the same in every thread)
      plan_span_narrow<C::NT>(
          m0, m1, h, p,
          a.span_sum ? a.span_sum + fh_span_bh(b, h, a.Hq) * a.span_chunks * (2 * plan_nspans) : nullptr, &nbeg,
          &nend);
    }
  }
  // The key range is the same in every lane (plan_key_range merges its
  // lanes, plan_span_narrow the CTA's); taken from lane 0, the compiler
  // knows so, and the ring's slots and their descriptors stay in uniform
  // registers.
  const int t_lo = __shfl_sync(0xffffffffu, nbeg / BN, 0);
  const int t_hi = __shfl_sync(0xffffffffu, nend > nbeg ? (nend + BN - 1) / BN : nbeg / BN, 0);

  if (wg == 0) {
    // ---------------------------------------------------------- producer
    fh_regs_dec<24>();
    if (warp == 0 && lane == 0) {
      for (int t = t_lo, it = 0; t < t_hi; ++t, ++it) {
        const int s = it % STAGES;
        const unsigned used = (unsigned)((it / STAGES - 1) & 1);  // the slot's last use
        const uint32_t ks = sK + s * C::KV_BYTES, vs = sV + s * C::KV_BYTES;
        if (it >= STAGES) fh_bar_wait(k_empty(s), used);
        fh_bar_expect(k_full(s), C::KV_BYTES);
#pragma unroll
        for (int c = 0; c < C::ATOMS; ++c) fh_tma_load(ks + c * (BN * 128), &a.tk, c * 64, t * BN, hkv, b, k_full(s));
        if (it >= STAGES) fh_bar_wait(v_empty(s), used);
        fh_bar_expect(v_full(s), C::KV_BYTES);
#pragma unroll
        for (int c = 0; c < C::ATOMS; ++c) fh_tma_load(vs + c * (BN * 128), &a.tv, c * 64, t * BN, hkv, b, v_full(s));
      }
    } else if (warp == 1) {
      if constexpr (C::KVG) {
        // KVG: the key values of tile t into slot s of their ring, one key a
        // lane at a time, then each lane's arrival on "K full": the consumers
        // wait for it before S anyway.  The slot is taken again once "values
        // empty" says every consumer thread has read its last tile's (each
        // arrives after that tile's softmax).  "V empty", given after the
        // next tile's P V, left these loads no slack at two stages.
        constexpr int NKV = plan_nkeyvals > 0 ? plan_nkeyvals : 1, KPL = (BN + 31) / 32;
        for (int t = t_lo, it = 0; t < t_hi; ++t, ++it) {
          const int s = it % STAGES;
          if (it >= STAGES) fh_bar_wait(keyv_empty(s), (unsigned)((it / STAGES - 1) & 1));
          const uint32_t ks = keyv_slot_at(s);
#pragma unroll
          for (int r = 0; r < KPL; ++r) {
            const int x = r * 32 + lane;
            if (BN % 32 == 0 || x < BN) {
              float kv[NKV];
              plan_key_values(t * BN + x, p, kv);
              if constexpr (plan_kv_recip)
                fh_st_shared_f32(ks + 4u * (uint32_t)x, fa_rcp(plan_key_factor(kv, p)));
              else
#pragma unroll
                for (int k = 0; k < NKV; ++k) fh_st_shared_f32(ks + 4u * (uint32_t)(k * BN + x), kv[k]);
            }
          }
          fh_bar_arrive(k_full(s));
        }
      }
    }
  } else {
    // ---------------------------------------------------------- consumers
    fh_regs_inc<C::CREGS>();
    const int cw = wg - 1;      // consumer group: rows 64 cw .. 64 cw + 63 of the tile
    const int wq = warp & 3;    // warp within the group: 16 of those rows
    const int g = lane >> 2, tq = lane & 3;
    const int r0 = m0 + cw * 64;
    const int r1 = min(r0 + 64, M);
    const uint32_t q_rows = sQ + cw * (64 * 128);

    float o[NO], sacc[NS];  // sacc: written by each tile's first product
#pragma unroll
    for (int i = 0; i < NO; ++i) o[i] = 0.f;
    float mrow[2] = {-INFINITY, -INFINITY}, lrow[2] = {0.f, 0.f};
    // FOLD: the score is plan_score_inner times plan_score_scale(p) > 0 (qk
    // times the scale, or cap * tanh(qk * k)): the row max is taken on the
    // inner part and the constant folds into the exp2 argument's FFMA
    constexpr bool FOLD = plan_score_folds;
    const float sc = FOLD ? plan_score_scale(p) : 1.f;
    // FIXM: the score's varying part is bounded (plan_score_bound: tanh's
    // 1), so exp2's argument x * sc lies within [-bsc, bsc].  Where bsc <= 78
    // a fixed offset fixc = max(bsc - 40, 0) stands for the running max: every
    // weight exp2(x * sc - fixc) lies in [2^-116, 2^40] (normal floats), O
    // and L carry the same factor exp2(m - fixc), which O / L cancels, and
    // LSE = fixc + log2(L) is the same value (plan_score_bound is 0 where a
    // value per row is not: the max itself as an output).  No row max, no
    // correction, no rescale of O.  P is packed in bf16 (float's range);
    // fp16 (2^-24 .. 65504) keeps the running max, as does a larger bsc.
    constexpr bool FIXM_C = FOLD && plan_score_bound > 0.f && TT::F32_RANGE;
    const float bsc = plan_score_bound * sc;
    const bool fixm = FIXM_C && bsc <= 78.f;
    // LAZY: below (the softmax); not with a bounded score (FIXM's plans:
    // their copy without FIXM, in fp16 or past the cap, keeps the running max,
    // and in call 3 of 2026-11-29 their FIXM copy moved by -4 % to +5 % when
    // the other copy changed), nor with a tile-affine score (relbias: its D 64
    // kernels spilled 6 bytes with it)
    // TRUEM: a value per row reads the max or the sum alone (maxlogit's Mx):
    // LAZY all the same, with the row's true max kept beside the held one
    // (one FMNMX a row a tile); the values per row take the true max and the
    // sum rescaled to it (the epilogue).  One chain only: a pass of several
    // stores its own values per row.
    constexpr bool LAZY = (plan_max_free || plan_nchains == 1) && plan_softmax &&
                          !(FOLD && plan_score_bound > 0.f) && !plan_score_tile_affine;
    constexpr bool TRUEM = LAZY && !plan_max_free;
    float mtrue[2] = {-INFINITY, -INFINITY};  // TRUEM only
    // LINA: a score linear in the key (plan_score_keylin, ALiBi: qk times a
    // factor plus a slope times a term linear in the key) takes its term
    // from the tensor cores.  Before each S = Q K^T, lin_init sets the
    // thread's accumulators to the term of its first row at its keys over
    // the qk factor (the same for its other row, whose own offset, constant
    // along the row, is added to its max in the epilogue), and the product
    // adds qk to them: the softmax then takes the row max on the sum and
    // folds the factor into the exp2 argument's FFMA, as FOLD does (the
    // host refuses a factor that is not > 0).  Half of the term's
    // arithmetic an element: the thread's two rows share the values.
    constexpr bool LINA = FH_LIN_ACC && plan_score_keylin && !FOLD && !plan_score_tile_affine && plan_softmax;
    const float lq = LINA ? plan_keylin_slope(p) / plan_keylin_qk(p) : 0.f;
    auto lin_init = [&](int t) {
      if constexpr (LINA) {
        const float l0 = lq * (float)plan_keylin_int(r0 + wq * 16 + g, t * BN + 2 * tq, p);
#pragma unroll
        for (int nb = 0; nb < NS / 4; ++nb)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const float v = fmaf(lq, (float)(plan_keylin_step * (nb * 8 + c)), l0);
            sacc[nb * 4 + c] = v;
            sacc[nb * 4 + 2 + c] = v;
          }
      } else {
        (void)t;
      }
    };
    // LINA: every accumulator in its register before the product's fence
    // (called just before it): the copies of the other row came after the
    // fence without this (PTX of 2026-11-30), where the PTX ISA wants no
    // write to a wgmma's accumulators between its fence and the product.
    // Pinned at the end of lin_init instead, before the waits for the K tile
    // and the turn, alibi-8k and 32k were 1.3 % slower on an H200.
    auto lin_pin = [&]() {
      if constexpr (LINA) fh_pin<NS>(sacc);
    };
    const float fixc = fmaxf(bsc - 40.f, 0.f);
    if (fixm) mrow[0] = mrow[1] = fixc;

    // The weight's values at the key alone (plan_key_values: a per-key gate,
    // without a softmax chain; KVS).  With fh_cfg's KVG the producer group's
    // second warp has put tile t's in slot keyv_slot of their ring (set before
    // each tile's softmax), and a thread takes its two keys of a column block
    // with one 8-byte load: siggate was 0.83-0.88 of sigmoid's TFLOP/s
    // without the ring, 0.97-0.98 with it (bench/NOTES.md, thirty-second
    // session).  Without KVG (the ring does not fit), while S of tile t is on
    // the tensor cores each lane loads them for keys lane, lane + 32, ... of
    // the tile, and the softmax takes a key's from its lane by a shuffle (the
    // key of accumulator column 8 nb + 2 tq + c is at lane (8 nb + 2 tq + c)
    // % 32 in register nb / 4).  KVR (plan_kv_recip: the weight is sigmoid(X)
    // times F of the key values): 1 / F, one value a key.
    constexpr bool KVS = C::KVS, KVR = KVS && plan_kv_recip;
    constexpr int NKV = plan_nkeyvals > 0 ? plan_nkeyvals : 1, NSH = KVR ? 1 : NKV, KPL = (BN + 31) / 32;
    static_assert(NSH == C::KV_NSH, "the key values a key");
    uint32_t keyv_slot = keyv_slot_at(0);
    auto keyv_release = [&](int s) {  // KVG: this thread has read slot s of the key values
      if constexpr (C::KVG) fh_bar_arrive(keyv_empty(s));
    };
    float kvl[KVS && !C::KVG ? KPL : 1][NSH];
    auto keyv_load = [&](int t) {
      if constexpr (KVS && !C::KVG) {
#pragma unroll
        for (int r = 0; r < KPL; ++r) {
          float kv[NKV];
          plan_key_values(t * BN + r * 32 + lane, p, kv);
#pragma unroll
          for (int k = 0; k < NSH; ++k) kvl[r][k] = KVR ? fa_rcp(plan_key_factor(kv, p)) : kv[k];
        }
      }
    };

    constexpr int SK = plan_nspans > 0 ? plan_nspans : 1, SPER = (BN + 31) / 32;  // every key of the tile
    // The rows' ranges (the same in every lane: plan_span_range merges the
    // warp's) wait in this warp's words of shared memory and are read back
    // per tile: at D 256 registers are the kernel's bound.
    const uint32_t span_base = bars + C::SPAN_OFF;
    const uint32_t span_rows = span_base + (uint32_t)(warp - 4) * (16 * SK);
    const uint32_t span_keys = span_base + (uint32_t)(4 * C::NCG + warp - 4) * (16 * SK);
    // VALS: a masked tile whose span atoms are not known (rows of two
    // documents, or the tile where the rows' document starts) takes its keys'
    // values from this warp's copy here (span k's at key offset x at
    // span_vals + 8 (k BN + x)), written by its classification from the
    // values it loaded, and its rows' from two loads a thread: each element
    // compares values in registers where plan_visible would load both
    const uint32_t span_vals = span_base + (uint32_t)(2 * 4 * C::NCG * 16 * SK + (warp - 4) * (BN * 8 * SK));

    // Score/mask hooks and the online softmax of the tile at n0 (S in
    // sacc): sacc becomes P, l and m are updated; corr[] receives the
    // correction of each of the thread's two rows, which O takes once the
    // product that is still adding into it has completed.
    // AFF: the score is qk * asc + aoff on this tile (plan_score_tile_bias),
    // which takes the fold's path with an offset.
    // A pair's visibility from its row's and its key's span values (VALS):
    // the span atoms decided between two values (plan_spans_known of two
    // one-value ranges, which decides them), the linear atoms at (i, j)
    auto visible_vals = [&](int i, int j, const long* rv_, const long* cv_) {
      unsigned tr = 0;
      (void)plan_spans_known(rv_, rv_, cv_, cv_, &tr);
      return plan_visible_known(i, j, tr, p);
    };
    // CLS (below, with the tile classes): whether this CTA's consumers take
    // each tile's class from their lanes' classes made once from the launch's
    // summary (cls_on: the summary is there, and the key range is at most 32
    // tiles, the same in every thread of the CTA)
    constexpr bool CLS_C = plan_nspans > 0 && BN % plan_span_chunk == 0;
    const long* ssum =
        CLS_C && a.span_sum ? a.span_sum + fh_span_bh(b, h, a.Hq) * a.span_chunks * (2 * plan_nspans) : nullptr;
    const bool cls_on = ssum != nullptr && t_hi - t_lo <= 32;
    // FX: FIXM (above) at compile time: the consumers' loop is instantiated
    // for both values where the plan may take it, and chosen once (a
    // run-time test inside the softmax cut it into blocks that ptxas
    // schedules apart: softcap-pf-32k 6 % slower on an H200, 2026-11-29).
    // CL: CLS, likewise (a run-time test, with both ways live through the
    // loop, spilled 304 bytes in docmask's D 96 kernel of 128-key tiles)
    auto consume = [&](auto fx_tag, auto cl_tag) {
      constexpr bool FX = decltype(fx_tag)::value;
      constexpr bool CL = CLS_C && decltype(cl_tag)::value;
      auto softmax = [&](auto masked_tag, auto aff_tag, int n0, float* corr, float asc, float aoff,
                         auto known_tag, unsigned truth, auto vals_tag) {
        constexpr bool MASKED = decltype(masked_tag)::value;
        constexpr bool AFF = decltype(aff_tag)::value;
        // KNOWN (a masked tile with its span atoms known, class >= 3 below):
        // each element from its linear atoms and the spans' truth bits
        constexpr bool KNOWN = MASKED && decltype(known_tag)::value;
        // VALS (a masked tile of class 1 with span atoms, its keys' values in
        // span_vals): each element's span atoms decided from the values of its
        // row and key, its linear atoms as in KNOWN
        constexpr bool VALS = MASKED && !KNOWN && decltype(vals_tag)::value;
        (void)truth;
        (void)asc;
        (void)aoff;
        const int ibase = (int)fa_opaque((uint32_t)(r0 + wq * 16 + g));
        const int jbase = (int)fa_opaque((uint32_t)(n0 + 2 * tq));
        // LIN: the score is qk times a constant plus a slope times an integer
        // term linear in the key (plan_keylin_*, ALiBi): the term of the
        // thread's first row at its keys is fmaf(slope, step k, lin0), one value
        // a tile, and the thread's other row takes the same values (its own
        // offset, constant along the row, is added to its max in the epilogue)
        static_assert(!(plan_score_keylin && (plan_score_folds || plan_score_tile_affine)) &&
                          !(plan_score_diag && (plan_score_folds || plan_score_keylin)),
                      "the kernel model binds one form of the score");
        // LINA: the term is in sacc already (lin_init before the product),
        // so the element is qk + term / qk factor: the row max on it, the
        // factor into the exp2 argument's FFMA, as FOLD
        constexpr bool LIN = plan_score_keylin && !FOLD && !AFF && !LINA;
        constexpr bool RAW = FOLD || LINA;  // the max on raw values, times rsc
        const float rsc = FOLD ? sc : LINA ? plan_keylin_qk(p) : 1.f;
        const float lsl = LIN ? plan_keylin_slope(p) : 0.f;
        const float lin0 = LIN ? lsl * (float)plan_keylin_int(ibase, jbase, p) : 0.f;
        // DIAG: the term of the score past qk reads the row and the key only
        // through their difference (plan_score_diag, a table at a clamped
        // distance), on a tile where it is not one value: the thread's
        // elements (rows ibase + 8 a, keys jbase + 8 nb + c) lie on the
        // 2 (NB + 1) diagonals nb - a + 1, c; the term is taken once a
        // diagonal, at its element in row ibase (row ibase + 8 for nb - a =
        // -1), which is a real row and key wherever the other is
        constexpr bool DIAG = plan_score_diag && !AFF;
        const float dqk = DIAG ? plan_score_qk_scale(p) : 0.f;
        float dg[DIAG ? NB + 1 : 1][2];
        if constexpr (DIAG) {
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            dg[0][c] = plan_score_bias(ibase + 8, jbase + c, h, p);
#pragma unroll
            for (int u = 0; u < NB; ++u) dg[u + 1][c] = plan_score_bias(ibase, jbase + u * 8 + c, h, p);
          }
        }
        // with an interval of keys per row (plan_mask_rows), the bounds of
        // the thread's two rows less jbase: a key's test is then one or two
        // compares of its constant offset, in place of plan_visible and j < N
        // (the loops keep their order: with rows outer, ptxas spilled in
        // sinkwindow's kernels, which test plan_visible)
        long rv[VALS ? 2 : 1][SK];  // VALS: the thread's two rows' values (rows past M: the last row's)
        if constexpr (VALS)
#pragma unroll
          for (int hr = 0; hr < 2; ++hr)
#pragma unroll
            for (int k = 0; k < SK; ++k) rv[hr][k] = plan_span_row(k, min(ibase + hr * 8, M - 1), h, p);
        // KROWS: a KNOWN tile where each row sees one interval of keys
        // (plan_known_rows: docmask inside a document is causal's diagonal):
        // its bounds from plan_row_keys_known, one compare a key as with
        // plan_mask_rows, in place of plan_visible_known's 64-bit atoms
        constexpr bool KROWS = KNOWN && plan_known_rows;
        int klo[2] = {0, 0}, khi[2] = {0, 0};
        if constexpr (MASKED && (plan_mask_rows || KROWS)) {
#pragma unroll
          for (int hr = 0; hr < 2; ++hr) {
            if constexpr (plan_mask_rows) {
              plan_row_keys(ibase + hr * 8, p, &klo[hr], &khi[hr]);
            } else if (plan_sorted_rows && truth == fh_dr_truth) {  // DR: the row's bounds
              const int i = ibase + hr * 8;
              const int2 rb = i < M ? drows[i] : make_int2(0, 0);
              klo[hr] = rb.x;
              khi[hr] = rb.y;
            } else {
              plan_row_keys_known(ibase + hr * 8, truth, p, &klo[hr], &khi[hr]);
            }
            klo[hr] -= jbase;
            khi[hr] -= jbase;
          }
        }
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) {
          float kvk[2][NSH];  // the key values (KVR: 1 / F) of the thread's two keys here (KVS)
          if constexpr (C::KVG)
#pragma unroll
            for (int k = 0; k < NSH; ++k)
              fh_ld_shared_v2_f32(keyv_slot + 4u * (uint32_t)(k * BN + nb * 8 + 2 * tq), &kvk[0][k], &kvk[1][k]);
          else if constexpr (KVS)
#pragma unroll
            for (int c = 0; c < 2; ++c)
#pragma unroll
              for (int k = 0; k < NSH; ++k)
                kvk[c][k] = __shfl_sync(0xffffffffu, kvl[nb / 4][k], (nb * 8 + 2 * tq + c) & 31);
          // VALS: the values of the thread's two keys here (offsets 8 nb + 2 tq
          // and the next: one 16-byte load a span)
          long cv[2][SK];
          if constexpr (VALS)
#pragma unroll
            for (int k = 0; k < SK; ++k)
              fh_ld_shared_v2_s64(span_vals + 8u * (uint32_t)(k * BN + nb * 8 + 2 * tq), &cv[0][k], &cv[1][k]);
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int i = ibase + (e >> 1) * 8;
            const int j = jbase + nb * 8 + (e & 1);
            float x = AFF || LINA ? sacc[nb * 4 + e]
                      : DIAG ? fmaf(sacc[nb * 4 + e], dqk, dg[nb - (e >> 1) + 1][e & 1])
                      : FOLD ? plan_score_inner(sacc[nb * 4 + e], i, j, h, p)
                      : LIN  ? fmaf(sacc[nb * 4 + e], plan_keylin_qk(p),
                                    fmaf(lsl, (float)(plan_keylin_step * (nb * 8 + (e & 1))), lin0))
                             : plan_score(sacc[nb * 4 + e], i, j, h, p);
            if constexpr (!plan_softmax)  // no softmax chain: the key's weight
              x = KVR   ? plan_weight_kv_recip(x, i, j, h, kvk[e & 1][0], p)
                  : KVS ? plan_weight_kv(x, i, j, h, kvk[e & 1], p)
                        : plan_weight(x, i, j, h, p);
            if constexpr (MASKED) {
              const int jo = nb * 8 + (e & 1);  // j - jbase
              const bool vis =
                  plan_mask_rows ? (plan_mask_rows_from0 || jo >= klo[e >> 1]) && jo < khi[e >> 1]
                  : KROWS        ? jo >= klo[e >> 1] && jo < khi[e >> 1]  // bounds within N
                  : KNOWN        ? j < N && plan_visible_known(i, j, truth, p)
                  : VALS         ? j < N && visible_vals(i, j, rv[e >> 1], cv[e & 1])
                                 : j < N && plan_visible(i, j, p);
              if (!vis) x = plan_softmax ? -INFINITY : 0.f;
            }
            sacc[nb * 4 + e] = x;
          }
        }
        if constexpr (!plan_softmax) {  // sacc holds the weights (P); O takes no correction
          corr[0] = corr[1] = 1.f;
          return;
        }
#pragma unroll
        for (int hr = 0; hr < 2; ++hr) {
          float msafe = fixc;
          corr[hr] = 1.f;
          if constexpr (!FX) {
            float tm = fmaxf(sacc[2 * hr], sacc[2 * hr + 1]);
#pragma unroll
            for (int nb = 1; nb < NB; ++nb) tm = fmaxf(tm, fmaxf(sacc[nb * 4 + 2 * hr], sacc[nb * 4 + 2 * hr + 1]));
            tm = fmaxf(tm, __shfl_xor_sync(0xffffffffu, tm, 1));
            tm = fmaxf(tm, __shfl_xor_sync(0xffffffffu, tm, 2));
            float mx = fmaxf(mrow[hr], RAW ? tm * rsc : AFF ? fmaf(tm, asc, aoff) : tm);
            if constexpr (TRUEM) mtrue[hr] = fmaxf(mtrue[hr], mx);
            // LAZY (plan_max_free, or TRUEM): the max held lags the row's while it is
            // within 8 of it (weights below 2^8), so that most tiles take
            // no correction and O no rescale (rescale_pack)
            if constexpr (LAZY) mx = mx <= mrow[hr] + 8.f ? mrow[hr] : mx;
            msafe = (mx == -INFINITY) ? 0.f : mx;
            corr[hr] = plan_correction(mrow[hr], msafe);
            mrow[hr] = mx;
          }
          float sum = 0.f;
#pragma unroll
          for (int nb = 0; nb < NB; ++nb) {
            float* x = &sacc[nb * 4 + 2 * hr];
            const float p0 = fa_ex2(RAW ? fmaf(x[0], rsc, -msafe) : AFF ? fmaf(x[0], asc, aoff - msafe) : x[0] - msafe);
            const float p1 = fa_ex2(RAW ? fmaf(x[1], rsc, -msafe) : AFF ? fmaf(x[1], asc, aoff - msafe) : x[1] - msafe);
            x[0] = p0;
            x[1] = p1;
            sum += p0 + p1;
          }
          lrow[hr] = lrow[hr] * corr[hr] + sum;  // corr 1 under FIXM: folded
        }
      };

      // The tiles are pipelined inside the group (FlashAttention-3's
      // intra-warpgroup overlap): S of tile t is issued, then O += P V of the
      // previous tile, and the softmax of tile t runs while that product is
      // still on the tensor cores; O takes the correction after it completes.
      // The first tile is peeled off and a tile with nothing visible to this
      // group runs the masked step (all of its P is 0): no product is issued
      // under a condition, so that ptxas need not serialise them.
      uint32_t pa[BN / 16][4];  // P of the previous tile as A fragments
      // QR: this group's Q rows as A fragments in registers, read once from the
      // Q tile after it lands (ldmatrix from the 128-byte swizzled layout the
      // copy engine wrote), so that S = Q K^T reads only K from shared memory:
      // a fifth less of a tile's operand reads.  Where the registers allow it:
      // D at most 128 and S of at most 128 keys (the 176-key tiles, which the
      // default rules give the long rows, and D 256 hold more), and not with a
      // term per diagonal (relbias: its D 128 kernels spilled 258 bytes, D 96
      // 4).  Measured on an H200 in two calls (bench/NOTES.md, thirty-fourth
      // session): causal-8k +1.5-2 %, docmask-32k +2.5 %; the other cases it
      // reaches within the spread that kernels identical in both builds showed
      // there (-1.2 to +0.6 %).
      constexpr bool QR = FH_Q_REGS && D <= 128 && BN <= 128 && !plan_score_diag;
      uint32_t qa[QR ? D / 16 : 1][4];
      auto release = [&](uint32_t bar) {
        __syncwarp();
        if (lane == 0) fh_bar_arrive(bar);  // this warp is done with the K or V tile
      };
      // The two consumer groups take turns on the tensor cores (ping-pong):
      // a group issues its products between fh_named_sync on its own barrier
      // and fh_named_arrive on the other's, then runs its softmax while the
      // other group's products run.  Both groups take the same number of
      // turns (one per key tile and one after the loop); group 0 starts, and
      // consumes group 1's last arrival at the end.
      const int my_turn = 3 + cw, their_turn = 4 - cw;
      auto take_turn = [&]() {
        if constexpr (C::PP) fh_named_sync(my_turn, 256);
      };
      auto give_turn = [&]() {
        if constexpr (C::PP) fh_named_arrive(their_turn, 256);
      };
      if (C::PP && cw == 1) fh_named_arrive(3, 256);
      // The operands' descriptors: one per tile, the k-steps' by adding their
      // offsets (fh_desc_add)
      const uint64_t dq = fh_desc(q_rows, 16, 1024);
      auto issue_s = [&](int s) {  // S = Q K^T of the K tile in slot s
        const uint64_t dk = fh_desc(sK + s * C::KV_BYTES, 16, 1024);
        if constexpr (QR) {
          if constexpr (LINA)  // the accumulators hold the term (lin_init)
            MS::rsk(sacc, qa[0], dk, 1);
          else
            MS::rsk0(sacc, qa[0], dk);
#pragma unroll
          for (int kk = 1; kk < D / 16; ++kk)
            MS::rsk(sacc, qa[kk], fh_desc_add(dk, (kk >> 2) * (BN * 128) + (kk & 3) * 32), 1);
        } else {
          if constexpr (LINA)
            MS::ss(sacc, dq, dk, 1);
          else
            MS::ss0(sacc, dq, dk);
#pragma unroll
          for (int kk = 1; kk < D / 16; ++kk)
            MS::ss(sacc, fh_desc_add(dq, (kk >> 2) * (BM * 128) + (kk & 3) * 32),
                   fh_desc_add(dk, (kk >> 2) * (BN * 128) + (kk & 3) * 32), 1);
        }
        fh_wg_commit();
      };
      auto issue_pv = [&](int s) {  // O += P V of the V tile in slot s
        const uint64_t dv = fh_desc(sV + s * C::KV_BYTES, BN * 128, 1024);
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) MO::rs(o, pa[kk], fh_desc_add(dv, kk * 2048), 1);
        fh_wg_commit();
      };
      // The class of tile t for this group's rows: from the closed forms, and
      // with span atoms from the ranges of their values over the rows (once)
      // and the tile's keys (read by each warp one tile ahead, so that the
      // loads' latency hides behind a tile's work), or with CLS (below) for
      // each warp's rows from the launch's summary.
      long sv[SK][SPER];  // the span values of the next tile's keys, read one tile ahead
      // REST: where every span atom is known (plan_spans_known) between this
      // group's rows and all keys of the tiles after the first, those tiles
      // are classified from that key range (read once, each consumer warp a
      // slice of at most RSL keys, merged through shared memory, where it stays)
      // and their ids are not read again: for a document mask, a
      // group whose rows lie in one document, its key range narrowed to that
      // document's start.  The first tile, which holds the keys before the
      // range's start, is classified from its own keys; so is the last where
      // it holds keys past the range's end (which may belong to another
      // document, and which the range leaves out so as not to lose the rest).
      constexpr int RSL = 256;
      // rest: 0, or 1 + 2 truth where the span atoms are known over the rest,
      // bit 31 set where the last tile is not in it (one word: at D 256 a
      // register more spills); the rest is tiles t_lo + 1 .. t_hi - 1 - (rest >> 31)
      unsigned rest = 0;
      auto in_rest = [&](int t) { return rest && t > t_lo && t < t_hi - (int)(rest >> 31); };
      // CLS: with the launch's summary of the span values (a.span_sum, their
      // range over each plan_span_chunk keys), tiles of whole chunks and a key
      // range of at most 32 tiles (the same in every thread of the CTA), lane x
      // of each consumer warp classifies tile t_lo + x once, before the first
      // tile, for the warp's own 16 rows, from its chunks' entries of the
      // summary; a tile's class is then one shuffle (code_of), and a tile's
      // keys' values are read only where its masked step takes them (VALS;
      // the first tile's always, beside the summary's loads).
      // This stands in for REST's scan, each tile's fold of its keys' values
      // across the warp and the rows' ranges read back from shared memory
      // (a fifth of docmask's instructions on an H200, bench/NOTES.md,
      // thirty-eighth session); per warp, a tile is also more often full for
      // its rows than for the group's 64.  The classes come from the same
      // hooks (plan_tile_class_spans, plan_spans_known) as the fold's, on
      // the same keys' ranges (each tile is a union of whole chunks, cut at N
      // as the tile is) and the warp's rows'.
      int wcode = 0;  // CL: the class of tile t_lo + lane for this warp's rows
      auto code_of = [&](int t) { return __shfl_sync(0xffffffffu, wcode, (t - t_lo) & 31); };
      // DR (with CLS, where the launch made each row's keys from sorted ids:
      // drows): lane x's class of tile t_lo + x from the extremes of the
      // warp's 16 rows' bounds: full where every row sees every key of it,
      // else masked by each row's bounds (fh_dr_truth), one compare a key,
      // with no ids read in the loop
      if (CL && plan_sorted_rows && drows) {
        const int w0 = r0 + wq * 16, w1 = min(w0 + 16, r1);  // rows past M: none
        const int i = w0 + (lane & 15);
        const int2 rb = i < w1 ? drows[i] : make_int2(2147483647, -2147483647 - 1);
        int maxlo = i < w1 ? rb.x : -2147483647 - 1, minhi = i < w1 ? rb.y : 2147483647;
        for (int o = 8; o > 0; o >>= 1) {
          maxlo = max(maxlo, __shfl_xor_sync(0xffffffffu, maxlo, o));
          minhi = min(minhi, __shfl_xor_sync(0xffffffffu, minhi, o));
        }
        const int t = t_lo + lane, n0 = t * BN;
        // the last tile is masked where it is ragged (keys >= N); a warp
        // with no rows takes the masked step (every bound empty)
        const bool full = w0 < w1 && t < t_hi && n0 >= maxlo && n0 + BN <= minhi && n0 + BN <= N;
        wcode = full ? 2 : 3 + 4 * (int)fh_dr_truth;
      } else if constexpr (CL) {
        // the first tile's keys' values, in flight with the summary's loads
        if (C::VALS && plan_spans_decide && t_lo < t_hi)
          plan_span_load<SPER>(t_lo * BN, min(t_lo * BN + BN, N), h, p, sv);
        constexpr int CPT = BN / plan_span_chunk;  // chunks a tile
        const int t = t_lo + lane;
        long klo[SK], khi[SK], wlo[SK], whi[SK];
#pragma unroll
        for (int k = 0; k < SK; ++k) {
          klo[k] = 9223372036854775807L;
          khi[k] = -9223372036854775807L - 1;
        }
#pragma unroll
        for (int c = 0; c < CPT; ++c) {
          // every lane loads: past N (the second chunk of a ragged last tile
          // of 128 keys, or a lane past the range) the last chunk again, which
          // leaves the range of a tile cut at N exact
          const int cc = min(t * CPT + c, a.span_chunks - 1);
#pragma unroll
          for (int k = 0; k < SK; ++k) {
            const long l = ssum[2 * ((long)cc * plan_nspans + k)], u = ssum[2 * ((long)cc * plan_nspans + k) + 1];
            klo[k] = min(klo[k], l);
            khi[k] = max(khi[k], u);
          }
        }
        const int w0 = r0 + wq * 16, w1 = min(w0 + 16, r1);  // no rows past M: class 0
        plan_span_range<true>(w0, w1, h, p, wlo, whi);
        const int n0 = t * BN, n1 = min(n0 + BN, N);
        int cls = w0 < w1 && t < t_hi ? plan_tile_class_spans(w0, w1, n0, n1, wlo, whi, klo, khi, p) : 0;
        if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
        // 3 + 4 truth as tile_class's (span k known to hold on the tile where
        // bit k of truth is set).  A tile the warp's rows do not see (class 0)
        // takes the masked step, as one the group's rows do not see does in
        // tile_class: with its span atoms known where they are (each element's
        // test then reads no ids), else as a partial tile (VALS where the
        // copies fit, else plan_visible)
        unsigned truth;
        if (plan_spans_decide && cls <= 1 && t < t_hi && plan_spans_known(wlo, whi, klo, khi, &truth))
          cls = 3 + 4 * (int)truth;
        else if (cls == 0 && t < t_hi)
          cls = 1;
        wcode = cls;
      }
      if constexpr (plan_nspans > 0 && !CL) {
        long lo[SK], hi[SK];
        plan_span_range<true>(r0, r1, h, p, lo, hi);
        if (lane == 0)
#pragma unroll
          for (int k = 0; k < SK; ++k) fh_st_shared_v2_s64(span_rows + 16u * k, lo[k], hi[k]);
        __syncwarp();
        const bool last_own = t_hi * BN > nend;
        const int ka = (t_lo + 1) * BN, kb = (last_own ? t_hi - 1 : t_hi) * BN;  // kb <= nend <= N
        if (plan_spans_decide && ka < kb && kb - ka <= RSL * 4 * C::NCG) {  // the same in every consumer thread
          long rest_lo[SK], rest_hi[SK];
          const int x0 = ka + (warp - 4) * RSL;
          plan_span_range<false>(x0, min(x0 + RSL, kb), h, p, rest_lo, rest_hi);  // empty: lo > hi
          if (lane == 0)
#pragma unroll
            for (int k = 0; k < SK; ++k) fh_st_shared_v2_s64(span_keys + 16u * k, rest_lo[k], rest_hi[k]);
          fh_named_sync(5, 128 * C::NCG);
          for (int w = 0; w < 4 * C::NCG; ++w)
#pragma unroll
            for (int k = 0; k < SK; ++k) {
              long l, u;
              fh_ld_shared_v2_s64(span_base + (uint32_t)(4 * C::NCG + w) * (16 * SK) + 16u * k, &l, &u);
              rest_lo[k] = min(rest_lo[k], l);
              rest_hi[k] = max(rest_hi[k], u);
            }
          unsigned truth;
          if (r0 < r1 && plan_spans_known(lo, hi, rest_lo, rest_hi, &truth))
            rest = (1 + 2 * truth) | (last_own ? 0x80000000u : 0u);
          // the merged range back in this warp's words, read per tile (at D 256
          // registers are the kernel's bound), once every warp has read the slices
          fh_named_sync(5, 128 * C::NCG);
          if (lane == 0)
#pragma unroll
            for (int k = 0; k < SK; ++k) fh_st_shared_v2_s64(span_keys + 16u * k, rest_lo[k], rest_hi[k]);
          __syncwarp();
        }
      }
      auto span_load = [&](int t) {  // with span atoms only: tile t's key values into sv
        if (t < t_hi && !in_rest(t)) {
          if constexpr (!CL)
            plan_span_load<SPER>(t * BN, min(t * BN + BN, N), h, p, sv);
          else if (C::VALS && plan_spans_decide && code_of(t) == 1)  // CLS: only for VALS
            plan_span_load<SPER>(t * BN, min(t * BN + BN, N), h, p, sv);
        }
      };
      // VALS: a masked tile whose span atoms are not known: its keys' values
      // (in sv) into this warp's copy (the warp's lanes have read the last
      // copy: __syncwarp first)
      auto vals_copy = [&]() {
        __syncwarp();
#pragma unroll
        for (int k = 0; k < SK; ++k)
#pragma unroll
          for (int w = 0; w < SPER; ++w)
            if (lane + 32 * w < BN) fh_st_shared_s64(span_vals + 8u * (uint32_t)(k * BN + lane + 32 * w), sv[k][w]);
        __syncwarp();
      };
      auto tile_class = [&](int t) {  // with span atoms only, tile t's values in sv
        if constexpr (CL) {  // CLS: the class from this warp's lanes
          const int cls = code_of(t);
          if (C::VALS && plan_spans_decide && cls == 1) vals_copy();
          return cls;
        }
        const int n0 = t * BN, n1 = min(n0 + BN, N);
        // a group with no rows (past M) sees nothing
        long rlo[SK], rhi[SK];
#pragma unroll
        for (int k = 0; k < SK; ++k) fh_ld_shared_v2_s64(span_rows + 16u * k, &rlo[k], &rhi[k]);
        if (in_rest(t)) {
          long klo[SK], khi[SK];
#pragma unroll
          for (int k = 0; k < SK; ++k) fh_ld_shared_v2_s64(span_keys + 16u * k, &klo[k], &khi[k]);
          int cls = plan_tile_class_spans(r0, r1, n0, n1, rlo, rhi, klo, khi, p);
          if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
          return cls == 1 ? 3 + 4 * (int)((rest & 0x7fffffffu) >> 1) : cls;
        }
        long clo[SK], chi[SK];
        plan_span_fold<SPER>(sv, clo, chi);
        int cls = r0 < r1 ? plan_tile_class_spans(r0, r1, n0, n1, rlo, rhi, clo, chi, p) : 0;
        if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
        // 3 + 4 truth: masked, with every span atom known on the tile (all
        // pairs or none: rows and keys of one document; bit k of truth, span
        // k holds), so that the masked step reads no ids
        unsigned truth;
        if (plan_spans_decide && cls == 1 && plan_spans_known(rlo, rhi, clo, chi, &truth)) {
          cls = 3 + 4 * (int)truth;
        } else if (C::VALS && plan_spans_decide && cls == 1) {
          vals_copy();  // not known: the keys' values for VALS
        }
        return cls;
      };
      // The tile-affine score (plan_score_tile_bias) of tile t: whether it
      // holds, its scale and offset; taken one tile ahead, as the span values,
      // since the offset is a load.
      struct tile_aff {
        bool on;
        float sc, off;
      };
      auto affine_of = [&](int t) {
        tile_aff r = {false, 1.f, 0.f};
        if constexpr (plan_score_tile_affine)
          r.on = t < t_hi && r0 < r1 && plan_score_tile_bias(r0, r1, t * BN, min(t * BN + BN, N), h, p, &r.sc, &r.off);
        return r;
      };
      tile_aff aff_next = affine_of(t_lo);
      // softmax of tile t (S landed in sacc), O's correction, P into pa; with
      // span atoms the class was taken before the tile's wait (cls_early), and
      // af is the tile's affine form
      auto tile_softmax = [&](int t, int cls_early, tile_aff af) {
        const int n0 = t * BN;
        int cls = r0 < r1 ? plan_tile_class(r0, r1, n0, min(n0 + BN, N), p) : 0;
        if (cls == 2 && n0 + BN > N) cls = 1;  // ragged last tile: mask keys >= N
        if constexpr (plan_nspans > 0) cls = cls_early;
        float corr[2];
        const bool aff = plan_score_tile_affine && af.on;
        const float asc = af.sc, aoff = af.off;
        constexpr fa_bool<false> no{};
        if (aff && cls == 2)
          softmax(no, fa_bool<true>{}, n0, corr, asc, aoff, no, 0u, no);
        else if (aff)
          softmax(fa_bool<true>{}, fa_bool<true>{}, n0, corr, asc, aoff, no, 0u, no);
        else if (cls == 2)
          softmax(no, no, n0, corr, asc, aoff, no, 0u, no);
        else if (plan_spans_decide && cls >= 3)
          softmax(fa_bool<true>{}, no, n0, corr, asc, aoff, fa_bool<true>{}, (unsigned)(cls - 3) >> 2, no);
        else if (C::VALS && plan_spans_decide && cls == 1)  // the keys' values in span_vals (tile_class)
          softmax(fa_bool<true>{}, no, n0, corr, asc, aoff, no, 0u, fa_bool<true>{});
        else
          softmax(fa_bool<true>{}, no, n0, corr, asc, aoff, no, 0u, no);  // partial, or nothing visible here
        return make_float2(corr[0], corr[1]);
      };
      auto rescale_pack = [&](float2 corr) {
        // FIXM: no correction; LAZY: only where a row of the warp moved its max
        if (!FX && (!LAZY || __any_sync(0xffffffffu, corr.x != 1.f || corr.y != 1.f))) {
#pragma unroll
          for (int db = 0; db < DB; ++db) {
            o[db * 4 + 0] *= corr.x;
            o[db * 4 + 1] *= corr.x;
            o[db * 4 + 2] *= corr.y;
            o[db * 4 + 3] *= corr.y;
          }
        }
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
          pa[kk][0] = TT::pack(sacc[8 * kk + 0], sacc[8 * kk + 1]);
          pa[kk][1] = TT::pack(sacc[8 * kk + 2], sacc[8 * kk + 3]);
          pa[kk][2] = TT::pack(sacc[8 * kk + 4], sacc[8 * kk + 5]);
          pa[kk][3] = TT::pack(sacc[8 * kk + 6], sacc[8 * kk + 7]);
        }
      };

      fh_bar_wait(q_full, 0);
      if constexpr (QR) {
        // lane l: row 8 ((l / 8) % 2) + l % 8 of the warp's 16, 16-byte chunk
        // 2 kk + l / 16 of the row (matrices 0-3: rows 0-7 and 8-15 of the
        // step's first 8 columns, then of its next 8: the A layout)
        const int r = wq * 16 + ((lane >> 3) & 1) * 8 + (lane & 7);
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
          const int db = 2 * kk + (lane >> 4);
          fh_ldmatrix_x4(q_rows + (db >> 3) * (BM * 128) + r * 128 + (((db & 7) ^ (r & 7)) << 4), qa[kk]);
        }
        // the epilogue's stores of O into these rows come from other lanes of
        // this warp: ordered after every lane's loads (compute-sanitizer's
        // racecheck reported the pair where nothing else synchronised them)
        __syncwarp();
      }
      if (t_lo < t_hi) {
        // the first tile: S, softmax, P
        int cls0 = 0;
        if constexpr (plan_nspans > 0) {
          if constexpr (!CL) span_load(t_lo);  // CLS: read beside the classes
          cls0 = tile_class(t_lo);
          span_load(t_lo + 1);
        }
        lin_init(t_lo);
        fh_bar_wait(k_full(0), 0);
        take_turn();
        lin_pin();
        fh_wg_fence();
        issue_s(0);
        give_turn();
        keyv_load(t_lo);
        fh_wg_wait<0>();
        fh_pin<NS>(sacc);
        if constexpr (QR) fh_pin_u32<D / 4>(&qa[0][0]);  // the product read qa until here
        release(k_empty(0));
        tile_aff aff_cur = aff_next;
        if constexpr (plan_score_tile_affine) aff_next = affine_of(t_lo + 1);
        keyv_slot = keyv_slot_at(0);
        rescale_pack(tile_softmax(t_lo, cls0, aff_cur));
        keyv_release(0);
        int s_prev = 0;
        unsigned ph_prev = 0;
        for (int t = t_lo + 1, it = 1; t < t_hi; ++t, ++it) {
          const int s = it % STAGES;
          const unsigned ph = (unsigned)((it / STAGES) & 1);
          int cls = 0;
          if constexpr (plan_nspans > 0) {
            cls = tile_class(t);  // its values were read during the previous tile
            span_load(t + 1);
          }
          const tile_aff aff_t = aff_next;
          if constexpr (plan_score_tile_affine) aff_next = affine_of(t + 1);
          lin_init(t);
          fh_bar_wait(k_full(s), ph);
          fh_bar_wait(v_full(s_prev), ph_prev);
          fh_pin<NO>(o);
          take_turn();
          lin_pin();
          fh_wg_fence();
          issue_s(s);
          issue_pv(s_prev);
          give_turn();
          keyv_load(t);
          fh_wg_wait<1>();  // S has landed; P V may still run
          fh_pin<NS>(sacc);
          if constexpr (QR) fh_pin_u32<D / 4>(&qa[0][0]);
          release(k_empty(s));
          keyv_slot = keyv_slot_at(s);
          const float2 corr = tile_softmax(t, cls, aff_t);
          keyv_release(s);
          fh_wg_wait<0>();
          fh_pin<NO>(o);
          fh_pin_u32<BN / 4>(&pa[0][0]);  // the product read pa until here
          release(v_empty(s_prev));
          rescale_pack(corr);
          s_prev = s;
          ph_prev = ph;
        }
        // the last tile's P V
        fh_bar_wait(v_full(s_prev), ph_prev);
        fh_pin<NO>(o);
        take_turn();
        fh_wg_fence();
        issue_pv(s_prev);
        give_turn();
        fh_wg_wait<0>();
        fh_pin<NO>(o);
        fh_pin_u32<BN / 4>(&pa[0][0]);
        release(v_empty(s_prev));
      }
    };
    auto consume_cl = [&](auto fx_tag) {
      if constexpr (CLS_C) {
        if (cls_on)
          consume(fx_tag, fa_bool<true>{});
        else
          consume(fx_tag, fa_bool<false>{});
      } else {
        consume(fx_tag, fa_bool<false>{});
      }
    };
    if constexpr (FIXM_C) {
      if (fixm)
        consume_cl(fa_bool<true>{});
      else
        consume_cl(fa_bool<false>{});
    } else {
      consume_cl(fa_bool<false>{});
    }
    if (C::PP && cw == 0) fh_named_sync(3, 256);  // group 1's last arrival

    // ---- epilogue: O / l, the values per row; O through this group's rows of the Q tile
    const plan_rowvals rowvals = a.rowvals;
    // the head and batch anew (fh_cta_coords's AGAIN): not kept through the
    // tiles (relbias's 128-row kernels spilled 4-8 bytes with them kept)
    int em, eh, eb;
    fh_cta_coords<true>(a, &em, &eh, &eb);
    (void)em;
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      float l = lrow[hr];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = plan_out_scale(l);
#pragma unroll
      for (int db = 0; db < DB; ++db) {
        o[db * 4 + 2 * hr] *= inv;
        o[db * 4 + 2 * hr + 1] *= inv;
      }
      const int i = r0 + wq * 16 + g + hr * 8;
      // LIN: the row's max was taken on the thread's first row's term (the
      // softmax) and becomes its own here (its offset is exact: integers)
      if constexpr (plan_score_keylin && !FOLD) {
        const float off = plan_keylin_slope(p) * (float)(plan_keylin_int(i, 0, p) - plan_keylin_int(i - hr * 8, 0, p));
        mrow[hr] += off;
        if constexpr (TRUEM) mtrue[hr] += off;
      }
      // TRUEM: the values per row from the true max and the sum about it
      // (the held max is at most 8 below it: a factor in [2^-8, 1]); equal
      // in a row that saw no key (both -inf, l 0)
      float mv = mrow[hr], lv = l;
      if constexpr (TRUEM) {
        mv = mtrue[hr];
        if (mv != mrow[hr]) lv = l * plan_correction(mrow[hr], mv);
      }
      if constexpr (plan_nchains > 1)
        fa_chain_out<T, DB>([&](int db, int e) -> float& { return o[db * 4 + 2 * hr + e]; },
                            reinterpret_cast<const T*>(a.o) + eb * a.o_sb + eh * a.o_sh + (int64_t)i * a.o_sm,
                            plan_chain_adds(p) && i < M, tq, a.D, p);
      if (plan_rowvals_any(rowvals) && tq == 0 && i < M)
        plan_rowvals_store(rowvals, mv, lv, [&] { return ((int64_t)eb * a.Hq + eh) * M + i; });
    }
    // Every product that read this group's Q rows has completed (waited);
    // the other group never reads them.  The addresses from opaque bases, so
    // that the compiler computes them here and not before the key tiles
    // (where they would be live through the loop: spills)
    const uint32_t qe = fa_opaque(q_rows);
    const int rb = (int)fa_opaque((uint32_t)(wq * 16 + g));
#pragma unroll
    for (int db = 0; db < DB; ++db)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int r = rb + hr * 8;  // row within the group (r % 8 == g)
        const uint32_t at = qe + (db >> 3) * (BM * 128) + r * 128 + (((db & 7) ^ (r & 7)) << 4) + tq * 4;
        fh_st_shared_u32(at, TT::pack(o[db * 4 + 2 * hr], o[db * 4 + 2 * hr + 1]));
      }
    fh_named_sync(1 + cw, 128);
    T* og = reinterpret_cast<T*>(a.o) + eb * a.o_sb + eh * a.o_sh;
    const int wtid = (int)fa_opaque((uint32_t)(tid & 127));
    const int dch = a.D / 8;  // 16-byte chunks of a row that are stored
#pragma unroll
    for (int c0 = 0; c0 < 64 * DB; c0 += 128) {
      const int c = c0 + wtid;
      const int r = c / DB, cc = c % DB;
      const int i = r0 + r;
      if (i < M && cc < dch) {
        const uint4 v = fh_ld_shared_v4(qe + (cc >> 3) * (BM * 128) + r * 128 + (((cc & 7) ^ (r & 7)) << 4));
        *reinterpret_cast<uint4*>(og + (int64_t)i * a.o_sm + cc * 8) = v;
      }
    }
  }
#else
  // not the sm_90a image: the host never launches this (fh_sm90a_code);
  // should it ever, a trap, not an output left unwritten with success
  (void)a;
  __trap();
#endif
}
