#!/bin/sh
# Call 4 (thirty-first session): the tree with AGAIN (the producer and the
# epilogue compute the head and batch anew).  Build; SASS by kernel (relbias's
# LDL/STL should be gone); the small set; tests/gpu-headgroups.sh; six bars'
# cases in steady state beside their peers; relbias 2 s each.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/a $W/b
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W/a RUN_LIMIT=260 STEPS="build sass smoke" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built, sass, smoke at $(( `date +%s` - T0 )) s"; tail -12 $W/a/summary.txt; cat $W/a/sass-sm90-ldl-stl.txt
(cd $B && srcdir=$OLDPWD timeout `left 300` sh $OLDPWD/tests/gpu-headgroups.sh) > $W/headgroups.txt 2>&1
echo "gpu-headgroups.sh rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/headgroups.txt | tr '\n' ' '`"
timeout `left 330` $B/bench/fusegen-bench --cases bench/variants.tsv --only relbias-pf-8k,relbias-pf-32k --seconds 2 --out $W/relbias.jsonl > $W/relbias.txt 2>&1
cat $W/relbias.txt
OUT=$W/b RUN_LIMIT=`left 480` STEPS="steady" \
  STEADY_ONLY=causal-pf-8k,causal-pf-32k,gqa-pf-8k,gqa-pf-32k,alibi-pf-32k,window-pf-8k sh bench/run-gpu.sh > $W/run-b.log 2>&1
echo "steady at $(( `date +%s` - T0 )) s"
tail -9 $W/b/steady.txt
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls -la $OUT
