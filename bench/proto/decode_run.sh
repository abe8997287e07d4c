#!/usr/bin/env bash
# The one script a device call runs for the split-KV decode kernels (decode_fwd.cuh).
#   bench/proto/decode_run.sh build     build only (no GPU needed) into .carry/decode_build
#   bench/proto/decode_run.sh [steps]   on the device: build (or reuse a carried build when
#                                       PREBUILT=1 and it runs), then the steps (default:
#                                       copy check sanitize sass time peers table)
# Environment: OUT (output folder; default .carry/out), CFGS (timing configs, e.g. 0,1),
# ONLY (case ids to time), PEERS_ONLY.  At most 7 files land in $OUT (the tool returns 8).
set -u
cd "$(dirname "$0")/../.."
SRC=bench/proto
BUILD=${BUILD:-.carry/decode_build}
OUT=${OUT:-.carry/out}
mkdir -p "$BUILD" "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
GENCODE="-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=sm_80"
FLAGS="-O3 -std=c++17 $GENCODE -Xptxas -v ${EXTRA_FLAGS:-}"

build() {
  local t0=$(date +%s) pids=() rc=0
  for v in 1 2 3 4; do
    "$NVCC" $FLAGS -DFG_VARIANT=$v -DFG_NS=fgd_v$v -I$SRC -c $SRC/decode_inst.cu -o $BUILD/dinst$v.o \
      >$BUILD/ptxas_dv$v.log 2>&1 &
    pids+=($!)
  done
  "$NVCC" -O3 -std=c++17 $GENCODE -I$SRC -c $SRC/decode_test.cu -o $BUILD/dtest.o >$BUILD/ptxas_dtest.log 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do wait $p || rc=1; done
  if [ $rc -ne 0 ]; then grep -iE "error" $BUILD/ptxas_*.log | head -30; echo "BUILD FAILED"; return 1; fi
  "$NVCC" $GENCODE -o $BUILD/decode_test $BUILD/dtest.o $BUILD/dinst*.o || return 1
  python3 - $BUILD/ptxas_dv*.log >$BUILD/resources.txt <<'PYEOF'
import re, sys
for path in sys.argv[1:]:
    v = re.search(r"ptxas_dv(\d)", path).group(1)
    name = None; spill = "?"
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)' for '(\S+)'", line)
        if m:
            ty = "bf16" if "bfloat16" in m.group(1) else "fp16"
            k = re.search(r"fgd_cfgILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb([01])ELi(\d+)", m.group(1))
            if k:
                name = "v%s %-5s %s split D%s MT%s NW%s BNW%s ST%s Q%s x%s" % ((v, m.group(2), ty) + k.groups())
            else:
                k = re.search(r"combine_kernelI\S+?Li(\d+)E", m.group(1))
                name = "v%s %-5s %s combine D%s" % (v, m.group(2), ty, k.group(1) if k else "?")
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m: spill = m.group(1) + "/" + m.group(2)
        m = re.search(r"Used (\d+) registers", line)
        if m and name: print("%s: regs %s spill %s" % (name, m.group(1), spill))
PYEOF
  echo "build: $(( $(date +%s) - t0 )) s; $(grep -c . $BUILD/resources.txt) kernels; spilling:"
  grep -v "spill 0/0" $BUILD/resources.txt || echo "  none"
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(copy check sanitize sass time peers table)
if [ "${steps[0]}" = build ]; then build; exit $?; fi

if [ "${PREBUILT:-0}" = 1 ] && [ -x $BUILD/decode_test ] && { $BUILD/decode_test >/dev/null 2>&1; [ $? -eq 2 ]; }; then
  echo "using prebuilt $BUILD/decode_test"
else
  build 2>&1 | tee $OUT/build.log || exit 1
fi
cp $BUILD/resources.txt $OUT/resources.txt 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null | tee $OUT/gpu.txt
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a $OUT/gpu.txt
T=$BUILD/decode_test

