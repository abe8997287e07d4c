#!/bin/sh
# Call 4 (twenty-third session): the committed tree (generated/ regenerated, wisdom carried):
# build; gpu_check --small on every plan, docmask in full on both families; docmask and
# causal (8k, 32k) and causal-pf-2k twice, Flex on docmask; the SASS of docmask's kernels.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
o=`find $B -name 'docmask_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/dm.sass 2>&1
echo "build done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-2k' bench/cases.tsv) > /tmp/c.tsv
for r in 1 2; do
  timeout `left 300` $B/bench/fusegen-bench --cases /tmp/c.tsv --out $W/T-$r.jsonl 2> $W/T-$r.txt
done
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-' bench/variants.tsv) > /tmp/dm.tsv
PYTHONUNBUFFERED=1 timeout `left 340` python3 bench/variants_flex.py --cases /tmp/dm.tsv --out $W/flex.jsonl > $W/flex.txt 2>&1
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd $B
timeout `left 440` ./tests/gpu_check --small > $W/check-small.txt 2>&1; echo "check --small rc $?: `grep -E 'passed, .* failed' $W/check-small.txt`" >> $W/checks.txt
timeout `left 500` ./tests/gpu_check --plans docmask > $W/check-dm90.txt 2>&1; echo "check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-dm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 540` ./tests/gpu_check --plans docmask > $W/check-dm80.txt 2>&1; echo "check docmask sm80 rc $?: `grep -E 'passed, .* failed' $W/check-dm80.txt`" >> $W/checks.txt
cd - > /dev/null
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA") n[f " " w]++ } }
     END { for (k in n) print "dm sass: " k " " n[k] }' /tmp/dm.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
for r in 1 2; do echo "== run $r"; cut -c1-60 $W/T-$r.txt | grep -E "pf-"; done
grep -i docmask $W/flex.txt | tail -3
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
