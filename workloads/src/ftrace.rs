//! Real kernel timers: a tape made from the Linux kernel's own timer events,
//! as ftrace records them (`workloads/scripts/capture.sh`, `make capture`).
//!
//! Every other workload of the suite is synthetic, or replays someone's
//! benchmark program. This one is what a running machine does: the kernel's
//! `timer_list` wheel (network protocol timeouts, `schedule_timeout`, device
//! watchdogs) or its hrtimer queues (the scheduler tick, `nanosleep`,
//! `epoll_wait` timeouts, timerfd), event by event.
//!
//! # The events, and what they mean for a queue
//!
//! A timer is named by its address (`timer=` or `hrtimer=`); the kernel's
//! trace file prints it hashed, the same hash for the same address within a
//! boot. The importer reads `timer:timer_start`, `timer_cancel` and
//! `timer_expire_entry` for a `timer_list` tape, or `hrtimer_start`,
//! `hrtimer_cancel` and `hrtimer_expire_entry` for an hrtimer tape, and
//! follows each address through three facts of the kernel's code:
//!
//! * **The kernel detaches a timer before it runs it**, and detaching logs a
//!   cancel (`detach_timer` calls `debug_deactivate`, which logs
//!   `timer_cancel`). So a cancel followed by the expiry of the same timer
//!   is one expiry, not a cancel: nothing goes on the tape, since the queue
//!   fires it by itself. (On Linux 6.18 an hrtimer's expiry logs no cancel;
//!   an expiry of a pending timer is an expiry too.)
//! * **A re-arm of a pending timer (`mod_timer`) is a cancel then a start of
//!   the same address at once.** A start within [`REARM_WINDOW_NS`] of the
//!   cancel is a [`Op::Reschedule`] of the same timer. On the 2-core VM the
//!   committed traces come from, a re-arm inside one kernel function
//!   (`mod_timer`, `hrtimer_start` of an armed timer) showed gaps of 0 to
//!   1 µs, even under load. Longer gaps are a timer torn down and set up
//!   again: a task's on-stack timer deleted when it wakes (`del_timer_sync`,
//!   2 to 5 µs there) and armed anew by its next sleep, or `epoll_wait`'s
//!   on-stack hrtimer, whose gaps under load run on from 5 µs with no
//!   break. A window of 2 µs keeps the first and treats the rest as what the
//!   kernel's code does: a cancel and a new timer. An hrtimer re-armed while
//!   armed may log a start with no cancel at all (`was_armed=1` on Linux
//!   6.18); that is a re-arm too, and counted.
//! * **Anything else is a real cancel** (`del_timer`), an [`Op::Cancel`].
//!   A later start of the same address is a new timer on a reused struct,
//!   an [`Op::Insert`] with a fresh number.
//!
//! A cancel is only classified when its address's next event comes (or the
//! trace ends), so operations are collected with the index of the event that
//! caused them and put in event order at the end.
//!
//! Timers armed before the capture began show up as a cancel or an expiry of
//! an address never started: they are counted and skipped, never invented,
//! since their deadline is unknown. Timers still pending at the end stay
//! pending on the tape and are counted. Every event that does not fit is
//! counted in the [`FtraceSummary`], whose `Display` is one line.
//!
//! # Time
//!
//! A tape starts at 0: every time is rebased on the tick of the first event
//! read (the summary keeps that origin), so that a queue need not walk from
//! tick 0 to billions of jiffies first.
//!
//! * **`timer_list` tapes count jiffies**, the kernel's own tick (HZ a
//!   second), and a deadline is the timer's `expires`. A start knows the
//!   jiffies of its instant (`expires - timeout`), and so does an expiry
//!   (`now=`); a cancel does not. A cancel's jiffies are those of the last
//!   event that knew them, plus the trace time since, times HZ, rounded
//!   down: since that event could lie anywhere within its jiffy, the estimate
//!   is the true value or one less, never more. Events before the first that
//!   knows its jiffies count back from it, rounded the other way. HZ comes
//!   from [`FtraceOptions::hz`], else the capture's `# HZ:` header line,
//!   else the trace: the jiffies over the trace time between the first and
//!   the last event that know them (at least [`MIN_HZ_SPAN_NS`] apart),
//!   rounded to the nearest of [`HZ_CHOICES`] if within 5 % of it.
//! * **hrtimer tapes count [`HRTIMER_TICK_NS`] (1 µs) ticks** of the trace
//!   clock. A deadline is the timer's `expires` (the hard expiry, the key
//!   the kernel's queue is ordered by), rounded up to a tick so that no
//!   timer fires earlier on the tape than in the kernel. `expires` is on the
//!   timer's clock, usually `CLOCK_MONOTONIC`; the capture script sets the
//!   trace clock to `mono` and says so in a `# trace_clock: mono` line, and
//!   then the two are the same clock. For another trace clock, the offset
//!   is the median of `now` minus the timestamp over the expiries. A timer
//!   whose deadline lies more than [`OTHER_CLOCK_NS`] (a year) ahead is on
//!   another clock (`CLOCK_REALTIME`, `CLOCK_TAI`, decades ahead of the
//!   monotonic clock) or never due; it is counted and skipped with its
//!   cancels and expiries.
//!
//! Events come in timestamp order (the kernel merges its per-CPU buffers by
//! time); a tick that would go back (estimates on two CPUs a jiffy apart) is
//! raised to the one before, and counted.
//!
//! A timer fires on the tape when the driver advances past its deadline,
//! which may be before the kernel ran it (a wheel's coarse buckets run a
//! timer late). A kernel re-arm that comes after the tape's deadline is
//! therefore an insert of a new timer, not a reschedule of one the queue has
//! already fired: the summary counts those among the inserts. A re-arm whose
//! new deadline falls in the timer's current bucket moves no timer in the
//! kernel and logs nothing; the tape cannot see it.
//!
//! # One queue or one CPU
//!
//! The kernel keeps a wheel (and hrtimer queues) per CPU. By default all of
//! them are one queue on the tape. [`FtraceOptions::cpu`] keeps one CPU's:
//! a `timer_list`'s CPU is its start's `cpu=` field (the wheel it went on,
//! not the CPU that ran the code), an hrtimer's the CPU that logged its
//! start; a timer re-armed onto another CPU leaves the chosen one as a
//! cancel or arrives as an insert. Skipped timers of unknown start are
//! placed by the CPU that logged their event.
//!
//! # The kernel's buckets
//!
//! A `timer_start` also prints the expiry of the wheel bucket the kernel
//! filed the timer in (`bucket_expiry`, since Linux 5.9), its flags and its
//! wheel's CPU. [`kernel_timer_starts`] returns them as they are, one
//! [`KernelTimerStart`] per start, so that a model of Linux's wheel can be
//! checked against the kernel's own choice for the same `now` and `expires`.
//! This crate knows no algorithm; the comparison belongs where both are seen.
//!
//! # Cost
//!
//! One pass over the text (bounded lines, as for CSV traces), holding the
//! events of the chosen kind (about 40 bytes each) and a hash map keyed by
//! address, which is only looked up, never iterated before the end, where
//! its leftovers are sorted into event order.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::WorkloadError;
use crate::ftrace_line::{Event, TimerFlags, event_line, lost_events, parse_event};
use crate::input::{MAX_TAPE_OPS, MAX_TRACE_LINE_BYTES, TextLine, next_text_line, open_regular};
use crate::spec::check_name;
use crate::tape::{MAX_TIME, Op, Tape, Tick, TimedOp};

