#!/bin/sh
# Call 1 (written in the thirty-ninth session, not run: no device time was
# left): D against A, the committed generated/ (CLS).  D is
# bench/results/2026-12-02T-ki/variant-dr.diff, three changes together:
#   KI: docmask's KNOWN tiles tested with an interval of keys per row
#       (plan_row_keys_known) in place of plan_visible_known's 64-bit atom
#       per element (also bench/results/2026-12-02T-mi/variant-ki.diff);
#   RB: each row block's key range made by fh_span_rng_kernel before the
#       attention kernel, read by each CTA in place of its scan (also
#       variant-rb.diff);
#   DR: where the ids are sorted (the summary kernel checks), each row's keys
#       by binary searches in that kernel, and the consumers' tile classes and
#       masked steps from the rows' bounds (bench/NOTES.md, thirty-ninth
#       session); gpu_check draws unsorted ids in one docmask case of eight.
# Sources, on the build machine, from a clean tree at the diff's base:
#   git apply bench/results/2026-12-02T-ki/variant-dr.diff
#   make fusegen; sh bench/ab-gen.sh .carry/genD ./fusegen; git checkout .
# (the wisdom re-hashed in a temporary copy), then the run tool with carry
# [".carry"].  Here the diff is applied again to D's copy of the tree (its
# runtime, templates and tests), genD's sources over its generated/.
# The SASS of causal's and gqa's kernels in A and D (only fh_args's layout
# differs for them); D: gpu_check --small on docmask, docmask in full with
# the summary (DR on sorted ids, CLS on the unsorted) and without it
# (FUSEGEN_SPAN_SUMMARY=off: the scan); A and D alternately on docmask 8k and
# 32k, 2 s a case, twice; Flex on docmask in the same call; compute-sanitizer
# memcheck, racecheck and synccheck on D's docmask --small.  G and DIFF
# choose other sources (G=.carry/genKR DIFF=... for KI and RB alone).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; K=/tmp/srcK/b; G=${G:-.carry/genD}; DIFF=${DIFF:-bench/results/2026-12-02T-ki/variant-dr.diff}; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcK && cp -a . /tmp/srcK && (cd /tmp/srcK && patch -p1 -s < $DIFF) && cp $G/*.cu /tmp/srcK/generated/ && touch /tmp/srcK/generated/stamp || { echo "D sources failed"; exit 1; }
( cd /tmp/srcK && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "D build rc $?" ) > $W/build-K.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-K.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $K/tests/gpu_check ] || { echo "D build failed"; tail -30 $K/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for V in A D; do
  if [ $V = A ]; then d=$A; else d=$K; fi
  for pl in causal gqa docmask; do
    o=`find $d -name "${pl}_cuda*.o" | head -1`
    cuobjdump -sass "$o" 2>/dev/null | grep -v '^\s*$' > $W/sass-$V-$pl.txt
    awk -v v=$V -v pl=$pl '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) }
      f { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w); if (w == "HGMMA" || w == "LDL" || w == "STL") n[w]++ } }
      END { printf "%s sass %s sm90:", v, pl; for (k in n) printf " %s %d", k, n[k]; print "" }' $W/sass-$V-$pl.txt
  done
done | tee $W/sass.txt
for pl in causal gqa docmask; do cmp -s $W/sass-A-$pl.txt $W/sass-D-$pl.txt && echo "SASS of $pl: A and D identical" || echo "SASS of $pl: A and D differ"; done
(cd $K && timeout `left 150` ./tests/gpu_check --small --plans docmask) > $W/smallD.txt 2>&1; echo "D docmask --small rc $?: `grep -E 'passed, .* failed' $W/smallD.txt`"
(cd $K && timeout `left 230` ./tests/gpu_check --plans docmask) > $W/fullD.txt 2>&1; echo "D docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullD.txt`"
(cd $K && FUSEGEN_SPAN_SUMMARY=off timeout `left 290` ./tests/gpu_check --plans docmask) > $W/nosumD.txt 2>&1; echo "D docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumD.txt`"
grep -E 'FAIL|mismatch' $W/smallD.txt $W/fullD.txt $W/nosumD.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A D; do
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
