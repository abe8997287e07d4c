m4_dnl gpu/validate.m4 - the argument checks of a GPU entry point, one source
m4_dnl for CUDA (cuda/attention.m4) and HIP (hip/attention.m4): tensors, dtypes,
m4_dnl shapes, the values per row, head dim, 32-bit limits, splits, heads, then plan_params p
m4_dnl filled from the arguments (dims, params with defaults and their checks).
m4_dnl Every failure returns its fg_status with the message naming
m4_dnl fg_cuda_entry (the entry point: fg_PLAN, fg_PLAN_hip).  It declares
m4_dnl st, dt, tq, tk, tv, to, B, Hq, M, D, Hkv, N, rowvals, splits and p
m4_dnl for the code after it (and, from the plan's checks, plan_paramK_ and,
m4_dnl where the plan has dims beyond the kernels' roles, plan_dims_).
  // The plan's checks, printed from one source for every entry point (the
  // CPU, CUDA and HIP ones: fusegen's validate_c.c): each tensor's dtype, rank,
  // alignment and shape against the plan's dims, the params, every gathered
  // read in range.  Then what the kernels add: bf16 or fp16 operands with a
  // unit inner stride and 16-byte rows, a compiled head dim, 32-bit sizes.
fg_cuda_shared_checks[[[]]]m4_dnl
  const unsigned halfs = FG_DTYPE_BIT(FG_BF16) | FG_DTYPE_BIT(FG_FP16);
  fg_status st;
  if ((st = fg_check_tensor(&args->fg_cuda_Q, "fg_cuda_entry: fg_cuda_Q", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_K, "fg_cuda_entry: fg_cuda_K", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_V, "fg_cuda_entry: fg_cuda_V", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  if ((st = fg_check_tensor(&args->fg_cuda_O, "fg_cuda_entry: fg_cuda_O", 4, halfs | FG_CHECK_UNIT_INNER, 16)) != FG_OK) return st;
  const fg_dtype dt = args->fg_cuda_Q.dtype;
  if (args->fg_cuda_K.dtype != dt || args->fg_cuda_V.dtype != dt || args->fg_cuda_O.dtype != dt)
    return fg_set_error(FG_ERR_DTYPE, "fg_cuda_entry: fg_cuda_Q, fg_cuda_K, fg_cuda_V and fg_cuda_O must have one dtype (bf16 or fp16); they are %s, %s, %s, %s",
                        fg_dtype_name(dt), fg_dtype_name(args->fg_cuda_K.dtype), fg_dtype_name(args->fg_cuda_V.dtype),
                        fg_dtype_name(args->fg_cuda_O.dtype));
fg_cuda_chain_checks[[[]]]m4_dnl
  const fg_tensor& tq = args->fg_cuda_Q;
  const fg_tensor& tk = args->fg_cuda_K;
  const fg_tensor& tv = args->fg_cuda_V;
fg_cuda_chains_if([[[  (void)tv;  // several chains: each pass takes its chain's V (plan_run)
]]])m4_dnl
  const fg_tensor& to = args->fg_cuda_O;
  // dims from the shapes: fg_cuda_Q[fg_cuda_dim_B, fg_cuda_dim_H, fg_cuda_dim_M, fg_cuda_dim_D], fg_cuda_K[fg_cuda_dim_B, fg_cuda_dim_Hkv, fg_cuda_dim_N, fg_cuda_dim_D]
  const int64_t B = tq.shape[0], Hq = tq.shape[1], M = tq.shape[2], D = tq.shape[3];
  const int64_t Hkv = tk.shape[1], N = tk.shape[2];
  // their agreement, every extent > 0 and the head grouping were checked above
  // the values per row beside O, each written where its data is not NULL
  const char* const plan_entry = "fg_cuda_entry";
  plan_rowvals rowvals;
  memset(&rowvals, 0, sizeof rowvals);
fg_cuda_rowvals_setup[[[]]]m4_dnl
  (void)plan_entry;
  if (fg_cuda_head_dim_unsupported)
    return fg_set_error(FG_ERR_UNSUPPORTED, "fg_cuda_entry: head dim fg_cuda_dim_D = %lld has no compiled kernel (fg_cuda_head_dims)",
                        (long long)D);
  if (B > INT_MAX || Hq > INT_MAX || M > INT_MAX || N > INT_MAX || B * Hq > INT_MAX)
    return fg_set_error(FG_ERR_UNSUPPORTED, "fg_cuda_entry: sizes beyond the kernel's 32-bit indices");
  if (args->splits < 0)
    return fg_set_error(FG_ERR_PARAM, "fg_cuda_entry: splits is %d, must be 0 (the plan's) or more", args->splits);
  // 0 asks for the schedule's split count: splits = fg_cuda_plan_splits_text
  const int splits = args->splits ? args->splits : fg_cuda_plan_splits;
  plan_params p;
  memset(&p, 0, sizeof p);
  p.M = (int)M;
  p.N = (int)N;
  p.Hq = (int)Hq;
  p.Hkv = (int)Hkv;
  p.off = (int)(N - M);
fg_cuda_set_dims[[[]]]m4_dnl
fg_cuda_set_params[[[]]]m4_dnl
fg_cuda_set_aux[[[]]]m4_dnl
