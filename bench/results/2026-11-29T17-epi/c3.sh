#!/bin/sh
# Call 3 (thirty-second session): the session's final kernels (6aefec1).
# Build; SASS (no sm_90a kernel with LDL/STL expected); plain causal at the
# lengths of docmask's documents (32 sequences of 1024, 16 of 2048: what
# docmask-pf-32k's 32 documents of 512-1535 keys would be as separate
# sequences) beside cuDNN and Flex; then issue 10's bars in steady state
# beside their peers (bench/steady.py) and the variants 2 s each beside Flex.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a $W/b
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W/a RUN_LIMIT=200 STEPS="build sass" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $B/bench/fusegen-bench ] || { echo "build failed"; tail -30 $W/run-a.log; exit 1; }
cat $W/a/summary.txt | grep -E "step|sm90"; cat $W/a/sass-sm90-ldl-stl.txt
{ grep '^# id' bench/cases.tsv
  printf 'causal-1k-b32\tcausal\t32\t32\t32\t1024\t1024\t128\t1\t0\t0\t0\n'
  printf 'causal-2k-b16\tcausal\t16\t32\t32\t2048\t2048\t128\t1\t0\t0\t0\n'; } > $W/short.tsv
timeout `left 260` $B/bench/fusegen-bench --cases $W/short.tsv --seconds 2 --out $W/short-fg.jsonl > $W/short-fg.txt 2>&1
cat $W/short-fg.txt | cut -c1-120
timeout `left 300` python3 .carry/peers.py --cases $W/short.tsv --peers sdpa-cudnn,flex --out $W/short-peers.jsonl > $W/short-peers.txt 2>&1
echo "peers rc $? at $(( `date +%s` - T0 )) s"; tail -8 $W/short-peers.txt
OUT=$W/b RUN_LIMIT=`left 585` VARIANTS_SECONDS=2 STEPS="steady variants" sh bench/run-gpu.sh > $W/run-b.log 2>&1
echo "steady, variants at $(( `date +%s` - T0 )) s"
cat $W/b/summary.txt | grep step; tail -20 $W/b/steady.txt; grep -v '^{' $W/b/bench.txt | tail -40
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls -la $OUT
