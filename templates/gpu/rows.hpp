// ---------------------------------------------------------------------------
// gpu/rows.hpp - the hand-written skeleton of the row-reduction family:
// chains of running reductions without contractions (softmax, log-sum-exp,
// normalisation statistics), one source for CUDA (sm_80 and later:
// cuda/rowreduce.m4) and HIP (CDNA, wave64: hip/rowreduce.m4).  The plan
// hooks above say what a row computes; this file says how rows are walked;
// the target layer before it (cuda/rowreduce/target.cuh,
// hip/rowreduce/target.hpp) gives the warp's width RR_WARP (32, or a
// wavefront's 64), the element types, the kernels' attributes and the host
// services.  "Warp" and "CTA" below are a wavefront and a workgroup on HIP.
//
//   warp form   one row per warp (4 rows per CTA), rows up to RR_WARP * RR_CACHE
//               elements, kept in registers between the two walks (the kept
//               forms add the running values one level at a time, each level
//               final for the row before the next: no corrections);
//   CTA form    one row per CTA of 128, 256, 512 or 1024 threads, kept in registers
//               (as loaded) up to NT * V * K elements (K chunks of V elements a
//               thread: 8 at 512 threads); beyond, the rolling walk by 512
//               threads (the running state corrected chunk by chunk, the
//               input read again by the second walk, mostly from L2);
//   split form  when rows are few and long: S CTAs per row, each walks its
//               part and saves its partial state; the partials are merged
//               with the plan's own corrections by the last CTA of the row
//               (an atomic ticket) when there is no second walk, else by each
//               CTA of a second kernel, which then writes its part.
//
// Inputs along the axis are read V = 16 / sizeof(T) elements at a time, by one
// 16-byte load where the row's start is 16-byte aligned and the strides along
// the axis are 1 (host: p.vec), else element by element; no access is ever
// past a row's end.  No word of this file begins with the generator's prefix
// (templates/README.md).
// ---------------------------------------------------------------------------

// Input elements a thread keeps in registers between the two walks of a row
// (as loaded: 16 registers for 32 bf16 or fp16 elements, 32 for f32).
constexpr int RR_CACHE = 32;
// Chunks a thread loads a step in the rolling walk: RR_UNROLL, the target's
// (the first walk, rr_roll, keeps two steps in flight; the second,
// rr_write_rolling, one).

template <typename T>
struct rr_v {
  static constexpr int V = 16 / (int)sizeof(T);  // elements per 16-byte load
  // chunks a thread keeps (at least 1)
  static constexpr int K = RR_CACHE / (V * plan_nin1_a) > 0 ? RR_CACHE / (V * plan_nin1_a) : 1;
  // ... in the 512-thread CTA form: 8 chunks of 16 bytes (32 registers), so
  // that two CTAs share an SM where one CTA of 1024 threads would hold it
  // alone (measured on CUDA: bench/NOTES.md, 2026-11-24)
  static constexpr int KW = 8 / plan_nin1_a > 0 ? 8 / plan_nin1_a : 1;
};

__device__ __forceinline__ int rr_dsize(int dt) { return dt == FG_F32 ? 4 : 2; }

// One element of a tensor whose dtype is known at run time only.
__device__ __forceinline__ float rr_load1(const void* base, int dt, long long off) {
  if (dt == FG_BF16) return rr_to_float(static_cast<const rr_bf16*>(base)[off]);
  if (dt == FG_FP16) return rr_to_float(static_cast<const rr_fp16*>(base)[off]);
  return static_cast<const float*>(base)[off];
}

__device__ __forceinline__ void rr_store1(void* base, int dt, long long off, float v) {
  if (dt == FG_BF16)
    static_cast<rr_bf16*>(base)[off] = rr_to_bf16(v);
  else if (dt == FG_FP16)
    static_cast<rr_fp16*>(base)[off] = rr_to_fp16(v);
  else
    static_cast<float*>(base)[off] = v;
}

// A chunk as loaded: V elements of T in 16 bytes (the kept rows stay in this
// form between the walks: half the registers of floats for 16-bit types).
// 16-bit types a pair of elements at a time (the target's rr_unpack2).
template <typename T, int V>
__device__ __forceinline__ void rr_unpack(const uint4& u, float (&x)[V]) {
  static_assert(sizeof(T) * V == 16, "one 16-byte chunk");
  if constexpr (sizeof(T) == 2) {
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int q = 0; q < 4; q++) rr_unpack2(static_cast<const T*>(nullptr), w[q], x[2 * q], x[2 * q + 1]);
  } else {
    const T* t = reinterpret_cast<const T*>(&u);
#pragma unroll
    for (int e = 0; e < V; e++) x[e] = rr_to_float(t[e]);
  }
}

