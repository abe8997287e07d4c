#!/bin/sh
# Call 1 (forty-first session): R2 against A, the committed generated/ (DR).
# B is the working tree at the call: fh_cfg's sixth argument MB (two blocks
# of 64 rows a CTA in turn, the second block's first S and softmax beside the
# first's last P V), docmask's H128D with MB 2; its CUDA sources from
# `sh bench/ab-gen.sh .carry/genB ./fusegen` (the wisdom re-hashed in a
# temporary copy), carried with the run tool's carry [".carry"].
# B: gpu_check docmask in full with the summary and without it, --small on
# every plan; A and B alternately on docmask 8k and 32k, 2 s a case, twice;
# Flex in the same call; compute-sanitizer on B's docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; K=/tmp/srcK/b; G=${G:-.carry/genB}; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcK && cp -a . /tmp/srcK && cp $G/*.cu /tmp/srcK/generated/ && touch /tmp/srcK/generated/stamp || { echo "B sources failed"; exit 1; }
( cd /tmp/srcK && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "B build rc $?" ) > $W/build-K.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-K.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $K/tests/gpu_check ] || { echo "B build failed"; tail -30 $K/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for V in A B; do
  if [ $V = A ]; then d=$A; else d=$K; fi
  for pl in causal docmask; do
    o=`find $d -name "${pl}_cuda*.o" | head -1`
    cuobjdump -sass "$o" 2>/dev/null | grep -v '^\s*$' > $W/sass-$V-$pl.txt
    awk -v v=$V -v pl=$pl '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) }
      f { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w); if (w == "HGMMA" || w == "LDL" || w == "STL") n[w]++ } }
      END { printf "%s sass %s sm90:", v, pl; for (k in n) printf " %s %d", k, n[k]; print "" }' $W/sass-$V-$pl.txt
  done
done | tee $W/sass.txt
cmp -s $W/sass-A-causal.txt $W/sass-B-causal.txt && echo "SASS of causal: A and B identical" || echo "SASS of causal: A and B differ"
(cd $K && timeout `left 200` ./tests/gpu_check --plans docmask) > $W/fullB.txt 2>&1; echo "B docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
(cd $K && FUSEGEN_SPAN_SUMMARY=off timeout `left 250` ./tests/gpu_check --plans docmask) > $W/nosumB.txt 2>&1; echo "B docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt $W/nosumB.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$K/bench/fusegen-bench; fi
  [ `left 380` -gt 15 ] || break 2
  timeout `left 390` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | grep -- '-pf-'
done; done
PYTHONUNBUFFERED=1 timeout `left 430` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; tail -2 $W/flex.txt
for tool in racecheck memcheck synccheck; do
  [ `left 540` -gt 25 ] || break
  (cd $K && timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
[ `left 585` -gt 30 ] && { (cd $K && timeout `left 585` ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small (every plan) rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"; }
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' --exclude='sass-*' . && ls $OUT
