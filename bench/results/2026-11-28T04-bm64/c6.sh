#!/bin/sh
# Call 6 (twenty-fourth session): the key-range scan without reading the ids twice (N2:
# plan_span_narrow tests single keys from the chunk's values it holds, in every chunk some row
# may see, instead of loading the first and last such chunks again; .carry/genN2,
# bench/ab-gen.sh) against the committed sources (A, 8c139ee: H128D).  docmask and causal
# alternating three times; gpu_check docmask in full (sm_90a) and --small on the sm_80
# family (which runs the same scan); memcheck, racecheck and synccheck on docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in N2; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
for r in 1 2 3; do for V in A N2; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binN2
timeout `left 400` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "N2 check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 430` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "N2 check docmask sm80 --small rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 520` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "N2 sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt; for r in 1 2 3; do for V in A N2; do echo "== $V run $r"; cut -c1-60 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call6.tgz . && ls $OUT
