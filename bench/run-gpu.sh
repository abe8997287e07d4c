#!/bin/sh
# bench/run-gpu.sh - THE script of a device call: build, GPU checks,
# fusegen-bench, the peers in the same call, the comparison.
#
# usage (on the GPU machine, from the repository root):
#   sh bench/run-gpu.sh            everything, in this order:
#     1. build       ./autogen.sh (or the carried .carry/buildsys.tar when
#                    autoreconf is missing there), then configure
#                    --with-cuda-arch=90a --disable-werror and make -j16 in
#                    $BUILD (the machine's gcc is newer than CI's and warns
#                    where CI's does not: the warnings stay in build.log)
#     2. sass        cuobjdump -sass of libfusegen_cuda.a: counts of HMMA, HGMMA,
#                    LDGSTS, UTMALDG, LDL, STL into the summary
#     smoke          tests/gpu_check --small within 90 s; on failure the
#                    steps that launch kernels are skipped
#     3. check-gpu   make check-gpu (tests/gpu_check, tests/gpu-sanitize.sh)
#     tune           (only when named) fusegen-tune on this device, within the
#                    call's time (resumable; TUNE_ARGS narrows it); the
#                    wisdom files of wisdom/ are copied to $OUT
#     bench-regen    (only when named) the sources regenerated with fusegen
#                    $REGEN_ARGS (--wisdom=none: untuned), built in
#                    /tmp/fg-tuned, and fusegen-bench on them
#                    (fusegen-regen.jsonl)
#     4. bench       bench/fusegen-bench over bench/cases.tsv
#     bench-untuned  (only when named) the same with the default rules only
#                    (FUSEGEN_WISDOM_DEVICE names no tuned device)
#     ncu            (only when named) Nsight Compute on one launch of the
#                    cases in NCU_ONLY (default causal-pf-8k), into ncu.txt
#     bench80        (only when named in STEPS) the same with
#                    FUSEGEN_CUDA_FAMILY=sm80: the sm_80 family on Hopper
#     5. peers       .carry/peers.py: SDPA FlashAttention-2 and cuDNN on every
#                    case, FlexAttention on $PEERS_FLEX_ONLY (each Flex case
#                    compiles first: ~10-20 s a case, too slow for all 25)
#     6. compare     .carry/compare.py fusegen.jsonl peers.jsonl
#     7. rows        bench/rows-bench and bench/rows_torch.py on bench/rows.tsv
#                    in the same call (the row reductions beside torch),
#                    side by side at the end of bench.txt
#     steady         (only when named) bench/steady.py: each case of
#                    $STEADY_ONLY (default the prefill cases of issue 10's
#                    bars) about $STEADY_SECONDS (3) s by fusegen-bench
#                    --seconds, then by its peer (.carry/peers.py's own
#                    definitions: cuDNN, or Flex where SDPA cannot express
#                    the case), nvidia-smi sampling the clock and power:
#                    steady.jsonl and steady.txt
#     variants       (only when named) fusegen-bench on bench/variants.tsv
#                    (relbias, docmask beside causal) and
#                    bench/variants_flex.py (FlexAttention), into bench.txt;
#                    both with --seconds $VARIANTS_SECONDS where it is set
#     python         (only when named) the built tree installed with
#                    DESTDIR=$BUILD/dest, examples/python built against it
#                    through pkg-config (into $BUILD/python), then
#                    examples/python/fusegen_attn.py (its self-test on the
#                    GPU) and examples/python/hf_check.py (a transformers
#                    Llama with fusegen as its attention, beside SDPA) with
#                    $PYTHON; output in python.log
# A step that fails is reported and the later steps still run (a failed
# build skips the steps that need it).  The exit status is the number of
# failed steps.
#
# The caller copies the shared bench/{peers.py,cases.tsv,compare.py} into
# .carry/ (git-ignored) and names .carry in the run tool's carry list.
# Environment:
#   OUT              where logs and results go (default ./gpu-out); at most
#                    8 files: build.log check-gpu.log bench.txt fusegen.jsonl
#                    peers.log peers.jsonl compare.txt summary.txt
#   BUILD            build folder (default /tmp/fg-build)
#   STEPS            steps to run (default "build sass smoke check-gpu bench peers
#                    compare rows")
#   CUDA_ARCH        the build's architectures (default 90a; 80,90a adds the
#                    sm_80 family, for FUSEGEN_CUDA_FAMILY=sm80)
#   BENCH_ONLY       case ids for fusegen-bench (default all)
#   PEERS_ONLY       case ids for the SDPA peers (default all)
#   PEERS_FLEX_ONLY  case ids for Flex (default the masks SDPA cannot express,
#                    at 8k, and window-pf-32k; "none" for no Flex)
#   FG_COMMIT        the commit, for the summary (the machine has no .git)
#   PYTHON           the python of the python step (default
#                    /opt/torch/.venv/bin/python3 where it exists, else python3)
#   RUN_LIMIT        seconds the whole script may take (default 540); each
#                    step is cut to what is left
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-/tmp/fg-build}
STEPS=${STEPS:-build sass smoke check-gpu bench peers compare rows}
RUN_LIMIT=${RUN_LIMIT:-540}
PEERS_FLEX_ONLY=${PEERS_FLEX_ONLY:-alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k,alibi-dc-8k,softcap-dc-8k}
SRC=$PWD
mkdir -p "$OUT" "$BUILD" || exit 1
START=`date +%s`
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
failed=0
built=0

