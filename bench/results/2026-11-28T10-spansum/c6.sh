#!/bin/sh
# Call 6 (twenty-fifth session): W2, the producer's waits for a free slot with a suspend-time hint, the consumers polling as before
# (.carry/genW2, bench/ab-gen.sh: every *_cuda.cu) against the committed sources (A, fa948f4),
# both built for sm_90a alone.  bench/cases.tsv's prefill rows and bench/variants.tsv's rows,
# A and W2 alternating three times; gpu_check --small on causal, docmask and window with W2;
# racecheck and synccheck on W2's causal and docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/cases.tsv; grep -E -- '-pf-' bench/cases.tsv) > /tmp/p.tsv
cp bench/variants.tsv /tmp/v.tsv
CUDA_ARCH=90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
cp .carry/genW2/*_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-W.log 2>&1; echo "W2 build rc $?" >> $W/checks.txt
mkdir -p /tmp/binW2 && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binW2/
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do for V in A W2; do
  timeout `left 480` /tmp/bin$V/fusegen-bench --cases /tmp/p.tsv --out $W/$V-p$r.jsonl 2> $W/$V-p$r.txt
  timeout `left 480` /tmp/bin$V/fusegen-bench --cases /tmp/v.tsv --out $W/$V-v$r.jsonl 2> $W/$V-v$r.txt
done; echo "pass $r done at $(( `date +%s` - T0 )) s" >> $W/checks.txt; done
cd /tmp/binW2
timeout `left 540` ./gpu_check --small --plans causal,docmask,window > $W/check-small.txt 2>&1; echo "W2 check --small rc $?: `grep -E 'passed, .* failed' $W/check-small.txt`" >> $W/checks.txt
for tool in racecheck synccheck; do
  timeout `left 585` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans causal,docmask > $W/san-$tool.txt 2>&1
  echo "W2 sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt
for r in 1 2 3; do for V in A W2; do echo "== $V pass $r"; cat $W/$V-p$r.txt $W/$V-v$r.txt | grep -E -- "-pf-" | awk '{printf "%s %s %s | ", $1, $3, $4} END {print ""}'; done; done
cd $W && tar czf $OUT/call6.tgz . && ls $OUT
