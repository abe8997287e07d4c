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

# aux_hooks CU DIR FUNCS: the hooks of CU that read extra inputs, for a host
# simulation: plan_params, plan_nspans, the loads and the functions FUNCS
# (an awk alternation) into DIR/hooks.h, and the fields to fill into
# DIR/sim_aux.h (SIM_AUX: extra inputs, SIM_DIMS: other dims, SIM_CONSTS:
# hoisted constants).
aux_hooks() {
    mkdir -p "$2"
    {
        awk '/^struct plan_params \{/,/^\};/' "$1"
        grep 'constexpr int plan_nspans' "$1"
        grep 'constexpr bool plan_spans_decide' "$1"
        grep 'constexpr bool plan_known_rows' "$1"
        grep 'constexpr bool plan_sorted_rows' "$1"
        # a function template's head line goes out with it (plan_span_search)
        awk -v f="$3" '$0 ~ "^(__device__ __forceinline__|inline) [a-z ]+ (plan_aux_dtype|plan_aux_float|plan_aux_i32|plan_[A-Za-z0-9_]+_at|" f ")\\(" { if (tpl != "") print tpl; on = 1 }
                       on { print } on && /^}/ { on = 0 } { tpl = /^template </ ? $0 : "" }' "$1"
    } > "$2/hooks.h"
    for m in 'SIM_AUX:s/^    const void \*\([A-Za-z0-9_]*\)_; .*/X(\1)/p' \
             'SIM_DIMS:s/^    int \([A-Za-z0-9_]*\); \/\* dim .*/X(\1)/p' \
             'SIM_CONSTS:s/^    float \(c[0-9]*_\); .*/X(\1)/p'; do
        printf '#define %s(X) %s\n' "${m%%:*}" "$(sed -n "${m#*:}" "$2/hooks.h" | tr '\n' ' ')"
    done > "$2/sim_aux.h"
}

# run_sim DIR SIM LABEL: builds tests/SIM.cc against DIR's hooks and runs it;
# fails the test (and returns 1) on a compile error or a disagreement.
run_sim() {
    if ! $cxx -std=c++14 -O1 -I"$1" -I"$srcdir/tests" -o "$1/sim" "$srcdir/tests/$2.cc"; then
        echo "FAIL: $3: the hooks do not compile on the host ($2)"
        fail=1
        return 1
    fi
    if "$1/sim" > "$1/out"; then
        echo "$3: $(cat "$1/out")"
        n=$((n + 1))
        return 0
    fi
    echo "FAIL: $3 ($2):"
    cat "$1/out"
    fail=1
    return 1
}

rows=0 # sources whose masks are an interval of keys per row (plan_row_keys)
spans=0 # sources whose span hooks ran (docmask), and whose tile-affine score ran (relbias)
biases=0
keylins=0 # sources whose key-linear score ran (alibi)
diags=0 # sources whose score on diagonals ran (relbias)
# The test plan with the key-linear term subtracted and the key counted
# twice (tests/plans/keylin.fp: step -2, the slope negated), generated here
# by the built fusegen, joins the committed sources (only its score hooks
# are simulated: its mask is causal's).
extra=
fusegen=$(cd "${top_builddir:-.}" 2>/dev/null && pwd)/fusegen
if test -x "$fusegen"; then
    if (cd "$srcdir/tests/plans" && "$fusegen" -o "$tmp/kl" keylin.fp) > "$tmp/kl.log" 2>&1; then
        extra=$tmp/kl/keylin_cuda.cu
    else
        echo "FAIL: fusegen does not generate tests/plans/keylin.fp:"
        cat "$tmp/kl.log"
        fail=1
    fi
else
    echo "cuda-hooks.sh: no built fusegen ($fusegen): tests/plans/keylin.fp and sharedoc.fp not simulated"
