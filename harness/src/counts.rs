//! Counts that noise cannot move: instructions, simulated cache misses and
//! simulated branch mispredictions per operation, from Valgrind's callgrind.
//!
//! Timings on a shared VM move by up to 1.5x from run to run and the guest has
//! no hardware counters. An instruction count and a simulated cache do not
//! move: the same binary, tape and cache geometry give the same counts on any
//! machine, whatever else it is doing. `timerbench counts` (`make counts`)
//! gives them per (algorithm, workload), beside the times of `make results`.
//!
//! # How a cell is counted
//!
//! The parent process (`timerbench counts`, native speed) generates each
//! workload, runs the reference model to learn its largest pending population,
//! applies the same skip rules as a run, and writes the tape to a file. For
//! every cell it then starts a child, `valgrind --tool=callgrind ...
//! timerbench count-cell ...`, which reads the tape the parent wrote (on its
//! standard input), prefills a fresh queue exactly as a timed pass does, and
//! replays the measured phase (or its first `--ops` operations) through
//! [`measured_phase`], on a thread of its own (see [`count_job`] for why). Callgrind simulates the caches from the first
//! instruction, so the measured phase starts with the caches the prefill left,
//! but it *collects* only inside [`measured_phase`] (`--collect-atstart=no
//! --toggle-collect=...`): tape generation and prefill cost nothing in the
//! counts. Each queue call of the measured phase goes through one
//! `#[inline(never)]` function per kind ([`counted_insert`] and its siblings),
//! and callgrind records the inclusive cost of every call to each; summed,
//! those are the per-kind counts. The `all` row is everything collected inside
//! [`measured_phase`]: the queue's calls, its `next_expiry()` questions and the
//! replay loop, as the whole pass's headline is.
//!
//! Why no client requests: callgrind's own `--toggle-collect` does what we
//! need, and the crates that issue client requests from Rust
//! (`valgrind-requests`, `crabgrind`) need Valgrind's C headers at build time,
//! which would make every build of the harness, not only a counting one,
//! depend on Valgrind being installed. The output file is callgrind's
//! documented format (the "Callgrind Format Specification" of the Valgrind
//! manual), read by [`parse_callgrind`], not a tool's printed summary.
//!
//! # What the counts include, and what they do not
//!
//! * The per-kind figures include the call into the marked function and its
//!   return (a few instructions); the timed passes inline those calls. The
//!   `all` row includes the replay loop, as the whole pass does.
//! * The caches are simulated with one fixed geometry ([`CACHE_GEOMETRY`]), not
//!   this machine's, so that a reader anywhere gets the same numbers; callgrind
//!   simulates two levels (L1 and a last level) with LRU replacement and no
//!   prefetcher, so a miss here is a miss of that model, not a measured one.
//! * Branches are simulated too (`--branch-sim=yes`), with Valgrind's model:
//!   its manual describes it as "typical of mainstream desktop/server
//!   processors of around 2004", a conditional branch predicted by one of
//!   16,384 two-bit counters chosen by the branch's address and the last few
//!   branches' outcomes, an indirect one by the last target of one of 512
//!   entries. A core of today predicts better (longer histories, more
//!   tables), so a mispredict counted here may be predicted there; a branch
//!   whose outcome is random (a deadline near or far, a handle stale or
//!   current) is mispredicted by both about as often. They are counted
//!   because a misprediction costs some 15 cycles, the order of an L2 hit:
//!   were a real core to miss as often as the model, the 1.6 per operation
//!   of `sweep-wheel` on `heavy-tail` would be about a third of its 27 ns
//!   (at 2.6 GHz), so the model's figure is an upper bound on that share,
//!   not a measure of it. They are the one figure that
//!   is not byte-identical from run to run: the predictor's counters carry
//!   into the counted region what the branches of the process's start-up
//!   left in them, and those depend on the executable's path and the
//!   environment. Two runs agree to within a few mispredictions in 100,000
//!   (`tests/counts.rs` holds them to 0.1%).
//! * Estimated cycles are callgrind's usual weighting (as KCachegrind and
//!   iai-callgrind compute it): one per instruction, 10 per L1 miss, 100 per
//!   last-level miss. A ranking by them ignores overlap of misses, which is
//!   what real out-of-order cores are best at. They leave mispredictions
//!   out, so that they mean what they meant before branches were counted.
//! * Callgrind runs a child 20 to 100 times slower than native. Most of a
//!   cell's time is the prefill, so every cell counts its whole measured
//!   phase unless `--ops` says otherwise; the parent generates each tape once
//!   and hands it to the children as a file ([`write_tape`]), because
//!   generating it again under callgrind cost more than the replay.

