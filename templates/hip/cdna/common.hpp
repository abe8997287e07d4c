// hip/cdna/common.hpp - the hand-written skeleton of the CDNA attention family
// (gfx90a, gfx942: wave64, MFMA), part 1 of 3: includes, the kernels' namespace
// FG_NS, the lane maps (layout.h) and the wave-level helpers.  hip/attention.m4
// places it first, then the plan hooks (gpu/hooks.m4, computed by lower_hip.c
// through the CUDA backend's gpu_attention_defs), then hip/cdna/rolling.hpp
// (FlashAttention-2 form) and, for a split plan, hip/cdna/split.hpp
// (FlashDecoding form with the last-workgroup combine).  This is the source:
// edit here.  m4 reads these files: templates/README.md (Conventions) says
// which words and characters they must avoid.
//
// Design.  Each wavefront owns one MFMA column block of query rows (32 in the
// rolling kernel, 16 packed rows in the split kernel) and computes the
// transposed products S^T = K Q^T and O^T = V^T P^T (layout.h): a lane holds
// one query row's scores for some keys, so the row max and row sum are
// lane-local plus one (32) or two (16) cross-lane exchanges (ds_bpermute),
// and the P^T accumulator is the B operand of the O^T product as it stands
// (packed to bf16/fp16, no shuffle).  Q stays in registers as B operands.
// K tiles sit in LDS as rows, V tiles transposed, both padded so that every
// operand is one 64-bit LDS read.  Online softmax in the exp2 domain through
// v_exp_f32, fp32 accumulators, the corrections the plan derives
// (plan_correction), the masks' tile classes (plan_tile_class: skipped, masked,
// mask-free).
//
// Only compiler builtins are called on the device (no device-library
// function: gfx942 is built with -nogpulib where the toolchain has no
// device library for it).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#ifndef FG_NS
#define FG_NS fg
#endif