note() { echo "$*" | tee -a "$SUMMARY"; }

# Seconds left for a step: at most $1, and 20 s kept for the steps after.
left() {
  rest=$(( RUN_LIMIT - (`date +%s` - START) - 20 ))
  test $rest -gt $1 && rest=$1
  test $rest -lt 5 && rest=5
  echo $rest
}

# step NAME STATUS: record a step's outcome (0 ok, 124 cut by its time limit).
step() {
  el=$(( `date +%s` - START ))
  case $2 in
    0) note "step $1: ok (at ${el} s)";;
    124) note "step $1: FAILED: cut at its time limit (at ${el} s)"; failed=$((failed + 1));;
    [0-9]*) note "step $1: FAILED: exit $2 (at ${el} s)"; failed=$((failed + 1));;
    *) note "step $1: FAILED: $2 (at ${el} s)"; failed=$((failed + 1));;
  esac
}

has_step() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }

note "run-gpu.sh: `date -u +%Y-%m-%dT%H:%M:%SZ`, commit ${FG_COMMIT:-unknown}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader \
  2>&1 | sed 's/^/gpu: /' | tee -a "$SUMMARY"

if has_step build; then
  (
    set -e
    if command -v autoreconf > /dev/null 2>&1 && ./autogen.sh; then
      echo "autogen.sh: ok"
    elif test -f .carry/buildsys.tar; then
      echo "autogen.sh failed or autoreconf missing: unpacking .carry/buildsys.tar"
      tar xf .carry/buildsys.tar
      # Newer than their sources, so make does not try to rerun autotools.
      touch aclocal.m4; sleep 1; touch configure config.h.in; sleep 1; touch Makefile.in
    else
      echo "no autoreconf and no .carry/buildsys.tar"; exit 1
    fi
    cd "$BUILD"
    "$SRC/configure" --with-cuda-arch=${CUDA_ARCH:-90a} --disable-werror
    make -j16
    make -j16 tests/gpu_check bench/fusegen-bench bench/rows-bench
  ) > "$OUT/build.log" 2>&1
  rc=$?
  tail -25 "$OUT/build.log"
  step build $rc
  test $rc -eq 0 && built=1
else
  test -x "$BUILD/bench/fusegen-bench" && built=1
fi

