#!/bin/sh
# Call 1 (twentieth session): exponentials on the FMA pipe for plans whose score takes a MUFU op
# (softcap, window): B = every 4th (25 %), C = every 3rd, D = every 2nd, against A (committed), same
# configurations; gpu_check in full on softcap and window for each variant; ncu on window-pf-8k A and B.
: ${FG_COMMIT:?}
T0=`date +%s`
VARIANTS="B C D" RUNS=2 PEERS=0 CHECK_PLANS=softcap,window \
  BENCH_ONLY=softcap-pf-2k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k,causal-pf-8k \
  OUT=$OUT sh bench/ab-templates.sh > $OUT/ab.txt 2>&1
echo "ab done at $(( `date +%s` - T0 )) s" >> $OUT/ab.txt
: > $OUT/ncu.txt
for V in A B; do
  if test $V = A; then T=/tmp/fg-build; else T=/tmp/src$V/b; fi
  for c in window-pf-8k; do
  echo "== ncu: $V $c" >> $OUT/ncu.txt
  timeout 60 ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --metrics sm__cycles_active.avg,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active \
    $T/bench/fusegen-bench --cases .carry/probe.tsv --only $c --reps 20 >> $OUT/ncu.txt 2>&1
  done
done
echo "ncu done at $(( `date +%s` - T0 )) s" >> $OUT/ab.txt
grep -E "rc|passed|done at" $OUT/ab.txt | head -20; sed -n '/== TFLOP/,$p' $OUT/ab.txt | grep -v ' -  *- '
grep -E '^== ncu|Duration|sm__cycles_active|issue_active|gmma|pipe_xu|pipe_fma|Eligible|No Eligible|inst_executed.sum' $OUT/ncu.txt
cd $OUT && tar czf call1.tgz ab.txt ab.tgz ncu.txt 2>/dev/null; ls
