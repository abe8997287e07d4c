#!/bin/sh
# Call 5 (twenty-ninth session).  Where the spread of the 8k cases comes
# from (calls 3 and 4: causal-pf-8k 472-615 TFLOP/s, the same kernel, a
# pass's median of 30 launches steady within the pass): the committed tree;
# causal-pf-8k ten times in one fusegen-bench process (each row allocates
# and fills its own buffers), then in three more processes; gqa-pf-8k and
# global-pf-8k five times; nvidia-smi's clocks and throttle reasons before
# and after.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=200 STEPS="build" FG_COMMIT=${FG_COMMIT:-8b590c0} sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE > $W/smi-before.txt 2>&1
{ grep '^#' bench/cases.tsv; for i in 1 2 3 4 5 6 7 8 9 10; do grep '^causal-pf-8k' bench/cases.tsv; done; } > /tmp/c10.tsv
{ grep '^#' bench/cases.tsv; for i in 1 2 3 4 5; do grep -E '^(gqa|global)-pf-8k' bench/cases.tsv; done; } > /tmp/g5.tsv
timeout `left 400` $B/bench/fusegen-bench --cases /tmp/c10.tsv --out $W/c10-1.jsonl 2> $W/c10-1.txt
for p in 2 3 4; do timeout `left 400` $B/bench/fusegen-bench --cases /tmp/c10.tsv --only causal-pf-8k --out $W/c10-$p.jsonl 2> $W/c10-$p.txt; done
timeout `left 420` $B/bench/fusegen-bench --cases /tmp/g5.tsv --out $W/g5.jsonl 2> $W/g5.txt
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE > $W/smi-after.txt 2>&1
echo "done at $(( `date +%s` - T0 )) s"
for f in $W/c10-*.jsonl $W/g5.jsonl; do echo "$(basename $f): `python3 -c "
import json,sys
print(' '.join('%s %.0f' % (d['case'][:6], d['tflops']) for d in map(json.loads, open('$f')) if 'case' in d))"`"; done
grep -iE 'SM  |Graphics|Power Draw|GPU Current Temp|Active|Idle|Slowdown|Cap ' $W/smi-after.txt | head -30
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' . && ls -la $OUT
