#!/bin/sh
# Call 8 (twenty-fifth session): F, the first keys of a partly seen tile left out, so that the
# tile where a document starts takes the known masked step (.carry/genF2, bench/ab-gen.sh) against the committed
# sources (A, 1df3cb8).  docmask and causal at 8k and 32k alternating
# three times; gpu_check docmask in full on F (sm_90a) and --small on the sm_80 family;
# memcheck, racecheck, synccheck on F's docmask --small; then ncu (speed of light, memory,
# warp states, compute) on one launch each of F's docmask-pf-8k and docmask-pf-32k.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in F; do
  cp .carry/genF2/docmask_cuda.cu .carry/genF2/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do for V in A F; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binF
timeout `left 360` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "F check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 380` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "F check docmask sm80 --small rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 450` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "F sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
for c in docmask-pf-8k docmask-pf-32k; do
  (grep '^#' bench/variants.tsv; grep -E "^$c	" bench/variants.tsv) > /tmp/n-$c.tsv
  cd /tmp/binF; timeout `left 585` ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy ./fusegen-bench --cases /tmp/n-$c.tsv --out /tmp/n.jsonl > $W/ncu-$c.txt 2>&1
  echo "ncu $c rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
  cd - > /dev/null
done
grep -E "rc|passed|done at|Duration" $W/checks.txt
for f in A-1 F-1 A-2 F-2 A-3 F-3; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-60; done
for c in docmask-pf-8k docmask-pf-32k; do echo "== ncu $c"; grep -E "Throughput|Duration|Pipe|Stall|Warp Cycles|Eligible|Issued Warp|Achieved Occ|L2 Hit|Executed Ipc A" $W/ncu-$c.txt | sed 's/  */ /g' | head -30; done
cd $W && tar czf $OUT/call8.tgz . && ls $OUT
