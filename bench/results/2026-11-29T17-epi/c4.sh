#!/bin/sh
# Call 4 (thirty-second session): the session's final kernels (6aefec1).
# compute-sanitizer memcheck, racecheck and synccheck on the small set of the
# plans whose kernels changed protocol (siggate: the key values' ring and its
# 33-arrival "K full" barrier; sigmoid beside it); the whole small set; then
# gpu_check in full on siggate and relbias (the epilogue's head and batch)
# with the time left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W/a RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
cd $B
for tool in memcheck racecheck synccheck; do
  timeout `left 330` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans siggate,sigmoid > $W/san-$tool.txt 2>&1
  echo "$tool rc $? at $(( `date +%s` - T0 )) s: `grep -E 'ERROR SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
timeout `left 400` ./tests/gpu_check --small > $W/small.txt 2>&1
echo "--small rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/small.txt`"
timeout `left 430` ./tests/gpu_check --plans siggate,relbias > $W/full.txt 2>&1
echo "siggate,relbias in full rc $? at $(( `date +%s` - T0 )) s: `grep -c '^PASS' $W/full.txt` PASS, `grep -c '^FAIL' $W/full.txt` FAIL; `grep -E 'passed, .* failed' $W/full.txt`"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls $OUT
