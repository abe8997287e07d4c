#!/bin/sh
# cuda-hooks.sh - the mask hooks of every generated CUDA source with a mask,
# run on the host (tests/cuda_hooks_sim.cc): the key range and the tile
# classes must agree with the visibility predicate.  Needs a C++11 compiler
# ($CXX, default c++) and no GPU; skips (77) without a compiler.
srcdir=${srcdir:-.}
cxx=${CXX:-c++}
if ! $cxx --version >/dev/null 2>&1; then
    echo "cuda-hooks.sh: no C++ compiler ($cxx): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-hooks.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    grep -q 'return true;' "$cu" && continue # no mask
    grep -q rr_dispatch "$cu" && continue # the row kernels: no mask hooks
    name=$(basename "$cu" .cu)
    {
        awk '/^struct plan_params \{/,/^\};/' "$cu"
        for hook in 'bool plan_visible' 'void plan_key_range' 'int plan_tile_class'; do
            awk -v h="$hook" 'index($0, "__device__ __forceinline__ " h "(") == 1 { on = 1 }
                              on { print } on && /^}/ { exit }' "$cu"
        done
    } > "$tmp/hooks.h"
    if grep -q '_at(p, ' "$tmp/hooks.h"; then
        # the mask reads an extra input (docmask's ids): device memory the
        # host simulation has not; gpu_check runs these hooks on the GPU
        echo "$name: the mask reads an extra input: not simulated (gpu_check runs it)"
        continue
    fi
    if ! grep -q plan_tile_class "$tmp/hooks.h" || ! grep -q plan_key_range "$tmp/hooks.h"; then
        echo "FAIL: $name: hooks not found"
        fail=1
        continue
    fi
    flags=
    grep -q '^    int W;' "$tmp/hooks.h" && flags=-DSIM_HAS_W
    grep -q 'row += 32' "$tmp/hooks.h" && flags="$flags -DSIM_EXACT_RANGE"
    if ! $cxx -std=c++11 -O1 -pthread $flags -I"$tmp" -o "$tmp/sim" "$srcdir/tests/cuda_hooks_sim.cc"; then
        echo "FAIL: $name: the hooks do not compile on the host"
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
    echo "FAIL: no generated CUDA source with a mask"
    exit 1
fi
exit $fail
