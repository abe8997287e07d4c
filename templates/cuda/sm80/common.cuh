// sm80/common.cuh - the hand-written skeleton of the sm_80 attention family
// (sm_80+: mma.sync, ldmatrix, cp.async), part 1 of 3: includes, the kernels'
// namespace FG_NS and small device helpers.  cuda/attention.m4 places it first,
// then the plan hooks that lower_cuda.c computes from the fused schedule (the
// block between PLAN HOOKS BEGIN and PLAN HOOKS END: plan_params, plan_score,
// plan_visible, ...), then sm80/rolling.cuh (FlashAttention-2 form) and, for a
// split plan, sm80/split.cuh (FlashDecoding form).  The kernel bodies are the
// same for every plan; only the hooks differ.  This is the source: edit here.
// m4 reads these files: templates/README.md (Conventions) says which words and
// characters they must avoid.
//
// Tensor-core attention forward (FlashAttention-2 style).
//
// mma.sync.m16n8k16 (bf16/fp16 in, fp32 accumulate), ldmatrix (.trans for V),
// cp.async multi-stage K/V pipeline, padded (bank-conflict-free) shared memory,
// online softmax in the exp2 domain.
//
// Layout: Q [B,Hq,M,D], K/V [B,Hkv,N,D], O [B,Hq,M,D] with run-time strides (in
// elements) for batch, head and sequence; last dim contiguous; base pointers and
// strides*sizeof(T) 16-byte aligned.  LSE [B,Hq,M] fp32 contiguous, natural log.
// GQA: query head h reads kv head h / (Hq/Hkv).  Causal masks bottom-right aligned.
//
// Design (FA2-like): a CTA owns BM query rows of one (batch, head); each warp owns
// BM/NW consecutive rows (MT = rows/16 m16 tiles; MT = 2 is the fast D<=128 choice).
// Q tile -> smem once (cp.async, zero-filled past M); K/V tiles of BN keys go through
// a ring of STAGES smem slots (cp.async.cg 16 B, src-size 0 past N), one
// __syncthreads per tile.  Rows are padded by 16 B (SROW = D + 8), which makes
// ldmatrix and cp.async conflict-free for every D.  Per tile and warp:
// S = Q K^T (ldmatrix.x4 for Q and K, mma m16n8k16, fp32), score/mask hooks, online
// softmax (exp2 domain, quad shuffles), P packed to bf16/fp16 A fragments in
// registers, O += P V (ldmatrix.x4.trans for V).  Epilogue: O / l, LSE, O staged
// through the warp's own Q rows in smem for 16-byte coalesced stores.
// Tiles the hooks classify as fully visible run a mask-free instantiation of the
// step; partial tiles (and the ragged last tile) run the masked one; fully masked
// tiles are skipped (and the key range bounds the loop, so they are not loaded).
// Measured choice on H200 (bench/NOTES.md): D=128 BM128 BN64 4 warps, 2 stages
// up to 8k keys, BM256 BN64 8 warps at 32k and for the unmasked plan (with lazy
// rescale); D=64 BM128 BN64 4 warps with Q in registers.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <math.h>

#ifndef FG_NS
#define FG_NS fg
#endif

namespace FG_NS {

__device__ __forceinline__ float fa_ex2(float x) {  // 2^x, ex2(-inf) = +0
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float fa_rcp(float x) {  // 1 / x, approximate: rcp(0) = inf, rcp(inf) = 0
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// An IEEE half's bits as a float (the extra inputs' loads, gpu/hooks.m4).
__device__ __forceinline__ float plan_half_float(unsigned short x) {
  float y;
  asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(x));
  return y;
}
// The lanes that walk plan_key_range together (gpu/hooks.m4): a warp.
__attribute__((unused)) constexpr int plan_wave = 32;
__device__ __forceinline__ int plan_lane() { return threadIdx.x & 31; }
template <typename V>
__device__ __forceinline__ V plan_shfl_xor(V v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ float fa_tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