fi
for cu in "$srcdir"/generated/*_cuda.cu $extra; do
    test -f "$cu" || continue
    name=$(basename "$cu" .cu)
    if grep -q 'constexpr bool plan_score_tile_affine = true' "$cu"; then
        # the score's tile-affine form (relbias): tables on host arrays
        aux_hooks "$cu" "$tmp/b" 'plan_score|plan_score_tile_bias'
        if grep -q 'int [A-Za-z0-9_]*_at(' "$tmp/b/hooks.h"; then
            echo "$name: the score reads an i32 input: its tile-affine form is not simulated"
        elif run_sim "$tmp/b" bias_hooks_sim "$name (score)"; then
            biases=$((biases + 1))
        fi
    fi
    if grep -q 'constexpr bool plan_score_diag = true' "$cu"; then
        # the term past qk on diagonals (relbias): the sm_90a kernel's term
        # once a diagonal of a thread's elements, against plan_score
        aux_hooks "$cu" "$tmp/d" 'plan_head_setup|plan_score|plan_score_qk_scale|plan_score_bias'
        if grep -q 'int [A-Za-z0-9_]*_at(' "$tmp/d/hooks.h"; then
            echo "$name: the score reads an i32 input: its terms on diagonals are not simulated"
        elif run_sim "$tmp/d" diag_hooks_sim "$name (score on diagonals)"; then
            diags=$((diags + 1))
        fi
    fi
    if grep -q 'constexpr bool plan_score_keylin = true' "$cu"; then
        # the score linear in the key past qk (alibi): the sm_90a kernel's
        # shared term, each row's offset added at the end, against plan_score
        aux_hooks "$cu" "$tmp/k" 'plan_head_setup|plan_score|plan_keylin_qk|plan_keylin_slope|plan_keylin_int'
        grep 'constexpr int plan_keylin_step' "$cu" >> "$tmp/k/hooks.h"
        if run_sim "$tmp/k" keylin_hooks_sim "$name (key-linear score)"; then
            keylins=$((keylins + 1))
        fi
    fi
    test "$cu" = "$extra" && continue
    grep -q 'return true;' "$cu" && continue # no mask
    grep -q rr_dispatch "$cu" && continue # the row kernels: no mask hooks
    {
        awk '/^struct plan_params \{/,/^\};/' "$cu"
        grep '^__attribute__((unused)) constexpr bool plan_mask_rows' "$cu"
        for hook in 'bool plan_visible' 'void plan_key_range' 'int plan_tile_class' 'void plan_row_keys'; do
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
        aux_hooks "$cu" "$tmp/s" 'plan_visible|plan_span_row|plan_span_col|plan_tile_class_spans|plan_spans_known|plan_visible_known|plan_row_keys_known|plan_span_search|plan_span_keys_sorted|plan_row_keys_sorted'
        if run_sim "$tmp/s" span_hooks_sim "$name"; then
            spans=$((spans + 1))
        fi
        continue
    fi
    if ! grep -q plan_tile_class "$tmp/hooks.h" || ! grep -q plan_key_range "$tmp/hooks.h"; then
        echo "FAIL: $name: hooks not found"
        fail=1
        continue
    fi
    flags=
    grep -q '^    int W;' "$tmp/hooks.h" && flags=-DSIM_HAS_W
    grep -q '^    int P;' "$tmp/hooks.h" && flags="$flags -DSIM_HAS_P"
    grep -q 'constexpr bool plan_mask_rows = true' "$tmp/hooks.h" && rows=$((rows + 1))
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
# The test plan of packed documents behind a shared prefix
# (tests/plans/sharedoc.fp: an OR of two span atoms, == and <), generated
# here by the built fusegen: its span hooks on the host, as docmask's.
if test -x "$fusegen"; then
    if (cd "$srcdir/tests/plans" && "$fusegen" -o "$tmp/sd" sharedoc.fp) > "$tmp/sd.log" 2>&1; then
        aux_hooks "$tmp/sd/sharedoc_cuda.cu" "$tmp/s2" \
            'plan_visible|plan_span_row|plan_span_col|plan_tile_class_spans|plan_spans_known|plan_visible_known|plan_row_keys_known|plan_span_search|plan_span_keys_sorted|plan_row_keys_sorted'
        run_sim "$tmp/s2" span_hooks_sim sharedoc_cuda && spans=$((spans + 1))
    else
        echo "FAIL: fusegen does not generate tests/plans/sharedoc.fp:"
        cat "$tmp/sd.log"
        fail=1
    fi
    # Whether the mask reads a head (lower_cuda.c head_free): docmask's and
    # sharedoc's ids are seg[b, n], one workspace slot a batch for every head
    # (plan_span_head_free); headdoc's are seg[b, h, n], a slot a head.  A
    # wrong true would give every head the first head's tile classes and rows.
    if (cd "$srcdir/tests/plans" && "$fusegen" -o "$tmp/hd" headdoc.fp) > "$tmp/hd.log" 2>&1; then
        for f in "$srcdir/generated/docmask_cuda.cu:true" "$tmp/sd/sharedoc_cuda.cu:true" \
                 "$tmp/hd/headdoc_cuda.cu:false"; do
            src=${f%:*}
            want=${f##*:}
            if grep -q "constexpr bool plan_span_head_free = $want;" "$src"; then
                echo "$(basename "$src"): plan_span_head_free = $want"
            else
                echo "FAIL: $src: plan_span_head_free is not $want"
                fail=1
            fi
        done
    else
        echo "FAIL: fusegen does not generate tests/plans/headdoc.fp:"
        cat "$tmp/hd.log"
        fail=1
    fi
fi
if test "$n" -eq 0; then
    echo "FAIL: no generated CUDA source with a mask"
    exit 1
fi
if test "$rows" -eq 0; then
    # causal, window and prefixlm are: their row bounds must have run
    echo "FAIL: no mask with an interval of keys per row simulated"
    exit 1
fi
if test "$keylins" -eq 0; then
    # generated/ holds alibi: its key-linear score must have run
    echo "FAIL: no key-linear score simulated"
    exit 1
fi
if test "$diags" -eq 0; then
    # generated/ holds relbias: its term on diagonals must have run
    echo "FAIL: no score on diagonals simulated"
    exit 1
fi
if test "$spans" -eq 0 || test "$biases" -eq 0; then
    # generated/ holds docmask and relbias: their hooks must have run
    echo "FAIL: no span hooks ($spans) or no tile-affine score ($biases) simulated"
    exit 1
fi
exit $fail
