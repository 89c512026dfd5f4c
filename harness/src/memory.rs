//! The cost of reaching memory: the floor under every operation on a timer that
//! is not in cache.
//!
//! A cancel reaches a timer chosen by the workload, not by the queue, so once the
//! queue outgrows the caches every cancel pays at least one miss, whatever the
//! algorithm: its arena entry, then (for a list) the neighbours it unlinks from,
//! (for a heap) the sift path. An O(1) cancel therefore costs more at 10^6
//! pending timers than at 10^3 on any real machine; the O(1) is a count of
//! steps, not of nanoseconds. This probe measures the step: the time of one
//! dependent load from a random cache line of a buffer of a given size, for
//! sizes that bracket the queues of the scaling sweep. Like the clock floor, it is
//! reported in the run metadata and never subtracted.
//!
//! The buffer is one cycle through all of its cache lines in a random order
//! (Sattolo's shuffle), so every load depends on the previous one and the
//! hardware prefetcher cannot guess the next line: the figure is latency, not
//! bandwidth.

use std::time::Instant;

use serde::Serialize;

use crate::passes::elapsed_ns;
use crate::replay::mix;

/// The buffer sizes probed: from well inside L1 to well beyond any last-level
/// cache of a VM slice; 64 MiB is what a million 64-byte timers occupy.
pub const PROBE_BYTES: [usize; 5] = [16 << 10, 256 << 10, 4 << 20, 16 << 20, 64 << 20];

/// Dependent loads timed per size.
const LOADS: usize = 2_000_000;

/// A cache line, the unit of the walk.
const LINE_BYTES: usize = 64;

/// `u64` cells per cache line; a line's first cell holds the next line's index.
const CELLS_PER_LINE: usize = LINE_BYTES / std::mem::size_of::<u64>();

/// The shuffle's seed: nothing up the sleeve, the first digits of pi.
const SEED: u64 = 0x3141_5926_5358_9793;

/// The latency of a dependent random load from a buffer of `bytes`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MemoryLatency {
    /// The buffer's size in bytes.
    pub bytes: usize,
    /// Mean nanoseconds per load (the clock is read twice per size, not per load).
    pub ns_per_load: f64,
}

/// Probes every size of [`PROBE_BYTES`]. Takes about a second.
pub fn probe() -> Vec<MemoryLatency> {
    PROBE_BYTES
        .iter()
        .map(|&bytes| MemoryLatency {
            bytes,
            ns_per_load: ns_per_load(bytes),
        })
        .collect()
}

/// Times [`LOADS`] dependent loads through a random cycle of the cache lines of
/// a `bytes`-long buffer.
fn ns_per_load(bytes: usize) -> f64 {
    let lines = (bytes / LINE_BYTES).max(2);
    let order = cycle(lines, SEED);
    let mut cells = vec![0u64; lines * CELLS_PER_LINE];
    for (line, &next) in order.iter().enumerate() {
        cells[line * CELLS_PER_LINE] = next as u64;
    }
    // One lap unmeasured, so that the measured loads find the buffer as warm as
    // its size allows.
    let mut at = walk(&cells, 0, lines);
    let start = Instant::now();
    at = walk(&cells, at, LOADS);
    let ns = elapsed_ns(start, Instant::now());
    std::hint::black_box(at);
    ns as f64 / LOADS as f64
}

/// Follows `steps` links from line `from` and returns the line reached.
#[inline(never)]
fn walk(cells: &[u64], from: usize, steps: usize) -> usize {
    let mut at = from;
    for _ in 0..steps {
        at = cells[at * CELLS_PER_LINE] as usize;
    }
    at
}

/// A permutation of `0..n` that is a single cycle (`next[i]` is the successor of
/// `i`), drawn with Sattolo's algorithm from a splitmix64 stream seeded `seed`.
fn cycle(n: usize, seed: u64) -> Vec<usize> {
    let mut items: Vec<usize> = (0..n).collect();
    let mut state = seed;
    for i in (1..n).rev() {
        let j = (splitmix64(&mut state) % i as u64) as usize;
        items.swap(i, j);
    }
    // `items` is a cyclic order; turn it into successor form.
    let mut next = vec![0; n];
    for k in 0..n {
        next[items[k]] = items[(k + 1) % n];
    }
    next
}

/// One step of splitmix64 (the checksum's finaliser over a Weyl sequence): a
/// small, well-mixed stream with no dependency.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix(*state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_is_one_cycle_through_every_line() {
        for n in [2, 3, 10, 1_000] {
            let next = cycle(n, SEED);
            let mut seen = vec![false; n];
            let mut at = 0;
            for _ in 0..n {
                assert!(!seen[at], "line {at} visited twice in a cycle of {n}");
                seen[at] = true;
                at = next[at];
            }
            assert_eq!(at, 0, "the cycle of {n} closes after n steps");
        }
    }

    #[test]
    fn the_cycle_is_the_same_for_the_same_seed() {
        assert_eq!(cycle(100, SEED), cycle(100, SEED));
        assert_ne!(cycle(100, SEED), cycle(100, SEED + 1));
    }
}
