#!/bin/sh
# Call 2 (thirty-eighth session): CLS, docmask's tile classes made once per
# CTA from the launch's span summary, per consumer warp (templates/cuda/sm90/
# rolling.cuh; the sources by bench/ab-gen.sh .carry/genC, the wisdom
# re-hashed).  A = the committed generated/ (33095d6's kernels), C = CLS,
# built side by side.  The SASS of causal's kernels in both (CLS should leave
# plans without span atoms as they were); C: gpu_check --small, docmask in
# full with the summary and without it (FUSEGEN_SPAN_SUMMARY=off: the REST
# path); A and C alternately on docmask 8k and 32k, 2 s a case, twice; Flex on
# docmask in the same call; compute-sanitizer memcheck, racecheck and
# synccheck on C's docmask --small.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; C=/tmp/srcC/b; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcC && cp -a . /tmp/srcC && cp .carry/genC/*.cu /tmp/srcC/generated/ && touch /tmp/srcC/generated/stamp
( cd /tmp/srcC && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "C build rc $?" ) > $W/build-C.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-C.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $C/tests/gpu_check ] || { echo "C build failed"; tail -30 $C/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for V in A C; do
  if [ $V = A ]; then d=$A; else d=$C; fi
  for pl in causal gqa docmask; do
    o=`find $d -name "${pl}_cuda*.o" | head -1`
    cuobjdump -sass "$o" 2>/dev/null | grep -v '^\s*$' > $W/sass-$V-$pl.txt
    awk -v v=$V -v pl=$pl '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) }
      f { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w); if (w == "HGMMA" || w == "LDL" || w == "STL") n[w]++ } }
      END { printf "%s sass %s sm90:", v, pl; for (k in n) printf " %s %d", k, n[k]; print "" }' $W/sass-$V-$pl.txt
  done
done | tee $W/sass.txt
for pl in causal gqa docmask; do cmp -s $W/sass-A-$pl.txt $W/sass-C-$pl.txt && echo "SASS of $pl: A and C identical" || echo "SASS of $pl: A and C differ"; done
(cd $C && timeout `left 200` ./tests/gpu_check --small) > $W/smallC.txt 2>&1; echo "C --small rc $?: `grep -E 'passed, .* failed' $W/smallC.txt`"
(cd $C && timeout `left 260` ./tests/gpu_check --plans docmask) > $W/fullC.txt 2>&1; echo "C docmask in full rc $?: `grep -E 'passed, .* failed' $W/fullC.txt`"
(cd $C && FUSEGEN_SPAN_SUMMARY=off timeout `left 310` ./tests/gpu_check --plans docmask) > $W/nosumC.txt 2>&1; echo "C docmask in full, no summary rc $?: `grep -E 'passed, .* failed' $W/nosumC.txt`"
grep -E 'FAIL|mismatch' $W/smallC.txt $W/fullC.txt $W/nosumC.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A C; do
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$C/bench/fusegen-bench; fi
  [ `left 420` -gt 15 ] || break 2
  timeout `left 430` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | grep -- '-pf-'
done; done
PYTHONUNBUFFERED=1 timeout `left 470` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; tail -2 $W/flex.txt
for tool in memcheck racecheck synccheck; do
  [ `left 585` -gt 25 ] || break
  (cd $C && timeout `left 585` compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans docmask) > $W/san-$tool.txt 2>&1
  echo "compute-sanitizer $tool (docmask) rc $?: `grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
done
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' --exclude='sass-*' . && ls $OUT
