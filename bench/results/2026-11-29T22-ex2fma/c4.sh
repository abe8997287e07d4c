#!/bin/sh
# Call 4 (thirty-fourth session): the __syncwarp after QR's loads of Q.
# Build (no SASS: call 3 counted it; the change is one warp barrier a CTA);
# racecheck and synccheck on --small of causal, softcap, gqa (call 3: 24
# racecheck warnings between the loads and the epilogue's stores of O);
# gpu_check --small.
T0=`date +%s`
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/b RUN_LIMIT=330 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for tool in racecheck synccheck; do
  (cd $B && timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans causal,softcap,gqa) > $W/$tool.txt 2>&1
  echo "$tool rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed|SUMMARY' $W/$tool.txt | tr '\n' ' '`"
done
(cd $B && timeout 100 ./tests/gpu_check --small) > $W/small.txt 2>&1; echo "--small rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/small.txt`"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls -la $OUT
