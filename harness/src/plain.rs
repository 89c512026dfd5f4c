//! The cross-check of the headline: the same operations replayed through the
//! same algorithm by a plain loop, with none of the harness's machinery.
//!
//! [`plain_loop`] is what a user would write to drive a timer queue from a list
//! of operations: an event loop that sleeps until the earlier of its next
//! operation and the queue's next expiry, keeps its handles in a `Vec`, and
//! hands fired timers on. It shares no code with `crate::replay` (no hooks, no
//! driver state, no buffers struct), so that a cost the harness adds by
//! accident shows up as a difference between the two.
//!
//! `timerbench crosscheck` ([`CrossCheck`]) times both, as whole passes over the
//! measured phase on fresh prefilled queues, alternating in a seeded random
//! order, and prints the ratio of their medians per (algorithm, workload). The
//! `docs/methodology.md` describes what it checks; `make crosscheck` runs it.

use std::time::Instant;

use algorithms::Algorithm;
use algorithms::Expired;
use algorithms::driven::Driven;
use algorithms::registry::{self, Payload, RowVisitor};
use algorithms::variant::row_name;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use workloads::{Op, Scale, Tape};

use crate::bench::Prepared;
use crate::failure::{Failure, print};
use crate::passes::{Untimed, Verify, elapsed_ns};
use crate::replay::{Buffers, Driver, prefilled, replay_measured, retire, workload_seed};
use crate::select::{Inputs, Selection, WorkloadSource};
use crate::stats;

/// Replays `tape.ops[from..]` and the advance to the tape's end into `queue`
/// as a plain event loop, `handles` holding the key of every timer inserted
/// before (by timer number). Returns the number of timers fired.
///
/// Never inlined, so that it is compiled as the harness's [`replay`] is: a
/// function of its own over a queue it borrows. Inlined into the cross-check
/// that calls it, the loop came out faster than the replay on `mass-cancel`
/// for reasons outside the harness (we think because the queue then lives in
/// the caller's frame, which the optimiser may treat more freely; we have not
/// confirmed it): `timerbench crosscheck` put `bitmap-wheel` at 1.30x to
/// 1.41x and `sweep-wheel` at 1.08x to 1.16x with the loop inlined, 0.99x
/// to 1.07x and 0.96x to 1.00x with both loops out of line.
///
/// [`replay`]: crate::replay::replay
#[inline(never)]
pub fn plain_loop<Q: Driven>(
    queue: &mut Q,
    tape: &Tape,
    from: usize,
    handles: &mut Vec<Q::Key>,
    fired: &mut Vec<Expired<Payload>>,
) -> u64 {
    let mut count = 0;
    let mut i = from;
    let ops = &tape.ops;
    // An event loop asks for the next expiry once per wakeup, before it sleeps.
    let mut next = queue.next_expiry();
    loop {
        let until = ops.get(i).map_or(tape.end, |op| op.at);
        // Sleep until the next operation, waking for every expiry before it.
        while let Some(due) = next.filter(|&due| due < until) {
            queue.advance(due.max(queue.now()), handles, fired);
            count += fired.len() as u64;
            std::hint::black_box(fired.as_slice());
            fired.clear();
            next = queue.next_expiry();
        }
        queue.advance(until, handles, fired);
        count += fired.len() as u64;
        std::hint::black_box(fired.as_slice());
        fired.clear();
        if i == ops.len() {
            return count;
        }
        while let Some(op) = ops.get(i).filter(|op| op.at == until) {
            match op.op {
                Op::Insert { timer, deadline } => {
                    handles.push(queue.insert(deadline, Payload::from(timer)));
                }
                Op::Cancel { timer } => {
                    let timer = Payload::from(timer);
                    std::hint::black_box(queue.cancel(&mut handles[timer as usize], timer));
                }
                Op::Reschedule { timer, deadline } => {
                    let timer = Payload::from(timer);
                    let key = &mut handles[timer as usize];
                    std::hint::black_box(queue.reschedule(key, timer, deadline));
                }
            }
            i += 1;
        }
        // A timer inserted already due fires in this tick.
        next = queue.next_expiry();
        while next.is_some_and(|due| due <= until) {
            queue.advance(until, handles, fired);
            count += fired.len() as u64;
            std::hint::black_box(fired.as_slice());
            fired.clear();
            next = queue.next_expiry();
        }
    }
}

