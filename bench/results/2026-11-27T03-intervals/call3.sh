#!/bin/sh
# Call 3 (H200): the final library (per-row key intervals, wisdom carried):
# build + SASS; gpu_check --small and prefixlm, window, sinkwindow, causal in
# full; compute-sanitizer on prefixlm, window, sinkwindow (--small); the 25
# cases twice, the peers in the same call, compare.py.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=200 STEPS="build sass smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
cuobjdump -sass /tmp/fg-build/libfusegen_cuda.a > /tmp/sass.txt 2>&1
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "other"; fn = $NF }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "UTMALDG" || w == "LDL" || w == "STL" || w == "HMMA") { n[f " " w]++; if (f == "sm90" && (w == "LDL" || w == "STL")) m[fn " " w]++ } } }
     END { for (k in n) print "sass: " k " " n[k]; for (k in m) print "sass-sm90-spill: " k " " m[k] }' /tmp/sass.txt | sort > $OUT/sass.txt
cd /tmp/fg-build
timeout `left 300` ./tests/gpu_check --small > $OUT/check-small.txt 2>&1; echo "check --small rc $?: `grep -E 'passed, .* failed' $OUT/check-small.txt`" >> $OUT/checks.txt
timeout `left 330` ./tests/gpu_check --plans prefixlm,window,sinkwindow,causal > $OUT/check-full.txt 2>&1; echo "check full (prefixlm,window,sinkwindow,causal) rc $?: `grep -E 'passed, .* failed' $OUT/check-full.txt`" >> $OUT/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 400` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans prefixlm,window,sinkwindow > $OUT/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $?: `tail -2 $OUT/san-$tool.txt | tr '\n' ' '`" >> $OUT/checks.txt
done
echo "checks done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
cd - > /dev/null
B=/tmp/fg-build/bench/fusegen-bench
for i in 1 2; do
  timeout `left 450` $B --cases bench/cases.tsv --out $OUT/t$i.jsonl 2>> $OUT/bench.txt
done
cp $OUT/t1.jsonl $OUT/fusegen.jsonl
OUT=$OUT RUN_LIMIT=`left 585` STEPS="peers compare" sh bench/run-gpu.sh >> $OUT/run.log 2>&1
cat $OUT/summary-build.txt $OUT/checks.txt $OUT/sass.txt $OUT/summary.txt
cd $OUT && tar czf call3.tgz *.jsonl *.txt *.log 2>/dev/null; ls