use std::collections::HashMap;
use std::path::Path;

use algorithms::driven::Driven;
use algorithms::registry::{Payload, RowVisitor};
use algorithms::variant::row_name;
use algorithms::{Algorithm, Expired, Tick};
use anyhow::{Context, Result, bail};
use workloads::{Op, Tape, TimedOp};

use crate::bench::{Prepared, admit};
use crate::replay::{Buffers, Driver, Hooks, prefilled, replay, retire};
use schema::{CountRow, SCHEMA_VERSION};

/// Callgrind's event names, in the order of [`Counts::events`]: instructions,
/// data reads, data writes, then L1 instruction, L1 data-read and L1
/// data-write misses, then the same three at the last level, then
/// conditional branches and their mispredictions, then indirect branches
/// and theirs.
pub const EVENTS: [&str; EVENT_COUNT] = [
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
];
/// Number of [`EVENTS`].
pub const EVENT_COUNT: usize = 13;

/// The simulated caches, as callgrind's `--I1`, `--D1` and `--LL` options
/// (size in bytes, associativity, line size). L1 is this VM's Xeon core's
/// (48 KiB 12-way data, 32 KiB 8-way instructions); the last level is 32 MiB
/// 16-way, a server's shared L3 as one core sees it. Fixed, so that the counts
/// do not depend on the machine that makes them; the run's metadata records it.
pub const CACHE_GEOMETRY: [(&str, &str); 3] = [
    ("--I1", "32768,8,64"),
    ("--D1", "49152,12,64"),
    ("--LL", "33554432,16,64"),
];

/// Weight of an L1 miss and of a last-level miss in [`Counts::estimated_cycles`].
const L1_MISS_CYCLES: u64 = 10;
const LL_MISS_CYCLES: u64 = 100;

/// The name callgrind's `--toggle-collect` matches: collection is on exactly
/// while [`measured_phase`] runs.
pub const COLLECT_PATTERN: &str = "*counts::measured_phase*";

/// The per-kind marked functions, by the name callgrind gives them, in the
/// order of [`Kind`](crate::passes::Kind)'s results (insert, cancel,
/// reschedule, advance).
pub const MARKED: [(&str, &str); 4] = [
    ("insert", "counts::counted_insert"),
    ("cancel", "counts::counted_cancel"),
    ("reschedule", "counts::counted_reschedule"),
    ("advance", "counts::counted_advance"),
];

/// Callgrind's counts of one region: one value per [`EVENTS`] entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// The event counts, in [`EVENTS`] order.
    pub events: [u64; EVENT_COUNT],
}

impl Counts {
    /// Adds a cost line's values (which may stop early: missing trailing
    /// events are zero).
    fn add(&mut self, values: &[u64]) {
        for (total, value) in self.events.iter_mut().zip(values) {
            *total += value;
        }
    }

    /// Instructions executed.
    pub fn instructions(&self) -> u64 {
        self.events[0]
    }

    /// Simulated L1 misses: instruction fetch, data read and data write.
    pub fn l1_misses(&self) -> u64 {
        self.events[3] + self.events[4] + self.events[5]
    }

    /// Simulated last-level misses: instruction fetch, data read and data write.
    pub fn ll_misses(&self) -> u64 {
        self.events[6] + self.events[7] + self.events[8]
    }

    /// Branches executed: conditional and indirect.
    pub fn branches(&self) -> u64 {
        self.events[9] + self.events[11]
    }

    /// Simulated branch mispredictions: conditional and indirect.
    pub fn branch_misses(&self) -> u64 {
        self.events[10] + self.events[12]
    }

    /// Callgrind's usual cycle estimate: instructions plus 10 per L1 miss plus
    /// 100 per last-level miss (mispredictions are not weighted).
    pub fn estimated_cycles(&self) -> u64 {
        self.instructions() + L1_MISS_CYCLES * self.l1_misses() + LL_MISS_CYCLES * self.ll_misses()
    }
}

/// What one callgrind output file says about a counted cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Everything collected (the `totals:` line).
    pub total: Counts,
    /// Per [`MARKED`] function: the calls made to it and their inclusive cost.
    pub kinds: [(u64, Counts); 4],
}

