#!/bin/sh
# Call 2 (forty-second session): S2 with KL against A, the committed generated/ (HF).
# S2 as in call 1, with KL: the producer loads each tile's K ahead of the
# previous tile's V.  B's sources from `sh bench/ab-gen.sh .carry/genS2
# ./fusegen` on the working tree, carried with [".carry"].
# B: gpu_check docmask in full with the summary and without it; A and B
# alternately on docmask 8k and 32k, 2 s a case, twice; Flex in the same
# call; ncu on one launch of each build's attention kernel (duration, clock,
# tensor pipe, issue); racecheck on B's docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; K=/tmp/srcK/b; G=${G:-.carry/genS2}; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcK && cp -a . /tmp/srcK && cp $G/*.cu /tmp/srcK/generated/ && touch /tmp/srcK/generated/stamp || { echo "B sources failed"; exit 1; }
( cd /tmp/srcK && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "B build rc $?" ) > $W/build-K.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-K.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $K/tests/gpu_check ] || { echo "B build failed"; tail -30 $K/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $K && timeout `left 300` ./tests/gpu_check --plans docmask) > $W/fullB.txt 2>&1; echo "B docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
(cd $K && FUSEGEN_SPAN_SUMMARY=off timeout `left 360` ./tests/gpu_check --plans docmask) > $W/nosumB.txt 2>&1; echo "B docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt $W/nosumB.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$K/bench/fusegen-bench; fi
  [ `left 440` -gt 15 ] || break 2
  timeout `left 450` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | grep -- '-pf-'
done; done
PYTHONUNBUFFERED=1 timeout `left 490` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; tail -2 $W/flex.txt
for V in A B; do
  [ `left 530` -gt 25 ] || break
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$K/bench/fusegen-bench; fi
  timeout `left 530` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section WarpStateStats --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
    $bb --cases $W/v.tsv --only docmask-pf-32k --reps 20 > $W/ncu-$V.txt 2>&1
  echo "ncu $V rc $?:"; grep -E "gpu__time_duration|sm__cycles_elapsed|sm__pipe_tensor|smsp__issue_active" $W/ncu-$V.txt | awk '{print "  ", $1, $(NF-1), $NF}'
done
for tool in racecheck memcheck; do
  [ `left 585` -gt 25 ] || break
  (cd $K && timeout `left 585` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' . && ls $OUT
