#!/bin/sh
# Call 2 (twenty-sixth session).  V again (.carry/genV), now with its shared copy of the key
# values only where the 227 KB leave room (fh_cfg::VALS: not D 96 on 128-key tiles, which
# call 1's V asked 238960 bytes for), against A (the committed kernels, aeba9f6).  Both
# builds must succeed, or the script stops.  docmask and causal at 8k and 32k, A and V
# alternating three times; gpu_check docmask in full on V, with the summary and without
# (tests/gpu-nosummary.sh); the sm_80 family --small; memcheck, racecheck, synccheck --small
# on V; Flex on docmask 8k and 32k (from the source root); ncu on one launch of
# docmask-pf-8k and -32k, A and V (speed of light, warp states, compute).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv) > /tmp/f.tsv
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; }
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
for V in V; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; rc=$?
  echo "$V build rc $rc" >> $W/checks.txt
  if [ $rc -ne 0 ]; then echo "$V build failed: stop"; tail -30 $W/build-$V.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; fi
  mkdir -p /tmp/bin$V/tests && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/ && cp $B/tests/gpu_check tests/gpu-nosummary.sh /tmp/bin$V/tests/
done
cmp -s /tmp/binA/fusegen-bench /tmp/binV/fusegen-bench && echo "A and V binaries identical: stop" && exit 1
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do for V in A V; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binV
timeout `left 330` ./gpu_check --plans docmask > $W/check-V.txt 2>&1; echo "V check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-V.txt`" >> $W/checks.txt
timeout `left 350` sh tests/gpu-nosummary.sh > $W/check-V-nosum.txt 2>&1; echo "V gpu-nosummary.sh rc $?: `grep -E 'passed, .* failed' $W/check-V-nosum.txt`" >> $W/checks.txt
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 370` ./gpu_check --small --plans docmask > $W/check-V-sm80.txt 2>&1; echo "V check docmask sm80 --small rc $?: `grep -E 'passed, .* failed' $W/check-V-sm80.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  timeout `left 440` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-V-$tool.txt 2>&1
  echo "V sanitizer $tool rc $? `tail -1 $W/san-V-$tool.txt`" >> $W/checks.txt
done
cd $SRC
PYTHONUNBUFFERED=1 timeout `left 510` python3 bench/variants_flex.py --cases /tmp/f.tsv --out $W/flex.jsonl > $W/flex.txt 2>&1
echo "flex rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for c in docmask-pf-8k docmask-pf-32k; do
  (grep '^#' bench/variants.tsv; grep -E "^$c	" bench/variants.tsv) > /tmp/n-$c.tsv
  for V in A V; do
    cd /tmp/bin$V; timeout `left 585` ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis ./fusegen-bench --cases /tmp/n-$c.tsv --out /tmp/n.jsonl > $W/ncu-$V-$c.txt 2>&1
    echo "ncu $V $c rc $? at $(( `date +%s` - T0 )) s: `grep -E '^ *Duration' $W/ncu-$V-$c.txt | sed 's/  */ /g'`" >> $W/checks.txt; cd $SRC
  done
done
grep -E "rc|passed|done at|build" $W/checks.txt
for f in A-1 V-1 A-2 V-2 A-3 V-3 flex; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-70; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