/// Reads a callgrind output file (`--compress-strings` and `--compress-pos`
/// either way): the `events:` header to order the columns, the `totals:` (or
/// `summary:`) line, and, for every call arc (`calls=` line) whose callee is
/// one of [`MARKED`], the call count and the inclusive cost on the line that
/// follows it.
pub fn parse_callgrind(text: &str) -> Result<Parsed> {
    let mut columns: Option<Vec<Option<usize>>> = None;
    let mut positions = 1;
    let mut names: HashMap<String, String> = HashMap::new();
    let mut callee: Option<usize> = None;
    let mut pending_calls: Option<(usize, u64)> = None;
    let mut parsed = Parsed::default();
    let mut saw_total = false;
    for (number, line) in text.lines().enumerate() {
        let at = || format!("line {} of the callgrind output", number + 1);
        if let Some((kind, calls)) = pending_calls.take() {
            let columns = columns.as_ref().context("a cost line before `events:`")?;
            let values = cost_values(line, positions, columns).with_context(at)?;
            parsed.kinds[kind].0 += calls;
            parsed.kinds[kind].1.add(&values);
            continue;
        }
        if let Some(rest) = line.strip_prefix("events:") {
            let order = rest
                .split_whitespace()
                .map(|name| EVENTS.iter().position(|event| *event == name))
                .collect();
            columns = Some(order);
        } else if let Some(rest) = line.strip_prefix("positions:") {
            positions = rest.split_whitespace().count().max(1);
        } else if let Some(rest) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:").filter(|_| !saw_total))
        {
            let columns = columns.as_ref().context("a totals line before `events:`")?;
            let values = cost_values(rest, 0, columns).with_context(at)?;
            parsed.total = Counts::default();
            parsed.total.add(&values);
            saw_total = true;
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            let name = resolve_name(rest, &mut names);
            callee = MARKED.iter().position(|(_, marked)| name.contains(marked));
        } else if let Some(rest) = line.strip_prefix("calls=") {
            if let Some(kind) = callee {
                let count = rest
                    .split_whitespace()
                    .next()
                    .and_then(|count| count.parse().ok())
                    .with_context(|| format!("a calls= line without a count at {}", at()))?;
                pending_calls = Some((kind, count));
            }
        } else if let Some(rest) = line.strip_prefix("fn=") {
            // A new function's block: register a compressed name, forget the callee.
            resolve_name(rest, &mut names);
            callee = None;
        } else if let Some(rest) = ["fl=", "fi=", "fe=", "cfi=", "cfl=", "ob=", "cob="]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        {
            resolve_name(rest, &mut names);
        }
    }
    if !saw_total {
        bail!("the callgrind output has no totals: or summary: line (was the run cut short?)");
    }
    Ok(parsed)
}

/// A name field of callgrind's format: `(id) name` defines a compressed name,
/// `(id)` refers to one, anything else is the name itself.
fn resolve_name(field: &str, names: &mut HashMap<String, String>) -> String {
    let field = field.trim();
    if let Some((id, name)) = field
        .strip_prefix('(')
        .and_then(|rest| rest.split_once(')'))
    {
        let name = name.trim();
        if name.is_empty() {
            return names.get(id).cloned().unwrap_or_default();
        }
        names.insert(id.to_owned(), name.to_owned());
        return name.to_owned();
    }
    field.to_owned()
}

/// The event values of a cost line, skipping its `positions` leading
/// position fields, mapped to [`EVENTS`] order through `columns` (the file's
/// `events:` order).
fn cost_values(line: &str, positions: usize, columns: &[Option<usize>]) -> Result<Vec<u64>> {
    let mut values = vec![0; EVENT_COUNT];
    for (index, field) in line.split_whitespace().skip(positions).enumerate() {
        let value: u64 = field
            .parse()
            .with_context(|| format!("{field:?} is not a count"))?;
        if let Some(Some(event)) = columns.get(index) {
            values[*event] = value;
        }
    }
    Ok(values)
}

/// Hooks that route each queue call through its kind's marked function, so
/// that callgrind can attribute it. Fired timers are consumed outside the
/// marked call, as [`crate::passes::Untimed`] consumes them.
pub struct Marked;

impl<Q: Driven> Hooks<Q> for Marked {
    #[inline(always)]
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    ) {
        counted_advance(queue, to, keys, out);
        std::hint::black_box(out.as_slice());
        out.clear();
    }

    #[inline(always)]
    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
        counted_insert(queue, deadline, timer)
    }

    #[inline(always)]
    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload) {
        std::hint::black_box(counted_cancel(queue, key, timer));
    }

    #[inline(always)]
    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload) {
        std::hint::black_box(counted_reschedule(queue, key, deadline, timer));
    }
}

