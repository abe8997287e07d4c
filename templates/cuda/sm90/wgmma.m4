m4_dnl cuda/sm90/wgmma.m4 - the warpgroup matrix products of the sm_90a
m4_dnl family as inline PTX (wgmma.mma_async, m64 N k16, fp32 accumulators),
m4_dnl one specialisation per element type and N.  Their operand lists run
m4_dnl to 128 registers, so m4 writes them out here; the rest of the
m4_dnl skeleton (sm90/common.cuh, sm90/rolling.cuh) is plain CUDA.
m4_dnl
m4_dnl fg_wg_list(I, N, BEFORE, AFTER): BEFORE I AFTER, ..., BEFORE N-1 AFTER.
m4_define([[[fg_wg_list]]], [[[m4_ifelse(m4_eval([[[$1 < $2]]]), [[[1]]], [[[$3[[[]]]$1[[[]]]$4[[[]]]m4_ifelse(m4_eval([[[$1 + 1 < $2]]]), [[[1]]], [[[, ]]])[[[]]]fg_wg_list(m4_incr([[[$1]]]), [[[$2]]], [[[$3]]], [[[$4]]])]]])]]])m4_dnl
m4_dnl fg_wg_regs(R): %0, ..., %R-1 (the R accumulators in the PTX text).
m4_define([[[fg_wg_regs]]], [[[fg_wg_list(0, $1, [[[%]]], [[[]]])]]])m4_dnl
m4_dnl fg_wg_outs(I, R): "+f"(d[I]), ..., "+f"(d[R-1]), eight to a line.
m4_define([[[fg_wg_outs]]], [[[m4_ifelse(m4_eval([[[$1 + 8 < $2]]]), [[[1]]], [[[fg_wg_list($1, m4_eval([[[$1 + 8]]]), [[["+f"(d@{]]], [[[@})]]]),
          fg_wg_outs(m4_eval([[[$1 + 8]]]), [[[$2]]])]]], [[[fg_wg_list($1, $2, [[["+f"(d@{]]], [[[@})]]])]]])]]])m4_dnl
m4_dnl fg_wg_outw(I, R): the same as write-only outputs, "=f"(d[I]), ...
m4_define([[[fg_wg_outw]]], [[[m4_ifelse(m4_eval([[[$1 + 8 < $2]]]), [[[1]]], [[[fg_wg_list($1, m4_eval([[[$1 + 8]]]), [[["=f"(d@{]]], [[[@})]]]),
          fg_wg_outw(m4_eval([[[$1 + 8]]]), [[[$2]]])]]], [[[fg_wg_list($1, $2, [[["=f"(d@{]]], [[[@})]]])]]])]]])m4_dnl
m4_dnl fg_wg_rasm(PTXTYPE, N, OUTS, TRANSB, ACC): the asm statement of a product
m4_dnl with A from registers (a[0..3]) and B from shared memory (descriptor b):
m4_dnl OUTS is fg_wg_outs (d read and written) or fg_wg_outw (d written only),
m4_dnl TRANSB the imm-trans-b operand (1: B MN-major), ACC the C value that
m4_dnl says whether d accumulates.
m4_define([[[fg_wg_rasm]]], [[[asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %m4_eval([[[$2 / 2 + 5]]]), 0;\n"
        "wgmma.mma_async.sync.aligned.m64n$2k16.f32.$1.$1 {fg_wg_regs(m4_eval([[[$2 / 2]]]))}, "
        "{%m4_eval([[[$2 / 2]]]), %m4_eval([[[$2 / 2 + 1]]]), %m4_eval([[[$2 / 2 + 2]]]), %m4_eval([[[$2 / 2 + 3]]])}, "
        "%m4_eval([[[$2 / 2 + 4]]]), p, 1, 1, $4;\n}\n"
        : $3(0, m4_eval([[[$2 / 2]]]))
        : "r"(a@{0@}), "r"(a@{1@}), "r"(a@{2@}), "r"(a@{3@}), "l"(b), "r"($5));]]])m4_dnl
