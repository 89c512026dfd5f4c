# timerbench: the commands a user runs. Every target is a thin wrapper around
# cargo, so that what the README quotes is exactly what CI runs.

CARGO ?= cargo
# Size of the built-in workloads for `make results`: small, default or large.
SCALE ?= default
# Where `make results` writes its CSV files and metadata.
OUT ?= results
# The cargo profile of the commands that measure (results, crosscheck, counts):
# release (fat LTO, one codegen unit) for figures anyone publishes; CI's smoke
# runs use `test`, which `make test` has already built.
PROFILE ?= release
# The cargo profile of the tools that measure nothing (docs, report): `test`,
# so that they reuse what `make test` built instead of a third build.
TOOLS_PROFILE ?= test
# Extra arguments for `timerbench run`, e.g. ARGS="--driver tick --seed 7".
ARGS ?=
# The threaded mode `make results` adds after the single-threaded passes
# (threaded.csv: every row, a crate through its native row, on two workloads,
# one and two producers, three sharings, six repetitions; about two and a
# half minutes, see harness/src/threaded/defaults.rs). THREADED= leaves it out.
THREADED ?= --threaded
# Which criterion benchmarks `make bench` runs: a regex over <group>/<algorithm>/<N>,
# e.g. FILTER='^insert/' or FILTER='hierarchical-wheel/1000000'. Empty: all of them.
FILTER ?=
# The runs `make compare` sets side by side: NEW judged against BASE.
BASE ?= results
NEW ?=
# The git revision `make ab` judges this tree against, how many rounds (pairs
# of runs), and the repetitions inside each run.
REV ?= main
ROUNDS ?= 6
AB_REPEAT ?= 3
# `make paired`: a diff of one design's file (e.g. one in docs/lab/patches/),
# the commit it applies to (default: its `Base:` line), the design's file for an
# A/A check without a patch, the workloads and the repetitions.
PATCH ?=
PATCH_BASE ?=
FILE ?=
WORKLOADS ?=
REPEAT ?=
# Extra flags for `make report`, e.g. REPORT_ARGS='--highlight sweep-wheel,bitmap-wheel'.
REPORT_ARGS ?=
# Extra criterion flags for `make bench`, e.g. BENCH_ARGS=--noplot or BENCH_ARGS=--test.
BENCH_ARGS ?=

.PHONY: results report crosscheck ab paired counts compare docs bench bench-smoke test test-all test-slow lint soak clean

## results: every algorithm on every built-in workload, into $(OUT)/ (release build), then the threaded mode (THREADED= to leave it out).
results:
	$(CARGO) run --profile $(PROFILE) -p harness --bin timerbench -- run --scale $(SCALE) --out $(OUT) $(THREADED) $(ARGS)

## crosscheck: the headline against a plain loop: the harness's whole pass and a plain event loop over the same tape, interleaved, per algorithm and workload (prints; writes nothing).
crosscheck:
	$(CARGO) run --profile $(PROFILE) -p harness --bin timerbench -- crosscheck --scale $(SCALE) $(ARGS)

## ab: did a change help? The first recipe to reach for: builds REV (default main) and this tree, runs `timerbench run` from each in turn ROUNDS times (default 6, the fewest that give a verdict; REPEAT repetitions each, default 3) into target/ab/runs/, then `timerbench compare` pairs the runs round by round and judges every cell, e.g. `make ab ARGS=--algorithms=sweep-wheel`.
ab:
	REV='$(REV)' ROUNDS='$(ROUNDS)' REPEAT='$(AB_REPEAT)' SCALE='$(SCALE)' ARGS='$(ARGS)' CARGO='$(CARGO)' sh harness/scripts/ab.sh

## paired: did a change to one design help, judged in one process: PATCH applied to a copy of the design compiled as a second row, then to the original, each build's two rows run together (REPEAT, default 150, repetitions on WORKLOADS, default heavy-tail,scaling-1e4,kernel-timeouts) and paired by repetition with `timerbench compare --rows`; without PATCH, an A/A check of an unchanged copy. E.g. `make paired PATCH=docs/lab/patches/sweep-wheel-chunks.patch` (two release builds of about 2 minutes, then about 15 s per workload and build).
paired:
	PATCH='$(PATCH)' PATCH_BASE='$(PATCH_BASE)' FILE='$(FILE)' WORKLOADS='$(WORKLOADS)' REPEAT='$(REPEAT)' CARGO='$(CARGO)' sh harness/scripts/paired.sh

