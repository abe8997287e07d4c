#!/bin/sh
# call 9 (2026-11-26, fifteenth session): A (HEAD) against S (the spill fixes: the epilogue's
# smem addresses from opaque bases; span plans' row ranges in shared memory per warp; every
# key of a 176-key tile in the span loads): timing (expected level), gpu_check of S (small,
# then docmask, causal, sinkwindow, relbias in full), compute-sanitizer on S, and the LDL/STL
# count of S's sm_90a kernels (expected 0).
set -u
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
export FG_COMMIT=${FG_COMMIT:-?}
VARIANTS=S CHECK_PLANS=docmask,causal,sinkwindow,relbias PEERS=0 sh bench/ab-templates.sh
W=$OUT/ab
cuobjdump -sass /tmp/srcS/b/libfusegen_cuda.a > /tmp/sassS.txt 2>&1
awk '/Function :/ { f = $3 } /[^A-Z]LDL|[^A-Z]STL/ { if (f ~ /fh_attn/) h++; else o++ } /HGMMA/ { if (f ~ /fh_attn/) g++ }
     END { printf "S sass: sm90 kernels LDL+STL %d, HGMMA %d; other kernels LDL+STL %d\n", h, g, o }' /tmp/sassS.txt | tee $W/sass-S-counts.txt
cuobjdump -sass /tmp/fg-build/libfusegen_cuda.a > /tmp/sassA.txt 2>&1
awk '/Function :/ { f = $3 } /[^A-Z]LDL|[^A-Z]STL/ { if (f ~ /fh_attn/) h++; else o++ } /HGMMA/ { if (f ~ /fh_attn/) g++ }
     END { printf "A sass: sm90 kernels LDL+STL %d, HGMMA %d; other kernels LDL+STL %d\n", h, g, o }' /tmp/sassA.txt | tee $W/sass-A-counts.txt
grep -B2 -A0 "LDL\|STL" /tmp/sassS.txt | grep -o "Function : [^ ]*fh_attn[^ ]*" | sort -u | head > $W/sass-S-spilling.txt
cd /tmp/srcS/b
for tool in racecheck synccheck memcheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask,causal > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool rc $?: `grep -E 'ERROR SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
cd $OUT && tar czf ab.tgz ab gpu.txt
