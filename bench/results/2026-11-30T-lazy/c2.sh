#!/bin/sh
# Call 2 (thirty-sixth session): new candidates for the tuner, timed by it
# (fusegen-tune --verbose: every candidate's time a bucket): 64-row CTAs (two
# a SM, M64) for every plan whose tune block names tile m = 64, and for
# window (here only: its plan edited in this copy) key tiles of 144 and 160.
# Buckets: bf16 D 128, 32 query heads (window: 8 kv heads), 2k, 8k, 32k and
# 32 sequences of 1k, for window and causal.  The rows merged into the H200
# file here, window and causal regenerated and built (B), against A (the
# tree as sent, built first), 2 s a case, twice.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j8 > build.log 2>&1 && make -j8 bench/fusegen-bench >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
mkdir -p /tmp/fg-tb && (cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j8 fusegen fusegen-tune > $W/build-tune.txt 2>&1)
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build-tune.txt; exit 1; }
sed -i 's/n = {32, 64, 128, 176}/n = {32, 64, 128, 144, 160, 176}/' plans/window.fp
grep -n 'n = {' plans/window.fp
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 4\nprefill 1 2048 8192 32768\nprefill 32 1024\n' > $W/t.sweep
timeout `left 330` /tmp/fg-tb/fusegen-tune --verbose --srcdir="$SRC" --budget=`left 300` --plans=window,causal \
  --sweep=$W/t.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'error|unusable' $W/tune.log | head -5; grep '^row' $W/new.wisdom
grep -E ' ms' $W/tune.log | sed 's/fusegen-tune: //' | sort -t: -k1,1 -s | awk -F': ' '{print $1": "$2}' > $W/times.txt
cat $W/times.txt | cut -c1-90
cp $W/new.wisdom $OUT/new.wisdom
sh tune/merge-wisdom.sh $W/new.wisdom wisdom/nvidia-h200.wisdom > $W/merge.txt 2>&1; echo "merge rc $?"
/tmp/fg-tb/fusegen --templates=templates -o generated plans/window.fp plans/causal.fp > $W/gen.txt 2>&1; echo "regenerated rc $?"
touch generated/stamp
wait; cat $W/build-A.txt
OUT=$W/b RUN_LIMIT=`left 470` STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/cases.tsv; grep -E '^window-pf-(8k|32k)|^causal-pf-(2k|8k)' bench/cases.tsv
  printf 'causal-1k-b32\tcausal\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t0\n'; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 575` -gt 30 ] || break 2
  timeout `left 590` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -5
done; done
grep -h '"config"' $W/B-1.jsonl | sed 's/.*"case": "\([^"]*\)".*"config": "\([^"]*\)".*/\1 \2/'
cd $W && tar czf $OUT/call2.tgz --exclude='build*.log' --exclude='build*.txt' . && ls $OUT
