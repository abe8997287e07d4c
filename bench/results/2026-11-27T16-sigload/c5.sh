#!/bin/sh
# Call 5 (twenty-first session): siggate's weight as sigmoid(X) over 1 / F (variant F,
# variant-F.diff: the sm_90a kernel takes 1 / g once a key and the weight as
# rcp(fma(e, 1/g, 1/g)), plan_kv_recip) against N (the committed tree, b842719).  One build,
# F's siggate_cuda.cu swapped in and rebuilt; siggate and sigmoid alternating three times;
# gpu_check siggate in full (sm_90a) and the sanitizers on siggate --small for F.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=240 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binN && cp $B/bench/fusegen-bench /tmp/binN/
cp .carry/genF/siggate_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-F.log 2>&1; echo "F build rc $?" >> $W/checks.txt
mkdir -p /tmp/binF && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binF/
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
C=sigmoid-pf-8k,siggate-pf-8k,sigmoid-pf-32k,siggate-pf-32k
for r in 1 2 3; do for V in N F; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases bench/variants.tsv --only $C --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binF
timeout `left 420` ./gpu_check --plans siggate > $W/check-F.txt 2>&1; echo "check F rc $?: `grep -E 'passed, .* failed' $W/check-F.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans siggate > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt
for r in 1 2 3; do for V in N F; do echo "== $V run $r"; cut -c1-70 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call5.tgz . && ls $OUT
