// Harness for the prototype attention forward kernel (attn_fwd.cuh).
//   attn_test check            correctness of every variant x dtype x D on odd sizes,
//                              against a float64 GPU reference (one thread per query row)
//   attn_test time CASES.tsv [cfgs]   time the prefill cases (bf16, d from the file)
//   attn_test small            one small case per variant (for compute-sanitizer)
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
#include "attn_problem.h"

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)

// ------------------------------------------------------------------ variants
struct Variant {
  const char* name;
  int id;      // FG_VARIANT
  int causal;
  int window;  // 0 = none
  float softcap;
  int alibi;
};
static const Variant kVariants[] = {
    {"global", 0, 0, 0, 0.f, 0}, {"causal", 1, 1, 0, 0.f, 0},    {"gqa", 2, 1, 0, 0.f, 0},
    {"alibi", 3, 1, 0, 0.f, 1},  {"softcap", 4, 1, 0, 50.f, 0}, {"window", 5, 1, 4096, 50.f, 0},
};
static const Variant* find_variant(const char* name) {
  for (auto& v : kVariants)
    if (!strcmp(v.name, name)) return &v;
  return nullptr;
}
static cudaError_t run_variant(int id, const attn_problem& pr, int cfg) {
  switch (id) {
    case 0: return fg_run_0(pr, cfg);
    case 1: return fg_run_1(pr, cfg);
    case 2: return fg_run_2(pr, cfg);
    case 3: return fg_run_3(pr, cfg);
    case 4: return fg_run_4(pr, cfg);
    case 5: return fg_run_5(pr, cfg);
  }
  return cudaErrorInvalidValue;
}

