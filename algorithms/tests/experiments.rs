//! `docs/lab/patches/`: every kept diff still applies to the commit it names,
//! so that `make paired` can make its figures again, and
//! `harness/scripts/paired.sh` refuses bad input with a message and exit code
//! 2 before it builds anything.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's root, where `make paired` runs the script from.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the algorithms crate lies in the workspace")
        .to_path_buf()
}

/// Where the kept diffs are.
fn patch_dir() -> PathBuf {
    root().join("docs").join("lab").join("patches")
}

/// The script `make paired` runs.
fn paired_script() -> PathBuf {
    root().join("harness").join("scripts").join("paired.sh")
}

/// The kept diffs, by path.
fn patches() -> Vec<PathBuf> {
    let mut patches: Vec<PathBuf> = std::fs::read_dir(patch_dir())
        .expect("docs/lab/patches/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "patch"))
        .collect();
    patches.sort();
    patches
}

/// The value of the first line of `text` that starts with `key`.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|line| line.strip_prefix(key))
        .map(str::trim)
}

/// A scratch directory for one test, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "timerbench-experiments-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    Scratch(dir)
}

#[test]
fn every_kept_diff_describes_itself_and_applies_to_its_base_commit() {
    let patches = patches();
    assert!(!patches.is_empty(), "docs/lab/patches/ keeps no diff");
    for patch in patches {
        let text = std::fs::read_to_string(&patch).expect("a readable diff");
        let shown = patch.display();
        let (description, _) = text
            .split_once("diff --git ")
            .unwrap_or_else(|| panic!("{shown} holds no `diff --git` section"));
        assert!(
            description.lines().count() >= 3,
            "{shown} should open with a description of the change"
        );
        let base = field(description, "Base:")
            .unwrap_or_else(|| panic!("{shown} names no `Base:` commit"));
        let files: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("+++ b/"))
            .collect();
        assert_eq!(files.len(), 1, "{shown} must change exactly one file");
        let file = files[0];
        assert!(
            file.starts_with("algorithms/src/") && file.ends_with(".rs"),
            "{shown} changes {file}, not a design's file"
        );
        let shown_file = Command::new("git")
            .args(["show", &format!("{base}:{file}")])
            .current_dir(root())
            .output()
            .expect("git runs");
        if !shown_file.status.success() {
            // A shallow clone lacks the commit: nothing to check against.
            eprintln!("skipped {shown}: {base} is not in this clone");
            continue;
        }
        let dir = scratch(base);
        let target = dir.0.join(file);
        std::fs::create_dir_all(target.parent().expect("a file has a parent"))
            .expect("the file's directory");
        std::fs::write(&target, &shown_file.stdout).expect("the base file");
        // Outside a repository `git apply` applies to the files under the
        // current directory, like `patch`.
        let check = Command::new("git")
            .args(["apply", "--check"])
            .arg(&patch)
            .current_dir(&dir.0)
            .output()
            .expect("git runs");
        assert!(
            check.status.success(),
            "{shown} does not apply to {file} at {base}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// Runs `paired.sh` from the workspace root with `env` set (and nothing built:
/// every case below is refused before the first build).
fn paired(env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg(paired_script())
        .current_dir(root())
        .env_remove("PATCH")
        .env_remove("PATCH_BASE")
        .env_remove("FILE")
        .env_remove("REPEAT")
        .env_remove("WORKLOADS");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("sh runs")
}

fn assert_refused(output: &Output, says: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains(says), "expected {says:?} in: {stderr}");
}

#[test]
fn paired_refuses_bad_input_before_building() {
    let cases = [
        ("REPEAT", "many", "REPEAT='many' is not a whole number"),
        (
            "PATCH",
            "/nonexistent/change.patch",
            "PATCH='/nonexistent/change.patch' is not a file",
        ),
        (
            "FILE",
            "README.md",
            "FILE='README.md' is not a design's file",
        ),
        (
            "PATCH_BASE",
            "no-such-revision",
            "PATCH_BASE='no-such-revision' is not a commit",
        ),
    ];
    for (key, value, says) in cases {
        assert_refused(&paired(&[(key, value)]), says);
    }
    let dir = scratch("two-files");
    let two = dir.0.join("two.patch");
    std::fs::write(
        &two,
        "diff --git a/x b/x\n--- a/x\n+++ b/algorithms/src/a.rs\n\
         diff --git a/y b/y\n--- a/y\n+++ b/algorithms/src/b.rs\n",
    )
    .expect("a scratch diff");
    assert_refused(
        &paired(&[("PATCH", two.to_str().expect("a UTF-8 path"))]),
        "changes 2 files",
    );
}
