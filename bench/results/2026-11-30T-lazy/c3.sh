#!/bin/sh
# Call 3 (thirty-sixth session): SKIP, the masked step leaving out the score
# and exponential of an 8-key column block that no row of a warp sees (plans
# with an interval of keys per row).  A = e55857b's generated/ (.carry/genA),
# B = the working tree, built side by side.  B: gpu_check --small, then in
# full on window, causal and alibi (as the time allows); A and B alternately,
# 2 s a case, twice, on the masked cases (global-pf-8k unmasked: the same
# code, the spread).
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
(cd $B && timeout 110 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
grep -E 'FAIL|mismatch' $W/smallB.txt | head -5
(cd $B && timeout 100 ./tests/gpu_check --plans window,causal,alibi) > $W/fullB.txt 2>&1; echo "B full (window, causal, alibi) rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt | head -5; tail -2 $W/fullB.txt
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/cases.tsv
  grep -E '^window-pf-(8k|32k)|^(causal|gqa|alibi|softcap)-pf-2k|^(causal|softcap)-pf-8k|^global-pf-8k' bench/cases.tsv
  printf 'causal-1k-b32\tcausal\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t0\n'; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 570` -gt 40 ] || break 2
  timeout `left 585` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -11
done; done
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls $OUT
