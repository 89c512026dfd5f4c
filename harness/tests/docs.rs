//! The README is generated where it states figures, and short everywhere:
//! - its algorithm and systems tables match the registry, and its headline
//!   and findings match the committed run in `results/` (`make docs` fixes
//!   both);
//! - it is at most [`MAX_README_LINES`] lines;
//! - outside its generated blocks it holds no commit hash, no run id and no
//!   hand-typed measured figure (a decimal number, or a number with a unit
//!   of time, a percentage or a ratio), since such a figure goes stale with
//!   the next reference run.

use std::path::{Path, PathBuf};

/// The README's length limit: it answers "which timer, where, by how much"
/// in a minute, and the method lives in `docs/`.
const MAX_README_LINES: usize = 200;

/// Every generated block's opening marker starts with this and names its
/// closing marker's prefix: `<!-- NAME: ... -->` ... `<!-- NAME: end -->`.
const MARKER_OPEN: &str = "<!-- ";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

#[test]
fn the_readme_lists_every_registered_algorithm_and_the_committed_runs_headline() {
    let catalog = algorithms::registry::catalog();
    let current = harness::docs::readme_is_current(
        &root().join("README.md"),
        &catalog,
        &root().join("results"),
    )
    .expect("README.md with every generated block's markers");
    assert!(
        current,
        "README.md's generated blocks differ from the registry, algorithms/src/systems.rs or results/: \
         run `make docs` and commit the result"
    );
}

#[test]
fn the_readme_is_short() {
    let lines = readme().lines().count();
    assert!(
        lines <= MAX_README_LINES,
        "README.md has {lines} lines, more than {MAX_README_LINES}: move method and history to docs/"
    );
}

/// The README with its generated blocks removed, each line with its number.
fn hand_written_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut inside: Option<String> = None;
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(name) = &inside {
            if trimmed == format!("{MARKER_OPEN}{name}: end -->") {
                inside = None;
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(MARKER_OPEN)
            && let Some((name, _)) = rest.split_once(':')
            && !rest.contains(": end -->")
        {
            inside = Some(name.to_owned());
            continue;
        }
        if trimmed.starts_with("```") {
            fenced = !fenced;
            out.push((index + 1, String::new()));
            continue;
        }
        // A fenced block holds commands: their arguments are not figures,
        // but a hash or a run id in one still goes stale; so fenced lines are
        // kept and marked.
        out.push((
            index + 1,
            if fenced {
                format!("\u{0}{line}")
            } else {
                line.to_owned()
            },
        ));
    }
    out
}

/// The words of `line` that look like a commit hash: 7 to 40 hex digits with
/// at least one digit and one letter.
fn hex_words(line: &str) -> Vec<&str> {
    line.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| (7..=40).contains(&w.len()))
        .filter(|w| {
            w.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        })
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(|c| c.is_ascii_alphabetic())
        })
        .collect()
}

/// Whether `line` holds a run id, `YYYYMMDDTHHMMSSZ`.
fn has_run_id(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        w.len() == 16
            && w.as_bytes()[8] == b'T'
            && w.as_bytes()[15] == b'Z'
            && w[..8].bytes().all(|b| b.is_ascii_digit())
            && w[9..15].bytes().all(|b| b.is_ascii_digit())
    })
}

/// `line` without its inline code spans (`...`): names and commands, not prose.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The units after which a number is a measured figure.
const UNITS: [&str; 14] = [
    "ns", "us", "µs", "ms", "s", "sec", "seconds", "minutes", "min", "%", "x", "MiB", "GiB",
    "bytes",
];

/// The measured-looking figures in prose: a decimal number, or a number
/// followed (with or without a space) by one of [`UNITS`].
fn figures(line: &str) -> Vec<String> {
    let prose = without_code(line);
    let chars: Vec<char> = prose.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit()
            && (i == 0
                || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '^' || chars[i - 1] == '-'));
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == ',' || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect();
        let number = number.trim_end_matches(['.', ',']).to_owned();
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let unit: String = chars[j..]
            .iter()
            .take_while(|c| c.is_alphabetic() || **c == '%')
            .collect();
        let decimal = number.contains('.');
        if decimal || UNITS.contains(&unit.as_str()) {
            found.push(format!("{number}{}{unit}", if j > i { " " } else { "" }));
        }
    }
    found
}

#[test]
fn the_readme_has_no_hash_run_id_or_hand_typed_figure_outside_generated_blocks() {
    let text = readme();
    let mut problems = Vec::new();
    for (number, line) in hand_written_lines(&text) {
        let (fenced, line) = match line.strip_prefix('\u{0}') {
            Some(rest) => (true, rest.to_owned()),
            None => (false, line),
        };
        for word in hex_words(&line) {
            problems.push(format!("line {number}: `{word}` looks like a commit hash"));
        }
        if has_run_id(&line) {
            problems.push(format!("line {number}: a run id"));
        }
        if !fenced {
            for figure in figures(&line) {
                problems.push(format!(
                    "line {number}: `{figure}` looks like a hand-typed measured figure"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "README.md outside its generated blocks (put figures in a generated block, history in CHANGELOG.md):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    assert_eq!(hex_words("made at commit 8e56bb0 on main"), ["8e56bb0"]);
    assert!(hex_words("the deadbeef word and a 1234567 number").is_empty());
    assert!(has_run_id("run 20261127T144455Z-16998"));
    assert!(!has_run_id("a plain sentence"));
    assert_eq!(figures("it took 28.1 ns here"), ["28.1 ns"]);
    assert_eq!(figures("1.62x faster and 45% fewer"), ["1.62x", "45%"]);
    assert_eq!(figures("about 10 minutes"), ["10 minutes"]);
    assert!(figures("two commands, 17 workloads, 10^6 timers, `--repeat 12`, V&L 7").is_empty());
    let text = "a\n<!-- headline: generated -->\n28.1 ns\n<!-- headline: end -->\nb 3.5 ms\n";
    let lines = hand_written_lines(text);
    assert_eq!(lines, [(1, "a".to_owned()), (5, "b 3.5 ms".to_owned())]);
}
