#!/bin/sh
# Call 4 (thirty-fifth session): maxlogit, diffattn and docmask retuned since
# QR (their rows, tuned on 2026-11-29 before it, were carried), on their
# benchmark shapes (32 heads x 8k and 32k, bf16, D 128) as in the
# thirty-third session's call 4; the rows replace theirs in wisdom/ here,
# the three plans regenerated and the library built; then fusegen-bench
# (tuned), fusegen-bench with the default rules only (FUSEGEN_WISDOM_DEVICE
# naming no device: the rows that were "default" before) and
# bench/variants_flex.py alternately, 2 s a case, twice (Flex's second run
# only where the time allows: each case compiles first).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
mkdir -p /tmp/fg-tb && (cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j16 fusegen fusegen-tune > $W/build-tune.txt 2>&1)
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build-tune.txt; exit 1; }
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 1 8192\nprefill 1 32768\n' > $W/variants.sweep
timeout 200 /tmp/fg-tb/fusegen-tune --srcdir="$SRC" --budget=180 --plans=diffattn,maxlogit,docmask \
  --sweep=$W/variants.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'error' $W/tune.log | head -3; grep '^row' $W/new.wisdom
cp $W/new.wisdom $OUT/h200-variants.wisdom
python3 - $W/new.wisdom wisdom/nvidia-h200.wisdom <<'PY'
import sys
new={}
for l in open(sys.argv[1]):
    if l.startswith('row '):
        f=l.split(); new[(f[1],f[3],f[4],f[5],f[6])]=l
out=[]
for l in open(sys.argv[2]):
    if l.startswith('row '):
        f=l.split(); k=(f[1],f[3],f[4],f[5],f[6])
        if k in new: l=new.pop(k)
    out.append(l)
out+=list(new.values())
open(sys.argv[2],'w').write(''.join(out))
PY
/tmp/fg-tb/fusegen --templates=templates -o generated plans/maxlogit.fp plans/diffattn.fp plans/docmask.fp > $W/gen.txt 2>&1
echo "regenerated rc $?"
touch generated/stamp
OUT=$W/b RUN_LIMIT=`left 400` STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^(causal|diffattn|maxlogit|docmask)-pf-(8k|32k)' bench/variants.tsv; } > $W/v.tsv
for r in 1 2; do
  [ `left 560` -gt 30 ] || break
  timeout `left 575` $B/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fg-$r.jsonl > $W/fg-$r.txt 2>&1
  FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 575` $B/bench/fusegen-bench --cases $W/v.tsv --seconds 2 --out $W/fgu-$r.jsonl > $W/fgu-$r.txt 2>&1
  [ $r = 1 ] || [ `left 560` -gt 200 ] || { echo "no time for Flex's second run"; continue; }
  PYTHONUNBUFFERED=1 timeout `left 590` python3 bench/variants_flex.py --cases $W/v.tsv --seconds 2 --out $W/flex-$r.jsonl > $W/flex-$r.txt 2>&1
  echo "== run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/fg-$r.txt | cut -c1-60; grep -v '^#' $W/fgu-$r.txt | cut -c1-60; tail -9 $W/flex-$r.txt | cut -c1-100
done
grep -h '"config"' $W/fg-1.jsonl | sed 's/.*"case": "\([^"]*\)".*"config": "\([^"]*\)".*/\1 \2/'
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls $OUT
