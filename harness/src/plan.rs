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
    /// Whether it runs batched passes too (the replay-overhead probe needs no
    /// per-kind split).
    pub batched: bool,
    /// Its repetitions: it is in blocks `0..repeat`.
    pub repeat: u32,
}

/// The plan for `contenders`: block `r` holds the whole (and batched) pass of
/// every contender with more than `r` repetitions, shuffled.
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
                let batched = ask.batched.then_some(Item {
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
            .map(|&batched| Ask { batched, repeat })
            .collect()
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
