#!/bin/sh
# Call 2 (H200): the retune over the default sweep with the working tree's
# templates (the per-row key intervals), into $OUT/nvidia-h200.wisdom.
: ${FG_COMMIT:?}
OUT=$OUT RUN_LIMIT=595 STEPS="build tune" TUNE_ARGS="--wisdom=$OUT/nvidia-h200.wisdom" sh bench/run-gpu.sh > $OUT/run.log 2>&1
tail -5 $OUT/tune.log
grep -c '^row' $OUT/nvidia-h200.wisdom
gzip -k $OUT/tune.log
cat $OUT/summary.txt
