//! The report with the threaded mode's `threaded.csv`: its section when the
//! file is there and names the run, a refusal when it names another run.

mod common;

use std::fs;

use common::{assert_input_error, copy_fixture, report, report_markdown};

/// Two repetitions of one cell, a cell of another design, and a skipped one,
/// with the run id `id` (the fixture's run has none: empty).
fn threaded_csv(id: &str) -> String {
    let header = "schema_version,algorithm,workload,scale,sharing,producers,repetition,speedup,\
                  window_ticks,saturated,status,skip_reason,wall_ms,ops,ops_per_s,op_p50_ns,op_p99_ns,op_p999_ns,\
                  op_max_ns,armed,fired,cancelled,pending,missed_cancels,late_p50_ns,late_p99_ns,\
                  late_max_ns,wakeups,empty_wakeups,wakeups_per_s,timer_cpu_ms,producer_cpu_ms,\
                  run_id";
    let rows = [
        "3,binary-heap,timeouts,small,locked,1,0,10,2000,false,ok,,200.0,2432,12000.0,250,1000,2000,3000,\
         2432,74,1187,984,0,80000,180000,190000,73,2,365.0,1.7,40.0",
        "3,binary-heap,timeouts,small,locked,1,1,10,2000,false,ok,,200.0,2432,12000.0,350,1000,2000,3000,\
         2432,74,1187,984,0,100000,180000,190000,75,4,375.0,1.9,40.0",
        "3,rounds-wheel,timeouts,small,handoff,2,0,10,2000,false,ok,,200.0,2432,12000.0,300,2000,2500,3300,\
         2432,74,1187,984,0,86000,140000,140000,1482,1410,7155.0,48.6,45.1",
        "3,nexus-timer,timeouts,small,locked,2,0,10,2000,false,skipped,nexus-timer is not Send,0,0,0,0,\
         0,0,0,0,0,0,0,0,0,0,0,0,0,0,,",
    ];
    let mut text = format!("{header}\n");
    for row in rows {
        text += &format!("{row},{id}\n");
    }
    text
}

#[test]
fn a_threaded_file_gives_its_section_with_medians_of_the_repetitions() {
    let results = copy_fixture("threaded");
    fs::write(results.join("threaded.csv"), threaded_csv("")).unwrap();
    let markdown = report_markdown(&results);
    let words = markdown.split_whitespace().collect::<Vec<_>>().join(" ");
    for fragment in [
        "## Threaded: lateness, wakeups and producer latency",
        "replayed 10x faster than real time over the first 2000 ticks",
        "| binary-heap | locked | 1 | 12000 | 90 |",
        "| rounds-wheel | handoff | 2 | 12000 | 86 |",
        "skipped: nexus-timer is not Send",
        "scaling beyond two cores needs a larger machine",
    ] {
        assert!(words.contains(fragment), "REPORT.md lacks {fragment:?}");
    }
}

#[test]
fn a_run_without_a_threaded_file_has_no_threaded_section() {
    let results = copy_fixture("no-threaded");
    assert!(!report_markdown(&results).contains("## Threaded"));
}

#[test]
fn a_threaded_file_of_another_run_is_refused() {
    let results = copy_fixture("threaded-other-run");
    fs::write(
        results.join("threaded.csv"),
        threaded_csv("20261125T120000Z-999"),
    )
    .unwrap();
    let out = report(&results);
    assert_input_error(
        &out,
        &["threaded.csv", "20261125T120000Z-999", "different runs"],
    );
    assert!(!results.join("report").exists(), "no report is written");
}

/// A `threaded.csv` whose every cell the settings of [`record_settings`]
/// make: two designs on `timeouts` under `locked` with one producer,
/// `repetitions` rows each, their figures growing with the repetition.
fn consistent_csv(repetitions: u32) -> String {
    let header = threaded_csv("")
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut text = format!("{header}\n");
    for (algorithm, base) in [("binary-heap", 1_000), ("rounds-wheel", 5_000)] {
        for repetition in 0..repetitions {
            let late = base + 100 * u64::from(repetition);
            text += &format!(
                "3,{algorithm},timeouts,small,locked,1,{repetition},10,2000,false,ok,,200.0,2432,\
                 12000.0,250,1000,2000,3000,2432,74,1187,984,0,{late},180000,190000,73,2,365.0,\
                 1.7,40.0,\n"
            );
        }
    }
    text
}

/// Records the threaded settings in the results' `metadata.json`: one
/// sharing (`locked`), one producer, `repetitions` repetitions.
fn record_settings(results: &std::path::Path, repetitions: u32) {
    let path = results.join("metadata.json");
    let mut metadata: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    metadata["threaded"] = serde_json::json!({
        "producers": [1], "sharings": ["locked"], "speedup": 10, "window_ticks": 2000,
        "repetitions": repetitions, "saturate": false
    });
    fs::write(&path, metadata.to_string()).unwrap();
}

/// REPORT.md of `results`, its whitespace collapsed.
fn words(results: &std::path::Path) -> String {
    report_markdown(results)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn below_the_minimum_of_repetitions_the_figures_have_no_interval_and_the_text_says_why() {
    let results = copy_fixture("threaded-two");
    record_settings(&results, 2);
    fs::write(results.join("threaded.csv"), consistent_csv(2)).unwrap();
    let words = words(&results);
    for fragment in [
        "2 repetition(s) of each cell",
        "printed without an interval: fewer than 6 repetitions",
        "| binary-heap | locked | 1 | 12000 | 1 | 180 |",
    ] {
        assert!(words.contains(fragment), "REPORT.md lacks {fragment:?}");
    }
    assert!(!words.contains("interval in parentheses"));
}

#[test]
fn with_the_minimum_of_repetitions_the_figures_carry_their_interval() {
    let results = copy_fixture("threaded-six");
    record_settings(&results, 6);
    fs::write(results.join("threaded.csv"), consistent_csv(6)).unwrap();
    let words = words(&results);
    for fragment in [
        "6 repetition(s) of each cell",
        "interval in parentheses",
        // Lateness p50 over 1.0, 1.1, ... 1.5 us: median 1.25, from the
        // smallest to the largest at six; the maximum has no interval.
        "| binary-heap | locked | 1 | 12000 | 1 (1..2) | 180 (180..180) | 190 |",
    ] {
        assert!(words.contains(fragment), "REPORT.md lacks {fragment:?}");
    }
    // (The summary's note on the fixture's own three-repetition cells says
    // "fewer than 6 repetitions" too; the threaded section's words are these.)
    assert!(!words.contains("printed without an interval"));
}

#[test]
fn a_threaded_file_short_of_the_recorded_repetitions_is_refused_with_its_line() {
    let results = copy_fixture("threaded-short");
    record_settings(&results, 3);
    fs::write(results.join("threaded.csv"), consistent_csv(2)).unwrap();
    let out = report(&results);
    assert_input_error(
        &out,
        &[
            "threaded.csv:3:",
            "binary-heap on timeouts under locked with 1 producers has 2 rows",
            "`threaded.repetitions` gives 3",
        ],
    );
}
