#!/bin/sh
# sync-from-proto.sh - copy the kernel bodies of the GPU prototypes into the
# CUDA templates, renamed so that no fg_ name survives (the generator rejects
# fg_/m4_ tokens in its output):
#   bench/proto/attn_fwd.cuh   -> templates/cuda/attention_head.cuh (up to PLAN HOOKS BEGIN)
#                                 templates/cuda/attention_body.cuh (after PLAN HOOKS END,
#                                 without the prototype's fg_params_init and host launcher)
#   bench/proto/decode_fwd.cuh -> templates/cuda/decode_body.cuh (without its host launcher)
# The PLAN HOOKS block itself is what lower_cuda.c generates per plan.
# Renames: the hooks fg_X -> plan_X, fgd_X -> fd_X, every other fg_X -> fa_X.
# Usage (from the source root): templates/cuda/sync-from-proto.sh [PROTO_DIR]
# then regenerate: ./fusegen --templates=templates -o generated plans/*.fp
set -eu
proto=${1:-bench/proto}
out=$(dirname "$0")
attn=$proto/attn_fwd.cuh
dec=$proto/decode_fwd.cuh
for f in "$attn" "$dec"; do
  test -f "$f" || { echo "sync-from-proto: $f not found" >&2; exit 1; }
done
for marker in 'PLAN HOOKS BEGIN' 'PLAN HOOKS END' 'Host launcher' 'fg_params_init('; do
  grep -q "$marker" "$attn" || { echo "sync-from-proto: no '$marker' in $attn" >&2; exit 1; }
done
for marker in '#include "attn_fwd.cuh"' '^namespace FG_NS {' 'Launch the split kernel'; do
  grep -q "$marker" "$dec" || { echo "sync-from-proto: no '$marker' in $dec" >&2; exit 1; }
done

rename() {
  sed -e 's/\bfg_params\b/plan_params/g' \
      -e 's/\bfg_head_setup\b/plan_head_setup/g' \
      -e 's/\bfg_score_is_scaled_qk\b/plan_score_is_scaled_qk/g' \
      -e 's/\bfg_score_scale\b/plan_score_scale/g' \
      -e 's/\bfg_score\b/plan_score/g' \
      -e 's/\bfg_visible\b/plan_visible/g' \
      -e 's/\bfg_key_range\b/plan_key_range/g' \
      -e 's/\bfg_tile_class\b/plan_tile_class/g' \
      -e 's/\bfg_correction\b/plan_correction/g' \
      -e 's/\bfg_schedule\b/plan_schedule/g' \
      -e 's/\bfgd_/fd_/g' \
      -e 's/\bfg_/fa_/g'
}
banner() {
  echo "// DO NOT EDIT: copied from $1 by templates/cuda/sync-from-proto.sh"
  echo "// Renamed: the plan hooks to plan_*, the decode names to fd_*, the others to fa_*."
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-sync.XXXXXX")
trap 'rm -rf "$tmp"' 0 1 2 15

# head: includes, namespace, small device helpers; no #pragma once (a .cu is
# a main file), no prototype variant ids.
{
  banner "$attn"
  awk '
    /^\/\/ =+ PLAN HOOKS BEGIN/ { exit }
    /^#pragma once/ { next }
    /^\/\/ Variant ids/ { skip = 1 }
    skip && /^namespace FG_NS/ { skip = 0 }
    !skip { print }
  ' "$attn" | rename
} > "$tmp/attention_head.cuh"

# body: from PLAN HOOKS END to the host launcher, minus fg_params_init
{
  banner "$attn"
  awk '
    /^\/\/ =+ PLAN HOOKS END/ { on = 1; next }
    !on { next }
    /^\/\/ Host launcher/ { exit }
    /^\/\/ Host-side: fill the per-launch scalars/ { skip = 1; next }
    skip && /fg_params_init\(/ { inside = 1; next }
    skip && inside && /^}/ { skip = 0; inside = 0; next }
    skip { next }
    { print }
  ' "$attn" | rename
} > "$tmp/attention_body.cuh"

# decode: after the include, without its namespace line and launcher
{
  banner "$dec"
  awk '
    /#include "attn_fwd.cuh"/ { on = 1; next }
    !on { next }
    /^namespace FG_NS \{/ { next }
    /^\/\/ Launch the split kernel/ { exit }
    { print }
  ' "$dec" | rename
} > "$tmp/decode_body.cuh"

# m4 reads these files: nothing in them may look like its quotes, a macro
# the generator defines, or the output escape character.
for f in "$tmp"/*.cuh; do
  if grep -n -e '\[\[\[' -e '\]\]\]' -e '\bfg_' -e '\bm4_' -e '@' "$f"; then
    echo "sync-from-proto: $(basename "$f") has text that m4 or the output check would take (above)" >&2
    exit 1
  fi
done
# The tuned configurations: lower_cuda.c's tables must match the
# prototype's defaults (attn_inst.cu cfg 0, decode_inst.cu's dispatch).
lower=$(dirname "$0")/../../generator/lower_cuda.c
cfg_mismatch=0
check_cfg() { # PROTO_FILE PROTO_NAME TABLE_NAME
  args=$(sed -n "s/^using $2 = fgd\{0,1\}_cfg<\(.*\)>;.*/\1/p" "$1")
  if test -z "$args"; then
    echo "sync-from-proto: no configuration $2 in $1" >&2
    cfg_mismatch=1
  elif ! grep -q "{\"$3\", $args," "$lower"; then
    echo "sync-from-proto: $2 in $1 is <$args>; lower_cuda.c's $3 differs: update its table" >&2
    cfg_mismatch=1
  fi
}
if test -f "$lower"; then
  for pair in C64_0:C64 C96:C96 C128_0:C128 C256:C256; do
    check_cfg "$proto/attn_inst.cu" "${pair%%:*}" "${pair##*:}"
  done
  for pair in D64_1:CD64_1 D64_2:CD64_2 D96_1:CD96_1 D96_2:CD96_2 D128_1:CD128_1 \
              D128_2:CD128_2 D128_a2:CD128_8W D256_1:CD256_1; do
    check_cfg "$proto/decode_inst.cu" "${pair%%:*}" "${pair##*:}"
  done
fi

for f in attention_head.cuh attention_body.cuh decode_body.cuh; do
  if ! cmp -s "$tmp/$f" "$out/$f" 2>/dev/null; then
    cp "$tmp/$f" "$out/$f"
    echo "sync-from-proto: updated $out/$f"
  fi
done
exit $cfg_mismatch
