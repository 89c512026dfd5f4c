# timerbench: the commands a user runs. Every target is a thin wrapper around
# cargo, so that what the README quotes is exactly what CI runs.

CARGO ?= cargo

.PHONY: test lint soak clean

## test: the whole test suite (unit tests and the conformance suite for every algorithm).
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
