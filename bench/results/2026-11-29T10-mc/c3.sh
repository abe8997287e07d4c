#!/bin/sh
# Call 3 (thirtieth session).  Issue 10's bars in steady state: the committed
# tree (HEAD) on the prefill cases of the bars, each case run about three
# seconds back to back by fusegen-bench and then by its peer (cuDNN through
# SDPA for global, causal, gqa; FlexAttention for alibi, softcap, window),
# the peer timed by the shared bench's own peers.py (imported from .carry,
# its run_case and definitions unchanged; only its bench_ms replaced by one
# that launches for three seconds and takes the median of the second half),
# with nvidia-smi sampling the SM clock and the power every 50 ms.  Call 6 of
# 2026-11-29T07 did this for causal-pf-8k and gqa-pf-8k; here every bar.
T0=`date +%s`
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu,clocks_event_reasons.sw_power_cap \
  --format=csv,noheader,nounits -lms 50 > $W/smi.csv 2> $W/smi.err &
SMI=$!
PYTHONUNBUFFERED=1 timeout 420 python3 - $W $B/bench/fusegen-bench > $W/drive.log 2>&1 <<'PY'
import sys, os, json, time, subprocess, statistics
sys.path.insert(0, '.carry')
import torch, peers
w, fb = sys.argv[1], sys.argv[2]
IDS = ['global-pf-2k', 'global-pf-8k', 'global-pf-32k', 'causal-pf-2k', 'causal-pf-8k', 'causal-pf-32k',
       'gqa-pf-2k', 'gqa-pf-8k', 'gqa-pf-32k', 'alibi-pf-8k', 'alibi-pf-32k', 'softcap-pf-8k',
       'softcap-pf-32k', 'window-pf-8k', 'window-pf-32k']
SECS = 3.0
def sustained(fn, reps=25):
    for _ in range(3): fn()
    torch.cuda.synchronize(); t = []; t0 = time.time()
    while time.time() - t0 < SECS:
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); t.append(a.elapsed_time(b))
    h = sorted(t[len(t) // 2:])
    print('  peer launches', len(t), flush=True)
    return h[len(h) // 2]
peers.bench_ms = sustained
from torch.nn.attention.flex_attention import flex_attention
flex = torch.compile(flex_attention, dynamic=False)
cases = {c['id']: c for c in peers.read_cases('.carry/cases.tsv')}
hdr = [l for l in open('bench/cases.tsv') if l.startswith('#')]
line = {l.split('\t')[0]: l for l in open('bench/cases.tsv') if not l.startswith('#')}
ph = open(w + '/phases.txt', 'w')
out = open(w + '/steady.jsonl', 'w')
for cid in IDS:
    c = cases[cid]
    est = 4.0 * c['d'] * c['b'] * c['hq'] * peers.visible_pairs(c) / 450e12 * 1e3  # ms
    reps = max(20, int(SECS * 1000 / 8 / (est + 0.02)))
    open('/tmp/one.tsv', 'w').write(''.join(hdr) + line[cid] * 8)
    ph.write('fg-%s-start %f\n' % (cid, time.time())); ph.flush()
    subprocess.run([fb, '--cases', '/tmp/one.tsv', '--reps', str(reps), '--out', '%s/fg-%s.jsonl' % (w, cid)],
                   stderr=open('%s/fg-%s.txt' % (w, cid), 'w'))
    ph.write('fg-%s-end %f\n' % (cid, time.time())); ph.flush()
    fr = [json.loads(l) for l in open('%s/fg-%s.jsonl' % (w, cid))]
    ft = [d['tflops'] for d in fr if 'case' in d and d.get('tflops')]
    time.sleep(1)
    pe = 'sdpa-cudnn' if c['variant'] in ('global', 'causal', 'gqa') else 'flex'
    ph.write('pe-%s-start %f\n' % (cid, time.time())); ph.flush()
    rows = peers.run_case(c, [pe], 'cuda', flex)
    ph.write('pe-%s-end %f\n' % (cid, time.time())); ph.flush()
    pt = rows[0]['tflops'] if rows and rows[0].get('tflops') else None
    r = dict(case=cid, fusegen=ft, fusegen_last4=statistics.median(ft[4:]) if len(ft) >= 8 else None,
             peer=pe, peer_tflops=pt, reps=reps)
    out.write(json.dumps(r) + '\n'); out.flush()
    print(json.dumps(r), flush=True)
    torch.cuda.empty_cache(); time.sleep(1)
PY
echo "driver rc $? at $(( `date +%s` - T0 )) s"
kill $SMI
tail -3 $W/drive.log
python3 - $W <<'PY'
import sys, json, datetime
w = sys.argv[1]; ph = {}
for l in open(w + '/phases.txt'):
    n, t = l.split(); ph[n] = float(t)
rows = []
for l in open(w + '/smi.csv'):
    f = [x.strip() for x in l.split(',')]
    try:
        ts = datetime.datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').timestamp()
        rows.append((ts, float(f[1]), float(f[2]), float(f[3]), f[4]))
    except Exception: pass
def clk(k):
    s = [x for x in rows if ph.get(k + '-start', 1e20) <= x[0] <= ph.get(k + '-end', 0) and x[3] >= 90]
    if not s: return '   -    -    -'
    return '%4.0f %4.0f %4.2f' % (sum(x[1] for x in s) / len(s), sum(x[2] for x in s) / len(s),
                                 sum(1 for x in s if x[4].lower().startswith('active')) / len(s))
print('case | fusegen TFLOP/s (8 medians) | its last 4 | MHz W capped | peer TFLOP/s | MHz W capped | ratio')
for l in open(w + '/steady.jsonl'):
    d = json.loads(l); c = d['case']
    f4 = d['fusegen_last4']; p = d['peer_tflops']
    print('%-14s | %s | %5.0f | %s | %-10s %5.0f | %s | %s' % (c, ' '.join('%.0f' % x for x in d['fusegen']),
          f4 or 0, clk('fg-' + c), d['peer'], p or 0, clk('pe-' + c), '%.3f' % (f4 / p) if f4 and p else '-'))
PY
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls -la $OUT
