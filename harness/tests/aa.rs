//! A/A: the judge's calibration on runs in which nothing changed.
//!
//! `harness/scripts/record-aa.sh` recorded these runs on the project's 2-core
//! VM: one release binary run twelve times back to back, and two builds of
//! one commit run in turn six times by `make ab`'s script. Nothing differs
//! between the sides but the host's noise, so `timerbench compare` must call
//! at least 95% of cells "no significant change", and one run against one run
//! must call nothing at all. The runs are trimmed to the files the runs form
//! reads, so the tests are deterministic and measure nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The share of cells an A/A comparison must call "no significant change".
const NO_CHANGE_SHARE: f64 = 0.95;

/// The fixtures' directory.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aa")
}

/// A comma-separated list of the runs `names` under `dir`.
fn list(dir: &Path, names: impl IntoIterator<Item = String>) -> String {
    names
        .into_iter()
        .map(|name| dir.join(name).display().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The verdict counts `compare BASE NEW` prints: (cells, faster, slower, no
/// significant change, cannot tell).
fn judged(base: &str, new: &str) -> [usize; 5] {
    let out = Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .args(["compare", base, new])
        .output()
        .expect("timerbench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "N cells: F faster, S slower, K no significant change, C cannot tell."
    let line = stdout
        .lines()
        .find(|line| line.contains(" cells: "))
        .unwrap_or_else(|| panic!("no count line: {stdout}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().unwrap())
        .collect();
    // The line goes on with the band's figures; the first five are the counts.
    [numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]]
}

/// Asserts that at least [`NO_CHANGE_SHARE`] of the cells are no change and
/// none cannot be told.
fn assert_calibrated(what: &str, [cells, faster, slower, same, cannot]: [usize; 5]) {
    assert!(cells >= 60, "{what}: {cells} cells");
    assert_eq!(cannot, 0, "{what}: six pairs give every cell a verdict");
    assert_eq!(faster + slower + same, cells, "{what}");
    let share = same as f64 / cells as f64;
    assert!(
        share >= NO_CHANGE_SHARE,
        "{what}: {same} of {cells} cells no change ({faster} faster, {slower} slower)"
    );
}

#[test]
fn two_builds_of_one_commit_run_in_turn_are_judged_no_change() {
    let dir = fixtures().join("builds");
    let base = list(&dir, (1..=6).map(|i| format!("base-{i}")));
    let new = list(&dir, (1..=6).map(|i| format!("new-{i}")));
    assert_calibrated("two builds of one commit", judged(&base, &new));
}

#[test]
fn one_binary_run_twelve_times_is_judged_no_change() {
    let dir = fixtures().join("same");
    let odd = list(&dir, (0..6).map(|i| (2 * i + 1).to_string()));
    let even = list(&dir, (0..6).map(|i| (2 * i + 2).to_string()));
    assert_calibrated("one binary, odd runs against even", judged(&odd, &even));
}

#[test]
fn one_run_against_the_next_calls_nothing() {
    let dir = fixtures().join("same");
    for (a, b) in [("1", "2"), ("5", "6"), ("11", "12")] {
        let [cells, faster, slower, same, cannot] =
            judged(&list(&dir, [a.to_owned()]), &list(&dir, [b.to_owned()]));
        assert_eq!(
            (faster, slower, same, cannot),
            (0, 0, 0, cells),
            "run {a} against run {b}"
        );
    }
}
