#!/bin/sh
# call 5 (2026-11-26): the committed kernels (4c7ebc2): gpu_check of the attention plans not yet
# checked in full, compute-sanitizer on a small set, SASS counts per family
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
FG_COMMIT=4c7ebc2 RUN_LIMIT=200 STEPS="build sass" OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run.txt 2>&1
grep -E "^sass|step" $OUT/x/summary.txt
cd /tmp/fg-build
timeout 210 ./tests/gpu_check --plans global,gqa,alibi,window,base2,rowmax,maxlogit,docmask,relbias,sigmoid,fa1,diffattn,prefixlm,sinkwindow > $OUT/x/check.txt 2>&1
echo "gpu_check rc $?: `grep -E 'passed, .* failed' $OUT/x/check.txt`"; grep -cE '^ok' $OUT/x/check.txt; grep -m5 FAIL $OUT/x/check.txt
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans causal,softcap,docmask > $OUT/x/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool rc $?: `grep -E 'ERROR SUMMARY|passed, .* failed' $OUT/x/san-$tool.txt | tr '\n' ' '`"
done
cd $OUT && tar czf x.tgz x
