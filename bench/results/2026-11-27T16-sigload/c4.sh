#!/bin/sh
# Call 4 (twenty-first session): where relbias-pf-8k's time goes beside causal-pf-8k (the working
# tree of call 2): ncu with source counters on one launch of each, the source pages as CSV.
: ${FG_COMMIT:?}
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=240 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
for c in relbias-pf-8k causal-pf-8k; do
  timeout 120 ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    -o /tmp/ncu-$c $B/bench/fusegen-bench --cases bench/variants.tsv --only $c --reps 20 > $W/ncu-$c.log 2>&1
  ncu -i /tmp/ncu-$c.ncu-rep --print-details all > $W/ncu-$c.txt 2>&1
  ncu -i /tmp/ncu-$c.ncu-rep --page source --csv --print-source sass > $W/src-$c.csv 2>&1
done
grep -E "Duration|inst_executed.sum|issue_active|Warp Cycles Per Issued" $W/ncu-*.txt
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
