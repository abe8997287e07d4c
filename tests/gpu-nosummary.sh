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
id=${CUDA_VISIBLE_DEVICES:-0}
id=${id%%,*}
cc=`nvidia-smi -i "$id" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1`
case $cc in
  9.0) ;;
  "") echo "gpu-nosummary.sh: nvidia-smi gave no compute capability (no GPU, or no nvidia-smi): skipped"; exit 77;;
  *) echo "gpu-nosummary.sh: compute capability $cc: the sm_80 family reads no summary: skipped"; exit 77;;
esac
# the sm_90a family, whatever the caller's environment asks: with
# FUSEGEN_CUDA_FAMILY=sm80 this would pass without taking the path it checks
unset FUSEGEN_CUDA_FAMILY
srcdir=${srcdir:-.}
if test ! -d "$srcdir/generated"; then
    echo "gpu-nosummary.sh: no $srcdir/generated (set srcdir to the source tree)"
    exit 99
fi
plans=
for cu in "$srcdir"/generated/*_cuda.cu; do
    grep -q 'constexpr int plan_nspans = [1-9]' "$cu" || continue
    n=`basename "$cu" _cuda.cu`
    plans=${plans:+$plans,}$n
done
if test -z "$plans"; then
    echo "gpu-nosummary.sh: no plan in $srcdir/generated has span atoms: skipped"
    exit 77
fi
echo "gpu-nosummary.sh: FUSEGEN_SPAN_SUMMARY=off on $plans"
FUSEGEN_SPAN_SUMMARY=off exec ./tests/gpu_check --plans "$plans" "$@"
