#!/bin/sh
# Call 1 (twenty-fifth session): the key-range scan from a per-launch summary of the ids
# (S: fh_span_sum_kernel, plan_span_narrow reading it; .carry/genS from bench/ab-gen.sh)
# against the committed sources (A, bbf4209).  Flex first (bench/variants_flex.py on docmask),
# then both libraries (sm_80 and sm_90a), docmask and causal at 8k and 32k alternating three
# times, Flex again; gpu_check docmask in full on S (sm_90a, its documents of 40, 600 and
# 3000 keys) and --small on the sm_80 family; memcheck, racecheck, synccheck on S's docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv) > /tmp/f.tsv
PYTHONUNBUFFERED=1 timeout `left 60` python3 bench/variants_flex.py --cases /tmp/f.tsv --out $W/flex-1.jsonl > $W/flex-1.txt 2>&1
echo "flex 1 rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in S; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do for V in A S; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
PYTHONUNBUFFERED=1 timeout `left 370` python3 bench/variants_flex.py --cases /tmp/f.tsv --out $W/flex-2.jsonl > $W/flex-2.txt 2>&1
echo "flex 2 rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binS
timeout `left 450` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "S check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 475` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "S check docmask sm80 --small rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 575` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "S sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt
for f in flex-1 A-1 S-1 A-2 S-2 A-3 S-3 flex-2; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-70; done
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
