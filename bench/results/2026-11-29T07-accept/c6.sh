#!/bin/sh
# Call 6 (twenty-ninth session).  Call 5 found the H200 at its 700 W limit
# ("SW Power Cap") under these kernels.  Here nvidia-smi samples the SM
# clock, the power draw and the power-cap reason every 50 ms while, in turn,
# fusegen's causal-pf-8k, cuDNN's (SDPA) causal-pf-8k, fusegen's gqa-pf-8k
# and cuDNN's gqa-pf-8k run about three seconds each (launches timed one at
# a time, as fusegen-bench and peers.py do): which of them runs at which
# clock, at which power, for which median time.
T0=`date +%s`
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=200 STEPS="build" FG_COMMIT=${FG_COMMIT:-bd1ac27} sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for c in causal gqa; do
  { grep '^#' bench/cases.tsv; for i in 1 2 3 4 5 6 7 8; do grep "^$c-pf-8k" bench/cases.tsv; done; } > /tmp/${c}8.tsv
done
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu,clocks_event_reasons.sw_power_cap \
  --format=csv,noheader,nounits -lms 50 > $W/smi.csv 2> $W/smi.err &
SMI=$!
sleep 1
phase() { echo "$1 `date +%s.%N`" >> $W/phases.txt; }
for c in causal gqa; do
  phase fg-$c-start
  $B/bench/fusegen-bench --cases /tmp/${c}8.tsv --reps 300 --out $W/fg-$c.jsonl 2> $W/fg-$c.txt
  phase fg-$c-end
  sleep 2
  phase cudnn-$c-start
  PYTHONUNBUFFERED=1 python3 - $c >> $W/cudnn.txt 2>&1 <<'PY'
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
c = sys.argv[1]; hq, hkv = (32, 32) if c == 'causal' else (64, 8)
torch.manual_seed(0)
q = torch.randn(1, hq, 8192, 128, device='cuda', dtype=torch.bfloat16)
k = torch.randn(1, hkv, 8192, 128, device='cuda', dtype=torch.bfloat16); v = torch.randn_like(k)
flops = 4.0 * 128 * hq * 8192 * 8193 / 2
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hkv != hq)
    for _ in range(3): fn()
    torch.cuda.synchronize(); t = []
    while len(t) < 2400 and sum(t) < 2600:
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); t.append(a.elapsed_time(b))
t.sort(); m = t[len(t) // 2]
print(c, 'cudnn launches', len(t), 'median ms %.4f' % m, 'TFLOP/s %.1f' % (flops / m / 1e9))
PY
  phase cudnn-$c-end
  sleep 2
done
kill $SMI
echo "done at $(( `date +%s` - T0 )) s"
cat $W/cudnn.txt
for c in causal gqa; do echo "fg $c: `python3 -c "
import json
print(' '.join('%.0f' % d['tflops'] for d in map(json.loads, open('$W/fg-$c.jsonl')) if 'case' in d))"`"; done
python3 - $W <<'PY'
import sys, time, datetime
w = sys.argv[1]
ph = {}
for l in open(w + '/phases.txt'):
    n, t = l.split(); ph[n] = float(t)
rows = []
for l in open(w + '/smi.csv'):
    f = [x.strip() for x in l.split(',')]
    try:
        ts = datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
        rows.append((ts, float(f[1]), float(f[2]), float(f[3]), f[4]))
    except Exception: pass
print('phase: samples busy (util >= 90) | SM MHz mean min max | W mean | power-capped share')
for p in ('fg-causal', 'cudnn-causal', 'fg-gqa', 'cudnn-gqa'):
    s = [r for r in rows if ph[p + '-start'] <= r[0] <= ph[p + '-end'] and r[3] >= 90]
    if not s: print(p, 'no busy samples'); continue
    mhz = [r[1] for r in s]; wt = [r[2] for r in s]
    cap = sum(1 for r in s if r[4].lower().startswith('active')) / len(s)
    print('%-13s %4d | %6.0f %5.0f %5.0f | %5.0f | %.2f' % (p, len(s), sum(mhz) / len(s), min(mhz), max(mhz), sum(wt) / len(s), cap))
PY
cd $W && tar czf $OUT/call6.tgz --exclude='build*.log' . && ls -la $OUT
