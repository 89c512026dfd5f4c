//! `scripts/capture.sh` (`make capture`) refuses, with the fix, when it
//! cannot record: no tracefs, not root, a bad length. Each refusal comes
//! before the script touches tracefs, so these tests never turn tracing on;
//! a real capture needs root and is not run here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/capture.sh")
}

/// The script's exit code and standard error.
fn outcome(output: &Output) -> (Option<i32>, String) {
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn is_root() -> bool {
    let output = Command::new("id").arg("-u").output().expect("runs id -u");
    String::from_utf8_lossy(&output.stdout).trim() == "0"
}

fn capture(command: &mut Command, seconds: &str) -> (Option<i32>, String) {
    let out = std::env::temp_dir().join(format!("capture-test-{}.txt", std::process::id()));
    let output = command
        .env("CAPTURE_OUT", &out)
        .env("CAPTURE_SECONDS", seconds)
        .env_remove("LOAD")
        .output()
        .expect("runs sh");
    assert!(!out.exists(), "a refused capture writes nothing");
    outcome(&output)
}

#[test]
fn the_script_is_valid_posix_sh() {
    let output = Command::new("sh").arg("-n").arg(script()).output().unwrap();
    assert!(output.status.success(), "{}", outcome(&output).1);
}

#[test]
fn no_tracefs_is_refused_with_the_mount_command() {
    if !is_root() {
        println!(
            "skipped: not root, so the script stops at the root check before looking for tracefs"
        );
        return;
    }
    let (code, stderr) = capture(
        Command::new("sh")
            .arg(script())
            .env("TRACEFS", "/nonexistent/tracefs"),
        "1",
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with(
            "capture: no tracefs at /nonexistent/tracefs; mount it with \
             `mount -t tracefs nodev /sys/kernel/tracing`"
        ) && stderr.contains("or set TRACEFS to where it is mounted"),
        "{stderr}"
    );
}

#[test]
fn not_root_is_refused_with_the_fix() {
    let mut command = if is_root() {
        let found = Command::new("sh")
            .args(["-c", "command -v setpriv"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            println!(
                "skipped: running as root and setpriv (util-linux) is missing, so no way to drop root"
            );
            return;
        }
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups", "sh"]);
        command
    } else {
        Command::new("sh")
    };
    command.arg(script());
    let (code, stderr) = capture(&mut command, "1");
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "capture: enabling kernel trace events needs root; run it as root, e.g. sudo make capture"
    );
}

#[test]
fn a_length_that_is_not_a_number_is_refused() {
    let (code, stderr) = capture(Command::new("sh").arg(script()), "1m");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("CAPTURE_SECONDS (make's SECONDS) is \"1m\""),
        "{stderr}"
    );
}
