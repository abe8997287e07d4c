#!/bin/sh
# Call 5 (thirty-sixth session): every tuned configuration forced by name
# (FUSEGEN_CONFIG; tests/gpu-configs.sh runs gpu_check --small --plans PLAN
# --config NAME for each), after the build and gpu_check --small as a user's
# launches take them.
T0=`date +%s`
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
STEPS="build smoke" RUN_LIMIT=200 sh bench/run-gpu.sh > $OUT/run.log 2>&1
echo "run-gpu.sh rc $? at $(( `date +%s` - T0 )) s"
cat $OUT/summary.txt
[ -x $B/tests/gpu_check ] || exit 1
(cd $B && srcdir=$SRC timeout 280 sh $SRC/tests/gpu-configs.sh) > $W/configs.txt 2>&1
echo "gpu-configs.sh rc $? at $(( `date +%s` - T0 )) s"
grep -c '^gpu-configs.sh: [a-z]' $W/configs.txt
grep -E 'FAIL' $W/configs.txt | head -10
grep -E 'launches took' $W/configs.txt | sort | uniq -c | sort -rn | head -5
tail -3 $W/configs.txt
cd $W && tar czf $OUT/call5.tgz . && ls $OUT
