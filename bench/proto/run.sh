#!/usr/bin/env bash
# The one script a device call runs for the prototype attention kernel.
#   bench/proto/run.sh build     build only (here, no GPU needed) into .carry/proto_build
#   bench/proto/run.sh [steps]   on the device: build (or reuse a carried build when
#                                PREBUILT=1), then the steps (default: all of
#                                check time sass memcheck peers table)
# Environment: OUT (output folder; default .carry/out), CFGS (timing configs, e.g. 0,1),
# ONLY (case ids to time, comma-separated), PEERS_ONLY, PEERS.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
SRC=bench/proto
BUILD=${BUILD:-.carry/proto_build}
OUT=${OUT:-.carry/out}
mkdir -p "$BUILD" "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=sm_80 -Xptxas -v ${EXTRA_FLAGS:-}"

build() {
  local t0=$(date +%s) pids=() rc=0
  for v in 0 1 2 3 4 5; do
    "$NVCC" $FLAGS -DFG_VARIANT=$v -DFG_NS=fg_v$v -I$SRC -c $SRC/attn_inst.cu -o $BUILD/inst$v.o \
      >$BUILD/ptxas_v$v.log 2>&1 &
    pids+=($!)
  done
  "$NVCC" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=sm_80 -I$SRC \
    -c $SRC/attn_test.cu -o $BUILD/test.o >$BUILD/ptxas_test.log 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do wait $p || rc=1; done
  if [ $rc -ne 0 ]; then cat $BUILD/ptxas_*.log | grep -iE "error" | head -30; echo "BUILD FAILED"; return 1; fi
  "$NVCC" -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=sm_80 -o $BUILD/attn_test \
    $BUILD/test.o $BUILD/inst*.o || return 1
  # resource summary: registers / spills per kernel (sm_90a)
  python3 - $BUILD/ptxas_v*.log >$BUILD/resources.txt <<'PYEOF'
import re, sys
for path in sys.argv[1:]:
    v = re.search(r"ptxas_v(\d)", path).group(1)
    name = None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)' for '(\S+)'", line)
        if m:
            k = re.search(r"fg_cfgILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb([01])ELi(\d+)", m.group(1))
            ty = "bf16" if "bfloat16" in m.group(1) else "fp16"
            name = "v%s %-5s %s D%s BM%s BN%s W%s S%s Q%s x%s" % ((v, m.group(2), ty) + k.groups())
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m: spill = m.group(1) + "/" + m.group(2)
        m = re.search(r"Used (\d+) registers", line)
        if m and name: print("%s: regs %s spill %s" % (name, m.group(1), spill))
PYEOF
  echo "build: $(( $(date +%s) - t0 )) s; $(grep -c . $BUILD/resources.txt) kernels; spilling (sm90a):"
  grep sm_90a $BUILD/resources.txt | grep -v "spill 0/0" || echo "  none"
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(check time sass memcheck peers table)

if [ "${steps[0]}" = build ]; then build; exit $?; fi

if [ "${PREBUILT:-0}" = 1 ] && [ -x $BUILD/attn_test ] && { $BUILD/attn_test >/dev/null 2>&1; [ $? -eq 2 ]; }; then
  echo "using prebuilt $BUILD/attn_test"
else
  build 2>&1 | tee $OUT/build.log || exit 1
fi
cp $BUILD/resources.txt $OUT/resources.txt 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null | tee $OUT/gpu.txt
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a $OUT/gpu.txt

