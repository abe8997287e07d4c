#!/bin/sh
# Call 2 (thirty-third session): KE, a "values empty" barrier per slot of
# the key values' ring (siggate), each consumer thread arriving after its
# softmax, in place of the second warp waiting for "V empty".  B = the
# working tree, A = HEAD's generated/ (.carry/genA).  Both built side by
# side; B's --small; racecheck on siggate in full for 75 s (key ranges
# of up to 33 tiles: the ring's slots reused, which --small never does) for
# A and B, synccheck on --small for B; then A and B alternately, 2 s a case, on siggate and sigmoid at
# head dims 128 and 256 (two stages there).
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
echo "built at $(( `date +%s` - T0 )) s"; grep sass $W/b/summary.txt | grep sm90; echo "B LDL/STL:"; cat $W/b/sass-sm90-ldl-stl.txt | grep -v relbias
(cd $B && timeout 100 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
for V in B A; do
  if [ $V = A ]; then d=/tmp/srcA/b; else d=$B; fi
  (cd $d && timeout 75 compute-sanitizer --tool racecheck --error-exitcode 3 ./tests/gpu_check --plans siggate) > $W/$V-racecheck.txt 2>&1
  echo "$V racecheck (full siggate, 75 s at most) rc $? at $(( `date +%s` - T0 )) s: `grep -c 'Race reported' $W/$V-racecheck.txt` races, `grep -c '^PASS' $W/$V-racecheck.txt` cases passed, `grep -E 'passed, .* failed|SUMMARY' $W/$V-racecheck.txt | tr '\n' ' '`"
done
(cd $B && timeout 60 compute-sanitizer --tool synccheck --error-exitcode 3 ./tests/gpu_check --small --plans siggate,sigmoid) > $W/B-synccheck.txt 2>&1
echo "B synccheck rc $?: `grep -E 'passed, .* failed|SUMMARY' $W/B-synccheck.txt | tr '\n' ' '`"
{ grep '^# id' bench/cases.tsv
  grep -E '^(siggate|sigmoid)-pf-(8k|32k)' bench/variants.tsv
  printf 'siggate-d256-8k\tsiggate\t1\t16\t16\t8192\t8192\t256\t1\t0\t0\t0\n'
  printf 'sigmoid-d256-8k\tsigmoid\t1\t16\t16\t8192\t8192\t256\t1\t0\t0\t0\n'; } > $W/sig.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 30 ] || break 2
  timeout `left 575` $bb --cases $W/sig.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-110 | tail -7
done; done
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' . && ls -la $OUT
