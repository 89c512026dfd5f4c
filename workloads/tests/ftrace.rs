//! Importing kernel timer traces: the committed excerpt of a real capture
//! with counts checked by hand, the rules on small made-up traces, bad lines,
//! the CPU filter, hrtimers, and the CSV round trip.
//!
//! `data/ftrace-excerpt.txt` is the first 350 event lines of
//! `traces/redis-benchmark.txt.gz` with its capture header. Its counts were
//! checked two ways: by a separate script applying the rules of
//! `src/ftrace.rs` line by line, and by hand for the timers named below.

use std::path::{Path, PathBuf};

use workloads::{
    FtraceImport, FtraceOptions, FtraceSummary, KernelTimerStart, KernelTimers, Op, TimedOp,
    TimerFlags, import_ftrace, kernel_timer_starts, load_trace, parse_ftrace, write_trace,
};

fn excerpt() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ftrace-excerpt.txt")
}

fn import(options: FtraceOptions) -> FtraceImport {
    let imported = import_ftrace(&excerpt(), &options).unwrap();
    imported.tape.check().unwrap();
    imported
}

/// The counts a test holds an import to: inserts, reschedules, cancels,
/// expiries, pending at the end, and the skipped timers armed before the
/// capture (expired, cancelled, re-armed).
fn counts(summary: &FtraceSummary) -> [u64; 8] {
    [
        summary.inserts,
        summary.reschedules,
        summary.cancels,
        summary.expiries,
        summary.pending_at_end,
        summary.unknown_expired,
        summary.unknown_cancelled,
        summary.unknown_rearmed,
    ]
}

#[test]
fn the_excerpt_gives_the_hand_checked_timer_list_counts() {
    let FtraceImport { tape, summary } = import(FtraceOptions::default());
    assert_eq!(tape.name, "ftrace-excerpt");
    assert_eq!(counts(&summary), [127, 79, 26, 1, 100, 2, 0, 0]);
    assert_eq!(summary.operations, 127 + 79 + 26);
    assert_eq!(tape.ops.len(), 232);
    assert_eq!(tape.timers, 127);
    assert_eq!(summary.hz, Some(250));
    assert_eq!(summary.events, 350 - 33);
    assert_eq!(summary.other_events, 33);
    assert_eq!(
        (
            summary.due_rearms,
            summary.double_cancels,
            summary.stray_expiries,
            summary.lost_events
        ),
        (0, 0, 0, 0)
    );
    // The first event with jiffies is the expiry on line 36, at 4295883559;
    // the cancel on line 35 comes at the same instant.
    assert_eq!(summary.origin, 4_295_883_559);
    let op = |at, op| TimedOp { at, op };
    assert_eq!(
        tape.ops[..8],
        [
            // Line 35-36: c916d71b, armed before the capture, detached and
            // expired: skipped. Line 37: started again, expires=…560.
            op(
                0,
                Op::Insert {
                    timer: 0,
                    deadline: 1
                }
            ),
            // Lines 49-50 expire it; line 51 starts it again at …561.
            op(
                2,
                Op::Insert {
                    timer: 1,
                    deadline: 3
                }
            ),
            // Line 52: a request socket's timer 250 jiffies (1 s) ahead, and
            // line 53 the connection's write timer.
            op(
                2,
                Op::Insert {
                    timer: 2,
                    deadline: 252
                }
            ),
            op(
                2,
                Op::Insert {
                    timer: 3,
                    deadline: 252
                }
            ),
            // Line 54 cancels the request timer; its address is next started
            // 480 µs later (line 66), so this is a real cancel.
            op(2, Op::Cancel { timer: 2 }),
            // Lines 55-56: cancel and start of the write timer at the same
            // microsecond: a re-arm, 50 jiffies ahead.
            op(
                2,
                Op::Reschedule {
                    timer: 3,
                    deadline: 52
                }
            ),
            // Line 58: a keepalive armed 1,800,000 jiffies (2 hours) ahead,
            // then at once (lines 59-60) re-armed to 75,000 (5 minutes).
            op(
                2,
                Op::Insert {
                    timer: 4,
                    deadline: 1_800_002
                }
            ),
            op(
                2,
                Op::Reschedule {
                    timer: 4,
                    deadline: 75_002
                }
            ),
        ]
    );
    let line = summary.to_string();
    assert!(
        line.starts_with(
            "timer_list at HZ=250: 232 operations (127 inserts, 0 of them re-arms of a timer \
             already due; 79 reschedules; 26 cancels), 1 expiries, 100 pending at the end; \
             skipped 2 timers armed before the capture (2 expired, 0 cancelled, 0 re-armed); \
             0 lost events;"
        ),
        "{line}"
    );
    assert!(!line.contains('\n'));
}

