#!/bin/sh
# Call 1 (twenty-second session): relbias's term on diagonals (D: the working tree's
# relbias_cuda.cu, generated with the wisdom re-hashed by bench/ab-gen.sh, so with A's
# configurations) against the committed source (A: .carry/genA, swapped in and rebuilt);
# causal and relbias at 8k and 32k, alternating three times; gpu_check relbias in full on
# the sm_90a family, --small on the sm_80 family; sanitizers on relbias --small (D).
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binD && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binD/
o=`find $B -name 'relbias_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/rbD.sass 2>&1
cp .carry/genA/relbias_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench > $W/build-A.log 2>&1; echo "A build rc $?" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
C=causal-pf-8k,relbias-pf-8k,causal-pf-32k,relbias-pf-32k
for r in 1 2 3; do for V in A D; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases bench/variants.tsv --only $C --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binD
timeout `left 420` ./gpu_check --plans relbias > $W/check-sm90.txt 2>&1; echo "check sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 450` ./gpu_check --small --plans relbias > $W/check-sm80.txt 2>&1; echo "check sm80 rc $?: `grep -E 'passed, .* failed' $W/check-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans relbias > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA") n[f " " w]++ } }
     END { for (k in n) print "rb sass D: " k " " n[k] }' /tmp/rbD.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
for r in 1 2 3; do for V in A D; do echo "== $V run $r"; cut -c1-90 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