namespace FG_NS {

m4_include([[[hip/cdna/layout.h]]])m4_dnl

typedef short ck_s4 __attribute__((ext_vector_type(4)));
typedef _Float16 ck_h4 __attribute__((ext_vector_type(4)));
typedef float ck_f4 __attribute__((ext_vector_type(4)));
typedef float ck_f16 __attribute__((ext_vector_type(16)));
typedef unsigned ck_u2 __attribute__((ext_vector_type(2)));  // 8 bytes
typedef unsigned ck_u4 __attribute__((ext_vector_type(4)));  // 16 bytes

__device__ __forceinline__ int ck_tid() { return (int)__builtin_amdgcn_workitem_id_x(); }
__device__ __forceinline__ int ck_lane() {
  return (int)__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
// Every wavefront of the workgroup here, and their LDS writes visible.
__device__ __forceinline__ void ck_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ __forceinline__ float ck_max(float x, float y) { return __builtin_fmaxf(x, y); }

// An IEEE half's bits as a float (the extra inputs' loads, gpu/hooks.m4).
__device__ __forceinline__ float plan_half_float(unsigned short x) {
  return (float)__builtin_bit_cast(_Float16, x);
}
// The lanes that walk plan_key_range together (gpu/hooks.m4): a wavefront.
__attribute__((unused)) constexpr int plan_wave = 64;
__device__ __forceinline__ int plan_lane() { return ck_lane(); }
// The value of lane (this lane ^ o), through ds_bpermute (32-bit words).
template <typename V>
__device__ __forceinline__ V plan_shfl_xor(V v, int o) {
  const int src = (ck_lane() ^ o) << 2;
  if constexpr (sizeof(V) == 8) {
    const long long x = __builtin_bit_cast(long long, v);
    const int lo = __builtin_amdgcn_ds_bpermute(src, (int)x);
    const int hi = __builtin_amdgcn_ds_bpermute(src, (int)(x >> 32));
    return __builtin_bit_cast(V, (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
  } else {
    static_assert(sizeof(V) == 4, "32- or 64-bit values");
    return __builtin_bit_cast(V, __builtin_amdgcn_ds_bpermute(src, __builtin_bit_cast(int, v)));
  }
}

// 2^x through the hardware instruction (v_exp_f32; 2^-inf = +0).
__device__ __forceinline__ float fa_ex2(float x) {
#if __has_builtin(__builtin_amdgcn_exp2f)
  return __builtin_amdgcn_exp2f(x);
#else
  float y;
  asm volatile("v_exp_f32 %0, %1" : "=v"(y) : "v"(x));
  return y;
#endif
}

// The element types: 16-bit storage, MFMA operands of 4 elements, fp32 out.
struct ck_bf16 {
  typedef ck_s4 op;
  static __device__ __forceinline__ uint16_t from_float(float x) {  // round to nearest even
    const uint32_t u = __builtin_bit_cast(uint32_t, x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);  // NaN stays NaN
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  static __device__ __forceinline__ op pack(float a, float b, float c, float d) {
    op r = {(short)from_float(a), (short)from_float(b), (short)from_float(c), (short)from_float(d)};
    return r;
  }
  static __device__ __forceinline__ float to_float(uint16_t u) { return __builtin_bit_cast(float, (uint32_t)u << 16); }
  static __device__ __forceinline__ ck_f16 mfma(ck_f16 c, op a, op b) {
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
  }
  static __device__ __forceinline__ ck_f4 mfma(ck_f4 c, op a, op b) {
    return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
  }
};
struct ck_fp16 {
  typedef ck_h4 op;
  static __device__ __forceinline__ uint16_t from_float(float x) {
    return __builtin_bit_cast(uint16_t, (_Float16)x);
  }
  static __device__ __forceinline__ op pack(float a, float b, float c, float d) {
    op r = {(_Float16)a, (_Float16)b, (_Float16)c, (_Float16)d};
    return r;
  }
  static __device__ __forceinline__ float to_float(uint16_t u) { return (float)__builtin_bit_cast(_Float16, u); }
  static __device__ __forceinline__ ck_f16 mfma(ck_f16 c, op a, op b) {
    return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
  }
  static __device__ __forceinline__ ck_f4 mfma(ck_f4 c, op a, op b) {
    return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
  }
};

// An operand: 4 consecutive 16-bit elements, 8-byte aligned (LDS or global).
template <typename T>
__device__ __forceinline__ typename T::op ck_load_op(const uint16_t* p) {
  return __builtin_bit_cast(typename T::op, *reinterpret_cast<const ck_u2*>(p));
}
template <typename T>
__device__ __forceinline__ typename T::op ck_zero_op() {
  return __builtin_bit_cast(typename T::op, ck_u2{0u, 0u});
}
// 4 floats as 4 elements at p (8-byte aligned).
template <typename T>
__device__ __forceinline__ void ck_store4(uint16_t* p, float a, float b, float c, float d) {
  *reinterpret_cast<typename T::op*>(p) = T::pack(a, b, c, d);
}
// The 4 elements at p (8 bytes, as ck_store4 writes them) as floats.
template <typename T>
__device__ __forceinline__ void ck_load4(const uint16_t* p, float (&x)[4]) {
  const ck_u2 w = *reinterpret_cast<const ck_u2*>(p);
#pragma unroll
  for (int e = 0; e < 4; ++e) x[e] = T::to_float((uint16_t)(w[e / 2] >> (16 * (e & 1))));
}

template <bool B>
struct fa_bool {
  static constexpr bool value = B;
};

// A tile of `keys` keys of K and V (16-byte chunks, zeros past `n`) into LDS:
// K rows at sk (ck_lds_k), V transposed at svt (ck_lds_vt).  Threads tid,
// tid + nt, ... take the chunks.
template <int DIMS, int KEYS>
__device__ __forceinline__ void ck_load_kv(uint16_t* sk, uint16_t* svt, const uint16_t* kg, const uint16_t* vg,
                                           int64_t ksn, int64_t vsn, int n0, int n, int tid, int nt) {
  constexpr int CH = DIMS / 8;
  for (int c = tid; c < KEYS * CH; c += nt) {
    const int r = c / CH, cc = c % CH, j = n0 + r;
    ck_u4 kx = {0u, 0u, 0u, 0u}, vx = kx;
    if (j < n) {
      kx = *reinterpret_cast<const ck_u4*>(kg + (int64_t)j * ksn + cc * 8);
      vx = *reinterpret_cast<const ck_u4*>(vg + (int64_t)j * vsn + cc * 8);
    }
    ck_u2* kd = reinterpret_cast<ck_u2*>(sk + ck_lds_k(r, cc * 8, DIMS));  // 8-byte aligned rows
    kd[0] = ck_u2{kx.x, kx.y};
    kd[1] = ck_u2{kx.z, kx.w};
    const uint32_t w[4] = {vx.x, vx.y, vx.z, vx.w};
#pragma unroll
    for (int e = 0; e < 8; ++e)
      svt[ck_lds_vt(r, cc * 8 + e, KEYS)] = (uint16_t)(w[e >> 1] >> (16 * (e & 1)));
  }
}
