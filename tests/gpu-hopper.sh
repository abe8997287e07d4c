# gpu-hopper.sh - sourced (not run) by the GPU checks that only a Hopper GPU
# needs (tests/gpu-sm80.sh, gpu-nosummary.sh, gpu-headgroups.sh): what they
# share.

# fg_hopper_or_skip NAME WHY: return where the device gpu_check takes (device
# 0 of CUDA_VISIBLE_DEVICES when it is set) is of compute capability 9.0;
# else exit 77 (skipped), saying why: no GPU or no nvidia-smi, or the
# device's capability and WHY (what makes the check pointless there).
fg_hopper_or_skip() {
    id=${CUDA_VISIBLE_DEVICES:-0}
    id=${id%%,*}
    cc=`nvidia-smi -i "$id" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1`
    case $cc in
      9.0) ;;
      "") echo "$1: nvidia-smi gave no compute capability (no GPU, or no nvidia-smi): skipped"; exit 77;;
      *) echo "$1: compute capability $cc: $2: skipped"; exit 77;;
    esac
}

# fg_plans_matching NAME PATTERN...: set plans to the comma-separated names
# of the plans whose kernel source in $srcdir/generated (NAME_cuda.cu)
# matches every grep PATTERN (basic regular expressions); exit 99 where
# there is no $srcdir/generated.
fg_plans_matching() {
    name=$1
    shift
    if test ! -d "$srcdir/generated"; then
        echo "$name: no $srcdir/generated (set srcdir to the source tree)"
        exit 99
    fi
    plans=
    for cu in "$srcdir"/generated/*_cuda.cu; do
        ok=1
        for pat in "$@"; do
            grep -q -e "$pat" "$cu" || { ok=0; break; }
        done
        test $ok = 1 || continue
        n=`basename "$cu" _cuda.cu`
        plans=${plans:+$plans,}$n
    done
}