#[test]
fn one_cpu_keeps_the_timers_of_its_wheel() {
    let cpu0 = import(FtraceOptions {
        cpu: Some(0),
        ..FtraceOptions::default()
    });
    let cpu1 = import(FtraceOptions {
        cpu: Some(1),
        ..FtraceOptions::default()
    });
    // The process_timeout timer c916d71b goes on CPU 1's wheel (`cpu=1`),
    // twice, and expires once there; its skipped expiry on line 36 was
    // logged by CPU 0, as was nearly all of the network's traffic.
    assert_eq!(counts(&cpu1.summary), [4, 0, 0, 1, 3, 1, 0, 0]);
    assert_eq!(counts(&cpu0.summary), [123, 79, 26, 0, 97, 1, 0, 0]);
    assert_eq!(cpu0.summary.cpu, Some(0));
    assert!(
        cpu1.summary
            .to_string()
            .starts_with("timer_list at HZ=250, CPU 1: 4 operations")
    );
    // Every timer is on one CPU or the other.
    let all = import(FtraceOptions::default()).summary;
    assert_eq!(cpu0.summary.inserts + cpu1.summary.inserts, all.inserts);
    assert_eq!(
        cpu0.summary.pending_at_end + cpu1.summary.pending_at_end,
        all.pending_at_end
    );
    assert_eq!(cpu0.summary.origin, all.origin);
}

#[test]
fn the_hrtimer_tape_counts_microseconds() {
    let FtraceImport { tape, summary } = import(FtraceOptions {
        timers: KernelTimers::Hrtimer,
        ..FtraceOptions::default()
    });
    assert_eq!(tape.name, "ftrace-excerpt-hrtimer");
    // Hand-checked: the cancel on line 57 is of an hrtimer armed before the
    // capture; those on lines 174, 266, 270 and 333 are of timers started on
    // lines 62, 173, 265 and 274.
    assert_eq!(counts(&summary), [16, 0, 4, 8, 4, 4, 1, 0]);
    assert_eq!(summary.hz, None);
    assert_eq!(summary.clock_offset_ns, 0, "captured on the mono clock");
    assert_eq!(summary.events, 350 - 317);
    // The first event is on line 27 at 3965.308036 s. Line 62 starts
    // 9d1058d4 at 3965.323030 s, due at 3965350079170 ns: 42,043.17 µs after
    // the origin, rounded up.
    assert_eq!(summary.origin, 3_965_308_036);
    assert!(
        tape.ops.iter().any(|o| o.at == 14_994
            && matches!(
                o.op,
                Op::Insert {
                    deadline: 42_044,
                    ..
                }
            )),
        "{:?}",
        &tape.ops[..8]
    );
    assert!(
        summary
            .to_string()
            .starts_with("hrtimer at 1 µs: 20 operations")
    );
    let cpu1 = import(FtraceOptions {
        timers: KernelTimers::Hrtimer,
        cpu: Some(1),
        ..FtraceOptions::default()
    });
    assert_eq!(counts(&cpu1.summary), [5, 0, 0, 4, 1, 1, 0, 0]);
}

