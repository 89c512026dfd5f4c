//! The one reader refuses a recorded run it cannot trust, with the file, the
//! line and what was wrong, rather than reading fewer, more or other rows
//! than the run wrote. Each test damages a copy of the report's fixture run
//! (a real small run) in one way a user met, and is named by the class of
//! the case: `silent_` (a run accepted and judged on the wrong rows)
//! or `unclear_` (refused for the wrong reason).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use schema::{
    InputError, LATENCY_FILE, METADATA_FILE, REPETITIONS_FILE, RUNS_FILE, RunFiles,
    THROUGHPUT_FILE, read_results,
};

/// The report's fixture: a whole small run, every file of it.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../report/tests/fixture")
}

/// A fresh copy of the fixture run, with `damage` applied to the text of
/// the file `name`.
fn damaged(name: &str, damage: impl FnOnce(String) -> String) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "timerbench-strict-reader-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for entry in fs::read_dir(fixture()).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    let path = dir.join(name);
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, damage(text)).unwrap();
    dir
}

/// The error both readers give for `dir` (the judge's [`RunFiles::read`]
/// and the report's [`read_results`] must refuse alike), after checking
/// that it names `file`.
fn refused(dir: &Path, file: &str) -> InputError {
    let report = read_results(dir).expect_err("the report's reader accepted a damaged run");
    let error = RunFiles::read(dir).expect_err("the judge's reader accepted a damaged run");
    assert_eq!(error.to_string(), report.to_string());
    assert!(
        error.path.ends_with(file),
        "the error names {} rather than {file}: {error}",
        error.path.display()
    );
    let _ = fs::remove_dir_all(dir);
    error
}