/// The longest gap between a cancel and a start of the same address that is
/// still one re-arm (`mod_timer`): 2 µs. See the module documentation.
pub const REARM_WINDOW_NS: u64 = 2_000;

/// The tick of an hrtimer tape: 1 µs, in nanoseconds.
pub const HRTIMER_TICK_NS: u64 = 1_000;

/// A deadline further ahead than this (a year, in nanoseconds) is on another
/// clock than the trace's, or never due.
pub const OTHER_CLOCK_NS: u64 = 365 * 24 * 60 * 60 * NS_PER_S;

/// The values of HZ Linux offers (`CONFIG_HZ`), which a measured rate is
/// rounded to.
pub const HZ_CHOICES: [u32; 4] = [100, 250, 300, 1000];

/// The least trace time between the first and the last event that know
/// their jiffies for HZ to be measured from them: 1 s.
pub const MIN_HZ_SPAN_NS: u64 = NS_PER_S;

/// Nanoseconds in a second.
const NS_PER_S: u64 = 1_000_000_000;

/// How far a measured HZ may be from one of [`HZ_CHOICES`]: 1/20, 5 %.
const HZ_TOLERANCE_DIVISOR: u128 = 20;

/// The largest HZ accepted from the user or a header.
const MAX_HZ: u32 = 100_000;

/// Which of the kernel's two timer facilities a tape is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KernelTimers {
    /// `struct timer_list`, the timer wheel: ticks are jiffies.
    #[default]
    TimerList,
    /// `struct hrtimer`, the high-resolution queues: ticks are
    /// [`HRTIMER_TICK_NS`].
    Hrtimer,
}

impl fmt::Display for KernelTimers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KernelTimers::TimerList => "timer_list",
            KernelTimers::Hrtimer => "hrtimer",
        })
    }
}

/// How to import a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtraceOptions {
    /// Which timers make the tape.
    pub timers: KernelTimers,
    /// Keep only the timers of this CPU; `None`: all CPUs as one queue.
    pub cpu: Option<u32>,
    /// The kernel's HZ, overriding the trace's `# HZ:` line and the rate
    /// measured from the trace. Only `timer_list` tapes use it.
    pub hz: Option<u32>,
}

/// A tape imported from a kernel trace, and what the import made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FtraceImport {
    /// The operations. Its name is the file's stem (less `.txt`), with
    /// `-hrtimer` after it for an hrtimer tape.
    pub tape: Tape,
    /// The counts of what was read, made and skipped.
    pub summary: FtraceSummary,
}

