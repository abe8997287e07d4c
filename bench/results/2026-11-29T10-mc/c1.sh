#!/bin/sh
# Call 1 (thirtieth session).  MC (variant-mc.diff of 2026-11-29T07-accept:
# K and V multicast to a cluster of two CTAs of one head) for the first time
# on a GPU.  A = the committed tree (6b3e6df), B = its sources generated with
# the diff applied (.carry/genB, bench/ab-gen.sh), built side by side.
# Correctness first: B's gpu_check --small under a timeout (a protocol error
# hangs), then gpu_check on the two-group plans; only if both pass, the
# sustained comparison of call 6 (each case about 3 s back to back, the SM
# clock and power sampled every 50 ms), A and B alternating twice, and one
# 30-launch pass of the prefill cases each.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcB && cp -a . /tmp/srcB && cp .carry/genB/*.cu /tmp/srcB/generated/ && touch /tmp/srcB/generated/stamp
( cd /tmp/srcB && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1
  echo "B build rc $?" ) > $W/build-B.txt 2>&1 &
touch generated/stamp
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
make -C $B -j16 tests/gpu_check > /dev/null 2>&1
wait
cat $W/build-B.txt >> $W/checks.txt
echo "built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA /tmp/binB
cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/ && cp /tmp/srcB/b/bench/fusegen-bench /tmp/srcB/b/tests/gpu_check /tmp/binB/ ||
  { cat $W/checks.txt; tail -30 /tmp/srcB/b/build.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; }
o=`find /tmp/srcB/b -name 'causal_cuda*.o' | head -1`
cuobjdump -sass $o 2>/dev/null | grep -c 'MULTICAST' > $W/sass-mc-count.txt
cuobjdump -sass $o 2>/dev/null | grep -E 'UTMALDG' | sort | uniq -c | head > $W/sass-utmaldg-B.txt
cd /tmp/binB
timeout 90 ./gpu_check --small > $W/check-B-small.txt 2>&1; rc=$?
echo "B gpu_check --small rc $rc: `grep -E 'passed, .* failed' $W/check-B-small.txt`" >> $W/checks.txt
if test $rc = 0; then
  timeout 150 ./gpu_check --plans causal,gqa,global,alibi,softcap,window > $W/check-B-plans.txt 2>&1; rc=$?
  echo "B gpu_check 6 plans rc $rc: `grep -E 'passed, .* failed' $W/check-B-plans.txt`" >> $W/checks.txt
fi
cd $SRC
if test $rc = 0; then
  for c in causal-pf-8k gqa-pf-8k global-pf-8k; do
    { grep '^#' bench/cases.tsv; for i in 1 2 3 4 5 6 7 8; do grep "^$c	" bench/cases.tsv; done; } > /tmp/$c.tsv; done
  for c in causal-pf-32k gqa-pf-32k; do
    { grep '^#' bench/cases.tsv; for i in 1 2 3 4; do grep "^$c	" bench/cases.tsv; done; } > /tmp/$c.tsv; done
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu,clocks_event_reasons.sw_power_cap \
    --format=csv,noheader,nounits -lms 50 > $W/smi.csv 2> $W/smi.err &
  SMI=$!
  sleep 1
  for r in 1 2; do
    for c in causal-pf-8k gqa-pf-8k global-pf-8k causal-pf-32k gqa-pf-32k; do
      reps=300; case $c in *32k) reps=50;; esac
      for V in A B; do
        echo "$V-$c-$r-start `date +%s.%N`" >> $W/phases.txt
        timeout `left 520` /tmp/bin$V/fusegen-bench --cases /tmp/$c.tsv --reps $reps --out $W/sus-$V-$c-$r.jsonl 2> $W/sus-$V-$c-$r.txt
        echo "$V-$c-$r-end `date +%s.%N`" >> $W/phases.txt
        sleep 1
      done
    done
  done
  kill $SMI
  echo "sustained done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
  grep -E '^#|-pf-' bench/cases.tsv > /tmp/pf.tsv
  for V in A B; do
    timeout `left 570` /tmp/bin$V/fusegen-bench --cases /tmp/pf.tsv --out $W/pf-$V.jsonl 2> $W/pf-$V.txt
  done
  echo "passes done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
fi
cat $W/checks.txt $W/sass-mc-count.txt $W/sass-utmaldg-B.txt
tail -5 $W/check-B-small.txt
python3 - $W <<'PY'
import sys, json, datetime, glob, os
w = sys.argv[1]
ph = {}
try:
    for l in open(w + '/phases.txt'):
        n, t = l.split(); ph[n] = float(t)
except Exception: pass
rows = []
try:
    for l in open(w + '/smi.csv'):
        f = [x.strip() for x in l.split(',')]
        try:
            ts = datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
            rows.append((ts, float(f[1]), float(f[2]), float(f[3]), f[4]))
        except Exception: pass
except Exception: pass
def tf(f):
    try: return [d['tflops'] for d in map(json.loads, open(f)) if 'case' in d]
    except Exception: return []
print('sustained: variant case round | TFLOP/s of the 8 (4) medians | busy samples, SM MHz mean, W mean, capped share')
for k in sorted(n[:-6] for n in ph if n.endswith('-start')):
    V, rest = k.split('-', 1); c, r = rest.rsplit('-', 1)
    s = [x for x in rows if ph[k + '-start'] <= x[0] <= ph[k + '-end'] and x[3] >= 90]
    t = tf('%s/sus-%s-%s-%s.jsonl' % (w, V, c, r))
    mhz = sum(x[1] for x in s) / len(s) if s else 0; wt = sum(x[2] for x in s) / len(s) if s else 0
    cap = sum(1 for x in s if x[4].lower().startswith('active')) / len(s) if s else 0
    print('%s %-14s %s | %s | %3d %5.0f %4.0f %.2f' % (V, c, r, ' '.join('%.0f' % x for x in t), len(s), mhz, wt, cap))
a = {}; 
for V in 'AB':
    try:
        for d in map(json.loads, open('%s/pf-%s.jsonl' % (w, V))):
            if 'case' in d: a.setdefault(d['case'], {})[V] = d['tflops']
    except Exception: pass
print('30-launch pass: case A B B/A')
for c, v in a.items():
    print('%-14s %5.0f %5.0f %.3f' % (c, v.get('A', 0), v.get('B', 0), v.get('B', 0) / v['A'] if v.get('A') else 0))
PY
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
