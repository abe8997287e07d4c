#!/bin/sh
# Call 5 (twenty-fourth session): the span atoms read once for the tiles after the first
# (R: where they are known between a consumer group's rows and the keys of those tiles,
# the tiles are classified from that range and read no ids; .carry/genR, bench/ab-gen.sh)
# and the same on the 64-row shape of call 1 (RS: fh_cfg<128, 64, 64, 2>, two CTAs a SM;
# .carry/genRS), against the committed sources (A).  docmask and causal alternating three
# times; gpu_check docmask in full on R and RS and --small on causal, relbias, siggate,
# window (R); memcheck, racecheck and synccheck on docmask --small (R and RS).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench /tmp/binA/
for V in R RS; do
  cp .carry/gen$V/docmask_cuda.cu .carry/gen$V/causal_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
R=`pwd`
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv; grep -E '^causal-pf-2k' bench/cases.tsv) > /tmp/c.tsv
for r in 1 2 3; do for V in A R RS; do
  timeout `left 300` /tmp/bin$V/fusegen-bench --cases /tmp/c.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for V in R RS; do
  cd /tmp/bin$V
  timeout `left 420` ./gpu_check --plans docmask > $W/check-$V.txt 2>&1; echo "$V check docmask sm90 rc $?: `grep -E 'passed, .* failed' $W/check-$V.txt`" >> $W/checks.txt
  for tool in memcheck racecheck synccheck; do
    timeout `left 540` compute-sanitizer --tool $tool --error-exitcode 3 ./gpu_check --small --plans docmask > $W/san-$V-$tool.txt 2>&1
    echo "$V sanitizer $tool rc $? `tail -1 $W/san-$V-$tool.txt`" >> $W/checks.txt
  done
done
cd /tmp/binR
timeout `left 570` ./gpu_check --small --plans causal,relbias,siggate,window > $W/check-other.txt 2>&1; echo "R check others --small rc $?: `grep -E 'passed, .* failed' $W/check-other.txt`" >> $W/checks.txt
cd - > /dev/null
grep -E "rc|passed|done at" $W/checks.txt; for r in 1 2 3; do for V in A R RS; do echo "== $V run $r"; cut -c1-60 $W/$V-$r.txt | grep -E "pf-"; done; done
cd $W && tar czf $OUT/call5.tgz . && ls $OUT