m4_dnl fg_wg_def(CTYPE, PTXTYPE, N): fh_mma<CTYPE, N>::ss and ::ss0 (A and B in
m4_dnl shared memory, both K-major; ss0 starts from zero), ::rsk and ::rsk0 (A in
m4_dnl registers, B in shared memory, K-major) and ::rs (A in registers, B in shared memory,
m4_dnl MN-major: the transposed-B form).
m4_define([[[fg_wg_def]]], [[[m4_dnl
template <>
struct fh_mma<$1, $3> {
  static constexpr int R = m4_eval([[[$3 / 2]]]);  // fp32 accumulators per thread
  // d (+)= A.B; A and B from shared memory (descriptors a, b), both K-major
  static __device__ __forceinline__ void ss(float* d, uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %m4_eval([[[$3 / 2 + 2]]]), 0;\n"
        "wgmma.mma_async.sync.aligned.m64n$3k16.f32.$2.$2 {fg_wg_regs(m4_eval([[[$3 / 2]]]))}, "
        "%m4_eval([[[$3 / 2]]]), %m4_eval([[[$3 / 2 + 1]]]), p, 1, 1, 0, 0;\n}\n"
        : fg_wg_outs(0, m4_eval([[[$3 / 2]]]))
        : "l"(a), "l"(b), "r"(accumulate));
  }
  // d = A.B (d's old values are not read); A and B as in ss
  static __device__ __forceinline__ void ss0(float* d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %m4_eval([[[$3 / 2 + 2]]]), 0;\n"
        "wgmma.mma_async.sync.aligned.m64n$3k16.f32.$2.$2 {fg_wg_regs(m4_eval([[[$3 / 2]]]))}, "
        "%m4_eval([[[$3 / 2]]]), %m4_eval([[[$3 / 2 + 1]]]), p, 1, 1, 0, 0;\n}\n"
        : fg_wg_outw(0, m4_eval([[[$3 / 2]]]))
        : "l"(a), "l"(b), "r"(0));
  }
  // d (+)= A.B; A from registers (a[4] per thread, the m16n8k16 A layout of
  // each warp's 16 rows), B from shared memory, K-major (as in ss)
  static __device__ __forceinline__ void rsk(float* d, const uint32_t* a, uint64_t b, int accumulate) {
    fg_wg_rasm([[[$2]]], [[[$3]]], [[[fg_wg_outs]]], 0, [[[accumulate]]])
  }
  // d = A.B (d's old values are not read); A and B as in rsk
  static __device__ __forceinline__ void rsk0(float* d, const uint32_t* a, uint64_t b) {
    fg_wg_rasm([[[$2]]], [[[$3]]], [[[fg_wg_outw]]], 0, 0)
  }
  // d (+)= A.B; A from registers as in rsk, B from shared memory, MN-major
  // (transposed)
  static __device__ __forceinline__ void rs(float* d, const uint32_t* a, uint64_t b, int accumulate) {
    fg_wg_rasm([[[$2]]], [[[$3]]], [[[fg_wg_outs]]], 1, [[[accumulate]]])
  }
};
]]])m4_dnl
// ------------------------------------------------- warpgroup matrix products
// fh_mma<T, N>: wgmma.mma_async m64nNk16 with fp32 accumulators, written out
// by templates/cuda/sm90/wgmma.m4.  The accumulators of a warpgroup's 64 x N
// tile: warp w of the group holds rows 16w .. 16w+15; in it, lane (g, t)
// (g = lane / 4, t = lane % 4) holds, for each 8-column block j, d[4j], d[4j+1]
// at row g, columns 8j+2t, 8j+2t+1, and d[4j+2], d[4j+3] at row g+8.
template <typename T, int N>
struct fh_mma;
m4_dnl every N the kernels take: a head dim (64 to 256, a multiple of 16) or a
m4_dnl key tile (the tuner's candidates: a multiple of 16 from 64 to 256)
m4_define([[[fg_wg_defs]]], [[[m4_ifelse(m4_eval([[[$3 <= 256]]]), [[[1]]], [[[fg_wg_def([[[$1]]], [[[$2]]], [[[$3]]])[[[]]]fg_wg_defs([[[$1]]], [[[$2]]], m4_eval([[[$3 + 16]]]))]]])]]])m4_dnl
fg_wg_defs([[[__nv_bfloat16]]], [[[bf16]]], 64)m4_dnl
fg_wg_defs([[[__half]]], [[[f16]]], 64)m4_dnl
