#!/bin/sh
# Call 3 (twenty-ninth session).  The committed tree (8b590c0) on the prefill
# cases of issue 10's bars, how much a case moves between passes in one call:
# three rounds of fusegen-bench with the tuned dispatch, the same binary with
# FUSEGEN_WISDOM_DEVICE="(untuned)" (the default rules), and peers.py's SDPA
# FlashAttention-2 and cuDNN, interleaved, so that each round's ratio is
# fusegen against cuDNN timed seconds apart.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=200 STEPS="build" FG_COMMIT=${FG_COMMIT:-8b590c0} sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' .; exit 1; }
echo "built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
IDS=global-pf-2k,global-pf-8k,global-pf-32k,causal-pf-2k,causal-pf-8k,causal-pf-32k,gqa-pf-2k,gqa-pf-8k,gqa-pf-32k,window-pf-8k,window-pf-32k,softcap-pf-8k,alibi-pf-8k
for r in 1 2 3; do
  timeout `left 560` $B/bench/fusegen-bench --cases bench/cases.tsv --only $IDS --out $W/tuned-$r.jsonl 2> $W/tuned-$r.txt
  FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 560` $B/bench/fusegen-bench --cases bench/cases.tsv --only $IDS --out $W/untuned-$r.jsonl 2> $W/untuned-$r.txt
  PYTHONUNBUFFERED=1 timeout `left 560` python3 .carry/peers.py --cases .carry/cases.tsv --only $IDS \
    --peers sdpa-flash,sdpa-cudnn --out $W/peers-$r.jsonl > $W/peers-$r.log 2>&1
  echo "round $r done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
done
cat $W/checks.txt
python3 - $W <<'PY'
import json, sys, glob
w = sys.argv[1]; t = {}
def rows(f):
    try:
        for l in open(f): yield json.loads(l)
    except Exception as e: print(f, e)
for r in (1, 2, 3):
    for kind in ('tuned', 'untuned'):
        for d in rows('%s/%s-%d.jsonl' % (w, kind, r)):
            if 'case' in d: t.setdefault(d['case'], {}).setdefault(kind, []).append(d['tflops'])
    for d in rows('%s/peers-%d.jsonl' % (w, r)):
        c = d.get('case') or d.get('id'); p = d.get('peer') or d.get('impl')
        v = d.get('tflops')
        if c and p and v: t.setdefault(c, {}).setdefault(p, []).append(v)
print('case: tuned x3 | untuned x3 | cudnn x3 | ratio tuned/cudnn per round')
for c, v in t.items():
    cu = v.get('sdpa-cudnn', [])
    rat = ' '.join('%.2f' % (a / b) for a, b in zip(v.get('tuned', []), cu))
    print('%-14s %s | %s | %s | %s' % (c, ' '.join('%.0f' % x for x in v.get('tuned', [])),
          ' '.join('%.0f' % x for x in v.get('untuned', [])), ' '.join('%.0f' % x for x in cu), rat))
PY
head -3 $W/peers-1.jsonl
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls -la $OUT
