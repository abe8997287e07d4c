// Harness for the split-KV decode kernels (decode_fwd.cuh).
//   decode_test check                     correctness: every variant x dtype x D, KV lengths,
//                                         q_len, split counts, GQA groups, mixed per-sequence
//                                         lengths, against a float64 GPU reference
//   decode_test time CASES.tsv [cfgs]     time the decode cases (*-dc-*), bf16
//   decode_test small                     a few small cases (for compute-sanitizer)
//   (time also times, per case, a plain K+V streaming kernel: the floor at the launch
//    shape of the auto split choice and with full-GPU grids)
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <vector>
#include <string>
#include <algorithm>
#include "decode_problem.h"

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)

struct Variant {
  const char* name;
  int id;  // FG_VARIANT of decode_inst.cu
  int G;   // default group size (cases.tsv)
  float softcap;
  int alibi;
};
static const Variant kVariants[] = {
    {"causal", 1, 1, 0.f, 0}, {"gqa", 2, 8, 0.f, 0}, {"alibi", 3, 1, 0.f, 1}, {"softcap", 4, 2, 50.f, 0}};
static const Variant* find_variant(const char* name) {
  for (auto& v : kVariants)
    if (!strcmp(v.name, name)) return &v;
  return nullptr;
}
static cudaError_t run_variant(int id, dec_problem& pr) {
  switch (id) {
    case 1: return fgd_run_1(pr);
    case 2: return fgd_run_2(pr);
    case 3: return fgd_run_3(pr);
    case 4: return fgd_run_4(pr);
  }
  return cudaErrorInvalidValue;
}

template <typename T>
__device__ __host__ inline float to_f(T x);
template <>
__device__ __host__ inline float to_f<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }
template <>
__device__ __host__ inline float to_f<__half>(__half x) { return __half2float(x); }

__device__ inline uint32_t hash32(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return (uint32_t)x;
}
template <typename T>
__global__ void fill_random(T* p, size_t n, uint64_t seed, float amp) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float u = (hash32(seed * 0x9E3779B97F4A7C15ULL + 2 * i) >> 8) * (1.0f / 16777216.0f);
    float w = (hash32(seed * 0x9E3779B97F4A7C15ULL + 2 * i + 1) >> 8) * (1.0f / 16777216.0f);
    p[i] = T(amp * (u + w - 1.0f));
  }
}
__global__ void fill_u16(uint16_t* p, size_t n, uint16_t v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}
__global__ void fill_f32(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}

// Float64 reference: the literal formula, one thread per (b, h, query row).
struct RefCfg {
  int alibi;
  double softcap;
};
template <typename T>
__global__ void ref_decode(dec_problem pr, RefCfg rc, double* oref, double* lref) {
  const int D = pr.D, QL = pr.QL, Hq = pr.Hq;
  long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (idx >= (long)pr.B * Hq * QL) return;
  const int i = idx % QL, h = (idx / QL) % Hq, b = idx / ((long)QL * Hq);
  const int hk = h / (Hq / pr.Hkv);
  const int N = pr.kv_len ? pr.kv_len[b] : pr.N;
  const T* q = (const T*)pr.q + b * pr.q_sb + h * pr.q_sh + (long)i * pr.q_sm;
  const T* kb = (const T*)pr.k + b * pr.k_sb + hk * pr.k_sh;
  const T* vb = (const T*)pr.v + b * pr.v_sb + hk * pr.v_sh;
  const double scale = 1.0 / sqrt((double)D);
  const long off = (long)N - QL;  // bottom-right: query i sits at key position i + off
  const double slope = pow(2.0, -8.0 * (h + 1) / (double)Hq);
  auto score = [&](int j) {
    const T* k = kb + (long)j * pr.k_sn;
    double dot = 0;
    for (int d = 0; d < D; ++d) dot += (double)to_f(q[d]) * (double)to_f(k[d]);
    double s = dot * scale;
    if (rc.softcap > 0) s = rc.softcap * tanh(s / rc.softcap);
    if (rc.alibi) s += slope * (double)(j - (i + off));
    return s;
  };
  const long jmax = ((long)N - 1 < i + off) ? (long)N - 1 : i + off;  // causal
  double mx = -INFINITY;
  for (long j = 0; j <= jmax; ++j) mx = fmax(mx, score(j));
  double* o = oref + idx * D;
  if (mx == -INFINITY) {
    for (int d = 0; d < D; ++d) o[d] = 0;
    lref[idx] = -INFINITY;
    return;
  }
  double acc[256];
  for (int d = 0; d < D; ++d) acc[d] = 0;
  double sum = 0;
  for (long j = 0; j <= jmax; ++j) {
    const double pj = exp(score(j) - mx);
    sum += pj;
    const T* v = vb + j * pr.v_sn;
    for (int d = 0; d < D; ++d) acc[d] += pj * (double)to_f(v[d]);
  }
  for (int d = 0; d < D; ++d) o[d] = acc[d] / sum;
  lref[idx] = mx + log(sum);
}

