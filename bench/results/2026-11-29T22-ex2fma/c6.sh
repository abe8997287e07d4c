#!/bin/sh
# Call 6 (thirty-fourth session): the final tree, QR gated by registers
# only (diffattn and window take it again, with the __syncwarp).  Build;
# gpu_check --small; racecheck and synccheck on --small of diffattn,
# window, docmask.
T0=`date +%s`
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/b RUN_LIMIT=260 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 60 ./tests/gpu_check --small) > $W/small.txt 2>&1; echo "--small rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/small.txt`"
for tool in racecheck synccheck; do
  (cd $B && timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans diffattn,window,docmask) > $W/$tool.txt 2>&1
  echo "$tool rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed|SUMMARY' $W/$tool.txt | tr '\n' ' '`"
done
cd $W && tar czf $OUT/call6.tgz --exclude='build*.log' . && ls -la $OUT
