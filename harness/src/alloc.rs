//! A counting global allocator: live bytes, peak bytes and allocation calls.
//!
//! It wraps the system allocator and keeps three relaxed atomic counters, so the
//! harness can report each algorithm's peak memory and bytes per pending timer,
//! and check that the measured phase does not allocate. The counters cost a few
//! uncontended atomic adds per allocation; the measured loops of a well-behaved
//! algorithm do not allocate at all, so they do not pay it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The allocator, installed as `#[global_allocator]` in `main.rs`.
pub struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);
static CALLS: AtomicU64 = AtomicU64::new(0);

#[inline]
fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes as u64, Relaxed) + bytes as u64;
    PEAK.fetch_max(live, Relaxed);
    CALLS.fetch_add(1, Relaxed);
}

#[inline]
fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes as u64, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments and only
// adds bookkeeping on atomics, so `System`'s guarantees carry over unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrank(layout.size());
        grew(new_size);
        // SAFETY: forwarded with the caller's arguments.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// A reading of the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Bytes allocated and not yet freed.
    pub live: u64,
    /// The largest `live` since the last [`reset_peak`].
    pub peak: u64,
    /// Allocation calls (alloc, alloc_zeroed, realloc) since the process started.
    pub calls: u64,
}

/// Reads the counters.
pub fn snapshot() -> Snapshot {
    Snapshot {
        live: LIVE.load(Relaxed),
        peak: PEAK.load(Relaxed),
        calls: CALLS.load(Relaxed),
    }
}

/// Lowers the peak to the current live bytes, to start a new measurement.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}
