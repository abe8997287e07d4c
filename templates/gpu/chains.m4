m4_dnl gpu/chains.m4 - a plan of several independent chains runs the attention
m4_dnl kernels once per chain (plan_run), for CUDA (cuda/attention.m4) and HIP
m4_dnl (hip/attention.m4) alike: included after the launchers (plan_dispatch).
fg_cuda_chains_if([[[m4_dnl

// The plan's independent chains, one pass of the kernels each: chain c runs
// with its Q, K and V, and its epilogue adds its term to O (plan_chain_out).
// S: the backend's stream type.
template <typename S>
static fg_status plan_run(const fg_args_type* args, const fg_tensor& o, const plan_rowvals& rowvals, const int32_t* kv_len,
                          plan_params p, int D, int splits, S st, int dev) {
fg_cuda_chain_tensors[[[]]]m4_dnl
  for (int c = 0; c < plan_nchains; ++c) {
    p.chain = c;
    p.chain_cf = p.chain_cfs_[c];
    const fg_status s = plan_dispatch(*cq[c], *ck[c], *cv[c], o, rowvals, kv_len, p, D, splits, st, dev);
    if (s != FG_OK) return s;
  }
  return FG_OK;
}
]]])m4_dnl
