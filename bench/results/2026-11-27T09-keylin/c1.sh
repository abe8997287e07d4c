#!/bin/sh
# Call 1 (nineteenth session): B = keylin (ALiBi's term from one value a tile, shared by a thread's rows)
# against the committed kernels A, alternating; the window probe and ncu on A; B's checks; the H200 retune with B's tree.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
VARIANTS=B RUNS=2 PEERS=1 PEERS_FLEX_ONLY=alibi-pf-8k,alibi-pf-32k CHECK_PLANS=alibi,causal \
  BENCH_ONLY=alibi-pf-2k,alibi-pf-8k,alibi-pf-32k,causal-pf-8k,softcap-pf-8k,window-pf-8k,global-pf-8k \
  OUT=$OUT sh bench/ab-templates.sh > $OUT/ab.txt 2>&1
echo "ab done at $(( `date +%s` - T0 )) s" >> $OUT/ab.txt
A=/tmp/fg-build
for r in 1 2; do
  $A/bench/fusegen-bench --cases .carry/probe.tsv --out $OUT/probe-$r.jsonl 2> $OUT/probe-$r.txt
  FUSEGEN_WISDOM_DEVICE="(untuned)" $A/bench/fusegen-bench --cases .carry/probe.tsv --out $OUT/probe-u$r.jsonl 2> $OUT/probe-u$r.txt
done
: > $OUT/ncu.txt
for c in window-pf-8k softcap-g4-8k window-w8k-8k; do
  echo "== ncu: $c" >> $OUT/ncu.txt
  timeout 90 ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --metrics sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
    $A/bench/fusegen-bench --cases .carry/probe.tsv --only $c --reps 20 >> $OUT/ncu.txt 2>&1
done
echo "probe+ncu done at $(( `date +%s` - T0 )) s" >> $OUT/ab.txt
(cd /tmp/srcB/b && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 ./tests/gpu_check --small --plans alibi > $OUT/san-memcheck.txt 2>&1; echo "memcheck rc $? `tail -1 $OUT/san-memcheck.txt`") >> $OUT/ab.txt
B=/tmp/srcB/b
L=`left 590`
if test $L -gt 60; then
  timeout $L $B/fusegen-tune --srcdir=/tmp/srcB --budget=$(( L - 20 )) --wisdom=$OUT/h200-new.wisdom > $OUT/tune.log 2>&1
  echo "tune rc $? at $(( `date +%s` - T0 )) s" >> $OUT/tune.log
fi
tail -2 $OUT/tune.log
grep -E "rc|passed|done at" $OUT/ab.txt | head -20; sed -n '/== TFLOP/,$p' $OUT/ab.txt | grep -v ' -  *- ' 
echo "== probe (tuned r1, r2 | untuned r1, r2)"
for c in `awk '!/^#/ {print $1}' .carry/probe.tsv`; do
  printf "%-16s" $c; for f in probe-1 probe-2 probe-u1 probe-u2; do printf " %7s" `awk -v c=$c '$1 == c {print $4}' $OUT/$f.txt`; done; echo
done
grep -E '^== ncu|Duration|sm__cycles_active|issue_active|gmma|pipe_xu|Eligible|Active Warps|No Eligible|Waves|Registers|inst_executed.sum' $OUT/ncu.txt
cat $OUT/ab/compare-B.txt 2>/dev/null | grep -E 'alibi' | head
cd $OUT && tar czf call1.tgz ab.txt ab.tgz probe-*.txt probe-*.jsonl ncu.txt san-*.txt tune.log 2>/dev/null; ls
