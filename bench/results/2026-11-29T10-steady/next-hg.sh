#!/bin/sh
# For the next session with device time: HG (variant-hg.diff), the heads of
# the heaviest-first plans taken in groups whose K and V fill half the L2.
# Before the call, on the development machine:
#   git apply bench/results/2026-11-29T10-steady/variant-hg.diff
#   (cd _build && make fusegen) && sh bench/ab-gen.sh .carry/genB _build/fusegen
#   git checkout templates
# and the shared bench's peers.py, compare.py, cases.tsv in .carry/ (carry .carry).
# One build (B): FUSEGEN_HEAD_GROUPS=off gives A's order in the same binary.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
cp .carry/genB/*.cu generated/ && touch generated/stamp
OUT=$W RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
make -C $B -j16 tests/gpu_check > /dev/null 2>&1
echo "built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(cd $B && timeout 80 ./tests/gpu_check --small) > $W/check-small.txt 2>&1
echo "gpu_check --small (groups on) rc $?: `grep -E 'passed, .* failed' $W/check-small.txt`" >> $W/checks.txt
(cd $B && timeout 100 ./tests/gpu_check --plans causal,gqa,window,docmask) > $W/check-plans.txt 2>&1
echo "gpu_check causal,gqa,window,docmask rc $?: `grep -E 'passed, .* failed' $W/check-plans.txt`" >> $W/checks.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw.instant,utilization.gpu,clocks_event_reasons.active \
  --format=csv,noheader,nounits -lms 20 > $W/smi.csv 2> $W/smi.err &
SMI=$!
# the bars' cases, then variants (bench/variants.tsv) whose plans are heaviest-first too
IDS="cases:causal-pf-8k cases:causal-pf-32k cases:gqa-pf-8k cases:gqa-pf-32k cases:alibi-pf-8k
  cases:window-pf-8k variants:docmask-pf-32k variants:diffattn-pf-32k variants:siggate-pf-8k variants:sigmoid-pf-8k"
for r in 1 2; do for fc in $IDS; do for g in off on; do
  f=${fc%%:*}; c=${fc#*:}
  echo "$g-$c-$r-start `date +%s.%N`" >> $W/phases.txt
  FUSEGEN_HEAD_GROUPS=$g timeout `left 560` $B/bench/fusegen-bench --cases bench/$f.tsv --only $c --seconds 3 \
    --out $W/$g-$c-$r.jsonl 2> /dev/null
  echo "$g-$c-$r-end `date +%s.%N`" >> $W/phases.txt
  sleep 1
done; done; done
kill $SMI
cat $W/checks.txt
python3 - $W <<'PY'
import sys, json, datetime
w = sys.argv[1]; ph = {}
for l in open(w + '/phases.txt'):
    n, t = l.split(); ph[n] = float(t)
rows = []
for l in open(w + '/smi.csv'):
    f = [x.strip() for x in l.split(',')]
    try: rows.append((datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp(), float(f[1]), float(f[2]), float(f[3])))
    except Exception: pass
print('groups case round | TFLOP/s | MHz W (busy samples)')
for k in sorted(n[:-6] for n in ph if n.endswith('-start')):
    try: t = [json.loads(l)['tflops'] for l in open('%s/%s.jsonl' % (w, k)) if '"case"' in l][0]
    except Exception: t = 0
    s = [x for x in rows if ph[k + '-start'] + 0.5 <= x[0] <= ph[k + '-end'] and x[3] >= 90]
    print('%-28s %6.1f | %s' % (k, t or 0, '%5.0f %4.0f' % (sum(x[1] for x in s) / len(s), sum(x[2] for x in s) / len(s)) if s else '-'))
PY
cd $W && tar czf $OUT/hg.tgz --exclude='build*.log' . && ls -la $OUT
