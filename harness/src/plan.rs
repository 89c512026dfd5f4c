//! The run plan: which timed pass runs when.
//!
//! Timings on a shared VM drift (frequency, a noisy neighbour, the page cache),
//! so the order in which contenders run must not favour any of them. Each
//! workload's timed passes are laid out as **randomised complete blocks**: one
//! block per repetition, holding every (contender, pass) exactly once, in an
//! order shuffled by a seeded generator. A burst of noise then lands on a random
//! contender in one block, not on whoever happened to run during it, and each
//! contender's repetitions are spread evenly over the workload's whole time
//! (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013,
//! recommend randomising the order of what is compared for the same reason).
//!
//! The plan is a plain list, made before anything is timed, so it can be
//! printed, tested and recorded (`repetitions.csv` keeps each pass's position).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// The two timed passes of a repetition (see `harness/src/bench.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// One clock read before and one after the measured phase: the headline.
    Whole,
    /// A clock read at every change of operation kind: the per-kind split.
    Batched,
}

impl Pass {
    /// The name used in results.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Whole => "whole",
            Pass::Batched => "batched",
        }
    }
}

/// One timed pass of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// Index of the contender in the workload's list.
    pub contender: usize,
    /// Which pass.
    pub pass: Pass,
    /// Which repetition (block) it belongs to, from 0.
    pub repetition: u32,
}

/// What one contender asks of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// Its batched passes, spread over its blocks ([`has_batched`]); 0 for
    /// none (the replay-overhead probe and a sweep point need no per-kind
    /// split).
    pub batched: u32,
    /// Its repetitions: it is in blocks `0..repeat`.
    pub repeat: u32,
}

/// Whether block `repetition` of a contender with `repeat` whole passes and
/// `batched` batched ones holds a batched pass: the blocks where
/// `repetition * batched / repeat` steps up, so that the batched passes are
/// spread evenly over the workload's time (blocks 1, 3 and 5 for three of
/// six) rather than bunched at its start, where a drift would land on them
/// all. Every block has one when `batched >= repeat`.
pub fn has_batched(repetition: u32, repeat: u32, batched: u32) -> bool {
    if repetition >= repeat || batched == 0 {
        return false;
    }
    let batched = u64::from(batched.min(repeat));
    let (r, n) = (u64::from(repetition), u64::from(repeat));
    (r + 1) * batched / n > r * batched / n
}

/// The plan for `contenders`: block `r` holds the whole pass of every
/// contender with more than `r` repetitions, and its batched pass where
/// [`has_batched`] says so, shuffled.
pub fn plan(contenders: &[Ask], seed: u64) -> Vec<Item> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut items = Vec::new();
    let blocks = contenders.iter().map(|ask| ask.repeat).max().unwrap_or(0);
    for repetition in 0..blocks {
        let mut block: Vec<Item> = contenders
            .iter()
            .enumerate()
            .filter(|(_, ask)| repetition < ask.repeat)
            .flat_map(|(contender, ask)| {
                let whole = Item {
                    contender,
                    pass: Pass::Whole,
                    repetition,
                };
                let batched = has_batched(repetition, ask.repeat, ask.batched).then_some(Item {
                    pass: Pass::Batched,
                    ..whole
                });
                std::iter::once(whole).chain(batched)
            })
            .collect();
        block.shuffle(&mut rng);
        items.extend(block);
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks(batched: &[bool], repeat: u32) -> Vec<Ask> {
        batched
            .iter()
            .map(|&batched| Ask {
                batched: if batched { repeat } else { 0 },
                repeat,
            })
            .collect()
    }

    #[test]
    fn batched_passes_are_spread_over_the_blocks() {
        let blocks = |repeat, batched| -> Vec<u32> {
            (0..repeat + 2)
                .filter(|&r| has_batched(r, repeat, batched))
                .collect()
        };
        assert_eq!(blocks(6, 3), [1, 3, 5]);
        assert_eq!(blocks(6, 6), [0, 1, 2, 3, 4, 5]);
        assert_eq!(blocks(6, 9), [0, 1, 2, 3, 4, 5]);
        assert_eq!(blocks(3, 3), [0, 1, 2]);
        assert_eq!(blocks(6, 0), Vec::<u32>::new());
        assert_eq!(blocks(2, 3), [0, 1]);
        assert_eq!(blocks(20, 3).len(), 3);
        assert_eq!(blocks(1, 3), [0]);
    }

    #[test]
    fn fewer_batched_passes_leave_whole_passes_in_every_block() {
        let items = plan(
            &[Ask {
                batched: 3,
                repeat: 6,
            }],
            5,
        );
        assert_eq!(items.len(), 6 + 3);
        let batched: Vec<u32> = items
            .iter()
            .filter(|item| item.pass == Pass::Batched)
            .map(|item| item.repetition)
            .collect();
        assert_eq!(batched, [1, 3, 5]);
    }

    #[test]
    fn fewer_repetitions_leave_the_later_blocks() {
        let mut contenders = asks(&[true, true], 4);
        contenders[1].repeat = 2;
        let items = plan(&contenders, 3);
        assert_eq!(items.len(), 4 * 2 + 2 * 2);
        assert!(
            items
                .iter()
                .filter(|item| item.contender == 1)
                .all(|item| item.repetition < 2)
        );
        // Blocks stay in order: every pass of block 0 before any of block 1.
        assert!(items.windows(2).all(|w| w[0].repetition <= w[1].repetition));
    }

    #[test]
    fn every_block_holds_every_pass_once() {
        let items = plan(&asks(&[true, true, false], 4), 9);
        assert_eq!(items.len(), 4 * 5);
        for (r, block) in items.chunks(5).enumerate() {
            let mut seen: Vec<(usize, &str)> = block
                .iter()
                .map(|item| {
                    assert_eq!(item.repetition as usize, r);
                    (item.contender, item.pass.name())
                })
                .collect();
            seen.sort_unstable();
            assert_eq!(
                seen,
                [
                    (0, "batched"),
                    (0, "whole"),
                    (1, "batched"),
                    (1, "whole"),
                    (2, "whole")
                ]
            );
        }
    }

    #[test]
    fn the_seed_decides_the_order() {
        let flags = asks(&[true; 8], 3);
        assert_eq!(plan(&flags, 1), plan(&flags, 1));
        assert_ne!(plan(&flags, 1), plan(&flags, 2));
        // Shuffled, not registry order.
        let first_block: Vec<usize> = plan(&asks(&[true; 8], 1), 1)
            .iter()
            .map(|i| i.contender)
            .collect();
        let mut sorted = first_block.clone();
        sorted.sort_unstable();
        assert_ne!(first_block, sorted);
    }
}
