#!/bin/sh
# Call 1 (thirty-seventh session): LINA, ALiBi's term from the accumulators.
# A = 4245858's generated/ (.carry/genA), B = the working tree, built side by
# side.  B: gpu_check in full on alibi; A and B alternately on alibi at 2k,
# 8k, 32k (2 s a case, twice); then steady.py (B beside Flex, 3 s each) on
# alibi at 8k and 32k; then window's nine tuned configurations forced by name
# (gpu-configs.sh had no time for them in the last session's call 5).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
[ -x /tmp/srcA/b/bench/fusegen-bench ] || { echo "A build failed"; tail -30 /tmp/srcA/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 100 ./tests/gpu_check --plans alibi) > $W/fullB.txt 2>&1; echo "B alibi in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/fullB.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/cases.tsv; grep -E '^(alibi|causal)-pf-(2k|8k|32k)' bench/cases.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 60 ] || break 2
  timeout `left 575` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -6
done; done
if [ `left 560` -gt 100 ]; then
  PYTHONUNBUFFERED=1 timeout `left 560` python3 bench/steady.py --bench $B/bench/fusegen-bench \
    --peers-py .carry/peers.py --cases bench/cases.tsv --seconds 3 --only alibi-pf-8k,alibi-pf-32k \
    --out $W/steady.jsonl > $W/steady.txt 2>&1
  echo "== steady at $(( `date +%s` - T0 )) s"; tail -6 $W/steady.txt | cut -c1-110
else echo "no time for steady"; fi
if [ `left 585` -gt 45 ]; then
  names=`sed -n '/plan_variants\[\] = {/,/{nullptr, 0}/s/^  {"\([A-Za-z0-9_]*\)", [0-9]*},$/\1/p' generated/window_cuda.cu`
  for n in $names; do
    [ `left 585` -gt 6 ] || break
    (cd $B && timeout `left 590` ./tests/gpu_check --small --plans window --config $n) > $W/cfg-$n.txt 2>&1
    echo "window $n rc $?: `grep -E '^(FAIL|[0-9]+ launches took|[0-9]+ passed)' $W/cfg-$n.txt | tr '\n' ' '`"
  done
fi
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
