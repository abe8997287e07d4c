#!/bin/sh
# gpu-configs.sh - tests/gpu_check --small once for every tuned configuration
# compiled into a plan's kernels (the winners of the wisdom rows: the
# plan_variants table in $srcdir/generated/PLAN_cuda.cu), forced by name
# (gpu_check --config, $FUSEGEN_CONFIG).  A launch takes a tuned
# configuration only where its shape falls in that row's bucket, which the
# check's small shapes seldom do, so without this a tuned kernel is checked
# only by fusegen-tune when it is tuned.  Each run fails where no launch took
# the configuration.  Exit 77 (skipped, with the reason) where the device is
# not of compute capability 9.0 (the tuned configurations are sm_90a
# kernels), or where gpu_check skips; 99 without $srcdir/generated.
srcdir=${srcdir:-.}
. "$srcdir/tests/gpu-hopper.sh"
fg_hopper_or_skip gpu-configs.sh "the tuned configurations are sm_90a kernels"
unset FUSEGEN_CUDA_FAMILY
fg_plans_matching gpu-configs.sh 'static const struct { const char\* name; int d; } plan_variants\[\] = {'
if test -z "$plans"; then
    echo "gpu-configs.sh: no plan in $srcdir/generated has tuned configurations: skipped"
    exit 77
fi
rc=0
runs=0
for plan in `echo "$plans" | tr ',' ' '`; do
    # the table's rows, `  {"NAME", D},` up to its `  {nullptr, 0},`
    names=`sed -n '/plan_variants\[\] = {/,/{nullptr, 0}/s/^  {"\([A-Za-z0-9_]*\)", [0-9]*},$/\1/p' \
        "$srcdir/generated/${plan}_cuda.cu"`
    for name in $names; do
        echo "gpu-configs.sh: $plan, $name"
        ./tests/gpu_check --small --plans "$plan" --config "$name" "$@" > gpu-configs.out 2>&1
        r=$?
        runs=`expr $runs + 1`
        grep -E '^(FAIL|[0-9]+ launches took|[0-9]+ passed)' gpu-configs.out
        case $r in
          0) ;;
          77) test $rc -eq 0 && rc=77;;
          *) rc=1; cat gpu-configs.out;;
        esac
    done
done
rm -f gpu-configs.out
echo "gpu-configs.sh: $runs configurations"
exit $rc