/// What an import read, made and skipped. Its `Display` is one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtraceSummary {
    /// Which timers the tape is made of.
    pub timers: KernelTimers,
    /// The CPU kept, or `None` for all.
    pub cpu: Option<u32>,
    /// The HZ used for a `timer_list` tape (`None` for hrtimers, or when no
    /// event needed it).
    pub hz: Option<u32>,
    /// The tick of the first event, which is the tape's 0: jiffies, or
    /// microseconds of the trace clock.
    pub origin: Tick,
    /// For hrtimers, the timers' clock minus the trace clock, in ns: 0 for a
    /// capture on the `mono` trace clock.
    pub clock_offset_ns: i64,
    /// The events of the chosen kind read (starts, cancels and expiries).
    pub events: u64,
    /// The tape's operations.
    pub operations: u64,
    /// [`Op::Insert`]s: starts of a timer not pending, and re-arms that had
    /// to become inserts (see `due_rearms`).
    pub inserts: u64,
    /// Of the inserts, re-arms of a timer whose deadline had passed on the
    /// tape, where the queue has already fired it.
    pub due_rearms: u64,
    /// [`Op::Reschedule`]s: re-arms of a pending timer.
    pub reschedules: u64,
    /// [`Op::Cancel`]s: real cancels, and re-arms onto a CPU not kept.
    pub cancels: u64,
    /// Expiries of timers started in the capture (no operation: the queue
    /// fires them by itself).
    pub expiries: u64,
    /// Timers started in the capture and still pending at its end.
    pub pending_at_end: u64,
    /// Timers armed before the capture that expired in it: skipped.
    pub unknown_expired: u64,
    /// Timers armed before the capture that were cancelled in it: skipped.
    pub unknown_cancelled: u64,
    /// Timers armed before the capture that were re-armed in it: the old
    /// deadline is skipped, the new one is an insert.
    pub unknown_rearmed: u64,
    /// Starts of a timer that was pending, with no cancel first: re-arms
    /// (usual for an hrtimer re-armed while armed; for a `timer_list`, a
    /// sign of lost events).
    pub rearms_without_cancel: u64,
    /// Cancels of a timer already cancelled, with no start between: odd,
    /// ignored.
    pub double_cancels: u64,
    /// Expiries of a timer that was neither pending nor just detached,
    /// ignored: an hrtimer restarted by its own function (a periodic
    /// timerfd) logs no start on Linux 6.18, so each of its later expiries
    /// is one of these; for a `timer_list`, a sign of lost events.
    pub stray_expiries: u64,
    /// hrtimer starts on another clock or more than a year ahead, skipped
    /// with their cancels and expiries.
    pub other_clock: u64,
    /// Events of timers on the CPUs not kept.
    pub other_cpus: u64,
    /// Event lines of other events (the other kind of timer, the `_exit`
    /// events, anything else enabled).
    pub other_events: u64,
    /// Events the kernel lost (its buffer was full): the larger of the
    /// capture header's count and the sum of the trace's lost-events notes.
    pub lost_events: u64,
    /// Events whose tick was raised to the one before, to keep time order.
    pub raised_ticks: u64,
}

impl FtraceSummary {
    /// Timers armed before the capture, skipped: expired, cancelled or
    /// re-armed.
    pub fn skipped_unknown(&self) -> u64 {
        self.unknown_expired + self.unknown_cancelled + self.unknown_rearmed
    }
}

impl fmt::Display for FtraceSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.timers, self.hz) {
            (KernelTimers::TimerList, Some(hz)) => write!(f, "timer_list at HZ={hz}")?,
            (KernelTimers::TimerList, None) => write!(f, "timer_list")?,
            (KernelTimers::Hrtimer, _) => write!(f, "hrtimer at 1 µs")?,
        }
        if let Some(cpu) = self.cpu {
            write!(f, ", CPU {cpu}")?;
        }
        write!(
            f,
            ": {} operations ({} inserts, {} of them re-arms of a timer already due; {} reschedules; \
             {} cancels), {} expiries, {} pending at the end; skipped {} timers armed before the \
             capture ({} expired, {} cancelled, {} re-armed); {} lost events; {} re-arms without a \
             cancel, {} double cancels, {} stray expiries, {} ticks raised",
            self.operations,
            self.inserts,
            self.due_rearms,
            self.reschedules,
            self.cancels,
            self.expiries,
            self.pending_at_end,
            self.skipped_unknown(),
            self.unknown_expired,
            self.unknown_cancelled,
            self.unknown_rearmed,
            self.lost_events,
            self.rearms_without_cancel,
            self.double_cancels,
            self.stray_expiries,
            self.raised_ticks,
        )?;
        if self.timers == KernelTimers::Hrtimer {
            write!(f, ", {} on another clock", self.other_clock)?;
        }
        write!(
            f,
            "; {} events of other CPUs, {} other events",
            self.other_cpus, self.other_events
        )
    }
}

/// Reads a kernel trace (`.gz`: compressed) into a tape of the chosen
/// timers.
///
/// # Errors
///
/// [`WorkloadError::TraceUnreadable`] if the file cannot be read;
/// [`WorkloadError::InvalidTrace`], with the line and the field, for a
/// malformed line, and with line 0 for the file as a whole (its name, or an
/// HZ that cannot be told).
pub fn import_ftrace(path: &Path, options: &FtraceOptions) -> Result<FtraceImport, WorkloadError> {
    let (reader, stem) = open_trace(path)?;
    parse_ftrace(reader, &stem, path, options)
}

