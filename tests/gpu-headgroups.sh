#!/bin/sh
# gpu-headgroups.sh - tests/gpu_check --small on the plans whose sm_90a
# launches take their heads in groups (the rolling form, heaviest first,
# every row's keys from 0: plan_head_group in the plan's kernel source in
# $srcdir/generated, with plan_schedule 1 and plan_mask_rows_from0 true),
# with the groups' size fixed by FUSEGEN_HEAD_GROUPS.  The launcher sizes a
# group's K and V to half the L2, so at the check's small shapes every head
# fits in one group and the grouped order (fh_cta_coords) is never taken;
# FUSEGEN_HEAD_GROUPS=1 makes groups of one kv head (every case then has 2
# or 4 groups of the same size), FUSEGEN_HEAD_GROUPS=3 groups of three,
# which the cases with four (batch, kv head) pairs split as 1 + 3 (the
# remainder first; with several query heads a kv head in the plans that
# take them: gpu_check's add_kv_case).  Cases of one row block take the
# same order either way.  Exit 77 (skipped, with the reason) where the
# device is not of compute capability 9.0 (the sm_80 family takes no
# groups), or where gpu_check skips.
srcdir=${srcdir:-.}
. "$srcdir/tests/gpu-hopper.sh"
fg_hopper_or_skip gpu-headgroups.sh "the sm_80 family takes no head groups"
# the sm_90a family, whatever the caller's environment asks
unset FUSEGEN_CUDA_FAMILY
fg_plans_matching gpu-headgroups.sh "h.hgroup = plan_head_group" '^constexpr int plan_schedule = 1;' \
    'constexpr bool plan_mask_rows_from0 = true;'
if test -z "$plans"; then
    echo "gpu-headgroups.sh: no plan in $srcdir/generated takes head groups: skipped"
    exit 77
fi
rc=0
for k in 1 3; do
    echo "gpu-headgroups.sh: FUSEGEN_HEAD_GROUPS=$k on $plans"
    FUSEGEN_HEAD_GROUPS=$k ./tests/gpu_check --small --plans "$plans" "$@"
    r=$?
    # a skip (no usable device) stays a skip; any other failure fails
    case $r in
      0) ;;
      77) test $rc -eq 0 && rc=77;;
      *) rc=1;;
    esac
done
exit $rc