// ------------------------------------------------------------------ device helpers
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
    // sum of two uniforms: triangular, std ~ amp*0.58
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
  int causal, window, alibi;
  double softcap;
};
template <typename T>
__global__ void ref_attention(attn_problem pr, RefCfg rc, double* oref, double* lref) {
  const int D = pr.D, M = pr.M, N = pr.N, Hq = pr.Hq;
  long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (idx >= (long)pr.B * Hq * M) return;
  const int i = idx % M, h = (idx / M) % Hq, b = idx / ((long)M * Hq);
  const int hk = h / (Hq / pr.Hkv);
  const T* q = (const T*)pr.q + b * pr.q_sb + h * pr.q_sh + (long)i * pr.q_sm;
  const T* kb = (const T*)pr.k + b * pr.k_sb + hk * pr.k_sh;
  const T* vb = (const T*)pr.v + b * pr.v_sb + hk * pr.v_sh;
  const double scale = 1.0 / sqrt((double)D);
  const long off = (long)N - M;
  const double slope = pow(2.0, -8.0 * (h + 1) / (double)Hq);
  auto visible = [&](int j) {
    if (rc.causal && j > i + off) return false;
    if (rc.window > 0 && i + off - j >= rc.window) return false;
    return true;
  };
  auto score = [&](int j) {
    const T* k = kb + (long)j * pr.k_sn;
    double dot = 0;
    for (int d = 0; d < D; ++d) dot += (double)to_f(q[d]) * (double)to_f(k[d]);
    double s = dot * scale;
    if (rc.softcap > 0) s = rc.softcap * tanh(s / rc.softcap);
    if (rc.alibi) s += slope * (double)(j - (i + off));
    return s;
  };
  double mx = -INFINITY;
  for (int j = 0; j < N; ++j)
    if (visible(j)) mx = fmax(mx, score(j));
  double* o = oref + idx * D;
  if (mx == -INFINITY) {
    for (int d = 0; d < D; ++d) o[d] = 0;
    lref[idx] = -INFINITY;
    return;
  }
  double acc[256];
  for (int d = 0; d < D; ++d) acc[d] = 0;
  double sum = 0;
  for (int j = 0; j < N; ++j) {
    if (!visible(j)) continue;
    const double pj = exp(score(j) - mx);
    sum += pj;
    const T* v = vb + (long)j * pr.v_sn;
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
};

static uint64_t g_seed = 12345;

static CheckResult check_one(const Variant& var, int dtype, int D, int B, int Hq, int Hkv, int M, int N, double softcap,
                             int window) {
  const size_t es = 2;
  // Non-packed layouts: Q [B][M][Hq][D]; K [B][Hkv][N][D+16]; V [B][N][Hkv][D]; O [B][Hq][M][D+8]
  const long KP = D + 16, OP = D + 8;
  size_t nq = (size_t)B * M * Hq * D, nk = (size_t)B * Hkv * N * KP, nv = (size_t)B * N * Hkv * D,
         no = (size_t)B * Hq * M * OP, nl = (size_t)B * Hq * M;
  void *q, *k, *v, *o;
  float* lse;
  double *oref, *lref;
  CK(cudaMalloc(&q, nq * es)); CK(cudaMalloc(&k, nk * es)); CK(cudaMalloc(&v, nv * es)); CK(cudaMalloc(&o, no * es));
  CK(cudaMalloc(&lse, nl * 4));
  CK(cudaMalloc(&oref, (size_t)B * Hq * M * D * 8)); CK(cudaMalloc(&lref, nl * 8));
  const float amp = 1.7f;
  if (dtype == 0) {
    fill_random<<<256, 256>>>((__nv_bfloat16*)q, nq, g_seed++, amp);
    fill_random<<<256, 256>>>((__nv_bfloat16*)k, nk, g_seed++, amp);
    fill_random<<<256, 256>>>((__nv_bfloat16*)v, nv, g_seed++, amp);
  } else {
    fill_random<<<256, 256>>>((__half*)q, nq, g_seed++, amp);
    fill_random<<<256, 256>>>((__half*)k, nk, g_seed++, amp);
    fill_random<<<256, 256>>>((__half*)v, nv, g_seed++, amp);
  }
  fill_u16<<<256, 256>>>((uint16_t*)o, no, dtype == 0 ? 0x7fc1 : 0x7e01);  // NaN poison
  fill_f32<<<256, 256>>>(lse, nl, NAN);
  CK(cudaGetLastError());

  attn_problem pr;
  pr.dtype = dtype; pr.D = D; pr.B = B; pr.Hq = Hq; pr.Hkv = Hkv; pr.M = M; pr.N = N;
  pr.softcap = (float)softcap; pr.window = window;
  pr.q = q; pr.k = k; pr.v = v; pr.o = o; pr.lse = lse;
  pr.q_sb = (long)M * Hq * D; pr.q_sh = D; pr.q_sm = (long)Hq * D;
  pr.k_sb = (long)Hkv * N * KP; pr.k_sh = (long)N * KP; pr.k_sn = KP;
  pr.v_sb = (long)N * Hkv * D; pr.v_sh = D; pr.v_sn = (long)Hkv * D;
  pr.o_sb = (long)Hq * M * OP; pr.o_sh = (long)M * OP; pr.o_sm = OP;
  CK(run_variant(var.id, pr, 0));
  CK(cudaGetLastError());
  RefCfg rc{var.causal, window, var.alibi, softcap};
  long nthreads = (long)B * Hq * M;
  if (dtype == 0)
    ref_attention<__nv_bfloat16><<<(nthreads + 63) / 64, 64>>>(pr, rc, oref, lref);
  else
    ref_attention<__half><<<(nthreads + 63) / 64, 64>>>(pr, rc, oref, lref);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<uint16_t> ho(no);
  std::vector<float> hl(nl);
  std::vector<double> hor((size_t)B * Hq * M * D), hlr(nl);
  CK(cudaMemcpy(ho.data(), o, no * es, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hl.data(), lse, nl * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hor.data(), oref, hor.size() * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hlr.data(), lref, nl * 8, cudaMemcpyDeviceToHost));
  CheckResult r{0, 0, 0, 0, 0};
  double num = 0, den = 0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hq; ++h)
      for (int i = 0; i < M; ++i) {
        const size_t ob = ((size_t)b * Hq + h) * M * OP + (size_t)i * OP;
        const size_t rb = (((size_t)b * Hq + h) * M + i) * D;
        for (int d = 0; d < D; ++d) {
          float x = h2f(ho[ob + d], dtype);
          if (isnan(x)) { r.nan_count++; continue; }
          double e = x - hor[rb + d];
          num += e * e;
          den += hor[rb + d] * hor[rb + d];
        }
        for (int d = D; d < OP; ++d)
          if (!isnan(h2f(ho[ob + d], dtype))) r.pad_written++;
        const size_t li = ((size_t)b * Hq + h) * M + i;
        const double lr = hlr[li];
        const float lk = hl[li];
        if (isinf(lr)) {
          if (!(isinf(lk) && lk < 0)) r.lse_bad++;
        } else if (isnan(lk) || isinf(lk)) {
          r.lse_bad++;
        } else {
          r.lse_err = fmax(r.lse_err, fabs(lk - lr));
        }
      }
  r.rel = den > 0 ? sqrt(num / den) : sqrt(num);
  cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); cudaFree(lse); cudaFree(oref); cudaFree(lref);
  return r;
}