/// `queue.insert`, out of line so that callgrind attributes its cost.
#[inline(never)]
pub fn counted_insert<Q: Driven>(queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
    queue.insert(deadline, timer)
}

/// `queue.cancel`, out of line so that callgrind attributes its cost.
#[inline(never)]
pub fn counted_cancel<Q: Driven>(queue: &mut Q, key: &mut Q::Key, timer: Payload) -> bool {
    queue.cancel(key, timer)
}

/// `queue.reschedule`, out of line so that callgrind attributes its cost.
#[inline(never)]
pub fn counted_reschedule<Q: Driven>(
    queue: &mut Q,
    key: &mut Q::Key,
    deadline: Tick,
    timer: Payload,
) -> bool {
    queue.reschedule(key, timer, deadline)
}

/// `queue.advance`, out of line so that callgrind attributes its cost.
#[inline(never)]
pub fn counted_advance<Q: Driven>(
    queue: &mut Q,
    to: Tick,
    keys: &mut [Q::Key],
    out: &mut Vec<Expired<Payload>>,
) {
    queue.advance(to, keys, out);
}

/// The counted region: `tape.ops[range]` through [`Marked`] hooks with the
/// event driver, then (if `finish`) the advance to the tape's end. Out of
/// line and named, so that `--toggle-collect` ([`COLLECT_PATTERN`]) collects
/// exactly this.
#[inline(never)]
pub fn measured_phase<Q: Driven>(
    queue: &mut Q,
    tape: &Tape,
    range: std::ops::Range<usize>,
    finish: bool,
    buffers: &mut Buffers<Q::Key>,
) {
    replay(
        queue,
        tape,
        range,
        finish,
        Driver::Event,
        buffers,
        &mut Marked,
    );
}

/// The measured operations a cell counts: the first `limit` of the measured
/// phase (all of it when `limit` is `None` or larger), and whether that is
/// the whole phase (then the replay also advances to the tape's end).
pub fn counted_range(tape: &Tape, limit: Option<usize>) -> (std::ops::Range<usize>, bool) {
    let measured = tape.ops.len() - tape.prefill;
    let counted = limit.map_or(measured, |limit| limit.min(measured));
    (tape.prefill..tape.prefill + counted, counted == measured)
}

/// The child's work, as a registry visitor: for the row named `algorithm`,
/// prefill a fresh queue (room for `max_pending`) and replay the counted range
/// through [`measured_phase`].
pub struct CountCell<'a> {
    /// The workload's tape.
    pub tape: &'a Tape,
    /// The row to count.
    pub algorithm: &'a str,
    /// The queue's reserve: the tape's largest pending population for it.
    pub max_pending: usize,
    /// The first this many measured operations; `None`: all.
    pub limit: Option<usize>,
    /// Whether the row was found (and counted).
    pub found: bool,
}

impl RowVisitor for CountCell<'_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        if row_name::<Q>() != self.algorithm {
            return;
        }
        self.found = true;
        let tape = self.tape;
        let mut buffers = Buffers::with_capacity(tape.timers as usize, self.max_pending);
        let mut queue: Q = prefilled(
            tape,
            Driver::Event,
            self.max_pending,
            &mut buffers,
            &mut crate::passes::Untimed,
        );
        let (range, finish) = counted_range(tape, self.limit);
        measured_phase(&mut queue, tape, range, finish, &mut buffers);
        retire(queue, &mut buffers);
    }
}

/// What names a counted cell in its rows.
pub struct Cell<'a> {
    /// The row.
    pub algorithm: &'a str,
    /// The workload.
    pub workload: &'a str,
    /// Its scale (`spec` or `trace` for a user's workload).
    pub scale: &'a str,
    /// See [`Job::reproducible`].
    pub reproducible: bool,
}