// The dtype code of T (the pointer only picks the type).
__device__ __forceinline__ int rr_dt_code(const float*) { return FG_F32; }
__device__ __forceinline__ int rr_dt_code(const rr_bf16*) { return FG_BF16; }
__device__ __forceinline__ int rr_dt_code(const rr_fp16*) { return FG_FP16; }

// V elements at base + off (16-byte aligned for f32; V * 2 bytes for 16-bit).
template <int V>
__device__ __forceinline__ void rr_store_vec(void* base, int dt, long long off, const float (&y)[V]) {
  if (dt == FG_F32) {
    float4* d = reinterpret_cast<float4*>(static_cast<float*>(base) + off);
#pragma unroll
    for (int q = 0; q < V / 4; q++) d[q] = make_float4(y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]);
    return;
  }
  unsigned w[V / 2];
#pragma unroll
  for (int q = 0; q < V / 2; q++) w[q] = rr_pack2(dt, y[2 * q], y[2 * q + 1]);
  unsigned short* d = static_cast<unsigned short*>(base) + off;
  if constexpr (V == 8)
    *reinterpret_cast<uint4*>(d) = make_uint4(w[0], w[1], w[2], w[3]);
  else
    *reinterpret_cast<uint2*>(d) = make_uint2(w[0], w[1]);
}

// Whether this row takes 16-byte accesses: unit strides (p.vec) and the row's
// start 16-byte aligned in every tensor along the axis.
template <typename T>
__device__ __forceinline__ bool rr_row_vec(const plan_params& p, const plan_row& r) {
  if (!p.vec) return false;
  bool ok = true;
#pragma unroll
  for (int k = 0; k < plan_nin; k++)
    ok = ok && (reinterpret_cast<uintptr_t>(static_cast<const T*>(p.in[k]) + r.in_off[k]) & 15) == 0;
#pragma unroll
  for (int k = 0; k < plan_nout; k++)
    ok = ok && (!p.out[k] ||
                ((reinterpret_cast<uintptr_t>(p.out[k]) + (uintptr_t)(r.out_off[k] * rr_dsize(p.out_dt[k]))) & 15) == 0);
  return ok;
}

// Elements c0 .. c0 + V - 1 of inputs K0 .. K1 - 1 along the axis (0 past
// c1), as loaded (rr_unpack gives the floats).
// rr_load_vec: the same where the caller knows the chunk whole and the row
// 16-byte accessible (one load an input, no test).
template <typename T, int K0, int K1, int N>
__device__ __forceinline__ void rr_load_vec(const plan_params& p, const plan_row& r, long long c0, uint4 (&u)[N]) {
  static_assert(K1 <= N || K1 <= K0, "the inputs loaded fit the array");
#pragma unroll
  for (int k = K0; k < K1; k++)
    u[k] = rr_ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(p.in[k]) + r.in_off[k] + c0));
}

template <typename T, int V, int K0 = 0, int K1 = plan_nin, int N>
__device__ __forceinline__ void rr_load_raw(const plan_params& p, const plan_row& r, long long c0, long long c1,
                                            bool vec, uint4 (&u)[N]) {
  static_assert(K1 <= N || K1 <= K0, "the inputs loaded fit the array");
  if (vec && c0 + V <= c1) {
    rr_load_vec<T, K0, K1>(p, r, c0, u);
    return;
  }
#pragma unroll
  for (int k = K0; k < K1; k++) {
    // 16 bytes, aligned: V elements of T (a memcpy here cost the kept
    // 512-thread form 132 bytes of spills and half its bandwidth)
    alignas(16) T t[V];
#pragma unroll
    for (int e = 0; e < V; e++) {
      const long long c = c0 + e;
      t[e] = c < c1 ? static_cast<const T*>(p.in[k])[r.in_off[k] + c * p.in_sc[k]] : T(0.f);
    }
    u[k] = *reinterpret_cast<const uint4*>(t);
  }
}

template <typename T, int V, int K1 = plan_nin, int N>
__device__ __forceinline__ void rr_unpack_all(const uint4 (&u)[N], float (&x)[plan_nin_a][V]) {
#pragma unroll
  for (int k = 0; k < K1; k++) rr_unpack<T, V>(u[k], x[k]);
}

// Inputs 0 .. K1 - 1 at c0 .. c0 + V - 1 as floats (the first walk reads the
// first plan_nin1 only; the others are left unset).
template <typename T, int V, int K1 = plan_nin>
__device__ __forceinline__ void rr_load_chunk(const plan_params& p, const plan_row& r, long long c0, long long c1,
                                              bool vec, float (&x)[plan_nin_a][V]) {
  uint4 u[plan_nin_a];
  rr_load_raw<T, V, 0, K1>(p, r, c0, c1, vec, u);
  rr_unpack_all<T, V, K1>(u, x);
}

