//! The `timerbench` binary as a user meets it: listing, small runs, determinism,
//! and every kind of bad input (a clear message, exit code 2, no result files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::Scratch;

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> Scratch {
    Scratch::new("cli", name)
}

/// Writes a file (a spec, a trace) into `dir` and returns its path.
fn write_input(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write input file");
    path
}

fn timerbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .args(args)
        .output()
        .expect("timerbench runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a bad-input failure: exit code 2 and a message containing every
/// fragment.
fn assert_input_error(out: &Output, fragments: &[&str]) {
    let message = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {message}");
    // Messages are wrapped to the terminal: a fragment may span a line break.
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat_message = flat(&message);
    for fragment in fragments {
        assert!(
            flat_message.contains(&flat(fragment)),
            "stderr lacks {fragment:?}: {message}"
        );
    }
}

/// Files in `dir`, by name.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn list_shows_algorithms_and_workloads() {
    let out = timerbench(&["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "sorted-list",
        "binary-heap",
        "uniform",
        "sparse",
        "scaling-1e3",
    ] {
        assert!(text.contains(name), "list lacks {name}: {text}");
    }
    assert!(
        text.contains("source: Kafka's TestPurgatoryPerformance as run in KAFKA-2226"),
        "list lacks kafka-purgatory's source: {text}"
    );
}

#[test]
fn unknown_algorithm_is_rejected_with_the_valid_names() {
    let dir = scratch("unknown-algorithm");
    let out_dir = dir.join("out");
    let out = timerbench(&[
        "run",
        "--algorithms",
        "binary-heap,quantum-heap",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_input_error(
        &out,
        &["quantum-heap", "--algorithms", "binary-heap", "sorted-list"],
    );
    assert!(
        !out_dir.exists(),
        "no output directory is created on bad input"
    );
}

#[test]
fn unknown_workload_is_rejected_with_the_valid_names() {
    let dir = scratch("unknown-workload");
    let out = timerbench(&[
        "run",
        "--workloads",
        "unifrom",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["unifrom", "--workloads", "uniform", "scaling"]);
    assert!(files_in(&dir).is_empty());
}

#[test]
fn invalid_spec_names_the_file() {
    let dir = scratch("invalid-spec");
    let spec = write_input(
        &dir,
        "broken.toml",
        "name = \"broken\"\nduration = \"soon\"\n",
    );
    let out_dir = dir.join("out");
    let out = timerbench(&[
        "run",
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["broken.toml"]);
    assert!(!out_dir.exists());
}

#[test]
fn unreadable_spec_names_the_file() {
    let dir = scratch("missing-spec");
    let out = timerbench(&[
        "run",
        "--spec",
        "/nonexistent/spec.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["/nonexistent/spec.toml"]);
}

#[test]
fn malformed_trace_names_file_and_line() {
    let dir = scratch("bad-trace");
    let trace = write_input(
        &dir,
        "bad.csv",
        "at,op,timer,deadline\n0,insert,1,100\n5,explode,1,\n",
    );
    let out_dir = dir.join("out");
    let out = run_input("--trace", &trace, &out_dir);
    assert_input_error(&out, &["bad.csv", "3", "explode"]);
    assert!(!out_dir.exists());
}

/// `timerbench run FLAG INPUT --out OUT_DIR`, for a spec or a trace.
fn run_input(flag: &str, input: &Path, out_dir: &Path) -> Output {
    timerbench(&[
        "run",
        flag,
        input.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ])
}

#[test]
fn a_trace_name_outside_the_rules_and_a_non_utf8_spec_are_refused_with_where() {
    let dir = scratch("names-and-text");
    let out_dir = dir.join("out");
    // Named by its file; a space would make a chart file that another
    // trace (a_b.csv) also makes.
    let trace = write_input(&dir, "a b.csv", "at,op,timer,deadline\n0,insert,1,100\n");
    let out = run_input("--trace", &trace, &out_dir);
    assert_input_error(
        &out,
        &["a b.csv: invalid trace", "\"a b\"", "rename the file"],
    );
    assert!(!out_dir.exists());
    let spec = dir.join("latin1.toml");
    std::fs::write(&spec, b"# a spec\nname = \"caf\xe9\"\n").unwrap();
    let out = run_input("--spec", &spec, &out_dir);
    assert_input_error(&out, &["latin1.toml:2:", "not valid UTF-8", "byte 20"]);
    assert!(!out_dir.exists());
}

#[test]
fn devices_pipes_and_oversized_inputs_are_refused_before_reading() {
    let dir = scratch("irregular-inputs");
    let out_dir = dir.join("out");
    // /dev/zero never ends: once read until memory ran out.
    for flag in ["--spec", "--trace"] {
        let out = run_input(flag, Path::new("/dev/zero"), &out_dir);
        assert_input_error(&out, &["/dev/zero", "a device, not a regular file"]);
    }
    // A FIFO with no writer once blocked the run forever.
    let fifo = dir.join("pipe.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|status| status.success()) {
        let out = run_input("--trace", &fifo, &out_dir);
        assert_input_error(
            &out,
            &["pipe.csv", "a FIFO (named pipe)", "save it to a file"],
        );
    }
    let big = write_input(&dir, "big.toml", &"# padding\n".repeat(120_000));
    let out = run_input("--spec", &big, &out_dir);
    assert_input_error(&out, &["big.toml", "larger than 1048576 bytes"]);
    assert!(!out_dir.exists());
}

#[test]
fn a_far_end_skips_the_ticked_wheels_and_is_refused_by_the_tick_driver() {
    let dir = scratch("far-end");
    let out_dir = dir.join("out");
    // Once: the ticked wheels stepped through 2^62 ticks, a hang.
    let far = 1u64 << 62;
    let trace = write_input(
        &dir,
        "far.csv",
        &common::padded_trace(&format!(
            "at,op,timer,deadline\n0,insert,1,{far}\n{far},advance,,\n"
        )),
    );
    let out = timerbench(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--algorithms",
        "rounds-wheel,hashed-wheel,ticked-hierarchical-wheel,binary-heap",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    for ticked in ["rounds-wheel", "hashed-wheel", "ticked-hierarchical-wheel"] {
        let row = runs
            .lines()
            .find(|line| line.contains(&format!(",{ticked},far,")))
            .unwrap_or_else(|| panic!("no row for {ticked}: {runs}"));
        assert!(
            row.contains(",skipped,")
                && row.contains("is a ticked wheel")
                && row.contains("--max-ticks"),
            "{row}"
        );
        assert!(stderr(&out).contains(&format!("skipped {ticked} on far")));
    }
    assert!(
        runs.contains(",binary-heap,far,trace,event,-,ok,"),
        "{runs}"
    );
    // The tick driver would advance 2^40 times: refused before measuring.
    let spec = write_input(
        &dir,
        "long.toml",
        "name = \"long\"\ndescription = \"a long run\"\nduration = 1_099_511_627_776\npending = 10\n\
         arrivals_per_tick = 0.0\ndelay = { kind = \"uniform\", min = 10, max = 500 }\n",
    );
    let tick_out = dir.join("tick-out");
    let out = timerbench(&[
        "run",
        "--spec",
        spec.to_str().unwrap(),
        "--driver",
        "tick",
        "--out",
        tick_out.to_str().unwrap(),
    ]);
    assert_input_error(
        &out,
        &[
            "workload long runs to tick 1099511627776",
            "--driver event",
            "--max-ticks",
        ],
    );
    assert!(!tick_out.exists());
}

#[test]
fn a_workload_too_large_for_memory_is_refused_before_it_is_generated() {
    let dir = scratch("too-large");
    let out_dir = dir.join("out");
    // Once accepted: 10^8 pending took 12.9 GB and 6.4 minutes.
    let spec = write_input(
        &dir,
        "huge.toml",
        "name = \"huge\"\ndescription = \"a huge prefill\"\nduration = 10\npending = 99_000_000\n\
         delay = { kind = \"uniform\", min = 1_000_000, max = 2_000_000 }\n",
    );
    let out = run_input("--spec", &spec, &out_dir);
    assert_input_error(
        &out,
        &[
            "workload huge is estimated to need 24.5 GiB",
            "above the limit of 8 GiB",
            "--max-memory-gib",
        ],
    );
    assert!(!out_dir.exists());
    // `timerbench counts` generates the same tape: the same bound, before
    // it looks for Valgrind.
    let out = timerbench(&[
        "counts",
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["estimated to need 24.5 GiB", "--max-memory-gib"]);
    assert!(!out_dir.exists());
}

#[test]
fn a_pass_past_its_budget_is_stopped_and_recorded_as_timed_out() {
    let dir = scratch("budget");
    let out_dir = dir.join("out");
    let base = [
        "run",
        "--workloads",
        "uniform",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap,nexus-timer-native",
        "--repeat",
        "1",
        "--out",
    ];
    // A microsecond is over before the prefill is: each verification pass
    // stops at its first look at the clock. The native row's keys, which
    // must be handed back, are retired as usual (no abort).
    let mut args = base.to_vec();
    args.extend([out_dir.to_str().unwrap(), "--budget", "0.000001"]);
    let out = timerbench(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    for algorithm in ["binary-heap", "nexus-timer-native"] {
        let row = runs
            .lines()
            .find(|line| line.contains(&format!(",{algorithm},uniform,")))
            .unwrap_or_else(|| panic!("no row for {algorithm}: {runs}"));
        assert!(
            row.contains(",skipped,timed out: ") && row.contains("(--budget)"),
            "{row}"
        );
    }
    for bad in ["0", "-1", "nan", "inf", "1e9"] {
        let mut args = base.to_vec();
        let refused = dir.join("refused");
        let flag = format!("--budget={bad}");
        args.extend([refused.to_str().unwrap(), &flag]);
        let out = timerbench(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "--budget {bad}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("is not a budget"), "{}", stderr(&out));
        assert!(!refused.exists());
    }
}

#[test]
fn unwritable_output_directory_is_rejected() {
    let dir = scratch("unwritable");
    let file = write_input(&dir, "a-file", "");
    // A directory cannot be created below a regular file, even by root.
    let out_dir = file.join("out");
    let out = timerbench(&[
        "run",
        "--workloads",
        "sparse",
        "--scale",
        "small",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["output directory", "a-file"]);
}

/// `mass-cancel` leaves a few hundred of its timers pending at the end of the
/// measured phase and none after the quiet period, the same for every exact
/// queue and native row; what each still holds in bytes is its own.
#[test]
fn retained_memory_is_read_at_the_end_and_after_the_quiet_period() {
    let dir = scratch("retained");
    let out_dir = dir.join("out");
    let out = timerbench(&[
        "run",
        "--workloads",
        "mass-cancel",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap,sweep-wheel,hierarchical-wheel,std-binary-heap-plain,nexus-timer-native",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut reader = csv::Reader::from_path(out_dir.join("runs.csv")).expect("runs.csv");
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let number = |record: &csv::StringRecord, name: &str| -> u64 {
        record[column(name)].parse().expect(name)
    };
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 5);
    let left = number(&rows[0], "retained_pending");
    assert!((20..200).contains(&left), "{left} pending at the end");
    for row in &rows {
        assert_eq!(number(row, "retained_pending"), left, "{row:?}");
        assert_eq!(number(row, "quiet_pending"), 0, "{row:?}");
        // The peak is read up to the end of the measured phase; a queue may
        // allocate again in the quiet period (a slot's vector), so only the
        // first reading is bounded by it.
        let peak = number(row, "peak_bytes");
        assert!(number(row, "retained_bytes") <= peak, "{row:?}");
    }
}

/// Reads `runs.csv` into rows of column name to value, for the columns that
/// must be deterministic.
fn deterministic_columns(dir: &Path) -> Vec<BTreeMap<String, String>> {
    const COLUMNS: [&str; 19] = [
        "algorithm",
        "workload",
        "status",
        "measured_ops",
        "cancel_hits",
        "fired",
        "max_pending",
        "retained_pending",
        "quiet_pending",
        "wakeups",
        "empty_wakeups",
        "slot_visits",
        "empty_slot_visits",
        "entries_examined_not_due",
        "cascades",
        "bucket_expirations",
        "insert_scan_steps",
        "max_lateness_ticks",
        "checksum",
    ];
    let mut reader = csv::Reader::from_path(dir.join("runs.csv")).expect("runs.csv");
    let headers = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|record| {
            let record = record.expect("row");
            COLUMNS
                .iter()
                .map(|&column| {
                    let i = headers
                        .iter()
                        .position(|h| h == column)
                        .expect("column exists");
                    (column.to_owned(), record[i].to_owned())
                })
                .collect()
        })
        .collect()
}

/// (workload, algorithm, pass, repetition) of one timed pass.
type PlannedPass = (String, String, String, String);

/// Every timed pass, in plan order.
fn plan_of(dir: &Path) -> Vec<PlannedPass> {
    let mut reader = csv::Reader::from_path(dir.join("repetitions.csv")).expect("repetitions.csv");
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect("column");
    let (w, a, p, r, pos) = (
        column("workload"),
        column("algorithm"),
        column("pass"),
        column("repetition"),
        column("position"),
    );
    let mut rows: Vec<(String, u64, PlannedPass)> = reader
        .records()
        .map(|record| {
            let record = record.expect("row");
            (
                record[w].to_owned(),
                record[pos].parse().expect("position"),
                (
                    record[w].to_owned(),
                    record[a].to_owned(),
                    record[p].to_owned(),
                    record[r].to_owned(),
                ),
            )
        })
        .collect();
    rows.sort_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
    rows.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
    rows.into_iter().map(|(_, _, row)| row).collect()
}

#[test]
fn zero_repetitions_are_refused() {
    let dir = scratch("repeat");
    let out = timerbench(&[
        "run",
        "--repeat",
        "0",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--repeat"), "{}", stderr(&out));
    assert!(!dir.join("out").exists(), "nothing written");
}

#[test]
#[ignore = "slow tier: `make test-all` runs it"]
fn same_seed_gives_identical_counters_and_checksums() {
    let dir = scratch("determinism");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out_dir in [&a, &b] {
        let out = timerbench(&[
            "run",
            "--scale",
            "small",
            "--workloads",
            "timeouts,sparse",
            "--seed",
            "7",
            "--repeat",
            "3",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        // The terminal summary fits a 120-column terminal, whatever the
        // number of algorithms (every one of them here).
        let stdout = String::from_utf8_lossy(&out.stdout);
        let wide: Vec<&str> = stdout.lines().filter(|l| l.chars().count() > 120).collect();
        assert!(wide.is_empty(), "lines over 120 characters: {wide:#?}");
        assert!(stdout.contains("best crate (native)"), "{stdout}");
        assert_eq!(
            files_in(out_dir),
            [
                "contract_cost.csv",
                "latency.csv",
                "metadata.json",
                "predictions.csv",
                "repetitions.csv",
                "runs.csv",
                "throughput.csv"
            ]
        );
    }
    let rows = deterministic_columns(&a);
    assert!(!rows.is_empty());
    assert_eq!(rows, deterministic_columns(&b));
    // The same seed lays out the same interleaved plan: every pass at the same
    // position, and every (algorithm, pass) once in each repetition's block.
    assert_eq!(plan_of(&a), plan_of(&b));
    let plan = plan_of(&a);
    assert!(plan.iter().any(|(_, _, _, repetition)| repetition == "2"));

    // `compare`: one run a side is one pair of runs, so every cell gets its
    // figures and "cannot tell", never a verdict; a run of another seed is
    // not comparable; the same run on both sides is refused.
    let out = timerbench(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" 0 faster, 0 slower, 0 no significant change, ")
            && stdout.contains("The spread, not a verdict")
            && !stdout.contains("different machines"),
        "{stdout}"
    );
    let out = timerbench(&["compare", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_input_error(&out, &["hold the same run"]);
    let other = dir.join("other-seed");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(a.join("throughput.csv"), other.join("throughput.csv")).unwrap();
    let metadata = std::fs::read_to_string(a.join("metadata.json"))
        .unwrap()
        .replace("\"seed\": 7,", "\"seed\": 8,");
    std::fs::write(other.join("metadata.json"), metadata).unwrap();
    let out = timerbench(&["compare", a.to_str().unwrap(), other.to_str().unwrap()]);
    assert_input_error(&out, &["not comparable", "seed 7 against 8"]);
    // --save writes the comparison into NEW for the report.
    let out = timerbench(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--save",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved = std::fs::read_to_string(b.join("comparison.csv")).unwrap();
    assert!(
        saved.starts_with("schema_version,base,workload,algorithm,"),
        "{saved}"
    );
    assert!(saved.contains(",cannot tell,"), "{saved}");
    // Every exact algorithm fires the same timers at the same ticks. (An
    // inexact one is held to its own due ticks, so its checksum differs.)
    let exact: Vec<&str> = algorithms::registry::catalog()
        .into_iter()
        .filter(|info| info.exact)
        .map(|info| info.name)
        .collect();
    for workload in ["timeouts", "sparse"] {
        let checksums: Vec<&String> = rows
            .iter()
            .filter(|row| row["workload"] == workload && row["status"] == "ok")
            .filter(|row| exact.contains(&row["algorithm"].as_str()))
            .map(|row| &row["checksum"])
            .collect();
        assert!(
            checksums.len() > 1,
            "{workload}: exact algorithms to compare"
        );
        assert!(
            checksums.windows(2).all(|w| w[0] == w[1]),
            "{workload}: {checksums:?}"
        );
    }
}

#[test]
fn tick_driver_and_trace_replay_work() {
    let dir = scratch("trace");
    let trace = write_input(
        &dir,
        "mini.csv",
        // It ends past every declared lateness (`zookeeper-expiry` fires the
        // timer due at 50 at 2,000), so that every row fires both timers.
        &common::padded_trace(
            "at,op,timer,deadline\n0,insert,1,100\n0,insert,2,50\n10,cancel,1,\n20,insert,3,20\n5000,advance,,\n",
        ),
    );
    let out_dir = dir.join("out");
    let out = timerbench(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--driver",
        "tick",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = deterministic_columns(&out_dir);
    assert!(
        rows.iter().all(|row| row["fired"] == "2"),
        "two timers fire: {rows:?}"
    );
}

/// The number of workloads the committed reference run lists in its
/// metadata: the built-ins at the default scale and the real traces of the
/// commit that made it.
fn reference_workloads() -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/metadata.json");
    let text = std::fs::read_to_string(path).expect("results/metadata.json");
    let metadata: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    metadata["workloads"]
        .as_array()
        .expect("a workload list")
        .len()
}

/// `timerbench compare --lead` reads the committed reference run and sets
/// the designed-here wheel beside its three rivals on every workload,
/// without measuring.
#[test]
fn compare_lead_reads_the_reference_run_and_names_each_rival() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let results = results.to_str().unwrap();
    let out = timerbench(&["compare", results, "--lead", "sweep-wheel"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let workloads = reference_workloads();
    for rival in ["(crate)", "(baseline)"] {
        assert_eq!(
            stdout.lines().filter(|line| line.contains(rival)).count(),
            workloads,
            "one {rival} line per workload of the run: {stdout}"
        );
    }
    let out = timerbench(&["compare", results, "--lead", "no-such-row"]);
    assert_input_error(&out, &["no-such-row", "the rows it ran", "sweep-wheel"]);
}

/// `timerbench compare --rows` reads the committed reference run and pairs
/// two of its rows by repetition, one line per built-in workload; a row the
/// run lacks is an input error that lists the rows it ran.
#[test]
fn compare_rows_reads_the_reference_run_and_pairs_two_rows() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let results = results.to_str().unwrap();
    let rows = |extra: &[&str]| {
        let mut args = vec![
            "compare",
            results,
            "--rows",
            "timer-queue-native,sweep-wheel",
        ];
        args.extend_from_slice(extra);
        timerbench(&args)
    };
    let out = rows(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts = stdout
        .lines()
        .filter(|line| {
            [" faster", " slower", " no change", " cannot tell"]
                .iter()
                .any(|v| line.ends_with(v))
        })
        .count();
    assert_eq!(
        verdicts,
        reference_workloads(),
        "one line per workload of the run: {stdout}"
    );
    let out = timerbench(&["compare", results, "--rows", "sweep-wheel,no-such-row"]);
    assert_input_error(
        &out,
        &["--rows \"no-such-row\"", "the rows it ran", "sweep-wheel"],
    );
    assert_input_error(&rows(&["--swapped", results]), &["same run"]);
    assert_input_error(
        &rows(&["--swapped", "/nonexistent/run"]),
        &["/nonexistent/run"],
    );
}

/// `compare`'s forms refuse flags that do not make one, before reading
/// anything.
#[test]
fn compare_refuses_flags_that_make_no_form() {
    for (args, words) in [
        (vec!["compare", "a"], "give BASE and NEW"),
        (
            vec!["compare", "a", "b", "--lead", "x"],
            "one results directory",
        ),
        (vec!["compare", "a", "--rows", "x"], "given 1"),
        (vec!["compare", "a", "--lead", "x", "--save"], "--save"),
    ] {
        let out = timerbench(&args);
        assert_input_error(&out, &[words]);
    }
}

/// Every entry of `dir`, hidden ones too, with its bytes (a directory's are
/// empty), by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_in(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap_or_default();
            (name, bytes)
        })
        .collect()
}

/// The id of a process that has ended (free until the system reuses it).
fn a_gone_process() -> u32 {
    let mut child = Command::new("true").spawn().expect("true runs");
    let pid = child.id();
    child.wait().expect("true ends");
    pid
}

/// A directory where a result file goes is found before anything is
/// measured (issue 16: it used to fail the third rename after minutes of
/// measuring, leaving a mix and temporary files).
#[test]
fn a_directory_where_a_result_file_goes_is_refused_before_measuring() {
    let dir = scratch("directory-target");
    let out_dir = dir.join("results");
    std::fs::create_dir_all(out_dir.join("latency.csv")).unwrap();
    write_input(&out_dir, "runs.csv", "previous runs\n");
    write_input(&out_dir, "metadata.json", "{\"previous\": true}\n");
    write_input(&out_dir, "README.md", "notes\n");
    let before = snapshot(&out_dir);
    let out = timerbench(&[
        "run",
        "--scale",
        "small",
        "--workloads",
        "sparse",
        "--algorithms",
        "binary-heap",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let latency = out_dir.join("latency.csv");
    assert_input_error(
        &out,
        &[&format!(
            "{} is a directory; a run writes a file there; move it away",
            latency.display()
        )],
    );
    assert!(
        out.stdout.is_empty(),
        "nothing measured, nothing summarised"
    );
    assert_eq!(
        snapshot(&out_dir),
        before,
        "unchanged, and nothing left behind"
    );
}

/// A run's id is in its metadata and at the end of every row of every file;
/// the run removes the comparison of the previous run and what a run whose
/// process is gone left, keeps files of no run, and leaves no staging
/// directory. A file edited to name another run is then refused.
#[test]
fn a_run_names_its_id_in_every_row_and_leaves_nothing_behind() {
    let dir = scratch("run-id");
    let out_dir = dir.join("results");
    std::fs::create_dir_all(&out_dir).unwrap();
    for (name, text) in [
        ("comparison.csv", "of the previous run\n"),
        ("README.md", "notes\n"),
        ("counts.csv", "counts\n"),
    ] {
        write_input(&out_dir, name, text);
    }
    let abandoned = out_dir.join(format!(
        ".timerbench-run-20260101T000000Z-{}",
        a_gone_process()
    ));
    std::fs::create_dir(&abandoned).unwrap();
    write_input(&abandoned, "runs.csv", "half a run\n");
    let out = timerbench(&[
        "run",
        "--scale",
        "small",
        "--workloads",
        "sparse",
        "--algorithms",
        "binary-heap,bitmap-wheel",
        "--repeat",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let metadata: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("metadata.json")).unwrap())
            .unwrap();
    let run_id = metadata["run_id"]
        .as_str()
        .expect("a run_id field")
        .to_owned();
    let (stamp, pid) = run_id.split_once("Z-").expect("time Z-pid");
    assert!(stamp.len() == 15 && stamp.as_bytes()[8] == b'T', "{run_id}");
    assert!(pid.parse::<u32>().is_ok(), "{run_id}");
    for file in [
        "runs.csv",
        "throughput.csv",
        "repetitions.csv",
        "latency.csv",
    ] {
        let mut reader = csv::Reader::from_path(out_dir.join(file)).unwrap();
        let headers = reader.headers().unwrap().clone();
        assert_eq!(headers.iter().next_back(), Some("run_id"), "{file}");
        let ids: Vec<String> = reader
            .records()
            .map(|record| record.unwrap().iter().next_back().unwrap().to_owned())
            .collect();
        assert!(!ids.is_empty(), "{file} has rows");
        assert!(ids.iter().all(|id| *id == run_id), "{file}: {ids:?}");
    }
    assert_eq!(
        files_in(&out_dir),
        [
            "README.md",
            "contract_cost.csv",
            "counts.csv",
            "latency.csv",
            "metadata.json",
            "predictions.csv",
            "repetitions.csv",
            "runs.csv",
            "throughput.csv"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("counts.csv")).unwrap(),
        "counts\n"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("removed ") && stdout.contains("comparison.csv"),
        "{stdout}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            stderr(&out).contains(&format!("removed {}", abandoned.display())),
            "{}",
            stderr(&out)
        );
    }

    // One row of runs.csv from another run: every reader refuses the set.
    let runs = out_dir.join("runs.csv");
    let text = std::fs::read_to_string(&runs).unwrap();
    let last = text.trim_end().rsplit_once('\n').unwrap().0.len();
    let edited = format!(
        "{}{}",
        &text[..last],
        text[last..].replace(&run_id, "00000000T000000Z-1")
    );
    std::fs::write(&runs, edited).unwrap();
    let out = timerbench(&[
        "compare",
        out_dir.to_str().unwrap(),
        "--lead",
        "binary-heap",
    ]);
    assert_input_error(
        &out,
        &[
            "different runs",
            &format!("runs.csv has run id 00000000T000000Z-1 and run id {run_id}"),
            &format!("metadata.json has run id {run_id}"),
        ],
    );
}

/// Without `--out`, a run writes a directory of its own under `runs/` and
/// says where; the reference run in `results/` is left as it was. Its
/// summary names the rows asked for.
#[test]
fn a_run_without_out_leaves_results_untouched() {
    let dir = scratch("no-out");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_input(&results, "runs.csv", "the committed reference run\n");
    let out = Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .current_dir(&*dir)
        .args([
            "run",
            "--scale",
            "small",
            "--workloads",
            "sparse",
            "--algorithms",
            "binary-heap",
            "--repeat",
            "1",
        ])
        .output()
        .expect("timerbench runs");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(files_in(&results), ["runs.csv"]);
    assert_eq!(
        std::fs::read_to_string(results.join("runs.csv")).unwrap(),
        "the committed reference run\n"
    );
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("runs"))
        .expect("a runs/ directory")
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(runs[0].join("runs.csv").is_file() && runs[0].join("metadata.json").is_file());
    // The summary names every row asked for, and prints no heading with
    // nothing under it (a heap visits no slots).
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("  sparse: binary-heap "), "{stdout}");
    assert!(!stdout.contains("Empty slot visits"), "{stdout}");
    let name = runs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr(&out).contains(&format!("writing into runs/{name}")),
        "{}",
        stderr(&out)
    );
}

/// `--ftrace` imports a raw kernel trace and replays it: the import's summary
/// is said before measuring, the workload is named after the file, and the
/// hrtimer tape is a workload of its own; a trace with a bad line is refused
/// with the file and line before anything is measured.
#[test]
fn a_raw_kernel_trace_is_imported_and_replayed() {
    let dir = scratch("ftrace");
    // The hand-checked excerpt is too short to time: refused before
    // anything is measured, with the count and the minimum.
    let excerpt = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../workloads/tests/data/ftrace-excerpt.txt")
        .to_string_lossy()
        .into_owned();
    let short_out = dir.join("short");
    let out = timerbench(&[
        "run",
        "--ftrace",
        &excerpt,
        "--algorithms",
        "binary-heap",
        "--out",
        short_out.to_str().unwrap(),
    ]);
    assert_input_error(
        &out,
        &[
            "ftrace-excerpt",
            "measured phase holds",
            "fewer than the 1000",
        ],
    );
    assert!(!short_out.exists());
    // A whole committed capture (gzip) is replayed under both timer kinds.
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../workloads/traces/redis-benchmark.txt.gz")
        .to_string_lossy()
        .into_owned();
    for timers in ["timer-list", "hrtimer"] {
        let out_dir = dir.join(timers);
        let out = timerbench(&[
            "run",
            "--ftrace",
            &capture,
            "--ftrace-timers",
            timers,
            "--algorithms",
            "binary-heap,sweep-wheel",
            "--repeat",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains("redis-benchmark"), "{}", stderr(&out));
        let runs = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
        assert!(runs.contains(",sweep-wheel,redis-benchmark"), "{runs}");
        assert!(runs.contains(",trace,"), "{runs}");
    }
    let bad = write_input(
        &dir,
        "bad.txt",
        "# tracer: nop\n  x-1 [000] d..1. 1.000000: timer_start: timer=zz\n",
    );
    let out = timerbench(&[
        "run",
        "--ftrace",
        bad.to_str().unwrap(),
        "--out",
        dir.join("bad").to_str().unwrap(),
    ]);
    assert_input_error(&out, &["bad.txt:2"]);
    assert!(!dir.join("bad").join("runs.csv").exists());
}

/// A run of a real trace writes it into the metadata's `real_traces` with
/// its file, timer kind, twin and both shapes; without its twin in the run,
/// the twin is null, which the strict reader accepts.
#[test]
fn a_real_trace_is_written_into_the_metadata_beside_its_twin() {
    let dir = scratch("real-traces");
    for (workloads, twin) in [
        ("real-nginx-wrk-hrtimer,timeouts", Some("timeouts")),
        ("real-nginx-wrk-hrtimer", None),
    ] {
        let out_dir = dir.join(workloads.replace(',', "+"));
        let out = timerbench(&[
            "run",
            "--workloads",
            workloads,
            "--scale",
            "small",
            "--algorithms",
            "binary-heap,sweep-wheel",
            "--repeat",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let metadata = schema::read_metadata(&out_dir.join("metadata.json")).unwrap();
        let [entry] = metadata.real_traces.as_slice() else {
            panic!("one entry: {:?}", metadata.real_traces);
        };
        assert_eq!(entry.workload, "real-nginx-wrk-hrtimer");
        assert_eq!(entry.file, "workloads/traces/nginx-wrk.txt.gz");
        assert_eq!(entry.timers, "hrtimer");
        assert_eq!(entry.resembles.as_deref(), twin);
        assert_eq!(entry.twin_shape.is_some(), twin.is_some());
        // The tape is the whole capture: most of its timers are cancelled,
        // and its delays are in seconds at 1 µs ticks (a median under 1 s).
        assert!(entry.shape.cancelled_share > 0.9, "{entry:?}");
        assert!(
            entry.shape.delay_p50_s.is_some_and(|s| s < 1.0),
            "{entry:?}"
        );
    }
}

/// `make ab`'s script refuses bad settings before building anything.
#[test]
fn the_ab_recipe_refuses_bad_settings_before_building() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ab = |env: &[(&str, &str)]| {
        Command::new("sh")
            .arg(root.join("harness/scripts/ab.sh"))
            .current_dir(&root)
            .envs(env.iter().copied())
            .output()
            .expect("sh runs")
    };
    for (env, words) in [
        (vec![("ROUNDS", "0")], "ROUNDS=0"),
        (vec![("REPEAT", "x")], "REPEAT=x"),
        (vec![("DEADLINE", "-1")], "DEADLINE=-1"),
        (vec![("REV", "no-such-revision")], "not a git revision"),
    ] {
        let out = ab(&env);
        assert_input_error(&out, &["make ab:", words]);
    }
}

/// `timerbench --help` lists at most seven commands, each with a one-line
/// summary, and no line of any command's help (short or long) or of
/// `compare`'s output is wider than 120 columns.
#[test]
fn help_lists_seven_commands_at_most_and_every_help_fits_120_columns() {
    let fits = |text: &str, what: &str| {
        for line in text.lines() {
            assert!(
                line.chars().count() <= 120,
                "{what}: a line of {} columns: {line}",
                line.chars().count()
            );
        }
    };
    let out = timerbench(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    fits(&help, "--help");
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("    "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(
        (1..=7).contains(&commands.len()),
        "{} commands: {commands:?}",
        commands.len()
    );
    for command in &commands {
        for flag in ["-h", "--help"] {
            let out = timerbench(&[command, flag]);
            assert!(out.status.success(), "{command} {flag}");
            fits(
                &String::from_utf8_lossy(&out.stdout),
                &format!("{command} {flag}"),
            );
        }
    }
    // `--heaviest`'s help names the work limit in words, as the constant has it.
    let help = String::from_utf8_lossy(&timerbench(&["run", "--help"]).stdout).into_owned();
    let limit = format!("{} million", harness::bench::OPT_IN_WORK / 1_000_000);
    assert!(
        help.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&limit),
        "run --help does not say {limit}"
    );
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let results = results.to_str().unwrap();
    for args in [
        vec!["compare", results, "--lead", "sweep-wheel"],
        vec!["compare", results, "--rows", "binary-heap,sweep-wheel"],
        vec!["compare", results, "--rows", "binary-heap,no-such-row"],
    ] {
        let out = timerbench(&args);
        fits(&String::from_utf8_lossy(&out.stdout), &args.join(" "));
        fits(&String::from_utf8_lossy(&out.stderr), &args.join(" "));
    }
}

/// A stdout that cannot take the output (`/dev/full`) is a one-line error
/// and exit code 1, never a panic or a silent success.
#[test]
fn a_full_stdout_is_an_error_of_one_line() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let results = results.to_str().unwrap();
    for args in [
        vec!["list"],
        vec!["compare", results, "--lead", "sweep-wheel"],
        vec![
            "docs",
            "--check",
            "--readme",
            "../README.md",
            "--results",
            results,
        ],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_timerbench"))
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {message}");
        assert!(
            message.contains("cannot write to standard output") && !message.contains("panicked"),
            "{args:?}: {message}"
        );
    }
}

/// The forms of `compare` reproduce what the commands they replaced printed
/// of the committed run: every median is the run's headline median (the `all`
/// row of throughput.csv), for the row and for each rival, and a verdict of
/// the one rule goes with each.
#[test]
fn compare_forms_reproduce_the_recorded_medians() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let run = schema::RunFiles::read(&results).unwrap();
    let headline = |algorithm: &str, workload: &str| {
        run.throughput()
            .unwrap()
            .iter()
            .find(|r| r.algorithm == algorithm && r.workload == workload && r.operation == "all")
            .and_then(|r| r.median_ns)
            .unwrap()
    };
    let leads = harness::judge::lead::leads(&results, "sweep-wheel").unwrap();
    assert!(!leads.is_empty());
    for lead in &leads {
        let line = &lead.line;
        assert_eq!(line.subject_ns, headline("sweep-wheel", &line.workload));
        assert_eq!(
            line.reference_ns,
            headline(&lead.rival_name, &line.workload)
        );
        assert!(
            line.judgement.interval.is_some(),
            "six repetitions give a verdict"
        );
    }
    let lines =
        harness::judge::rows::compare_rows(&results, "timer-queue-native", "sweep-wheel", None)
            .unwrap();
    for line in &lines {
        assert_eq!(
            line.reference_ns,
            headline("timer-queue-native", &line.workload)
        );
        assert_eq!(line.subject_ns, headline("sweep-wheel", &line.workload));
    }
}