/// Opens a kernel trace, through gzip if its name ends in `.gz`, and gives
/// its stem: the file's name less `.gz` and `.txt`.
fn open_trace(path: &Path) -> Result<(Box<dyn BufRead>, String), WorkloadError> {
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let compressed = file_name.ends_with(".gz");
    let stem = file_name.strip_suffix(".gz").unwrap_or(&file_name);
    let stem = stem.strip_suffix(".txt").unwrap_or(stem).to_owned();
    let file = open_regular(path).map_err(|error| WorkloadError::TraceUnreadable {
        path: path.to_owned(),
        error,
    })?;
    let reader: Box<dyn BufRead> = if compressed {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    Ok((reader, stem))
}

/// One `timer:timer_start` of a `timer_list`, as the kernel logged it: what
/// a model of the kernel's wheel is checked against, since the kernel prints
/// the expiry of the bucket it chose (`bucket_expiry`) beside the jiffies of
/// the start (`now`) and the timer's `expires`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelTimerStart {
    /// The line of the trace it was read from.
    pub line: u64,
    /// The CPU whose wheel took it (`cpu=`, else the CPU that logged it).
    pub cpu: u32,
    /// The jiffies at the start (`expires - timeout`), when printed.
    pub now: Option<u64>,
    /// When the timer is due, in jiffies.
    pub expires: u64,
    /// The expiry of the bucket the kernel filed it in, when printed.
    pub bucket_expiry: Option<u64>,
    /// Its flags.
    pub flags: TimerFlags,
}

/// Every `timer:timer_start` of a kernel trace (`.gz`: compressed), in
/// order, whatever else the trace holds.
///
/// # Errors
///
/// As [`import_ftrace`], for an unreadable file or a malformed line.
pub fn kernel_timer_starts(path: &Path) -> Result<Vec<KernelTimerStart>, WorkloadError> {
    let (reader, _) = open_trace(path)?;
    let read = read_events(reader, path, KernelTimers::TimerList)?;
    Ok(read
        .events
        .iter()
        .filter_map(|logged| match logged.event {
            Event::ListStart {
                expires,
                now,
                cpu,
                bucket_expiry,
                flags,
                ..
            } => Some(KernelTimerStart {
                line: logged.line,
                cpu: cpu.unwrap_or(logged.cpu),
                now,
                expires,
                bucket_expiry,
                flags,
            }),
            _ => None,
        })
        .collect())
}

/// Reads kernel trace text into a tape of the chosen timers; `stem` names
/// the tape (with `-hrtimer` after it for hrtimers) and `path` is only for
/// messages.
///
/// # Errors
///
/// As [`import_ftrace`].
pub fn parse_ftrace(
    reader: impl BufRead,
    stem: &str,
    path: &Path,
    options: &FtraceOptions,
) -> Result<FtraceImport, WorkloadError> {
    let error = |line: u64, problem: String| WorkloadError::InvalidTrace {
        path: path.to_owned(),
        line,
        problem,
    };
    let name = match options.timers {
        KernelTimers::TimerList => stem.to_owned(),
        KernelTimers::Hrtimer => format!("{stem}-hrtimer"),
    };
    if let Err(problem) = check_name(&name) {
        return Err(error(
            0,
            format!("the tape's name, from the file's name, {problem}; rename the file"),
        ));
    }
    if options.hz.is_some_and(|hz| hz == 0 || hz > MAX_HZ) {
        return Err(error(
            0,
            format!("HZ is {:?}; it must be from 1 to {MAX_HZ}", options.hz),
        ));
    }
    let read = read_events(reader, path, options.timers)?;
    if read.events.is_empty() {
        let (events, other) = match options.timers {
            KernelTimers::TimerList => (
                "timer:timer_start, timer_cancel and timer_expire_entry",
                "hrtimer",
            ),
            KernelTimers::Hrtimer => (
                "timer:hrtimer_start, hrtimer_cancel and hrtimer_expire_entry",
                "timer_list",
            ),
        };
        return Err(error(
            0,
            format!(
                "the trace has no {} events ({events}); capture with those events enabled \
                 (make capture does), or import the {other} tape",
                options.timers
            ),
        ));
    }
    let times = match options.timers {
        KernelTimers::TimerList => list_times(&read.events, options.hz.or(read.header.hz))
            .map_err(|problem| error(0, problem))?,
        KernelTimers::Hrtimer => hr_times(&read.events, read.header.mono_clock),
    };
    let mut machine = Machine::new(options.cpu);
    machine.summary.timers = options.timers;
    machine.summary.hz = times.hz;
    machine.summary.clock_offset_ns = times.clock_offset_ns;
    machine.summary.events = read.events.len() as u64;
    machine.summary.other_events = read.other_events;
    machine.summary.lost_events = read.header.lost.max(read.lost_notes);
    machine.summary.raised_ticks = times.raised;
    let origin = times.at.first().copied().unwrap_or(0);
    machine.summary.origin = origin;
    for (index, (event, &absolute)) in read.events.iter().zip(&times.at).enumerate() {
        let at = absolute - origin;
        let deadline = |absolute: u64| absolute.saturating_sub(origin).min(MAX_TIME);
        match event.event {
            Event::ListStart {
                ptr, expires, cpu, ..
            } => {
                let cpu = cpu.unwrap_or(event.cpu);
                machine.start(index, event.ts_ns, at, ptr, cpu, deadline(expires));
            }
            Event::HrStart { ptr, expires } => {
                match hr_deadline(expires, times.clock_offset_ns, event.ts_ns) {
                    Some(due) => {
                        machine.start(index, event.ts_ns, at, ptr, event.cpu, deadline(due))
                    }
                    None => machine.foreign(ptr),
                }
            }
            Event::ListCancel { ptr } | Event::HrCancel { ptr } => {
                machine.cancel(index, event.ts_ns, at, ptr, event.cpu);
            }
            Event::ListExpire { ptr, .. } | Event::HrExpire { ptr, .. } => {
                machine.expire(ptr, event.cpu);
            }
            Event::Other => {}
        }
    }
    let end = times.at.last().map_or(0, |last| last - origin);
    Ok(machine.finish(name, end))
}

