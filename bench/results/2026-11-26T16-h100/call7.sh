#!/bin/sh
# call 7 (2026-11-26, fifteenth session), on an H100: the committed kernels (A, with the fold)
# beside the peers (issue 10's H100 table), against U (key tiles start at the key range's
# first key instead of a multiple of BN: window, docmask); gpu_check of U; SASS counts of A
set -u
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
export FG_COMMIT=${FG_COMMIT:-?}
VARIANTS=U CHECK_PLANS=window,docmask,sinkwindow PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k sh bench/ab-templates.sh
STEPS=sass RUN_LIMIT=60 OUT=$OUT/ab sh bench/run-gpu.sh > $OUT/ab/run-sass.txt 2>&1
grep -i sass $OUT/ab/summary.txt
(cd $OUT && tar czf ab.tgz ab)
cat $OUT/gpu.txt
tail -4 $OUT/ab/compare-A.txt
