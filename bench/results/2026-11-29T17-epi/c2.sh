#!/bin/sh
# Call 2 (thirty-second session): A (69d401d, the committed generated/)
# against G (a per-key gate's values loaded by the producer group's second
# warp into a ring in shared memory, read by the consumers with one 8-byte
# load a column block: variant-g.diff, its sources in .carry/genG).  Both
# built side by side; G's siggate in full and its SASS; A and G alternately,
# 2 s a case, on siggate and sigmoid; then A's gpu-headgroups.sh and ncu on
# docmask-pf-32k with the time left.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcG && cp -a . /tmp/srcG && cp .carry/genG/*.cu /tmp/srcG/generated/ && touch /tmp/srcG/generated/stamp
( cd /tmp/srcG && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1; echo "G build rc $?" ) > $W/build-G.txt 2>&1 &
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
wait
cat $W/build-G.txt
[ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
[ -x /tmp/srcG/b/tests/gpu_check ] || { echo "G build failed"; tail -30 /tmp/srcG/b/build.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
o=`find /tmp/srcG/b -name 'siggate_cuda*.o' | head -1`
cuobjdump -sass "$o" > /tmp/sassG.txt 2>&1
awk '/Function :/ { f = $3 } f ~ /fh_attn_fwd_kernel/ { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
       if (w == "LDL" || w == "STL" || w == "HGMMA" || w == "UTMALDG" || w == "SHFL" || w == "LDS") n[w]++ } }
     END { for (k in n) print "G siggate sm90 " k, n[k] }' /tmp/sassG.txt | sort
(cd /tmp/srcG/b && timeout 110 ./tests/gpu_check --plans siggate) > $W/checkG-siggate.txt 2>&1
echo "G gpu_check siggate rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/checkG-siggate.txt`"
grep -E '^FAIL' $W/checkG-siggate.txt | head -5
for r in 1 2; do for V in A G; do
  if [ $V = A ]; then bb=$B/bench/fusegen-bench; else bb=/tmp/srcG/b/bench/fusegen-bench; fi
  [ `left 560` -gt 30 ] || break 2
  timeout `left 575` $bb --cases bench/variants.tsv --only siggate-pf-8k,sigmoid-pf-8k,siggate-pf-32k,sigmoid-pf-32k --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"; grep -E 'pf-' $W/$V-$r.txt | cut -c1-60
done; done
L=`left 575`; [ $L -gt 40 ] && { (cd $B && srcdir=$OLDPWD timeout $L sh $OLDPWD/tests/gpu-headgroups.sh) > $W/headgroups.txt 2>&1;
  echo "gpu-headgroups.sh rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/headgroups.txt | tr '\n' ' '`"; }
L=`left 590`; [ $L -gt 15 ] && { timeout $L ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis $B/bench/fusegen-bench --cases bench/variants.tsv --only docmask-pf-32k --out /tmp/n.jsonl > $W/ncu-docmask-32k.txt 2>&1;
  echo "ncu rc $?"; grep -E "Throughput|Duration|L2 Hit|Frequency" $W/ncu-docmask-32k.txt | sed 's/  */ /g' | head -12; }
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
