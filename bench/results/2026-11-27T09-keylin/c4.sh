#!/bin/sh
# Call 4 (H200): the final library (keylin, both GPUs retuned): build + SASS; gpu_check --small and
# alibi in full; compute-sanitizer on alibi (--small); the 25 cases twice; the peers (Flex on the
# masked prefill cases at 8k and 32k) in the same call; compare.py.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=200 STEPS="build sass smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
cuobjdump -sass /tmp/fg-build/libfusegen_cuda.a > /tmp/sass.txt 2>&1
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "other" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "UTMALDG" || w == "LDL" || w == "STL" || w == "HMMA") n[f " " w]++ } }
     END { for (k in n) print "sass: " k " " n[k] }' /tmp/sass.txt | sort > $OUT/sass.txt
cd /tmp/fg-build
timeout `left 250` ./tests/gpu_check --small > $OUT/check-small.txt 2>&1; echo "check --small rc $?: `grep -E 'passed, .* failed' $OUT/check-small.txt`" >> $OUT/checks.txt
timeout `left 300` ./tests/gpu_check --plans alibi > $OUT/check-alibi.txt 2>&1; echo "check alibi rc $?: `grep -E 'passed, .* failed' $OUT/check-alibi.txt`" >> $OUT/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 360` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans alibi > $OUT/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $OUT/san-$tool.txt`" >> $OUT/checks.txt
done
echo "checks done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
cd - > /dev/null
B=/tmp/fg-build/bench/fusegen-bench
for i in 1 2; do
  timeout `left 470` $B --cases bench/cases.tsv --out $OUT/t$i.jsonl 2>> $OUT/bench.txt
done
cp $OUT/t1.jsonl $OUT/fusegen.jsonl
OUT=$OUT RUN_LIMIT=`left 590` PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k \
  STEPS="peers compare" sh bench/run-gpu.sh >> $OUT/run.log 2>&1
cat $OUT/summary-build.txt $OUT/checks.txt $OUT/sass.txt $OUT/summary.txt
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
cd $OUT && tar czf call4.tgz *.jsonl *.txt *.log 2>/dev/null; ls
