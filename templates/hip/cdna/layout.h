/* hip/cdna/layout.h - the lane-to-element maps of the CDNA attention skeleton
 * (wave64, MFMA), in one place: the kernels (rolling.hpp, split.hpp) address
 * their operands, accumulators, cross-lane reductions and LDS tiles only
 * through these functions.  Plain C as well as HIP: tests/test_cdna_layout.c
 * compiles this file for the host and checks it against an emulation of the
 * MFMA instructions written from the ISA's description (make check), which a
 * wrong lane-to-element mapping fails.
 *
 * n is the MFMA size: 32 (v_mfma_f32_32x32x8{bf16_1k,f16}: 32x32 output,
 * k = 8 per instruction) or 16 (v_mfma_f32_16x16x16{bf16_1k,f16}: 16x16,
 * k = 16).  Operands: each lane holds 4 consecutive k of one row of A (and
 * of one column of B).  Accumulator: n*n/64 floats per lane, one column.
 * The kernels compute S^T = K Q^T and O^T = V^T P^T, so a lane's column is
 * one query row: its softmax is lane-local but for the 64/n lanes that
 * share the column (xor n, 2n, ... < 64), and the accumulator of P^T is
 * the B operand of the next product register for register. */
#ifndef CDNA_LAYOUT_H
#define CDNA_LAYOUT_H

#if defined(__HIP__)
#define CK_LAYOUT __host__ __device__ __forceinline__ constexpr
#else
#define CK_LAYOUT static inline
#endif

/* k covered by one MFMA instruction: 8 (n = 32) or 16 (n = 16). */
CK_LAYOUT int ck_kwidth(int n) { return 256 / n; }
/* Accumulator floats per lane: 16 (n = 32) or 4 (n = 16). */
CK_LAYOUT int ck_acc_regs(int n) { return n * n / 64; }

/* Operands: the row of A (column of B) lane holds, and the k of its
 * element e (0..3) within the instruction's k range. */
CK_LAYOUT int ck_op_row(int lane, int n) { return lane % n; }
CK_LAYOUT int ck_op_k(int lane, int e, int n) { return 4 * (lane / n) + e; }

/* Accumulator: the row and column of register r of lane. */
CK_LAYOUT int ck_acc_row(int lane, int r, int n)
{
    return (r / 4) * (256 / n) + 4 * (lane / n) + r % 4;
}
CK_LAYOUT int ck_acc_col(int lane, int n) { return lane % n; }

/* A column's reduction: step s (0 .. ck_reduce_steps(n) - 1) exchanges
 * with lane ^ ck_reduce_xor(s, n); after every step each of the 64/n lanes
 * of the column holds the reduction of all of them. */
CK_LAYOUT int ck_reduce_steps(int n) { return n == 32 ? 1 : 2; }
CK_LAYOUT int ck_reduce_xor(int s, int n) { return n << s; }

/* LDS tiles, 16-bit elements.  K rows as in memory, padded by 4 elements
 * (8 bytes) so that an operand's 4 consecutive d are one 64-bit read;
 * V transposed (key fastest), padded the same way, so that the A operand of
 * O^T = V^T P^T, 4 consecutive keys of one d, is one 64-bit read too. */
CK_LAYOUT int ck_lds_k(int key, int d, int dims) { return key * (dims + 4) + d; }
CK_LAYOUT int ck_lds_vt(int key, int d, int keys) { return d * (keys + 4) + key; }
CK_LAYOUT int ck_lds_k_size(int keys, int dims) { return keys * (dims + 4); }
CK_LAYOUT int ck_lds_vt_size(int keys, int dims) { return dims * (keys + 4); }

#endif /* CDNA_LAYOUT_H */
