#!/bin/sh
# bench/ab-gen.sh OUT [FUSEGEN] - the CUDA sources of the working tree's
# templates, for a same-call A/B on a GPU against the committed generated/
# (the device side: bench/results/2026-11-26T12-descriptors/call4.sh).
#
# A change of templates/cuda/sm80 or sm90 makes the committed wisdom stale
# (it names the skeletons' hash), so the working tree would generate the
# default rules' dispatch and an A/B would mix the kernel change with the
# loss of the tuned configurations.  This script copies templates/, plans/
# and wisdom/ into a temporary folder, re-hashes the wisdom there to the
# working tree's templates (the committed files are not touched), generates
# every plan with it and copies the generated *_cuda.cu into OUT, so that B
# takes the configurations A takes, case by case.  For timing only: what
# lands in the repository is either retuned or carried by
# tune/carry-wisdom.sh, which says so in the wisdom files.
# Run from the source root; FUSEGEN defaults to ./fusegen.
set -eu
out=${1:?usage: bench/ab-gen.sh OUT [FUSEGEN]}
fusegen=${2:-./fusegen}
case $fusegen in /*) ;; *) fusegen=$PWD/$fusegen;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -R templates plans wisdom "$tmp/"
old=$(sed -n 's/^templates //p' wisdom/nvidia-h200.wisdom)
new=$("$fusegen" --templates=templates -o "$tmp/probe" plans/global.fp 2>&1 |
    sed -n 's/.*these are \([0-9a-f]*\)).*/\1/p' | head -1)
if [ -n "$new" ]; then
    for f in "$tmp"/wisdom/*.wisdom; do
        sed "s/^templates $old\$/templates $new/" "$f" > "$f.t" && mv "$f.t" "$f"
    done
    echo "ab-gen: the wisdom re-hashed from templates $old to $new (in $tmp only)"
fi
set --
for f in "$tmp"/wisdom/*.wisdom; do set -- "$@" "--wisdom=wisdom/${f##*/}"; done
mkdir -p "$tmp/generated" "$out"
(cd "$tmp" && "$fusegen" --templates=templates "$@" -o generated plans/*.fp 2> "$tmp/gen.log") || {
    cat "$tmp/gen.log"; exit 1; }
cp "$tmp"/generated/*_cuda.cu "$out/"
echo "ab-gen: `ls "$out" | wc -l` CUDA sources in $out"
