//! One line of ftrace text: the kernel's timer events as
//! `/sys/kernel/tracing/trace` and `trace-cmd report` print them, taken apart
//! into typed events.
//!
//! An event line is the task, the CPU in brackets, the latency flags (only
//! in the kernel's own file), the timestamp in seconds, the event's name and
//! its fields:
//!
//! ```text
//!  lto cgu.02-5451    [000] dNh1.  3515.575342: hrtimer_start: hrtimer=00000000c04571a5 function=tick_nohz_handler expires=3515552000000 softexpires=3515552000000 mode=ABS was_armed=0
//!      rcu_preempt-15 [001] d..1.  3515.583381: timer_start: timer=00000000c916d71b function=process_timeout expires=4295771121 [timeout=1] bucket_expiry=4295771122 cpu=1 idx=50 flags=
//!           <idle>-0  [000]  6.123456: timer_cancel:        timer=0xffff888003c1d8e0
//! ```
//!
//! The task's name may hold spaces, colons and brackets (`lto cgu.02`,
//! `bench::tests::a`), so the line is not split on whitespace from the left.
//! It is read from the CPU column: the first `[<digits>]` that is followed
//! by an optional flags word, a timestamp ending in `:` and an event name
//! ending in `:`. Fields are `key=value` words; the brackets around
//! `[timeout=…]` are dropped and words without `=` (a module name after a
//! function) are ignored. Pointers are hexadecimal, with or without `0x`: the
//! kernel's file prints them hashed (the same pointer always gives the same
//! hash within a boot, which is all an importer needs) and `trace-cmd` raw.
//!
//! Parsing is pure: every function here takes text and returns a value or a
//! description of what is wrong, naming the field, for the caller to place
//! at its file and line.

/// An event line taken apart, the fields not yet read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventLine<'a> {
    /// The CPU that logged the event (the `[00n]` column).
    pub(crate) cpu: u32,
    /// The timestamp, in nanoseconds of the trace clock.
    pub(crate) ts_ns: u64,
    /// The event's name, such as `timer_start`.
    pub(crate) name: &'a str,
    /// Everything after the name: the `key=value` words.
    pub(crate) fields: &'a str,
}

/// A timer event, its fields read. Pointers identify a timer while it lives;
/// times are as the kernel prints them (jiffies for `timer_list`, nanoseconds
/// of the timer's clock for hrtimers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// `timer:timer_start`: a `timer_list` queued on a CPU's wheel.
    ListStart {
        /// The `timer_list`'s address.
        ptr: u64,
        /// When it is due, in jiffies.
        expires: u64,
        /// The jiffies when it was queued: `expires - timeout`, when the
        /// `timeout` field is there.
        now: Option<u64>,
        /// The CPU whose wheel holds it (`cpu=`), when printed.
        cpu: Option<u32>,
        /// The expiry of the wheel bucket the kernel filed it in
        /// (`bucket_expiry=`, since Linux 5.9), when printed.
        bucket_expiry: Option<u64>,
        /// `flags=`: `D` deferrable, `P` pinned, `I` irqsafe, `M` migrating.
        flags: TimerFlags,
    },
    /// `timer:timer_cancel`: a `timer_list` taken off its wheel, by a cancel,
    /// a re-arm or just before it runs.
    ListCancel {
        /// The `timer_list`'s address.
        ptr: u64,
    },
    /// `timer:timer_expire_entry`: a `timer_list`'s function about to run.
    ListExpire {
        /// The `timer_list`'s address.
        ptr: u64,
        /// The jiffies when it runs.
        now: u64,
    },
    /// `timer:hrtimer_start`: an hrtimer queued.
    HrStart {
        /// The hrtimer's address.
        ptr: u64,
        /// When it is due (the hard expiry, the key the kernel orders its
        /// queue by), in nanoseconds of the timer's clock.
        expires: i64,
    },
    /// `timer:hrtimer_cancel`: an hrtimer taken off its queue.
    HrCancel {
        /// The hrtimer's address.
        ptr: u64,
    },
    /// `timer:hrtimer_expire_entry`: an hrtimer's function about to run.
    HrExpire {
        /// The hrtimer's address.
        ptr: u64,
        /// Its clock's time when it runs, in nanoseconds.
        now: i64,
    },
    /// Any other event, `timer_expire_exit` and `hrtimer_expire_exit`
    /// included: nothing an importer needs.
    Other,
}

