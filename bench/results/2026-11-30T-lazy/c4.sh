#!/bin/sh
# Call 4 (thirty-sixth session): the final tree (f14bb31: LAZY in maxlogit,
# rowmax and diffattn; window's 64-row rows): build, SASS counts,
# gpu_check --small, the 25 cases, SDPA's peers (FA2, cuDNN) on all and Flex
# on window at 8k and 32k, the comparison; then window's checks in full (its
# 64-row kernel), and causal, maxlogit, diffattn, docmask at 8k and 32k
# beside Flex (bench/variants.tsv's shapes, 2 s a case).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
FG_COMMIT=f14bb31 STEPS="build sass smoke bench peers compare" PEERS_FLEX_ONLY=window-pf-8k,window-pf-32k \
  RUN_LIMIT=400 sh bench/run-gpu.sh > $OUT/run.log 2>&1
echo "run-gpu.sh rc $? at $(( `date +%s` - T0 )) s"
cat $OUT/summary.txt
tail -32 $OUT/compare.txt 2>/dev/null
[ -x $B/tests/gpu_check ] || exit 1
(cd $B && timeout 60 ./tests/gpu_check --plans window) > $W/full-window.txt 2>&1; echo "window in full rc $?: `grep -E 'passed, .* failed' $W/full-window.txt`"
grep -E 'FAIL|mismatch' $W/full-window.txt | head -5
{ grep '^# id' bench/variants.tsv; grep -E '^(causal|diffattn|maxlogit|docmask)-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
[ `left 560` -gt 60 ] && timeout `left 575` $B/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg-1.jsonl > $W/fg-1.txt 2>&1
grep -v '^#' $W/fg-1.txt | cut -c1-60
[ `left 560` -gt 70 ] && PYTHONUNBUFFERED=1 timeout `left 590` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 --out $W/flex-1.jsonl > $W/flex-1.txt 2>&1
tail -9 $W/flex-1.txt | cut -c1-100
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