static int do_check() {
  const int Ds[] = {64, 96, 128, 256};
  const int Ms[] = {1, 7, 67, 300};
  const int Ns[] = {1, 13, 131, 1000};
  int fails = 0, runs = 0;
  printf("%-8s %-4s %4s %-22s %5s %10s %10s %s\n", "variant", "type", "D", "extra", "runs", "max_rel", "max_lseerr",
         "status");
  for (const Variant& var : kVariants) {
    // run-time parameter sets: the case's own, plus a harder one where it matters
    struct Extra { double cap; int window; const char* name; };
    std::vector<Extra> extras;
    extras.push_back({var.softcap, var.window, var.window ? "cap50 W4096" : (var.softcap > 0 ? "cap50" : "-")});
    if (var.softcap > 0) extras.push_back({1.5, var.window ? 50 : 0, var.window ? "cap1.5 W50" : "cap1.5"});
    for (int dtype = 0; dtype < 2; ++dtype)
      for (int D : Ds)
        for (const Extra& ex : extras) {
          double worst = 0, worst_lse = 0;
          long nan = 0, pad = 0, lbad = 0;
          int n = 0;
          for (int G : {1, 4})
            for (int M : Ms)
              for (int N : Ns) {
                const int Hkv = 2, Hq = Hkv * G;
                CheckResult r = check_one(var, dtype, D, 2, Hq, Hkv, M, N, ex.cap, ex.window);
                worst = fmax(worst, r.rel);
                worst_lse = fmax(worst_lse, r.lse_err);
                nan += r.nan_count; pad += r.pad_written; lbad += r.lse_bad;
                ++n;
                const double tol = dtype == 0 ? 1e-2 : 2e-3;
                if (!(r.rel < tol) || r.nan_count || r.pad_written || r.lse_bad || !(r.lse_err < 1e-3)) {
                  if (fails < 40)
                    printf("  FAIL %s dt%d D%d G%d M%d N%d %s: rel %.3g lse %.3g nan %ld pad %ld lsebad %ld\n", var.name,
                           dtype, D, G, M, N, ex.name, r.rel, r.lse_err, r.nan_count, r.pad_written, r.lse_bad);
                  ++fails;
                }
              }
          runs += n;
          printf("%-8s %-4s %4d %-22s %5d %10.3e %10.3e %s\n", var.name, dtype ? "fp16" : "bf16", D, ex.name, n, worst,
                 worst_lse, (nan || pad || lbad) ? "NAN/PAD/LSE!" : "");
        }
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
static double visible_pairs(const Case& c) {
  double tot = 0;
  for (long i = 0; i < c.sq; ++i) {
    long pos = i + (c.sk - c.sq);
    long hi = c.causal ? std::min(pos, (long)c.sk - 1) : c.sk - 1;
    long lo = c.window ? std::max(pos - c.window + 1, 0L) : 0;
    tot += std::max(hi - lo + 1, 0L);
  }
  return tot;
}

static int do_time(const char* path, const char* cfgs_arg, const char* only) {
  std::vector<Case> cases = read_cases(path);
  std::vector<int> cfgs;
  if (cfgs_arg && *cfgs_arg) {
    for (const char* s = cfgs_arg; *s;) { cfgs.push_back(atoi(s)); while (*s && *s != ',') ++s; if (*s) ++s; }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clk = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("device: %s, %d SMs, %d MHz (max clock)\n", prop.name, prop.multiProcessorCount, clk / 1000);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  printf("%-16s %-26s %9s %9s\n", "case", "config", "ms", "TFLOP/s");
  for (const Case& c : cases) {
    if (c.sq <= 1) continue;  // decode cases: another kernel
    if (only && *only && !strstr(only, c.id.c_str())) continue;
    const Variant* var = find_variant(c.variant.c_str());
    if (!var) continue;
    const size_t nq = (size_t)c.b * c.hq * c.sq * c.d, nk = (size_t)c.b * c.hkv * c.sk * c.d;
    void *q, *k, *v, *o;
    float* lse;
    CK(cudaMalloc(&q, nq * 2)); CK(cudaMalloc(&k, nk * 2)); CK(cudaMalloc(&v, nk * 2)); CK(cudaMalloc(&o, nq * 2));
    CK(cudaMalloc(&lse, (size_t)c.b * c.hq * c.sq * 4));
    fill_random<<<1024, 256>>>((__nv_bfloat16*)q, nq, g_seed++, 1.7f);
    fill_random<<<1024, 256>>>((__nv_bfloat16*)k, nk, g_seed++, 1.7f);
    fill_random<<<1024, 256>>>((__nv_bfloat16*)v, nk, g_seed++, 1.7f);
    CK(cudaGetLastError());
    attn_problem pr;
    pr.dtype = 0; pr.D = c.d; pr.B = c.b; pr.Hq = c.hq; pr.Hkv = c.hkv; pr.M = c.sq; pr.N = c.sk;
    pr.softcap = (float)c.softcap; pr.window = c.window;
    pr.q = q; pr.k = k; pr.v = v; pr.o = o; pr.lse = lse;
    pr.q_sm = c.d; pr.q_sh = (long)c.sq * c.d; pr.q_sb = pr.q_sh * c.hq;
    pr.k_sn = c.d; pr.k_sh = (long)c.sk * c.d; pr.k_sb = pr.k_sh * c.hkv;
    pr.v_sn = pr.k_sn; pr.v_sh = pr.k_sh; pr.v_sb = pr.k_sb;
    pr.o_sm = pr.q_sm; pr.o_sh = pr.q_sh; pr.o_sb = pr.q_sb;
    const double flops = 4.0 * c.d * visible_pairs(c) * c.b * c.hq;
    std::vector<int> cl = cfgs;
    if (cl.empty()) for (int i = 0; i < fg_num_cfgs(c.d); ++i) cl.push_back(i);
    for (int cfg : cl) {
      if (run_variant(var->id, pr, cfg) != cudaSuccess) { cudaGetLastError(); continue; }
      for (int w = 0; w < 3; ++w) CK(run_variant(var->id, pr, cfg));
      CK(cudaDeviceSynchronize());
      std::vector<float> ts;
      const int reps = 20;
      for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(e0));
        CK(run_variant(var->id, pr, cfg));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ts.push_back(ms);
      }
      std::sort(ts.begin(), ts.end());
      const double ms = ts[reps / 2];
      printf("%-16s %-26s %9.3f %9.1f   (min %.3f max %.3f)\n", c.id.c_str(), fg_cfg_name(c.d, cfg), ms,
             flops / (ms * 1e-3) / 1e12, ts[0], ts[reps - 1]);
      fflush(stdout);
    }
    cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); cudaFree(lse);
  }
  return 0;
}

// One small case per variant, both dtypes (for compute-sanitizer).
static int do_small() {
  int bad = 0;
  for (const Variant& var : kVariants)
    for (int dtype = 0; dtype < 2; ++dtype) {
      CheckResult r = check_one(var, dtype, 128, 1, 4, 1, 67, 131, var.softcap, var.window);
      printf("small %-8s dt%d rel %.3e\n", var.name, dtype, r.rel);
      bad += !(r.rel < 1e-2) || r.nan_count || r.pad_written || r.lse_bad;
    }
  return bad ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s check | time CASES.tsv [cfg,cfg] [case-ids] | small\n", argv[0]);
    return 2;
  }
  if (!strcmp(argv[1], "check")) return do_check();
  if (!strcmp(argv[1], "small")) return do_small();
  if (!strcmp(argv[1], "time") && argc >= 3) return do_time(argv[2], argc > 3 ? argv[3] : "", argc > 4 ? argv[4] : "");
  fprintf(stderr, "bad arguments\n");
  return 2;
}
