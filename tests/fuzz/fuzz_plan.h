/* fuzz_plan.h - the fuzz target shared by the libFuzzer build and the
 * corpus replay (see fuzz_plan.c). */
#ifndef FUZZ_PLAN_H
#define FUZZ_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Larger inputs are skipped: plans are small, and the cap bounds the time
 * and memory one input may take. */
#define FG_FUZZ_MAX_BYTES (64u << 10)

/* Runs one plan text through the front end and fusion; returns 0, or
 * aborts on a finding. */
int fg_fuzz_plan(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