/// One (algorithm, workload) of the cross-check.
#[derive(Clone, Debug)]
pub struct CrossCheckRow {
    /// The algorithm.
    pub algorithm: &'static str,
    /// Median ns per measured operation of the harness's whole pass.
    pub harness_ns: f64,
    /// Median ns per measured operation of the plain loop.
    pub plain_ns: f64,
    /// Timers the plain loop fired in the measured phase.
    pub plain_fired: u64,
    /// Timers the harness's replay fires in the measured phase (its
    /// verification pass, untimed). The two loops replayed the same operations
    /// only if this equals `plain_fired`; `timerbench crosscheck` refuses a
    /// comparison where it does not.
    pub harness_fired: u64,
}

/// Times the harness's whole pass and the plain loop for every algorithm in
/// `selected` on `prepared` (event driver), `repeat` times each, alternating
/// in an order drawn from `seed`.
pub struct CrossCheck<'a> {
    /// The workload.
    pub prepared: &'a Prepared,
    /// Algorithms to check.
    pub selected: &'a [String],
    /// Repetitions of each side.
    pub repeat: u32,
    /// Seed of the order.
    pub seed: u64,
    /// One row per checked algorithm.
    pub rows: Vec<CrossCheckRow>,
}

impl RowVisitor for CrossCheck<'_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        if !self.selected.iter().any(|name| name == row_name::<Q>()) {
            return;
        }
        let Ok((_, max_pending)) = crate::bench::admit::<Q>(self.prepared, Driver::Event, None)
        else {
            return;
        };
        let tape = &self.prepared.tape;
        let ops = (tape.ops.len() - tape.prefill).max(1) as f64;
        let mut buffers = Buffers::with_capacity(tape.timers as usize, max_pending);
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (mut harness, mut plain) = (Vec::new(), Vec::new());
        let mut plain_fired = 0;
        for _ in 0..self.repeat {
            let plain_first: bool = rng.random();
            for side in [plain_first, !plain_first] {
                let mut queue: Q =
                    prefilled(tape, Driver::Event, max_pending, &mut buffers, &mut Untimed);
                if side {
                    let (handles, out) = (&mut buffers.handles, &mut buffers.out);
                    let start = Instant::now();
                    plain_fired = plain_loop(&mut queue, tape, tape.prefill, handles, out);
                    plain.push(elapsed_ns(start, Instant::now()) as f64 / ops);
                } else {
                    let start = Instant::now();
                    replay_measured(&mut queue, tape, Driver::Event, &mut buffers, &mut Untimed);
                    harness.push(elapsed_ns(start, Instant::now()) as f64 / ops);
                }
                retire(queue, &mut buffers);
            }
        }
        let median = |values: &[f64]| stats::summarise(values).map_or(f64::NAN, |s| s.median);
        self.rows.push(CrossCheckRow {
            algorithm: row_name::<Q>(),
            harness_ns: median(&harness),
            plain_ns: median(&plain),
            plain_fired,
            harness_fired: harness_fired::<Q>(self.prepared, max_pending),
        });
    }
}

/// Timers fired in the measured phase by the harness's own replay (event
/// driver), counted by its untimed verification hooks.
fn harness_fired<Q: Algorithm + Driven>(prepared: &Prepared, max_pending: usize) -> u64 {
    let tape = &prepared.tape;
    let mut buffers = Buffers::with_capacity(tape.timers as usize, max_pending);
    let mut verify = Verify::new(tape.timers as usize);
    let mut queue: Q = prefilled(tape, Driver::Event, max_pending, &mut buffers, &mut verify);
    let before = verify.fired;
    replay_measured(&mut queue, tape, Driver::Event, &mut buffers, &mut verify);
    retire(queue, &mut buffers);
    verify.fired - before
}

/// What `timerbench crosscheck` was asked to check (and `timerbench ab`
/// passes on to both builds).
pub struct CrosscheckConfig {
    /// Algorithm names (default: all).
    pub algorithms: Vec<String>,
    /// Built-in workload names (default: all built-ins).
    pub workloads: Vec<String>,
    /// Seed of every random stream.
    pub seed: u64,
    /// Size of the built-in workloads.
    pub scale: Scale,
    /// Timed repetitions of each side.
    pub repeat: u32,
}

impl CrosscheckConfig {
    /// The rows and built-in workloads asked for (no sweep points, specs or
    /// traces: crosscheck replays built-ins only).
    pub fn resolve(&self) -> Result<Selection, Failure> {
        Selection::resolve(
            &self.algorithms,
            &[],
            false,
            &self.workloads,
            &Inputs::default(),
            self.scale,
        )
        .map_err(Failure::Input)
    }
}