/// The `counts.csv` row (a [`CountRow`], the schema's) for `counts` spread
/// over `calls`.
pub fn count_row(cell: &Cell<'_>, operation: &str, calls: u64, counts: &Counts) -> CountRow {
    let per = |value: u64| round_per_call(value, calls);
    CountRow {
        schema_version: SCHEMA_VERSION,
        algorithm: cell.algorithm.to_owned(),
        workload: cell.workload.to_owned(),
        scale: cell.scale.to_owned(),
        operation: operation.to_owned(),
        calls,
        reproducible: cell.reproducible,
        instructions: per(counts.instructions()),
        data_reads: per(counts.events[1]),
        data_writes: per(counts.events[2]),
        l1i_misses: per(counts.events[3]),
        l1d_read_misses: per(counts.events[4]),
        l1d_write_misses: per(counts.events[5]),
        lli_misses: per(counts.events[6]),
        lld_read_misses: per(counts.events[7]),
        lld_write_misses: per(counts.events[8]),
        l1_misses: per(counts.l1_misses()),
        ll_misses: per(counts.ll_misses()),
        estimated_cycles: per(counts.estimated_cycles()),
        total_instructions: counts.instructions(),
        total_ll_misses: counts.ll_misses(),
        branches: per(counts.branches()),
        branch_misses: per(counts.branch_misses()),
        total_branch_misses: counts.branch_misses(),
    }
}

/// `value / calls` to 4 decimal places (0 for no calls): the file shows what
/// the counts can resolve, and identical counts print identically.
pub fn round_per_call(value: u64, calls: u64) -> f64 {
    if calls == 0 {
        return 0.0;
    }
    (value as f64 / calls as f64 * 10_000.0).round() / 10_000.0
}

/// The rows of one counted cell: `all` per measured operation, then each kind
/// that was called, per call.
pub fn cell_rows(cell: &Cell<'_>, measured_ops: u64, parsed: &Parsed) -> Vec<CountRow> {
    let mut rows = vec![count_row(cell, "all", measured_ops, &parsed.total)];
    for ((name, _), (calls, counts)) in MARKED.iter().zip(&parsed.kinds) {
        if *calls > 0 {
            rows.push(count_row(cell, name, *calls, counts));
        }
    }
    rows
}

/// Valgrind's absolute path and version, or an error saying how to install it.
pub fn locate_valgrind() -> Result<(std::path::PathBuf, String)> {
    let path = find_on_path("valgrind").context(
        "valgrind is not on PATH: `timerbench counts` runs every cell under Valgrind's callgrind; \
         install it with `apt-get install valgrind` (Debian, Ubuntu; `make counts` does this \
         where it can) or your system's package manager",
    )?;
    let output = crate::child::output_within(
        std::process::Command::new(&path).arg("--version"),
        VERSION_DEADLINE,
        &format!("`{} --version`", path.display()),
    )?;
    if !output.status.success() {
        bail!(
            "`{} --version` failed ({}): `timerbench counts` needs a working Valgrind",
            path.display(),
            output.status
        );
    }
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Ok((path, version))
}

/// The valgrind options every counted cell runs with, `out` its output file.
pub fn callgrind_options(out: &Path) -> Vec<String> {
    let mut options = vec![
        "--tool=callgrind".to_owned(),
        "--cache-sim=yes".to_owned(),
        "--branch-sim=yes".to_owned(),
        "--collect-atstart=no".to_owned(),
        format!("--toggle-collect={COLLECT_PATTERN}"),
        "--dump-instr=no".to_owned(),
        "--compress-strings=no".to_owned(),
        "--compress-pos=no".to_owned(),
        format!("--callgrind-out-file={}", out.display()),
    ];
    for (option, value) in CACHE_GEOMETRY {
        options.push(format!("{option}={value}"));
    }
    options
}

/// The cells of one workload, planned natively by the parent: for each
/// selected row, the queue's reserve (the largest pending population it will
/// hold), or why the row is skipped, by the same rules as a run.
pub struct PlanCells<'a> {
    /// The workload, with its reference run.
    pub prepared: &'a Prepared,
    /// The rows to count.
    pub selected: &'a [String],
    /// One entry per selected row, in registry order: its name, whether its
    /// counts are reproducible (see [`Job::reproducible`]), and its reserve
    /// or why it is skipped.
    pub cells: Vec<(&'static str, bool, Result<usize, String>)>,
}

impl RowVisitor for PlanCells<'_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        if self.selected.iter().any(|name| name == row_name::<Q>()) {
            let admitted = admit::<Q>(self.prepared, Driver::Event, None);
            let max_pending = admitted.map(|(_, max_pending)| max_pending);
            self.cells
                .push((row_name::<Q>(), !Q::CLOCK_EPOCH, max_pending));
        }
    }
}

