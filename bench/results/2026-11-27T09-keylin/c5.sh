#!/bin/sh
# Call 5 (H100): the final library (ce83a72) on the H100: build; gpu_check --small; the 25 cases twice;
# the window probe; the peers (Flex on the masked prefill cases at 8k and 32k) in the same call; compare.py.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=200 STEPS="build smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
B=/tmp/fg-build/bench/fusegen-bench
for i in 1 2; do
  timeout `left 380` $B --cases bench/cases.tsv --out $OUT/t$i.jsonl 2>> $OUT/bench.txt
done
timeout `left 420` $B --cases .carry/probe.tsv --out $OUT/probe.jsonl 2> $OUT/probe.txt
cp $OUT/t1.jsonl $OUT/fusegen.jsonl
OUT=$OUT RUN_LIMIT=`left 590` PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k \
  STEPS="peers compare" sh bench/run-gpu.sh >> $OUT/run.log 2>&1
cat $OUT/summary-build.txt $OUT/summary.txt
python3 - $OUT <<'PY'
import json, sys
o = sys.argv[1]
def load(f):
    d = {}
    try:
        for l in open(f):
            r = json.loads(l); d[r.get('id') or r.get('case')] = r
    except Exception as e: print('load', f, e)
    return d
t1, t2 = load(o + '/t1.jsonl'), load(o + '/t2.jsonl')
print('case TFLOP/s (GB/s decode): t1 t2')
for c in t1:
    if c:
        k = 'kv_gbs' if '-dc-' in c else 'tflops'
        print(c, t1[c].get(k), t2.get(c, {}).get(k))
PY
cat $OUT/compare.txt; cut -c1-60 $OUT/probe.txt
cd $OUT && tar czf call5.tgz *.jsonl *.txt *.log 2>/dev/null; ls
