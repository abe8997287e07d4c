#!/bin/sh
# Call 1 (twenty-sixth session, 14:05Z; V and FV failed 12 cases: D 96's 128-key tiles
# asked for 238960 bytes of shared memory; the Flex step ran from the wrong folder).  A: the committed kernels with FUSEGEN_SPAN_SUMMARY (the
# launch without the ids' summary on demand); V: a masked docmask tile whose span atoms are
# not known compares values (the keys' from the warp's shared copy its classification wrote,
# the rows' two loads a thread) instead of loading two ids an element; FV: V plus F (the tile
# where the rows' document starts taken as known from its first seen key).  .carry/genV and
# .carry/genFV from bench/ab-gen.sh.  Every variant's build must succeed, or the script stops
# (call 8 of the last session timed old binaries after a failed build).  Then docmask and
# causal at 8k and 32k, A V FV alternating three times; gpu_check docmask in full on A (with
# the summary, and without: tests/gpu-nosummary.sh), V and FV; the sm_80 family --small on
# FV; memcheck, racecheck, synccheck --small on A without the summary, V and FV; Flex on
# docmask 8k and 32k last.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
(grep '^#' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv) > /tmp/f.tsv
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
echo "A build: `grep -c . $W/run.log` lines, `ls -la $B/bench/fusegen-bench $B/tests/gpu_check 2>&1 | wc -l` binaries" >> $W/checks.txt
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; }
mkdir -p /tmp/binA/tests && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/ && cp $B/tests/gpu_check tests/gpu-nosummary.sh /tmp/binA/tests/
for V in V FV; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; rc=$?
  echo "$V build rc $rc" >> $W/checks.txt
  if [ $rc -ne 0 ]; then echo "$V build failed: stop"; tail -30 $W/build-$V.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; fi
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
cmp -s /tmp/binA/fusegen-bench /tmp/binV/fusegen-bench && echo "A and V binaries identical: stop" && exit 1
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do for V in A V FV; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binA
timeout `left 380` ./gpu_check --plans docmask > $W/check-A.txt 2>&1; echo "A check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-A.txt`" >> $W/checks.txt
timeout `left 400` sh tests/gpu-nosummary.sh > $W/check-A-nosum.txt 2>&1; echo "A gpu-nosummary.sh rc $?: `grep -E 'passed, .* failed' $W/check-A-nosum.txt`" >> $W/checks.txt
for tool in memcheck racecheck synccheck; do
  FUSEGEN_SPAN_SUMMARY=off timeout `left 430` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-A-nosum-$tool.txt 2>&1
  echo "A nosummary sanitizer $tool rc $? `tail -1 $W/san-A-nosum-$tool.txt`" >> $W/checks.txt
done
for V in V FV; do
  cd /tmp/bin$V
  timeout `left 470` ./gpu_check --plans docmask > $W/check-$V.txt 2>&1; echo "$V check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-$V.txt`" >> $W/checks.txt
  for tool in memcheck racecheck synccheck; do
    timeout `left 520` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$V-$tool.txt 2>&1
    echo "$V sanitizer $tool rc $? `tail -1 $W/san-$V-$tool.txt`" >> $W/checks.txt
  done
done
FUSEGEN_CUDA_FAMILY=sm80 timeout `left 530` ./gpu_check --small --plans docmask > $W/check-FV-sm80.txt 2>&1; echo "FV check docmask sm80 --small rc $?: `grep -E 'passed, .* failed' $W/check-FV-sm80.txt`" >> $W/checks.txt
cd - > /dev/null
PYTHONUNBUFFERED=1 timeout `left 590` python3 bench/variants_flex.py --cases /tmp/f.tsv --out $W/flex.jsonl > $W/flex.txt 2>&1
echo "flex rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
grep -E "rc|passed|done at|build" $W/checks.txt
for f in A-1 V-1 FV-1 A-2 V-2 FV-2 A-3 V-3 FV-3 flex; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-70; done
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
