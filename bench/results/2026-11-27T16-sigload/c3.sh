#!/bin/sh
# Call 3 (twenty-first session): siggate's key values read one tile ahead (variant D,
# variant-D.diff: the lanes' loads for tile t + 1 and the shuffles for tile t both while S of
# tile t is on the tensor cores) against N (the working tree of call 2).  One build, D's
# siggate_cuda.cu swapped in and rebuilt; siggate and sigmoid alternating three times;
# gpu_check siggate in full and the sanitizers on siggate --small for D.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=240 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binN && cp $B/bench/fusegen-bench /tmp/binN/
cp .carry/genD/siggate_cuda.cu generated/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-D.log 2>&1; echo "D build rc $?" >> $W/checks.txt
mkdir -p /tmp/binD && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binD/
o=`find $B -name 'siggate_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/sgD.sass 2>&1
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
C=sigmoid-pf-8k,siggate-pf-8k,sigmoid-pf-32k,siggate-pf-32k
for r in 1 2 3; do for V in N D; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases bench/variants.tsv --only $C --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binD
timeout `left 420` ./gpu_check --plans siggate > $W/check-D.txt 2>&1; echo "check D rc $?: `grep -E 'passed, .* failed' $W/check-D.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans siggate > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
cd - > /dev/null
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA" || w == "SHFL") n[f " " w]++ } }
     END { for (k in n) print "siggate sass D: " k " " n[k] }' /tmp/sgD.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt
for r in 1 2 3; do for V in N D; do echo "== $V run $r"; cut -c1-70 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
