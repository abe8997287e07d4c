#!/bin/sh
# Call 2 (forty-first session): where docmask-pf-32k's time goes, on the
# committed kernels (DR).  The SM clock and the board power sampled every
# 50 ms by nvidia-smi while fusegen-bench times docmask 8k and 32k and
# causal-pf-32k (2 s a case) and Flex docmask (2 s); then ncu (clocks as
# found) on one launch of docmask-pf-32k and one of causal-pf-32k: speed of
# light, pipes, warp states, memory, and the raw metrics.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
{ grep '^# id' .carry/cases.tsv; grep -E '^causal-pf-32k' .carry/cases.tsv; } > $W/c.tsv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 50 > $W/smi.csv 2>&1 &
SMI=$!
mark() { echo "`date +%H:%M:%S.%N | cut -c1-12` $1" >> $W/phases.txt; }
mark idle; sleep 1
mark fg-docmask; timeout 60 $A/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg.jsonl > $W/fg.txt 2>&1
mark fg-causal; timeout 60 $A/bench/fusegen-bench --cases $W/c.tsv --seconds 2 --out $W/fgc.jsonl > $W/fgc.txt 2>&1
mark flex; PYTHONUNBUFFERED=1 timeout 120 python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 --out $W/flex.jsonl > $W/flex.txt 2>&1
mark end; sleep 0.5; kill $SMI
grep -v '^#' $W/fg.txt $W/fgc.txt | cut -c1-90; grep -E 'docmask' $W/flex.txt | tail -2
cat $W/phases.txt
# the clocks and power of each phase (the samples between its mark and the next)
python3 - $W <<'PY'
import sys, csv, datetime
W = sys.argv[1]
ph = [l.split(None, 1) for l in open(W + '/phases.txt')]
def t(s): h, m, x = s.split(':'); return int(h) * 3600 + int(m) * 60 + float(x)
marks = [(t(a), b.strip()) for a, b in ph]
rows = list(csv.reader(open(W + '/smi.csv')))[1:]
for i, (t0, name) in enumerate(marks[:-1]):
    t1 = marks[i + 1][0]
    clk, pw = [], []
    for r in rows:
        try:
            ts = t(r[0].split()[1]); c = float(r[1].split()[0]); p = float(r[3].split()[0])
        except Exception:
            continue
        if t0 <= ts < t1: clk.append(c); pw.append(p)
    if clk:
        clk.sort(); pw.sort()
        print("%-12s %3d samples  SM MHz median %.0f (min %.0f, max %.0f)  W median %.0f (max %.0f)" % (
            name, len(clk), clk[len(clk) // 2], clk[0], clk[-1], pw[len(pw) // 2], pw[-1]))
PY
for c in docmask-pf-32k causal-pf-32k; do
  [ `left 560` -gt 40 ] || break
  if [ $c = docmask-pf-32k ]; then cs=$W/v.tsv; else cs=$W/c.tsv; fi
  timeout `left 560` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --metrics sm__ops_path_tensor_src_bf16_dst_fp32.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    -o /tmp/ncu-$c $A/bench/fusegen-bench --cases $cs --only $c --reps 20 > $W/ncu-$c.log 2>&1 &&
  { ncu -i /tmp/ncu-$c.ncu-rep --print-details all > $W/ncu-$c.txt 2>&1
    ncu -i /tmp/ncu-$c.ncu-rep --page raw --csv > $W/raw-$c.csv 2>&1; }
  echo "ncu $c rc $? at $(( `date +%s` - T0 )) s"
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Issue Slots Busy|Executed Ipc Active|Theoretical Occupancy|Achieved Occupancy|Warp Cycles Per Issued" $W/ncu-$c.txt | head -14
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' --exclude=a . && ls $OUT
