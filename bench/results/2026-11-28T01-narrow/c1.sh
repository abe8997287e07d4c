#!/bin/sh
# Call 1 (twenty-third session): docmask's key-range scan issued for latency (N: the working
# tree's docmask_cuda.cu and causal_cuda.cu, generated with the wisdom re-hashed by
# bench/ab-gen.sh into .carry/genN) against the committed sources (A, built first);
# docmask and causal alternating three times, Flex on docmask once; gpu_check docmask in
# full (sm_90a) and --small (sm_80 family), memcheck and racecheck on docmask --small (N);
# ncu with source counters on one launch of N's docmask-pf-8k.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genN/docmask_cuda.cu .carry/genN/causal_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-N.log 2>&1; echo "N build rc $?" >> $W/checks.txt
mkdir -p /tmp/binN && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binN/
o=`find $B -name 'docmask_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/dmN.sass 2>&1
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-2k' bench/cases.tsv) > /tmp/c.tsv
for r in 1 2 3; do for V in A N; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-' bench/variants.tsv) > /tmp/dm.tsv
PYTHONUNBUFFERED=1 timeout `left 380` python3 bench/variants_flex.py --cases /tmp/dm.tsv --out $W/flex.jsonl > $W/flex.txt 2>&1
echo "flex done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binN
timeout `left 450` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "check sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 480` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "check sm80 rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck; do
  timeout `left 530` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
timeout `left 585` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
  -o /tmp/ncu-dm /tmp/binN/fusegen-bench --cases /tmp/c.tsv --only docmask-pf-8k --reps 20 > $W/ncu.log 2>&1 &&
{ ncu -i /tmp/ncu-dm.ncu-rep --print-details all > $W/ncu-dm.txt 2>&1
  ncu -i /tmp/ncu-dm.ncu-rep --page source --csv --print-source sass > $W/src-dm.csv 2>&1; }
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA") n[f " " w]++ } }
     END { for (k in n) print "dm sass N: " k " " n[k] }' /tmp/dmN.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
grep -E "Duration|inst_executed.sum|issue_active" $W/ncu-dm.txt | head
for r in 1 2 3; do for V in A N; do echo "== $V run $r"; cut -c1-90 $W/$V-$r.txt | grep -E "pf-"; done; done
grep -i -E "docmask" $W/flex.txt | tail -4
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