static float h2f(uint16_t x, int dtype) {
  if (dtype == 0) {
    uint32_t u = (uint32_t)x << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  __half_raw r;
  r.x = x;
  return __half2float(__half(r));
}

// ------------------------------------------------------------------ correctness
struct CheckResult {
  double rel, lse_err;
  long nan_count, pad_written, lse_bad;
  int splits_used;
  long ctr_dirty;  // folded combine: counters not back to 0 after the launches
};
static uint64_t g_seed = 12345;

// lens: per-sequence KV lengths (empty: all N).  alt: strided layouts (Q [B][QL][Hq][D],
// K [B][Hkv][N][D+16], V [B][N][Hkv][D], O [B][Hq][QL][D+8]); else contiguous BHSD.
static CheckResult check_one(const Variant& var, int dtype, int D, int B, int Hkv, int G, int QL, int N,
                             const std::vector<int>& lens, int splits, bool alt, float qamp, int cfg = 0,
                             int fold = 0) {
  const int Hq = Hkv * G;
  const long KP = alt ? D + 16 : D, OP = alt ? D + 8 : D;
  size_t nq = (size_t)B * QL * Hq * D, nk = (size_t)B * Hkv * N * KP, nv = (size_t)B * N * Hkv * D,
         no = (size_t)B * Hq * QL * OP, nl = (size_t)B * Hq * QL;
  const int SMAX = 160;
  void *q, *k, *v, *o;
  float *lse, *opart, *mpart, *lpart;
  double *oref, *lref;
  int* dlen = nullptr;
  unsigned* ctr = nullptr;
  const size_t nctr = (size_t)B * Hkv * 64;
  CK(cudaMalloc(&ctr, nctr * 4));
  CK(cudaMemset(ctr, 0, nctr * 4));
  CK(cudaMalloc(&q, nq * 2)); CK(cudaMalloc(&k, nk * 2)); CK(cudaMalloc(&v, nv * 2)); CK(cudaMalloc(&o, no * 2));
  CK(cudaMalloc(&lse, nl * 4));
  CK(cudaMalloc(&opart, nl * SMAX * D * 4)); CK(cudaMalloc(&mpart, nl * SMAX * 4)); CK(cudaMalloc(&lpart, nl * SMAX * 4));
  CK(cudaMalloc(&oref, nl * D * 8)); CK(cudaMalloc(&lref, nl * 8));
  if (!lens.empty()) {
    CK(cudaMalloc(&dlen, B * 4));
    CK(cudaMemcpy(dlen, lens.data(), B * 4, cudaMemcpyHostToDevice));
  }
  const float amp = 1.7f;
  if (dtype == 0) {
    fill_random<<<256, 256>>>((__nv_bfloat16*)q, nq, g_seed++, amp * qamp);
    fill_random<<<256, 256>>>((__nv_bfloat16*)k, nk, g_seed++, amp);
    fill_random<<<256, 256>>>((__nv_bfloat16*)v, nv, g_seed++, amp);
  } else {
    fill_random<<<256, 256>>>((__half*)q, nq, g_seed++, amp * qamp);
    fill_random<<<256, 256>>>((__half*)k, nk, g_seed++, amp);
    fill_random<<<256, 256>>>((__half*)v, nv, g_seed++, amp);
  }
  fill_u16<<<256, 256>>>((uint16_t*)o, no, dtype == 0 ? 0x7fc1 : 0x7e01);  // NaN poison
  fill_f32<<<256, 256>>>(lse, nl, NAN);
  fill_f32<<<256, 256>>>(opart, nl * SMAX * D, NAN);
  fill_f32<<<256, 256>>>(mpart, nl * SMAX, NAN);
  fill_f32<<<256, 256>>>(lpart, nl * SMAX, NAN);
  CK(cudaGetLastError());

  dec_problem pr;
  memset(&pr, 0, sizeof pr);
  pr.dtype = dtype; pr.D = D; pr.B = B; pr.Hq = Hq; pr.Hkv = Hkv; pr.QL = QL; pr.N = N;
  pr.softcap = var.softcap;
  pr.q = q; pr.k = k; pr.v = v; pr.o = o; pr.lse = lse;
  pr.o_part = opart; pr.m_part = mpart; pr.l_part = lpart; pr.kv_len = dlen;
  if (alt) {
    pr.q_sb = (long)QL * Hq * D; pr.q_sh = D; pr.q_sm = (long)Hq * D;
    pr.k_sb = (long)Hkv * N * KP; pr.k_sh = (long)N * KP; pr.k_sn = KP;
    pr.v_sb = (long)N * Hkv * D; pr.v_sh = D; pr.v_sn = (long)Hkv * D;
    pr.o_sb = (long)Hq * QL * OP; pr.o_sh = (long)QL * OP; pr.o_sm = OP;
  } else {
    pr.q_sm = D; pr.q_sh = (long)QL * D; pr.q_sb = pr.q_sh * Hq;
    pr.k_sn = D; pr.k_sh = (long)N * D; pr.k_sb = pr.k_sh * Hkv;
    pr.v_sn = D; pr.v_sh = pr.k_sh; pr.v_sb = pr.k_sb;
    pr.o_sm = D; pr.o_sh = (long)QL * D; pr.o_sb = pr.o_sh * Hq;
  }
  pr.splits = splits; pr.cfg = cfg; pr.pdl = 1;
  pr.fold = fold; pr.counters = ctr;
  CK(run_variant(var.id, pr));
  CK(cudaGetLastError());
  if (fold) {  // second launch on the same counters (self-cleaning), outputs poisoned again
    fill_u16<<<256, 256>>>((uint16_t*)o, no, dtype == 0 ? 0x7fc1 : 0x7e01);
    fill_f32<<<256, 256>>>(lse, nl, NAN);
    CK(run_variant(var.id, pr));
    CK(cudaGetLastError());
  }
  RefCfg rc{var.alibi, var.softcap};
  long nthreads = (long)nl;
  if (dtype == 0)
    ref_decode<__nv_bfloat16><<<(nthreads + 63) / 64, 64>>>(pr, rc, oref, lref);
  else
    ref_decode<__half><<<(nthreads + 63) / 64, 64>>>(pr, rc, oref, lref);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<uint16_t> ho(no);
  std::vector<float> hl(nl);
  std::vector<double> hor(nl * D), hlr(nl);
  CK(cudaMemcpy(ho.data(), o, no * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hl.data(), lse, nl * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hor.data(), oref, hor.size() * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hlr.data(), lref, nl * 8, cudaMemcpyDeviceToHost));
  CheckResult r{0, 0, 0, 0, 0, pr.splits_used, 0};
  {
    std::vector<unsigned> hc(nctr);
    CK(cudaMemcpy(hc.data(), ctr, nctr * 4, cudaMemcpyDeviceToHost));
    for (unsigned x : hc) r.ctr_dirty += x != 0;
  }
  double num = 0, den = 0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hq; ++h)
      for (int i = 0; i < QL; ++i) {
        const size_t ob = alt ? (((size_t)b * Hq + h) * QL + i) * OP : (((size_t)b * Hq + h) * QL + i) * D;
        const size_t li = ((size_t)b * Hq + h) * QL + i;
        const size_t rb = li * D;
        for (int d = 0; d < D; ++d) {
          float x = h2f(ho[ob + d], dtype);
          if (isnan(x)) { r.nan_count++; continue; }
          double e = x - hor[rb + d];
          num += e * e;
          den += hor[rb + d] * hor[rb + d];
        }
        for (int d = D; d < OP; ++d)
          if (!isnan(h2f(ho[ob + d], dtype))) r.pad_written++;
        const double lr = hlr[li];
        const float lk = hl[li];
        if (isinf(lr)) {
          if (!(isinf(lk) && lk < 0)) r.lse_bad++;
        } else if (isnan(lk) || isinf(lk)) {
          r.lse_bad++;
        } else {
          const double e = fabs(lk - lr) / fmax(1.0, fabs(lr));
          r.lse_err = fmax(r.lse_err, e);
        }
      }
  r.rel = den > 0 ? sqrt(num / den) : sqrt(num);
  cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); cudaFree(lse); cudaFree(opart); cudaFree(mpart);
  cudaFree(lpart); cudaFree(oref); cudaFree(lref); cudaFree(ctr);
  if (dlen) cudaFree(dlen);
  return r;
}

