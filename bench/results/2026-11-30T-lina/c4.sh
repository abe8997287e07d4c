#!/bin/sh
# Call 4 (thirty-seventh session): alibi's rows retuned since LINA (they were
# timed on the old term and carried).  fusegen-tune --verbose on alibi, bf16,
# D 128, 32 heads, at 2k, 8k and 32k (the cases' buckets), into new.wisdom;
# merged into the H200 file (tune/merge-wisdom.sh), alibi regenerated and
# built (B), against A (the tree as sent, built first), 2 s a case, twice;
# gpu_check --plans alibi in full on B.
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
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 1 2048 8192 32768\n' > $W/t.sweep
timeout `left 300` /tmp/fg-tb/fusegen-tune --verbose --srcdir="$SRC" --budget=`left 270` --plans=alibi \
  --sweep=$W/t.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'error|unusable' $W/tune.log | head -5; grep '^row' $W/new.wisdom
grep -E ' ms' $W/tune.log | sed 's/fusegen-tune: //' > $W/times.txt
cut -c1-100 $W/times.txt | head -40
cp $W/new.wisdom $OUT/new.wisdom
sh tune/merge-wisdom.sh $W/new.wisdom wisdom/nvidia-h200.wisdom > $W/merge.txt 2>&1; echo "merge rc $?"
/tmp/fg-tb/fusegen --templates=templates -o generated plans/alibi.fp > $W/gen.txt 2>&1; echo "regenerated rc $?"
touch generated/stamp
wait; cat $W/build-A.txt
OUT=$W/b RUN_LIMIT=`left 480` STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/cases.tsv; grep -E '^alibi-pf-(2k|8k|32k)' bench/cases.tsv; } > $W/v.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 25 ] || break 2
  timeout `left 575` $bb --cases $W/v.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-75 | tail -3
done; done
grep -h '"config"' $W/A-1.jsonl $W/B-1.jsonl | sed 's/.*"case": "\([^"]*\)".*"config": "\([^"]*\)".*/\1 \2/'
[ `left 580` -gt 25 ] && (cd $B && timeout `left 585` ./tests/gpu_check --plans alibi) > $W/fullB.txt 2>&1; echo "B alibi in full rc $?: `grep -E 'passed, .* failed' $W/fullB.txt`"
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' --exclude='build*.txt' . && ls $OUT
