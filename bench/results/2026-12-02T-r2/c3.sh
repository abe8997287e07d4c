#!/bin/sh
# Call 3 (forty-first session): HF against A, the committed generated/ (DR).
# HF: where the mask reads no head (docmask's ids seg[b, n]), the launch's
# span workspace (summary, sorted words, RB's ranges, DR's rows) is made once
# a batch for every head, not once a (batch, head).  B's sources from
# `sh bench/ab-gen.sh .carry/genB ./fusegen` on the working tree, carried
# with [".carry"].  B: gpu_check docmask in full with the summary and
# without it; A and B alternately on docmask 8k and 32k, 2 s a case, twice;
# Flex in the same call; ncu's durations of one call's kernels in A and B;
# compute-sanitizer on B's docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; K=/tmp/srcK/b; G=${G:-.carry/genB}; mkdir -p $W/a
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
  [ `left 530` -gt 15 ] || break
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$K/bench/fusegen-bench; fi
  timeout `left 530` ncu --clock-control none -k "regex:fh_" --launch-skip 6 --launch-count 3 --metrics gpu__time_duration.sum \
    $bb --cases $W/v.tsv --only docmask-pf-32k --reps 5 > $W/ncu-$V.txt 2>&1
  echo "ncu $V rc $?:"; grep -E "fh_[a-z_]*kernel|gpu__time_duration" $W/ncu-$V.txt | sed 's/(.*//' | paste - - | awk '{print "  ", $1, $(NF-1), $NF}'
done
for tool in racecheck memcheck; do
  [ `left 585` -gt 25 ] || break
  (cd $K && timeout `left 585` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls $OUT
