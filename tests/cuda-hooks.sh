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
spans=0 # sources whose span hooks ran (docmask), and whose tile-affine score ran (relbias)
biases=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    name=$(basename "$cu" .cu)
    if grep -q 'constexpr bool plan_score_tile_affine = true' "$cu"; then
        # the score's tile-affine form (relbias): tables on host arrays
        mkdir -p "$tmp/b"
        {
            awk '/^struct plan_params \{/,/^\};/' "$cu"
            awk '/^__device__ __forceinline__ [a-z ]+ (plan_half_bits|plan_aux_float|plan_aux_i32|plan_[A-Za-z0-9_]+_at|plan_score|plan_score_tile_bias)\(/ { on = 1 }
                 on { print } on && /^}/ { on = 0 }' "$cu"
        } > "$tmp/b/hooks.h"
        {
            sed -n 's/^    const void \*\([A-Za-z0-9_]*\)_; .*/X(\1)/p' "$tmp/b/hooks.h" |
                tr '\n' ' ' | sed 's/^/#define SIM_AUX(X) /'
            echo
            sed -n 's/^    int \([A-Za-z0-9_]*\); \/\* dim .*/X(\1)/p' "$tmp/b/hooks.h" |
                tr '\n' ' ' | sed 's/^/#define SIM_DIMS(X) /'
            echo
            sed -n 's/^    float \(c[0-9]*_\); .*/X(\1)/p' "$tmp/b/hooks.h" |
                tr '\n' ' ' | sed 's/^/#define SIM_CONSTS(X) /'
            echo
        } > "$tmp/b/sim_aux.h"
        if grep -q 'int [A-Za-z0-9_]*_at(' "$tmp/b/hooks.h"; then
            echo "$name: the score reads an i32 input: its tile-affine form is not simulated"
        elif ! $cxx -std=c++14 -O1 -I"$tmp/b" -I"$srcdir/tests" -o "$tmp/bias" "$srcdir/tests/bias_hooks_sim.cc"; then
            echo "FAIL: $name: the score hooks do not compile on the host"
            fail=1
        elif "$tmp/bias" > "$tmp/out"; then
            echo "$name (score): $(cat "$tmp/out")"
            n=$((n + 1))
            biases=$((biases + 1))
        else
            echo "FAIL: $name (score):"
            cat "$tmp/out"
            fail=1
        fi
    fi
    grep -q 'return true;' "$cu" && continue # no mask
    grep -q rr_dispatch "$cu" && continue # the row kernels: no mask hooks
    {
        awk '/^struct plan_params \{/,/^\};/' "$cu"
        for hook in 'bool plan_visible' 'void plan_key_range' 'int plan_tile_class'; do
            awk -v h="$hook" 'index($0, "__device__ __forceinline__ " h "(") == 1 { on = 1 }
                              on { print } on && /^}/ { exit }' "$cu"
        done
    } > "$tmp/hooks.h"
    if grep -q '_at(p, ' "$tmp/hooks.h"; then
        # the mask reads an extra input (docmask's ids): its span hooks, if
        # it has any, run on host arrays (span_hooks_sim.cc); the key range
        # and tile class without the ids are checked on the GPU (gpu_check)
        if ! grep -q 'constexpr int plan_nspans = [1-9]' "$cu"; then
            echo "$name: the mask reads no extra input, or has no span atoms: not simulated (gpu_check runs it)"
            continue
        fi
        {
            awk '/^struct plan_params \{/,/^\};/' "$cu"
            grep 'constexpr int plan_nspans' "$cu"
            awk '/^__device__ __forceinline__ [a-z ]+ (plan_half_bits|plan_aux_float|plan_aux_i32|plan_[A-Za-z0-9_]+_at|plan_visible|plan_span_row|plan_span_col|plan_tile_class_spans)\(/ { on = 1 }
                 on { print } on && /^}/ { on = 0 }' "$cu"
        } > "$tmp/hooks.h"
        sed -n 's/^    const void \*\([A-Za-z0-9_]*\)_; .*/X(\1)/p' "$tmp/hooks.h" |
            tr '\n' ' ' | sed 's/^/#define SIM_AUX(X) /' > "$tmp/sim_aux.h"
        echo >> "$tmp/sim_aux.h"
        if ! $cxx -std=c++14 -O1 -I"$tmp" -I"$srcdir/tests" -o "$tmp/span" "$srcdir/tests/span_hooks_sim.cc"; then
            echo "FAIL: $name: the span hooks do not compile on the host"
            fail=1
        elif "$tmp/span" > "$tmp/out"; then
            echo "$name: $(cat "$tmp/out")"
            spans=$((spans + 1))
        else
            echo "FAIL: $name (spans):"
            cat "$tmp/out"
            fail=1
        fi
        n=$((n + 1))
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
if test "$spans" -eq 0 || test "$biases" -eq 0; then
    # generated/ holds docmask and relbias: their hooks must have run
    echo "FAIL: no span hooks ($spans) or no tile-affine score ($biases) simulated"
    exit 1
fi
exit $fail
