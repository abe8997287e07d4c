#!/bin/sh
# Call 4 (thirty-third session): call 3 stopped at diffattn (fusegen-tune
# took at most four inputs and only 16-bit ones: "no device memory" for
# diffattn's five; docmask's i32 ids would have been read past their
# buffer).  With the tuner fixed: diffattn and docmask tuned on the same
# sweep, resuming call 3's file (maxlogit's rows); the rows appended to
# wisdom/nvidia-h200.wisdom here, the three plans regenerated, the library
# built, and the three variants (and causal, their base) timed beside
# FlexAttention, 2 s a case, fusegen and Flex alternately, twice.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
mkdir -p /tmp/fg-tb && (cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j16 fusegen fusegen-tune > $W/build-tune.txt 2>&1)
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build-tune.txt; exit 1; }
cp bench/results/2026-11-29T19-persist/call3-new.wisdom $W/new.wisdom
cp bench/results/2026-11-29T19-persist/call3-new.wisdom $W/call3.wisdom
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 1 8192\nprefill 1 32768\n' > $W/variants.sweep
timeout 230 /tmp/fg-tb/fusegen-tune --srcdir="$SRC" --budget=200 --plans=maxlogit,diffattn,docmask \
  --sweep=$W/variants.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'ms \(default|error' $W/tune.log; grep '^row' $W/new.wisdom
grep -E '^row (maxlogit|diffattn|docmask) ' $W/new.wisdom >> wisdom/nvidia-h200.wisdom
/tmp/fg-tb/fusegen --templates=templates -o generated plans/maxlogit.fp plans/diffattn.fp plans/docmask.fp > $W/gen.txt 2>&1
echo "regenerated rc $?: tuned dispatch in `grep -l "Tuned dispatch" generated/maxlogit_cuda.cu generated/diffattn_cuda.cu generated/docmask_cuda.cu | tr "\n" " "`"
cp generated/maxlogit_cuda.cu generated/diffattn_cuda.cu generated/docmask_cuda.cu $W/
touch generated/stamp
OUT=$W/b RUN_LIMIT=`left 420` STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^(causal|diffattn|maxlogit|docmask)-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do
  [ `left 560` -gt 40 ] || break
  timeout `left 575` $B/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg-$r.jsonl > $W/fg-$r.txt 2>&1
  PYTHONUNBUFFERED=1 timeout `left 590` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 --out $W/flex-$r.jsonl > $W/flex-$r.txt 2>&1
  echo "== run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/fg-$r.txt | cut -c1-100; tail -9 $W/flex-$r.txt | cut -c1-100
done
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls $OUT
