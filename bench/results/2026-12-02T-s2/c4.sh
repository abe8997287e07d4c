#!/bin/sh
# Call 4 (forty-second session): where the 0.11 ms of a docmask-pf-32k call
# that is not the attention kernel goes.  A (the committed tree) with
# probe.diff applied to fusegen-bench only (an experiment, not committed):
# the host's time inside a call (fn() by the wall clock, median and p90) and
# the time a call takes with 50 calls queued back to back between two events
# (PROBE_QUEUE=50), beside the usual per-call figure; the same with
# FUSEGEN_SPAN_SUMMARY=off (no span workspace, no span kernels) and for
# causal-pf-8k (no span kernels); ncu's durations of every kernel of two calls.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
git apply bench/results/2026-12-02T-s2/probe.diff 2>/dev/null || patch -p1 < bench/results/2026-12-02T-s2/probe.diff || { echo "probe patch failed"; exit 1; }
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-8k' bench/cases.tsv; } > $W/v.tsv
for r in 1 2; do
  PROBE_QUEUE=50 timeout `left 400` $A/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/P-$r.jsonl > $W/P-$r.txt 2>&1
  echo "== run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/P-$r.txt | cut -c1-75 | grep -- '-pf-'; grep PROBE $W/P-$r.txt
done
FUSEGEN_SPAN_SUMMARY=off PROBE_QUEUE=50 timeout `left 420` $A/bench/fusegen-bench --cases $W/v.tsv --only docmask-pf-8k,docmask-pf-32k --seconds 2 --out $W/N.jsonl > $W/N.txt 2>&1
echo "== no summary at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/N.txt | cut -c1-75 | grep -- '-pf-'; grep PROBE $W/N.txt
timeout `left 480` ncu --clock-control none --launch-skip 9 --launch-count 6 --metrics gpu__time_duration.sum \
  $A/bench/fusegen-bench --cases $W/v.tsv --only docmask-pf-32k --reps 20 > $W/ncu-all.txt 2>&1
echo "ncu rc $?:"; grep -E "^  [a-z_].*\(|gpu__time_duration" $W/ncu-all.txt | sed 's/(fh_args).*//;s/<.*>//' | paste - - | awk '{print "  ", $1, $(NF-1), $NF}'
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' --exclude=a . && ls $OUT
