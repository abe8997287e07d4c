#!/bin/sh
# Call 4 (thirtieth session).  Call 3 found fusegen's causal-pf-8k power-capped
# at a lower mean board power (595 W) than cuDNN's (692 W), which runs at a
# higher clock.  Which limit acts: here nvidia-smi reads, every 20 ms, the
# instantaneous and the averaged power, the SM clock and the bit mask of every
# active clock-event reason, while fusegen's and cuDNN's causal-pf-8k and
# gqa-pf-8k run about three seconds each (as call 3).
T0=`date +%s`
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
Q=timestamp,clocks.sm,power.draw.instant,power.draw.average,utilization.gpu,clocks_event_reasons.active,power.limit,enforced.power.limit
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits > $W/smi-probe.txt 2>&1 || Q=timestamp,clocks.sm,power.draw,power.draw,utilization.gpu,clocks_event_reasons.active,power.limit,enforced.power.limit
cat $W/smi-probe.txt
nvidia-smi -q -d PERFORMANCE,POWER > $W/smi-q-before.txt 2>&1
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 20 > $W/smi.csv 2> $W/smi.err &
SMI=$!
PYTHONUNBUFFERED=1 timeout 200 python3 - $W $B/bench/fusegen-bench > $W/drive.log 2>&1 <<'PY'
import sys, os, json, time, subprocess, statistics
sys.path.insert(0, '.carry')
import torch, peers
w, fb = sys.argv[1], sys.argv[2]
SECS = 3.0
def sustained(fn, reps=25):
    for _ in range(3): fn()
    torch.cuda.synchronize(); t = []; t0 = time.time()
    while time.time() - t0 < SECS:
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); t.append(a.elapsed_time(b))
    h = sorted(t[len(t) // 2:])
    return h[len(h) // 2]
peers.bench_ms = sustained
cases = {c['id']: c for c in peers.read_cases('.carry/cases.tsv')}
hdr = [l for l in open('bench/cases.tsv') if l.startswith('#')]
line = {l.split('\t')[0]: l for l in open('bench/cases.tsv') if not l.startswith('#')}
ph = open(w + '/phases.txt', 'w')
for cid in ('causal-pf-8k', 'gqa-pf-8k', 'causal-pf-8k'):
    c = cases[cid]
    open('/tmp/one.tsv', 'w').write(''.join(hdr) + line[cid] * 8)
    ph.write('fg-%s-start %f\n' % (cid, time.time())); ph.flush()
    subprocess.run([fb, '--cases', '/tmp/one.tsv', '--reps', '360', '--out', '%s/fg-%s.jsonl' % (w, cid)],
                   stderr=open('%s/fg-%s.txt' % (w, cid), 'w'))
    ph.write('fg-%s-end %f\n' % (cid, time.time())); ph.flush()
    ft = [json.loads(l)['tflops'] for l in open('%s/fg-%s.jsonl' % (w, cid)) if '"case"' in l]
    time.sleep(1)
    ph.write('pe-%s-start %f\n' % (cid, time.time())); ph.flush()
    rows = peers.run_case(c, ['sdpa-cudnn'], 'cuda', None)
    ph.write('pe-%s-end %f\n' % (cid, time.time())); ph.flush()
    print('RESULT', cid, 'fusegen', ' '.join('%.0f' % x for x in ft), 'cudnn %.1f' % rows[0]['tflops'], flush=True)
    time.sleep(1)
PY
echo "driver rc $? at $(( `date +%s` - T0 )) s"
kill $SMI
nvidia-smi -q -d PERFORMANCE,POWER > $W/smi-q-after.txt 2>&1
grep RESULT $W/drive.log
python3 - $W <<'PY'
import sys, datetime
w = sys.argv[1]; ph = []
for l in open(w + '/phases.txt'):
    n, t = l.split(); ph.append((n, float(t)))
rows = []
for l in open(w + '/smi.csv'):
    f = [x.strip() for x in l.split(',')]
    try:
        ts = datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
        rows.append((ts, float(f[1]), float(f[2]), float(f[3]), float(f[4]), int(f[5], 16)))
    except Exception: pass
print('phase: samples | MHz mean | instant W mean p90 max | average W mean | reasons (hex mask: share of samples)')
for i in range(0, len(ph), 2):
    n = ph[i][0][:-6]; a, b = ph[i][1], ph[i + 1][1]
    s = [r for r in rows if a + 0.3 <= r[0] <= b and r[4] >= 90]
    if not s: print(n, 'no busy samples'); continue
    iw = sorted(r[2] for r in s); m = {}
    for r in s: m[r[5]] = m.get(r[5], 0) + 1
    print('%-18s %4d | %5.0f | %4.0f %4.0f %4.0f | %4.0f | %s' % (n, len(s), sum(r[1] for r in s) / len(s),
          sum(iw) / len(iw), iw[int(0.9 * len(iw))], iw[-1], sum(r[3] for r in s) / len(s),
          ' '.join('%#x:%.2f' % (k, v / len(s)) for k, v in sorted(m.items()))))
PY
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls -la $OUT
