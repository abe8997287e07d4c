#!/bin/sh
# Call 3 (thirty-seventh session): the final tree beside the peers, by the
# project's standard timing (bench/run-gpu.sh: build, gpu_check --small, the
# 25 cases of bench/cases.tsv, SDPA's FlashAttention-2 and cuDNN on all of
# them, FlexAttention on the six alibi, softcap and window prefill cases at
# 8k and 32k, the comparison).  The SASS counts of these kernels were taken
# in call 2 (the same commit's kernels).
T0=`date +%s`
FG_COMMIT=${FG_COMMIT:-unknown} STEPS="build smoke bench peers compare" \
  PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k \
  RUN_LIMIT=570 sh bench/run-gpu.sh > $OUT/run.log 2>&1
echo "run-gpu.sh rc $? at $(( `date +%s` - T0 )) s"
cat $OUT/summary.txt
tail -34 $OUT/compare.txt 2>/dev/null
