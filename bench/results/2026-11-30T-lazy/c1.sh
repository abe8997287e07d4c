#!/bin/sh
# Call 1 (thirty-sixth session): LAZY for maxlogit (TRUEM: the true max kept
# beside the held one for the values per row) and for diffattn (two chains,
# no value per row).  A = f060ad5's generated/ (.carry/genA), B = the working
# tree, built side by side.  B: gpu_check in full on maxlogit, rowmax and
# diffattn, then --small on every plan; A and B alternately on the cases of
# the 1.5x-Flex bar (2 s a case, twice), then Flex on the same cases.
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
[ -x /tmp/srcA/b/bench/fusegen-bench ] || { echo "A build failed"; tail -30 /tmp/srcA/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 150 ./tests/gpu_check --plans maxlogit,rowmax,diffattn) > $W/fullB.txt 2>&1; echo "B full (3 plans) rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt | head -5
(cd $B && timeout 110 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
grep -E 'FAIL|mismatch' $W/smallB.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^(causal|diffattn|maxlogit)-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 40 ] || break 2
  timeout `left 575` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -6
done; done
if [ `left 560` -gt 90 ]; then
  PYTHONUNBUFFERED=1 timeout `left 590` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 --out $W/flex-1.jsonl > $W/flex-1.txt 2>&1
  echo "== Flex at $(( `date +%s` - T0 )) s"; tail -7 $W/flex-1.txt | cut -c1-100
else echo "no time for Flex"; fi
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
