// Harness-only: a variant-neutral description of one decode launch (decode_fwd.cuh).
#pragma once
#include <stdint.h>
#include <cuda_runtime.h>

struct dec_problem {
  int dtype;  // 0 = bf16, 1 = fp16
  int D, B, Hq, Hkv, QL, N;
  float softcap;            // 0 = none
  const void *q, *k, *v;
  void* o;
  float* lse;               // may be null
  float *o_part, *m_part, *l_part;  // room for B*Hq*QL*splits rows
  const int* kv_len;        // device [B] or null
  int64_t q_sb, q_sh, q_sm, k_sb, k_sh, k_sn, v_sb, v_sh, v_sn, o_sb, o_sh, o_sm;
  int splits;               // 0 = fgd_choose_splits
  int cfg;                  // 0 = default tile config for D; >0 alternatives (bf16, D=128)
  int pdl;                  // programmatic dependent launch of the combine
  int fold;                 // 0: combine kernel; 1: folded combine (counters zero at launch);
                            // 2: folded, counters zeroed by cudaMemsetAsync before the launch
  unsigned* counters;       // fold: >= B*Hkv*rowgroups uint32
  int splits_used;          // out
  int threads_used, smem_used, keys_per_split, rowgroups_used;  // out: the launch shape
};

#define FGD_DECL_RUN(v) cudaError_t fgd_run_##v(dec_problem& pr);
FGD_DECL_RUN(1)
FGD_DECL_RUN(2)
FGD_DECL_RUN(3)
FGD_DECL_RUN(4)
const char* fgd_cfg_name(int D, int cfg);
int fgd_num_cfgs(int D);
