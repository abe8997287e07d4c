#!/bin/sh
# Call 3 (thirty-first session): 0b081bb with run-gpu.sh's per-kernel LDL/STL
# listing.  Build; SASS (which sm_90a kernels hold call 2's LDL 6 / STL 4);
# the variants of bench/variants.tsv (issue 13: docmask, relbias, sigmoid,
# siggate, diffattn, maxlogit beside causal and Flex) 2 s each in steady
# state; the row reductions beside torch.
W=$OUT/w; mkdir -p $W
export PATH=$PATH:/usr/local/cuda/bin
touch generated/stamp
OUT=$W RUN_LIMIT=560 VARIANTS_SECONDS=2 STEPS="build sass variants rows" sh bench/run-gpu.sh > $W/run.log 2>&1
cat $W/summary.txt; cat $W/sass-sm90-ldl-stl.txt
grep -v '^{' $W/bench.txt | tail -60
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls -la $OUT
