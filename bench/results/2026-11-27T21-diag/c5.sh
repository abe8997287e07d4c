#!/bin/sh
# Call 5 (twenty-second session): call 4 again after the probe's checks changed (positive
# data, a total that a lost tile fails; the timed kernels as in call 4): the ring kernels (the split
# kernel's own load organisation) at the four decode shapes; no library build.
T0=`date +%s`; date -u > $OUT/start.txt
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $W/gpu.txt
nvcc -O3 -arch=sm_90a -Xptxas -v -o /tmp/decode_probe bench/probe/decode_probe.cu > $W/probe-build.txt 2>&1
for s in "16 32 8192" "1 32 32768" "16 8 8192" "1 8 32768"; do
  timeout 120 /tmp/decode_probe $s >> $W/probe.txt 2>&1; echo "probe $s rc $?" >> $W/checks.txt
done
echo "done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cat $W/gpu.txt $W/checks.txt; grep -E "^best" $W/probe.txt
cd $W && tar czf $OUT/call5.tgz . && ls $OUT