// The outputs along the axis at c0 .. c0 + V - 1, those before c1.
template <int V>
__device__ __forceinline__ void rr_store_chunk(const plan_params& p, const plan_row& r, long long c0, long long c1,
                                               bool vec, const float (&y)[plan_nout_a][V]) {
#pragma unroll
  for (int k = 0; k < plan_nout; k++) {
    if (!p.out[k]) continue;
    if (vec && c0 + V <= c1) {
      rr_store_vec<V>(p.out[k], p.out_dt[k], r.out_off[k] + c0, y[k]);
    } else {
#pragma unroll
      for (int e = 0; e < V; e++)
        if (c0 + e < c1) rr_store1(p.out[k], p.out_dt[k], r.out_off[k] + (c0 + e) * p.out_sc[k], y[k][e]);
    }
  }
}

// Merge the states of the G threads of a row (a warp, or a CTA of G threads
// with sh holding G / RR_WARP states); every thread ends with the row's state.
template <int G>
__device__ __forceinline__ void rr_reduce(plan_state& s, plan_state* sh, const plan_params& p) {
#pragma unroll
  for (int o = RR_WARP / 2; o > 0; o >>= 1) {
    const plan_state t = plan_state_shfl(s, o);
    plan_merge(s, t, p);
  }
  if constexpr (G > RR_WARP) {
    const int lane = rr_tid() % RR_WARP, warp = rr_tid() / RR_WARP;
    rr_sync();  // sh is free: an earlier reduction has read it
    if (lane == 0) sh[warp] = s;
    rr_sync();
    if (warp == 0) {
      plan_state_init(s);
      if (lane < G / RR_WARP) s = sh[lane];
#pragma unroll
      for (int o = RR_WARP / 2; o > 0; o >>= 1) {
        const plan_state t = plan_state_shfl(s, o);
        plan_merge(s, t, p);
      }
      if (lane == 0) sh[0] = s;
    }
    rr_sync();
    s = sh[0];
  } else {
    (void)sh;
  }
}

// Whether all K chunks of thread t of G in [cb, ce) are whole (its last
// chunk ends by ce).
template <typename T, int G, int K>
__device__ __forceinline__ bool rr_kept_whole(long long cb, long long ce, int t) {
  return cb + ((long long)(K - 1) * G + t + 1) * rr_v<T>::V <= ce;
}

// The kept forms' loads: thread t of G takes its K chunks of [cb, ce), as
// loaded (all in flight before any is used); without a test a chunk where
// the row is 16-byte accessible and all of the thread's chunks are whole.
template <typename T, int G, int K>
__device__ __forceinline__ void rr_load_kept(const plan_params& p, const plan_row& r, long long cb, long long ce, int t,
                                             bool vec, uint4 (&xs)[K][plan_nin1_a]) {
  constexpr int V = rr_v<T>::V;
  if (vec && rr_kept_whole<T, G, K>(cb, ce, t)) {
#pragma unroll
    for (int i = 0; i < K; i++) rr_load_vec<T, 0, plan_nin1>(p, r, cb + ((long long)i * G + t) * V, xs[i]);
    return;
  }
#pragma unroll
  for (int i = 0; i < K; i++) {
    const long long c0 = cb + ((long long)i * G + t) * V;
    if (c0 < ce) rr_load_raw<T, V, 0, plan_nin1>(p, r, c0, ce, vec, xs[i]);
  }
}

// Level L of the running values merged over the G threads of a row: the
// warp's by shuffles, then the warps' through sh[L] (a slot per warp and
// level: one barrier a level).  Every thread ends with the row's values,
// bit for bit the same (a butterfly of commutative merges).
template <int G, int L>
__device__ __forceinline__ void rr_reduce_level(plan_state& s, plan_state (*sh)[G / RR_WARP]) {
#pragma unroll
  for (int o = RR_WARP / 2; o > 0; o >>= 1) plan_level_shfl<L>(s, o);
  if constexpr (G > RR_WARP) {
    const int lane = rr_tid() % RR_WARP, warp = rr_tid() / RR_WARP;
    if (lane == 0) sh[L][warp] = s;
    rr_sync();
    // the lower levels are the row's in every slot, the higher ones empty
    if (lane < G / RR_WARP)
      s = sh[L][lane];
    else
      plan_level_init<L>(s);
#pragma unroll
    for (int o = RR_WARP / 2; o > 0; o >>= 1) plan_level_shfl<L>(s, o);
  } else {
    (void)sh;
  }
}

