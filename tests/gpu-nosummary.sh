#!/bin/sh
# gpu-nosummary.sh - tests/gpu_check on the plans whose masks compare ids
# (span atoms: docmask; found in $srcdir/generated, the plans whose kernel
# source has plan_nspans above 0) again with FUSEGEN_SPAN_SUMMARY=off, so that the
# sm_90a launch without the ids' summary (what a launch does where the
# stream-ordered pool has no memory for it, or heads or batches pass the
# summary kernel's grid: each CTA's scan reads the ids itself) is checked on
# every run, not only where memory runs short.  Exit 77 (skipped, with the
# reason) where the device is not of compute capability 9.0: the sm_80
# family, which gpu_check already ran there, never reads a summary.
srcdir=${srcdir:-.}
. "$srcdir/tests/gpu-hopper.sh"
fg_hopper_or_skip gpu-nosummary.sh "the sm_80 family reads no summary"
# the sm_90a family, whatever the caller's environment asks: with
# FUSEGEN_CUDA_FAMILY=sm80 this would pass without taking the path it checks
unset FUSEGEN_CUDA_FAMILY
fg_plans_matching gpu-nosummary.sh 'constexpr int plan_nspans = [1-9]'
if test -z "$plans"; then
    echo "gpu-nosummary.sh: no plan in $srcdir/generated has span atoms: skipped"
    exit 77
fi
echo "gpu-nosummary.sh: FUSEGEN_SPAN_SUMMARY=off on $plans"
FUSEGEN_SPAN_SUMMARY=off exec ./tests/gpu_check --plans "$plans" "$@"