/// An event of the chosen kind, with where it was read.
#[derive(Clone, Copy, Debug)]
struct Logged {
    /// The line it was read from.
    line: u64,
    /// The CPU that logged it.
    cpu: u32,
    /// Its timestamp, in nanoseconds of the trace clock.
    ts_ns: u64,
    /// The event.
    event: Event,
}

/// What the capture's `#` header says.
#[derive(Clone, Copy, Debug, Default)]
struct Header {
    /// `# HZ: 250 (...)`.
    hz: Option<u32>,
    /// `# trace_clock: mono`.
    mono_clock: bool,
    /// `# lost events: 3 (...)`.
    lost: u64,
}

impl Header {
    /// Reads a header line, if it is one of those above.
    fn read(&mut self, comment: &str) {
        let comment = comment.trim_start_matches('#').trim();
        let Some((key, value)) = comment.split_once(':') else {
            return;
        };
        let first = value.split_whitespace().next().unwrap_or("");
        match key.trim() {
            "HZ" => self.hz = first.parse().ok().filter(|&hz| hz > 0 && hz <= MAX_HZ),
            "trace_clock" => self.mono_clock = first == "mono",
            "lost events" => self.lost = first.parse().unwrap_or(0),
            _ => {}
        }
    }
}

/// The events of a trace and what its other lines said.
struct Events {
    events: Vec<Logged>,
    header: Header,
    lost_notes: u64,
    other_events: u64,
}

/// Reads every line: the chosen kind's events kept, the rest counted.
fn read_events(
    mut reader: impl BufRead,
    path: &Path,
    timers: KernelTimers,
) -> Result<Events, WorkloadError> {
    let error = |line: u64, problem: String| WorkloadError::InvalidTrace {
        path: path.to_owned(),
        line,
        problem,
    };
    let mut read = Events {
        events: Vec::new(),
        header: Header::default(),
        lost_notes: 0,
        other_events: 0,
    };
    let mut raw = Vec::new();
    let mut line = 0u64;
    loop {
        let next = next_text_line(&mut reader, &mut raw, line == 0).map_err(|error| {
            WorkloadError::TraceUnreadable {
                path: path.to_owned(),
                error,
            }
        })?;
        let Some(next) = next else { break };
        line += 1;
        let content = match next {
            TextLine::Line(content) => content,
            TextLine::TooLong => {
                return Err(error(
                    line,
                    format!(
                        "the line is longer than {MAX_TRACE_LINE_BYTES} bytes; a kernel trace's lines \
                         are events or `#` comments (is this a text file?)"
                    ),
                ));
            }
        };
        let Ok(text) = std::str::from_utf8(content) else {
            return Err(error(line, "the line is not valid UTF-8 text".to_owned()));
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with("cpus=") || is_empty_cpu_note(trimmed) {
            continue;
        }
        if trimmed.starts_with('#') {
            read.header.read(trimmed);
            continue;
        }
        if let Some(lost) = lost_events(trimmed) {
            read.lost_notes += lost;
            continue;
        }
        let Some(event_line) = event_line(text) else {
            return Err(error(
                line,
                "not a line of a kernel trace: an event line is `<task>-<pid> [<cpu>] <flags> \
                 <seconds>.<micros>: <event>: <fields>` as /sys/kernel/tracing/trace or \
                 `trace-cmd report` print it, and other lines start with `#`"
                    .to_owned(),
            ));
        };
        let event = parse_event(&event_line).map_err(|problem| error(line, problem))?;
        let wanted = match event {
            Event::ListStart { .. } | Event::ListCancel { .. } | Event::ListExpire { .. } => {
                timers == KernelTimers::TimerList
            }
            Event::HrStart { .. } | Event::HrCancel { .. } | Event::HrExpire { .. } => {
                timers == KernelTimers::Hrtimer
            }
            Event::Other => false,
        };
        if !wanted {
            read.other_events += 1;
            continue;
        }
        if read.events.len() as u64 >= MAX_TAPE_OPS {
            return Err(error(
                line,
                format!(
                    "the trace has more than {MAX_TAPE_OPS} timer events, more than a tape \
                     holds; capture a shorter load"
                ),
            ));
        }
        read.events.push(Logged {
            line,
            cpu: event_line.cpu,
            ts_ns: event_line.ts_ns,
            event,
        });
    }
    Ok(read)
}

/// `trace-cmd report`'s note that a CPU recorded nothing.
fn is_empty_cpu_note(text: &str) -> bool {
    text.starts_with("CPU ") && text.ends_with(" is empty")
}

/// Every event's tick (before rebasing), and how it was found.
struct Times {
    at: Vec<Tick>,
    hz: Option<u32>,
    clock_offset_ns: i64,
    raised: u64,
}

/// The jiffies an event knows, if it knows them.
fn own_jiffies(event: &Event) -> Option<u64> {
    match *event {
        Event::ListStart { now, .. } => now,
        Event::ListExpire { now, .. } => Some(now),
        _ => None,
    }
}

/// The jiffies of every `timer_list` event: its own, or estimated from the
/// last event that knew them and HZ (see the module documentation).
fn list_times(events: &[Logged], hz: Option<u32>) -> Result<Times, String> {
    let anchors: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| own_jiffies(&e.event).map(|j| (e.ts_ns, j)))
        .collect();
    let (Some(&first), Some(&last)) = (anchors.first(), anchors.last()) else {
        // No event knows its jiffies: all of them happen at one tick.
        return Ok(Times {
            at: vec![0; events.len()],
            hz,
            clock_offset_ns: 0,
            raised: 0,
        });
    };
    let hz = match hz {
        Some(hz) => hz,
        None => measured_hz(first, last)?,
    };
    let ticks_in = |ns: u64| (u128::from(ns) * u128::from(hz) / u128::from(NS_PER_S)) as u64;
    let ticks_in_up =
        |ns: u64| (u128::from(ns) * u128::from(hz)).div_ceil(u128::from(NS_PER_S)) as u64;
    let mut at = Vec::with_capacity(events.len());
    let mut anchor: Option<(u64, u64)> = None;
    let mut previous = 0;
    let mut raised = 0;
    for event in events {
        let estimate = match (own_jiffies(&event.event), anchor) {
            (Some(jiffies), _) => {
                anchor = Some((event.ts_ns, jiffies));
                jiffies
            }
            (None, Some((ts, jiffies))) => jiffies + ticks_in(event.ts_ns.saturating_sub(ts)),
            (None, None) => first
                .1
                .saturating_sub(ticks_in_up(first.0.saturating_sub(event.ts_ns))),
        };
        let tick = if at.is_empty() {
            estimate
        } else {
            estimate.max(previous)
        };
        if tick > estimate {
            raised += 1;
        }
        previous = tick;
        at.push(tick);
    }
    Ok(Times {
        at,
        hz: Some(hz),
        clock_offset_ns: 0,
        raised,
    })
}

