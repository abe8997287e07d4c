// Instantiates the prototype kernel for one variant (compile with -DFG_VARIANT=k -DFG_NS=fg_vk).
#include "attn_problem.h"
#include "attn_fwd.cuh"

#define FG_CAT2(a, b) a##b
#define FG_CAT(a, b) FG_CAT2(a, b)

namespace FG_NS {

// Tile configurations.  cfg 0 is the default for each D; the others are timed as
// alternatives (bf16 only).  Flags after MINB: lazy rescale, FFMA fold.
using C64_0 = fg_cfg<64, 128, 64, 4, 2, true>;                     // 32 rows/warp, Q in regs
using C64_1 = fg_cfg<64, 128, 64, 4, 2, true, 1, true>;            // + lazy rescale
using C64_2 = fg_cfg<64, 128, 128, 4, 2, false>;                 // BN 128, Q via ldmatrix
using C96 = fg_cfg<96, 128, 64, 8, 2, true>;
using C256 = fg_cfg<256, 128, 64, 8, 2, false>;
using C128_0 = fg_cfg<128, 128, 64, 4, 2, false>;                  // 32 rows/warp, Q via ldmatrix
using C128_1 = fg_cfg<128, 128, 64, 4, 2, false, 1, true>;         // + lazy rescale
using C128_2 = fg_cfg<128, 256, 64, 8, 2, false>;                  // 8 warps, 1 CTA/SM
using C128_3 = fg_cfg<128, 256, 64, 8, 2, false, 1, true>;         // + lazy rescale
using C128_4 = fg_cfg<128, 128, 64, 4, 2, false, 1, false, false>;  // C128_0 without the FFMA fold
using C128_5 = fg_cfg<128, 128, 128, 8, 2, true>;                 // 16 rows/warp, BN128, Q in regs

template <typename T>
static cudaError_t dispatch(const fg_args& a, int D, int cfg) {
  constexpr bool ALT = __is_same(T, __nv_bfloat16);  // alternatives: bf16 only
  switch (D) {
    case 64:
      if (cfg == 0) return fg_attn_fwd_launch<T, C64_0>(a);
#ifndef FG_NO_ALT_CFGS
      if constexpr (ALT) {
        if (cfg == 1) return fg_attn_fwd_launch<T, C64_1>(a);
        if (cfg == 2) return fg_attn_fwd_launch<T, C64_2>(a);
      }
#endif
      break;
    case 96: return cfg == 0 ? fg_attn_fwd_launch<T, C96>(a) : cudaErrorInvalidValue;
    case 256: return cfg == 0 ? fg_attn_fwd_launch<T, C256>(a) : cudaErrorInvalidValue;
    case 128:
      if (cfg == 0) return fg_attn_fwd_launch<T, C128_0>(a);
#ifndef FG_NO_ALT_CFGS
      if constexpr (ALT) {
        if (cfg == 1) return fg_attn_fwd_launch<T, C128_1>(a);
        if (cfg == 2) return fg_attn_fwd_launch<T, C128_2>(a);
        if (cfg == 3) return fg_attn_fwd_launch<T, C128_3>(a);
        if (cfg == 4 && fg_score_is_scaled_qk) return fg_attn_fwd_launch<T, C128_4>(a);
        if (cfg == 5) return fg_attn_fwd_launch<T, C128_5>(a);
      }
#endif
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace FG_NS

cudaError_t FG_CAT(fg_run_, FG_VARIANT)(const attn_problem& pr, int cfg) {
  using namespace FG_NS;
  fg_args a;
  a.q = pr.q; a.k = pr.k; a.v = pr.v; a.o = pr.o; a.lse = pr.lse;
  a.q_sb = pr.q_sb; a.q_sh = pr.q_sh; a.q_sm = pr.q_sm;
  a.k_sb = pr.k_sb; a.k_sh = pr.k_sh; a.k_sn = pr.k_sn;
  a.v_sb = pr.v_sb; a.v_sh = pr.v_sh; a.v_sn = pr.v_sn;
  a.o_sb = pr.o_sb; a.o_sh = pr.o_sh; a.o_sm = pr.o_sm;
  a.B = pr.B; a.Hq = pr.Hq; a.Hkv = pr.Hkv; a.M = pr.M; a.N = pr.N;
  a.p = fg_params_init(pr.M, pr.N, pr.Hq, pr.Hkv, pr.D, pr.softcap, pr.window);
  if (pr.M <= 0 || pr.B <= 0) return cudaSuccess;
  return pr.dtype == 0 ? dispatch<__nv_bfloat16>(a, pr.D, cfg) : dispatch<__half>(a, pr.D, cfg);
}

#if FG_VARIANT == 0
const char* fg_cfg_name(int D, int cfg) {
  static const char* n128[] = {"BM128 BN64 W4",      "BM128 BN64 W4 lazy",   "BM256 BN64 W8",
                               "BM256 BN64 W8 lazy", "BM128 BN64 W4 nofold", "BM128 BN128 W8 MT1 Qreg"};
  static const char* n64[] = {"d64 BM128 BN64 W4 Qreg", "d64 BM128 BN64 W4 Qreg lazy", "d64 BM128 BN128 W4"};
  if (D == 128) return cfg >= 0 && cfg < 6 ? n128[cfg] : "?";
  if (D == 64) return cfg >= 0 && cfg < 3 ? n64[cfg] : "?";
  return cfg == 0 ? "default" : "?";
}
int fg_num_cfgs(int D) {
#ifdef FG_NO_ALT_CFGS
  return 1;
#else
  return D == 128 ? 6 : D == 64 ? 3 : 1;
#endif
}
#endif
