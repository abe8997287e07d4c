#!/bin/sh
# Call 2 (thirty-first session): the tree with head groups (plan_head_group:
# causal-like heaviest-first plans only, FUSEGEN_HEAD_GROUPS; wisdom carried).
# Build, SASS counts, the small set; tests/gpu-headgroups.sh (the grouped
# order at the check's shapes, groups of 1 and 3 kv heads); the bars' cases
# in steady state beside their peers (bench/steady.py); then full checks of
# causal and alibi with the time left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a $W/b
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build sass smoke" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built, sass, smoke at $(( `date +%s` - T0 )) s"; tail -8 $W/a/summary.txt
(cd $B && srcdir=$OLDPWD timeout `left 330` sh $OLDPWD/tests/gpu-headgroups.sh) > $W/headgroups.txt 2>&1
echo "gpu-headgroups.sh rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/headgroups.txt | tr '\n' ' '`"
OUT=$W/b RUN_LIMIT=`left 560` STEPS="steady" sh bench/run-gpu.sh > $W/run-b.log 2>&1
echo "steady at $(( `date +%s` - T0 )) s"
(cd $B && timeout `left 585` ./tests/gpu_check --plans causal,alibi) > $W/check-full.txt 2>&1
echo "gpu_check causal,alibi rc $?: `grep -c '^PASS' $W/check-full.txt` PASS, `grep -c '^FAIL' $W/check-full.txt` FAIL"
cat $W/b/steady.txt 2>/dev/null | tail -25
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' . && ls -la $OUT
