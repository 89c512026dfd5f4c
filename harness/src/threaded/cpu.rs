//! The CPU time of the calling thread, from `/proc/thread-self/schedstat`.
//!
//! The workspace denies `unsafe` code, so `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`
//! through `libc` is out. Linux publishes the same figure as the first field of
//! `/proc/thread-self/schedstat`: the nanoseconds the thread has spent on a
//! CPU, as the scheduler accounts them (not the 10 ms granules of `stat`'s
//! `utime` and `stime`). Reading it costs a file open and a read, a few
//! microseconds; a threaded run reads it twice per thread, at its start and its
//! end, never inside the measured loop. Where the file is missing (another
//! operating system, a kernel without scheduler statistics) the figure is
//! `None` and the results leave the column empty.

/// The file whose first field is the calling thread's CPU time in nanoseconds.
const SCHEDSTAT: &str = "/proc/thread-self/schedstat";

/// The calling thread's CPU time so far, in nanoseconds, if the system says.
pub fn thread_cpu_nanos() -> Option<u64> {
    parse_schedstat(&std::fs::read_to_string(SCHEDSTAT).ok()?)
}

/// The first field of a `schedstat` line: time on a CPU, in nanoseconds.
fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The CPU time a thread spent between two readings, if both were taken.
pub fn spent(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    Some(after?.saturating_sub(before?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_field_is_the_time_on_a_cpu() {
        assert_eq!(parse_schedstat("100706 3285054 2\n"), Some(100_706));
        assert_eq!(parse_schedstat(""), None);
        assert_eq!(parse_schedstat("x 1 2"), None);
        assert_eq!(spent(Some(5), Some(12)), Some(7));
        assert_eq!(spent(None, Some(12)), None);
    }

    #[test]
    fn a_busy_thread_reads_a_growing_cpu_time_where_linux_publishes_it() {
        let Some(before) = thread_cpu_nanos() else {
            return;
        };
        let mut x = 0_u64;
        for i in 0..1_000_000_u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        assert!(thread_cpu_nanos().expect("read once") >= before, "{x}");
    }
}
