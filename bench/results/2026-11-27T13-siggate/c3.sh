#!/bin/sh
# Call 3 (twentieth session, H200): the per-key gate loaded once a key and tile (plan_key_values, sm_90a): build + SASS +
# smoke; gpu_check siggate and sigmoid in full on both families; compute-sanitizer on siggate --small;
# siggate beside sigmoid (bench/variants.tsv) three times; LDL/STL of siggate's kernels.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=240 STEPS="build sass smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
B=/tmp/fg-build
for i in 1 2 3; do
  timeout `left 330` $B/bench/fusegen-bench --cases bench/variants.tsv \
    --only sigmoid-pf-8k,siggate-pf-8k,sigmoid-pf-32k,siggate-pf-32k,causal-pf-8k --out $OUT/v$i.jsonl 2> $OUT/v$i.txt
done
cd $B
timeout `left 420` ./tests/gpu_check --plans siggate,sigmoid > $OUT/check-sm90.txt 2>&1; echo "check sm90 rc $?: `grep -E 'passed, .* failed' $OUT/check-sm90.txt`" >> $OUT/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 480` ./tests/gpu_check --plans siggate,sigmoid > $OUT/check-sm80.txt 2>&1; echo "check sm80 rc $?: `grep -E 'passed, .* failed' $OUT/check-sm80.txt`" >> $OUT/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 560` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans siggate > $OUT/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $OUT/san-$tool.txt`" >> $OUT/checks.txt
done
o=`find $B -name 'siggate_cuda*.o' | head -1`
cuobjdump -sass "$o" > /tmp/sg.sass 2>&1
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "UTMALDG" || w == "LDL" || w == "STL" || w == "HMMA" || w == "LDG") n[f " " w]++ } }
     END { for (k in n) print "siggate sass: " k " " n[k] }' /tmp/sg.sass | sort > $OUT/sass-siggate.txt
cd - > /dev/null
cat $OUT/summary-build.txt $OUT/checks.txt $OUT/sass-siggate.txt
for i in 1 2 3; do echo "== pass $i"; cut -c1-100 $OUT/v$i.txt | grep -E "pf-"; done
cd $OUT && tar czf call3.tgz *.jsonl *.txt *.log 2>/dev/null; ls
