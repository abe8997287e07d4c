#!/bin/sh
# Call 5 (thirty-third session): the session's final library.  Build; SASS
# (no sm_90a kernel with LDL/STL expected); gpu_check --small (now with an
# eight-tile case for every rolling plan: each ring slot taken again);
# compute-sanitizer racecheck and synccheck over --small of the plans with
# shared-memory protocols beyond the K/V ring (siggate's key values,
# docmask's span words) and two plain ones, then memcheck over --small for
# the time left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W/b RUN_LIMIT=230 STEPS="build sass" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"; grep sass $W/b/summary.txt | grep sm90; cat $W/b/sass-sm90-ldl-stl.txt
cd $B
timeout 60 ./tests/gpu_check --small > $W/small.txt 2>&1; echo "--small rc $?: `grep -E 'passed, .* failed' $W/small.txt`"
grep -E '^FAIL' $W/small.txt | head
P=siggate,docmask,causal,softcap
for tool in racecheck synccheck; do
  timeout `left 400` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans $P > $W/$tool.txt 2>&1
  echo "$tool --small --plans $P rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed|SUMMARY' $W/$tool.txt | tr '\n' ' '`"
done
timeout `left 420` compute-sanitizer --tool memcheck --error-exitcode 3 ./tests/gpu_check --small > $W/memcheck.txt 2>&1
echo "memcheck --small rc $? at $(( `date +%s` - T0 )) s: `grep -c '^PASS' $W/memcheck.txt` cases passed; `grep -E 'passed, .* failed|SUMMARY' $W/memcheck.txt | tr '\n' ' '`"
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' . && ls $OUT
