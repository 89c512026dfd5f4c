//! Random streams: which generator draws what, and how the seed reaches them.
//!
//! Every random choice comes from a `ChaCha8Rng`, whose output is specified bit
//! for bit and does not depend on the platform. Its 256-bit key is the user's
//! seed (bytes 0..8, little-endian) next to a 64-bit FNV-1a hash of the workload's
//! name (bytes 8..16); the rest is zero. The name is in the key so that each
//! workload has its own streams: adding, removing or reordering workloads never
//! changes another workload's tape, and two workloads never share a stream.
//!
//! ChaCha also takes a 64-bit stream number, which splits one key into
//! independent sequences. The generator gives each kind of choice its own stream
//! (see the `*_STREAMS` constants), so that changing one part of a spec disturbs
//! as little as possible of the rest: with a fixed arrival rate, for example,
//! turning cancels on or off leaves every arrival time and delay as it was.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// First stream number of the measured phase's arrivals (four streams: see
/// [`Streams`]).
pub(crate) const ARRIVAL_STREAMS: u64 = 0;
/// First stream number of the prefill's proposals (four streams).
pub(crate) const PREFILL_STREAMS: u64 = 4;
/// The stream of the periodic tasks' periods and phases.
pub(crate) const PERIODIC_STREAM: u64 = 8;
/// The stream of a `[ratas]` workload's draws: pairs created a tick, and each
/// client's request jitter.
pub(crate) const RATAS_STREAM: u64 = 9;

/// FNV-1a, 64-bit: a fixed, documented hash (unlike `std`'s `DefaultHasher`,
/// whose algorithm may change between Rust releases).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// The ChaCha key for a seed and a workload name. See the module documentation.
pub(crate) fn key(seed: u64, name: &str) -> [u8; 32] {
    let mut key = [0; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&fnv1a(name.as_bytes()).to_le_bytes());
    key
}

/// A generator on one stream of a key.
pub(crate) fn stream(key: &[u8; 32], number: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::from_seed(*key);
    rng.set_stream(number);
    rng
}

/// The four streams that draw timer lifecycles, starting at stream `first`.
pub(crate) struct Streams {
    /// Arrival times (measured phase), or class, envelope part and age (prefill).
    pub(crate) choice: ChaCha8Rng,
    /// Whether a timer is an idle timeout, and its delay.
    pub(crate) delays: ChaCha8Rng,
    /// Re-arm counts and intervals.
    pub(crate) rearms: ChaCha8Rng,
    /// Whether a timer is cancelled, and when.
    pub(crate) cancels: ChaCha8Rng,
}

impl Streams {
    /// Streams `first..first + 4` of `key`.
    pub(crate) fn new(key: &[u8; 32], first: u64) -> Self {
        Self {
            choice: stream(key, first),
            delays: stream(key, first + 1),
            rearms: stream(key, first + 2),
            cancels: stream(key, first + 3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn names_and_seeds_give_distinct_streams() {
        let first = |seed, name| stream(&key(seed, name), 0).next_u64();
        assert_ne!(first(1, "uniform"), first(1, "timeouts"));
        assert_ne!(first(1, "uniform"), first(2, "uniform"));
        assert_eq!(first(1, "uniform"), first(1, "uniform"));
        let k = key(1, "uniform");
        assert_ne!(stream(&k, 0).next_u64(), stream(&k, 1).next_u64());
    }
}
