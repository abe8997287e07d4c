#!/bin/sh
# Call 1 (twenty-fourth session): docmask on a 64-row CTA of one consumer warpgroup,
# 64-key tiles and two stages (fh_cfg<128, 64, 64, 2, false>: 83 KB of shared memory,
# 128 registers at launch, two CTAs a SM) against the committed sources (A: H128, 128 rows,
# 128-key tiles, three stages, one CTA a SM).  S: .carry/genS (bench/ab-gen.sh, docmask's
# H128 alias edited to the 64-row shape).  docmask and causal alternating three times;
# gpu_check docmask in full (S's library) and --small on causal, relbias, siggate, window;
# memcheck, racecheck and synccheck on docmask --small (S); ncu's occupancy of one S
# launch; the SASS of S's docmask kernels.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in S; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
o=`find $B -name 'docmask_cuda*.o' | head -1`; cuobjdump -sass "$o" > /tmp/dmS.sass 2>&1
cuobjdump -res-usage "$o" 2>&1 | grep -A1 fh_attn | head -20 > $W/res.txt
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-2k' bench/cases.tsv) > /tmp/c.tsv
for r in 1 2 3; do for V in A S; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binS
timeout `left 400` ./gpu_check --plans docmask > $W/check-sm90.txt 2>&1; echo "check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-sm90.txt`" >> $W/checks.txt
timeout `left 440` ./gpu_check --small --plans causal,relbias,siggate,window > $W/check-other.txt 2>&1; echo "check others --small rc $?: `grep -E 'passed, .* failed' $W/check-other.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 520` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$tool.txt 2>&1
  echo "sanitizer $tool rc $? `tail -1 $W/san-$tool.txt`" >> $W/checks.txt
done
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-8k' bench/variants.tsv) > /tmp/d.tsv
timeout `left 570` ncu --kernel-name regex:fh_attn --launch-count 1 --section Occupancy --section LaunchStats --section SpeedOfLight ./fusegen-bench --cases /tmp/d.tsv --out /tmp/ncu.jsonl > $W/ncu.txt 2>&1
echo "ncu rc $?" >> $W/checks.txt
cd - > /dev/null
awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "sm80" }
     { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "HGMMA" || w == "LDL" || w == "STL" || w == "LDG" || w == "BRA") n[f " " w]++ } }
     END { for (k in n) print "dm sass S: " k " " n[k] }' /tmp/dmS.sass | sort >> $W/sass.txt
grep -E "rc|passed|done at" $W/checks.txt; cat $W/sass.txt $W/res.txt
grep -E "Occupancy|Block Limit|Registers|Shared Memory Config|Duration|Waves" $W/ncu.txt | head -20
for r in 1 2 3; do for V in A S; do echo "== $V run $r"; cut -c1-60 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