#[test]
fn a_tape_written_as_csv_reads_back_equal() {
    let imported = import(FtraceOptions::default());
    let path = std::env::temp_dir().join(format!("ftrace-excerpt-{}.csv", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    write_trace(&imported.tape, &[imported.summary.to_string()], file).unwrap();
    let back = load_trace(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.ops, imported.tape.ops);
    assert_eq!(
        (back.end, back.timers, back.prefill),
        (imported.tape.end, 127, 0)
    );
}

#[test]
fn the_kernels_own_bucket_of_every_start_is_read() {
    let starts = kernel_timer_starts(&excerpt()).unwrap();
    assert_eq!(starts.len(), 206);
    assert_eq!(
        starts[0],
        KernelTimerStart {
            line: 37,
            cpu: 1,
            now: Some(4_295_883_559),
            expires: 4_295_883_560,
            bucket_expiry: Some(4_295_883_561),
            flags: TimerFlags::default(),
        }
    );
    // Line 52: the request socket's timer, pinned, in level 1 (granularity
    // 8): due at …811, filed in the bucket that expires at …816.
    assert_eq!(starts[2].line, 52);
    assert_eq!(starts[2].bucket_expiry, Some(4_295_883_816));
    assert!(starts[2].flags.pinned && !starts[2].flags.deferrable);
    assert_eq!(starts.iter().filter(|s| s.flags.pinned).count(), 22);
    assert_eq!(starts.iter().filter(|s| s.flags.deferrable).count(), 1);
    assert!(
        starts
            .iter()
            .all(|s| s.now.is_some() && s.bucket_expiry.is_some())
    );
}

/// Imports made-up trace text.
fn made_up(text: &str, options: FtraceOptions) -> FtraceImport {
    let imported = parse_ftrace(
        text.as_bytes(),
        "made-up",
        Path::new("made-up.txt"),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    imported.tape.check().unwrap();
    imported
}

/// An event line at `us` microseconds past 100 s, logged by CPU 0.
fn at(us: u64, event: &str) -> String {
    format!(
        "task-1 [000] d..1. {}.{:06}: {event}\n",
        100 + us / 1_000_000,
        us % 1_000_000
    )
}

/// A timer_start of `ptr` at jiffy `now`, due `timeout` later, on `cpu`.
fn start(us: u64, ptr: &str, now: u64, timeout: u64, cpu: u32) -> String {
    at(
        us,
        &format!(
            "timer_start: timer={ptr} function=f expires={} [timeout={timeout}] bucket_expiry=0 cpu={cpu} idx=0 flags=",
            now + timeout
        ),
    )
}

fn cancel(us: u64, ptr: &str) -> String {
    at(us, &format!("timer_cancel: timer={ptr}"))
}

fn expire(us: u64, ptr: &str, now: u64) -> String {
    at(
        us,
        &format!("timer_expire_entry: timer={ptr} function=f now={now} baseclk={now}"),
    )
}

#[test]
fn the_rules_on_a_made_up_timer_list_trace() {
    let text = [
        "# HZ: 250\n".to_owned(),
        start(0, "a", 1000, 100, 0),
        // A cancel then an expiry: one expiry, no operation.
        start(10, "b", 1000, 1, 0),
        cancel(4_000, "b"),
        expire(4_001, "b", 1001),
        // A cancel then a start 2 µs later: a reschedule.
        cancel(8_000, "a"),
        start(8_002, "a", 1002, 50, 0),
        // A cancel then a start 3 µs later: a cancel and a new timer.
        cancel(12_000, "a"),
        start(12_003, "a", 1003, 50, 0),
        // Armed before the capture: an expiry, a cancel, and a re-arm.
        cancel(16_000, "01d1"),
        expire(16_001, "01d1", 1004),
        cancel(16_010, "01d2"),
        cancel(16_020, "01d3"),
        start(16_021, "01d3", 1004, 9, 0),
        // A timer re-armed after its deadline: the queue has fired it, so
        // the re-arm is a new timer.
        start(20_000, "c", 1005, 1, 0),
        cancel(28_000, "c"),
        start(28_001, "c", 1007, 5, 0),
        // Odd: a second cancel, and an expiry of a finished timer.
        cancel(32_000, "d"),
        cancel(32_001, "d"),
        expire(32_002, "b", 1008),
    ]
    .concat();
    let FtraceImport { tape, summary } = made_up(&text, FtraceOptions::default());
    let op = |at, op| TimedOp { at, op };
    assert_eq!(
        tape.ops,
        [
            op(
                0,
                Op::Insert {
                    timer: 0,
                    deadline: 100
                }
            ),
            op(
                0,
                Op::Insert {
                    timer: 1,
                    deadline: 1
                }
            ),
            op(
                2,
                Op::Reschedule {
                    timer: 0,
                    deadline: 52
                }
            ),
            // The cancel at 12 ms is less than a jiffy after the start at
            // 8.002 ms, which knew its jiffy (1002).
            op(2, Op::Cancel { timer: 0 }),
            op(
                3,
                Op::Insert {
                    timer: 2,
                    deadline: 53
                }
            ),
            op(
                4,
                Op::Insert {
                    timer: 3,
                    deadline: 13
                }
            ),
            op(
                5,
                Op::Insert {
                    timer: 4,
                    deadline: 6
                }
            ),
            op(
                7,
                Op::Insert {
                    timer: 5,
                    deadline: 12
                }
            ),
        ]
    );
    // Pending at the end: a, 01d3 and c's new timer; c's first one has
    // fired on the tape.
    assert_eq!(counts(&summary), [6, 1, 1, 1, 3, 1, 2, 1]);
    assert_eq!(
        (
            summary.due_rearms,
            summary.double_cancels,
            summary.stray_expiries
        ),
        (1, 1, 1)
    );
    assert_eq!(tape.end, 8);
}

#[test]
fn the_cpu_filter_follows_a_timer_moved_between_wheels() {
    let text = [
        "# HZ: 250\n".to_owned(),
        start(0, "a", 1000, 100, 0),
        cancel(4_000, "a"),
        start(4_001, "a", 1001, 100, 1),
        cancel(8_000, "a"),
        start(8_001, "a", 1002, 100, 0),
    ]
    .concat();
    let on = |cpu| {
        made_up(
            &text,
            FtraceOptions {
                cpu: Some(cpu),
                ..FtraceOptions::default()
            },
        )
    };
    let op = |at, op| TimedOp { at, op };
    // CPU 0 sees it leave (a cancel) and come back (an insert); CPU 1 sees
    // it arrive and leave.
    assert_eq!(
        on(0).tape.ops,
        [
            op(
                0,
                Op::Insert {
                    timer: 0,
                    deadline: 100
                }
            ),
            op(1, Op::Cancel { timer: 0 }),
            op(
                2,
                Op::Insert {
                    timer: 1,
                    deadline: 102
                }
            ),
        ]
    );
    assert_eq!(
        on(1).tape.ops,
        [
            op(
                1,
                Op::Insert {
                    timer: 0,
                    deadline: 101
                }
            ),
            op(2, Op::Cancel { timer: 0 })
        ]
    );
    let all = made_up(&text, FtraceOptions::default());
    assert_eq!(all.summary.reschedules, 2);
}

#[test]
fn hrtimer_rules_re_arms_without_cancel_and_other_clocks() {
    let hr = |us: u64, text: &str| at(us, text);
    let text = [
        "# trace_clock: mono\n".to_owned(),
        hr(0, "hrtimer_start: hrtimer=a function=f expires=100010000000 softexpires=100010000000 mode=ABS was_armed=0"),
        // Re-armed while armed, with no cancel: a reschedule.
        hr(5, "hrtimer_start: hrtimer=a function=f expires=100020000500 softexpires=100020000500 mode=ABS was_armed=1"),
        // An expiry with no cancel before it: the expiry of a pending timer.
        hr(20_001, "hrtimer_expire_entry: hrtimer=a function=f now=100020001000"),
        // A CLOCK_REALTIME timer, decades ahead of the monotonic clock:
        // skipped with its cancel.
        hr(30_000, "hrtimer_start: hrtimer=fe function=f expires=1764322000000000000 softexpires=1764322000000000000 mode=ABS was_armed=0"),
        hr(30_010, "hrtimer_cancel: hrtimer=fe"),
    ]
    .concat();
    let FtraceImport { tape, summary } = made_up(
        &text,
        FtraceOptions {
            timers: KernelTimers::Hrtimer,
            ..FtraceOptions::default()
        },
    );
    let op = |at, op| TimedOp { at, op };
    assert_eq!(
        tape.ops,
        [
            op(
                0,
                Op::Insert {
                    timer: 0,
                    deadline: 10_000
                }
            ),
            op(
                5,
                Op::Reschedule {
                    timer: 0,
                    deadline: 20_001
                }
            ),
        ]
    );
    assert_eq!(
        (
            summary.rearms_without_cancel,
            summary.expiries,
            summary.other_clock,
            summary.cancels
        ),
        (1, 1, 1, 0)
    );
    assert_eq!(tape.end, 30_010);
}

#[test]
fn hz_comes_from_the_options_the_header_or_the_trace() {
    // Two seconds of jiffies at 250 a second, and no header.
    let text = [
        start(0, "a", 1000, 900, 0),
        start(2_000_000, "b", 1500, 10, 0),
        cancel(2_004_000, "b"),
    ]
    .concat();
    let measured = made_up(&text, FtraceOptions::default());
    assert_eq!(measured.summary.hz, Some(250));
    assert_eq!(
        measured.tape.ops[2],
        TimedOp {
            at: 501,
            op: Op::Cancel { timer: 1 }
        }
    );
    let given = made_up(
        &text,
        FtraceOptions {
            hz: Some(1000),
            ..FtraceOptions::default()
        },
    );
    assert_eq!(
        given.tape.ops[2],
        TimedOp {
            at: 504,
            op: Op::Cancel { timer: 1 }
        }
    );
    // Too short a trace to measure HZ in: refused, with the fix.
    let short = [start(0, "a", 1000, 900, 0), cancel(4_000, "a")].concat();
    let error = parse_ftrace(
        short.as_bytes(),
        "s",
        Path::new("s.txt"),
        &FtraceOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("s.txt: invalid trace: cannot tell the kernel's HZ")
            && error.ends_with("give HZ (FtraceOptions::hz)"),
        "{error}"
    );
}

#[test]
fn bad_lines_name_the_file_the_line_and_the_field() {
    let good = start(0, "a", 1000, 5, 0);
    let cases = [
        (
            format!(
                "# HZ: 250\n{good}{}",
                at(
                    4,
                    "timer_start: timer=b function=f expires=soon [timeout=5] cpu=0"
                )
            ),
            "bad.txt:3: invalid trace: `expires` of `timer_start` is \"soon\"; it must be a whole number of jiffies",
        ),
        (
            format!("# HZ: 250\n{good}{}", at(4, "timer_cancel: function=f")),
            "bad.txt:3: invalid trace: `timer_cancel` has no `timer=` field",
        ),
        (
            format!(
                "# HZ: 250\n{good}{}",
                at(4, "hrtimer_start: hrtimer=x1 expires=1 softexpires=1")
            ),
            "bad.txt:3: invalid trace: `hrtimer` of `hrtimer_start` is \"x1\"; it must be a pointer in hexadecimal",
        ),
        (
            format!("# HZ: 250\n{good}\nat,op,timer,deadline\n"),
            "bad.txt:4: invalid trace: not a line of a kernel trace: an event line is `<task>-<pid> [<cpu>]",
        ),
        (
            format!("{good}task-1 [000] d..1. 100.000001 timer_cancel: timer=a\n"),
            "bad.txt:2: invalid trace: not a line of a kernel trace",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_ftrace(
            text.as_bytes(),
            "bad",
            Path::new("bad.txt"),
            &FtraceOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with(expected),
            "for {text:?}:\n  got      {error}\n  expected {expected}"
        );
    }
    // The other kind's lines are read and checked too, not only counted.
    let hr_bad = format!("# HZ: 250\n{good}{}", at(4, "hrtimer_cancel: hrtimer=zz"));
    assert!(
        parse_ftrace(
            hr_bad.as_bytes(),
            "bad",
            Path::new("bad.txt"),
            &FtraceOptions::default()
        )
        .is_err()
    );
}

#[test]
fn a_missing_file_and_a_bad_name_are_refused() {
    let error = import_ftrace(
        Path::new("/nonexistent/trace.txt"),
        &FtraceOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("/nonexistent/trace.txt: cannot read the trace:"),
        "{error}"
    );
    let error = parse_ftrace(
        "".as_bytes(),
        "a b",
        Path::new("a b.txt"),
        &FtraceOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("rename the file"), "{error}");
}

#[test]
fn a_trace_without_the_chosen_timers_is_refused() {
    let text = format!("# HZ: 250\n{}", start(0, "a", 1000, 5, 0));
    let options = FtraceOptions {
        timers: KernelTimers::Hrtimer,
        ..FtraceOptions::default()
    };
    let error = parse_ftrace(text.as_bytes(), "t", Path::new("t.txt"), &options)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "t.txt: invalid trace: the trace has no hrtimer events (timer:hrtimer_start, \
         hrtimer_cancel and hrtimer_expire_entry); capture with those events enabled (make \
         capture does), or import the timer_list tape"
    );
}

#[test]
fn lost_event_notes_are_counted() {
    let text = [
        "# HZ: 250\n# lost events: 2 (overrun 2, dropped 0)\n".to_owned(),
        start(0, "a", 1000, 5, 0),
        "CPU:1 [LOST 7 EVENTS]\n".to_owned(),
    ]
    .concat();
    assert_eq!(
        made_up(&text, FtraceOptions::default()).summary.lost_events,
        7
    );
}
