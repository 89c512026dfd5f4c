#!/bin/sh
# Judges a change to one design in one process, as docs/judging-changes.md
# describes: the design's file and a copy of it under another
# NAME are compiled into one binary, both rows are run with many
# repetitions in one `timerbench run` (each repetition a round of both rows'
# passes, a few passes apart), and `timerbench compare --rows` pairs them by
# repetition. `make paired` calls this; every setting comes from the
# environment:
#
#   PATCH      a unified diff of one file under algorithms/src/ (`git diff --
#              FILE`, text before the first `diff --git` line ignored); empty:
#              an A/A check, the copy unchanged
#   PATCH_BASE the commit to build (default: the patch's `Base:` line, else HEAD)
#   FILE       the design's file when PATCH is empty (default
#              algorithms/src/sweep_wheel/mod.rs); a file inside a design's
#              folder stands for the whole folder, which is what is copied
#   WORKLOADS  built-in workloads, comma-separated
#   REPEAT     repetitions of each row's pass (default 150)
#
# With a patch it measures both orientations, since where code lies moves a
# build by a percent or two: first the copy carries the change (the ratio is
# the copy's time over the original's), then the original does (the ratio is
# the original's over the unchanged copy's); a real change shows in both, and
# `timerbench compare --rows ... --swapped` pools the two orientations' pairs,
# so that a placement effect, which flips sign between them, widens the
# interval instead of passing for the change.
# Both binaries are built before anything is timed. Work goes under
# target/paired/; the worktrees are removed when done.
set -eu

die() {
    echo "make paired: $*" >&2
    exit 2
}

root=$(git rev-parse --show-toplevel) || die "not inside the timerbench git repository"
cd "$root"
work=$root/target/paired
cargo=${CARGO:-cargo}
patch=${PATCH:-}
rev=${PATCH_BASE:-}
file=${FILE:-algorithms/src/sweep_wheel/mod.rs}
workloads=${WORKLOADS:-heavy-tail,scaling-1e4,kernel-timeouts}
repeat=${REPEAT:-150}

case $repeat in
'' | *[!0-9]*) die "REPEAT='$repeat' is not a whole number of repetitions (e.g. REPEAT=150)" ;;
esac
if [ -n "$patch" ]; then
    [ -f "$patch" ] || die "PATCH='$patch' is not a file; give a diff of one file under algorithms/src/, e.g. PATCH=docs/lab/patches/sweep-wheel-chunks.patch"
    patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
    changed=$(sed -n 's|^+++ b/||p' "$patch")
    count=$(printf '%s' "$changed" | grep -c . || true)
    [ "$count" = 1 ] || die "$patch changes $count files; a patch for this must change exactly one file under algorithms/src/"
    file=$changed
    if [ -z "$rev" ]; then
        rev=$(sed -n 's/^Base: *\([0-9a-f][0-9a-f]*\).*/\1/p' "$patch" | head -n 1)
    fi
fi
rev=${rev:-HEAD}
case $file in
algorithms/src/*.rs) ;;
*) die "FILE='$file' is not a design's file under algorithms/src/ (e.g. algorithms/src/sweep_wheel/mod.rs)" ;;
esac
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || die "PATCH_BASE='$rev' is not a commit of this repository"
git cat-file -e "$commit:$file" 2>/dev/null || die "$file does not exist at $rev"
# The design's unit: its file (algorithms/src/<module>.rs), or its folder
# (algorithms/src/<module>/) when the file lies in one; the copy is the same
# unit under <module>_x.
rest=${file#algorithms/src/}
case $rest in
*/*)
    module=${rest%%/*}
    unit=algorithms/src/$module
    copy=algorithms/src/${module}_x
    ;;
*)
    module=$(basename "$file" .rs)
    unit=$file
    copy=algorithms/src/${module}_x.rs
    ;;
esac
name=$(git grep -h "const NAME: &'static str = " "$commit" -- "$unit" 2>/dev/null |
    sed -n "s/^ *const NAME: &'static str = \"\([^\"]*\)\";.*/\1/p" | head -n 1)
[ -n "$name" ] || die "$unit at $rev declares no 'const NAME: &'static str = \"...\";'"

# Builds, in a worktree of $commit, a binary with the design as row $name and
# its copy as row $name-x; with `copy` or `original`, that side carries the
# patch.
build() {
    side=$1
    carrier=$2
    tree=$work/tree-$side
    git worktree remove --force "$tree" 2>/dev/null || true
    git worktree prune
    git worktree add --quiet --detach "$tree" "$commit"
    (
        cd "$tree"
        case $carrier in
        copy)
            cp -R "$unit" "$unit.unchanged"
            git apply "$patch" || die "$patch does not apply to $file at $rev (set PATCH_BASE to the commit it was made at)"
            mv "$unit" "$copy"
            mv "$unit.unchanged" "$unit"
            ;;
        original)
            cp -R "$unit" "$copy"
            git apply "$patch" || die "$patch does not apply to $file at $rev (set PATCH_BASE to the commit it was made at)"
            ;;
        none) cp -R "$unit" "$copy" ;;
        esac
        named=$(grep -rl "const NAME: &'static str = \"$name\";" "$copy" | head -n 1)
        [ -n "$named" ] || die "could not find the copy's NAME in $copy"
        sed -i "s/const NAME: &'static str = \"$name\";/const NAME: \&'static str = \"$name-x\";/" "$named"
        grep -q "const NAME: &'static str = \"$name-x\";" "$named" || die "could not rename the copy's NAME in $named"
        sed -i "s/^pub mod $module;/pub mod $module;\npub mod ${module}_x;/" algorithms/src/lib.rs
        grep -q "^pub mod ${module}_x;" algorithms/src/lib.rs || die "algorithms/src/lib.rs has no 'pub mod $module;' line to add the copy beside"
        lines=$(grep -c "visitor.visit::<crate::$module::" algorithms/src/registry.rs || true)
        [ "$lines" = 1 ] || die "algorithms/src/registry.rs visits crate::$module $lines times; the copy is added beside exactly one"
        sed -i "/visitor.visit::<crate::$module::/{p;s/crate::$module::/crate::${module}_x::/}" algorithms/src/registry.rs
        echo "building $side: $name and $name-x at $(git rev-parse --short HEAD), the change on the $carrier" >&2
        CARGO_TARGET_DIR=$work/target-$side "$cargo" build --release --quiet -p harness --bin timerbench
    )
    git worktree remove --force "$tree"
}

# Runs both rows of the binary built for $side into $work/run-$side.
measure() {
    side=$1
    exe=$work/target-$side/release/timerbench
    rm -rf "$work/run-$side"
    echo "timing $side: $name and $name-x on $workloads, $repeat repetitions" >&2
    "$exe" run --algorithms "$name,$name-x" --workloads "$workloads" --repeat "$repeat" \
        --out "$work/run-$side" >"$work/run-$side.log" 2>&1 ||
        { cat "$work/run-$side.log" >&2; die "timerbench run failed (its output above)"; }
}

mkdir -p "$work"
if [ -z "$patch" ]; then
    build aa none
    measure aa
    echo "A/A: $name-x is $name unchanged, compiled as a second row" >&2
    # Read by this tree's `timerbench` (built now, after the timing), whose
    # judge may know more than the build of an older base commit.
    "$cargo" run --release --quiet -p harness --bin timerbench -- compare "$work/run-aa" \
        --rows "$name,$name-x"
else
    build copy copy
    build original original
    measure copy
    measure original
    # In the first run the copy carries the change, in the second the
    # original does: pooled, every pair is the changed row's time over the
    # unchanged one's. Read by this tree's `timerbench`.
    "$cargo" run --release --quiet -p harness --bin timerbench -- compare "$work/run-copy" \
        --rows "$name,$name-x" --swapped "$work/run-original"
fi