for s in "${steps[@]}"; do
  case $s in
    check)
      echo "== check"
      $BUILD/attn_test check 2>&1 | tee $OUT/check.txt | grep -vE "^  FAIL" | tail -60
      grep -E "^  FAIL" $OUT/check.txt | head -10
      ;;
    time)
      echo "== time"
      for cf in .carry/cases.tsv ${EXTRA_CASES:-}; do
        $BUILD/attn_test time $cf "${CFGS:-}" "${ONLY:-}" 2>&1
      done | tee $OUT/time.txt
      ;;
    sass)
      echo "== sass"
      if command -v cuobjdump >/dev/null; then
        cuobjdump -sass $BUILD/inst1.o >$BUILD/inst1.sass 2>&1
        echo "HMMA in inst1.o (causal): $(grep -c HMMA $BUILD/inst1.sass)  LDSM: $(grep -c LDSM $BUILD/inst1.sass)" \
          " LDL/STL: $(grep -cE 'LDL|STL' $BUILD/inst1.sass)  MUFU.EX2: $(grep -c MUFU.EX2 $BUILD/inst1.sass)"
        awk '/Function :/ {f=$3} /HMMA/ {h[f]++} /LDSM/ {l[f]++} END {for (k in h) print "  " h[k] " HMMA " l[k] " LDSM  " k}' \
          $BUILD/inst1.sass | sort -k5 | head -20
        gzip -c $BUILD/inst1.sass >$OUT/inst1.sass.gz
      else
        echo "no cuobjdump"
      fi
      ;;
    memcheck)
      echo "== memcheck"
      if command -v compute-sanitizer >/dev/null; then
        timeout 120 compute-sanitizer --tool memcheck $BUILD/attn_test small 2>&1 | tail -15
      fi
      ;;
    peers)
      echo "== peers"
      if [ -f .carry/peers.py ]; then
        for cf in .carry/cases.tsv ${EXTRA_CASES:-}; do
          PYTHONUNBUFFERED=1 timeout ${PEERS_TIMEOUT:-200} python3 .carry/peers.py --cases $cf \
            --only ${PEERS_ONLY:-global-pf-8k,causal-pf-8k,gqa-pf-8k} --peers ${PEERS:-sdpa-flash,flex} \
            --out $OUT/peers_$(basename $cf .tsv).jsonl 2>&1 | grep -vE "Warning|warn" | tail -20
        done
        if [ -n "${PEERS2_ONLY:-}" ]; then  # a second, cheaper pass (e.g. sdpa-flash at 2k/32k)
          PYTHONUNBUFFERED=1 timeout ${PEERS_TIMEOUT:-200} python3 .carry/peers.py --cases .carry/cases.tsv \
            --only $PEERS2_ONLY --peers ${PEERS2:-sdpa-flash} --out $OUT/peers_pass2.jsonl 2>&1 | grep -vE "Warning|warn" | tail -20
        fi
        cat $OUT/peers_*.jsonl >$OUT/peers.jsonl 2>/dev/null
      else
        echo "no .carry/peers.py"
      fi
      ;;
    table)
      echo "== table"
      python3 - "$OUT/time.txt" "$OUT/peers.jsonl" <<'EOF'
import sys, json, re, os
best, allc = {}, {}
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        m = re.match(r"(\S+-pf-\S+)\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+\(", line)
        if m:
            c, cfg, ms, tf = m.group(1), m.group(2), float(m.group(3)), float(m.group(4))
            allc[(c, cfg)] = tf
            if c not in best or tf > best[c][1]:
                best[c] = (cfg, tf)
def rule(c):  # fixed choice (set from call 4, validated by the next call): global BM256 lazy;
    # gqa BM256 from 8k; window BM128; others BM128 up to 8k, BM256 at 32k
    if c.endswith("-d64"): return "d64 BM128 BN64 W4 Qreg"
    if c.startswith("global"): return "BM256 BN64 W8 lazy"
    if c.startswith("window"): return "BM128 BN64 W4"
    if c.startswith("gqa") and not c.endswith("-2k"): return "BM256 BN64 W8"
    return "BM256 BN64 W8" if "32k" in c else "BM128 BN64 W4"
peers = {}
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        try:
            r = json.loads(line)
        except Exception:
            continue
        if r.get("tflops"):
            peers[(r["case"], r["peer"])] = r["tflops"]
print("%-16s %6s %7s %-24s %7s %7s %6s %6s" % ("case", "rule", "best", "best config", "fa2", "flex", "r/fa2", "r/flex"))
for c, (cfg, tf) in best.items():
    fa, fx = peers.get((c, "sdpa-flash")), peers.get((c, "flex"))
    fr = allc.get((c, rule(c)))
    print("%-16s %6s %7.1f %-24s %7s %7s %6s %6s" % (c, "%.1f" % fr if fr else "-", tf, cfg,
          "%.1f" % fa if fa else "-", "%.1f" % fx if fx else "-",
          "%.2f" % (fr / fa) if fa and fr else "-", "%.2f" % (fr / fx) if fx and fr else "-"))
EOF
      ;;
  esac
done
