#!/bin/sh
# Call 5 (thirty-fifth session): the final tree (52bd02b: the retuned rows,
# the kernels of 32fee41): build, SASS counts, gpu_check --small, the 25
# cases, SDPA's peers (FA2, cuDNN) on all and Flex on window at 8k and 32k,
# the comparison.
FG_COMMIT=52bd02b STEPS="build sass smoke bench peers compare" PEERS_FLEX_ONLY=window-pf-8k,window-pf-32k \
  RUN_LIMIT=480 sh bench/run-gpu.sh > $OUT/run.log 2>&1
echo "run-gpu.sh rc $?"
cat $OUT/summary.txt
tail -32 $OUT/compare.txt 2>/dev/null
