#!/bin/sh
# Call 2 (twenty-first session): the working tree (N: branch-free extra-input loads in gpu/hooks.m4,
# siggate's sm_90a shuffle form; generated with the wisdom re-hashed, bench/ab-gen.sh) against the
# committed sources (A: .carry/genA, swapped in for siggate, relbias, docmask, sigmoid, causal and
# rebuilt).  gpu_check in full of N on siggate, relbias, docmask on both families; sanitizers on
# siggate and relbias --small; the cases beside each other twice.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binN && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binN/
o=`find $B -name 'siggate_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/sgN.sass 2>&1
o=`find $B -name 'relbias_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/rbN.sass 2>&1
cp .carry/genA/*_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-A.log 2>&1; echo "A build rc $?" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
C=causal-pf-8k,relbias-pf-8k,docmask-pf-8k,sigmoid-pf-8k,siggate-pf-8k,causal-pf-32k,relbias-pf-32k,docmask-pf-32k,sigmoid-pf-32k,siggate-pf-32k
for r in 1 2; do for V in A N; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases bench/variants.tsv --only $C --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binN
timeout `left 420` ./gpu_check --plans siggate,relbias,docmask > $W/check-sm90.txt 2>&1; echo "check sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 480` ./gpu_check --plans siggate,relbias,docmask > $W/check-sm80.txt 2>&1; echo "check sm80 rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 555` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans siggate,relbias > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
for s in sg rb; do
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA" || w == "SHFL") n[f " " w]++ } }
     END { for (k in n) print "'$s' sass N: " k " " n[k] }' /tmp/${s}N.sass | sort >> $W/sass.txt
done
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
for r in 1 2; do for V in A N; do echo "== $V run $r"; cut -c1-90 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
