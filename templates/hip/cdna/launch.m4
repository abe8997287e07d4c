m4_dnl hip/cdna/launch.m4 - launchers of the CDNA kernels and the dispatch by
m4_dnl dtype and head dim.  The configurations (fg_cuda_configs) and the rules
m4_dnl among them (fg_cuda_dispatch) come from the "cdna" rows of the table in
m4_dnl generator/middle/variants.c (gpu_config_defs); the host services (CU
m4_dnl count, workspace pool, parameter copies) from the runtime
m4_dnl (fusegen_hip.hip).  Included inside the plan's namespace.
fg_cuda_split_if([[[m4_dnl
fg_cuda_configs[[[]]]m4_dnl

template <typename T, class C>
static fg_status plan_launch_split(fd_args a, hipStream_t st, int dev, int splits_req, const char* entry) {
  const int tiles = (a.N + C::KT - 1) / C::KT;
  const int R = (a.Hq / a.Hkv) * a.QL;  // packed rows per kv head
  const int rowgroups = (R + C::RB - 1) / C::RB;
  fg_status s;
  int splits = splits_req;
  if (splits == 0) {  // auto: one workgroup per CU, splits of 256 keys or more
    int cus = 0;
    if ((s = fg_hip_cu_count(dev, &cus, entry)) != FG_OK) return s;
    const long base = (long)a.B * a.Hkv * rowgroups;
    long want = base >= cus ? 1 : cus / base;
    if (want > a.N / 256) want = a.N / 256;
    splits = want < 1 ? 1 : (int)want;
  }
  if (splits > fd_max_splits<C>()) splits = fd_max_splits<C>();  // the combine's LDS
  if (splits > tiles) splits = tiles;
  if (splits < 1) splits = 1;
  a.chunk = (tiles + splits - 1) / splits;
  a.splits = splits;
  a.rowgroups = rowgroups;
  if ((long long)a.B * a.Hkv > 65535LL || rowgroups > 65535)
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: %d x %d (batch x kv heads) or %d row groups exceed the grid", entry,
                        a.B, a.Hkv, rowgroups);
  void* ws = nullptr;
  if (splits > 1) {  // partials and tickets, stream-ordered from the device's pool
    const size_t rows = (size_t)a.B * a.Hq * a.QL;
    const size_t nctr = (size_t)a.B * a.Hkv * rowgroups;
    const size_t bytes = rows * (size_t)splits * (size_t)(C::D + 2) * sizeof(float) + nctr * sizeof(unsigned);
    if ((s = fg_hip_alloc(dev, st, bytes, &ws, entry)) != FG_OK) return s;
    a.o_part = static_cast<float*>(ws);
    a.m_part = a.o_part + rows * (size_t)splits * C::D;
    a.l_part = a.m_part + rows * (size_t)splits;
    a.counters = reinterpret_cast<unsigned*>(a.l_part + rows * (size_t)splits);
    if (hipMemsetAsync(a.counters, 0, nctr * sizeof(unsigned), st) != hipSuccess) {
      const hipError_t e = hipGetLastError();
      fg_hip_free(st, ws);
      return fg_set_error(FG_ERR_DEVICE, "%s: cannot clear the combine's tickets: %s", entry, hipGetErrorString(e));
    }
  }
  const dim3 grid((unsigned)splits, (unsigned)rowgroups, (unsigned)(a.B * a.Hkv));
  hipLaunchKernelGGL((fd_split_kernel<T, C>), grid, dim3(C::NT), 0, st, a);
  const hipError_t e = hipGetLastError();
  if (ws) fg_hip_free(st, ws);
  if (e != hipSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, hipGetErrorString(e));
  return FG_OK;
}

// Which configuration a launch takes: generator/middle/variants.c's rules for
// this plan, in table order, the first that holds.
template <typename T>
static fg_status plan_dispatch_t(fd_args& a, int D, int splits, hipStream_t st, int dev, const char* entry) {
fg_cuda_dispatch[[[]]]m4_dnl
}

// kv_len: the keys of each sequence (device memory, [B]), or null (all N).
static fg_status plan_dispatch(const fg_tensor& q, const fg_tensor& k, const fg_tensor& v, const fg_tensor& o, const plan_rowvals& rowvals,
                               const int32_t* kv_len, const plan_params& p, int D, int splits, hipStream_t st,
                               int dev) {
  const char* entry = "fg_cuda_entry";
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
  if (q.dtype == FG_BF16) return plan_dispatch_t<ck_bf16>(a, D, splits, st, dev, entry);
  return plan_dispatch_t<ck_fp16>(a, D, splits, st, dev, entry);
}
]]], [[[m4_dnl
fg_cuda_configs[[[]]]m4_dnl

template <typename T, class C>
static fg_status plan_launch(fa_args a, hipStream_t st, int dev, const char* entry) {
  (void)dev;
  const long long mblocks = ((long long)a.M + C::BM - 1) / C::BM;
  if (mblocks > 65535 || a.Hq > 65535 || a.B > 65535)
    return fg_set_error(FG_ERR_UNSUPPORTED, "%s: %d batches, %d heads, %lld row blocks exceed the grid", entry, a.B, a.Hq,
                        mblocks);
  a.mblocks = (int)mblocks;
  // one workgroup per block of BM query rows of one (batch, head); fa_cta_coords reads it back
  const dim3 grid = plan_schedule == 1 ? dim3((unsigned)a.Hq, (unsigned)a.B, (unsigned)mblocks)
                                       : dim3((unsigned)mblocks, (unsigned)a.Hq, (unsigned)a.B);
  hipLaunchKernelGGL((fa_attn_fwd_kernel<T, C>), grid, dim3(C::NT), 0, st, a);
  const hipError_t e = hipGetLastError();
  if (e != hipSuccess) return fg_set_error(FG_ERR_LAUNCH, "%s: kernel launch failed: %s", entry, hipGetErrorString(e));
  return FG_OK;
}

// Which configuration a launch takes: generator/middle/variants.c's rules for
// this plan, in table order, the first that holds.
template <typename T>
static fg_status plan_dispatch_t(const fa_args& a, int D, hipStream_t st, int dev, const char* entry) {
fg_cuda_dispatch[[[]]]m4_dnl
}

// splits: the rolling kernel walks all keys of its rows in one workgroup; a
// split count asks for nothing more here.  kv_len is always null.
static fg_status plan_dispatch(const fg_tensor& q, const fg_tensor& k, const fg_tensor& v, const fg_tensor& o, const plan_rowvals& rowvals,
                               const int32_t* kv_len, const plan_params& p, int D, int splits, hipStream_t st,
                               int dev) {
  const char* entry = "fg_cuda_entry";
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
  if (q.dtype == FG_BF16) return plan_dispatch_t<ck_bf16>(a, D, st, dev, entry);
  return plan_dispatch_t<ck_fp16>(a, D, st, dev, entry);
}
]]])m4_dnl
