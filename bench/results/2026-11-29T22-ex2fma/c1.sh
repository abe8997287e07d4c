#!/bin/sh
# Call 1 (thirty-fourth session): exp2 on the FMA pipe for a share of the
# softmax where the score takes MUFU already (softcap, window: tanh).
# A = HEAD's generated/ (.carry/genA, no such share); B = the working tree
# (FH_EX2_FMA_EIGHTHS 2 of 8 column blocks); B3, B4 = B's build with
# softcap_cuda.o and window_cuda.o rebuilt at 3 and 4 of 8.  Correctness:
# gpu_check on softcap and window (B in full, B3/B4 --small); then A, B,
# B3, B4 alternately, 2 s a case, twice, on softcap and window at 8k and
# 32k and causal-pf-8k (unchanged code: the control).
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
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
echo "B built at $(( `date +%s` - T0 )) s"
for n in 3 4; do
  ( rm -rf /tmp/fg-v$n && cp -a $B /tmp/fg-v$n && cd /tmp/fg-v$n && rm -f generated/softcap_cuda.o generated/window_cuda.o &&
    make -j8 NVCCFLAGS="-DFH_EX2_FMA_EIGHTHS=$n" bench/fusegen-bench tests/gpu_check > build-v.log 2>&1; echo "B$n build rc $?" ) > $W/build-B$n.txt 2>&1 &
done
(cd $B && timeout 120 ./tests/gpu_check --plans softcap,window) > $W/checkB.txt 2>&1
echo "B gpu_check softcap,window (full, 120 s at most) rc $?: `grep -E 'passed, .* failed' $W/checkB.txt`"
wait
cat $W/build-A.txt $W/build-B3.txt $W/build-B4.txt
echo "all built at $(( `date +%s` - T0 )) s"
for n in 3 4; do
  (cd /tmp/fg-v$n && timeout 40 ./tests/gpu_check --small --plans softcap,window) > $W/checkB$n.txt 2>&1
  echo "B$n --small softcap,window rc $?: `grep -E 'passed, .* failed' $W/checkB$n.txt`"
done
{ grep '^# id' bench/cases.tsv
  grep -E '^(softcap|window)-pf-(8k|32k)|^causal-pf-8k' bench/cases.tsv; } > $W/sc.tsv
for r in 1 2; do for V in A B B3 B4; do
  case $V in A) bb=/tmp/srcA/b/bench/fusegen-bench;; B) bb=$B/bench/fusegen-bench;; B3) bb=/tmp/fg-v3/bench/fusegen-bench;; B4) bb=/tmp/fg-v4/bench/fusegen-bench;; esac
  [ `left 560` -gt 25 ] || break 2
  timeout `left 575` $bb --cases $W/sc.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-110 | tail -5
done; done
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
