#!/bin/sh
# Call 1 (H200): the per-row key intervals (B: the working tree's templates,
# the committed wisdom re-hashed so that B takes A's configurations) against
# the committed kernels (A), alternating; B's checks (--small, and prefixlm,
# window, causal in full); the SASS of B's sm_90a kernels; compute-sanitizer
# on prefixlm and window; then the retune of the H200 starts (resumable).
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
VARIANTS=B RUNS=2 PEERS=0 CHECK_PLANS=prefixlm,window,causal OUT=$OUT sh bench/ab-templates.sh > $OUT/ab.txt 2>&1
echo "ab done at $(( `date +%s` - T0 )) s" >> $OUT/ab.txt
for V in A B; do
  if test $V = A; then L=/tmp/fg-build/libfusegen_cuda.a; else L=/tmp/srcB/b/libfusegen_cuda.a; fi
  cuobjdump -sass "$L" > /tmp/sass-$V.txt 2>&1
  awk -v V=$V '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "other";
                 pl = $0; sub(/.*attn_/, "", pl); sub(/[0-9]+fh_attn.*|[0-9]+fa_attn.*|[0-9]+fa_split.*/, "", pl) }
       { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
           if (w == "HGMMA" || w == "UTMALDG" || w == "LDL" || w == "STL" || w == "HMMA") { n[V " " f " " w]++; if (w == "LDL" || w == "STL") m[V " " f " " pl " " w]++ } } }
       END { for (k in n) print "sass: " k " " n[k]; for (k in m) print "sass-by-plan: " k " " m[k] }' /tmp/sass-$V.txt | sort >> $OUT/sass.txt
done
(cd /tmp/srcB/b && for tool in memcheck racecheck synccheck; do
   timeout `left 380` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans prefixlm,window > $OUT/san-$tool.txt 2>&1
   echo "sanitizer $tool rc $? `tail -1 $OUT/san-$tool.txt`"; done) > $OUT/sanitize.txt 2>&1
echo "checks done at $(( `date +%s` - T0 )) s" >> $OUT/sanitize.txt
# the retune starts: B's tree is the working tree's (new templates)
B=/tmp/srcB/b
timeout `left 585` $B/fusegen-tune --srcdir=/tmp/srcB --budget=$(( `left 585` - 30 )) --wisdom=$OUT/nvidia-h200.wisdom > $OUT/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s" >> $OUT/tune.log
tail -3 $OUT/tune.log
cat $OUT/sanitize.txt $OUT/sass.txt
grep -E "rc|passed" $OUT/ab.txt | head; sed -n '/== TFLOP/,$p' $OUT/ab.txt
cd $OUT && tar czf call1.tgz ab.txt ab.tgz sass.txt san-*.txt sanitize.txt tune.log && ls
