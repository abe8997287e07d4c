m4_dnl cuda/sm80/launch.m4 - launchers of the sm80 kernels and the dispatch by
m4_dnl dtype and head dim.  The configurations (fg_cuda_configs) and the rules
m4_dnl that choose among them (fg_cuda_dispatch) come from the table in
m4_dnl generator/middle/variants.c; the host services (SM count, occupancy, smem
m4_dnl opt-in, workspace pool, tickets) from the runtime (fusegen_cuda.cu).
m4_dnl Included inside the plan's namespace.
fg_cuda_split_if([[[m4_dnl
fg_cuda_configs[[[]]]m4_dnl

template <typename T, class C>
static fg_status plan_launch_split(fd_args a, cudaStream_t st, int dev, int splits_req, const char* entry) {
  static fg_cuda_once smem_done;
  static fg_cuda_per_device occ_cache;
  const void* kernel = reinterpret_cast<const void*>(&fd_split_kernel<T, C>);
  const size_t smem = C::template smem_bytes<T>();
  fg_status s = fg_cuda_smem_optin(kernel, smem, &smem_done, dev, entry);
  if (s != FG_OK) return s;
  const int tiles = (a.N + C::BNW - 1) / C::BNW;
  const int R = (a.Hq / a.Hkv) * a.QL;  // packed rows per kv head
  const int rowgroups = (R + C::RB - 1) / C::RB;
  int splits = splits_req;
  if (splits == 0) {  // auto: the prototype's one-wave rule
    int sms = 0;
    if ((s = fg_cuda_sm_count(dev, &sms, entry)) != FG_OK) return s;
    const int occ = fg_cuda_occupancy(kernel, C::NT, smem, dev, &occ_cache);
    splits = fd_choose_splits(a.B, a.Hkv, a.N, sms, occ, rowgroups);
  }
  if (splits > tiles) splits = tiles;  // whole warp tiles per split
  if (splits < 1) splits = 1;
  int chunk = (tiles + splits - 1) / splits;
  chunk = (chunk + C::NW - 1) / C::NW * C::NW;
  if (chunk < C::NW) chunk = C::NW;
  a.splits = splits;
  a.chunk = chunk;
  if ((long long)a.B * a.Hkv > 65535LL || rowgroups > 65535)
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: %d x %d (batch x kv heads) or %d row groups exceed the grid", entry,
                        a.B, a.Hkv, rowgroups);
  if ((long long)C::BNW * (a.k_sn > a.v_sn ? a.k_sn : a.v_sn) >= (1LL << 31))
    return fg_set_error(FG_ERR_STRIDE, "%s: key strides of %lld elements are beyond the kernel's 32-bit offsets", entry,
                        (long long)(a.k_sn > a.v_sn ? a.k_sn : a.v_sn));
  void* ws = nullptr;
  if (splits > 1) {
    const size_t rows = (size_t)a.B * a.Hq * a.QL;
    const size_t bytes = rows * (size_t)splits * (size_t)(C::D + 2) * sizeof(float);
    cudaMemPool_t pool;
    if ((s = fg_cuda_pool(dev, &pool, entry)) != FG_OK) return s;
    if (cudaMallocFromPoolAsync(&ws, bytes, pool, st) != cudaSuccess) {
      const cudaError_t e = cudaGetLastError();
      return fg_set_error(FG_ERR_NOMEM, "%s: no device memory for %zu bytes of split partials: %s", entry, bytes,
                          cudaGetErrorString(e));
    }
    a.o_part = static_cast<float*>(ws);
    a.m_part = a.o_part + rows * (size_t)splits * C::D;
    a.l_part = a.m_part + rows * (size_t)splits;
  }
  // More than one split: the last CTA of each row group combines the
  // partials (no second launch) where the stream has a ticket buffer
  // (none while the stream is captured into a graph: the combine kernel).
  if (splits > 1 && splits <= fd_fold_max_splits<T, C>()) {
    a.counters = fg_cuda_tickets(dev, st, (size_t)a.B * a.Hkv * rowgroups, entry);
    a.fold = a.counters != nullptr;
  }
  const dim3 grid((unsigned)splits, (unsigned)rowgroups, (unsigned)(a.B * a.Hkv));
  fd_split_kernel<T, C><<<grid, C::NT, smem, st>>>(a);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && splits > 1 && !a.fold) {
    const long long rows = (long long)a.B * a.Hq * a.QL;
    fd_combine_kernel<T, C::D><<<(unsigned)((rows + 3) / 4), 128, 0, st>>>(a);
    e = cudaGetLastError();
  }
  if (ws) (void)cudaFreeAsync(ws, st);
  if (e != cudaSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, cudaGetErrorString(e));
  return FG_OK;
}

fg_cuda_tuned_if([[[m4_dnl
fg_cuda_tuned_code[[[]]]m4_dnl

]]])m4_dnl
// Which configuration a launch takes: generator/middle/variants.c's rules for
// this plan, in table order, the first that holds.
template <typename T>
static fg_status plan_dispatch_t(fd_args& a, int D, int splits, cudaStream_t st, int dev, const char* entry) {
fg_cuda_dispatch[[[]]]m4_dnl
}

// kv_len: the keys of each sequence (device memory, [B]), or null (all N).
static fg_status plan_dispatch(const fg_tensor& q, const fg_tensor& k, const fg_tensor& v, const fg_tensor& o, const plan_rowvals& rowvals,
                               const int32_t* kv_len, const plan_params& p, int D, int splits, cudaStream_t st,
                               int dev) {
  const char* entry = "fg_gpu_entry";
  fd_args a;
  memset(&a, 0, sizeof a);
  a.q = q.data; a.k = k.data; a.v = v.data; a.o = o.data; a.rowvals = rowvals;
  a.kv_len = kv_len;
  a.q_sb = q.stride[0]; a.q_sh = q.stride[1]; a.q_sm = q.stride[2];
  a.k_sb = k.stride[0]; a.k_sh = k.stride[1]; a.k_sn = k.stride[2];
  a.v_sb = v.stride[0]; a.v_sh = v.stride[1]; a.v_sn = v.stride[2];
  a.o_sb = o.stride[0]; a.o_sh = o.stride[1]; a.o_sm = o.stride[2];
  a.B = (int)q.shape[0]; a.Hq = p.Hq; a.Hkv = p.Hkv; a.QL = p.M; a.N = p.N;
  a.p = p;
  if (q.dtype == FG_BF16) return plan_dispatch_t<__nv_bfloat16>(a, D, splits, st, dev, entry);
  return plan_dispatch_t<__half>(a, D, splits, st, dev, entry);
}
]]], [[[m4_dnl
fg_cuda_configs[[[]]]m4_dnl

// The grid of the rolling kernels (fa_cta_coords reads it back): one CTA per
// block of bm query rows of one (batch, head).
static fg_status plan_grid(const fa_args& a, int bm, const char* entry, dim3* grid) {
  const long long mblocks = ((long long)a.M + bm - 1) / bm;
  if (plan_schedule == 1 ? (a.B > 65535 || mblocks > 65535) : (a.Hq > 65535 || a.B > 65535))
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: %d batches, %d heads, %lld row blocks exceed the grid", entry, a.B, a.Hq,
                        mblocks);
  *grid = plan_schedule == 1 ? dim3((unsigned)a.Hq, (unsigned)a.B, (unsigned)mblocks)
                             : dim3((unsigned)mblocks, (unsigned)a.Hq, (unsigned)a.B);
  return FG_OK;
}

template <typename T, class C>
static fg_status plan_launch(const fa_args& a, cudaStream_t st, int dev, const char* entry) {
  static fg_cuda_once smem_done;
  const size_t smem = C::template smem_bytes<T>();
  fg_status s = fg_cuda_smem_optin(reinterpret_cast<const void*>(&fa_attn_fwd_kernel<T, C>), smem, &smem_done, dev,
                                   entry);
  if (s != FG_OK) return s;
  dim3 grid;
  if ((s = plan_grid(a, C::BM, entry, &grid)) != FG_OK) return s;
  if ((long long)C::BN * (a.k_sn > a.v_sn ? a.k_sn : a.v_sn) >= (1LL << 31))
    return fg_set_error(FG_ERR_STRIDE, "%s: key strides of %lld elements are beyond the kernel's 32-bit offsets", entry,
                        (long long)(a.k_sn > a.v_sn ? a.k_sn : a.v_sn));
  fa_attn_fwd_kernel<T, C><<<grid, C::NT, smem, st>>>(a);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, cudaGetErrorString(e));
  return FG_OK;
}

// Which configuration a launch takes: generator/middle/variants.c's rules for
// this plan, in table order, the first that holds.
template <typename T>
static fg_status plan_dispatch_t(const fa_args& a, int D, cudaStream_t st, int dev, const char* entry) {
fg_cuda_dispatch[[[]]]m4_dnl
}

fg_cuda_sm90_if([[[m4_dnl
fg_cuda_configs_sm90[[[]]]m4_dnl

// The query heads of a group in the order of fh_cta_coords, or 0 for no
// groups (heads fastest over all of them, plan_grid's order).  Heaviest-first
// plans launch every head's heaviest row blocks together; where each row
// block reads its head's keys from 0 (fh_head_groups: causal masks and
// the like) the CTAs running at once then stream the K and V of every head
// from memory.  Taking the heads a group at a time, with the group's K and V
// sized to half the L2, lets the row blocks of a head share them there
// (measured on an H200: causal 32k +10 %, alibi 8k +6 %; bench/NOTES.md).
// Windows and document masks read a band or a span of keys, whose K and V
// for all heads fit in the L2 already: they take no groups (docmask 32k
// lost 6 % with them).  FUSEGEN_HEAD_GROUPS (fg_cuda_head_groups) turns
// the groups off or fixes their size.
template <typename T>
static int plan_head_group(const fa_args& a, int D, int BM, int dev) {
  if constexpr (fh_head_groups) {
    const int set = fg_cuda_head_groups();
    const long long G = a.Hq / a.Hkv, heads = (long long)a.B * a.Hq;
    long long kv_heads = set;  // kv heads a group
    if (set == 0) {
      const long long l2 = fg_cuda_l2_bytes(dev), kv_bytes = 2LL * a.N * D * (long long)sizeof(T);
      kv_heads = l2 > 0 && kv_bytes > 0 ? (l2 / 2) / kv_bytes : 0;
      if (l2 > 0 && kv_heads < 1) kv_heads = 1;
    }
    const long long S = kv_heads * G;
    // fh_cta_coords's indices are ints: the CTAs' count must fit
    if (S > 0 && S < heads && heads * (((long long)a.M + BM - 1) / BM) <= INT_MAX) return (int)S;
  }
  (void)a; (void)D; (void)BM; (void)dev;
  return 0;
}

// The sm_90a family (sm90/rolling.cuh) for head dim D, on configuration C
// (its compiled dim at least D).  *done says whether it launched (or failed
// trying); it does not launch where the device runs no sm_90a code of the
// image, where FUSEGEN_CUDA_FAMILY=sm80, or where the copy engine cannot
// take the tensors' strides (a stride of 0, say): the sm_80 family serves
// those launches.
template <typename T, class C>
static fg_status plan_launch_sm90(const fa_args& a, int D, cudaStream_t st, int dev, const char* entry, bool* done) {
  static fg_cuda_once smem_done;
  static fg_cuda_per_device arch_cache;
  const void* kernel = reinterpret_cast<const void*>(&fh_attn_fwd_kernel<T, C>);
  if (!fg_cuda_sm90a(reinterpret_cast<const void*>(&fh_sm90a_code), dev, &arch_cache)) return FG_OK;
  fh_args h;
  memset(&h, 0, sizeof h);
  const int bf16 = std::is_same<T, __nv_bfloat16>::value;
  const long long qe[4] = {D, a.M, a.Hq, a.B}, qs[4] = {1, a.q_sm, a.q_sh, a.q_sb};
  const long long ke[4] = {D, a.N, a.Hkv, a.B}, ks[4] = {1, a.k_sn, a.k_sh, a.k_sb};
  const long long vs[4] = {1, a.v_sn, a.v_sh, a.v_sb};
  if (fg_cuda_tensor_map(&h.tq, bf16, a.q, qe, qs, 64, C::BM) != 0 ||
      fg_cuda_tensor_map(&h.tk, bf16, a.k, ke, ks, 64, C::BN) != 0 ||
      fg_cuda_tensor_map(&h.tv, bf16, a.v, ke, vs, 64, C::BN) != 0)
    return FG_OK;
  const size_t smem = C::template smem_bytes<T>();
  fg_status s = fg_cuda_smem_optin(kernel, smem, &smem_done, dev, entry);
  if (s != FG_OK) return s;
  *done = true;
  dim3 grid;
  if ((s = plan_grid(a, C::BM, entry, &grid)) != FG_OK) return s;
  h.o = a.o;
  h.rowvals = a.rowvals;
  h.o_sb = a.o_sb; h.o_sh = a.o_sh; h.o_sm = a.o_sm;
  h.B = a.B; h.Hq = a.Hq; h.Hkv = a.Hkv; h.M = a.M; h.N = a.N; h.D = D;
  h.p = a.p;
  h.hgroup = plan_head_group<T>(a, D, C::BM, dev);
  // A mask with span atoms: the summary of the ids' ranges by chunks of keys
  // (fh_span_sum_kernel), in stream-ordered workspace, that the CTAs' scans
  // read instead of the ids.  Where there is none (the pool cannot be made or
  // has no memory for it, heads or batches beyond its grid's 65535, or
  // FUSEGEN_SPAN_SUMMARY=off, which tests/gpu-nosummary.sh sets) the kernel
  // scans the ids themselves: the same results, a longer scan.
  // RB: behind the summary, each row block's key range narrowed from it
  // (fh_span_rng_kernel), which each CTA then reads in place of its scan.
  // DR, where the mask allows it (plan_sorted_rows): a word a (batch, head)
  // in which the summary kernel clears span k's bit where its key side
  // decreases, and behind it each row's keys, which fh_span_rng_kernel
  // writes where no bit was cleared (packed documents' sorted ids).
  void* ws = nullptr;
  if constexpr (plan_nspans > 0) {
    const int chunks = (a.N + plan_span_chunk - 1) / plan_span_chunk;
    const int mblks = (a.M + C::BM - 1) / C::BM;
    const size_t bh = (size_t)a.B * fh_span_heads(a.Hq);  // slots: one a batch where the ids are the heads'
    const size_t sum_bytes = bh * chunks * 2 * plan_nspans * sizeof(long);  // a multiple of 16
    const size_t rng_bytes = bh * mblks * 4 * sizeof(int);                  // likewise
    const size_t sorted_bytes = plan_sorted_rows ? (bh * sizeof(unsigned) + 15) / 16 * 16 : 0;
    const size_t rows_bytes = plan_sorted_rows ? bh * a.M * sizeof(int2) : 0;
    const size_t bytes = sum_bytes + rng_bytes + sorted_bytes + rows_bytes;
    cudaMemPool_t pool;
    if (chunks > 0 && !fg_cuda_span_summary_off() && a.Hq <= 65535 && a.B <= 65535 && fg_cuda_pool(dev, &pool, entry) == FG_OK) {
      if (cudaMallocFromPoolAsync(&ws, bytes, pool, st) != cudaSuccess) {
        (void)cudaGetLastError();  // the failed allocation, not the launch's error
        ws = nullptr;
      } else {
        char* w = static_cast<char*>(ws);  // the pool's blocks are aligned far past 16 bytes
        int* rng = reinterpret_cast<int*>(w + sum_bytes);
        unsigned* sorted = plan_sorted_rows ? reinterpret_cast<unsigned*>(w + sum_bytes + rng_bytes) : nullptr;
        int2* rows = plan_sorted_rows ? reinterpret_cast<int2*>(w + sum_bytes + rng_bytes + sorted_bytes) : nullptr;
        if (sorted && cudaMemsetAsync(sorted, 0xff, bh * sizeof(unsigned), st) != cudaSuccess) {
          (void)cudaGetLastError();  // no DR: the summary and RB without it
          sorted = nullptr;
          rows = nullptr;
        }
        constexpr int SNT = 256;  // 8 warps, a chunk each
        fh_span_sum_kernel<SNT><<<dim3((unsigned)((chunks + SNT / 32 - 1) / (SNT / 32)), (unsigned)fh_span_heads(a.Hq),
                                       (unsigned)a.B),
                                  SNT, 0, st>>>(a.p, static_cast<long*>(ws), chunks, sorted);
        if (cudaGetLastError() == cudaSuccess) {
          h.span_sum = static_cast<const long*>(ws);
          h.span_chunks = chunks;
          if (mblks > 0) {
            constexpr int RNT = 128;  // a row a thread (BM up to 128) for DR's searches
            fh_span_rng_kernel<RNT, C::BM><<<dim3((unsigned)mblks, (unsigned)fh_span_heads(a.Hq), (unsigned)a.B), RNT, 0, st>>>(
                h, rng, sorted, rows);
            if (cudaGetLastError() == cudaSuccess) {
              h.span_rng = rng;
              h.span_mblks = mblks;
              h.span_rows = rows;
            }
          }
        }
      }
    }
  }
  fh_attn_fwd_kernel<T, C><<<grid, C::NT, smem, st>>>(h);
  const cudaError_t e = cudaGetLastError();
  if (ws) (void)cudaFreeAsync(ws, st);
  if (e != cudaSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, cudaGetErrorString(e));
  return FG_OK;
}

fg_cuda_tuned_if([[[m4_dnl
fg_cuda_tuned_configs[[[]]]m4_dnl

fg_cuda_tuned_code[[[]]]m4_dnl

]]])m4_dnl
// Which sm_90a configuration a launch takes (variants.c's rows for this
// plan): the smallest compiled head dim at least D; the tuned row first
// where there is one.
template <typename T>
static fg_status plan_dispatch_sm90_t(const fa_args& a, int D, cudaStream_t st, int dev, const char* entry, bool* done) {
fg_cuda_dispatch_sm90[[[]]]m4_dnl
}

]]])m4_dnl
// splits: the rolling kernel walks all keys of its rows in one CTA; a split
// count asks for nothing more here (the CPU version honours it).  kv_len is
// always null: per-sequence lengths are the split kernel's (lower_cuda.c).
static fg_status plan_dispatch(const fg_tensor& q, const fg_tensor& k, const fg_tensor& v, const fg_tensor& o, const plan_rowvals& rowvals,
                               const int32_t* kv_len, const plan_params& p, int D, int splits, cudaStream_t st,
                               int dev) {
  const char* entry = "fg_gpu_entry";
  (void)splits;
  (void)kv_len;
  fa_args a;
  memset(&a, 0, sizeof a);
  a.q = q.data; a.k = k.data; a.v = v.data; a.o = o.data; a.rowvals = rowvals;
  a.q_sb = q.stride[0]; a.q_sh = q.stride[1]; a.q_sm = q.stride[2];
  a.k_sb = k.stride[0]; a.k_sh = k.stride[1]; a.k_sn = k.stride[2];
  a.v_sb = v.stride[0]; a.v_sh = v.stride[1]; a.v_sn = v.stride[2];
  a.o_sb = o.stride[0]; a.o_sh = o.stride[1]; a.o_sm = o.stride[2];
  a.B = (int)q.shape[0]; a.Hq = p.Hq; a.Hkv = p.Hkv; a.M = p.M; a.N = p.N;
  a.p = p;
fg_cuda_sm90_if([[[m4_dnl
  bool done = false;
  const fg_status s = q.dtype == FG_BF16 ? plan_dispatch_sm90_t<__nv_bfloat16>(a, D, st, dev, entry, &done)
                                         : plan_dispatch_sm90_t<__half>(a, D, st, dev, entry, &done);
  if (done || s != FG_OK) return s;
]]])m4_dnl
  if (q.dtype == FG_BF16) return plan_dispatch_t<__nv_bfloat16>(a, D, st, dev, entry);
  return plan_dispatch_t<__half>(a, D, st, dev, entry);
}
]]])m4_dnl
