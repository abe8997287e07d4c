// sm90/common.cuh - the hand-written skeleton of the sm_90a attention family
// (Hopper: wgmma, the tensor memory accelerator, mbarriers, warp
// specialisation), part 1 of 2: the small readable header of inline PTX the
// kernel is built from.  cuda/attention.m4 places it after the sm_80 family
// and the plan hooks, with the warpgroup products (sm90/wgmma.m4) and the
// kernel (sm90/rolling.cuh) after it.  This is the source: edit here.  m4
// reads these files: templates/README.md (Conventions) says which words and
// characters they must avoid.
//
// The code of this family exists only in the sm_90a pass of nvcc
// (__CUDA_ARCH_FEAT_SM90_ALL); in every other pass the kernel is empty and
// the host never launches it there: the dispatch asks the runtime which
// image the device runs (fh_sm90a_code below) before it picks the family.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FH_SM90A 1
#else
#define FH_SM90A 0
#endif

// Whether the consumers hold Q in registers for S = Q K^T where the register
// budget allows (QR in rolling.cuh); a build may set it to 0 with
// -DFH_Q_REGS=0 (shared-memory Q, as before 2026-11-29).
#ifndef FH_Q_REGS
#define FH_Q_REGS 1
#endif

// Whether a score linear in the key (plan_score_keylin: ALiBi) takes its
// term from the tensor cores: S's accumulators start at the term over the
// qk factor (LINA in rolling.cuh); a build may set it to 0 with
// -DFH_LIN_ACC=0 (the term added to each element in the softmax).
#ifndef FH_LIN_ACC
#define FH_LIN_ACC 1
#endif

// 1 in the sm_90a image of this source, 0 in every other: the runtime reads
// it from the image it loads for a device (fg_cuda_sm90a) before it launches
// this family there, so a build for 90 without 90a never runs its empty
// kernel.
__device__ int fh_sm90a_code = FH_SM90A;

// A tensor map (CUtensorMap: 128 opaque bytes, 64-byte aligned), made on the
// host by the runtime and passed in the kernel's
// __grid_constant__ arguments, where the copy engine reads it.
struct alignas(64) fh_tmap {
  unsigned long long w[16];
};

// ------------------------------------------------------------- mbarriers
__device__ __forceinline__ void fh_bar_init(uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the copy engine (async proxy).
__device__ __forceinline__ void fh_bar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Arrive and add `bytes` to the transactions the current phase waits for.
__device__ __forceinline__ void fh_bar_expect(uint32_t bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void fh_bar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Wait until the phase of parity `phase` has completed.
__device__ __forceinline__ void fh_bar_wait(uint32_t bar, unsigned phase) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  } while (!done);
}

// ------------------------------------------------- tensor memory accelerator
// One box of a rank-4 tensor (coordinates innermost first) into shared memory
// at dst, completing `bar`'s transactions.  Elements outside the tensor read
// as zero (and still count as bytes of the box).
__device__ __forceinline__ void fh_tma_load(uint32_t dst, const fh_tmap* map, int c0, int c1, int c2, int c3,
                                            uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void fh_tma_prefetch_map(const fh_tmap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ------------------------------------------------------------- warpgroups
__device__ __forceinline__ void fh_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void fh_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void fh_wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Pins accumulator registers in place around the asynchronous products: the
// compiler may not move their reads or writes across this point.
template <int R>
__device__ __forceinline__ void fh_pin(float* d) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for registers an asynchronous product reads (A fragments): they
// stay allocated, unchanged, until this point.
template <int R>
__device__ __forceinline__ void fh_pin_u32(uint32_t* r) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(r[i])::"memory");
}
// Four 8 x 8 matrices of 16-bit elements from shared memory (ldmatrix.x4):
// lane l gives the address of row l % 8 of matrix l / 8, and receives in r[k]
// the two elements of matrix k at row l / 4, columns 2 (l % 4) and the next.
__device__ __forceinline__ void fh_ldmatrix_x4(uint32_t addr, uint32_t* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
// Register budget of a warpgroup (setmaxnreg): the producer gives registers
// back, the consumers take them.
template <int R>
__device__ __forceinline__ void fh_regs_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void fh_regs_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
// A barrier of `threads` threads (one warpgroup, say) on hardware barrier id.
__device__ __forceinline__ void fh_named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Arrive at barrier id (counting toward `threads`) without waiting.
__device__ __forceinline__ void fh_named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// The shared-memory matrix descriptor of wgmma for a tile in the 128-byte
// swizzled layout the copy engine writes (CU_TENSOR_MAP_SWIZZLE_128B): rows of
// 64 16-bit elements (128 bytes), eight rows to a 1024-byte atom, the atom
// 1024-byte aligned.  K-major operands (Q, K: the reduced dim contiguous):
// lbo unused (16), sbo = 1024, the next 16 of the reduced dim at +32 bytes
// inside a row of 64.  MN-major operands (V: the output dim contiguous):
// lbo = the bytes between blocks of 64 columns, sbo = 1024 (eight rows of the
// reduced dim), the next 16 rows at +2048 bytes.
__device__ __forceinline__ uint64_t fh_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
         (1ull << 62);
}
// The descriptor of the same tile BYTES further on (a multiple of 16): the
// address field is the low 14 bits of the low word, and a tile stays inside
// shared memory, so the add never carries out of the field.  One add of the
// low word instead of the descriptor computed again from the address.
__device__ __forceinline__ uint64_t fh_desc_add(uint64_t d, uint32_t bytes) {
  return (d & 0xFFFFFFFF00000000ull) | (uint32_t)((uint32_t)d + (bytes >> 4));
}
