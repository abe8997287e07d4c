#!/bin/sh
# Call 1 (twenty-ninth session).  (1) The committed tree (A, 8b590c0): the 25
# cases of bench/cases.tsv twice, the peers in the same call (SDPA FA2 and
# cuDNN everywhere, FlexAttention on the masked prefill cases at 8k and 32k),
# compare.py; bench/variants.tsv with bench/variants_flex.py.  (2) X
# (.carry/genX): siggate's and window's sm_90a kernels on 176-key tiles
# (H128WM) by the default rules, against A, alternating three times
# (.carry/genX: siggate_cuda.cu and window_cuda.cu generated with
# x-generator-hack.diff applied, FGHACK=1 for siggate and FGHACK2=1
# --wisdom=none for window; the hack was never committed).
# (3) Checks as time allows: gpu_check in full on X's siggate and window and
# on A's relbias and softcap; memcheck on X --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=200 STEPS="build sass" FG_COMMIT=${FG_COMMIT:-8b590c0} sh bench/run-gpu.sh > $W/run.log 2>&1
cp $W/summary.txt $W/summary-build.txt
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genX/*_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-X.log 2>&1; rc=$?
echo "X build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binX && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binX/
# (1) the acceptance table: A, 25 cases, twice; then the peers
for i in 1 2; do timeout `left 300` /tmp/binA/fusegen-bench --cases bench/cases.tsv --out $W/t$i.jsonl 2>> $W/bench.txt; done
cp $W/t1.jsonl $W/fusegen.jsonl
echo "A bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
OUT=$W RUN_LIMIT=`left 330` STEPS="peers compare" FG_COMMIT=${FG_COMMIT:-8b590c0} \
  PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k \
  sh bench/run-gpu.sh >> $W/run.log 2>&1
echo "peers done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
# (2) A against X, three alternations
grep -E '^#|sigmoid|siggate' bench/variants.tsv > /tmp/ax.tsv
grep -E 'window-pf|softcap-pf-8k|causal-pf-8k' bench/cases.tsv >> /tmp/ax.tsv
for r in 1 2 3; do for V in A X; do
  timeout `left 420` /tmp/bin$V/fusegen-bench --cases /tmp/ax.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "A/X done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
# the variants (A) beside FlexAttention
timeout `left 450` /tmp/binA/fusegen-bench --cases bench/variants.tsv --out $W/variants-A.jsonl 2> $W/variants-A.txt
PYTHONUNBUFFERED=1 timeout `left 520` python3 bench/variants_flex.py --cases bench/variants.tsv --out $W/variants-flex.jsonl > $W/variants-flex.txt 2>&1
echo "variants_flex rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
# (3) checks
cd /tmp/binX
timeout `left 545` ./gpu_check --plans siggate,window > $W/check-X.txt 2>&1
echo "X gpu_check siggate,window rc $?: `grep -E 'passed, .* failed' $W/check-X.txt` (`grep -c '^PASS' $W/check-X.txt` PASS lines)" >> $W/checks.txt
timeout `left 565` compute-sanitizer --tool memcheck ./gpu_check --small --plans siggate,window > $W/memcheck-X.txt 2>&1
echo "X memcheck rc $?: `grep -E 'ERROR SUMMARY' $W/memcheck-X.txt`" >> $W/checks.txt
cd /tmp/binA
timeout `left 585` ./gpu_check --plans relbias,softcap > $W/check-A.txt 2>&1
echo "A gpu_check relbias,softcap rc $?: `grep -E 'passed, .* failed' $W/check-A.txt` (`grep -c '^PASS' $W/check-A.txt` PASS lines)" >> $W/checks.txt
cd $SRC
cat $W/summary-build.txt $W/checks.txt
grep -E '^FAIL' $W/check-*.txt | head -10
cat $W/compare.txt 2>/dev/null | tail -40
python3 - $W <<'PY'
import json, sys, glob
w = sys.argv[1]; res = {}
for f in sorted(glob.glob(w + '/[AX]-*.jsonl')):
    v = f.split('/')[-1][0]
    for l in open(f):
        d = json.loads(l)
        if 'case' in d: res.setdefault(d['case'], {}).setdefault(v, []).append(d['tflops'])
for c in res:
    print('%-18s A %s | X %s' % (c, ' '.join('%.1f' % x for x in res[c].get('A', [])), ' '.join('%.1f' % x for x in res[c].get('X', []))))
for f in ('variants-A.jsonl', 'variants-flex.jsonl'):
    try:
        for l in open(w + '/' + f):
            d = json.loads(l); print(f.split('.')[0], d.get('case') or d.get('id'), d.get('ms'), d.get('tflops'))
    except Exception as e: print(f, e)
PY
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