/// HZ measured from the first and last events that know their jiffies,
/// `(timestamp in ns, jiffies)`, rounded to one of [`HZ_CHOICES`].
fn measured_hz(first: (u64, u64), last: (u64, u64)) -> Result<u32, String> {
    let span = last.0.saturating_sub(first.0);
    if span < MIN_HZ_SPAN_NS {
        return Err(format!(
            "cannot tell the kernel's HZ: the trace has no `# HZ:` line and its events that \
             know their jiffies span {span} ns, less than the {MIN_HZ_SPAN_NS} needed to \
             measure it; give HZ (FtraceOptions::hz)"
        ));
    }
    let jiffies = u128::from(last.1.saturating_sub(first.1));
    let rate = jiffies * u128::from(NS_PER_S) / u128::from(span);
    let nearest = HZ_CHOICES
        .iter()
        .copied()
        .min_by_key(|&hz| rate.abs_diff(u128::from(hz)))
        .unwrap_or(HZ_CHOICES[0]);
    if rate.abs_diff(u128::from(nearest)) * HZ_TOLERANCE_DIVISOR > u128::from(nearest) {
        return Err(format!(
            "cannot tell the kernel's HZ: jiffies advanced {rate} a second over the trace, not \
             within 5 % of any of {HZ_CHOICES:?}; give HZ (FtraceOptions::hz)"
        ));
    }
    Ok(nearest)
}

/// The microsecond of every hrtimer event on the trace clock, and the
/// offset of the timers' clock from it.
fn hr_times(events: &[Logged], mono_clock: bool) -> Times {
    let clock_offset_ns = if mono_clock {
        0
    } else {
        let mut offsets: Vec<i64> = events
            .iter()
            .filter_map(|e| match e.event {
                Event::HrExpire { now, .. } => {
                    let offset = i128::from(now) - i128::from(e.ts_ns);
                    (offset.unsigned_abs() < u128::from(OTHER_CLOCK_NS)).then_some(offset as i64)
                }
                _ => None,
            })
            .collect();
        offsets.sort_unstable();
        offsets.get(offsets.len() / 2).copied().unwrap_or(0)
    };
    let mut at = Vec::with_capacity(events.len());
    let mut previous = 0;
    let mut raised = 0;
    for event in events {
        let estimate = event.ts_ns / HRTIMER_TICK_NS;
        let tick = estimate.max(previous);
        if tick > estimate {
            raised += 1;
        }
        previous = tick;
        at.push(tick);
    }
    Times {
        at,
        hz: None,
        clock_offset_ns,
        raised,
    }
}

/// An hrtimer's deadline in ticks of the trace clock, rounded up; `None`
/// for one on another clock or more than a year ahead of `ts_ns`.
fn hr_deadline(expires: i64, clock_offset_ns: i64, ts_ns: u64) -> Option<Tick> {
    let on_trace_clock = i128::from(expires) - i128::from(clock_offset_ns);
    if on_trace_clock - i128::from(ts_ns) > i128::from(OTHER_CLOCK_NS) {
        return None;
    }
    let ticks = on_trace_clock
        .max(0)
        .unsigned_abs()
        .div_ceil(u128::from(HRTIMER_TICK_NS));
    Some(u64::try_from(ticks).unwrap_or(MAX_TIME))
}

/// A timer the importer follows.
#[derive(Clone, Copy, Debug)]
struct Timer {
    /// Its tape number; `None` on a CPU not kept.
    number: Option<u32>,
    /// Its deadline on the tape.
    deadline: Tick,
}