# The disassembly of the kernels: the tensor-core instructions are there,
# and nothing spills to local memory (counts into the summary).
if has_step sass && test $built = 1; then
  if command -v cuobjdump > /dev/null 2>&1; then
    cuobjdump -sass "$BUILD/libfusegen_cuda.a" > /tmp/fg-sass.txt 2>&1
    rc=$?
    for ins in HMMA HGMMA LDGSTS UTMALDG LDL STL; do
      note "sass: $ins `grep -c "\b$ins\b" /tmp/fg-sass.txt`"
    done
    # per family: the sm_90a kernels (fh_attn_fwd_kernel) apart
    awk '/Function :/ { f = ($0 ~ /fh_attn_fwd_kernel/) ? "sm90" : "other" }
         { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
             if (w == "HGMMA" || w == "UTMALDG" || w == "LDL" || w == "STL" || w == "HMMA") n[f " " w]++ } }
         END { for (k in n) print "sass: " k " " n[k] }' /tmp/fg-sass.txt | sort | tee -a "$SUMMARY"
    # which sm_90a kernels have them: LDL and STL counts per object of the
    # archive (a plan) and function (mangled)
    awk '/^member / { m = $2 } /Function :/ { f = m "|" $3 }
         f ~ /fh_attn_fwd_kernel/ { for (i = 1; i <= NF; i++) { w = $i; sub(/\..*/, "", w);
             if (w == "LDL" || w == "STL") n[f " " w]++ } }
         END { for (k in n) print n[k], k }' /tmp/fg-sass.txt | sort -k2 > "$OUT/sass-sm90-ldl-stl.txt"
    note "sass: sm90 functions with LDL/STL: `awk '{print $2}' "$OUT/sass-sm90-ldl-stl.txt" | sort -u | wc -l` (sass-sm90-ldl-stl.txt)"
    step sass $rc
  else
    step sass "no cuobjdump"
  fi
fi

# A quick first look (gpu_check --small, 90 s at most): a kernel that
# hangs or fails here stops the long steps, which would only burn the lease.
if has_step smoke && test $built = 1; then
  (cd "$BUILD" && timeout 90 ./tests/gpu_check --small) > "$OUT/smoke.log" 2>&1
  rc=$?
  grep -E '^(FAIL|device|seed)|passed, .* failed' "$OUT/smoke.log" | head -30 | tee -a "$SUMMARY"
  step smoke $rc
  test $rc -eq 0 || { note "smoke failed: check-gpu and bench skipped"; built=0; }
fi

if has_step check-gpu; then
  if test $built = 1; then
    (cd "$BUILD" && timeout `left 560` make check-gpu) > "$OUT/check-gpu.log" 2>&1
    rc=$?
    grep -E '^(FAIL|SKIP|no usable|seed|device|ok:|== )' "$OUT/check-gpu.log" | head -40
    grep -E 'passed, .* failed' "$OUT/check-gpu.log" | tee -a "$SUMMARY"
    step check-gpu $rc
  else
    step check-gpu "not built"
  fi
fi