struct Agg {
  double worst = 0, worst_lse = 0;
  long nan = 0, pad = 0, lbad = 0, dirty = 0;
  int runs = 0, fails = 0;
};
static int g_fail_print = 0;
static void record(Agg& ag, const CheckResult& r, int dtype, const char* what) {
  ag.worst = fmax(ag.worst, r.rel);
  ag.worst_lse = fmax(ag.worst_lse, r.lse_err);
  ag.nan += r.nan_count; ag.pad += r.pad_written; ag.lbad += r.lse_bad; ag.dirty += r.ctr_dirty;
  ag.runs++;
  const double tol = dtype == 0 ? 1e-2 : 3e-3;
  if (!(r.rel < tol) || r.nan_count || r.pad_written || r.lse_bad || !(r.lse_err < 1e-3) || r.ctr_dirty) {
    ag.fails++;
    if (g_fail_print++ < 40)
      printf("  FAIL %s: rel %.3g lse %.3g nan %ld pad %ld lsebad %ld ctr %ld (splits %d)\n", what, r.rel,
             r.lse_err, r.nan_count, r.pad_written, r.lse_bad, r.ctr_dirty, r.splits_used);
  }
}
static void print_agg(const char* name, const Agg& ag) {
  printf("%-44s %5d %10.3e %10.3e %s%s\n", name, ag.runs, ag.worst, ag.worst_lse,
         (ag.nan || ag.pad || ag.lbad || ag.dirty) ? "NAN/PAD/LSE/CTR! " : "", ag.fails ? "FAIL" : "ok");
}

