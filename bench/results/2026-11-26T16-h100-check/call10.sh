#!/bin/sh
# call 10 (2026-11-26, fifteenth session): the committed kernels in full on an H100:
# make check-gpu (tests/gpu_check over every plan, head dim, dtype; gpu-sanitize.sh), SASS counts
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/x/gpu.txt 2>&1
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=585 STEPS="build sass smoke check-gpu" OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run.txt 2>&1
cat $OUT/x/summary.txt
grep -cE '^PASS' $OUT/x/check-gpu.log; grep -m5 '^FAIL' $OUT/x/check-gpu.log
cd $OUT && tar czf x.tgz x
