//! `scripts/capture.sh` (`make capture`) refuses, with the fix, when it
//! cannot record: no tracefs, not root, a bad length. Each refusal comes
//! before the script touches tracefs. The rest runs against a fake tracefs
//! (plain files in a temporary folder, named by `TRACEFS`): a capture writes
//! its header and turns everything off again, also when the load fails or
//! the script is killed. These tests never touch the real tracefs; a real
//! capture is not run here.

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

/// The six events the script enables.
const EVENTS: [&str; 6] = [
    "timer_start",
    "timer_cancel",
    "timer_expire_entry",
    "hrtimer_start",
    "hrtimer_cancel",
    "hrtimer_expire_entry",
];

/// A folder with the files of tracefs the script reads and writes, all
/// off; removed when dropped.
struct FakeTracefs(PathBuf);

impl FakeTracefs {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!("fake-tracefs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("tracing_on", "0\n");
        write("trace_clock", "[local] global mono\n");
        write("buffer_size_kb", "1410\n");
        write("trace", "# tracer: nop\n");
        for cpu in 0..2 {
            write(
                &format!("per_cpu/cpu{cpu}/stats"),
                "entries: 0\noverrun: 3\ndropped events: 0\n",
            );
        }
        for event in EVENTS {
            write(&format!("events/timer/{event}/enable"), "0\n");
        }
        Self(root)
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.0.join(path))
            .unwrap()
            .trim()
            .to_owned()
    }

    /// Whether tracing and every event are off.
    fn all_off(&self) -> bool {
        self.read("tracing_on") == "0"
            && EVENTS
                .iter()
                .all(|e| self.read(&format!("events/timer/{e}/enable")) == "0")
    }
}

impl Drop for FakeTracefs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_capture_writes_its_header_and_turns_everything_off() {
    if !is_root() {
        println!("skipped: not root, so the script stops at the root check");
        return;
    }
    let fake = FakeTracefs::new("ok");
    let out = fake.0.join("trace.txt");
    let output = Command::new("sh")
        .arg(script())
        .env("TRACEFS", &fake.0)
        .env("CAPTURE_OUT", &out)
        .env("LOAD", "test -e \"$TRACEFS/tracing_on\" && exit 3")
        .env("CAPTURE_NOTE", "a test")
        .output()
        .unwrap();
    let (code, stderr) = outcome(&output);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("the load exited with status 3; the trace was written all the same"),
        "{stderr}"
    );
    assert!(
        stderr.contains("6 events were lost; raise BUFFER_KB"),
        "{stderr}"
    );
    assert!(fake.all_off());
    assert_eq!(
        fake.read("trace_clock"),
        "local",
        "the clock found is restored"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    for line in [
        "# timerbench capture: kernel timer events as raw ftrace text",
        "# cpus: 2",
        "# load: test -e \"$TRACEFS/tracing_on\" && exit 3",
        "# load exit status: 3",
        "# note: a test",
        "# trace_clock: mono",
        "# lost events: 6 (overrun 6, dropped 0)",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "no {line:?} in\n{text}"
        );
    }
    assert!(text.lines().any(|l| l.starts_with("# HZ: ")), "{text}");
    // The buffer was cleared before recording (the fake's `trace` file is
    // truncated by it), so the trace holds only the header.
    assert!(!text.contains("# tracer: nop"), "{text}");
}

#[test]
fn a_killed_capture_turns_everything_off() {
    if !is_root() {
        println!("skipped: not root, so the script stops at the root check");
        return;
    }
    let fake = FakeTracefs::new("killed");
    let out = fake.0.join("trace.txt");
    let mut child = Command::new("sh")
        .arg(script())
        .env("TRACEFS", &fake.0)
        .env("CAPTURE_OUT", &out)
        .env("CAPTURE_SECONDS", "60")
        .env_remove("LOAD")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it is recording, then kill it with TERM.
    let started = std::time::Instant::now();
    while fake.read("tracing_on") != "1" {
        assert!(
            started.elapsed().as_secs() < 20,
            "the capture never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!fake.all_off());
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert!(fake.all_off());
    assert!(!out.exists(), "a killed capture writes no trace");
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