static int do_check() {
  int fails = 0, runs = 0;
  char what[256];
  printf("%-44s %5s %10s %10s %s\n", "group", "runs", "max_rel", "max_lse", "status");
  // A: the full sweep at D=128 bf16 causal: lengths x q_len x splits x groups
  {
    const int lens[] = {1, 13, 63, 64, 65, 1000, 4097};
    const int qls[] = {1, 3, 16};
    const int sps[] = {1, 2, 3, 7, 16, 64};
    for (int G : {1, 2, 8}) {
      Agg ag;
      for (int N : lens)
        for (int QL : qls)
          for (int S : sps)
            for (int fold = 0; fold < (S > 1 ? 2 : 1); ++fold) {
              const bool alt = (N + QL + S) % 2;
              CheckResult r = check_one(kVariants[0], 0, 128, 2, 2, G, QL, N, {}, S, alt, 1.f, 0, fold);
              snprintf(what, sizeof what, "causal bf16 D128 G%d N%d QL%d S%d alt%d fold%d", G, N, QL, S, alt, fold);
              record(ag, r, 0, what);
            }
      snprintf(what, sizeof what, "A causal bf16 D128 G%d (7 N x 3 QL x 6 S, S>1 +fold)", G);
      print_agg(what, ag);
      fails += ag.fails; runs += ag.runs;
    }
  }
  // B: every variant x dtype x D
  for (const Variant& var : kVariants)
    for (int dtype = 0; dtype < 2; ++dtype)
      for (int D : {64, 96, 128, 256}) {
        Agg ag;
        for (int N : {1, 65, 1000, 4097})
          for (int QL : {1, 3, 16})
            for (int S : {1, 3, 16, 0})
              for (int fold = 0; fold < (S == 1 || S == 3 ? 1 : 2); ++fold) {
                const bool alt = (S == 3);
                CheckResult r = check_one(var, dtype, D, 2, 2, var.G, QL, N, {}, S, alt, 1.f, 0, fold);
                snprintf(what, sizeof what, "%s dt%d D%d G%d N%d QL%d S%d alt%d fold%d", var.name, dtype, D, var.G, N,
                         QL, S, alt, fold);
                record(ag, r, dtype, what);
              }
        // mixed per-sequence lengths (0 allowed), auto and fixed splits
        const std::vector<int> mix1 = {1, 700, 4097, 0}, mix2 = {64, 0, 13, 65};
        for (int QL : {1, 16})
          for (int S : {1, 7, 0})
            for (int fold = 0; fold < (S == 1 ? 1 : 2); ++fold) {
              CheckResult r = check_one(var, dtype, D, 4, 2, var.G, QL, 4097, mix1, S, S == 7, 1.f, 0, fold);
              snprintf(what, sizeof what, "%s dt%d D%d mix[1,700,4097,0] QL%d S%d fold%d", var.name, dtype, D, QL, S,
                       fold);
              record(ag, r, dtype, what);
              r = check_one(var, dtype, D, 4, 2, var.G, QL, 65, mix2, S, S != 7, 1.f, 0, fold);
              snprintf(what, sizeof what, "%s dt%d D%d mix[64,0,13,65] QL%d S%d fold%d", var.name, dtype, D, QL, S, fold);
              record(ag, r, dtype, what);
            }
        if (var.softcap > 0) {  // large scores: the tanh cap is active
          for (int S : {1, 5, -5}) {
            CheckResult r = check_one(var, dtype, D, 2, 2, var.G, 3, 1000, {}, S < 0 ? -S : S, false, 30.f, 0, S < 0);
            snprintf(what, sizeof what, "%s dt%d D%d bigQ S%d fold%d", var.name, dtype, D, S < 0 ? -S : S, S < 0);
            record(ag, r, dtype, what);
          }
        }
        snprintf(what, sizeof what, "B %s %s D%d G%d", var.name, dtype ? "fp16" : "bf16", D, var.G);
        print_agg(what, ag);
        fails += ag.fails; runs += ag.runs;
      }
  // F: folded combine on many splits and mixed lengths (gqa G=8 and causal G=1, QL 1/3/16)
  {
    Agg ag;
    const std::vector<int> mix3 = {4097, 0, 15, 1, 2049, 16, 17, 300};
    for (int vi : {0, 1, 3})
      for (int QL : {1, 3, 16})
        for (int S : {2, 33, 64, 0}) {
          const Variant& var = kVariants[vi];
          CheckResult r = check_one(var, 0, 128, 8, 2, var.G, QL, 4097, mix3, S, S == 33, 1.f, 0, 1);
          snprintf(what, sizeof what, "fold %s mix3 QL%d S%d", var.name, QL, S);
          record(ag, r, 0, what);
        }
    print_agg("F fold: mixed lengths, S 2..64, G 1/2/8", ag);
    fails += ag.fails; runs += ag.runs;
  }
  // C: the alternative D=128 tile configs (bf16)
  for (int cfg = 1; cfg < fgd_num_cfgs(128); ++cfg) {
    Agg ag;
    for (const Variant& var : kVariants)
      for (int N : {13, 1000, 4097})
        for (int S : {1, 7, 0})
          for (int fold = 0; fold < (S == 1 ? 1 : 2); ++fold) {
            if (var.G * 1 > 16) continue;
            CheckResult r = check_one(var, 0, 128, 2, 2, var.G, 1, N, {}, S, S == 7, 1.f, cfg, fold);
            snprintf(what, sizeof what, "cfg%d %s N%d S%d fold%d", cfg, var.name, N, S, fold);
            record(ag, r, 0, what);
          }
    snprintf(what, sizeof what, "C cfg%d %s", cfg, fgd_cfg_name(128, cfg));
    print_agg(what, ag);
    fails += ag.fails; runs += ag.runs;
  }
  printf("CHECK: %d runs, %d failures -> %s\n", runs, fails, fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}

// ------------------------------------------------------------------ timing
struct Case {
  std::string id, variant;
  int b, hq, hkv, sq, sk, d, causal, window, alibi;
  double softcap;
};
static std::vector<Case> read_cases(const char* path) {
  std::vector<Case> out;
  FILE* f = fopen(path, "r");
  if (!f) { perror(path); exit(2); }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char id[128], var[64];
    Case c;
    if (sscanf(line, "%127s %63s %d %d %d %d %d %d %d %d %lf %d", id, var, &c.b, &c.hq, &c.hkv, &c.sq, &c.sk, &c.d,
               &c.causal, &c.window, &c.softcap, &c.alibi) == 12) {
      c.id = id; c.variant = var;
      out.push_back(c);
    }
  }
  fclose(f);
  return out;
}

