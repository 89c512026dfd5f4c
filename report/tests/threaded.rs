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
