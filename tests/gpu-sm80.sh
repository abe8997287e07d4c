#!/bin/sh
# gpu-sm80.sh - tests/gpu_check again with FUSEGEN_CUDA_FAMILY=sm80, so that
# on a Hopper GPU (where the rolling plans take the sm_90a family) the sm_80
# family is checked too.  Exit 77 (skipped, with the reason) where the
# device is not of compute capability 9.0: there gpu_check already ran the
# sm_80 family.
# the device gpu_check takes: device 0 of CUDA_VISIBLE_DEVICES when it is set
id=${CUDA_VISIBLE_DEVICES:-0}
id=${id%%,*}
cc=`nvidia-smi -i "$id" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1`
case $cc in
  9.0) ;;
  "") echo "gpu-sm80.sh: nvidia-smi gave no compute capability (no GPU, or no nvidia-smi): skipped"; exit 77;;
  *) echo "gpu-sm80.sh: compute capability $cc: gpu_check already ran the sm_80 family: skipped"; exit 77;;
esac
FUSEGEN_CUDA_FAMILY=sm80 exec ./tests/gpu_check "$@"
