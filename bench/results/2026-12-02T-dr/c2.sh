#!/bin/sh
# Call 2 (fortieth session): docmask retuned on the DR kernels (HEAD), with
# 80- and 96-key tiles added to its tune block; the rows appended to the
# wisdom here, docmask regenerated, the library built, docmask checked in
# full and with the winner forced, then docmask and causal timed twice and
# Flex on docmask in the same call.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
mkdir -p /tmp/fg-tb && (cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j16 fusegen fusegen-tune > $W/build-tune.txt 2>&1)
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build-tune.txt; exit 1; }
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 1 8192\nprefill 1 32768\n' > $W/variants.sweep
rm -f $W/new.wisdom
timeout 260 /tmp/fg-tb/fusegen-tune --srcdir="$SRC" --budget=230 --verbose --plans=docmask \
  --sweep=$W/variants.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'ms \(default|error' $W/tune.log; grep '^row' $W/new.wisdom
grep -E '^row docmask ' $W/new.wisdom >> wisdom/nvidia-h200.wisdom
/tmp/fg-tb/fusegen --templates=templates -o generated plans/docmask.fp > $W/gen.txt 2>&1
echo "regenerated rc $?"; cp generated/docmask_cuda.cu $W/
touch generated/stamp
OUT=$W/b RUN_LIMIT=`left 420` STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout `left 470` ./tests/gpu_check --plans docmask) > $W/full.txt 2>&1; echo "docmask in full rc $?: `grep -E 'passed, .* failed' $W/full.txt`"
for c in `grep '^row docmask' $W/new.wisdom | awk '{print $8}' | grep -v default | sort -u`; do
  (cd $B && FUSEGEN_CONFIG=$c timeout `left 490` ./tests/gpu_check --small --plans docmask) > $W/small-$c.txt 2>&1
  echo "docmask --small forced $c rc $?: `grep -E 'passed, .* failed' $W/small-$c.txt`"
done
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do
  [ `left 560` -gt 20 ] || break
  timeout `left 570` $B/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg-$r.jsonl > $W/fg-$r.txt 2>&1
  echo "== run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/fg-$r.txt | cut -c1-110
done
PYTHONUNBUFFERED=1 timeout `left 595` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 \
  --out $W/flex.jsonl > $W/flex.txt 2>&1; echo "flex rc $?"; grep docmask $W/flex.txt | tail -2
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' --exclude=b . && ls $OUT