/// The flags of a `timer_list` as `timer_start` prints them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TimerFlags {
    /// `D`: deferrable; an idle CPU does not wake for it, so its wheel
    /// (a separate base) may lag.
    pub deferrable: bool,
    /// `P`: pinned to its CPU.
    pub pinned: bool,
    /// `I`: its function runs with interrupts off.
    pub irqsafe: bool,
}

impl TimerFlags {
    /// Reads `D|P|I|M` (any order, `M` ignored); `None` for another letter.
    pub(crate) fn parse(text: &str) -> Option<TimerFlags> {
        let mut flags = TimerFlags::default();
        for letter in text.split('|').filter(|l| !l.is_empty()) {
            match letter {
                "D" => flags.deferrable = true,
                "P" => flags.pinned = true,
                "I" => flags.irqsafe = true,
                "M" => {}
                _ => return None,
            }
        }
        Some(flags)
    }
}

/// Nanoseconds in a second.
const NS_PER_S: u64 = 1_000_000_000;

/// The most digits after the point a timestamp may have: nanoseconds.
const MAX_FRACTION_DIGITS: usize = 9;

/// Takes an event line apart; `None` when the line is not one (a header
/// line, a lost-events note, anything else).
pub(crate) fn event_line(text: &str) -> Option<EventLine<'_>> {
    let mut from = 0;
    while let Some(open) = text[from..].find('[').map(|i| from + i) {
        from = open + 1;
        let close = text[open..].find(']').map(|i| open + i)?;
        let inside = &text[open + 1..close];
        if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(cpu) = inside.parse::<u32>() else {
            continue;
        };
        if let Some((ts_ns, name, fields)) = after_cpu(&text[close + 1..]) {
            return Some(EventLine {
                cpu,
                ts_ns,
                name,
                fields,
            });
        }
    }
    None
}

/// What follows the CPU column: an optional flags word, then the timestamp
/// and the event's name, each ending in `:`, then the fields.
fn after_cpu(rest: &str) -> Option<(u64, &str, &str)> {
    let (first, rest) = word(rest)?;
    let (stamp, rest) = match first.strip_suffix(':').and_then(timestamp_ns) {
        Some(ts) => (ts, rest),
        None => {
            let (second, rest) = word(rest)?;
            (second.strip_suffix(':').and_then(timestamp_ns)?, rest)
        }
    };
    let (name, fields) = word(rest)?;
    let name = name.strip_suffix(':')?;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    Some((stamp, name, fields.trim()))
}

/// The first whitespace-separated word of `text` and what follows it.
fn word(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    Some((&text[..end], &text[end..]))
}

/// A timestamp `<seconds>.<fraction>` in nanoseconds; the fraction has 1 to
/// 9 digits (the kernel prints 6, `trace-cmd report -t` 9).
pub(crate) fn timestamp_ns(text: &str) -> Option<u64> {
    let (seconds, fraction) = text.split_once('.')?;
    if seconds.is_empty()
        || fraction.is_empty()
        || fraction.len() > MAX_FRACTION_DIGITS
        || !seconds.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let scale = 10u64.pow((MAX_FRACTION_DIGITS - fraction.len()) as u32);
    let whole = seconds.parse::<u64>().ok()?.checked_mul(NS_PER_S)?;
    whole.checked_add(fraction.parse::<u64>().ok()? * scale)
}

/// The value of field `key` among the `key=value` words of `fields`.
pub(crate) fn field<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    fields.split_whitespace().find_map(|word| {
        let word = word.trim_start_matches('[').trim_end_matches(']');
        let (k, value) = word.split_once('=')?;
        (k == key).then_some(value)
    })
}

