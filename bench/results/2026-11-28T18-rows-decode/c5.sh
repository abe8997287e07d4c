#!/bin/sh
# Call 5 (twenty-seventh session).  Q (.carry/genQ: call 4's P, with the
# rolling form of 16-bit rows without a second walk and with a small state
# held to 64 registers, two CTAs an SM: log-sum-exp's rolling kernel, which
# P took to 72) against A (the committed row kernels, a8352ae): rows-bench
# over bench/rows.tsv alternating A and Q three times; torch on the long-row
# cases; gpu_check in full on the row plans with Q.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/rows-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call5.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genQ/*_cuda.cu generated/
make -C $B -j16 bench/rows-bench tests/gpu_check > $W/build-Q.log 2>&1; rc=$?
echo "Q build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-Q.log; cd $W && tar czf $OUT/call5.tgz .; exit 1; }
mkdir -p /tmp/binQ && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binQ/
cmp -s /tmp/binA/rows-bench /tmp/binQ/rows-bench && { echo "A and Q identical: stop"; exit 1; }
for r in 1 2 3; do for V in A Q; do
  timeout `left 270` /tmp/bin$V/rows-bench --cases bench/rows.tsv > $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
PYTHONUNBUFFERED=1 timeout `left 300` python3 bench/rows_torch.py --cases bench/rows.tsv --only softmax-bf16-128k,logsumexp-bf16-128k,softmax-bf16-few-1m,logsumexp-bf16-few-1m > $W/torch.jsonl 2> $W/torch.txt
cd /tmp/binQ
timeout `left 500` ./gpu_check --plans logsumexp,softmax,logsoftmax,rmsnorm,layernorm,moments,rowmax > $W/check-Q.txt 2>&1
echo "Q gpu_check rows rc $?: `grep -E 'passed, .* failed' $W/check-Q.txt`" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
for f in A-1 Q-1 A-2 Q-2 A-3 Q-3 torch; do echo "== $f"; grep -E "GB/s" $W/$f.txt | cut -c1-80; done
cd $W && tar czf $OUT/call5.tgz . && ls $OUT
