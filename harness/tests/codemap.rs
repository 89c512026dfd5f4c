//! ARCHITECTURE.md's codemap matches the tree: every source file of every
//! crate is named in its crate's section, and every path a section names
//! exists. A new module without a codemap line, or a line left behind by a
//! move, fails here with the file and the section.
//!
//! A section is a `### `crate/`` heading (the crate's folder from the
//! workspace root) up to the next heading. A file `src/a/b.rs` counts as named
//! when the section holds, in backticks, `src/a/b.rs`, `a/b.rs`, `b.rs`, or a
//! folder that holds it (`src/a/`, `a/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The crates the codemap covers, by folder from the workspace root.
const CRATES: [&str; 6] = [
    "algorithms",
    "workloads",
    "harness",
    "harness/schema",
    "harness/micro",
    "report",
];

/// The folders of a crate whose `.rs` files the codemap names.
const SOURCE_FOLDERS: [&str; 3] = ["src", "tests", "benches"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, as paths relative to `base`.
fn rust_files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(base, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(base).expect("under the crate");
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The sections of the codemap, by crate folder: the text under each
/// `### `folder/`` heading.
fn sections(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with('#') {
            current = line
                .strip_prefix("### `")
                .and_then(|rest| rest.strip_suffix("/`"))
                .map(str::to_owned);
            continue;
        }
        if let Some(name) = &current {
            let section: &mut String = out.entry(name.clone()).or_default();
            section.push_str(line);
            section.push('\n');
        }
    }
    out
}

/// The backticked spans of `text`.
fn spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether `file` (relative to its crate) is named among `names`.
fn is_named(file: &str, names: &[&str]) -> bool {
    let mut candidates = vec![file.to_owned()];
    if let Some((_, within)) = file.split_once('/') {
        candidates.push(within.to_owned());
        let parts: Vec<&str> = within.split('/').collect();
        candidates.push(parts[parts.len() - 1].to_owned());
        // Every folder that holds it, with and without its source folder.
        for end in 1..parts.len() {
            let folder = parts[..end].join("/");
            candidates.push(format!("{folder}/"));
            candidates.push(format!(
                "{}/{folder}/",
                file.split('/').next().unwrap_or("")
            ));
        }
    }
    candidates.iter().any(|c| names.contains(&c.as_str()))
}

/// Whether a backticked span is a path inside a crate's source folders.
fn is_source_path(span: &str) -> bool {
    SOURCE_FOLDERS
        .iter()
        .any(|folder| span.starts_with(&format!("{folder}/")))
        && !span.contains(' ')
        && !span.contains('*')
}

#[test]
fn every_source_file_is_named_and_every_named_path_exists() {
    let root = root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let sections = sections(&text);
    let mut problems = Vec::new();
    for krate in CRATES {
        let Some(section) = sections.get(krate) else {
            problems.push(format!("ARCHITECTURE.md has no \"### `{krate}/`\" section"));
            continue;
        };
        let names = spans(section);
        let dir = root.join(krate);
        let mut files = Vec::new();
        for folder in SOURCE_FOLDERS {
            rust_files(&dir, &dir.join(folder), &mut files);
        }
        files.sort();
        for file in &files {
            if !is_named(file, &names) {
                problems.push(format!(
                    "{krate}/{file} is not named in the `{krate}/` section"
                ));
            }
        }
        for name in names.iter().filter(|n| is_source_path(n)) {
            if !dir.join(name).exists() {
                problems.push(format!(
                    "the `{krate}/` section names `{name}`, which does not exist"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's codemap and the tree differ:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_file_is_named_by_its_path_its_name_or_a_folder_that_holds_it() {
    assert!(is_named("src/run.rs", &["src/run.rs"]));
    assert!(is_named("src/run.rs", &["run.rs"]));
    assert!(is_named("src/sweep_wheel/ring.rs", &["src/sweep_wheel/"]));
    assert!(is_named("src/sweep_wheel/ring.rs", &["sweep_wheel/"]));
    assert!(is_named(
        "tests/conformance/main.rs",
        &["tests/conformance/"]
    ));
    assert!(!is_named("src/run.rs", &["src/runs.rs", "run"]));
    let text = "### `harness/`\n- `src/run.rs`: the loop.\n## Other\n- `src/x.rs`\n";
    assert_eq!(sections(text)["harness"], "- `src/run.rs`: the loop.\n");
    assert!(is_source_path("src/run.rs") && !is_source_path("run.rs"));
}
