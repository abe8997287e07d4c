#!/bin/sh
# Call 2 (thirty-seventh session): the checks of the kernels changed since the
# sanitizers last ran (LINA's alibi, maxlogit's TRUEM, window's 64-row kernel):
# build; gpu_check --small; compute-sanitizer memcheck, racecheck and
# synccheck on --small for alibi, maxlogit and window, and on window's
# 64-row configuration forced by name; alibi's tuned configurations forced by
# name (their kernels changed with LINA), first; then steady.py on window and alibi
# at 8k and 32k beside their peer (Flex), 3 s a case.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; B=/tmp/fg-build; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
FG_COMMIT=${FG_COMMIT:-unknown} STEPS="build sass smoke" RUN_LIMIT=260 sh bench/run-gpu.sh > $W/run.log 2>&1
echo "run-gpu.sh rc $? at $(( `date +%s` - T0 )) s"
cat $OUT/summary.txt
[ -x $B/tests/gpu_check ] || exit 1
cd $B
names=`sed -n '/plan_variants\[\] = {/,/{nullptr, 0}/s/^  {"\([A-Za-z0-9_]*\)", [0-9]*},$/\1/p' $SRC/generated/alibi_cuda.cu`
for n in $names; do
  [ `left 300` -gt 6 ] || { echo "no time for alibi $n"; continue; }
  timeout `left 305` ./tests/gpu_check --small --plans alibi --config $n > $W/cfg-$n.txt 2>&1
  echo "alibi $n rc $?: `grep -E '^(FAIL|[0-9]+ launches took|[0-9]+ passed)' $W/cfg-$n.txt | tr '\n' ' '`"
done
echo "configs at $(( `date +%s` - T0 )) s"
for tool in memcheck racecheck synccheck; do
  timeout `left 560` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans window --config T128_64_2M64 > $W/san-m64-$tool.txt 2>&1
  echo "compute-sanitizer $tool (window T128_64_2M64) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|launches took|passed, .* failed' $W/san-m64-$tool.txt | tr '\n' ' '`"
  timeout `left 560` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans alibi,maxlogit,window > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (alibi,maxlogit,window) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "sanitized at $(( `date +%s` - T0 )) s"
cd $SRC
if [ `left 560` -gt 60 ]; then
  PYTHONUNBUFFERED=1 timeout `left 570` python3 bench/steady.py --bench $B/bench/fusegen-bench \
    --peers-py .carry/peers.py --cases bench/cases.tsv --seconds 3 --only window-pf-8k,window-pf-32k,alibi-pf-8k,alibi-pf-32k \
    --out $W/steady.jsonl > $W/steady.txt 2>&1
  echo "== steady at $(( `date +%s` - T0 )) s"; tail -8 $W/steady.txt | cut -c1-110
fi
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' . && ls $OUT
