#!/bin/sh
# Call 3 (thirty-third session): the first tuning of maxlogit, diffattn and
# docmask (no wisdom rows: they ran on the default rules), at the shapes of
# their benchmark cases (bench/variants.tsv: one sequence of 8k and of 32k,
# 32 heads, bf16, head dim 128: buckets (13, 18) and (15, 20)); diffattn
# and docmask gain the tune block that causal and maxlogit have.  Builds the
# generator and the tuner only; fusegen-tune compiles each plan's
# candidates itself.  Rows into new.wisdom.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
mkdir -p /tmp/fg-tb && cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j16 fusegen fusegen-tune > $W/build.txt 2>&1
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build.txt; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 1 8192\nprefill 1 32768\n' > $W/variants.sweep
timeout `left 560` /tmp/fg-tb/fusegen-tune --srcdir="$SRC" --budget=$(( `left 560` - 20 )) --plans=maxlogit,diffattn,docmask \
  --sweep=$W/variants.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
tail -12 $W/tune.log; grep '^row' $W/new.wisdom
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
