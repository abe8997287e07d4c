#!/bin/sh
# call 6 (2026-11-26, fifteenth session): A (HEAD a06c4e7) against F (the score's
# constant factors folded into the exp2 FFMA for any product score: softcap/window's
# cap); peers in the same call; gpu_check of F (small, then softcap,window in full)
set -u
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
export FG_COMMIT=a06c4e7
VARIANTS=F CHECK_PLANS=softcap,window PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k sh bench/ab-templates.sh
cat $OUT/gpu.txt
tail -4 $OUT/ab/compare-F.txt
