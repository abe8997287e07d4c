#!/bin/sh
# Call 5 (either card): the library with the H100's retuned wisdom (and the H200's
# carried): build + SASS; gpu_check --small; the 25 cases tuned twice and
# untuned once (FUSEGEN_WISDOM_DEVICE names no device), the peers in the
# same call, compare.py.
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
timeout `left 280` ./tests/gpu_check --small > $OUT/check-small.txt 2>&1; echo "check --small rc $?: `grep -E 'passed, .* failed' $OUT/check-small.txt`" >> $OUT/checks.txt
echo "checks done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
cd - > /dev/null
B=/tmp/fg-build/bench/fusegen-bench
for i in 1 2; do
  timeout `left 440` $B --cases bench/cases.tsv --out $OUT/t$i.jsonl 2>> $OUT/bench.txt
done
FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 500` $B --cases bench/cases.tsv --out $OUT/untuned.jsonl 2>> $OUT/bench-untuned.txt
cp $OUT/t1.jsonl $OUT/fusegen.jsonl
OUT=$OUT RUN_LIMIT=`left 585` STEPS="peers compare" sh bench/run-gpu.sh >> $OUT/run.log 2>&1
cat $OUT/summary-build.txt $OUT/checks.txt $OUT/sass.txt $OUT/summary.txt
python3 - $OUT <<'PY'
import json, sys, math
o = sys.argv[1]
def load(f):
    d = {}
    try:
        for l in open(f):
            r = json.loads(l); d[r.get('id') or r.get('case')] = r
    except Exception as e: print('load', f, e)
    return d
t1, t2, u = load(o + '/t1.jsonl'), load(o + '/t2.jsonl'), load(o + '/untuned.jsonl')
k = lambda r: r.get('ms')
print('case ms: t1 t2 untuned')
for c in t1:
    if c: print(c, k(t1[c]), k(t2.get(c, {})), k(u.get(c, {})))
PY
cd $OUT && tar czf call3.tgz *.jsonl *.txt *.log 2>/dev/null; ls
