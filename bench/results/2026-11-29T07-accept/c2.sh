#!/bin/sh
# Call 2 (twenty-ninth session).  siggate and sigmoid, never tuned (no tune
# block until now: their kernels ran the default rules), tuned on this device
# for bf16 at head dim 128 (fusegen-tune --plans=siggate,sigmoid --only='bf16
# 128', into $OUT/w/sig.wisdom); the two plans regenerated with it (T) and
# timed against A (the working tree's default-rule kernels) alternating
# three times; gpu_check in full on T's siggate and sigmoid.  The call's
# working tree had plans/causal.fp's tune block copied into plans/siggate.fp
# and plans/sigmoid.fp (not committed).  The regeneration below did not take
# sig.wisdom (fusegen then dropped a second file of the same device whole;
# fixed in bd1ac27), so T ran A's kernels.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
OUT=$W RUN_LIMIT=200 STEPS="build" FG_COMMIT=${FG_COMMIT:-8b590c0+tune} sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] && [ -x $B/fusegen-tune ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
timeout `left 330` $B/fusegen-tune --srcdir="$SRC" --budget=$(( `left 330` - 20 )) --plans=siggate,sigmoid \
  --only='bf16 128' --wisdom=$W/sig.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
tail -3 $W/tune.log
grep '^row' $W/sig.wisdom
mkdir -p /tmp/gt && $B/fusegen --templates=templates --wisdom=wisdom/nvidia-h200.wisdom --wisdom=$W/sig.wisdom \
  -o /tmp/gt plans/siggate.fp plans/sigmoid.fp > $W/regen.log 2>&1
cp /tmp/gt/siggate_cuda.cu /tmp/gt/sigmoid_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-T.log 2>&1; rc=$?
echo "T build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binT && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binT/
grep -E '^#|sigmoid|siggate' bench/variants.tsv > /tmp/at.tsv
for r in 1 2 3; do for V in A T; do
  timeout `left 480` /tmp/bin$V/fusegen-bench --cases /tmp/at.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "A/T done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binT
timeout `left 575` ./gpu_check --plans siggate,sigmoid > $W/check-T.txt 2>&1
echo "T gpu_check siggate,sigmoid rc $?: `grep -E 'passed, .* failed' $W/check-T.txt` (`grep -c '^PASS' $W/check-T.txt` PASS lines)" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
grep -E '^FAIL' $W/check-*.txt | head -10
python3 - $W <<'PY'
import json, sys, glob
w = sys.argv[1]; res = {}; cfg = {}
for f in sorted(glob.glob(w + '/[AT]-*.jsonl')):
    v = f.split('/')[-1][0]
    for l in open(f):
        d = json.loads(l)
        if 'case' in d:
            res.setdefault(d['case'], {}).setdefault(v, []).append(d['tflops']); cfg[(d['case'], v)] = d.get('config')
for c in res:
    print('%-16s A %s | T %s' % (c, ' '.join('%.1f' % x for x in res[c].get('A', [])), ' '.join('%.1f' % x for x in res[c].get('T', []))))
    print('   A: %s\n   T: %s' % (cfg.get((c, 'A')), cfg.get((c, 'T'))))
PY
cp /tmp/gt/siggate_cuda.cu /tmp/gt/sigmoid_cuda.cu $W/ 2>/dev/null; gzip $W/*_cuda.cu
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' . && ls -la $OUT
