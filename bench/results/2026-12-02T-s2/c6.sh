#!/bin/sh
# Call 6 (forty-second session): ours and Flex, each with no gap and with the
# GPU idle 2 ms after each call, in the same call.  A (the committed tree) with
# probe2.diff (fusegen-bench and bench/variants_flex.py: PROBE_SLEEP_US, an
# experiment, not committed); docmask-pf-8k and 32k, 2 s a case; nvidia-smi
# every 20 ms (clock, power, the clock event reasons) through every phase.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
git apply bench/results/2026-12-02T-s2/probe2.diff || { echo "probe patch failed"; exit 1; }
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
q=timestamp,clocks.sm,power.draw,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,temperature.gpu
nvidia-smi --query-gpu=$q --format=csv,noheader -lms 20 > $W/smi.csv 2> $W/smi.err &
SMI=$!
sleep 1
n=0
for ph in fg:0 fg:2000 flex:0 flex:2000 fg:0 fg:2000; do
  n=$((n + 1)); who=${ph%%:*}; g=${ph#*:}
  [ `left 520` -gt 30 ] || break
  if [ $who = fg ]; then
    echo "phase $n-$who-$g start `date +%H:%M:%S.%N`" >> $W/phases.txt
    PROBE_SLEEP_US=$g timeout `left 520` $A/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/$n-$who-$g.jsonl > $W/$n-$who-$g.txt 2>&1
    echo "phase $n-$who-$g end `date +%H:%M:%S.%N`" >> $W/phases.txt
    echo "== $n $who gap $g us at $(( `date +%s` - T0 )) s:"; grep -v '^#' $W/$n-$who-$g.txt | grep -- '-pf-' | cut -c1-48
  else
    # Flex: its phase's times are the steady part only; smi's window is the whole run
    echo "phase $n-$who-$g start `date +%H:%M:%S.%N`" >> $W/phases.txt
    PROBE_SLEEP_US=$g PYTHONUNBUFFERED=1 timeout `left 520` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
      --out $W/$n-$who-$g.jsonl > $W/$n-$who-$g.txt 2>&1
    echo "phase $n-$who-$g end `date +%H:%M:%S.%N`" >> $W/phases.txt
    echo "== $n $who gap $g us at $(( `date +%s` - T0 )) s:"; grep docmask $W/$n-$who-$g.txt | tail -2
  fi
  sleep 1
done
kill $SMI
python3 - $W/smi.csv $W/phases.txt <<'PY'
import sys
rows=[l.strip().split(', ') for l in open(sys.argv[1]) if l.count(',')>=5]
ph=[l.split() for l in open(sys.argv[2])]
def ts(s): h,m,x=s.split(' ')[-1].split(':'); return int(h)*3600+int(m)*60+float(x)
for i in range(0,len(ph)-1,2):
    a=ts(ph[i][3]); b=ts(ph[i+1][3])
    # the busy part: samples above 150 W (Flex's phase includes its start-up)
    sel=[r for r in rows if a<=ts(r[0])<=b and r[2][0].isdigit() and float(r[2].split()[0])>150]
    if not sel: print(ph[i][1], 'no busy samples'); continue
    clk=sorted(float(r[1].split()[0]) for r in sel); pw=sorted(float(r[2].split()[0]) for r in sel)
    cap=sum(1 for r in sel if r[4]=='Active')
    print(ph[i][1], 'busy samples',len(sel),'clock median',clk[len(clk)//2],'min',clk[0],'power median',pw[len(pw)//2],'max',pw[-1],'power cap active',cap)
PY
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call6.tgz --exclude='build*.log' --exclude=a . && ls $OUT
