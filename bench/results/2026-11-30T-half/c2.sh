#!/bin/sh
# Call 2 (thirty-fifth session): the retune that NOTES' "Next (1)" asks for
# since QR (Q from registers, 32fee41): fusegen-tune over the default sweep's
# buckets for bf16 at D 128 of the six prefill plans of issue 10's bars,
# window first, into a file of its own (merged into wisdom/ on the host).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
mkdir -p /tmp/fg-tb && (cd /tmp/fg-tb && $SRC/configure --with-cuda-arch=90a --disable-werror > $W/configure.txt 2>&1 &&
  make -j16 fusegen fusegen-tune > $W/build-tune.txt 2>&1)
[ -x /tmp/fg-tb/fusegen-tune ] || { echo "build failed"; tail -20 $W/build-tune.txt; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
timeout `left 570` /tmp/fg-tb/fusegen-tune --srcdir="$SRC" --budget=`left 540` \
  --plans=window,causal,gqa,softcap,alibi,global --only="bf16 128" --wisdom=$W/h200-qr.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
grep -E 'error|stopp|budget' $W/tune.log | head; grep -c '^row' $W/h200-qr.wisdom
cp $W/h200-qr.wisdom $OUT/h200-qr.wisdom
cd $W && tar czf $OUT/call2.tgz --exclude='build*.txt' . && ls $OUT
