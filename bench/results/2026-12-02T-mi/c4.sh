#!/bin/sh
# Call 4 (thirty-eighth session): the final tree's docmask.  ncu with source
# counters on one launch of docmask-pf-8k (where its time goes after CLS), then
# compute-sanitizer racecheck and memcheck on docmask in full (key ranges of
# more than 32 tiles, which take the other instance of the consumers' loop,
# among them), each within what the call has left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build; W=$OUT/w; mkdir -p $W/a
OUT=$W/a RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -20 $W/run.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep -E '^# id' bench/variants.tsv; grep -E '^docmask-pf-8k' bench/variants.tsv; } > /tmp/c.tsv
timeout `left 170` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
  -o /tmp/ncu-dm $B/bench/fusegen-bench --cases /tmp/c.tsv --only docmask-pf-8k --reps 20 > $W/ncu.log 2>&1 &&
{ ncu -i /tmp/ncu-dm.ncu-rep --print-details all > $W/ncu-dm.txt 2>&1
  ncu -i /tmp/ncu-dm.ncu-rep --page source --csv --print-source sass > $W/src-dm.csv 2>&1; }
echo "ncu rc $? at $(( `date +%s` - T0 )) s"; grep -E "Duration|inst_executed.sum|issue_active" $W/ncu-dm.txt | head -5
for tool in racecheck memcheck; do
  [ `left 330` -gt 20 ] || break
  (cd $B && timeout `left 330` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask in full) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls $OUT