/// One counted cell: what the parent asks a child under callgrind to replay.
#[derive(Clone, Debug)]
pub struct Job {
    /// The row.
    pub algorithm: String,
    /// The workload.
    pub workload: String,
    /// Its scale as the result files give it: a built-in's, `spec` or `trace`.
    pub scale: String,
    /// The workload's tape, as [`write_tape`] wrote it, by its name in the
    /// scratch directory.
    pub tape_file: String,
    /// The queue's reserve.
    pub max_pending: usize,
    /// Measured operations the child counts.
    pub counted_ops: u64,
    /// Whether the same binary and seed give the same counts: false for a
    /// row whose structure takes its epoch from the real clock
    /// ([`Algorithm::CLOCK_EPOCH`]).
    pub reproducible: bool,
}

/// The stack of the thread a child counts on (see `count-cell`): the main
/// thread's default, room for any row's recursion.
pub const CELL_STACK_BYTES: usize = 8 << 20;

/// The working directory of every child: one that exists on every machine
/// and whose name never changes (see [`count_job`]).
const CHILD_DIRECTORY: &str = "/";

/// What every child of one `timerbench counts` shares.
pub struct JobSettings<'a> {
    /// Valgrind, by absolute path.
    pub valgrind: &'a Path,
    /// util-linux's `setarch`, by absolute path, when the machine has it: the
    /// children then run with address-space randomisation off (`-R`), so that
    /// no layout the kernel draws can move a simulated cache miss.
    pub setarch: Option<&'a Path>,
    /// This executable, by absolute path.
    pub exe: &'a Path,
    /// Counted measured operations per cell (`None`: all).
    pub limit: Option<usize>,
    /// The directory, by absolute path, of the tapes and of callgrind's files
    /// while they are read (the children run in [`CHILD_DIRECTORY`]).
    pub scratch: &'a Path,
    /// Where to keep each cell's callgrind file (`<algorithm>.<workload>.callgrind`),
    /// for `callgrind_annotate` or KCachegrind; `None`: delete them.
    pub keep: Option<&'a Path>,
}

