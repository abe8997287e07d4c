#!/bin/sh
# Call 1 (thirty-eighth session): MI, a masked tile's mask in S's accumulators
# before the product (bench/results/2026-11-30T-lina/variant-mi.diff, applied
# to 33095d6; its sources by bench/ab-gen.sh .carry/genB, the wisdom
# re-hashed, so that B takes A's configurations).  A = the committed
# generated/, B = MI, built side by side.  B: SASS counts of its changed
# kernels, gpu_check --small, in full on the plans MI changes; A and B
# alternately, 2 s a case, twice; Flex on docmask in the same call; ncu with
# source counters on one launch of B's docmask-pf-8k.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; B=/tmp/srcB/b; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcB && cp -a . /tmp/srcB && cp .carry/genB/*.cu /tmp/srcB/generated/ && touch /tmp/srcB/generated/stamp
( cd /tmp/srcB && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "B build rc $?" ) > $W/build-B.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-B.txt
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; }
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $B/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
for pl in docmask causal gqa maxlogit diffattn; do
  o=`find $B -name "${pl}_cuda*.o" | head -1`
  cuobjdump -sass "$o" 2>/dev/null | awk -v pl=$pl '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) }
    f { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w); if (w == "HGMMA" || w == "LDL" || w == "STL") n[w]++ } }
    END { printf "B sass %s sm90:", pl; for (k in n) printf " %s %d", k, n[k]; print "" }'
done | tee $W/sass-B.txt
(cd $B && timeout `left 200` ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
(cd $B && timeout `left 300` ./tests/gpu_check --plans docmask,causal,gqa,maxlogit,diffattn) > $W/fullB.txt 2>&1
echo "B full docmask,causal,gqa,maxlogit,diffattn rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
grep -E 'FAIL|mismatch' $W/smallB.txt $W/fullB.txt | head -5
echo "checked at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/cases.tsv; grep -E '^(causal|gqa)-pf-(2k|8k|32k)' bench/cases.tsv;
  grep -E '^(docmask|maxlogit|diffattn)-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=$A/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 480` -gt 40 ] || break 2
  timeout `left 500` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | grep -- '-pf-'
done; done
grep -E '^(# id|docmask-pf)' bench/variants.tsv > $W/dm.tsv
PYTHONUNBUFFERED=1 timeout `left 530` python3 bench/variants_flex.py --cases $W/dm.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; tail -4 $W/flex.txt
if [ `left 585` -gt 30 ]; then
  grep -E '^# id' bench/variants.tsv > /tmp/c.tsv; grep -E '^docmask-pf-8k' bench/variants.tsv >> /tmp/c.tsv
  timeout `left 585` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    -o /tmp/ncu-dm $B/bench/fusegen-bench --cases /tmp/c.tsv --only docmask-pf-8k --reps 20 > $W/ncu.log 2>&1 &&
  { ncu -i /tmp/ncu-dm.ncu-rep --print-details all > $W/ncu-dm.txt 2>&1
    ncu -i /tmp/ncu-dm.ncu-rep --page source --csv --print-source sass > $W/src-dm.csv 2>&1; }
  echo "ncu rc $?"; grep -E "Duration|inst_executed.sum|issue_active" $W/ncu-dm.txt | head -5
fi
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call1.tgz --exclude='build*.log' . && ls -la $OUT