for s in "${steps[@]}"; do
  case $s in
    copy) $T copy 2>&1 | tee -a $OUT/gpu.txt ;;
    check)
      echo "== check"
      timeout ${CHECK_TIMEOUT:-240} $T check 2>&1 | tee $OUT/check.txt | grep -vE "^  FAIL" | tail -40
      grep -E "^  FAIL" $OUT/check.txt | head -10
      ;;
    sanitize)
      echo "== sanitize"
      if command -v compute-sanitizer >/dev/null; then
        timeout ${SAN_TIMEOUT:-90} compute-sanitizer --tool memcheck $T small 2>&1 | tee $OUT/sanitize.txt | tail -4
        timeout ${SAN_TIMEOUT:-90} compute-sanitizer --tool racecheck $T small 2>&1 | tee -a $OUT/sanitize.txt | tail -4
      else
        echo "no compute-sanitizer"
      fi
      ;;
    sass)
      if command -v cuobjdump >/dev/null; then
        cuobjdump -sass $BUILD/dinst1.o >$BUILD/dinst1.sass 2>&1
        echo "sass v1: HMMA $(grep -c HMMA $BUILD/dinst1.sass) LDSM $(grep -c LDSM $BUILD/dinst1.sass)" \
          "LDGSTS $(grep -c LDGSTS $BUILD/dinst1.sass) LDL/STL $(grep -cE 'LDL|STL' $BUILD/dinst1.sass)"
      fi
      ;;
    time)
      echo "== time"
      $T time .carry/cases.tsv "${CFGS:-}" "${ONLY:-}" 2>&1 | tee $OUT/time.txt
      ;;
    peers)
      echo "== peers"
      if [ -f .carry/peers.py ]; then
        PYTHONUNBUFFERED=1 timeout ${PEERS_TIMEOUT:-120} python3 .carry/peers.py --cases .carry/cases.tsv \
          --only ${PEERS_ONLY:-causal-dc-8k,causal-dc-32k,gqa-dc-8k,gqa-dc-32k} --peers sdpa-flash,sdpa-cudnn \
          --out $OUT/peers_dc.jsonl 2>&1 | grep -vE "Warning|warn" | tail -12
      else
        echo "no .carry/peers.py"
      fi
      ;;
    table)
      echo "== table ($(head -1 $OUT/gpu.txt | cut -d, -f1), $(sed -n 2p $OUT/gpu.txt)); K+V GB/s, iso timing (b2b in brackets)"
      python3 - "$OUT/time.txt" "$OUT/peers_dc.jsonl" <<'PYEOF'
import sys, json, re, os
rows = {}   # case -> list of (cfg, S, auto, mode, us, b2b, iso)
order = []
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        c, cname, rest = line[:14].strip(), line[15:37].strip(), line[37:].split()
        m = re.match(r"(\d+)(a?)$", rest[0]) if len(rest) == 5 and "-dc-" in c else None
        if not m: continue
        if c not in rows:
            rows[c] = []
            order.append(c)
        rows[c].append((cname, int(m.group(1)), m.group(2) == "a", rest[1], float(rest[2]), float(rest[3]), float(rest[4])))
peers = {}
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        try: r = json.loads(line)
        except Exception: continue
        if r.get("kv_gbs"): peers[(r["case"], r["peer"])] = r["kv_gbs"]
def pick(c, f):
    xs = [r for r in rows[c] if f(r)]
    return max(xs, key=lambda r: r[6]) if xs else None
def fmt(r): return "%5.0f(%4.0f)" % (r[6], r[5]) if r else "%11s" % "-"
print("%-14s %4s %11s %11s %11s %11s | %-22s %-22s | %11s %11s %-22s | %6s %6s" % ("case", "S", "comb", "nopdl", "fold",
      "fold+ms", "best comb (iso)", "best fold (iso)", "floor same", "nosmem", "floor gpu best", "fa2", "cudnn"))
for c in order:
    first = rows[c][0][0][:2]
    a0 = pick(c, lambda r: r[2] and r[0].startswith(first) and r[3] == "comb")
    S = a0[1] if a0 else 0
    cols = [pick(c, lambda r, md=md: r[2] and r[0].startswith(first) and r[3] == md) for md in ("comb", "comb-nopdl", "fold", "fold+ms")]
    bc = pick(c, lambda r: r[3] in ("comb",) and not r[0].startswith("floor"))
    bf = pick(c, lambda r: r[3] in ("fold",))
    fs = pick(c, lambda r: r[0].startswith("floor same ")); fn = pick(c, lambda r: r[0].startswith("floor same-nosmem"))
    fg = pick(c, lambda r: r[0].startswith("floor gpu"))
    fa, cu = peers.get((c, "sdpa-flash")), peers.get((c, "sdpa-cudnn"))
    print("%-14s %4d %s %s %s %s | %-22s %-22s | %s %s %-22s | %6s %6s" % (c, S, fmt(cols[0]), fmt(cols[1]), fmt(cols[2]),
          fmt(cols[3]), "%.0f %s S%d" % (bc[6], bc[0][:3], bc[1]) if bc else "-",
          "%.0f %s S%d" % (bf[6], bf[0][:3], bf[1]) if bf else "-", fmt(fs), fmt(fn),
          "%.0f %s" % (fg[6], fg[0][6:]) if fg else "-", "%.0f" % fa if fa else "-", "%.0f" % cu if cu else "-"))
PYEOF
      ;;
  esac
done
