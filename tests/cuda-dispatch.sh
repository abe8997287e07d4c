#!/bin/sh
# cuda-dispatch.sh - the configuration dispatch of every generated CUDA source
# (plan_dispatch_t, written by generator/cuda_configs.c from its table), run
# on the host (tests/cuda_dispatch_sim.cc) over a grid of dtypes, head dims,
# rows, keys and head groups: it must take the configuration the hand-written
# rules took before the table.  Needs a C++17 compiler ($CXX, default c++)
# and no GPU or nvcc; skips (77) without a compiler.
srcdir=${srcdir:-.}
cxx=${CXX:-c++}
if ! $cxx --version >/dev/null 2>&1; then
    echo "cuda-dispatch.sh: no C++ compiler ($cxx): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-dispatch.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    grep -q rr_dispatch "$cu" && continue # the row kernels: no table of variants
    name=$(basename "$cu" .cu)
    {
        sed -n 's/^using \([A-Za-z0-9_]*\) = f[ad]_cfg<.*/struct \1 { static constexpr const char* name = "\1"; };/p' "$cu"
        awk '/^static fg_status plan_dispatch_t\(/ { print "template <typename T>"; on = 1 }
             on { print } on && /^}/ { exit }' "$cu"
    } > "$tmp/dispatch.h"
    facts=$(sed -n 's/.*The plan.s facts that the rules read: affine_score = \([01]\) .*masked = \([012]\)[.( ].*/-DSIM_AFFINE=\1 -DSIM_MASKED=\2/p' "$cu")
    if test -z "$facts" || ! grep -q plan_dispatch_t "$tmp/dispatch.h"; then
        echo "FAIL: $name: no plan_dispatch_t with the plan's facts"
        fail=1
        continue
    fi
    flags=$facts
    grep -q 'fd_args& a' "$tmp/dispatch.h" && flags="$flags -DSIM_SPLIT"
    if ! $cxx -std=c++17 -O1 $flags -I"$tmp" -o "$tmp/sim" "$srcdir/tests/cuda_dispatch_sim.cc"; then
        echo "FAIL: $name: the dispatch does not compile on the host"
        fail=1
        continue
    fi
    if "$tmp/sim" > "$tmp/out"; then
        echo "$name: $(cat "$tmp/out")"
    else
        echo "FAIL: $name:"
        cat "$tmp/out"
        fail=1
    fi
    n=$((n + 1))
done
if test "$n" -eq 0; then
    echo "FAIL: no generated CUDA source"
    exit 1
fi
exit $fail
