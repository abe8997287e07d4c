#!/bin/sh
# tests/gpu-sanitize.sh - compute-sanitizer's memcheck, racecheck and synccheck over
# the small set of GPU checks (tests/gpu_check --small).  A GPU check: exit 0
# when both tools report no error, 77 without compute-sanitizer or a usable
# GPU, 1 otherwise.
prog=./tests/gpu_check
test -x "$prog" || { echo "gpu-sanitize: $prog is not built"; exit 99; }

cs=
for c in compute-sanitizer "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"; do
  if command -v "$c" > /dev/null 2>&1; then cs=$c; break; fi
done
test -n "$cs" || { echo "compute-sanitizer not found: skipped"; exit 77; }

# Without a GPU gpu_check itself says so (77), faster than the sanitizer.
"$prog" --small > /dev/null 2>&1
rc=$?
if test $rc -eq 77; then
  echo "no usable GPU: skipped"; exit 77
fi

fail=0
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool $prog --small"
  "$cs" --tool "$tool" --error-exitcode 3 "$prog" --small
  rc=$?
  case $rc in
    0) echo "ok: $tool";;
    *) echo "FAIL: $tool (exit $rc)"; fail=1;;
  esac
done
exit $fail
