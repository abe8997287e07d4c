// rows_hooks_sim.cc - the plan hooks of one generated row-kernel source
// (templates/gpu/rows_hooks.m4 in cuda/rowreduce.m4, or with SIM_HIP in
// hip/rowreduce.m4: plan_row_setup, plan_accumulate, plan_merge,
// plan_level_accumulate, plan_level_shfl,
// plan_finish, plan_store_row, plan_elementwise) and its host entry, run on
// the host: the entry's own checks and parameter setting, then the walk of
// the skeleton emulated in plain C++ (chunks of V elements dealt to G
// threads, the threads' states merged in a random order, rows split into S
// parts whose states are merged again; or the kept forms' levels, each
// merged by plan_level_shfl; the second walk), against the plan's
// CPU entry from the registry.  Built and run by tests/rows-hooks.sh, which
// extracts the hooks and the entry into hooks.h.  No GPU is involved: this
// checks the generated code of the family, not the kernels' scheduling.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fusegen_registry.h"
#include "fusegen_internal.h"
#include SIM_HEADER

#ifdef SIM_REF_PLAN
// A plan outside the registry (tests/plans): its CPU entry, generated with
// it, is checked against the reference interpreter in double precision
// before the hooks are checked against the entry.
extern "C" {
#include "cpu_reference.h"
}
#endif

// The device dialect on the host: CUDA's, or with SIM_HIP, HIP's (the
// hooks of a _hip.hip source; HIP's math functions are compiler builtins
// and hip/rowreduce/math.hpp's, which compile on the host as they stand).
#define __device__
#define __forceinline__ inline
#ifdef SIM_HIP
typedef struct ihipStream_t* hipStream_t;
typedef hipStream_t sim_stream;
typedef int hipError_t;
enum { hipSuccess = 0 };
static hipError_t hipGetDevice(int* d) { *d = 0; return hipSuccess; }
static hipError_t hipGetLastError() { return hipSuccess; }
static const char* hipGetErrorString(hipError_t) { return "no error"; }
#else
#define __expf expf
#define __logf logf
#define __log2f log2f
typedef struct CUstream_st* cudaStream_t;
typedef cudaStream_t sim_stream;
typedef int cudaError_t;
enum { cudaSuccess = 0 };
static cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
static cudaError_t cudaGetLastError() { return cudaSuccess; }
static const char* cudaGetErrorString(cudaError_t) { return "no error"; }
static float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static float __frcp_rn(float x) { return 1.0f / x; }
static float __ldcg(const float* p) { return *p; }
#endif
using std::isinf;
using std::isfinite;
// A lane's shuffle reads the same field of its partner's state: the hooks
// shuffle fields of a plan_state (s.X), so the field's offset in the state
// that sim_self points at finds it in sim_partner.
static const void *sim_self, *sim_partner;
static float sim_shfl(const float* v) {
  const ptrdiff_t off = reinterpret_cast<const char*>(v) - static_cast<const char*>(sim_self);
  return *reinterpret_cast<const float*>(static_cast<const char*>(sim_partner) + off);
}
#define __shfl_xor_sync(mask, v, o) sim_shfl(&(v))
#define __shfl_xor(v, o) sim_shfl(&(v))

#include "hooks.h"

