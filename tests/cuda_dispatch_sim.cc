// cuda_dispatch_sim.cc - the generated plan_dispatch_t of one CUDA source
// (dispatch.h, cut out by tests/cuda-dispatch.sh, with a struct per
// configuration name), run on the host over a grid of launches: it must take
// the configuration that the rules written by hand in
// templates/cuda/launch.m4 took before generator/cuda_configs.c (written out
// again below).  -DSIM_SPLIT for a split plan; -DSIM_AFFINE=0/1 and
// -DSIM_MASKED=0/1/2: the plan's facts, from the generated comment (2: masked
// with span atoms, which the sm_80 rules read as masked).
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <type_traits>

struct __nv_bfloat16 {};
struct __half {};
typedef int fg_status;
enum { FG_OK = 0, FG_ERR_UNSUPPORTED = 6 };
typedef void* cudaStream_t;

static const char* chosen;
static const char* noted;  // what the dispatch records for fg_last_config()
static fg_status fg_set_error(fg_status s, const char*, ...) {
  chosen = "(error)";
  return s;
}
static void fg_note_config(const char*, const char* config, const char*, int) { noted = config; }
// The tuned split count (back/cuda/tuned.c): none here, so the default
// rules are what this compares (test_wisdom checks the tuned lookup).
static int plan_tuned(long long, long long, int, int, int, const char**, int*) { return -1; }
// The launch of configuration `name`: the dispatch must have noted it.
static fg_status launched(const char* name) {
  chosen = noted && !strcmp(noted, name) ? name : "(launch without its note)";
  noted = nullptr;
  return FG_OK;
}
struct fa_args {
  int B, Hq, Hkv, M, N;
};
struct fd_args {
  int B, Hq, Hkv, QL, N;
};
template <typename T, class C>
static fg_status plan_launch(const fa_args&, cudaStream_t, int, const char*) {
  return launched(C::name);
}
template <typename T, class C>
static fg_status plan_launch_split(fd_args&, cudaStream_t, int, int, const char*) {
  return launched(C::name);
}

#include "dispatch.h"

// The rules as they were (commit 5bc7840, templates/cuda/launch.m4).
static const char* old_rolling(bool affine, bool masked, int d, long m, long n) {
  switch (d) {
    case 64: return "C64";
    case 96: return "C96";
    case 128: return affine && (masked ? n >= 16384 : m >= 512) ? "C128L" : "C128";
    case 256: return "C256";
  }
  return "(error)";
}
static const char* old_split(bool bf16, int d, long group, long ql) {
  const bool mt2 = group * ql > 16;
  switch (d) {
    case 64: return mt2 ? "CD64_2" : "CD64_1";
    case 96: return mt2 ? "CD96_2" : "CD96_1";
    case 128: return mt2 ? "CD128_2" : bf16 ? "CD128_8W" : "CD128_1";
    case 256: return "CD256_1";
  }
  return "(error)";
}

template <typename T>
static const char* run(int d, int m, int n, int hq, int hkv) {
  chosen = "(none)";
#ifdef SIM_SPLIT
  fd_args a = {1, hq, hkv, m, n};
  (void)plan_dispatch_t<T>(a, d, 0, nullptr, 0, "sim");
#else
  const fa_args a = {1, hq, hkv, m, n};
  (void)plan_dispatch_t<T>(a, d, nullptr, 0, "sim");
#endif
  return chosen;
}

int main() {
  static const int ds[] = {32, 64, 96, 128, 256, 512};
  static const int ms[] = {1, 2, 3, 8, 15, 16, 17, 32, 255, 511, 512, 513, 2048, 16384};
  static const int ns[] = {1, 64, 4096, 16383, 16384, 16385, 65536};
  static const int groups[] = {1, 2, 3, 4, 5, 8, 16, 17, 32};
  long count = 0, bad = 0;
  for (int dt = 0; dt < 2; dt++)
    for (int d : ds)
      for (int m : ms)
        for (int n : ns)
          for (int g : groups) {
            const int hkv = 2, hq = hkv * g;
            const char* got = dt ? run<__nv_bfloat16>(d, m, n, hq, hkv) : run<__half>(d, m, n, hq, hkv);
#ifdef SIM_SPLIT
            const char* want = old_split(dt != 0, d, g, m);
#else
            const char* want = old_rolling(SIM_AFFINE, SIM_MASKED, d, m, n);
#endif
            count++;
            if (strcmp(got, want) != 0 && bad++ < 10)
              printf("%s D %d M %d N %d Hq/Hkv %d: takes %s, the old rule %s\n", dt ? "bf16" : "fp16", d, m, n,
                     g, got, want);
          }
  if (bad) {
    printf("%ld of %ld launches differ\n", bad, count);
    return 1;
  }
  printf("%ld launches, the old rule's configuration\n", count);
  return 0;
}
