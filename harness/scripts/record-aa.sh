#!/bin/sh
# Records the A/A fixtures that hold the judge's calibration
# (harness/tests/aa.rs): runs in which nothing changed, made on this machine,
# which `timerbench compare` must judge "no significant change" on at least
# 95% of cells. Two kinds, both at small scale on five rows:
#
#   same/1 ... same/12       one release binary run twelve times back to back
#                            (odd against even: the same binary, separate runs)
#   builds/base-1 ... new-6  `make ab REV=HEAD`: two builds of one commit, run
#                            in turn six times (harness/scripts/ab.sh)
#
# Each run is trimmed to what the runs form of `compare` reads:
# metadata.json, runs.csv and the whole-pass rows of repetitions.csv. Run it
# on a quiet machine (nothing else compiling); it takes two release builds
# and 24 small runs.
set -eu
root=$(git rev-parse --show-toplevel)
cd "$root"
cargo=${CARGO:-cargo}
rows=binary-heap,sweep-wheel,hierarchical-wheel,timer-queue-native,btree-map
repeat=3
fixtures=$root/harness/tests/fixtures/aa
scratch=$root/target/aa
rm -rf "$scratch"
mkdir -p "$scratch/same" "$scratch/builds"

"$cargo" build --release --quiet -p harness --bin timerbench
exe=$root/target/release/timerbench
i=1
while [ "$i" -le 12 ]; do
    echo "same binary: run $i of 12" >&2
    "$exe" run --scale small --algorithms "$rows" --repeat "$repeat" --out "$scratch/same/$i" >/dev/null 2>&1
    i=$((i + 1))
done
REV=HEAD SCALE=small REPEAT=$repeat ARGS="--algorithms=$rows" RUNS_DIR=$scratch/builds \
    sh harness/scripts/ab.sh

# Copies run $1 into $2, trimmed.
trim() {
    mkdir -p "$2"
    cp "$1/metadata.json" "$1/runs.csv" "$2/"
    awk -F, 'NR == 1 || $8 == "whole"' "$1/repetitions.csv" >"$2/repetitions.csv"
}
rm -rf "$fixtures"
for run in "$scratch"/same/*/; do
    trim "$run" "$fixtures/same/$(basename "$run")"
done
for run in "$scratch"/builds/*/; do
    trim "$run" "$fixtures/builds/$(basename "$run")"
done
echo "recorded $fixtures" >&2
