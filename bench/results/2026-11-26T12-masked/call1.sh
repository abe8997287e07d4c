#!/bin/sh
# call 1 (2026-11-26): baseline + profile + one timing-only variant tree
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
SRC=$PWD
# variant tree B (timing only): alibi without the per-element I2F, causal/gqa 176 with ping-pong,
# softcap/window tanh as an odd polynomial (accurate only for |t| < 0.6)
./autogen.sh > $OUT/x/autogen.txt 2>&1
rm -rf /tmp/vb && cp -a . /tmp/vb
sed -i 's/(j - (i + p.N - p.M)) \* p.hc1_/__int_as_float(j) * p.hc1_/' /tmp/vb/generated/alibi_cuda.cu
sed -i 's/fh_cfg<128, 176, 2, false>/fh_cfg<128, 176, 2, true>/' /tmp/vb/generated/causal_cuda.cu /tmp/vb/generated/gqa_cuda.cu
sed -i 's/return fa_tanh(qk \* p.c1_) \* p.c0_;/{ const float t_ = qk * p.c1_, u_ = t_ * t_; return fmaf(t_ * u_, fmaf(u_, fmaf(u_, fmaf(u_, 0.02186948f, -0.05396825f), 0.13333334f), -0.33333334f), t_) * p.c0_; }/' /tmp/vb/generated/softcap_cuda.cu /tmp/vb/generated/window_cuda.cu
touch /tmp/vb/generated/stamp
for f in alibi causal gqa softcap window; do diff -q generated/${f}_cuda.cu /tmp/vb/generated/${f}_cuda.cu >/dev/null && echo "VARIANT B: $f unchanged"; done
( cd /tmp/vb && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror >/dev/null && make -j8 >build.log 2>&1 && make -j8 bench/fusegen-bench >>build.log 2>&1; echo "vb build rc $?" ) > $OUT/x/vb-build.txt 2>&1 &
VB=$!
PF=global-pf-2k,global-pf-8k,global-pf-32k,causal-pf-2k,causal-pf-8k,causal-pf-32k,gqa-pf-2k,gqa-pf-8k,gqa-pf-32k,alibi-pf-2k,alibi-pf-8k,alibi-pf-32k,softcap-pf-2k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=480 STEPS="build sass" sh bench/run-gpu.sh > $OUT/x/run1.txt 2>&1
wait $VB; cat $OUT/x/vb-build.txt
# timing: A, B, A, B alternate (prefill only)
for r in 1 2; do
  /tmp/fg-build/bench/fusegen-bench --cases bench/cases.tsv --only $PF --out $OUT/x/A$r.jsonl 2> $OUT/x/A$r.txt
  /tmp/vb/b/bench/fusegen-bench --cases bench/cases.tsv --only $PF --out $OUT/x/B$r.jsonl 2> $OUT/x/B$r.txt
done
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=300 STEPS="ncu peers compare" NCU_ONLY=causal-pf-8k,alibi-pf-8k,softcap-pf-8k,global-pf-8k \
  PEERS_ONLY=$PF PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run2.txt 2>&1
cp $OUT/x/A1.jsonl $OUT/x/fusegen.jsonl; python3 .carry/compare.py $OUT/x/fusegen.jsonl $OUT/x/peers.jsonl > $OUT/x/compare.txt 2>&1
cuobjdump -sass /tmp/fg-build/libfusegen_cuda.a > /tmp/sassA.txt 2>/dev/null
awk '/Function :/{f=$0} /Function : .*fh_attn_fwd_kernel.*fh_cfgILi128ELi176ELi2ELb0E/{print}' /tmp/sassA.txt | head -5 > $OUT/x/sassfuncs.txt
cd $OUT && tar czf x.tgz x && rm -rf x/*.jsonl
echo "== A/B (TFLOP/s)"; paste $OUT/x/A1.txt $OUT/x/B1.txt | head -40
echo; paste $OUT/x/A2.txt $OUT/x/B2.txt | head -40
echo; grep -E "^== ncu|pipe_|issue_active|Duration" $OUT/x/ncu.txt | head -60
echo; cat $OUT/x/compare.txt | head -40