// Level L of the running values over thread t's kept chunks, added into s
// (the lower levels as s holds them), without the guard of the row's end
// where all of the thread's chunks are whole.
template <typename T, int G, int K, int L>
__device__ __forceinline__ void rr_level_add(const plan_params& p, const plan_row& r, long long cb, long long ce, int t,
                                             plan_state& s, const uint4 (&xs)[K][plan_nin1_a]) {
  constexpr int V = rr_v<T>::V;
  const bool whole = rr_kept_whole<T, G, K>(cb, ce, t);
  plan_lc h;
  plan_level_consts<L>(h, s, p, r);
  if constexpr (L == 0 && rr_pairs && plan_pair_input >= 0 && sizeof(T) == 2) {
    if (whole) {
      // the max or min of the packed pairs (the target's rr_pair_*),
      // unpacked once
      auto m2 = rr_pair_fill(T(), plan_pair_max ? -INFINITY : INFINITY);
#pragma unroll
      for (int i = 0; i < K; i++) {
        const auto* q = reinterpret_cast<const decltype(m2)*>(&xs[i][plan_pair_input]);
#pragma unroll
        for (int j = 0; j < 4; j++) m2 = rr_pair_mm(m2, q[j]);
      }
      const float a = rr_to_float(m2.x), b = rr_to_float(m2.y);
      plan_level0_pair(s, plan_pair_max ? fmaxf(a, b) : fminf(a, b));
      return;
    }
  }
  if (whole) {
    // every kept chunk of this thread is whole: no guard per element (a
    // test per chunk instead made ptxas spill the 512-thread form)
#pragma unroll
    for (int i = 0; i < K; i++) {
      float x[plan_nin_a][V];
      rr_unpack_all<T, V, plan_nin1>(xs[i], x);
      plan_level_accumulate<L, V>(s, h, x, V, cb + ((long long)i * G + t) * V, p, r);
    }
  } else {
#pragma unroll
    for (int i = 0; i < K; i++) {
      const long long c0 = cb + ((long long)i * G + t) * V;
      if (c0 < ce) {
        float x[plan_nin_a][V];
        rr_unpack_all<T, V, plan_nin1>(xs[i], x);
        plan_level_accumulate<L, V>(s, h, x, ce - c0 < V ? (int)(ce - c0) : V, c0, p, r);
      }
    }
  }
}

// The kept forms' first walk: level by level, thread t adds its kept chunks,
// then the row merges the level.  After the last level, s holds the row's
// values.  With plan_rows_rebase (two levels, the first of maxima or
// minima), the thread takes both levels over its own chunks first (a
// softmax's sums against its own maxima, so that the exponentials start as
// soon as its loads arrive, not after the row's first merge), the row
// merges the first level, and the thread's second level is rebased to it by
// the derived correction (plan_level_rebase: one per thread) before the
// second level's plain merge.
template <typename T, int G, int K, int L = 0>
__device__ __forceinline__ void rr_levels_kept(const plan_params& p, const plan_row& r, long long cb, long long ce,
                                               int t, plan_state& s, const uint4 (&xs)[K][plan_nin1_a],
                                               plan_state (*sh)[G / RR_WARP]) {
  if constexpr (plan_rows_rebase && L == 0) {
    static_assert(!plan_rows_rebase || plan_nlevels == 2, "the rebase takes two levels");
    rr_level_add<T, G, K, 0>(p, r, cb, ce, t, s, xs);
    rr_level_add<T, G, K, 1>(p, r, cb, ce, t, s, xs);
    const plan_state own = s;
    rr_reduce_level<G, 0>(s, sh);
    if (cb + (long long)t * rr_v<T>::V < ce)
      plan_level_rebase(s, own, p);  // the second level corrected to the row's first
    else
      plan_level_init<1>(s);  // no element here: own's first level is the identity, which a
                              // ratio correction (P_prev / P) cannot take
    rr_reduce_level<G, 1>(s, sh);
  } else if constexpr (L < plan_nlevels) {
    rr_level_add<T, G, K, L>(p, r, cb, ce, t, s, xs);
    rr_reduce_level<G, L>(s, sh);
    rr_levels_kept<T, G, K, L + 1>(p, r, cb, ce, t, s, xs, sh);
  } else {
    (void)p, (void)r, (void)cb, (void)ce, (void)t, (void)s, (void)xs, (void)sh;
  }
}

