#!/bin/sh
# Call 5 (thirty-seventh session): the review's fix of LINA (the accumulators
# pinned before the product's fence).  A = 9953f77's kernels (.carry/genA), B =
# the tree (d403efb), built side by side.  B: gpu_check in full on alibi and
# alibi_decode, compute-sanitizer memcheck and racecheck on alibi --small; A
# and B alternately on alibi at 2k, 8k, 32k (2 s a case, twice).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 100 ./tests/gpu_check --plans alibi,alibi_decode) > $W/fullB.txt 2>&1; echo "B alibi, alibi_decode in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt | head -5
for tool in memcheck racecheck; do
  (cd $B && timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans alibi) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (alibi) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
{ grep '^# id' bench/cases.tsv; grep -E '^alibi-pf-(2k|8k|32k)' bench/cases.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 400` -gt 25 ] || break 2
  timeout `left 420` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -3
done; done
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' . && ls $OUT
