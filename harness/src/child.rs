//! A child process that cannot outlive its deadline or its parent: what
//! `timerbench counts` runs each cell's Valgrind in.
//!
//! **Why.** A child that hangs (a Valgrind stuck on a cell, a base build
//! that loops) would hold its parent for ever, and a parent that is killed
//! (SIGTERM, SIGINT, SIGKILL) would leave it running, still writing into a
//! scratch directory nothing removes.
//!
//! **How.** The child starts in a process group of its own, so that it and
//! everything it starts can be killed at once (`kill(-pgid)`), and on Linux
//! it asks the kernel to kill it when the thread that started it dies
//! (`PR_SET_PDEATHSIG`), which covers every way the parent can end, SIGKILL
//! included. Its standard output and error are read by two threads while
//! this one polls for its exit every [`POLL`]; past the deadline the group
//! is killed and the error says so.
//!
//! **Cost.** Two threads and a poll every few milliseconds per child, for
//! children that run for seconds to minutes.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// How often the parent looks whether the child has ended: short against a
/// child's seconds, long against a look's microseconds.
const POLL: Duration = Duration::from_millis(20);

/// Runs `command` to its end, with its output read, or kills its process
/// group once it has run for `deadline`. `what` names it in errors.
pub fn output_within(command: &mut Command, deadline: Duration, what: &str) -> Result<Output> {
    own_group_and_die_with_parent(command);
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {what}"))?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .with_context(|| format!("waiting for {what}"))?
        {
            break status;
        }
        if started.elapsed() >= deadline {
            kill_group(child.id());
            let _ = child.wait();
            bail!(
                "{what} ran past its deadline of {} s and was killed, with every process it \
                 started",
                deadline.as_secs()
            );
        }
        std::thread::sleep(POLL);
    };
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Makes the child lead a process group of its own and, on Linux, die when
/// the thread that starts it does.
#[cfg(unix)]
#[allow(unsafe_code)]
fn own_group_and_die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the child between fork and exec and calls
    // only `prctl`, which is async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Off Unix a child is started as it is.
#[cfg(not(unix))]
fn own_group_and_die_with_parent(_command: &mut Command) {}

/// Kills the process group led by `pid` (the child and what it started).
#[cfg(unix)]
#[allow(unsafe_code, clippy::cast_possible_wrap)]
fn kill_group(pid: u32) {
    // SAFETY: `kill` takes plain integers; a group that is already gone
    // gives an error, which changes nothing.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// Off Unix nothing is killed but by `wait`'s caller.
#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_child_past_its_deadline_is_killed_with_its_group() {
        // The shell starts a grandchild; both must be gone at once.
        let started = Instant::now();
        let error = output_within(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30"]),
            Duration::from_millis(300),
            "a sleeping shell",
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("ran past its deadline"),
            "{error}"
        );
        // The drain threads would wait for the grandchild's end if it lived
        // on with the pipe open: the whole group is gone, so they do not.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_child_that_ends_gives_its_output() {
        let output = output_within(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
            "a shell",
        )
        .unwrap();
        assert_eq!(output.status.code(), Some(3));
        assert_eq!(output.stdout, b"out\n");
        assert_eq!(output.stderr, b"err\n");
    }
}
