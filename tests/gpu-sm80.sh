#!/bin/sh
# gpu-sm80.sh - tests/gpu_check again with FUSEGEN_CUDA_FAMILY=sm80, so that
# on a Hopper GPU (where the rolling plans take the sm_90a family) the sm_80
# family is checked too.  Exit 77 (skipped, with the reason) where the
# device is not of compute capability 9.0: there gpu_check already ran the
# sm_80 family.
srcdir=${srcdir:-.}
. "$srcdir/tests/gpu-hopper.sh"
fg_hopper_or_skip gpu-sm80.sh "gpu_check already ran the sm_80 family"
FUSEGEN_CUDA_FAMILY=sm80 exec ./tests/gpu_check "$@"
