#!/bin/sh
# Call 4 (twenty-seventh session).  P (.carry/genP: the rolling form's first
# walk issues the next step's loads before this step's sums: two steps in
# flight a thread) against A (the committed row kernels, a8352ae):
# rows-bench over bench/rows.tsv (two 128k-element cases added) alternating A
# and P three times; torch on the two new cases; gpu_check in full on the row
# plans with P.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/rows-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call4.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genP/*_cuda.cu generated/
make -C $B -j16 bench/rows-bench tests/gpu_check > $W/build-P.log 2>&1; rc=$?
echo "P build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-P.log; cd $W && tar czf $OUT/call4.tgz .; exit 1; }
mkdir -p /tmp/binP && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binP/
cmp -s /tmp/binA/rows-bench /tmp/binP/rows-bench && { echo "A and P identical: stop"; exit 1; }
for r in 1 2 3; do for V in A P; do
  timeout `left 270` /tmp/bin$V/rows-bench --cases bench/rows.tsv > $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
PYTHONUNBUFFERED=1 timeout `left 300` python3 bench/rows_torch.py --cases bench/rows.tsv --only softmax-bf16-128k,logsumexp-bf16-128k > $W/torch.jsonl 2> $W/torch.txt
cd /tmp/binP
timeout `left 500` ./gpu_check --plans logsumexp,softmax,logsoftmax,rmsnorm,layernorm,moments,rowmax > $W/check-P.txt 2>&1
echo "P gpu_check rows rc $?: `grep -E 'passed, .* failed' $W/check-P.txt`" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
for f in A-1 P-1 A-2 P-2 A-3 P-3 torch; do echo "== $f"; grep -E "GB/s" $W/$f.txt | cut -c1-80; done
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
