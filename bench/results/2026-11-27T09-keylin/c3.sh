#!/bin/sh
# Call 3 (H100): retune over the default sweep with the keylin templates, into $OUT/h100-new.wisdom.
: ${FG_COMMIT:?}
OUT=$OUT RUN_LIMIT=595 STEPS="build tune" TUNE_ARGS="--wisdom=$OUT/h100-new.wisdom" sh bench/run-gpu.sh > $OUT/run.log 2>&1
tail -5 $OUT/tune.log
grep -c '^row' $OUT/h100-new.wisdom
head -14 $OUT/h100-new.wisdom
gzip -k $OUT/tune.log
cat $OUT/summary.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv
