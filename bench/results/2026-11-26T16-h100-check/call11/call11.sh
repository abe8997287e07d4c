#!/bin/sh
# call 11 (2026-11-26, fifteenth session): on an H100, the plans call 10 did not reach
# (gpu_check in full: sinkwindow, softcap, softcap_decode, window), then the benchmark
# cases beside the peers at the session's last kernels
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/x/gpu.txt 2>&1
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=200 STEPS="build" OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run.txt 2>&1
make -C /tmp/fg-build -j16 tests/gpu_check bench/fusegen-bench > /dev/null 2>&1
(cd /tmp/fg-build && timeout 200 ./tests/gpu_check --plans sinkwindow,softcap,softcap_decode,window) > $OUT/x/check.txt 2>&1
echo "gpu_check rc $?: `grep -E 'passed, .* failed' $OUT/x/check.txt`; PASS lines `grep -c '^PASS' $OUT/x/check.txt`, FAIL lines `grep -c '^FAIL' $OUT/x/check.txt`"
/tmp/fg-build/bench/fusegen-bench --cases bench/cases.tsv --out $OUT/x/fusegen.jsonl 2> $OUT/x/bench.txt
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=150 STEPS="peers" PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run-peers.txt 2>&1
python3 .carry/compare.py $OUT/x/fusegen.jsonl $OUT/x/peers.jsonl > $OUT/x/compare.txt 2>&1
cat $OUT/x/compare.txt
cd $OUT && tar czf x.tgz x
