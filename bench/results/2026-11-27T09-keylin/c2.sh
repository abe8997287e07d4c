#!/bin/sh
# Call 2 (H200): the retune with the keylin templates goes on from call 1's file (8104 of 13520 timed).
: ${FG_COMMIT:?}
cp .carry/h200-new.wisdom $OUT/h200-new.wisdom
OUT=$OUT RUN_LIMIT=595 STEPS="build tune" TUNE_ARGS="--wisdom=$OUT/h200-new.wisdom" sh bench/run-gpu.sh > $OUT/run.log 2>&1
tail -5 $OUT/tune.log
grep -c '^row' $OUT/h200-new.wisdom
head -14 $OUT/h200-new.wisdom
gzip -k $OUT/tune.log
cat $OUT/summary.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv
