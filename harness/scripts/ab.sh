#!/bin/sh
# Did a change help, measured back to back: `make ab` calls this. It builds
# the git revision REV (default main) in a worktree under target/ab/, and
# this tree, both in release; then, ROUNDS times (default 6), runs
# `timerbench run` once from each build, the order alternating from round to
# round, each into its own results directory under target/ab/runs/; and
# last judges this tree's runs against REV's with `timerbench compare
# BASE-1,...,BASE-n NEW-1,...,NEW-n`, which pairs the i-th runs (made next to
# each other) and reads every figure from the runs' files. Every setting
# comes from the environment:
#
#   REV      the git revision to judge against (default main)
#   ROUNDS   pairs of runs (default 6, the fewest that give a verdict)
#   REPEAT   repetitions inside each run (default 3; each run gives the median;
#            `make ab` takes it as AB_REPEAT, since REPEAT is `make paired`'s)
#   SCALE    size of the built-in workloads (default `default`)
#   ARGS     more flags for `timerbench run`, e.g. ARGS=--algorithms=sweep-wheel
#   DEADLINE seconds one run may take before it is stopped (default 3600)
#   RUNS_DIR where the runs go (default target/ab/runs/<UTC time>)
#
# REV must write results of the schema this tree reads (any commit since
# `timerbench run --out` writes schema version 3). Nothing is timed while
# either build compiles.
set -eu

die() {
    echo "make ab: $*" >&2
    exit 2
}

started=$(date +%s)
root=$(git rev-parse --show-toplevel) || die "not inside the timerbench git repository"
cd "$root"
cargo=${CARGO:-cargo}
rev=${REV:-main}
rounds=${ROUNDS:-6}
repeat=${REPEAT:-3}
scale=${SCALE:-default}
args=${ARGS:-}
deadline=${DEADLINE:-3600}
case $rounds in '' | *[!0-9]* | 0) die "ROUNDS=$rounds: give a whole number of rounds, 1 or more (6 give a verdict)" ;; esac
case $repeat in '' | *[!0-9]* | 0) die "REPEAT=$repeat: give a whole number of repetitions, 1 or more" ;; esac
case $deadline in '' | *[!0-9]* | 0) die "DEADLINE=$deadline: give whole seconds, 1 or more" ;; esac
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || die "REV=$rev is not a git revision here"

work=$root/target/ab
git worktree remove --force "$work/tree" 2>/dev/null || true
git worktree prune
mkdir -p "$work"
git worktree add --quiet --detach "$work/tree" "$commit"
echo "building REV $rev ($(git rev-parse --short "$commit"))" >&2
(cd "$work/tree" && CARGO_TARGET_DIR=$work/target "$cargo" build --release --quiet -p harness --bin timerbench) ||
    { git worktree remove --force "$work/tree"; die "REV $rev does not build"; }
git worktree remove --force "$work/tree"
echo "building this tree" >&2
"$cargo" build --release --quiet -p harness --bin timerbench
base_exe=$work/target/release/timerbench
new_exe=$root/target/release/timerbench

runs=${RUNS_DIR:-$work/runs/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$runs"
# Runs one build into $runs/$2-$3, stopped (with its process group) past
# the deadline.
measure() {
    # shellcheck disable=SC2086 # ARGS is a list of flags.
    timeout --kill-after=10 "$deadline" "$1" run --scale "$scale" --repeat "$repeat" \
        --out "$runs/$2-$3" $args >"$runs/$2-$3.log" 2>&1 ||
        { tail -n 20 "$runs/$2-$3.log" >&2; die "the $2 build's run $3 failed or passed DEADLINE=$deadline s (its log above)"; }
}
base_list=
new_list=
round=1
while [ "$round" -le "$rounds" ]; do
    echo "round $round of $rounds" >&2
    if [ $((round % 2)) -eq 1 ]; then
        measure "$base_exe" base "$round"
        measure "$new_exe" new "$round"
    else
        measure "$new_exe" new "$round"
        measure "$base_exe" base "$round"
    fi
    base_list=${base_list:+$base_list,}$runs/base-$round
    new_list=${new_list:+$new_list,}$runs/new-$round
    round=$((round + 1))
done
echo "this tree (NEW) against REV $rev (BASE), $rounds pairs of runs in $runs" >&2
status=0
"$new_exe" compare "$base_list" "$new_list" || status=$?
elapsed=$(($(date +%s) - started))
echo "make ab took $((elapsed / 60)) min $((elapsed % 60)) s, builds included" >&2
exit "$status"