// Streaming floor: read K and V of each (b, kv head) over the key range of one split
// (blockIdx.x), once per row group (blockIdx.y), 16-byte loads, UNR of K and UNR of V in
// flight per thread; XOR-reduced, written only on an impossible value (never eliminated).
// Contiguous K/V [B*Hkv][N][D]: head_u4 = N*D*2/16 16-byte words per head.  With
// gridDim.z = 1 and head_u4 = everything, it is a plain flat stream (full-GPU floors).
template <int UNR>
__global__ void floor_kernel(const uint4* __restrict__ k, const uint4* __restrict__ v, long head_u4, long chunk_u4,
                             unsigned* sink) {
  const long base = (long)blockIdx.z * head_u4;
  const long beg = (long)blockIdx.x * chunk_u4;
  const long end = min(beg + chunk_u4, head_u4);
  const int nt = blockDim.x;
  unsigned acc = 0;
  for (long i = beg + threadIdx.x; i < end; i += (long)nt * UNR) {
    uint4 x[UNR], y[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      const long j = i + (long)u * nt;
      if (j < end) {
        x[u] = __ldcg(k + base + j);
        y[u] = __ldcg(v + base + j);
      } else {
        x[u] = make_uint4(0, 0, 0, 0);
        y[u] = x[u];
      }
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u) acc ^= x[u].x ^ x[u].y ^ x[u].z ^ x[u].w ^ y[u].x ^ y[u].y ^ y[u].z ^ y[u].w;
  }
  if (acc == 0x9E3779B9u) sink[blockIdx.x] = acc;
}