/// `text` with line `index` (0-based, 0 the header) written `times` times.
fn repeat_line(text: &str, index: usize, times: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        for _ in 0..if i == index { times } else { 1 } {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `text` without its lines from `index` on (0-based).
fn keep_lines(text: &str, index: usize) -> String {
    text.lines().take(index).map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_fixture_itself_is_read() {
    RunFiles::read(&fixture()).unwrap();
    read_results(&fixture()).unwrap();
}

#[test]
fn silent_a_metadata_schema_version_it_does_not_know_is_refused() {
    let dir = damaged(METADATA_FILE, |t| {
        t.replacen("\"schema_version\": 3", "\"schema_version\": 4", 1)
    });
    let error = refused(&dir, METADATA_FILE);
    assert!(error.message.contains("schema_version is 4"), "{error}");
}

#[test]
fn silent_every_repetition_row_duplicated_is_refused() {
    let dir = damaged(REPETITIONS_FILE, |t| {
        let mut out = String::new();
        for (i, line) in t.lines().enumerate() {
            out.push_str(&format!("{line}\n"));
            if i > 0 {
                out.push_str(&format!("{line}\n"));
            }
        }
        out
    });
    let error = refused(&dir, REPETITIONS_FILE);
    assert_eq!(error.line, Some(3), "{error}");
    assert!(error.message.contains("line 2"), "{error}");
    assert!(error.message.contains("duplicate"), "{error}");
}

#[test]
fn silent_a_duplicated_run_row_is_refused() {
    let dir = damaged(RUNS_FILE, |t| repeat_line(&t, 5, 2));
    let error = refused(&dir, RUNS_FILE);
    assert_eq!(error.line, Some(7), "{error}");
    assert!(error.message.contains("duplicate"), "{error}");
}

#[test]
fn silent_a_duplicated_throughput_row_is_refused() {
    let dir = damaged(THROUGHPUT_FILE, |t| repeat_line(&t, 1, 2));
    let error = refused(&dir, THROUGHPUT_FILE);
    assert_eq!(error.line, Some(3), "{error}");
    assert!(error.message.contains("duplicate"), "{error}");
}

#[test]
fn silent_a_duplicated_latency_row_is_refused() {
    let dir = damaged(LATENCY_FILE, |t| repeat_line(&t, 3, 2));
    let error = refused(&dir, LATENCY_FILE);
    assert_eq!(error.line, Some(5), "{error}");
    assert!(error.message.contains("duplicate"), "{error}");
}

#[test]
fn silent_repetitions_cut_at_a_line_boundary_are_refused() {
    // Cut so that the last cell keeps some of its passes but not all: a
    // cell with fewer passes than runs.csv promises.
    let dir = damaged(REPETITIONS_FILE, |t| {
        let lines = t.lines().count();
        keep_lines(&t, lines - 2)
    });
    let error = refused(&dir, REPETITIONS_FILE);
    assert!(error.message.contains("repetitions"), "{error}");
    assert!(error.message.contains("3"), "{error}");
}

#[test]
fn silent_repetitions_cut_to_whole_cells_are_refused() {
    // Cut after the first cell's rows: the cells that follow have none.
    let dir = damaged(REPETITIONS_FILE, |t| keep_lines(&t, 1 + 18));
    let error = refused(&dir, REPETITIONS_FILE);
    assert!(error.message.contains("no rows for"), "{error}");
}

#[test]
fn silent_runs_cut_at_a_line_boundary_are_refused() {
    let dir = damaged(RUNS_FILE, |t| {
        let lines = t.lines().count();
        keep_lines(&t, lines - 1)
    });
    // The throughput rows of the lost row's cell have no runs.csv row.
    let error = RunFiles::read(&dir).expect_err("accepted");
    assert!(
        error.message.contains("runs.csv") || error.path.ends_with(RUNS_FILE),
        "{error}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn silent_a_runs_file_with_a_header_and_no_rows_is_refused() {
    let dir = damaged(RUNS_FILE, |t| keep_lines(&t, 1));
    let error = refused(&dir, RUNS_FILE);
    assert!(error.message.contains("no rows"), "{error}");
}

#[test]
fn silent_a_repetitions_file_with_a_header_and_no_rows_is_refused() {
    let dir = damaged(REPETITIONS_FILE, |t| keep_lines(&t, 1));
    let error = refused(&dir, REPETITIONS_FILE);
    assert!(error.message.contains("no rows for"), "{error}");
}

#[test]
fn silent_non_finite_or_negative_figures_are_refused() {
    for bad in ["NaN", "inf", "-5"] {
        let dir = damaged(THROUGHPUT_FILE, |t| {
            // The median of the first row (column 10).
            let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
            let mut fields: Vec<&str> = lines[1].split(',').collect();
            fields[9] = bad;
            lines[1] = fields.join(",");
            lines.iter().map(|l| format!("{l}\n")).collect()
        });
        let error = refused(&dir, THROUGHPUT_FILE);
        assert_eq!(error.line, Some(2), "{error}");
        assert!(error.message.contains("`median_ns`"), "{error}");
    }
}

#[test]
fn silent_a_workload_metadata_does_not_list_is_refused() {
    let dir = damaged(REPETITIONS_FILE, |t| {
        let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
        let first = lines[1].clone();
        lines.push(first.replacen(",uniform,", ",nowhere,", 1));
        lines.iter().map(|l| format!("{l}\n")).collect()
    });
    let error = refused(&dir, REPETITIONS_FILE);
    let last = fs::read_to_string(fixture().join(REPETITIONS_FILE))
        .unwrap()
        .lines()
        .count() as u64
        + 1;
    assert_eq!(error.line, Some(last), "{error}");
    assert!(error.message.contains("nowhere"), "{error}");
    assert!(error.message.contains(METADATA_FILE), "{error}");
}

#[test]
fn silent_a_row_metadata_does_not_list_is_refused() {
    let dir = damaged(THROUGHPUT_FILE, |t| {
        let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
        let first = lines[1].clone();
        lines.push(first.replacen(",sorted-list,", ",ghost-wheel,", 1));
        lines.iter().map(|l| format!("{l}\n")).collect()
    });
    let error = refused(&dir, THROUGHPUT_FILE);
    assert!(error.message.contains("ghost-wheel"), "{error}");
}

#[test]
fn unclear_a_file_cut_mid_row_is_said_to_be_cut() {
    let dir = damaged(REPETITIONS_FILE, |t| t[..t.len() - 5].to_owned());
    let error = refused(&dir, REPETITIONS_FILE);
    assert!(error.message.contains("cut short"), "{error}");
    assert!(!error.message.contains("different runs"), "{error}");
}

#[test]
fn unclear_a_row_with_an_extra_field_is_said_to_have_one() {
    let dir = damaged(RUNS_FILE, |t| {
        let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
        lines[3].push_str(",extra");
        lines.iter().map(|l| format!("{l}\n")).collect()
    });
    let error = refused(&dir, RUNS_FILE);
    assert_eq!(error.line, Some(4), "{error}");
    assert!(
        error.message.contains("fields where the header has"),
        "{error}"
    );
    assert!(!error.message.contains("different runs"), "{error}");
}

#[test]
fn silent_runs_cut_at_a_line_boundary_against_the_metadata_cells_are_refused() {
    // A run writes how many cells it had; the fixture predates the field, so
    // it is added here, one more than the file holds.
    let rows = fs::read_to_string(fixture().join(RUNS_FILE))
        .unwrap()
        .lines()
        .count()
        - 1;
    let dir = damaged(METADATA_FILE, |t| {
        t.replacen(
            "\"workloads\":",
            &format!("\"cells\": {},\n  \"workloads\":", rows + 1),
            1,
        )
    });
    let error = refused(&dir, RUNS_FILE);
    assert!(
        error.message.contains(&format!(
            "{rows} rows where metadata.json says the run had {}",
            rows + 1
        )),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn hang_a_results_file_that_is_a_fifo_or_a_device_is_refused() {
    for (name, make) in [
        ("fifo", "mkfifo"),
        ("device", "ln"), // a link to /dev/zero
    ] {
        let dir = damaged(THROUGHPUT_FILE, |t| t);
        let path = dir.join(THROUGHPUT_FILE);
        fs::remove_file(&path).unwrap();
        let status = if make == "mkfifo" {
            std::process::Command::new("mkfifo").arg(&path).status()
        } else {
            std::process::Command::new("ln")
                .args(["-s", "/dev/zero"])
                .arg(&path)
                .status()
        };
        assert!(status.unwrap().success(), "{name}");
        let error = refused(&dir, THROUGHPUT_FILE);
        assert!(
            error.message.contains("not a regular file"),
            "{name}: {error}"
        );
    }
}

#[test]
fn loss_a_swap_stopped_midway_is_refused_with_where_the_previous_set_is() {
    // A writer killed between two renames: runs.csv is new (another run's
    // id), the rest old, and the old runs.csv is whole in `previous/`.
    let dir = damaged(RUNS_FILE, |t| {
        let mut lines = t.lines();
        let mut out = format!("{},run_id\n", lines.next().unwrap());
        for line in lines {
            out.push_str(&format!("{line},20261128T000000Z-1\n"));
        }
        out
    });
    let previous = dir
        .join(".timerbench-run-20261128T000000Z-1")
        .join("previous");
    fs::create_dir_all(&previous).unwrap();
    fs::copy(fixture().join(RUNS_FILE), previous.join(RUNS_FILE)).unwrap();
    let error = RunFiles::read(&dir).expect_err("a mix is refused");
    assert!(error.message.contains("different runs"), "{error}");
    assert!(
        error
            .message
            .contains(&format!("whole in {}", previous.display())),
        "{error}"
    );
    assert!(error.message.contains("cp -p"), "{error}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn batched_passes_are_counted_against_the_metadata_batched_repetitions() {
    // The fixture ran 3 batched passes of 3 repetitions: a metadata that
    // says 3 reads, one that says 2 is refused (a cell with a pass too many).
    let with = |batched: u64| {
        damaged(METADATA_FILE, |t| {
            t.replacen(
                "\"workloads\":",
                &format!("\"batched_repetitions\": {batched},\n  \"workloads\":"),
                1,
            )
        })
    };
    let dir = with(3);
    RunFiles::read(&dir).unwrap();
    let _ = fs::remove_dir_all(&dir);
    let error = refused(&with(2), REPETITIONS_FILE);
    assert!(
        error.message.contains("3 batched passes")
            && error.message.contains("each cell ran 2 batched passes"),
        "{error}"
    );
}

#[test]
fn a_cell_batched_count_in_runs_is_what_its_batched_passes_are_counted_against() {
    // Each cell of the fixture ran 3 batched passes; a `runs.csv` that gives
    // each cell its count (as a run with heavy cells does) is held to it.
    let with = |batched: u64| {
        damaged(RUNS_FILE, |t| {
            let mut lines = t.lines();
            let mut out = format!("{},batched_repetitions\n", lines.next().unwrap());
            for line in lines {
                out.push_str(&format!("{line},{batched}\n"));
            }
            out
        })
    };
    let dir = with(3);
    RunFiles::read(&dir).unwrap();
    let _ = fs::remove_dir_all(&dir);
    let error = refused(&with(1), REPETITIONS_FILE);
    assert!(
        error.message.contains("3 batched passes")
            && error.message.contains("says the cell ran 1 batched passes"),
        "{error}"
    );
}