namespace FG_NS {

float rr_load1(const void* base, int dt, long long off) {
  if (dt != FG_F32) abort();
  return static_cast<const float*>(base)[off];
}
void rr_store1(void* base, int dt, long long off, float v) {
  if (dt != FG_F32) abort();
  static_cast<float*>(base)[off] = v;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

// The states merged pairwise in a random order.
static plan_state merge_all(std::vector<plan_state> v, const plan_params& p) {
  while (v.size() > 1) {
    size_t i = rnd() % v.size(), j = rnd() % (v.size() - 1);
    if (j >= i) j++;
    plan_merge(v[i], v[j], p);
    v.erase(v.begin() + (long)j);
  }
  return v[0];
}

static int sim_G = 32, sim_S = 1, sim_V = 8, sim_kept = 0;

// Level L of the threads' states merged pairwise in a random order, by the
// hook the kernels shuffle with (plan_level_shfl); every thread then holds
// the row's values of that level, as after the kernels' butterfly, and, as
// after rr_reduce_level's copy of whole states from the shared slots, one
// thread's values of the other levels, not its own.
template <int L>
static void merge_level(std::vector<plan_state>& th) {
  std::vector<plan_state> v = th;
  while (v.size() > 1) {
    size_t i = rnd() % v.size(), j = rnd() % (v.size() - 1);
    if (j >= i) j++;
    sim_self = &v[i];
    sim_partner = &v[j];
    plan_level_shfl<L>(v[i], 1);
    v.erase(v.begin() + (long)j);
  }
  for (auto& s : th) s = v[0];
}

// Level L of the chunks dealt to G threads (plan_level_accumulate).
template <int V, int L>
static void add_level(const plan_params& p, const plan_row& r, std::vector<plan_state>& th) {
  const long long C = p.ncols;
  for (long long c0 = 0; c0 < C; c0 += V) {
    float x[plan_nin_a][V];
    for (int k = 0; k < plan_nin; k++)
      for (int e = 0; e < V; e++)
        x[k][e] = c0 + e < C ? static_cast<const float*>(p.in[k])[r.in_off[k] + (c0 + e) * p.in_sc[k]] : 0.f;
    const int t = (int)((c0 / V) % sim_G);
    plan_lc h;
    plan_level_consts<L>(h, th[(size_t)t], p, r);
    plan_level_accumulate<L, V>(th[(size_t)t], h, x, C - c0 < V ? (int)(C - c0) : V, c0, p, r);
  }
}

// The kept forms: the running values level by level, each level merged
// before the next; with plan_rows_rebase, as gpu/rows.hpp's rr_levels_kept:
// both levels per thread, the first merged, each thread's second rebased
// to it (plan_level_rebase), then merged.
template <int V, int L = 0>
static void levels(const plan_params& p, const plan_row& r, std::vector<plan_state>& th) {
  if constexpr (plan_rows_rebase && L == 0) {
    add_level<V, 0>(p, r, th);
    add_level<V, 1>(p, r, th);
    const std::vector<plan_state> own = th;
    merge_level<0>(th);
    for (size_t t = 0; t < th.size(); t++) {
      if ((long long)t * V < p.ncols)
        plan_level_rebase(th[t], own[t], p);
      else
        plan_level_init<1>(th[t]);  // a thread with no element, as in gpu/rows.hpp
    }
    merge_level<1>(th);
  } else if constexpr (L < plan_nlevels) {
    add_level<V, L>(p, r, th);
    merge_level<L>(th);
    levels<V, L + 1>(p, r, th);
  }
}

template <int V>
static void walk(plan_params& p) {
  const long long C = p.ncols;
  for (long long row = 0; row < p.rows; row++) {
    plan_row r;
    plan_row_setup(p, row, r);
    const long long part = ((C + sim_S - 1) / sim_S + V - 1) / V * V;
    std::vector<plan_state> parts;
    if (sim_kept) {
      std::vector<plan_state> th((size_t)sim_G);
      for (auto& s : th) plan_state_init(s);
      levels<V>(p, r, th);
      parts.push_back(th[rnd() % th.size()]);
    }
    for (long long cb = 0; cb < C && !sim_kept; cb += part) {
      const long long ce = cb + part < C ? cb + part : C;
      std::vector<plan_state> th((size_t)sim_G);
      for (auto& s : th) plan_state_init(s);
      for (long long c0 = cb; c0 < ce; c0 += V) {
        float x[plan_nin_a][V];
        for (int k = 0; k < plan_nin; k++)
          for (int e = 0; e < V; e++)
            x[k][e] = c0 + e < ce ? static_cast<const float*>(p.in[k])[r.in_off[k] + (c0 + e) * p.in_sc[k]] : 0.f;
        const int t = (int)(((c0 - cb) / V) % sim_G);
        plan_accumulate<V>(th[(size_t)t], x, ce - c0 < V ? (int)(ce - c0) : V, c0, p, r);
      }
      parts.push_back(merge_all(th, p));
    }
    plan_state s = merge_all(parts, p);
    plan_fin f;
    plan_finish(f, s, p, r);
    plan_store_row(f, s, p, r);
    if (plan_nout == 0 || !p.pass2) continue;
    for (long long c0 = 0; c0 < C; c0 += V) {
      float x[plan_nin_a][V], y[plan_nout_a][V];
      for (int k = 0; k < plan_nin; k++)
        for (int e = 0; e < V; e++)
          x[k][e] = c0 + e < C ? static_cast<const float*>(p.in[k])[r.in_off[k] + (c0 + e) * p.in_sc[k]] : 0.f;
      plan_elementwise<V>(y, x, c0, f, s, p, r);
      for (int k = 0; k < plan_nout; k++)
        for (int e = 0; e < V && c0 + e < C; e++)
          if (p.out[k]) rr_store1(p.out[k], p.out_dt[k], r.out_off[k] + (c0 + e) * p.out_sc[k], y[k][e]);
    }
  }
}

fg_status rr_dispatch(plan_params& p, fg_dtype dt, int splits, sim_stream, int, const char*) {
  (void)splits;
  if (dt != FG_F32) return FG_ERR_DTYPE;
  p.pass2 = 0;
  for (int k = 0; k < plan_nout; k++) p.pass2 |= p.out[k] != nullptr;
  if (sim_V == 8)
    walk<8>(p);
  else
    walk<4>(p);
  return FG_OK;
}

}  // namespace FG_NS

#include "hooks_entry.h"

int main() {
  using namespace FG_NS;
  const fg_plan_info* info = nullptr;
  for (int i = 0; fg_plan_list[i]; i++)
    if (!strcmp(fg_plan_list[i]->name, SIM_PLAN)) info = fg_plan_list[i];
  if (!info || info->ndims > 8 || info->ninputs > 4 || info->noutputs > 4) {
    printf("skipped: plan shape not known to this check\n");
    return 77;
  }
  setvbuf(stdout, nullptr, _IONBF, 0);  // a failure's line is out before LeakSanitizer's exit
#ifdef SIM_REF_PLAN
  static ref_plan* rp = ref_load(SIM_REF_PLAN);
  atexit([] { ref_free(rp); });  // on every way out, before LeakSanitizer looks
  if (!rp) {
    printf("FAIL: the reference cannot load %s\n", SIM_REF_PLAN);
    return 1;
  }
  double worst_ref = 0;
#endif
  static const long long shapes[][2] = {{1, 1}, {3, 7}, {5, 33}, {2, 1000}, {1, 4097}};
  static const int gs[] = {1, 32, 64, 256}, ss[] = {1, 3, 7}, vs[] = {4, 8};
  double worst = 0;
  int cases = 0;
  for (const auto& sh : shapes)
    for (int g : gs)
      for (int sp : ss)
        for (int v : vs)
          for (int kept = 0; kept < (sp == 1 ? 2 : 1); kept++) {
          int64_t dims[8];
          for (int i = 0; i < info->ndims; i++) {
            if (info->dim_role[i] == FG_ROLE_ROWS)
              dims[i] = sh[0];
            else if (info->dim_role[i] == FG_ROLE_KEYS)
              dims[i] = sh[1];
            else
              dims[i] = 2;  // another row axis (a batch)
          }
          fg_tensor in[4], ref[4], got[4];
          std::vector<std::vector<float>> buf;
          auto make = [&](const fg_plan_tensor_info& ti, fg_tensor& t, bool fill) {
            memset(&t, 0, sizeof t);
            t.dtype = FG_F32;
            t.rank = ti.rank;
            int64_t n = 1;
            for (int k = ti.rank - 1; k >= 0; k--) {
              t.shape[k] = dims[ti.dims[k]];
              t.stride[k] = n;
              n *= t.shape[k];
            }
            buf.emplace_back((size_t)n);
            for (auto& x : buf.back()) x = fill ? (float)((int64_t)(rnd() % 2001) - 1000) / 125.0f : NAN;
            t.data = buf.back().data();
          };
          buf.reserve(16);
          for (int i = 0; i < info->ninputs; i++) make(info->inputs[i], in[i], true);
          for (int j = 0; j < info->noutputs; j++) {
            make(info->outputs[j], ref[j], false);
            make(info->outputs[j], got[j], false);
          }
          if (info->cpu(in, ref, NULL, NULL, NULL, NULL, 0) != FG_OK) {
            printf("FAIL: CPU entry: %s\n", fg_last_error());
            return 1;
          }
#ifdef SIM_REF_PLAN
          if (g == 1 && sp == 1 && v == 4 && !kept) {  // once per shape
            double* rin[64] = {0};
            double* rout[64] = {0};
            long ldims[8];
            for (int i = 0; i < info->ndims; i++) ldims[i] = (long)dims[i];
            std::vector<std::vector<double>> dbuf;
            dbuf.reserve(16);
            auto tensor_of = [&](const char* name) {
              const int t = ref_find_tensor(rp, name);
              if (t < 0 || t >= 64) {
                printf("FAIL: the reference has no tensor %s\n", name);
                exit(1);
              }
              return t;
            };
            for (int i = 0; i < info->ninputs; i++) {
              const int t = tensor_of(info->inputs[i].name);
              const float* x = (const float*)in[i].data;
              dbuf.emplace_back(x, x + ref_tensor_size(rp, t, ldims));
              rin[t] = dbuf.back().data();
            }
            for (int j = 0; j < info->noutputs; j++) {
              const int t = tensor_of(info->outputs[j].name);
              dbuf.emplace_back(ref_tensor_size(rp, t, ldims), 0.0);
              rout[t] = dbuf.back().data();
            }
            if (ref_run(rp, ldims, NULL, NULL, rin, rout) != 0) {
              printf("FAIL: the reference refused rows %lld, cols %lld\n", sh[0], sh[1]);
              return 1;
            }
            for (int j = 0; j < info->noutputs; j++) {
              const double* r = rout[tensor_of(info->outputs[j].name)];
              int64_t n = 1;
              for (int k = 0; k < ref[j].rank; k++) n *= ref[j].shape[k];
              for (int64_t q = 0; q < n; q++) {
                const double a = ((float*)ref[j].data)[q], b = r[q];
                const double err = (std::isinf(a) || std::isinf(b)) ? (a == b ? 0 : 1) : fabs(a - b) / fmax(1.0, fabs(b));
                if (!(err < 1e-4)) {
                  printf("FAIL: CPU entry %s[%lld] = %g, reference %.9g (rows %lld, cols %lld)\n",
                         info->outputs[j].name, (long long)q, a, b, sh[0], sh[1]);
                  return 1;
                }
                worst_ref = fmax(worst_ref, err);
              }
            }
          }
#endif
          sim_G = g;
          sim_S = sp;
          sim_V = v;
          sim_kept = kept;
          if (sim_entry(in, got) != FG_OK) {
            printf("FAIL: the CUDA entry's checks refused the call: %s\n", fg_last_error());
            return 1;
          }
          for (int j = 0; j < info->noutputs; j++) {
            int64_t n = 1;
            for (int k = 0; k < got[j].rank; k++) n *= got[j].shape[k];
            for (int64_t q = 0; q < n; q++) {
              const double a = ((float*)got[j].data)[q], b = ((float*)ref[j].data)[q];
              const double err = (std::isinf(a) || std::isinf(b)) ? (a == b ? 0 : 1) : fabs(a - b) / fmax(1.0, fabs(b));
              if (!(err < 1e-4)) {
                printf("FAIL: %s[%lld] = %g, CPU entry %g (rows %lld, cols %lld, G %d, S %d, V %d%s)\n",
                       info->outputs[j].name, (long long)q, a, b, sh[0], sh[1], g, sp, v,
                       kept ? ", kept form by levels" : "");
                return 1;
              }
              worst = fmax(worst, err);
            }
          }
          cases++;
        }
#ifdef SIM_REF_PLAN
  printf("CPU entry against the reference: worst relative error %.2e; ", worst_ref);
#endif
  printf("%d cases, worst relative error %.2e\n", cases, worst);
  return 0;
}
