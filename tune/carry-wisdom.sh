#!/bin/sh
# tune/carry-wisdom.sh REV [FUSEGEN] - carry the committed wisdom over a
# change of templates/cuda/sm80 or sm90 that leaves the tuned kernels'
# device code as it was (a hook's signature, a comment), without retuning.
#
# The wisdom files name the hash of the skeletons they were tuned on, and
# fusegen drops a file whose hash differs (stale).  This script compares the
# device code instead of the text: the generated/ of REV (committed, tuned
# with the wisdom as it stands) against what the working tree generates with
# the same wisdom re-hashed, every tuned plan's .cu compiled to sm_80 and
# sm_90a cubins by nvcc.  Only when every cubin is byte-identical does it
# rewrite the hash in wisdom/*.wisdom, with a comment line saying so;
# otherwise it lists the kernels that differ and changes nothing: retune
# (docs/tuning.md).  With CARRY_NOTE='...' set, the wisdom is carried even
# though the device code changed, without compiling anything: a comment
# line in each file says it was not retuned, with the note (which should
# name the measurement that says the tuned choices still hold); fusegen
# then uses it as before.  Needs git, nvcc (no GPU).  Run from the source
# root.
set -eu
rev=${1:?usage: tune/carry-wisdom.sh REV [FUSEGEN]}
fusegen=${2:-./fusegen}
nvcc=${NVCC:-nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/old" "$tmp/new" "$tmp/wis"
git archive "$rev" generated | tar -x -C "$tmp/old"

# the hash the working tree's skeletons have: fusegen names it when it
# finds a file stale
old_hash=$(sed -n 's/^templates //p' wisdom/nvidia-h200.wisdom)
new_hash=$("$fusegen" --templates=templates --wisdom=wisdom/nvidia-h200.wisdom \
    -o "$tmp/new" plans/global.fp 2>&1 | sed -n 's/.*these are \([0-9a-f]*\)).*/\1/p' | head -1)
if [ -z "$new_hash" ]; then
    echo "carry-wisdom: the wisdom is not stale (hash $old_hash): nothing to do"
    exit 0
fi
set --
for f in wisdom/*.wisdom; do
    sed "s/^templates $old_hash\$/templates $new_hash/" "$f" > "$tmp/wis/${f##*/}"
    set -- "$@" "--wisdom=$tmp/wis/${f##*/}"
done
rm -rf "$tmp/new"/*
"$fusegen" --templates=templates "$@" -o "$tmp/new" plans/*.fp 2>/dev/null

# carry WHY: every wisdom file re-hashed to the working tree's templates,
# with a comment line that names the old and new hashes, REV and WHY
carry() {
    for f in wisdom/*.wisdom; do
        sed "s/^templates $old_hash\$/templates $new_hash/" "$f" > "$tmp/w" && cat "$tmp/w" > "$f"
        printf '# carried from templates %s to %s (tune/carry-wisdom.sh %s)%s\n' \
            "$old_hash" "$new_hash" "$(git rev-parse --short "$rev")" "$1" >> "$f"
    done
}

same=0 differ=0
if [ -n "${CARRY_NOTE:-}" ]; then
    # carried on the note's word: the cubins are not compared (they differ,
    # or the note would not be needed), which saves 40 nvcc runs
    carry " NOT RETUNED, device code not compared: $CARRY_NOTE"
    echo "carry-wisdom: carried with the note, not retuned: wisdom/*.wisdom now name templates $new_hash"
    exit 0
fi
# a change that moved only the hash (what it covers, not the templates):
# when every generated source is byte-identical to REV's, no device code
# can differ, and nothing needs compiling (the sources name the wisdom
# files they read, here the re-hashed copies: compared as wisdom/)
nsrc=0 ndiff=0
for f in "$tmp"/old/generated/*; do
    case $f in *.cu | *.h | *.hip | *.c) ;; *) continue ;; esac
    nsrc=$((nsrc + 1))
    n="$tmp/new/${f##*/}"
    [ -f "$n" ] && sed "s|$tmp/wis/|wisdom/|g" "$n" | cmp -s "$f" - || ndiff=$((ndiff + 1))
done
if [ $nsrc -gt 0 ] && [ $ndiff -eq 0 ]; then
    carry ": all $nsrc generated sources byte-identical to those of $(git rev-parse --short "$rev")"
    echo "carry-wisdom: $nsrc generated sources identical: wisdom/*.wisdom now name templates $new_hash"
    exit 0
fi
for f in "$tmp"/old/generated/*_cuda.cu; do
    n=${f##*/}
    grep -q 'plan_wisdom_0' "$f" || continue # not tuned
    for arch in sm_80 sm_90a; do
        for side in old new; do
            src="$tmp/$side/$n"
            [ "$side" = old ] && src="$f"
            "$nvcc" -std=c++17 -O3 -cubin -arch=$arch -Iruntime -I"$(dirname "$src")" \
                -o "$tmp/$side.$n.$arch.cubin" "$src"
        done
        if cmp -s "$tmp/old.$n.$arch.cubin" "$tmp/new.$n.$arch.cubin"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "carry-wisdom: $n ($arch): device code differs"
        fi
    done
done
if [ $differ -ne 0 ] || [ $same -eq 0 ]; then
    echo "carry-wisdom: $differ of $((same + differ)) cubins differ: the wisdom cannot be carried; retune"
    echo "carry-wisdom: (or, where a measurement says the tuned choices still hold, CARRY_NOTE='why' carries it saying so)"
    exit 1
fi
carry ": $same sm_80 and sm_90a cubins of the tuned plans byte-identical"
echo "carry-wisdom: $same cubins identical: wisdom/*.wisdom now name templates $new_hash"
