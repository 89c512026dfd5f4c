//! Module docs are design essays, not logs: every `.rs` file of `algorithms`,
//! `workloads`, `harness` and `report` opens with a `//!` block of at most
//! [`MAX_DOC_LINES`] lines, and no `//!` line holds a commit hash, unless it is
//! an upstream source the design was read from ([`UPSTREAM_CITATIONS`]). The
//! history of tries lives in `docs/lab/`.
//!
//! A commit hash is told from ordinary words and numbers by [`hex_words`]: a
//! word (a run of letters, digits and `_` between other characters) of 7 to
//! 40 hexadecimal digits with at least one decimal digit and at least one
//! letter `a` to `f`. English words made of `a` to `f` alone ("deadbeef",
//! "faded") have no digit, plain numbers have no letter, and a hex literal
//! (`0x9E37_79B9`) is not a word of hex digits, since its `x` and `_` belong
//! to the word.

use std::path::{Path, PathBuf};

/// The most lines a file's leading `//!` block may have.
const MAX_DOC_LINES: usize = 300;

/// The shortest and longest hex word taken for a commit hash: git's shortest
/// abbreviation and a full SHA-1.
const HASH_LEN: std::ops::RangeInclusive<usize> = 7..=40;

/// Commits of other projects that a module doc cites as the source it was
/// read from. Each must still occur in some module doc.
const UPSTREAM_CITATIONS: &[&str] = &[
    // linux_wheel.rs: the Android common kernel's 6.1 tree, whose
    // kernel/time/timer.c the Linux wheel was read from.
    "0010b838db9f",
    // hierarchical_wheel.rs: Kafka's trunk, whose TimingWheel was checked.
    "1eb7644",
    // bitmap_wheel.rs: tokio 1.53.1, whose runtime/time/wheel was read.
    "ea91b33ca57f",
    // quad_heap.rs: the Go repository, whose src/runtime/time.go was read.
    "2297c34c",
    // rounds_wheel.rs: Netty's 4.2 branch, whose HashedWheelTimer was read.
    "0bb88a3",
    // binary_heap.rs: libevent's master, whose minheap-internal.h was read.
    "0c3e47a",
    // zookeeper_expiry.rs: ZooKeeper's master, whose ExpiryQueue was read.
    "0e5a074",
    // workloads/src/ratas.rs: ratas, whose benchmark the workload replays.
    "becd5fc",
];

/// The crates whose sources are checked, relative to the workspace root.
const SOURCE_DIRS: &[&str] = &[
    "algorithms/src",
    "workloads/src",
    "harness/src",
    "report/src",
];

/// The words of `line` that look like commit hashes (see the module doc).
/// How a hashed kernel pointer in a trace line starts (`timer=00000000c04571a5`),
/// which a module doc quoting a trace may show.
const KERNEL_POINTER_PREFIX: &str = "00000000";

fn hex_words(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| {
            HASH_LEN.contains(&word.len())
                && word.chars().all(|c| c.is_ascii_hexdigit())
                && word.chars().any(|c| c.is_ascii_digit())
                && word.chars().any(|c| matches!(c, 'a'..='f' | 'A'..='F'))
                // A kernel pointer as ftrace prints it, hashed: 16 digits after
                // 8 zeros (a commit whose id starts so is one in four billion).
                && !word.starts_with(KERNEL_POINTER_PREFIX)
        })
        .collect()
}

/// Whether `line` is a line of a module doc.
fn is_module_doc(line: &str) -> bool {
    line.trim_start().starts_with("//!")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the algorithms crate lies in the workspace")
        .to_path_buf()
}

/// What is wrong with the module docs of `text` (the file `shown`), one
/// message per problem, each naming the file and line.
fn problems(shown: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let leading = text.lines().take_while(|line| is_module_doc(line)).count();
    if leading > MAX_DOC_LINES {
        found.push(format!(
            "{shown}:{}: the leading `//!` block has {leading} lines, more than {MAX_DOC_LINES}: \
             keep the design essay, move the history to docs/lab/",
            MAX_DOC_LINES + 1
        ));
    }
    for (number, line) in text.lines().enumerate() {
        if !is_module_doc(line) {
            continue;
        }
        for word in hex_words(line) {
            if !UPSTREAM_CITATIONS.contains(&word) {
                found.push(format!(
                    "{shown}:{}: `{word}` looks like a commit hash; module docs name no \
                     commit of this repository (an upstream source goes in UPSTREAM_CITATIONS)",
                    number + 1
                ));
            }
        }
    }
    found
}

#[test]
fn module_docs_are_short_and_name_no_commit() {
    let root = root();
    let mut found = Vec::new();
    let mut cited = Vec::new();
    let mut files = 0;
    for dir in SOURCE_DIRS {
        for path in rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let shown = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            found.extend(problems(&shown, &text));
            cited.extend(
                text.lines()
                    .filter(|line| is_module_doc(line))
                    .flat_map(hex_words)
                    .map(str::to_owned),
            );
            files += 1;
        }
    }
    assert!(
        files > 50,
        "only {files} source files found under {SOURCE_DIRS:?}"
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
    for citation in UPSTREAM_CITATIONS {
        assert!(
            cited.iter().any(|word| word == citation),
            "{citation} is in UPSTREAM_CITATIONS but no module doc cites it: drop it"
        );
    }
}

#[test]
fn a_hex_word_is_seven_to_forty_hex_digits_with_a_digit_and_a_letter() {
    assert_eq!(
        hex_words("measured against `1caee5a` (6 rounds) and 3b929de4f1a1221c."),
        ["1caee5a", "3b929de4f1a1221c"]
    );
    assert_eq!(
        hex_words(&format!("a full hash {}", "9f".repeat(20))),
        ["9f".repeat(20)]
    );
    // Too short, too long, no digit, no letter, a literal, a longer word.
    for line in [
        "abc1234 is seven, abc123 is six",
        "deadbeef faded facade",
        "1000000 ticks, 65536 slots, 2024-10-01",
        "the seed 0x243F_6A88_85A3_08D3 and 0xdeadbeef1",
        "a word like cafe1234x or x1234abcd or abc_1234567",
        "a traced pointer timer=00000000c04571a5 flags=",
        &"a1".repeat(21),
    ] {
        let words = hex_words(line);
        assert!(
            words.iter().all(|w| *w == "abc1234"),
            "{line:?} gave {words:?}"
        );
    }
}

#[test]
fn a_commit_hash_in_a_module_doc_is_caught_with_its_file_and_line() {
    let text = "//! A design.\n//!\n//! Measured against `1caee5a`: 0.87x.\nfn f() {} // 2b3c4d5e in code\n";
    assert_eq!(
        problems("algorithms/src/x.rs", text),
        [
            "algorithms/src/x.rs:3: `1caee5a` looks like a commit hash; module docs name no \
          commit of this repository (an upstream source goes in UPSTREAM_CITATIONS)"
        ]
    );
    let cited = "//! Read at Go commit 2297c34c.\n";
    assert!(problems("algorithms/src/quad_heap.rs", cited).is_empty());
}

#[test]
fn a_leading_doc_over_the_limit_is_caught() {
    let long = "//! line\n".repeat(MAX_DOC_LINES + 1);
    let found = problems("algorithms/src/x.rs", &long);
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("algorithms/src/x.rs:301: the leading `//!` block has 301 lines"));
    assert!(problems("algorithms/src/x.rs", &"//! line\n".repeat(MAX_DOC_LINES)).is_empty());
}
