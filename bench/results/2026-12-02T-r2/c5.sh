#!/bin/sh
# Call 5 (forty-first session): S2 (two S tiles in flight in the one-group
# kernels of span masks: docmask's H128D), B alone for the device time left:
# its sources from `sh bench/ab-gen.sh .carry/genS ./fusegen` over the
# committed tree's generated/ (9a769c3 + S2's templates), carried with
# [".carry"].  gpu_check docmask in full with the summary and without it;
# fusegen-bench docmask 8k and 32k twice and Flex in the same call (A: call 4's
# figures, 1.018-1.029 ms at 32k); racecheck on docmask --small if time is left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; K=/tmp/fg-build; G=${G:-.carry/genS}; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
cp $G/*.cu generated/ && touch generated/stamp
OUT=$W/a RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $K/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $K && timeout `left 190` ./tests/gpu_check --plans docmask) > $W/fullB.txt 2>&1; echo "B docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do
  timeout `left 215` $K/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/B-$r.jsonl > $W/B-$r.txt 2>&1
  echo "== B run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/B-$r.txt | cut -c1-75 | grep -- '-pf-'
done
PYTHONUNBUFFERED=1 timeout `left 245` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; grep docmask $W/flex.txt | tail -2
(cd $K && FUSEGEN_SPAN_SUMMARY=off timeout `left 285` ./tests/gpu_check --plans docmask) > $W/nosumB.txt 2>&1; echo "B docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumB.txt`"
(cd $K && timeout `left 300` compute-sanitizer --tool racecheck --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-racecheck.txt 2>&1
echo "racecheck (docmask --small) rc $?: `grep -E 'RACECHECK SUMMARY|passed, .* failed' $W/san-racecheck.txt | tr '\n' ' '`"
grep -E 'FAIL|mismatch' $W/fullB.txt $W/nosumB.txt | head -3
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' --exclude=a . && ls $OUT
