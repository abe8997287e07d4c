#!/bin/sh
# Call 5 (twentieth session, H200): the per-key gate loaded BN/32 times a tile and lane, taken by shuffles
# (sm_90a): build + smoke; siggate beside sigmoid twice; gpu_check siggate in full; sanitizers on siggate --small.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=150 STEPS="build smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
B=/tmp/fg-build
for i in 1 2; do
  timeout `left 200` $B/bench/fusegen-bench --cases bench/variants.tsv \
    --only sigmoid-pf-8k,siggate-pf-8k,sigmoid-pf-32k,siggate-pf-32k,causal-pf-8k --out $OUT/v$i.jsonl 2> $OUT/v$i.txt
done
cd $B
timeout `left 240` ./tests/gpu_check --plans siggate > $OUT/check-sm90.txt 2>&1; echo "check sm90 rc $?: `grep -E 'passed, .* failed' $OUT/check-sm90.txt`" >> $OUT/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 280` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans siggate > $OUT/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $OUT/san-$tool.txt`" >> $OUT/checks.txt
done
cd - > /dev/null
cat $OUT/summary-build.txt $OUT/checks.txt
for i in 1 2; do echo "== pass $i"; cut -c1-100 $OUT/v$i.txt | grep -E "pf-"; done
cd $OUT && tar czf call5.tgz *.jsonl *.txt *.log 2>/dev/null; ls
