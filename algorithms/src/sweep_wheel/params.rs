//! The wheel's parameters: the widths of its levels, and the sizes that
//! decide which structure holds a timer and when memory is given back. The
//! module documentation of [`super`] says why each has its value. Apart from
//! `PREFETCH_AHEAD`, they are public as `algorithms::sweep_wheel::*`.

use crate::MAX_DEADLINE;
use crate::sorted_ring;

/// Bits of a deadline that level 0 resolves: it has `2^NEAR_BITS` slots of
/// one tick each.
pub const NEAR_BITS: u32 = 10;

/// Level 0's slots: 1,024 ticks, each its own slot.
pub const NEAR_SLOTS: usize = 1 << NEAR_BITS;

/// Bits of a deadline per level above 0: 64 slots, one `u64` bitmap, as in
/// tokio.
pub const FAR_BITS: u32 = 6;

/// Slots per level above 0.
pub const FAR_SLOTS: usize = 1 << FAR_BITS;

/// Levels: level 0 and enough 64-slot levels above it to hold bit 62 of
/// [`MAX_DEADLINE`] (10 with a 10-bit level 0).
pub const LEVELS: usize = 1 + (MAX_DEADLINE.ilog2() + 1 - NEAR_BITS).div_ceil(FAR_BITS) as usize;

/// A taken slot's vector keeps its capacity up to this many handles (512
/// bytes) whatever happens: below it a vector costs little to keep and more
/// to grow again.
pub const KEEP_HANDLES: usize = 64;

/// A taken slot's larger vector is freed instead of kept when fewer than one
/// in `SHRINK_RATIO` of the arena's entries hold a pending timer: the wheel
/// once held eight times what it holds now, so the vector was sized for a
/// spike that is gone. In a steady state the population stays near its
/// high-water mark and every vector keeps its capacity.
pub const SHRINK_RATIO: usize = 8;

/// A wheel that empties after holding at least this many timers at once gives
/// all its storage back (see `release`); a smaller one keeps it, so that a
/// queue that empties and refills often does not free and grow its arena
/// each time (4,096 entries are about 96 KiB of arena with 8-byte payloads).
pub const RELEASE_MIN_TIMERS: usize = 4_096;

/// The room for handles that `TimerQueue::reserve` gives each empty ring
/// slot when told of at least [`NEAR_SLOTS`] timers: what a vector's first
/// push would allocate anyway (4 handles, 32 bytes), allocated up front so
/// that the ring's first lap does not (see `memory.rs`).
pub const RESERVE_RING_HANDLES: usize = 4;

/// The most handles (current or stale) the short list holds: a wheel is a
/// short list until it would hold more, or until it is told of a larger
/// population (`TimerQueue::reserve`).
pub const SHORT_MAX: usize = sorted_ring::CAPACITY;

/// How many handles ahead a sweep asks for a timer's arena entry
/// (`Arena::prefetch`), so that the load is under way when the sweep gets
/// there.
pub(super) const PREFETCH_AHEAD: usize = 8;

/// The most handles a taken slot of level 2 or above may hold for its
/// timers to go into the sorted run (see `take_slot`) rather than into the
/// levels below: 128 to 512 counted the same on `sparse`, 4,096 more.
pub const RUN_MAX: usize = 256;
