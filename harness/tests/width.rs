//! Everything `timerbench` prints for a person fits a terminal of
//! [`WIDTH`] columns: the list of what can be run, a small run's progress
//! notes and summary, and the errors a user meets first (an unknown name, a
//! bad spec). Widths are counted in characters, not bytes.
//!
//! [`assert_fits`] is the check; a test of another command's output (its
//! `--help`, `compare`) calls it the same way.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::Scratch;

/// The widest line allowed.
const WIDTH: usize = 120;

/// Asserts that no line of `text` is wider than [`WIDTH`] characters,
/// naming `what` printed it and every line that is too wide.
fn assert_fits(text: &str, what: &str) {
    let wide: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.chars().count() > WIDTH)
        .map(|(index, line)| {
            format!(
                "line {} ({} columns): {line}",
                index + 1,
                line.chars().count()
            )
        })
        .collect();
    assert!(
        wide.is_empty(),
        "{what} prints lines wider than {WIDTH} columns:\n{}",
        wide.join("\n")
    );
}

/// Runs `timerbench` with `args` and checks that both of its streams fit;
/// returns what it printed.
fn fits(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .args(args)
        .output()
        .expect("timerbench runs");
    let what = format!("timerbench {}", args.join(" "));
    assert_fits(
        &String::from_utf8_lossy(&out.stdout),
        &format!("{what} (stdout)"),
    );
    assert_fits(
        &String::from_utf8_lossy(&out.stderr),
        &format!("{what} (stderr)"),
    );
    out
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn the_helper_counts_characters_and_refuses_a_wide_line() {
    assert_fits(
        &"×".repeat(WIDTH),
        "a line of wide bytes, narrow characters",
    );
    let caught = std::panic::catch_unwind(|| assert_fits(&"x".repeat(WIDTH + 1), "a wide line"));
    assert!(caught.is_err(), "a line of {} characters passed", WIDTH + 1);
}

#[test]
fn the_list_fits() {
    for scale in ["small", "default", "large"] {
        let out = fits(&["list", "--scale", scale]);
        assert!(out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("  sweep-wheel  "), "{stdout}");
    }
}

#[test]
fn a_small_run_fits() {
    let dir = Scratch::new("width", "run");
    let out_dir = dir.join("out");
    let out = fits(&[
        "run",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap,sweep-wheel,rounds-wheel",
        "--workloads",
        "timeouts",
        "--repeat",
        "1",
        "--out",
        text(&out_dir),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("timeouts"));
}

#[test]
fn errors_that_list_the_valid_names_fit() {
    let dir = Scratch::new("width", "errors");
    let out_dir = dir.join("out");
    let out_dir = text(&out_dir);
    for args in [
        vec!["run", "--algorithms", "binary-heep", "--out", out_dir],
        vec!["run", "--workloads", "timout", "--out", out_dir],
        vec!["run", "--param", "heap:size=2", "--out", out_dir],
        vec!["run", "--param", "rounds-wheel:tick=7", "--out", out_dir],
    ] {
        let out = fits(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn spec_errors_fit() {
    let dir = Scratch::new("width", "spec");
    let head =
        "name = \"mine\"\ndescription = \"A test workload\"\nduration = 1_000\npending = 100\n";
    let delay = "delay = { kind = \"uniform\", min = 10, max = 500 }\n";
    let cases = [
        format!("{head}{delay}cancel = 0.5\n"),
        format!("{head}delay = {{ kind = \"gaussian\", mean = 5 }}\n"),
        format!("{head}delya = {{ kind = \"constant\", value = 5 }}\n"),
        format!("{head}delay = {{ kind = \"uniform\", min = 5 }}\n"),
        format!("{head}{delay}granularity = -3\n"),
        format!("{head}{delay}granularity = 0\n"),
    ];
    for (index, spec) in cases.iter().enumerate() {
        let path = dir.join(format!("spec{index}.toml"));
        std::fs::write(&path, spec).expect("write spec");
        let out_dir = dir.join("out");
        let out = fits(&["run", "--spec", text(&path), "--out", text(&out_dir)]);
        assert_eq!(out.status.code(), Some(2), "{spec}");
    }
}
