#!/bin/sh
# Call 2 (twenty-seventh session).  R (.carry/genR: the row kernels with bf16
# pairs unpacked by their bits, the kept forms' whole-thread loads and typed
# stores) against A (the committed row kernels, 9a91175): rows-bench over
# bench/rows.tsv alternating A and R three times; torch in the same call;
# gpu_check in full on the row plans with R; ncu (instruction counts) and SASS
# of R's layer norm kernel.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/rows-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genR/*_cuda.cu generated/
make -C $B -j16 bench/rows-bench tests/gpu_check > $W/build-R.log 2>&1; rc=$?
echo "R build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-R.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; }
mkdir -p /tmp/binR && cp $B/bench/rows-bench $B/tests/gpu_check /tmp/binR/
cmp -s /tmp/binA/rows-bench /tmp/binR/rows-bench && { echo "A and R identical: stop"; exit 1; }
for r in 1 2 3; do for V in A R; do
  timeout `left 200` /tmp/bin$V/rows-bench --cases bench/rows.tsv > $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
PYTHONUNBUFFERED=1 timeout `left 260` python3 bench/rows_torch.py --cases bench/rows.tsv > $W/torch.jsonl 2> $W/torch.txt
echo "torch rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cd /tmp/binR
timeout `left 450` ./gpu_check --plans logsumexp,softmax,logsoftmax,rmsnorm,layernorm,moments,rowmax > $W/check-R.txt 2>&1
echo "R gpu_check rows rc $?: `grep -E 'passed, .* failed' $W/check-R.txt`" >> $W/checks.txt
cd $SRC
cuobjdump -sass -fun '_ZN14rows_layernorm13rr_cta_kernelI13__nv_bfloat16Li512ELb1ELi8EEEvNS_11plan_paramsE' $B/libfusegen_cuda.a 2>/dev/null | grep -v "^$" > $W/ln-sass-R.txt
for V in A R; do
  timeout `left 540` ncu --launch-skip 5 --launch-count 1 --section SpeedOfLight --section InstructionStats --metrics smsp__inst_executed.sum /tmp/bin$V/rows-bench --only layernorm-bf16-32k > $W/ncu-$V.txt 2>&1
  echo "ncu $V rc $?: `grep -E 'inst_executed.sum|Duration' $W/ncu-$V.txt | sed 's/  */ /g' | tr '\n' ' '`" >> $W/checks.txt
done
cat $W/checks.txt
for f in A-1 R-1 A-2 R-2 A-3 R-3 torch; do echo "== $f"; grep -E "GB/s" $W/$f.txt | cut -c1-80; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
