#!/bin/sh
# cuda-forced.sh - the tuned lookup (plan_tuned, generator/back/cuda/tuned.c)
# of every generated CUDA source with tuned configurations, run on the host
# (tests/cuda_forced_sim.cc): $FUSEGEN_CONFIG naming a variant makes every
# launch of its head dim take it (gpu_check --config, tests/gpu-configs.sh),
# and only of its head dim.  Needs a C++17 compiler ($CXX, default c++), no
# GPU or nvcc; skips (77) without a compiler, or where no source has tuned
# configurations.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
cxx=${CXX:-c++}
# fg_forced_config as the library has it (built with the sanitizers where
# configure enabled them: FG_SANITIZE_CFLAGS, as tests/rows-hooks.sh)
rt=$top_builddir/runtime/libfgrt.a
if test ! -f "$rt"; then
    echo "cuda-forced.sh: no $rt (run from the build tree after make)"
    exit 99
fi
if ! $cxx --version >/dev/null 2>&1; then
    echo "cuda-forced.sh: no C++ compiler ($cxx): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-forced.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    grep -q 'plan_variants\[\] = {' "$cu" || continue
    name=$(basename "$cu" .cu)
    # from the tables' comment to the end of plan_tuned
    awk '/^\/\/ Tuned dispatch \(docs\/tuning.md\)/ { on = 1 }
         on { print } on && /^static int plan_tuned\(/ { f = 1 } f && /^}/ { exit }' "$cu" > "$tmp/tuned.h"
    if ! grep -q '^static int plan_tuned(' "$tmp/tuned.h" ||
       ! $cxx -std=c++17 -O1 ${FG_SANITIZE_CFLAGS:-} -I"$tmp" -I"$srcdir/runtime" -o "$tmp/sim" \
            "$srcdir/tests/cuda_forced_sim.cc" "$rt" -lm 2> "$tmp/err"; then
        echo "FAIL: $name: the tuned lookup does not compile on the host"
        cat "$tmp/err"
        fail=1
        continue
    fi
    if "$tmp/sim" > "$tmp/out"; then
        echo "PASS: $name: `tail -n 1 "$tmp/out"`"
    else
        cat "$tmp/out"
        echo "FAIL: $name"
        fail=1
    fi
    n=$((n + 1))
done
if test $n -eq 0 && test $fail -eq 0; then
    echo "cuda-forced.sh: no generated source has tuned configurations: skipped"
    exit 77
fi
exit $fail
