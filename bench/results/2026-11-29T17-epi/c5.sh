#!/bin/sh
# Call 5 (thirty-second session): does any compiled configuration of causal
# beat the default rules (H128) on short sequences with a batch (call 3:
# causal-1k-b32 0.72x cuDNN, causal-2k-b16 0.80x)?  The tuner's default sweep
# has no such bucket (keys 10-11 only at work 14-15).  fusegen-tune on causal,
# bf16, head dim 128, over a sweep of 32 heads and batches 32 x 1024, 16 x 2048
# (buckets keys 10 / 11, work 20), appending to new.wisdom.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W RUN_LIMIT=150 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/fusegen-tune ] || { echo "build failed"; tail -20 $W/run.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
printf 'dims 128\ndtypes bf16\nheads 32\ngroups 1\nprefill 32 1024\nprefill 16 2048\n' > $W/short.sweep
timeout `left 280` $B/fusegen-tune --srcdir="$SRC" --budget=$(( `left 280` - 15 )) --plans=causal \
  --sweep=$W/short.sweep --wisdom=$W/new.wisdom > $W/tune.log 2>&1
echo "tune rc $? at $(( `date +%s` - T0 )) s"
tail -5 $W/tune.log; grep '^row' $W/new.wisdom
cd $W && tar czf $OUT/call5.tgz --exclude='build*.log' . && ls $OUT