/// What an address is doing.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Started in the capture, pending.
    Pending(Timer),
    /// Started in the capture and just detached: a cancel, the first half
    /// of a re-arm, or the prelude of an expiry; the next event tells.
    Detached {
        timer: Timer,
        ts_ns: u64,
        at: Tick,
        index: usize,
    },
    /// Armed before the capture and just detached, logged on `cpu`.
    UnknownDetached { ts_ns: u64, cpu: u32 },
    /// On another clock: its events are skipped.
    Foreign,
    /// Expired or cancelled.
    Done,
}

/// The importer's state: each address's state, the operations made so far
/// (with the index of the event that made each) and the counts.
struct Machine {
    cpu: Option<u32>,
    states: HashMap<u64, State>,
    ops: Vec<(usize, TimedOp)>,
    timers: u32,
    summary: FtraceSummary,
}

impl Machine {
    fn new(cpu: Option<u32>) -> Self {
        Self {
            cpu,
            states: HashMap::new(),
            ops: Vec::new(),
            timers: 0,
            summary: FtraceSummary {
                cpu,
                ..FtraceSummary::default()
            },
        }
    }

    fn kept(&self, cpu: u32) -> bool {
        self.cpu.is_none_or(|kept| kept == cpu)
    }

    fn push(&mut self, index: usize, at: Tick, op: Op) {
        self.ops.push((index, TimedOp { at, op }));
    }

    /// A new timer: an insert if its CPU is kept.
    fn insert(&mut self, index: usize, at: Tick, cpu: u32, deadline: Tick) -> Timer {
        if !self.kept(cpu) {
            self.summary.other_cpus += 1;
            return Timer {
                number: None,
                deadline,
            };
        }
        let number = self.timers;
        // A tape holds at most MAX_TAPE_OPS events, far fewer than u32::MAX.
        self.timers += 1;
        self.summary.inserts += 1;
        self.push(
            index,
            at,
            Op::Insert {
                timer: number,
                deadline,
            },
        );
        Timer {
            number: Some(number),
            deadline,
        }
    }

    /// A real cancel of `timer`, at the event it was logged by.
    fn cancel_op(&mut self, index: usize, at: Tick, timer: Timer) {
        match timer.number {
            Some(number) => {
                self.summary.cancels += 1;
                self.push(index, at, Op::Cancel { timer: number });
            }
            None => self.summary.other_cpus += 1,
        }
    }

    /// A re-arm of `old` to `deadline` on `cpu`.
    fn rearm(&mut self, index: usize, at: Tick, old: Timer, cpu: u32, deadline: Tick) -> Timer {
        match (old.number, self.kept(cpu)) {
            (Some(number), true) if old.deadline > at => {
                self.summary.reschedules += 1;
                self.push(
                    index,
                    at,
                    Op::Reschedule {
                        timer: number,
                        deadline,
                    },
                );
                Timer {
                    number: Some(number),
                    deadline,
                }
            }
            (Some(_), true) => {
                self.summary.due_rearms += 1;
                self.insert(index, at, cpu, deadline)
            }
            (Some(_), false) => {
                // Moved to a CPU not kept: it leaves this one.
                self.cancel_op(index, at, old);
                Timer {
                    number: None,
                    deadline,
                }
            }
            (None, _) => self.insert(index, at, cpu, deadline),
        }
    }

    fn start(&mut self, index: usize, ts_ns: u64, at: Tick, ptr: u64, cpu: u32, deadline: Tick) {
        let timer = match self.states.remove(&ptr) {
            Some(State::Detached {
                timer,
                ts_ns: cancelled,
                at: cancel_at,
                index: cancel_index,
            }) => {
                if ts_ns.saturating_sub(cancelled) <= REARM_WINDOW_NS {
                    self.rearm(index, at, timer, cpu, deadline)
                } else {
                    self.cancel_op(cancel_index, cancel_at, timer);
                    self.insert(index, at, cpu, deadline)
                }
            }
            Some(State::Pending(timer)) => {
                if timer.number.is_some() || self.kept(cpu) {
                    self.summary.rearms_without_cancel += 1;
                }
                self.rearm(index, at, timer, cpu, deadline)
            }
            Some(State::UnknownDetached {
                ts_ns: cancelled,
                cpu: logged_on,
            }) => {
                if !self.kept(logged_on) {
                    self.summary.other_cpus += 1;
                } else if ts_ns.saturating_sub(cancelled) <= REARM_WINDOW_NS {
                    self.summary.unknown_rearmed += 1;
                } else {
                    self.summary.unknown_cancelled += 1;
                }
                self.insert(index, at, cpu, deadline)
            }
            Some(State::Foreign | State::Done) | None => self.insert(index, at, cpu, deadline),
        };
        self.states.insert(ptr, State::Pending(timer));
    }

    /// A start on another clock: the address is skipped until its next
    /// start.
    fn foreign(&mut self, ptr: u64) {
        self.summary.other_clock += 1;
        self.states.insert(ptr, State::Foreign);
    }

    fn cancel(&mut self, index: usize, ts_ns: u64, at: Tick, ptr: u64, cpu: u32) {
        let state = match self.states.remove(&ptr) {
            Some(State::Pending(timer)) => State::Detached {
                timer,
                ts_ns,
                at,
                index,
            },
            Some(detached @ (State::Detached { .. } | State::UnknownDetached { .. })) => {
                self.summary.double_cancels += 1;
                detached
            }
            Some(State::Foreign) => State::Foreign,
            Some(State::Done) | None => State::UnknownDetached { ts_ns, cpu },
        };
        self.states.insert(ptr, state);
    }

