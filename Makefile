# timerbench: the commands a user runs. Every target is a thin wrapper around
# cargo, so that what the README quotes is exactly what CI runs.

CARGO ?= cargo
# Size of the built-in workloads for `make results`: small, default or large.
SCALE ?= default
# Where `make results` writes its CSV files and metadata.
OUT ?= results
# Extra arguments for `timerbench run`, e.g. ARGS="--driver tick --seed 7".
ARGS ?=

.PHONY: results report test lint soak clean

## results: every algorithm on every built-in workload, into $(OUT)/ (release build).
results:
	$(CARGO) run --release -p harness --bin timerbench -- run --scale $(SCALE) --out $(OUT) $(ARGS)

## report: SVG charts, index.html and REPORT.md from the files in $(OUT)/, into $(OUT)/report/ (runs no benchmark).
report:
	$(CARGO) run --quiet -p report --bin timerbench-report -- --results $(OUT)

## test: the whole test suite (unit tests, the conformance suite for every algorithm, the CLI tests).
test:
	$(CARGO) test --workspace

## lint: formatting and clippy, as CI checks them.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## soak: millions of seeded random operations per algorithm against the reference model (release build).
soak:
	$(CARGO) test --release -p algorithms --test conformance -- --ignored soak

clean:
	$(CARGO) clean
