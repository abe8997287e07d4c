// cuda_forced_sim.cc - the tuned lookup of one generated CUDA source
// (plan_tuned and its tables, cut out by tests/cuda-forced.sh into
// tuned.h), run on the host with $FUSEGEN_CONFIG: every variant of its
// plan_variants table, forced by name, is what plan_tuned returns for its
// head dim (and not for another); unset, or naming no variant, the lookup is
// the table's (here no device table: -1, the default rules).
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "fusegen_internal.h"
}
struct fg_cuda_per_device {
  int unused;
};
// no device has a table on the host: the lookup's answer without a forced
// name (fg_tune_bucket and fg_tune_lookup: the runtime's)
static int fg_cuda_tune_table(const fg_tune_table*, int, int, fg_cuda_per_device*) { return -1; }

#include "tuned.h"

int main() {
  int fail = 0, n = 0;
  const char* file = nullptr;
  int line = 0;
  unsetenv("FUSEGEN_CONFIG");
  for (int d = 32; d <= 256; d += 32)
    if (plan_tuned(4096, 1 << 18, 1, d, 0, &file, &line) != -1) {
      std::printf("FAIL: unset, D %d took a variant without a device table\n", d);
      fail = 1;
    }
  for (int i = 0; plan_variants[i].name; ++i, ++n) {
    setenv("FUSEGEN_CONFIG", plan_variants[i].name, 1);
    const int v = plan_tuned(4096, 1 << 18, 1, plan_variants[i].d, 0, &file, &line);
    // the first row of that name and dim (a name is one configuration)
    int want = 0;
    while (std::strcmp(plan_variants[want].name, plan_variants[i].name) || plan_variants[want].d != plan_variants[i].d)
      ++want;
    if (v != want || std::strcmp(file, "$FUSEGEN_CONFIG") != 0) {
      std::printf("FAIL: %s at D %d: variant %d, not %d\n", plan_variants[i].name, plan_variants[i].d, v, want);
      fail = 1;
    }
    const int other = plan_variants[i].d == 64 ? 128 : 64;
    if (plan_tuned(4096, 1 << 18, 1, other, 0, &file, &line) != -1) {
      std::printf("FAIL: %s forced at D %d, which it does not serve\n", plan_variants[i].name, other);
      fail = 1;
    }
  }
  setenv("FUSEGEN_CONFIG", "T999_1_1", 1);
  if (plan_tuned(4096, 1 << 18, 1, 128, 0, &file, &line) != -1) {
    std::printf("FAIL: a name of no variant was taken\n");
    fail = 1;
  }
  setenv("FUSEGEN_CONFIG", "", 1);
  if (n && plan_tuned(4096, 1 << 18, 1, plan_variants[0].d, 0, &file, &line) != -1) {
    std::printf("FAIL: an empty FUSEGEN_CONFIG forced a variant\n");
    fail = 1;
  }
  std::printf("%d variants\n", n);
  return fail;
}
