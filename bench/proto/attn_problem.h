// Harness-only: a variant-neutral description of one attention launch.
#pragma once
#include <stdint.h>
#include <cuda_runtime.h>

struct attn_problem {
  int dtype;  // 0 = bf16, 1 = fp16
  int D, B, Hq, Hkv, M, N;
  float softcap;  // 0 = none
  int window;     // 0 = none
  const void *q, *k, *v;
  void* o;
  float* lse;
  int64_t q_sb, q_sh, q_sm, k_sb, k_sh, k_sn, v_sb, v_sh, v_sn, o_sb, o_sh, o_sm;
};

// One entry point per variant (attn_inst.cu compiled once per FG_VARIANT).
// cfg: 0 = default tile config for D; >0 = alternative configs (bf16, D=128 only).
// Returns cudaErrorInvalidValue for an unknown (D, cfg).
#define FG_DECL_RUN(v) cudaError_t fg_run_##v(const attn_problem& pr, int cfg);
FG_DECL_RUN(0)
FG_DECL_RUN(1)
FG_DECL_RUN(2)
FG_DECL_RUN(3)
FG_DECL_RUN(4)
FG_DECL_RUN(5)
const char* fg_cfg_name(int D, int cfg);
int fg_num_cfgs(int D);