    fn expire(&mut self, ptr: u64, cpu: u32) {
        match self.states.remove(&ptr) {
            Some(State::Pending(timer) | State::Detached { timer, .. }) => {
                if timer.number.is_some() {
                    self.summary.expiries += 1;
                } else {
                    self.summary.other_cpus += 1;
                }
            }
            Some(State::UnknownDetached { cpu: logged_on, .. }) => self.unknown_expired(logged_on),
            None => self.unknown_expired(cpu),
            Some(State::Foreign) => {}
            Some(State::Done) => self.summary.stray_expiries += 1,
        }
        self.states.insert(ptr, State::Done);
    }

    fn unknown_expired(&mut self, cpu: u32) {
        if self.kept(cpu) {
            self.summary.unknown_expired += 1;
        } else {
            self.summary.other_cpus += 1;
        }
    }

    /// Settles what the end leaves open and builds the tape.
    fn finish(mut self, name: String, end: Tick) -> FtraceImport {
        let mut open: Vec<State> = std::mem::take(&mut self.states).into_values().collect();
        // The map's order is arbitrary; the operations it adds are put in
        // event order below, and the counts do not depend on order.
        for state in open.drain(..) {
            match state {
                State::Pending(timer) => {
                    if timer.number.is_some() {
                        self.summary.pending_at_end += 1;
                    }
                }
                State::Detached {
                    timer, at, index, ..
                } => self.cancel_op(index, at, timer),
                State::UnknownDetached { cpu, .. } => {
                    if self.kept(cpu) {
                        self.summary.unknown_cancelled += 1;
                    } else {
                        self.summary.other_cpus += 1;
                    }
                }
                State::Foreign | State::Done => {}
            }
        }
        self.ops.sort_by_key(|&(index, _)| index);
        let ops: Vec<TimedOp> = self.ops.into_iter().map(|(_, op)| op).collect();
        self.summary.operations = ops.len() as u64;
        let tape = Tape {
            name,
            ops,
            prefill: 0,
            end,
            timers: self.timers,
        };
        debug_assert_eq!(tape.check(), Ok(()));
        FtraceImport {
            tape,
            summary: self.summary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn import(text: &str, options: &FtraceOptions) -> FtraceImport {
        parse_ftrace(text.as_bytes(), "t", Path::new("t.txt"), options).unwrap()
    }

    fn list(ts: &str, cpu: u32, event: &str, fields: &str) -> String {
        format!("task-1 [{cpu:03}] d..1. {ts}: {event}: {fields}\n")
    }

    #[test]
    fn hz_is_measured_and_rounded() {
        let second = NS_PER_S;
        assert_eq!(measured_hz((0, 1000), (2 * second, 1500)), Ok(250));
        assert_eq!(measured_hz((0, 1000), (2 * second, 1490)), Ok(250));
        assert!(
            measured_hz((0, 1000), (second / 2, 1125))
                .unwrap_err()
                .contains("span")
        );
        assert!(
            measured_hz((0, 0), (second, 500))
                .unwrap_err()
                .contains("500 a second")
        );
    }

    #[test]
    fn a_cancels_jiffies_count_from_the_last_known_and_round_down() {
        let text = [
            list(
                "10.000000",
                0,
                "timer_start",
                "timer=a expires=1010 [timeout=10] cpu=0",
            ),
            // 7.999 ms later at HZ=250 is 1.99 jiffies: 1 jiffy.
            list("10.007999", 0, "timer_cancel", "timer=a"),
            list("10.008000", 0, "timer_cancel", "timer=b"),
        ]
        .concat();
        let text = format!("# HZ: 250\n{text}");
        let imported = import(&text, &FtraceOptions::default());
        assert_eq!(imported.summary.origin, 1000);
        assert_eq!(
            imported.tape.ops[1],
            TimedOp {
                at: 1,
                op: Op::Cancel { timer: 0 }
            }
        );
        assert_eq!(imported.tape.end, 2);
    }

    #[test]
    fn hrtimer_deadlines_round_up_and_other_clocks_are_skipped() {
        assert_eq!(hr_deadline(1_500, 0, 1_000), Some(2));
        assert_eq!(hr_deadline(1_500, 500, 1_000), Some(1));
        assert_eq!(hr_deadline(-5, 0, 0), Some(0));
        let realtime = 1_700_000_000 * NS_PER_S as i64;
        assert_eq!(hr_deadline(realtime, 0, 3_000 * NS_PER_S), None);
        assert_eq!(hr_deadline(i64::MAX, 0, 3_000 * NS_PER_S), None);
    }

    #[test]
    fn the_header_gives_hz_clock_and_lost_events() {
        let mut header = Header::default();
        header.read("# HZ: 250 (CONFIG_HZ in /proc/config.gz)");
        header.read("# trace_clock: mono");
        header.read("# lost events: 12 (overrun 12, dropped 0)");
        header.read("# tracer: nop");
        assert_eq!(
            (header.hz, header.mono_clock, header.lost),
            (Some(250), true, 12)
        );
        header.read("# HZ: unknown (no configuration)");
        assert_eq!(header.hz, None);
    }
}