// The second walk from the kept chunks; the inputs only the outputs read
// (a layer norm's weights, the same for every row: mostly from L2) are
// loaded here, not kept.
template <typename T, int G, int K>
__device__ __forceinline__ void rr_write_kept(const plan_params& p, const plan_row& r, long long cb, long long ce, int t,
                                              bool vec, const plan_fin& f, const plan_state& s,
                                              const uint4 (&xs)[K][plan_nin1_a]) {
  constexpr int V = rr_v<T>::V;
  // All chunks whole and 16-byte accessible, and every output along the
  // axis present and of the inputs' dtype (a layer norm's Y): no test a
  // chunk, and the stores' dtype a constant.
  bool typed = sizeof(T) == 2 && vec && rr_kept_whole<T, G, K>(cb, ce, t);
#pragma unroll
  for (int k = 0; k < plan_nout; k++)
    typed = typed && p.out[k] && p.out_dt[k] == rr_dt_code(static_cast<const T*>(nullptr));
  if (typed) {
#pragma unroll
    for (int i = 0; i < K; i++) {
      const long long c0 = cb + ((long long)i * G + t) * V;
      float x[plan_nin_a][V], y[plan_nout_a][V];
      uint4 u[plan_nin_a];
#pragma unroll
      for (int k = 0; k < plan_nin1; k++) u[k] = xs[i][k];
      rr_load_vec<T, plan_nin1, plan_nin>(p, r, c0, u);
      rr_unpack_all<T, V>(u, x);
      plan_elementwise<V>(y, x, c0, f, s, p, r);
#pragma unroll
      for (int k = 0; k < plan_nout; k++)
        rr_store_vec<V>(p.out[k], rr_dt_code(static_cast<const T*>(nullptr)), r.out_off[k] + c0, y[k]);
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < K; i++) {
    const long long c0 = cb + ((long long)i * G + t) * V;
    if (c0 < ce) {
      float x[plan_nin_a][V], y[plan_nout_a][V];
      uint4 u[plan_nin_a];
#pragma unroll
      for (int k = 0; k < plan_nin1; k++) u[k] = xs[i][k];
      rr_load_raw<T, V, plan_nin1, plan_nin>(p, r, c0, ce, vec, u);
      rr_unpack_all<T, V>(u, x);
      plan_elementwise<V>(y, x, c0, f, s, p, r);
      rr_store_chunk<V>(p, r, c0, ce, vec, y);
    }
  }
}

// The first walk of the rolling form over [cb, ce): RR_UNROLL chunks a
// thread a step, the next step's loads issued before this step's chunks are
// used, so that two steps' bytes are in flight a thread (one step's were too
// few to cover the latency where a row's part is long and the SM holds few
// threads: the split form's parts).  f(u, c, n) takes the chunk at c (n
// elements) as loaded: inputs 0 .. K1 - 1.  (The second walk keeps one
// step in flight: with all of a layer norm's inputs, two steps took its
// kernels past their registers.)
template <typename T, int G, int K1, class F>
__device__ __forceinline__ void rr_roll(const plan_params& p, const plan_row& r, long long cb, long long ce, int t,
                                        bool vec, F&& f) {
  constexpr int V = rr_v<T>::V;
  constexpr long long STEP = (long long)RR_UNROLL * G * V;
  uint4 cur[RR_UNROLL][plan_nin_a] = {}, nxt[RR_UNROLL][plan_nin_a] = {};
  long long c0 = cb + (long long)t * V;
#pragma unroll
  for (int u = 0; u < RR_UNROLL; u++) {
    const long long cu = c0 + (long long)u * G * V;
    if (cu < ce) rr_load_raw<T, V, 0, K1>(p, r, cu, ce, vec, cur[u]);
  }
  for (; c0 < ce; c0 += STEP) {
#pragma unroll
    for (int u = 0; u < RR_UNROLL; u++) {
      const long long cu = c0 + STEP + (long long)u * G * V;
      if (cu < ce) rr_load_raw<T, V, 0, K1>(p, r, cu, ce, vec, nxt[u]);
    }
#pragma unroll
    for (int u = 0; u < RR_UNROLL; u++) {
      const long long cu = c0 + (long long)u * G * V;
      if (cu < ce) f(cur[u], cu, ce - cu < V ? (int)(ce - cu) : V);
    }
#pragma unroll
    for (int u = 0; u < RR_UNROLL; u++)
#pragma unroll
      for (int k = 0; k < K1; k++) cur[u][k] = nxt[u][k];
  }
}

// The first walk of the rolling form: the running values, chunk by chunk.
template <typename T, int G>
__device__ __forceinline__ void rr_walk_rolling(const plan_params& p, const plan_row& r, long long cb, long long ce,
                                                int t, bool vec, plan_state& s) {
  constexpr int V = rr_v<T>::V;
  rr_roll<T, G, plan_nin1>(p, r, cb, ce, t, vec, [&](const uint4 (&u)[plan_nin_a], long long c, int n) {
    float x[plan_nin_a][V];
    rr_unpack_all<T, V, plan_nin1>(u, x);
    plan_accumulate<V>(s, x, n, c, p, r);
  });
}

// The second walk of the rolling form: the inputs read again.
template <typename T, int G>
__device__ __forceinline__ void rr_write_rolling(const plan_params& p, const plan_row& r, long long cb, long long ce,
                                                 int t, bool vec, const plan_fin& f, const plan_state& s) {
  constexpr int V = rr_v<T>::V;
  for (long long c0 = cb + (long long)t * V; c0 < ce; c0 += (long long)RR_UNROLL * G * V) {
    float x[RR_UNROLL][plan_nin_a][V];
#pragma unroll
    for (int u = 0; u < RR_UNROLL; u++) {
      const long long cu = c0 + (long long)u * G * V;
      if (cu < ce) rr_load_chunk<T, V>(p, r, cu, ce, vec, x[u]);
    }
#pragma unroll
    for (int u = 0; u < RR_UNROLL; u++) {
      const long long cu = c0 + (long long)u * G * V;
      if (cu < ce) {
        float y[plan_nout_a][V];
        plan_elementwise<V>(y, x[u], cu, f, s, p, r);
        rr_store_chunk<V>(p, r, cu, ce, vec, y);
      }
    }
  }
}

// ------------------------------------------------------------------ kernels

// Warp form: one row per warp, NW warps per CTA.
template <typename T, int NW>
__global__ void RR_BOUNDS(NW * RR_WARP) rr_warp_kernel(const RR_GRID_CONST plan_params p) {
  constexpr int K = rr_v<T>::K;
  const long long row = (long long)rr_bid_x() * NW + (rr_tid() / RR_WARP);
  if (row >= p.rows) return;  // the whole warp
  const int lane = rr_tid() % RR_WARP;
  plan_row r;
  plan_row_setup(p, row, r);
  const bool vec = rr_row_vec<T>(p, r);
  plan_state s;
  plan_state_init(s);
  uint4 xs[K][plan_nin1_a];
  rr_load_kept<T, RR_WARP, K>(p, r, 0, p.ncols, lane, vec, xs);
  rr_levels_kept<T, RR_WARP, K>(p, r, 0, p.ncols, lane, s, xs, nullptr);
  plan_fin f;
  plan_finish(f, s, p, r);
  if (lane == 0) plan_store_row(f, s, p, r);
  if (plan_nout > 0 && p.pass2) rr_write_kept<T, RR_WARP, K>(p, r, 0, p.ncols, lane, vec, f, s, xs);
}

// CTA form: one row per CTA of NT threads; KEEP: the row stays in registers
// (ncols <= NT * V * K), else the rolling walk.
// On CUDA, the kept forms of 512 threads (8 chunks each) are held to 64
// registers, two CTAs per SM; those of 128 threads too, eight CTAs per SM;
// and so is the rolling form of 16-bit rows with no second walk and a small
// running state (a log-sum-exp: 62-64 registers without a spill, where its
// two steps in flight took it to 72 and one CTA an SM); the others spill at
// 64 (HIP's RR_BOUNDS_MIN takes no minimum: the compiler's own choice there).
template <typename T, bool KEEP>
constexpr int rr_cta_minb(int nt) {
  return nt == 512 && (KEEP || (sizeof(T) == 2 && plan_nout == 0 && plan_nstate <= 4)) ? 2
         : KEEP && nt == 128                                                          ? 8
                                                                                      : 1;
}
template <typename T, int NT, bool KEEP, int K = rr_v<T>::K>
__global__ void RR_BOUNDS_MIN(NT, (rr_cta_minb<T, KEEP>(NT))) rr_cta_kernel(const RR_GRID_CONST plan_params p) {
  const long long row = rr_bid_x();
  const int t = rr_tid();
  plan_row r;
  plan_row_setup(p, row, r);
  const bool vec = rr_row_vec<T>(p, r);
  plan_state s;
  plan_state_init(s);
  if constexpr (KEEP) {
    __shared__ plan_state shl[plan_nlevels_a][NT / RR_WARP];
    uint4 xs[K][plan_nin1_a];
    rr_load_kept<T, NT, K>(p, r, 0, p.ncols, t, vec, xs);
    rr_levels_kept<T, NT, K>(p, r, 0, p.ncols, t, s, xs, shl);
    plan_fin f;
    plan_finish(f, s, p, r);
    if (t == 0) plan_store_row(f, s, p, r);
    if (plan_nout > 0 && p.pass2) rr_write_kept<T, NT, K>(p, r, 0, p.ncols, t, vec, f, s, xs);
  } else {
    __shared__ plan_state sh[NT / RR_WARP];
    rr_walk_rolling<T, NT>(p, r, 0, p.ncols, t, vec, s);
    rr_reduce<NT>(s, sh, p);
    plan_fin f;
    plan_finish(f, s, p, r);
    if (t == 0) plan_store_row(f, s, p, r);
    if (plan_nout > 0 && p.pass2) rr_write_rolling<T, NT>(p, r, 0, p.ncols, t, vec, f, s);
  }
}

// The split form's arguments: S parts of `part` elements per row (a multiple
// of V), their partial states, and the tickets of the folded merge.
struct rr_split {
  int S;
  long long part;
  float* ws;             // [rows][S][plan_nstate]
  unsigned* counters;    // [rows], 0 between launches; NULL: the merge kernel
};

// The row's state from its S partials, merged by the NT threads of a CTA.
template <int NT>
__device__ __forceinline__ void rr_merge_parts(const rr_split& q, long long row, plan_state& s, plan_state* sh,
                                               const plan_params& p) {
  plan_state_init(s);
  for (int i = rr_tid(); i < q.S; i += NT) {
    const plan_state b = plan_state_load(q.ws + ((size_t)row * q.S + i) * plan_nstate);
    plan_merge(s, b, p);
  }
  rr_reduce<NT>(s, sh, p);
}

// Split form, first kernel: CTA (part, row) walks its part and saves its
// state.  With tickets (and no second walk), the last CTA of a row merges.
template <typename T, int NT>
__global__ void RR_BOUNDS(NT) rr_split_kernel(const RR_GRID_CONST plan_params p, const rr_split q) {
  __shared__ plan_state sh[NT / RR_WARP];
  __shared__ unsigned s_ticket;
  const long long row = rr_bid_y();
  const int t = rr_tid();
  const long long cb = (long long)rr_bid_x() * q.part;
  const long long ce = cb + q.part < p.ncols ? cb + q.part : p.ncols;
  plan_row r;
  plan_row_setup(p, row, r);
  const bool vec = rr_row_vec<T>(p, r);
  plan_state s;
  plan_state_init(s);
  rr_walk_rolling<T, NT>(p, r, cb, ce, t, vec, s);
  rr_reduce<NT>(s, sh, p);
  if (t == 0) plan_state_save(q.ws + ((size_t)row * q.S + rr_bid_x()) * plan_nstate, s);
  if (!q.counters) return;
  rr_sync();
  if (t == 0) s_ticket = rr_ticket(q.counters + row);
  rr_sync();
  if (s_ticket != (unsigned)(q.S - 1)) return;  // uniform
  rr_merge_parts<NT>(q, row, s, sh, p);
  plan_fin f;
  plan_finish(f, s, p, r);
  if (t == 0) {
    plan_store_row(f, s, p, r);
    q.counters[row] = 0u;  // every ticket of this launch is drawn: ready for the next
  }
}

// Split form, second kernel: CTA (part, row) merges the row's partials, the
// first stores the row's outputs, each writes its part of the outputs along
// the axis.
template <typename T, int NT>
__global__ void RR_BOUNDS(NT) rr_merge_kernel(const RR_GRID_CONST plan_params p, const rr_split q) {
  __shared__ plan_state sh[NT / RR_WARP];
  const long long row = rr_bid_y();
  const int t = rr_tid();
  plan_row r;
  plan_row_setup(p, row, r);
  plan_state s;
  rr_merge_parts<NT>(q, row, s, sh, p);
  plan_fin f;
  plan_finish(f, s, p, r);
  if (rr_bid_x() == 0 && t == 0) plan_store_row(f, s, p, r);
  if (plan_nout > 0 && p.pass2) {
    const long long cb = (long long)rr_bid_x() * q.part;
    const long long ce = cb + q.part < p.ncols ? cb + q.part : p.ncols;
    rr_write_rolling<T, NT>(p, r, cb, ce, t, rr_row_vec<T>(p, r), f, s);
  }
}

// ------------------------------------------------------------------ launch

// When the split form pays: fewer rows than half the SMs, rows of at least
// RR_SPLIT_MIN elements; parts of at least RR_SPLIT_MIN / 4 elements, at
// most two CTAs per SM in all (the split kernels of 16-bit rows take at most
// 64 registers a thread: two CTAs of 512 an SM, one wave; moments' take 88,
// one CTA an SM, so that its parts fill the SMs in two waves).  Rounding up
// instead (32 rows on 132 SMs: 9 parts, 288 CTAs for 264 places) left a
// second wave of 24 CTAs (bench/NOTES.md, 2026-11-28).
constexpr long long RR_SPLIT_MIN = 16384;

static int rr_auto_splits(long long rows, long long ncols, int sms) {
  if (rows * 2 >= sms || ncols < RR_SPLIT_MIN) return 1;
  long long s = 2LL * sms / rows;
  const long long most = ncols / (RR_SPLIT_MIN / 4);
  if (s > most) s = most;
  return s < 1 ? 1 : (int)s;
}

template <typename T>
static fg_status rr_launch_split(const plan_params& p, int S, rr_stream st, int dev, const char* entry) {
  constexpr int V = rr_v<T>::V, NT = 512;
  rr_split q;
  q.part = ((p.ncols + S - 1) / S + V - 1) / V * V;  // whole chunks: parts start 16-byte aligned
  q.S = (int)((p.ncols + q.part - 1) / q.part);
  q.counters = nullptr;
  const size_t bytes = (size_t)p.rows * (size_t)q.S * plan_nstate * sizeof(float);
  void* ws = nullptr;
  fg_status s = rr_alloc(dev, st, bytes, &ws, entry);
  if (s != FG_OK) return s;
  q.ws = static_cast<float*>(ws);
  // no second walk: the last CTA of each row merges, where the stream has
  // tickets (none on CUDA while it is captured into a graph: the merge kernel)
  const bool walk2 = plan_nout > 0 && p.pass2;
  void* own = nullptr;
  if (!walk2) s = rr_tickets(dev, st, (size_t)p.rows, entry, &q.counters, &own);
  if (s == FG_OK) {
    rr_split_kernel<T, NT><<<dim3((unsigned)q.S, (unsigned)p.rows), NT, 0, st>>>(p, q);
    s = rr_launched(entry);
  }
  if (s == FG_OK && !q.counters) {
    rr_merge_kernel<T, NT><<<dim3(walk2 ? (unsigned)q.S : 1u, (unsigned)p.rows), NT, 0, st>>>(p, q);
    s = rr_launched(entry);
  }
  rr_free(st, own);
  rr_free(st, ws);
  return s;
}

template <typename T>
static fg_status rr_launch(const plan_params& p, int splits, rr_stream st, int dev, const char* entry) {
  constexpr int V = rr_v<T>::V, K = rr_v<T>::K, KW = rr_v<T>::KW;
  if (p.rows > INT_MAX)
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: %lld rows are beyond the kernels' grid", entry, p.rows);
  int S = splits;
  if (S == 0) {
    int sms = 0;
    const fg_status s = rr_sm_count(dev, &sms, entry);
    if (s != FG_OK) return s;
    S = rr_auto_splits(p.rows, p.ncols, sms);
  }
  const long long chunks = (p.ncols + V - 1) / V;
  if (S > chunks) S = (int)chunks;  // at least one chunk per part
  if (S > 1 && p.rows <= 65535) return rr_launch_split<T>(p, S, st, dev, entry);
  if (p.ncols <= (long long)RR_WARP * V * K) {
    constexpr int NW = 4;
    rr_warp_kernel<T, NW><<<(unsigned)((p.rows + NW - 1) / NW), NW * RR_WARP, 0, st>>>(p);
  } else if (p.ncols <= 128LL * V * K) {
    rr_cta_kernel<T, 128, true><<<(unsigned)p.rows, 128, 0, st>>>(p);
  } else if (p.ncols <= 256LL * V * K) {
    rr_cta_kernel<T, 256, true><<<(unsigned)p.rows, 256, 0, st>>>(p);
  } else if (p.ncols <= 512LL * V * KW) {
    rr_cta_kernel<T, 512, true, KW><<<(unsigned)p.rows, 512, 0, st>>>(p);
  } else if (p.ncols <= 1024LL * V * K) {
    rr_cta_kernel<T, 1024, true><<<(unsigned)p.rows, 1024, 0, st>>>(p);
  } else {
    rr_cta_kernel<T, 512, false><<<(unsigned)p.rows, 512, 0, st>>>(p);
  }
  return rr_launched(entry);
}

// The entry's dispatch: the inputs' dtype, unit strides, the second walk.
static fg_status rr_dispatch(plan_params& p, fg_dtype dt, int splits, rr_stream st, int dev, const char* entry) {
  p.vec = 1;
  for (int k = 0; k < plan_nin; k++)
    if (p.in_sc[k] != 1) p.vec = 0;
  p.pass2 = 0;
  for (int k = 0; k < plan_nout; k++)
    if (p.out[k]) {
      p.pass2 = 1;
      if (p.out_sc[k] != 1) p.vec = 0;
    }
  switch (dt) {
  case FG_BF16: return rr_launch<rr_bf16>(p, splits, st, dev, entry);
  case FG_FP16: return rr_launch<rr_fp16>(p, splits, st, dev, entry);
  default: return rr_launch<float>(p, splits, st, dev, entry);
  }
}