## counts: instructions, simulated cache misses and simulated branch mispredictions per operation under Valgrind's callgrind, into $(OUT)/counts.csv (installs Debian's valgrind where it is missing and apt-get can; about 17 to 29 minutes at the default scale on the 2-core VM, 2 to 8 at SCALE=small).
counts:
	@command -v valgrind >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq valgrind; } || true
	$(CARGO) run --profile $(PROFILE) -p harness --bin timerbench -- counts --scale $(SCALE) --out $(OUT) $(ARGS)

## compare: NEW's runs against BASE's (default: results), cell by cell; each side one results directory or several separated by commas, paired in order. A verdict needs six pairs of runs (`make ab` makes them); one run a side prints the figures and their spread (measures nothing).
compare:
	@test -n "$(NEW)" || { echo "make compare: say which run to judge, e.g. make compare NEW=/tmp/mine (BASE defaults to results)" >&2; exit 2; }
	$(CARGO) run --release --quiet -p harness --bin timerbench -- compare $(BASE) $(NEW) $(ARGS)

## docs: rewrite README.md's generated blocks (the algorithm and systems tables from the registry, the headline and findings from the run in results/) and workloads/README.md's table of built-in workloads from their tapes (after a new reference run, or adding or changing an algorithm or a workload; `make test` fails until they match).
docs:
	$(CARGO) run --quiet --profile $(TOOLS_PROFILE) -p harness --bin timerbench -- docs --readme README.md --workloads-readme workloads/README.md

## report: SVG charts, index.html and REPORT.md from the files in $(OUT)/, into $(OUT)/report/ (runs no benchmark).
report:
	$(CARGO) run --quiet --profile $(TOOLS_PROFILE) -p report --bin timerbench-report -- --results $(OUT) $(REPORT_ARGS)

## bench: the criterion micro-benchmarks, every algorithm at a fixed pending N (about 8 minutes with the default rows); report in target/criterion/report/index.html.
bench:
	$(CARGO) bench -p micro --bench timers -- $(BENCH_ARGS) $(if $(FILTER),'$(FILTER)')

## bench-smoke: every criterion micro-benchmark run once, in the test profile (criterion's test mode), as CI checks them. Through --workspace, so that it reuses what `make test` built (`-p micro` would unify features differently and rebuild the workspace).
bench-smoke:
	$(CARGO) test --workspace --benches

## test: the fast tier: unit tests, the conformance suite for every algorithm (100 random sequences each), the CLI and report tests; no Valgrind, browser, large tapes or whole runs, and no criterion build.
test:
	$(CARGO) test --workspace --exclude micro

## test-all: the fast tier, then the slow one (what CI runs).
test-all: test test-slow

## test-slow: the slow tier alone: the tests marked `slow tier` (Valgrind's counts, the report in Chromium, the large tapes, whole runs compared for determinism) and the conformance suite's random sequences with 1,000 cases per algorithm; the soak stays in `make soak`.
test-slow:
	$(CARGO) test --workspace --exclude micro -- --ignored --skip ::soak
	PROPTEST_CASES=1000 $(CARGO) test --workspace --exclude micro --test conformance -- differential_proptest

## lint: formatting and clippy, as CI checks them.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## soak: millions of seeded random operations per algorithm against the reference model (release build).
soak:
	$(CARGO) test --release -p algorithms --test conformance -- --ignored soak

clean:
	$(CARGO) clean

# `make capture`: how long to record when LOAD is empty (with a LOAD, its
# expected length, which sizes the trace buffer), the shell command to record
# (empty: the machine as it is), the raw trace written (.gz: compressed), and
# a note for its header on the conditions (e.g. what else was running).
SECONDS ?= 30
LOAD ?=
CAPTURE_OUT ?= target/capture/trace.txt
NOTE ?=

.PHONY: capture

## capture: record this machine's kernel timers (timer_list and hrtimer events, via ftrace) while LOAD runs or for SECONDS, into CAPTURE_OUT with NOTE in its header, e.g. `sudo make capture LOAD='redis-benchmark -q -n 100000'`; needs root and tracefs (refuses with the fix otherwise), and always turns tracing off again. Import with `workloads::import_ftrace`.
capture:
	CAPTURE_SECONDS='$(SECONDS)' LOAD='$(subst ','\'',$(LOAD))' CAPTURE_OUT='$(CAPTURE_OUT)' CAPTURE_NOTE='$(subst ','\'',$(NOTE))' sh workloads/scripts/capture.sh
