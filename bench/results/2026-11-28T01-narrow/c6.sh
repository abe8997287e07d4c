#!/bin/sh
# Call 6 (twenty-third session): the key-range scan with the loads that do not wait for each
# other issued together (Q: P of call 5 without loading each next chunk ahead; the working
# tree's docmask_cuda.cu in .carry/genQ, bench/ab-gen.sh) against the
# committed library (V, b9653df's); docmask (8k, 32k) and causal-pf-8k alternating four
# times; gpu_check docmask in full (sm_90a) and --small (sm_80 family), memcheck and
# racecheck on docmask --small (Q).
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binV && cp $B/bench/fusegen-bench /tmp/binV/
cp .carry/genQ/docmask_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-Q.log 2>&1; echo "Q build rc $?" >> $W/checks.txt
mkdir -p /tmp/binQ && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binQ/
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask-pf-(8k|32k)|causal-pf-8k)' bench/variants.tsv) > /tmp/c.tsv
for r in 1 2 3 4; do for V in V Q; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binQ
timeout `left 420` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 450` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "check docmask sm80 rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck; do
  timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt
for r in 1 2 3 4; do for V in V Q; do echo "== $V run $r"; cut -c1-60 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call6.tgz . && ls $OUT
