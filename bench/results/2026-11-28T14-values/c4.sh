#!/bin/sh
# Call 4 (twenty-sixth session): the rest of call 3's check-gpu, which its time limit cut in
# the first gpu_check after 2784 passes (alibi .. moments, none failed): gpu_check in full
# on the sm_90a plans after moments (prefixlm relbias siggate sigmoid sinkwindow softcap
# window), then memcheck and racecheck on `--small` of those and docmask.  The committed
# library (d26223f); the build must succeed or the script stops.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
cd $B
P=prefixlm,relbias,siggate,sigmoid,sinkwindow,softcap,window
timeout `left 330` ./tests/gpu_check --plans $P > $W/check.txt 2>&1; echo "check $P rc $?: `grep -E 'passed, .* failed' $W/check.txt`" >> $W/checks.txt
for tool in memcheck racecheck; do
  timeout `left 460` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans $P,docmask > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cat $W/checks.txt; grep "^FAIL" $W/check.txt | head
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
