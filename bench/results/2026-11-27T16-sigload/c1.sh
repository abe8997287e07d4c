#!/bin/sh
# Call 1 (twenty-first session): siggate's per-key loads without branches.  A = committed; B = the
# extra inputs' loads (plan_aux_float) without a branch (dtype through opaque words and masks: two
# 16-bit loads a value); C = B plus the sm_90a kernel's shuffle form (each lane loads BN/32 keys'
# values, the softmax takes a key's by shfl.idx).  Only siggate_cuda.cu differs between the trees:
# one build, the variant's source swapped in and the bench and check binaries rebuilt.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
OUT=$OUT RUN_LIMIT=240 STEPS="build" sh bench/run-gpu.sh > $OUT/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
for V in B C; do
  cp .carry/gen$V/siggate_cuda.cu generated/siggate_cuda.cu
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $OUT/build-$V.log 2>&1; echo "$V build rc $?" >> $OUT/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
  o=`find $B -name 'siggate_cuda*.o' | head -1`
  cuobjdump -sass "$o" > /tmp/sg$V.sass 2>&1
done
o=`find /tmp/fg-build -name 'siggate_cuda*.o' | head -1`
echo "builds done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
for r in 1 2; do for V in A B C; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases bench/variants.tsv \
    --only sigmoid-pf-8k,siggate-pf-8k,sigmoid-pf-32k,siggate-pf-32k --out $OUT/$V-$r.jsonl 2> $OUT/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
for V in B C; do
  timeout `left 420` /tmp/bin$V/gpu_check --plans siggate > $OUT/check-$V.txt 2>&1; echo "check $V rc $?: `grep -E 'passed, .* failed' $OUT/check-$V.txt`" >> $OUT/checks.txt
done
for V in A C; do
  timeout `left 470` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
    -o /tmp/ncu$V /tmp/bin$V/fusegen-bench --cases bench/variants.tsv --only siggate-pf-8k --reps 20 > $OUT/ncu-$V.log 2>&1
  ncu -i /tmp/ncu$V.ncu-rep --print-details all > $OUT/ncu-$V.txt 2>&1
  ncu -i /tmp/ncu$V.ncu-rep --page source --csv --print-source sass > $OUT/src-$V.csv 2>&1 || \
    ncu -i /tmp/ncu$V.ncu-rep --page source --csv > $OUT/src-$V.csv 2>&1
done
echo "ncu done at $(( `date +%s` - T0 )) s" >> $OUT/checks.txt
for V in B C; do
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA" || w == "SHFL") n[f " " w]++ } }
     END { for (k in n) print "siggate sass '$V': " k " " n[k] }' /tmp/sg$V.sass | sort >> $OUT/sass.txt
done
cp /tmp/sgC.sass $OUT/ 2>/dev/null
grep -E "rc|passed|done at" $OUT/checks.txt; cat $OUT/sass.txt
for r in 1 2; do for V in A B C; do echo "== $V run $r"; cut -c1-100 $OUT/$V-$r.txt | grep -E "pf-"; done; done
grep -E "Duration|Issue Slots Busy|inst_executed.sum|issue_active|gmma|No Eligible|Warp Cycles Per Issued" $OUT/ncu-*.txt | head -30
cd $OUT && tar czf call1.tgz *.jsonl *.txt *.log *.csv 2>/dev/null; ls
