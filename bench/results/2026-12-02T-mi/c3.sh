#!/bin/sh
# Call 3 (thirty-eighth session): the final tree beside the peers, by the
# project's standard timing (bench/run-gpu.sh: build, gpu_check --small, the
# 25 cases of bench/cases.tsv, SDPA's FlashAttention-2 and cuDNN on all of
# them, FlexAttention on the six alibi, softcap and window prefill cases at
# 8k and 32k, the comparison); then docmask at 8k and 32k by fusegen-bench
# (2 s a case) and by FlexAttention in the same call.
T0=`date +%s`
FG_COMMIT=${FG_COMMIT:-unknown} STEPS="build smoke bench peers compare" \
  PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k \
  RUN_LIMIT=470 sh bench/run-gpu.sh > $OUT/run.log 2>&1
echo "run-gpu.sh rc $? at $(( `date +%s` - T0 )) s"
cat $OUT/summary.txt
tail -28 $OUT/compare.txt 2>/dev/null
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > /tmp/dm.tsv
timeout 60 /tmp/fg-build/bench/fusegen-bench --cases /tmp/dm.tsv --seconds 2 --out $OUT/docmask.jsonl > /tmp/dm.txt 2>&1
echo "docmask fusegen-bench rc $?"; grep -- '-pf-' /tmp/dm.txt | cut -c1-75
PYTHONUNBUFFERED=1 timeout 90 python3 bench/variants_flex.py --cases /tmp/dm.tsv --seconds 2 \
  --out $OUT/docmask-flex.jsonl > /tmp/dmf.txt 2>&1; echo "flex rc $?"; tail -2 /tmp/dmf.txt
echo "done at $(( `date +%s` - T0 )) s"
