#!/bin/sh
# Call 1 (thirty-second session): A (HEAD, the committed generated/) against
# B (the epilogue computes the head and batch anew: variant-epi.diff, its
# sources in .carry/genB by bench/ab-gen.sh).  Both built side by side;
# SASS LDL/STL of the sm_90a kernels of each; A's --small (the new
# add_kv_case, first run) and tests/gpu-headgroups.sh; B's --small; then
# A and B alternately, 2 s a case, on the cases HG moved and relbias.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcB && cp -a . /tmp/srcB && cp .carry/genB/*.cu /tmp/srcB/generated/ && touch /tmp/srcB/generated/stamp
( cd /tmp/srcB && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "B build rc $?" ) > $W/build-B.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build sass" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-B.txt
[ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
[ -x /tmp/srcB/b/tests/gpu_check ] || { echo "B build failed"; tail -30 /tmp/srcB/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"; grep sass $W/a/summary.txt; echo "A LDL/STL:"; cat $W/a/sass-sm90-ldl-stl.txt
cuobjdump -sass /tmp/srcB/b/libfusegen_cuda.a > /tmp/sassB.txt 2>&1
awk '/^member / { m = $2 } /Function :/ { f = m "|" $3 }
     f ~ /fh_attn_fwd_kernel/ { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
         if (w == "LDL" || w == "STL") n[f " " w]++ } }
     END { for (k in n) print n[k], k }' /tmp/sassB.txt | sort -k2 > $W/sass-B-ldl-stl.txt
echo "B LDL/STL (`wc -l < $W/sass-B-ldl-stl.txt` lines):"; cat $W/sass-B-ldl-stl.txt
for x in HGMMA UTMALDG; do echo "B $x `grep -c "\b$x\b" /tmp/sassB.txt`"; done
(cd $B && timeout 120 ./tests/gpu_check --small) > $W/smallA.txt 2>&1; echo "A --small rc $?: `grep -E 'passed, .* failed' $W/smallA.txt`"
grep -E '^FAIL' $W/smallA.txt | head
(cd /tmp/srcB/b && timeout 120 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
(cd $B && srcdir=$OLDPWD timeout `left 330` sh $OLDPWD/tests/gpu-headgroups.sh) > $W/headgroups.txt 2>&1
echo "gpu-headgroups.sh rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/headgroups.txt | tr '\n' ' '`"
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=$B/bench/fusegen-bench; else bb=/tmp/srcB/b/bench/fusegen-bench; fi
  [ `left 560` -gt 20 ] || break 2
  timeout `left 570` $bb --cases bench/cases.tsv --only causal-pf-8k,gqa-pf-8k,window-pf-8k,alibi-pf-32k --seconds 2 --out $W/$V-$r-c.jsonl > $W/$V-$r-c.txt 2>&1
  timeout `left 580` $bb --cases bench/variants.tsv --only relbias-pf-8k,relbias-pf-32k,docmask-pf-8k,docmask-pf-32k --seconds 2 --out $W/$V-$r-v.jsonl > $W/$V-$r-v.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; cat $W/$V-$r-c.txt $W/$V-$r-v.txt | grep -v '^#' | tail -8
done; done
cd $W && tar czf $OUT/call1.tgz . && ls -la $OUT
