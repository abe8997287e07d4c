#!/bin/sh
# Call 5 (thirty-fourth session): QR's A/B again, in a second call, to see
# whether call 2's differences repeat.  A = 28719a8's generated/ (.carry/genA,
# before QR), B = the working tree (QR with its __syncwarp).  Both built side
# by side; then A and B alternately, 2 s a case, twice.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/bench/fusegen-bench ] && [ -x /tmp/srcA/b/bench/fusegen-bench ] || { echo "a build failed"; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ cat .carry/qr.tsv | grep -v diffattn; grep -E '^(docmask|maxlogit)-pf-32k' bench/variants.tsv; } > $W/qr5.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 470` -gt 40 ] || break 2
  timeout `left 480` $bb --cases $W/qr5.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -v '^#' $W/$V-$r.txt | cut -c1-60 | tail -10
done; done
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' . && ls -la $OUT