/// How long one cell may run under callgrind before it is killed: the
/// slowest cell of a large-scale count takes minutes (callgrind runs a
/// program some 50 to 100 times slower), so an hour is a hang, not a cell.
const CELL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// How long `valgrind --version` may take: it answers at once.
const VERSION_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs one cell under callgrind and reads its counts.
///
/// The child's stack and heap must start the same on every run of the same
/// binary, or the simulated L1 (whose sets are the address bits within a
/// page) sees a shifted layout and counts a few misses more or fewer. What
/// Valgrind puts on the client's stack is its argument strings and its
/// environment, and Valgrind adds `PWD`, the working directory, to the
/// environment even when it is cleared. So the child runs with an empty
/// environment, in `/` (whatever `--out` is), with arguments that name only
/// the cell, and reads its tape on standard input rather than by a path.
pub fn count_job(job: &Job, settings: &JobSettings<'_>) -> Result<Parsed> {
    let out = settings
        .scratch
        .join(format!("{}.{}.callgrind", job.algorithm, job.tape_file));
    let tape_path = settings.scratch.join(&job.tape_file);
    let tape = std::fs::File::open(&tape_path)
        .with_context(|| format!("cannot open the tape {}", tape_path.display()))?;
    let mut command = match settings.setarch {
        Some(setarch) => {
            let mut command = std::process::Command::new(setarch);
            command.arg("-R").arg(settings.valgrind);
            command
        }
        None => std::process::Command::new(settings.valgrind),
    };
    command
        .env_clear()
        .current_dir(CHILD_DIRECTORY)
        .stdin(tape)
        .args(callgrind_options(&out))
        .arg(settings.exe)
        .args(["count-cell", "--algorithm", &job.algorithm])
        .args(["--tape", STDIN_TAPE])
        .args(["--max-pending", &job.max_pending.to_string()]);
    if let Some(limit) = settings.limit {
        command.args(["--ops", &limit.to_string()]);
    }
    let output = crate::child::output_within(
        &mut command,
        CELL_DEADLINE,
        &format!(
            "{} counting {} on {}",
            settings.valgrind.display(),
            job.algorithm,
            job.workload
        ),
    )?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        bail!(
            "counting {} on {} under callgrind failed ({}); the last lines it printed:\n{}",
            job.algorithm,
            job.workload,
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let text = std::fs::read_to_string(&out)
        .with_context(|| format!("cannot read callgrind's output {}", out.display()))?;
    let parsed =
        parse_callgrind(&text).with_context(|| format!("{} on {}", job.algorithm, job.workload))?;
    if let Some(keep) = settings.keep {
        let kept = keep.join(format!("{}.{}.callgrind", job.algorithm, job.workload));
        std::fs::write(&kept, &text)
            .with_context(|| format!("cannot keep callgrind's output as {}", kept.display()))?;
    }
    std::fs::remove_file(&out).ok();
    Ok(parsed)
}

/// The first bytes of a tape file: its format and version.
const TAPE_MAGIC: &[u8; 8] = b"TBTAPE1\n";
/// Bytes of one operation in a tape file: tick, kind, timer, deadline.
const TAPE_OP_BYTES: usize = 8 + 1 + 4 + 8;

/// The tape name that makes [`read_tape`] read standard input.
pub const STDIN_TAPE: &str = "-";

/// Writes `tape` for a child to read with [`read_tape`]: a flat
/// little-endian file, which a child under callgrind reads in a fraction of
/// the time it would take to generate the tape again.
pub fn write_tape(path: &Path, tape: &Tape) -> Result<()> {
    let mut bytes = Vec::with_capacity(64 + tape.name.len() + tape.ops.len() * TAPE_OP_BYTES);
    bytes.extend_from_slice(TAPE_MAGIC);
    for value in [
        tape.prefill as u64,
        tape.end,
        u64::from(tape.timers),
        tape.ops.len() as u64,
    ] {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes.extend_from_slice(&(tape.name.len() as u64).to_le_bytes());
    bytes.extend_from_slice(tape.name.as_bytes());
    for op in &tape.ops {
        let (kind, timer, deadline) = match op.op {
            Op::Insert { timer, deadline } => (0u8, timer, deadline),
            Op::Cancel { timer } => (1, timer, 0),
            Op::Reschedule { timer, deadline } => (2, timer, deadline),
        };
        bytes.extend_from_slice(&op.at.to_le_bytes());
        bytes.push(kind);
        bytes.extend_from_slice(&timer.to_le_bytes());
        bytes.extend_from_slice(&deadline.to_le_bytes());
    }
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Reads a tape written by [`write_tape`], checking its invariants; from
/// standard input when `path` is [`STDIN_TAPE`].
pub fn read_tape(path: &Path) -> Result<Tape> {
    let bytes = if path == Path::new(STDIN_TAPE) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .context("cannot read the tape from standard input")?;
        bytes
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    let bad = || {
        anyhow::anyhow!(
            "{} is not a tape written by `timerbench counts`",
            path.display()
        )
    };
    let mut rest = bytes.strip_prefix(TAPE_MAGIC.as_slice()).ok_or_else(bad)?;
    let mut word = || -> Result<u64> {
        let (head, tail) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
        rest = tail;
        Ok(u64::from_le_bytes(*head))
    };
    let (prefill, end, timers, count, name_len) = (word()?, word()?, word()?, word()?, word()?);
    let name_len = usize::try_from(name_len)?;
    if rest.len() < name_len {
        return Err(bad());
    }
    let (name, ops_bytes) = rest.split_at(name_len);
    if ops_bytes.len() != usize::try_from(count)?.saturating_mul(TAPE_OP_BYTES) {
        return Err(bad());
    }
    let mut ops = Vec::with_capacity(ops_bytes.len() / TAPE_OP_BYTES);
    for chunk in ops_bytes.chunks_exact(TAPE_OP_BYTES) {
        let at = u64::from_le_bytes(chunk[0..8].try_into()?);
        let timer = u32::from_le_bytes(chunk[9..13].try_into()?);
        let deadline = u64::from_le_bytes(chunk[13..21].try_into()?);
        let op = match chunk[8] {
            0 => Op::Insert { timer, deadline },
            1 => Op::Cancel { timer },
            2 => Op::Reschedule { timer, deadline },
            _ => return Err(bad()),
        };
        ops.push(TimedOp { at, op });
    }
    let tape = Tape {
        name: String::from_utf8(name.to_vec())?,
        ops,
        prefill: usize::try_from(prefill)?,
        end,
        timers: u32::try_from(timers)?,
    };
    tape.check()
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    Ok(tape)
}

/// Counts `jobs` with `workers` children at a time, calling `done` as each
/// finishes. Results are in `jobs`' order. After the first failure no new
/// child starts (the ones running finish), and the jobs not started report
/// that they were not run.
pub fn run_jobs(
    jobs: &[Job],
    settings: &JobSettings<'_>,
    workers: usize,
    done: impl Fn(&Job) + Sync,
) -> Vec<Result<Parsed>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<Parsed>>>> =
        Mutex::new(jobs.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| {
                while !failed.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(index) else {
                        break;
                    };
                    let result = count_job(job, settings);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    done(job);
                    results.lock().expect("no worker panics")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .map(|result| {
            result.unwrap_or_else(|| Err(anyhow::anyhow!("not run: an earlier cell failed")))
        })
        .collect()
}

/// `program` as a file on `PATH`, absolute, or `None`.
pub fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
fl=(1) replay.rs
fn=(1) harness::counts::measured_phase
5 100 40 20 1 2 3 0 1
cfl=(1)
cfn=(2) harness::counts::counted_insert
calls=3 7
5 60 20 10 0 1 1 0 1 1
cfn=(3) harness::counts::counted_cancel
calls=2 9
6 30 10
cfn=(2)
calls=1 7
5 20 5 5
fn=(2)
7 80 25 15
totals: 290 100 60 1 4 5 0 2 2
";

    #[test]
    fn totals_and_per_kind_inclusive_costs() {
        let parsed = parse_callgrind(SAMPLE).expect("parses");
        assert_eq!(
            parsed.total.events,
            [290, 100, 60, 1, 4, 5, 0, 2, 2, 0, 0, 0, 0]
        );
        let (calls, insert) = parsed.kinds[0];
        assert_eq!(calls, 4);
        assert_eq!(insert.events, [80, 25, 15, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0]);
        let (calls, cancel) = parsed.kinds[1];
        assert_eq!(calls, 2);
        assert_eq!(cancel.events, [30, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(parsed.kinds[3].0, 0);
    }

    #[test]
    fn branch_events_are_read_by_name_in_any_order() {
        let sample = "positions: line\nevents: Ir Bc Bcm Bi Bim\nfn=(1) f\n1 50 9 3 2 1\ntotals: 50 9 3 2 1\n";
        let parsed = parse_callgrind(sample).expect("parses");
        assert_eq!(parsed.total.instructions(), 50);
        assert_eq!(parsed.total.branches(), 11);
        assert_eq!(parsed.total.branch_misses(), 4);
    }

    #[test]
    fn a_cut_short_file_is_an_error() {
        let cut = SAMPLE.replace("totals:", "notes:");
        let error = parse_callgrind(&cut).expect_err("no totals");
        assert!(error.to_string().contains("totals"), "{error}");
    }

    #[test]
    fn a_garbled_cost_line_names_its_line() {
        let garbled = SAMPLE.replace("6 30 10", "6 30 ten");
        let error = format!("{:#}", parse_callgrind(&garbled).expect_err("garbled"));
        assert!(error.contains("line 14"), "{error}");
    }

    #[test]
    fn the_cycle_estimate_weights_misses() {
        let counts = Counts {
            events: [1000, 0, 0, 1, 2, 3, 1, 1, 0, 40, 4, 2, 1],
        };
        assert_eq!(counts.l1_misses(), 6);
        assert_eq!(counts.ll_misses(), 2);
        assert_eq!(counts.branch_misses(), 5);
        assert_eq!(counts.estimated_cycles(), 1000 + 60 + 200);
    }

    #[test]
    fn per_call_figures_are_rounded_and_safe_at_zero() {
        assert_eq!(round_per_call(10, 3), 3.3333);
        assert_eq!(round_per_call(10, 0), 0.0);
    }

    #[test]
    fn a_tape_file_reads_back_as_the_tape() {
        let dir = std::env::temp_dir().join(format!("timerbench-tape-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("t.tape");
        for spec in workloads::builtins(workloads::Scale::Small) {
            let tape = spec.generate(5);
            write_tape(&path, &tape).expect("written");
            assert_eq!(read_tape(&path).expect("read"), tape, "{}", tape.name);
        }
        std::fs::write(&path, b"TBTAPE1\nshort").expect("written");
        let error = read_tape(&path).expect_err("a cut file");
        assert!(error.to_string().contains("is not a tape"), "{error}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_counted_range_stops_at_the_limit_or_the_tape() {
        let spec = workloads::builtins(workloads::Scale::Small)
            .into_iter()
            .next()
            .expect("a built-in");
        let tape = spec.generate(1);
        let measured = tape.ops.len() - tape.prefill;
        assert_eq!(
            counted_range(&tape, None),
            (tape.prefill..tape.ops.len(), true)
        );
        assert_eq!(
            counted_range(&tape, Some(10)),
            (tape.prefill..tape.prefill + 10, false)
        );
        assert!(counted_range(&tape, Some(measured + 1)).1);
    }
}
