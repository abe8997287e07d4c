#!/bin/sh
# Call 1 (thirty-fifth session): HT, the half of a masked 128-key tile that
# a consumer group's rows can see (softmax and P V there only).  A = 32fee41's
# generated/ (.carry/genA), B = the working tree.  Both built side by side;
# B's gpu_check --small (every plan); then A and B alternately, 2 s a case,
# twice, on the cases with the most masked tiles (window, the 2k cases) and
# controls.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
[ -x /tmp/srcA/b/bench/fusegen-bench ] || { echo "A build failed"; tail -30 /tmp/srcA/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 110 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
grep -E 'FAIL|mismatch' $W/smallB.txt | head -5
{ grep '^# id' bench/cases.tsv
  grep -E '^window-pf-(8k|32k)|^(causal|gqa|alibi|softcap)-pf-2k|^(causal|softcap)-pf-8k|^global-pf-8k' bench/cases.tsv; } > $W/ht.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 40 ] || break 2
  timeout `left 575` $bb --cases $W/ht.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -10
done; done
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
