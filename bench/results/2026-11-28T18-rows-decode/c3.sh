#!/bin/sh
# Call 3 (twenty-seventh session).  S (.carry/genS: the row kernels' split count
# rounded down, at most two CTAs an SM in all: one wave) against A (the
# committed row kernels, 0e834db): rows-bench over bench/rows.tsv alternating A
# and S three times; gpu_check in full on the row plans with S.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/rows-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call3.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genS/*_cuda.cu generated/
make -C $B -j16 bench/rows-bench tests/gpu_check > $W/build-S.log 2>&1; rc=$?
echo "S build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-S.log; cd $W && tar czf $OUT/call3.tgz .; exit 1; }
mkdir -p /tmp/binS && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binS/
cmp -s /tmp/binA/rows-bench /tmp/binS/rows-bench && { echo "A and S identical: stop"; exit 1; }
for r in 1 2 3; do for V in A S; do
  timeout `left 200` /tmp/bin$V/rows-bench --cases bench/rows.tsv > $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binS
timeout `left 450` ./gpu_check --plans logsumexp,softmax,logsoftmax,rmsnorm,layernorm,moments,rowmax > $W/check-S.txt 2>&1
echo "S gpu_check rows rc $?: `grep -E 'passed, .* failed' $W/check-S.txt`" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
for f in A-1 S-1 A-2 S-2 A-3 S-3; do echo "== $f"; grep -E "GB/s" $W/$f.txt | cut -c1-80; done
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
