#!/bin/sh
# Call 1 (written in the thirty-ninth session, not run: no device time was
# left): KR, KI and RB together against A, the committed generated/ (CLS).
#   KI: docmask's KNOWN tiles tested with an interval of keys per row
#       (plan_row_keys_known) in place of plan_visible_known's 64-bit atom
#       per element (bench/results/2026-12-02T-mi/variant-ki.diff);
#   RB: each row block's key range made by fh_span_rng_kernel before the
#       attention kernel, read by each CTA in place of its scan
#       (bench/results/2026-12-02T-ki/variant-rb.diff).
# Sources, on the build machine, from a clean tree:
#   git apply bench/results/2026-12-02T-ki/variant-rb.diff
#   git apply bench/results/2026-12-02T-mi/variant-ki.diff
#   make fusegen; sh bench/ab-gen.sh .carry/genKR ./fusegen; git checkout generator templates tests
# (the wisdom re-hashed in a temporary copy), then the run tool with
# carry [".carry"].  A and KR built side by side.  The SASS of causal's and
# gqa's kernels in both (neither change touches plans without span atoms but
# fh_args's layout); KR: gpu_check --small on docmask, docmask in full with
# the summary (RB's path) and without it (FUSEGEN_SPAN_SUMMARY=off: the
# scan); A and KR alternately on docmask 8k and 32k, 2 s a case, twice; Flex
# on docmask in the same call; compute-sanitizer memcheck, racecheck and
# synccheck on KR's docmask --small.  If KR gains, a second call splits it
# (K alone, R alone) with the same script and genK, genR.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; K=/tmp/srcK/b; G=${G:-.carry/genKR}; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcK && cp -a . /tmp/srcK && cp $G/*.cu /tmp/srcK/generated/ && touch /tmp/srcK/generated/stamp
( cd /tmp/srcK && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "K build rc $?" ) > $W/build-K.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-K.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $K/tests/gpu_check ] || { echo "K build failed"; tail -30 $K/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for V in A K; do
  if [ $V = A ]; then d=$A; else d=$K; fi
  for pl in causal gqa docmask; do
    o=`find $d -name "${pl}_cuda*.o" | head -1`
    cuobjdump -sass "$o" 2>/dev/null | grep -v '^\s*$' > $W/sass-$V-$pl.txt
    awk -v v=$V -v pl=$pl '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) }
      f { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w); if (w == "HGMMA" || w == "LDL" || w == "STL") n[w]++ } }
      END { printf "%s sass %s sm90:", v, pl; for (k in n) printf " %s %d", k, n[k]; print "" }' $W/sass-$V-$pl.txt
  done
done | tee $W/sass.txt
for pl in causal gqa docmask; do cmp -s $W/sass-A-$pl.txt $W/sass-K-$pl.txt && echo "SASS of $pl: A and K identical" || echo "SASS of $pl: A and K differ"; done
(cd $K && timeout `left 150` ./tests/gpu_check --small --plans docmask) > $W/smallK.txt 2>&1; echo "K docmask --small rc $?: `grep -E 'passed, .* failed' $W/smallK.txt`"
(cd $K && timeout `left 230` ./tests/gpu_check --plans docmask) > $W/fullK.txt 2>&1; echo "K docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullK.txt`"
(cd $K && FUSEGEN_SPAN_SUMMARY=off timeout `left 290` ./tests/gpu_check --plans docmask) > $W/nosumK.txt 2>&1; echo "K docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumK.txt`"
grep -E 'FAIL|mismatch' $W/smallK.txt $W/fullK.txt $W/nosumK.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A K; do
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$K/bench/fusegen-bench; fi
  [ `left 420` -gt 15 ] || break 2
  timeout `left 430` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | grep -- '-pf-'
done; done
PYTHONUNBUFFERED=1 timeout `left 470` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; tail -2 $W/flex.txt
for tool in memcheck racecheck synccheck; do
  [ `left 585` -gt 25 ] || break
  (cd $K && timeout `left 585` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' --exclude='sass-*' . && ls $OUT