// Median back-to-back (100 launches, events between) and median isolated (record, launch,
// record, synchronize; 30 launches) times in ms; launch(set) rotates the K/V sets.
template <class F>
static void time_launch(F launch, int nsets, std::vector<cudaEvent_t>& ev, double* ms_b2b, double* ms_iso) {
  const int REPS = 100;
  for (int w = 0; w < 5; ++w) launch(w % nsets);
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(ev[0]));
  for (int r = 0; r < REPS; ++r) {
    launch((r + 1) % nsets);
    CK(cudaEventRecord(ev[r + 1]));
  }
  CK(cudaEventSynchronize(ev[REPS]));
  std::vector<float> ts(REPS);
  for (int r = 0; r < REPS; ++r) CK(cudaEventElapsedTime(&ts[r], ev[r], ev[r + 1]));
  std::sort(ts.begin(), ts.end());
  *ms_b2b = ts[REPS / 2];
  std::vector<float> ti;
  for (int r = 0; r < 30; ++r) {
    CK(cudaEventRecord(ev[0]));
    launch(r % nsets);
    CK(cudaEventRecord(ev[1]));
    CK(cudaEventSynchronize(ev[1]));
    float t;
    CK(cudaEventElapsedTime(&t, ev[0], ev[1]));
    ti.push_back(t);
  }
  std::sort(ti.begin(), ti.end());
  *ms_iso = ti[ti.size() / 2];
}

