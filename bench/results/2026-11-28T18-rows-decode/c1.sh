#!/bin/sh
# Call 1 (twenty-seventh session).  (1) Layer norm bf16 32k, below the 3.5 TB/s bar and
# bound by instructions (ncu, 2026-11-24): its kept 512-thread kernel's SASS and executed
# instruction mix (ncu InstructionStats and per-opcode counts), beside rmsnorm.
# (2) The decode kernels' rings: A (committed, CD128_8W = 8 warps, 16-key tiles, 2 stages),
# B (8 warps, 3 stages: the prototype's cfg 6, never run), C (4 warps, 32-key tiles,
# 3 stages), the eight decode cases, tuned and untuned, alternating 2x; gpu_check --small
# of the decode plans on B and C.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
grep -E '^#|-dc-' bench/cases.tsv > /tmp/dc.tsv
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/bench/rows-bench ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/bench/rows-bench $B/tests/gpu_check /tmp/binA/
# (1) layer norm
cuobjdump -sass -fun '_ZN14rows_layernorm13rr_cta_kernelI13__nv_bfloat16Li512ELb1ELi8EEEvNS_11plan_paramsE' $B/libfusegen_cuda.a > $W/ln-sass.txt 2>&1
cuobjdump -sass -fun '_ZN12rows_rmsnorm13rr_cta_kernelI13__nv_bfloat16Li512ELb1ELi8EEEvNS_11plan_paramsE' $B/libfusegen_cuda.a > $W/rms-sass.txt 2>&1
for c in layernorm-bf16-32k rmsnorm-bf16-32k; do
  timeout `left 200` ncu --launch-skip 5 --launch-count 1 --section SpeedOfLight --section InstructionStats --section WarpStateStats --section SchedulerStats --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__cycles_active.avg --print-details all /tmp/binA/rows-bench --only $c > $W/ncu-$c.txt 2>&1
  echo "ncu $c rc $?" >> $W/checks.txt
done
for r in 1 2; do /tmp/binA/rows-bench --only layernorm-bf16-32k,layernorm-bf16-4k,rmsnorm-bf16-32k > $W/rows-A-$r.txt 2>&1; done
# (2) decode
for V in B C; do
  cp .carry/dec$V/*_decode_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-$V.log 2>&1; rc=$?
  echo "$V build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
  [ $rc -ne 0 ] && { tail -30 $W/build-$V.log; continue; }
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/bin$V/
done
for r in 1 2; do for V in A B C; do
  [ -x /tmp/bin$V/fusegen-bench ] || continue
  timeout `left 480` /tmp/bin$V/fusegen-bench --cases /tmp/dc.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
  FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 480` /tmp/bin$V/fusegen-bench --cases /tmp/dc.tsv --out $W/$V-u$r.jsonl 2> $W/$V-u$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for V in B C; do
  [ -x /tmp/bin$V/gpu_check ] || continue
  (cd /tmp/bin$V && timeout `left 560` ./gpu_check --small --plans causal_decode,gqa_decode,alibi_decode,softcap_decode > $W/check-$V.txt 2>&1; echo "$V check rc $?: `grep -E 'passed, .* failed' $W/check-$V.txt`" >> $W/checks.txt)
done
cat $W/checks.txt
grep -E "GB/s|layernorm|rmsnorm" $W/rows-A-*.txt | head -12
for f in A-1 B-1 C-1 A-2 B-2 C-2 A-u1 B-u1 C-u1; do echo "== $f"; grep -E "dc-" $W/$f.txt | cut -c1-90; done
grep -E "Duration|Executed Ipc|Issue Slots Busy|inst_executed.sum" $W/ncu-*.txt
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
