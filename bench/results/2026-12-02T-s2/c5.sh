#!/bin/sh
# Call 5 (forty-second session): why the attention kernel takes 0.894 ms under
# ncu and about 1.0 ms a call in fusegen-bench's loop.  A (the committed tree)
# with probe.diff (fusegen-bench only, an experiment): PROBE_SLEEP_US leaves
# the GPU idle that long after each call.  docmask-pf-32k, 2 s each, with no
# gap, 2 ms and 10 ms; nvidia-smi every 20 ms (clock, power, the clock event
# reasons) through them; ncu on the attention kernel with the L2 flushed before
# it (ncu's default) and not.
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
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-32k' bench/variants.tsv; } > $W/v.tsv
q=timestamp,clocks.sm,power.draw,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,temperature.gpu
nvidia-smi --query-gpu=$q --format=csv,noheader -lms 20 > $W/smi.csv 2> $W/smi.err &
SMI=$!
sleep 1
for g in 0 2000 10000 0; do
  echo "phase gap=$g start `date +%H:%M:%S.%N`" >> $W/phases.txt
  PROBE_SLEEP_US=$g timeout `left 400` $A/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/G-$g.jsonl > $W/G-$g.txt 2>&1
  echo "phase gap=$g end `date +%H:%M:%S.%N`" >> $W/phases.txt
  echo "== gap $g us at $(( `date +%s` - T0 )) s: `grep -v '^#' $W/G-$g.txt | grep -- '-pf-' | cut -c1-60`"
  sleep 1
done
kill $SMI; head -2 $W/smi.csv; cat $W/smi.err | head -3
python3 - $W/smi.csv $W/phases.txt <<'PY'
import sys
rows=[l.strip().split(', ') for l in open(sys.argv[1]) if l.count(',')>=5]
ph=[l.split() for l in open(sys.argv[2])]
def ts(s): h,m,x=s.split(' ')[-1].split(':'); return int(h)*3600+int(m)*60+float(x)
for i in range(0,len(ph),2):
    a=ts(ph[i][3]); b=ts(ph[i+1][3]); sel=[r for r in rows if a+0.3<=ts(r[0])<=b]
    if not sel: continue
    clk=sorted(float(r[1].split()[0]) for r in sel); pw=sorted(float(r[2].split()[0]) for r in sel if r[2][0].isdigit())
    reasons={}
    for r in sel: reasons[r[3]]=reasons.get(r[3],0)+1
    print(ph[i][1], 'samples',len(sel),'clock median',clk[len(clk)//2],'min',clk[0],'power median',pw[len(pw)//2] if pw else '-','max',pw[-1] if pw else '-','reasons',sorted(reasons.items(),key=lambda x:-x[1])[:4], 'pwrcap', sum(1 for r in sel if r[4]=='Active'), 'hw', sum(1 for r in sel if r[5]=='Active'))
PY
for cc in all none; do
  timeout `left 520` ncu --clock-control none --cache-control $cc -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 3 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second $A/bench/fusegen-bench --cases $W/v.tsv --reps 20 > $W/ncu-$cc.txt 2>&1
  echo "ncu cache-control $cc rc $?: `grep -E 'gpu__time_duration|per_second' $W/ncu-$cc.txt | awk '{print $(NF-1), $NF}' | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' --exclude=a . && ls $OUT