# fusegen-tune on this device (docs/tuning.md): resumable, so a call whose
# time runs out leaves its rows in wisdom/DEVICE.wisdom of the source tree,
# copied to $OUT (TUNE_ARGS narrows it: --plans, --only, --sweep).
if has_step tune; then
  if test $built = 1; then
    timeout `left 570` "$BUILD/fusegen-tune" --srcdir="$SRC" --budget=$(( `left 570` - 40 )) \
      ${TUNE_ARGS:-} > "$OUT/tune.log" 2>&1
    rc=$?
    tail -5 "$OUT/tune.log"
    # never over a file of the same name that TUNE_ARGS' --wisdom wrote
    # there (2026-11-27: a retune's output was lost so)
    cp -n wisdom/*.wisdom "$OUT/" 2> /dev/null
    step tune $rc
  else
    step tune "not built"
  fi
fi

# The library again, regenerated with fusegen $REGEN_ARGS (default: the
# wisdom of wisdom/ as it is now, after the tune step; --wisdom=none: the
# default rules only) into a copy of the sources, and the benchmark cases
# on it.
if has_step bench-regen && test $built = 1; then
  (
    set -e
    rm -rf /tmp/fg-tuned-src && cp -r "$SRC" /tmp/fg-tuned-src && cd /tmp/fg-tuned-src
    "$BUILD/fusegen" ${REGEN_ARGS:-} -o generated plans/*.fp
    mkdir -p /tmp/fg-tuned && cd /tmp/fg-tuned
    /tmp/fg-tuned-src/configure --with-cuda-arch=90a --disable-werror > /dev/null
    make -j16 > /dev/null
    make -j16 bench/fusegen-bench > /dev/null
  ) > "$OUT/build-tuned.log" 2>&1
  rc=$?
  if test $rc -eq 0; then
    timeout `left 180` /tmp/fg-tuned/bench/fusegen-bench --cases "$SRC/bench/cases.tsv" \
      --out "$OUT/fusegen-regen.jsonl" 2> "$OUT/bench-regen.txt"
    rc=$?
  fi
  step bench-regen $rc
fi

if has_step bench; then
  if test $built = 1; then
    only=
    test -n "${BENCH_ONLY:-}" && only="--only $BENCH_ONLY"
    timeout `left 180` "$BUILD/bench/fusegen-bench" --cases "$SRC/bench/cases.tsv" $only \
      --out "$OUT/fusegen.jsonl" 2> "$OUT/bench.txt"
    step bench $?
  else
    step bench "not built"
  fi
fi

# Nsight Compute on one launch of each case in NCU_ONLY (only when named):
# the attention kernel's pipe utilisation, issue and stall counters
# (--clock-control none: the card's clocks are left as they are), into
# ncu.txt, with the per-pipe lines gathered at its end.
if has_step ncu; then
  if test $built = 1 && command -v ncu > /dev/null 2>&1; then
    : > "$OUT/ncu.txt"
    for c in `echo "${NCU_ONLY:-causal-pf-8k}" | tr ',' ' '`; do
      echo "== ncu: $c" >> "$OUT/ncu.txt"
      timeout `left 120` ncu --clock-control none -k "regex:${NCU_KERNEL:-fh_attn_fwd|fa_attn}" \
        --launch-skip 3 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section InstructionStats --section WarpStateStats --section SchedulerStats \
        --metrics sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
        "$BUILD/bench/fusegen-bench" --cases "$SRC/bench/cases.tsv" --only "$c" --reps 20 \
        >> "$OUT/ncu.txt" 2>&1
      rc=$?
    done
    grep -E '^== ncu|pipe_|issue_active|Duration|Compute \(SM\) Throughput' "$OUT/ncu.txt" | tee -a "$SUMMARY"
    step ncu $rc
  else
    step ncu "not built or no ncu"
  fi
fi

# The same cases with the default rules only: FUSEGEN_WISDOM_DEVICE names
# no device of the compiled wisdom, so no tuned row is taken (the untuned
# library, in the same binary and call as the tuned one).
if has_step bench-untuned; then
  if test $built = 1; then
    FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 180` "$BUILD/bench/fusegen-bench" \
      --cases "$SRC/bench/cases.tsv" --out "$OUT/fusegen-untuned.jsonl" 2> "$OUT/bench-untuned.txt"
    step bench-untuned $?
  else
    step bench-untuned "not built"
  fi
fi

# The same cases on the sm_80 family (FUSEGEN_CUDA_FAMILY=sm80): the
# families side by side in one call.
if has_step bench80; then
  if test $built = 1; then
    only=
    test -n "${BENCH_ONLY:-}" && only="--only $BENCH_ONLY"
    FUSEGEN_CUDA_FAMILY=sm80 timeout `left 180` "$BUILD/bench/fusegen-bench" --cases "$SRC/bench/cases.tsv" \
      $only --out "$OUT/fusegen-sm80.jsonl" 2> "$OUT/bench-sm80.txt"
    step bench80 $?
  else
    step bench80 "not built"
  fi
fi

if has_step peers; then
  if test -f .carry/peers.py && test -f .carry/cases.tsv; then
    only=
    test -n "${PEERS_ONLY:-}" && only="--only $PEERS_ONLY"
    PYTHONUNBUFFERED=1 timeout `left 150` python3 .carry/peers.py --cases .carry/cases.tsv \
      $only --peers sdpa-flash,sdpa-cudnn --out "$OUT/peers-sdpa.jsonl" > "$OUT/peers.log" 2>&1
    rc=$?
    if test "$PEERS_FLEX_ONLY" != none; then
      PYTHONUNBUFFERED=1 timeout `left 240` python3 .carry/peers.py --cases .carry/cases.tsv \
        --only "$PEERS_FLEX_ONLY" --peers flex --out "$OUT/peers-flex.jsonl" >> "$OUT/peers.log" 2>&1
      rc2=$?
      test $rc -eq 0 && rc=$rc2
    fi
    cat "$OUT"/peers-sdpa.jsonl "$OUT"/peers-flex.jsonl > "$OUT/peers.jsonl" 2> /dev/null
    rm -f "$OUT"/peers-sdpa.jsonl "$OUT"/peers-flex.jsonl
    step peers $rc
  else
    step peers "no .carry/peers.py or .carry/cases.tsv"
  fi
fi

if has_step compare; then
  if test -f .carry/compare.py && test -s "$OUT/fusegen.jsonl"; then
    python3 .carry/compare.py "$OUT/fusegen.jsonl" "$OUT/peers.jsonl" > "$OUT/compare.txt" 2>&1
    step compare $?
  else
    step compare "no .carry/compare.py or no fusegen.jsonl"
  fi
fi

# Steady state: each case long enough that the clock settles (bench/steady.py)
if has_step steady; then
  if test $built = 1 && test -f .carry/peers.py; then
    PYTHONUNBUFFERED=1 timeout `left 540` python3 "$SRC/bench/steady.py" --bench "$BUILD/bench/fusegen-bench" \
      --peers-py .carry/peers.py --cases "$SRC/bench/cases.tsv" --seconds "${STEADY_SECONDS:-3}" \
      --only "${STEADY_ONLY:-global-pf-2k,global-pf-8k,global-pf-32k,causal-pf-2k,causal-pf-8k,causal-pf-32k,gqa-pf-2k,gqa-pf-8k,gqa-pf-32k,alibi-pf-8k,alibi-pf-32k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k}" \
      --out "$OUT/steady.jsonl" > "$OUT/steady.txt" 2>&1
    step steady $?
  else
    step steady "not built, or no .carry/peers.py"
  fi
fi

# The row reductions beside torch, in this call (appended to bench.txt).  A
# subshell, not a { } group: its exit ends it, not the whole script (which
# would skip the later steps, the summary and the exit status).
if has_step rows; then
  if test $built = 1; then
    (
      echo; echo "== rows: bench/rows-bench and bench/rows_torch.py (bench/rows.tsv)"
      timeout `left 90` "$BUILD/bench/rows-bench" --cases "$SRC/bench/rows.tsv" > /tmp/fg-rows.jsonl
      rc=$?
      PYTHONUNBUFFERED=1 timeout `left 90` python3 "$SRC/bench/rows_torch.py" --cases "$SRC/bench/rows.tsv" \
        >> /tmp/fg-rows.jsonl
      rc2=$?
      test $rc -eq 0 && rc=$rc2
      echo "case                     fusegen GB/s  torch GB/s  fusegen/torch time"
      awk -F'"' '{ id = $4; impl = $8; split($0, m, "\"ms\": "); split(m[2], v, ","); ms = v[1] + 0
                   split($0, g, "\"gbps\": "); gb = g[2] + 0
                   if (!(id in seen)) { seen[id] = 1; ids[n++] = id }
                   t[id, impl] = ms; b[id, impl] = gb }
           END { for (i = 0; i < n; i++) { id = ids[i]
                   r = (t[id, "fusegen"] > 0 && t[id, "torch"] > 0) ? sprintf("%.2fx", t[id, "torch"] / t[id, "fusegen"]) : "n/a"
                   printf "%-24s %12.1f %11.1f  %s\n", id, b[id, "fusegen"], b[id, "torch"], r } }' /tmp/fg-rows.jsonl
      exit $rc
    ) >> "$OUT/bench.txt" 2>&1
    step rows $?
  else
    step rows "not built"
  fi
fi

if has_step variants; then
  if test $built = 1; then
    (
      echo; echo "== variants: fusegen-bench and bench/variants_flex.py (bench/variants.tsv)"
      timeout `left 240` "$BUILD/bench/fusegen-bench" --cases "$SRC/bench/variants.tsv" \
        ${VARIANTS_SECONDS:+--seconds $VARIANTS_SECONDS} --out /tmp/fg-variants.jsonl
      rc=$?
      PYTHONUNBUFFERED=1 timeout `left 240` python3 "$SRC/bench/variants_flex.py" \
        --cases "$SRC/bench/variants.tsv" ${VARIANTS_SECONDS:+--seconds $VARIANTS_SECONDS} \
        --out /tmp/fg-variants-flex.jsonl
      rc2=$?
      test $rc -eq 0 && rc=$rc2
      echo "--- raw (fusegen, then flex)"
      cat /tmp/fg-variants.jsonl /tmp/fg-variants-flex.jsonl
      exit $rc
    ) >> "$OUT/bench.txt" 2>&1
    step variants $?
  else
    step variants "not built"
  fi
fi

# The installed libraries from Python (examples/python): installed the way
# `make installcheck` does (DESTDIR, and PKG_CONFIG_SYSROOT_DIR for the
# .pc files' paths), the ctypes module's self-test on the GPU, then the
# Hugging Face model with fusegen as its attention beside SDPA.  Both
# Python programs run even if the first fails; a subshell, as in rows.
if has_step python; then
  if test $built = 1; then
    if test -z "${PYTHON:-}"; then
      PYTHON=python3
      test -x /opt/torch/.venv/bin/python3 && PYTHON=/opt/torch/.venv/bin/python3
    fi
    (
      (
        set -e
        rm -rf "$BUILD/dest" "$BUILD/python"
        make -C "$BUILD" install DESTDIR="$BUILD/dest" > /dev/null
        pc=`find "$BUILD/dest" -name fusegen-cuda.pc | head -n 1`
        test -n "$pc" || { echo "no fusegen-cuda.pc under $BUILD/dest"; exit 1; }
        mkdir -p "$BUILD/python"
        PKG_CONFIG_SYSROOT_DIR="$BUILD/dest" PKG_CONFIG_PATH=`dirname "$pc"` \
          make -C "$SRC/examples/python" O="$BUILD/python"
      )
      rc=$?
      if test $rc -eq 0; then
        FUSEGEN_PY_LIB="$BUILD/python/libfusegen_py.so"; export FUSEGEN_PY_LIB
        echo "== $PYTHON examples/python/fusegen_attn.py --device cuda"
        PYTHONUNBUFFERED=1 timeout `left 120` "$PYTHON" "$SRC/examples/python/fusegen_attn.py" --device cuda
        rc=$?
        echo "== $PYTHON examples/python/hf_check.py"
        PYTHONUNBUFFERED=1 timeout `left 240` "$PYTHON" "$SRC/examples/python/hf_check.py"
        rc2=$?
        test $rc -eq 0 && rc=$rc2
      fi
      exit $rc
    ) > "$OUT/python.log" 2>&1
    rc=$?
    tail -25 "$OUT/python.log"
    grep -E '^(hf_check: [0-9]|device:|[0-9]+ passed, )| vs sdpa|^hf_check: (ok|FAILED)' \
      "$OUT/python.log" | tee -a "$SUMMARY" > /dev/null
    step python $rc
  else
    step python "not built"
  fi
fi

echo
echo "== fusegen-bench (bench.txt)"
cat "$OUT/bench.txt" 2> /dev/null
echo
echo "== compare (compare.txt)"
cat "$OUT/compare.txt" 2> /dev/null
echo
echo "== summary"
cat "$SUMMARY"
note "run-gpu.sh: $failed failed step(s), `expr \`date +%s\` - $START` s"
exit $failed
