#!/bin/sh
# Call 2 (twenty-third session): docmask's masked tiles with their span atoms known (K: the
# working tree's docmask_cuda.cu and causal_cuda.cu in .carry/genK, bench/ab-gen.sh) beside
# the narrowing alone (N: .carry/genN, call 1's) and the committed sources (A); docmask and
# causal alternating three times; gpu_check docmask in full (sm_90a) and --small (sm_80
# family), gpu_check --small on causal, relbias, siggate, window (K's library); memcheck,
# racecheck and synccheck on docmask --small (K); the SASS of K's docmask kernels.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in N K; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
o=`find $B -name 'docmask_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/dmK.sass 2>&1
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-2k' bench/cases.tsv) > /tmp/c.tsv
for r in 1 2 3; do for V in A N K; do
  timeout `left 360` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binK
timeout `left 430` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 450` ./gpu_check --small --plans docmask > $W/check-sm80.txt 2>&1; echo "check docmask sm80 rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
timeout `left 490` ./gpu_check --small --plans causal,relbias,siggate,window > $W/check-other.txt 2>&1; echo "check others --small rc $?: `grep -E 'passed, .* failed' $W/check-other.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 580` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA") n[f " " w]++ } }
     END { for (k in n) print "dm sass K: " k " " n[k] }' /tmp/dmK.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
for r in 1 2 3; do for V in A N K; do echo "== $V run $r"; cut -c1-60 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