// Timing lines: case, config, splits ("a" = auto), mode, us (b2b median), KV GB/s b2b, KV GB/s iso.
// Modes: comb = split kernel + combine kernel with PDL; comb-nopdl; fold = folded combine,
// counters zeroed once; fold+ms = folded, cudaMemsetAsync of the counters before every launch.
// Floor lines: "floor" + shape (same = the auto split launch's grid, threads and dynamic smem;
// gpuK = flat stream over K+V with K CTAs of 256 threads per SM), same columns.
static int do_time(const char* path, const char* cfgs_arg, const char* only) {
  std::vector<Case> cases = read_cases(path);
  std::vector<int> cfgs;
  if (cfgs_arg && *cfgs_arg)
    for (const char* s = cfgs_arg; *s;) { cfgs.push_back(atoi(s)); while (*s && *s != ',') ++s; if (*s) ++s; }
  if (cfgs.empty()) for (int i = 0; i < fgd_num_cfgs(128); ++i) cfgs.push_back(i);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsm = prop.multiProcessorCount;
  printf("device: %s, %d SMs, L2 %d MB\n", prop.name, nsm, prop.l2CacheSize >> 20);
  std::vector<cudaEvent_t> ev(101);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  unsigned *ctr, *sink;
  CK(cudaMalloc(&ctr, 1 << 16)); CK(cudaMemset(ctr, 0, 1 << 16));
  CK(cudaMalloc(&sink, 1 << 20));
  static const char* mode_name[] = {"comb", "comb-nopdl", "fold", "fold+ms"};
  printf("%-14s %-22s %6s %-10s %9s %9s %9s\n", "case", "config", "splits", "mode", "us", "KV_GB/s", "iso_GB/s");
  for (const Case& c : cases) {
    if (c.sq > 16) continue;  // decode rows only
    if (only && *only && !strstr(only, c.id.c_str())) continue;
    const Variant* var = find_variant(c.variant.c_str());
    if (!var) continue;
    const size_t nq = (size_t)c.b * c.hq * c.sq * c.d, nk = (size_t)c.b * c.hkv * c.sk * c.d;
    const double kv_bytes = 2.0 * nk * 2;
    int nsets = (int)std::max(2.0, ceil(4.0 * prop.l2CacheSize / kv_bytes));
    nsets = std::min(nsets, 16);
    std::vector<void*> ks(nsets), vs(nsets);
    void *q, *o;
    float *lse, *opart, *mpart, *lpart;
    const int SMAX = 256;
    CK(cudaMalloc(&q, nq * 2)); CK(cudaMalloc(&o, nq * 2));
    CK(cudaMalloc(&lse, (size_t)c.b * c.hq * c.sq * 4));
    CK(cudaMalloc(&opart, (size_t)c.b * c.hq * c.sq * SMAX * c.d * 4));
    CK(cudaMalloc(&mpart, (size_t)c.b * c.hq * c.sq * SMAX * 4));
    CK(cudaMalloc(&lpart, (size_t)c.b * c.hq * c.sq * SMAX * 4));
    fill_random<<<1024, 256>>>((__nv_bfloat16*)q, nq, g_seed++, 1.7f);
    for (int s = 0; s < nsets; ++s) {
      CK(cudaMalloc(&ks[s], nk * 2)); CK(cudaMalloc(&vs[s], nk * 2));
      fill_random<<<2048, 256>>>((__nv_bfloat16*)ks[s], nk, g_seed++, 1.7f);
      fill_random<<<2048, 256>>>((__nv_bfloat16*)vs[s], nk, g_seed++, 1.7f);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    dec_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.dtype = 0; pr.D = c.d; pr.B = c.b; pr.Hq = c.hq; pr.Hkv = c.hkv; pr.QL = c.sq; pr.N = c.sk;
    pr.softcap = (float)c.softcap;
    pr.q = q; pr.o = o; pr.lse = lse; pr.o_part = opart; pr.m_part = mpart; pr.l_part = lpart;
    pr.counters = ctr;
    pr.q_sm = c.d; pr.q_sh = (long)c.sq * c.d; pr.q_sb = pr.q_sh * c.hq;
    pr.k_sn = c.d; pr.k_sh = (long)c.sk * c.d; pr.k_sb = pr.k_sh * c.hkv;
    pr.v_sn = pr.k_sn; pr.v_sh = pr.k_sh; pr.v_sb = pr.k_sb;
    pr.o_sm = pr.q_sm; pr.o_sh = pr.q_sh; pr.o_sb = pr.q_sb;
    auto line = [&](const char* cname, int used, bool autos, const char* mode, double ms, double msi) {
      printf("%-14s %-22.22s %4d%s %-10s %9.1f %9.0f %9.0f\n", c.id.c_str(), cname, used, autos ? "a " : "  ", mode,
             ms * 1e3, kv_bytes / (ms * 1e-3) / 1e9, kv_bytes / (msi * 1e-3) / 1e9);
      fflush(stdout);
    };
    int auto_S = 1, auto_NT = 256, auto_smem = 0, auto_kps = c.sk, auto_rg = 1;
    // auto split count first, then a sweep
    std::vector<int> split_list = {0, 1, 2, 4, 8, 16, 32, 64, 128};
    for (int cfg : cfgs) {
      if (c.d != 128 && cfg != 0) continue;
      for (int S : split_list)
        for (int mode = 0; mode < 4; ++mode) {
          if (S != 0 && (long)c.sk / S < 128) continue;
          if (mode == 1 && !(S == 0 && cfg == cfgs[0])) continue;  // pdl off only for the first config's auto
          pr.cfg = cfg; pr.splits = S; pr.pdl = mode != 1; pr.fold = mode >= 2 ? mode - 1 : 0;
          pr.k = ks[0]; pr.v = vs[0];
          if (run_variant(var->id, pr) != cudaSuccess) { cudaGetLastError(); continue; }
          const int used = pr.splits_used;
          if (used == 1 && mode != 0) continue;  // one split: no combine to fold
          if (S == 0 && cfg == cfgs[0] && mode == 0) {
            auto_S = used; auto_NT = pr.threads_used; auto_smem = pr.smem_used;
            auto_kps = pr.keys_per_split; auto_rg = pr.rowgroups_used;
          }
          double ms, msi;
          time_launch([&](int set) { pr.k = ks[set]; pr.v = vs[set]; CK(run_variant(var->id, pr)); }, nsets, ev, &ms,
                      &msi);
          char cname[64];
          snprintf(cname, sizeof cname, "c%d %s", cfg, fgd_cfg_name(c.d, cfg));
          line(cname, used, S == 0, mode_name[mode], ms, msi);
        }
    }
    // streaming floors
    {
      const long head_u4 = (long)c.sk * c.d * 2 / 16;
      const long chunk_u4 = std::min<long>((long)auto_kps * c.d * 2 / 16, head_u4);
      const long all_u4 = head_u4 * c.b * c.hkv;
      CK(cudaFuncSetAttribute(floor_kernel<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
      double ms, msi;
      char cname[64];
      // (a) the auto launch's shape: same grid (splits, row groups, B*Hkv), threads, dynamic smem
      const dim3 g((unsigned)auto_S, auto_rg, c.b * c.hkv);  // empty splits exit at once
      time_launch([&](int set) {
        floor_kernel<8><<<g, auto_NT, auto_smem>>>((const uint4*)ks[set], (const uint4*)vs[set], head_u4, chunk_u4, sink);
        CK(cudaGetLastError());
      }, nsets, ev, &ms, &msi);
      snprintf(cname, sizeof cname, "floor same %dx%dx%d/%d", g.x, g.y, g.z, auto_NT);
      line(cname, auto_S, true, "floor", ms, msi);
      // (a') the same grid and threads without the dynamic smem (occupancy not limited)
      time_launch([&](int set) {
        floor_kernel<8><<<g, auto_NT>>>((const uint4*)ks[set], (const uint4*)vs[set], head_u4, chunk_u4, sink);
        CK(cudaGetLastError());
      }, nsets, ev, &ms, &msi);
      snprintf(cname, sizeof cname, "floor same-nosmem");
      line(cname, auto_S, true, "floor", ms, msi);
      // (b) full GPU: flat stream, K CTAs of 256 threads per SM
      for (int per : {1, 2, 4, 8}) {
        const long nb = (long)nsm * per;
        const long ch = (all_u4 + nb - 1) / nb;
        time_launch([&](int set) {
          floor_kernel<8><<<(unsigned)nb, 256>>>((const uint4*)ks[set], (const uint4*)vs[set], all_u4, ch, sink);
          CK(cudaGetLastError());
        }, nsets, ev, &ms, &msi);
        snprintf(cname, sizeof cname, "floor gpu%d %ldx256", per, nb);
        line(cname, (int)nb, false, "floor", ms, msi);
      }
    }
    for (int s = 0; s < nsets; ++s) { cudaFree(ks[s]); cudaFree(vs[s]); }
    cudaFree(q); cudaFree(o); cudaFree(lse); cudaFree(opart); cudaFree(mpart); cudaFree(lpart);
  }
  cudaFree(ctr); cudaFree(sink);
  return 0;
}

// A few small cases (for compute-sanitizer): every variant, splits 1 and 3, mixed lengths.
static int do_small() {
  int bad = 0;
  for (const Variant& var : kVariants)
    for (int S : {1, 3, -3}) {  // -3: three splits, folded combine
      CheckResult r = check_one(var, 0, 128, 3, 1, var.G, 3, 300, {1, 0, 300}, S < 0 ? -S : S, S == 3, 1.f, 0, S < 0);
      printf("small %-8s S%d fold%d rel %.3e nan %ld lsebad %ld ctr %ld\n", var.name, S < 0 ? -S : S, S < 0, r.rel,
             r.nan_count, r.lse_bad, r.ctr_dirty);
      bad += !(r.rel < 1e-2) || r.nan_count || r.pad_written || r.lse_bad || r.ctr_dirty;
    }
  for (int fold = 0; fold < 2; ++fold) {
    CheckResult r = check_one(kVariants[1], 1, 64, 1, 1, 8, 5, 100, {}, 2, false, 1.f, 0, fold);  // MT=2 path
    printf("small gqa fp16 D64 QL5 S2 fold%d rel %.3e ctr %ld\n", fold, r.rel, r.ctr_dirty);
    bad += !(r.rel < 3e-3) || r.nan_count || r.lse_bad || r.ctr_dirty;
  }
  {  // many splits, some empty, folded (cfg 0 = NW8)
    CheckResult r = check_one(kVariants[1], 0, 128, 2, 1, 8, 1, 600, {600, 13}, 40, false, 1.f, 0, 1);
    printf("small gqa bf16 D128 S40 mix[600,13] fold1 rel %.3e ctr %ld\n", r.rel, r.ctr_dirty);
    bad += !(r.rel < 1e-2) || r.nan_count || r.lse_bad || r.ctr_dirty;
  }
  printf("SMALL %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}

// Device-to-device copy rate (bytes read + written), the memory ceiling of this GPU.
static int do_copy() {
  const size_t n = (size_t)2 << 30;
  void *a, *b;
  CK(cudaMalloc(&a, n)); CK(cudaMalloc(&b, n));
  CK(cudaMemset(a, 1, n)); CK(cudaMemset(b, 2, n));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> ts;
  for (int r = 0; r < 12; ++r) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpyAsync(r % 2 ? a : b, r % 2 ? b : a, n, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (r >= 2) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  printf("copy: %.0f GB/s (read+write, 2 GiB, median of %zu)\n", 2.0 * n / (ts[ts.size() / 2] * 1e-3) / 1e9, ts.size());
  cudaFree(a); cudaFree(b);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s check | time CASES.tsv [cfg,cfg] [case-ids] | small\n", argv[0]);
    return 2;
  }
  if (!strcmp(argv[1], "check")) return do_check();
  if (!strcmp(argv[1], "small")) return do_small();
  if (!strcmp(argv[1], "copy")) return do_copy();
  if (!strcmp(argv[1], "time") && argc >= 3) return do_time(argv[2], argc > 3 ? argv[3] : "", argc > 4 ? argv[4] : "");
  fprintf(stderr, "bad arguments\n");
  return 2;
}
