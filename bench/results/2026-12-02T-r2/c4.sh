#!/bin/sh
# Call 4 (forty-first session): the final tree (HF, generated/ regenerated
# with the wisdom carried) beside Flex, three rounds in one call, each
# fusegen-bench on docmask 8k and 32k (2 s a case) then Flex on the same two
# cases (2 s), so that the ratio is read from neighbouring runs and its
# spread across rounds is seen; then gpu_check --small on every plan.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $A/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2 3; do
  [ `left 420` -gt 50 ] || break
  timeout `left 430` $A/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg-$r.jsonl > $W/fg-$r.txt 2>&1
  PYTHONUNBUFFERED=1 timeout `left 470` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
    --out $W/flex-$r.jsonl > $W/flex-$r.txt 2>&1
  echo "== round $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/fg-$r.txt | grep -- '-pf-' | cut -c1-60; grep docmask $W/flex-$r.txt | tail -2
done
(cd $A && timeout `left 580` ./tests/gpu_check --small) > $W/small.txt 2>&1; echo "--small (every plan) rc $?: `grep -E 'passed, .* failed' $W/small.txt`"
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' --exclude=a . && ls $OUT