/// `timerbench crosscheck`: the harness's whole pass against a plain loop.
pub fn crosscheck(config: &CrosscheckConfig) -> Result<(), Failure> {
    let selection = config.resolve()?;
    // Each row is printed as it is measured (a check takes minutes); a
    // closed pipe or a full stdout stops it (`failure::print`).
    print(&format!(
        "Whole-pass ns per operation (median of {}), event driver: the harness's replay and a plain loop, interleaved\n\
         {:<14} {:<26} {:>10} {:>10} {:>8}\n",
        config.repeat, "workload", "algorithm", "harness", "plain", "ratio"
    ))?;
    let mut worst: Option<(String, f64)> = None;
    for source in &selection.workloads {
        let WorkloadSource::Spec { spec, .. } = source else {
            continue;
        };
        let prepared = Prepared::new(spec.generate(config.seed), Driver::Event);
        let mut check = CrossCheck {
            prepared: &prepared,
            selected: &selection.algorithms,
            repeat: config.repeat,
            seed: workload_seed(config.seed, spec.name()),
            rows: Vec::new(),
        };
        registry::for_each_row(&mut check);
        for row in &check.rows {
            if row.plain_fired != row.harness_fired {
                return Err(Failure::Run(anyhow::anyhow!(
                    "the plain loop fired {} timers of {} on {} where the harness's replay fired {}: \
                     they did not replay the same operations, so their times cannot be compared",
                    row.plain_fired,
                    row.algorithm,
                    spec.name(),
                    row.harness_fired
                )));
            }
            let ratio = row.harness_ns / row.plain_ns;
            print(&format!(
                "{:<14} {:<26} {:>10.1} {:>10.1} {:>8.3}\n",
                spec.name(),
                row.algorithm,
                row.harness_ns,
                row.plain_ns,
                ratio
            ))?;
            let off = (ratio - 1.0).abs();
            if worst.as_ref().is_none_or(|(_, w)| off > (w - 1.0).abs()) {
                worst = Some((format!("{} on {}", row.algorithm, spec.name()), ratio));
            }
        }
    }
    if let Some((cell, ratio)) = worst {
        print(&format!("largest departure from 1: {ratio:.3} ({cell})\n"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use algorithms::binary_heap::IndexedBinaryHeap;
    use algorithms::bitmap_wheel::BitmapWheel;
    use workloads::Scale;

    #[test]
    fn the_plain_loop_fires_what_the_harness_fires() {
        for spec in workloads::builtins(Scale::Small).into_iter().take(4) {
            let prepared = Prepared::new(spec.generate(3), Driver::Event);
            let tape = &prepared.tape;
            let mut buffers = Buffers::default();
            let mut queue: BitmapWheel<Payload> =
                prefilled(tape, Driver::Event, 0, &mut buffers, &mut Untimed);
            let fired = plain_loop(
                &mut queue,
                tape,
                tape.prefill,
                &mut buffers.handles,
                &mut buffers.out,
            );
            assert_eq!(
                fired,
                harness_fired::<BitmapWheel<Payload>>(&prepared, prepared.max_pending),
                "{}",
                tape.name
            );
            assert_eq!(queue.now(), tape.end);
        }
    }

    #[test]
    fn a_cross_check_row_per_selected_algorithm() {
        let spec = workloads::builtins(Scale::Small)
            .into_iter()
            .next()
            .expect("a built-in");
        let prepared = Prepared::new(spec.generate(3), Driver::Event);
        let selected = vec!["binary-heap".to_owned()];
        let mut check = CrossCheck {
            prepared: &prepared,
            selected: &selected,
            repeat: 2,
            seed: 1,
            rows: Vec::new(),
        };
        check.visit::<IndexedBinaryHeap<Payload>>();
        check.visit::<BitmapWheel<Payload>>();
        assert_eq!(check.rows.len(), 1);
        let row = &check.rows[0];
        assert_eq!(row.algorithm, "binary-heap");
        assert!(row.harness_ns > 0.0 && row.plain_ns > 0.0);
        assert_eq!(row.plain_fired, row.harness_fired);
        assert_eq!(
            row.harness_fired,
            harness_fired::<IndexedBinaryHeap<Payload>>(&prepared, prepared.max_pending)
        );
    }
}
