#!/bin/sh
# Call 1 (thirty-third session): the persistent CTA (P2).  B = the working
# tree (persistent launches; FUSEGEN_PERSISTENT=off gives its one-CTA-a-block
# launches, =on the persistent ones wherever they can be), A = HEAD's
# generated/ (.carry/genA).  Both built side by side; SASS LDL/STL of B;
# B's gpu_check --small (the rule's launches) and tests/gpu-persistent.sh
# (the walk forced at small shapes, sanitizers on four plans); then A, B-off
# and B-on alternately, 2 s a case, on short sequences with a batch and a
# few of the bars' cases.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build sass" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
[ -x /tmp/srcA/b/tests/gpu_check ] || { echo "A build failed"; tail -30 /tmp/srcA/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"; grep sass $W/b/summary.txt; echo "B LDL/STL:"; cat $W/b/sass-sm90-ldl-stl.txt
(cd $B && timeout 100 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
grep -E '^FAIL' $W/smallB.txt | head
(cd $B && srcdir=$OLDPWD timeout `left 330` sh $OLDPWD/tests/gpu-persistent.sh) > $W/persistent.txt 2>&1
echo "gpu-persistent.sh rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed|^ok|FAIL|ERROR SUMMARY|RACECHECK SUMMARY' $W/persistent.txt | sort | uniq -c | tr '\n' ' '`"
grep -E '^FAIL' $W/persistent.txt | head
{ grep '^# id' bench/cases.tsv
  printf 'causal-1k-b32\tcausal\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t0\n'
  printf 'causal-2k-b16\tcausal\t16\t32\t32\t2048\t2048\t128\t1\t0\t0\t0\n'
  printf 'causal-512-b64\tcausal\t64\t32\t32\t512\t512\t128\t1\t0\t0\t0\n'
  printf 'global-1k-b32\tglobal\t32\t32\t32\t1024\t1024\t128\t0\t0\t0\t0\n'
  printf 'gqa-1k-b32\tgqa\t32\t64\t8\t1024\t1024\t128\t1\t0\t0\t0\n'
  printf 'alibi-1k-b32\talibi\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t1\n'
  printf 'siggate-1k-b32\tsiggate\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t0\n'; } > $W/short.tsv
for r in 1 2; do for V in A off on; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb="env FUSEGEN_PERSISTENT=$V $B/bench/fusegen-bench"; fi
  [ `left 560` -gt 30 ] || break 2
  timeout `left 570` $bb --cases $W/short.tsv --seconds 2 --out $W/$V-$r-s.jsonl > $W/$V-$r-s.txt 2>&1
  timeout `left 580` $bb --cases bench/cases.tsv --only causal-pf-2k,global-pf-2k,causal-pf-8k --seconds 2 --out $W/$V-$r-c.jsonl > $W/$V-$r-c.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; cat $W/$V-$r-s.txt $W/$V-$r-c.txt | grep -v '^#' | cut -c1-110 | tail -12
done; done
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
