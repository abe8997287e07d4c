#!/bin/sh
# Call 6 (thirty-seventh session): the pin of LINA moved to just before the
# product's fence.  A = d403efb's kernels (pinned at the end of lin_init), B =
# the tree, built side by side.  B: gpu_check in full on alibi; A and B
# alternately on alibi at 2k, 8k, 32k (2 s a case, twice).
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
(cd $B && timeout 40 ./tests/gpu_check --plans alibi) > $W/fullB.txt 2>&1; echo "B alibi in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt | head -5
{ grep '^# id' bench/cases.tsv; grep -E '^alibi-pf-(2k|8k|32k)' bench/cases.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 280` -gt 12 ] || break 2
  timeout `left 285` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -3
done; done
cd $W && tar czf $OUT/call6.tgz --exclude='build*.log' . && ls $OUT