/// A pointer printed in hexadecimal, with or without `0x`.
pub(crate) fn pointer(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// The count in a lost-events note: the kernel's `CPU:1 [LOST 42 EVENTS]`
/// or `trace-cmd`'s `CPU:1 [42 EVENTS DROPPED]`.
pub(crate) fn lost_events(text: &str) -> Option<u64> {
    let rest = text.trim().strip_prefix("CPU:")?;
    let inside = rest.split_once('[')?.1.split_once(']')?.0;
    let mut words = inside.split_whitespace();
    match (words.next()?, words.next()?, words.next()?) {
        ("LOST", n, "EVENTS") | (n, "EVENTS", "DROPPED") => n.parse().ok(),
        _ => None,
    }
}

/// Reads the fields of a timer event; anything else is [`Event::Other`].
///
/// # Errors
///
/// What is wrong, naming the event and the field, for a timer event with a
/// missing or malformed field.
pub(crate) fn parse_event(line: &EventLine<'_>) -> Result<Event, String> {
    let fields = line.fields;
    let name = line.name;
    let required =
        |key: &str| field(fields, key).ok_or_else(|| format!("`{name}` has no `{key}=` field"));
    let ptr = |key: &str| {
        let text = required(key)?;
        pointer(text).ok_or_else(|| {
            format!("`{key}` of `{name}` is {text:?}; it must be a pointer in hexadecimal")
        })
    };
    let unsigned = |key: &str| {
        let text = required(key)?;
        text.parse::<u64>().map_err(|_| {
            format!("`{key}` of `{name}` is {text:?}; it must be a whole number of jiffies")
        })
    };
    let signed = |key: &str, unit: &str| {
        let text = required(key)?;
        text.parse::<i64>().map_err(|_| {
            format!("`{key}` of `{name}` is {text:?}; it must be a whole number of {unit}")
        })
    };
    Ok(match name {
        "timer_start" => {
            let expires = unsigned("expires")?;
            let now = match field(fields, "timeout") {
                None => None,
                Some(_) => {
                    let timeout = signed("timeout", "jiffies")?;
                    Some(expires.checked_add_signed(timeout.checked_neg().ok_or_else(|| {
                        format!("`timeout` of `{name}` is {timeout}, out of range")
                    })?).ok_or_else(|| {
                        format!("`timeout` of `{name}` is {timeout}, more than `expires`, {expires}")
                    })?)
                }
            };
            let cpu = match field(fields, "cpu") {
                None => None,
                Some(text) => Some(text.parse::<u32>().map_err(|_| {
                    format!("`cpu` of `{name}` is {text:?}; it must be a CPU's number")
                })?),
            };
            let bucket_expiry = match field(fields, "bucket_expiry") {
                None => None,
                Some(_) => Some(unsigned("bucket_expiry")?),
            };
            let flags = match field(fields, "flags") {
                None => TimerFlags::default(),
                Some(text) => TimerFlags::parse(text).ok_or_else(|| {
                    format!("`flags` of `{name}` is {text:?}; it must be letters of D, P, I and M joined by `|`")
                })?,
            };
            Event::ListStart {
                ptr: ptr("timer")?,
                expires,
                now,
                cpu,
                bucket_expiry,
                flags,
            }
        }
        "timer_cancel" => Event::ListCancel { ptr: ptr("timer")? },
        "timer_expire_entry" => Event::ListExpire {
            ptr: ptr("timer")?,
            now: unsigned("now")?,
        },
        "hrtimer_start" => Event::HrStart {
            ptr: ptr("hrtimer")?,
            expires: signed("expires", "nanoseconds")?,
        },
        "hrtimer_cancel" => Event::HrCancel {
            ptr: ptr("hrtimer")?,
        },
        "hrtimer_expire_entry" => Event::HrExpire {
            ptr: ptr("hrtimer")?,
            now: signed("now", "nanoseconds")?,
        },
        _ => Event::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "     rcu_preempt-15      [001] d..1.  3515.583381: timer_start: timer=00000000c916d71b function=process_timeout expires=4295771121 [timeout=1] bucket_expiry=4295771122 cpu=1 idx=50 flags=";

    #[test]
    fn a_kernel_line_is_taken_apart() {
        let line = event_line(START).unwrap();
        assert_eq!(line.cpu, 1);
        assert_eq!(line.ts_ns, 3_515_583_381_000);
        assert_eq!(line.name, "timer_start");
        assert!(line.fields.starts_with("timer=00000000c916d71b function="));
        assert_eq!(
            parse_event(&line).unwrap(),
            Event::ListStart {
                ptr: 0xc916_d71b,
                expires: 4_295_771_121,
                now: Some(4_295_771_120),
                cpu: Some(1),
                bucket_expiry: Some(4_295_771_122),
                flags: TimerFlags::default(),
            }
        );
    }

    #[test]
    fn task_names_with_spaces_colons_and_brackets_are_skipped() {
        for prefix in [
            " lto cgu.02-5451    ",
            " bench::tests::a-5461    ",
            " weird [x] 1.5: name-7 ",
            "kworker/u4:2-44 ",
        ] {
            let text = format!(
                "{prefix}[000] dNh1.  3515.575342: hrtimer_cancel: hrtimer=00000000c04571a5"
            );
            let line = event_line(&text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!((line.cpu, line.name), (0, "hrtimer_cancel"), "{text}");
            assert_eq!(
                parse_event(&line).unwrap(),
                Event::HrCancel { ptr: 0xc045_71a5 }
            );
        }
    }

    #[test]
    fn a_trace_cmd_line_has_no_flags_and_raw_pointers() {
        let line = event_line(
            "          <idle>-0     [000]  6.123456: timer_cancel:        timer=0xffff888003c1d8e0",
        )
        .unwrap();
        assert_eq!((line.cpu, line.ts_ns), (0, 6_123_456_000));
        assert_eq!(
            parse_event(&line).unwrap(),
            Event::ListCancel {
                ptr: 0xffff_8880_03c1_d8e0
            }
        );
    }

    #[test]
    fn other_lines_are_not_event_lines() {
        for text in [
            "# tracer: nop",
            "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
            "CPU:1 [LOST 42 EVENTS]",
            "cpus=2",
            "",
            "bash-12 [001] d..1. soon: timer_cancel: timer=1",
            "bash-12 [001] d..1. 1.5: : timer=1",
        ] {
            assert_eq!(event_line(text), None, "{text:?}");
        }
    }

    #[test]
    fn timestamps_take_one_to_nine_fraction_digits() {
        assert_eq!(timestamp_ns("3515.571321"), Some(3_515_571_321_000));
        assert_eq!(timestamp_ns("1.000000001"), Some(1_000_000_001));
        assert_eq!(timestamp_ns("0.5"), Some(500_000_000));
        for bad in ["1.", ".5", "1.0000000001", "1.5e3", "-1.5", "15", "1.2.3"] {
            assert_eq!(timestamp_ns(bad), None, "{bad}");
        }
    }

    #[test]
    fn fields_drop_brackets_and_ignore_bare_words() {
        let fields = "timer=ab function=f [mod] expires=10 [timeout=-2] flags=";
        assert_eq!(field(fields, "timeout"), Some("-2"));
        assert_eq!(field(fields, "flags"), Some(""));
        assert_eq!(field(fields, "mod"), None);
        assert_eq!(field(fields, "expire"), None);
    }

    #[test]
    fn pointers_are_hexadecimal() {
        assert_eq!(pointer("00000000c916d71b"), Some(0xc916_d71b));
        assert_eq!(pointer("0xffff888003c1d8e0"), Some(0xffff_8880_03c1_d8e0));
        for bad in ["", "0x", "xyz", "11112222333344445"] {
            assert_eq!(pointer(bad), None, "{bad}");
        }
    }

    #[test]
    fn lost_event_notes_of_both_tools() {
        assert_eq!(lost_events("CPU:1 [LOST 42 EVENTS]"), Some(42));
        assert_eq!(lost_events("CPU:0 [7 EVENTS DROPPED]"), Some(7));
        assert_eq!(lost_events("CPU:0 [LOST many EVENTS]"), None);
        assert_eq!(lost_events("# lost events: 3"), None);
    }

    #[test]
    fn every_timer_event_is_read() {
        let read = |text: &str| parse_event(&event_line(text).unwrap());
        assert_eq!(
            read("x-1 [000] ..s.. 1.000001: timer_expire_entry: timer=0a function=f now=4295771139 baseclk=4295771139").unwrap(),
            Event::ListExpire { ptr: 10, now: 4_295_771_139 }
        );
        assert_eq!(
            read("x-1 [001] d.h1. 1.000001: hrtimer_start: hrtimer=0b function=f expires=3515548000000 softexpires=3515548000000 mode=ABS was_armed=0").unwrap(),
            Event::HrStart { ptr: 11, expires: 3_515_548_000_000 }
        );
        assert_eq!(
            read("x-1 [001] d.h.. 1.000001: hrtimer_expire_entry: hrtimer=0b function=f now=3515544024150").unwrap(),
            Event::HrExpire { ptr: 11, now: 3_515_544_024_150 }
        );
        assert_eq!(
            read("x-1 [001] d.h.. 1.000001: timer_expire_exit: timer=0b").unwrap(),
            Event::Other
        );
        // Without `timeout`, `cpu` and `bucket_expiry` (older kernels),
        // they are unknown.
        assert_eq!(
            read("x-1 [001] d.h.. 1.000001: timer_start: timer=0b function=f expires=100 flags=D")
                .unwrap(),
            Event::ListStart {
                ptr: 11,
                expires: 100,
                now: None,
                cpu: None,
                bucket_expiry: None,
                flags: TimerFlags {
                    deferrable: true,
                    ..TimerFlags::default()
                },
            }
        );
    }

    #[test]
    fn flags_are_letters_joined_by_bars() {
        assert_eq!(TimerFlags::parse(""), Some(TimerFlags::default()));
        let all = TimerFlags {
            deferrable: true,
            pinned: true,
            irqsafe: true,
        };
        assert_eq!(TimerFlags::parse("M|D|P|I"), Some(all));
        assert_eq!(TimerFlags::parse("D|X"), None);
    }

    #[test]
    fn a_bad_field_is_named() {
        let read = |text: &str| parse_event(&event_line(text).unwrap()).unwrap_err();
        assert_eq!(
            read(
                "x-1 [000] d..1. 1.5: timer_start: timer=0b function=f expires=soon [timeout=1] cpu=0"
            ),
            "`expires` of `timer_start` is \"soon\"; it must be a whole number of jiffies"
        );
        assert_eq!(
            read("x-1 [000] d..1. 1.5: timer_start: function=f expires=5 [timeout=1] cpu=0"),
            "`timer_start` has no `timer=` field"
        );
        assert_eq!(
            read("x-1 [000] d..1. 1.5: timer_start: timer=0b expires=5 [timeout=9] cpu=0"),
            "`timeout` of `timer_start` is 9, more than `expires`, 5"
        );
        assert_eq!(
            read("x-1 [000] d..1. 1.5: timer_start: timer=0b expires=5 [timeout=1] cpu=one"),
            "`cpu` of `timer_start` is \"one\"; it must be a CPU's number"
        );
        assert_eq!(
            read("x-1 [000] d..1. 1.5: hrtimer_cancel: hrtimer=zz"),
            "`hrtimer` of `hrtimer_cancel` is \"zz\"; it must be a pointer in hexadecimal"
        );
        assert_eq!(
            read("x-1 [000] d..1. 1.5: hrtimer_expire_entry: hrtimer=0b now=1.5"),
            "`now` of `hrtimer_expire_entry` is \"1.5\"; it must be a whole number of nanoseconds"
        );
    }
}
