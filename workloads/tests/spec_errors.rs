//! Every way a spec can be wrong yields a message that says what, where (line,
//! or field path) and what is valid; none panics.

use workloads::{Spec, WorkloadError};

/// A valid spec's first lines, to which each case adds or replaces fields.
const HEAD: &str =
    "name = \"mine\"\ndescription = \"A test workload\"\nduration = 1_000\npending = 100\n";
const DELAY: &str = "delay = { kind = \"uniform\", min = 10, max = 500 }\n";

fn error_of(text: &str) -> WorkloadError {
    match Spec::from_toml(text, "my.toml") {
        Ok(spec) => panic!("accepted:\n{text}\nas {spec:?}"),
        Err(error) => error,
    }
}

#[test]
fn the_base_spec_is_valid() {
    let spec = Spec::from_toml(&format!("{HEAD}{DELAY}"), "my.toml").unwrap();
    assert_eq!(spec.name(), "mine");
    assert_eq!(spec.description(), "A test workload");
    assert_eq!(spec.source(), None, "a user's spec may leave `source` out");
    let sourced = format!("{HEAD}source = \"ours\"\n{DELAY}");
    assert_eq!(
        Spec::from_toml(&sourced, "my.toml").unwrap().source(),
        Some("ours")
    );
    assert_eq!(spec.granularity, 1, "the default granularity");
}

#[test]
fn shape_errors_say_where_which_field_and_what_to_write() {
    // (spec, where, the field, what was given, what to write)
    let cases = [
        (
            format!("{HEAD}delya = {{ kind = \"constant\", value = 5 }}\n"),
            "line 5, column 1",
            "a spec has no field `delya`",
            "`delya`",
            "`name`, `description`, `source`, `duration`, `pending`, `arrivals_per_tick`",
        ),
        (
            format!("{HEAD}delay = {{ kind = \"gaussian\", mean = 5 }}\n"),
            "line 5, column 18",
            "`delay.kind`",
            "\"gaussian\", not a kind of distribution",
            "delay = { kind = \"lognormal\", median = 20, sigma = 1.0 }",
        ),
        (
            format!("{HEAD}delay = {{ kind = \"uniform\", min = 5 }}\n"),
            "line 5, column 9",
            "`delay` needs `max`",
            "`max`",
            "delay = { kind = \"uniform\", min = 10, max = 500 }",
        ),
        (
            format!("{HEAD}delay = {{ min = 5, max = 9 }}\n"),
            "line 5, column 9",
            "`delay` needs `kind`",
            "`kind`",
            "one of \"constant\", \"uniform\"",
        ),
        (
            format!("{HEAD}delay = {{ kind = \"uniform\", min = 5, max = 9, mean = 3 }}\n"),
            "line 5, column 47",
            "`delay` has no field `mean`",
            "`mean`",
            "its fields:\n    `kind`, `min`, `max`",
        ),
        (
            format!("{HEAD}delay = {{ kind = \"uniform\", min = 5, max = 9.5 }}\n"),
            "line 5, column 44",
            "`delay.max`",
            "is 9.5, a number with a fraction, of the wrong type",
            "it must be a whole number of ticks from `min` to 2^62",
        ),
        (
            format!("{HEAD}delay = {{ kind = \"constant\", value = -5 }}\n"),
            "line 5, column 38",
            "`delay.value`",
            "is -5, out of range",
            "delay = { kind = \"constant\", value = 100 }",
        ),
        (
            format!(
                "{HEAD}delay = {{ kind = \"mixture\", parts = [ {{ weight = 1, distribution = {{ kind = \"constant\", value = 5 }} }} ] }}\n"
            ),
            "line 5",
            "`delay.parts[0]` has no field `distribution`",
            "`distribution`",
            "its fields:\n    `weight`, `dist`",
        ),
        (
            format!(
                "{HEAD}{DELAY}[cancel]\nfraction = 0.5\nafter = {{ kind = \"constant\", value = 5 }}\nbefore = 3\n"
            ),
            "line 9, column 1",
            "`cancel` has no field `before`",
            "`before`",
            "cancel = { fraction = 0.95, after = {",
        ),
        (
            format!(
                "{HEAD}{DELAY}[rearm]\nfraction = 0.5\ninterval = {{ kind = \"constant\", value = 5 }}\n"
            ),
            "line 6",
            "`rearm` needs `times`",
            "`times`",
            "rearm = { fraction = 0.02, interval = {",
        ),
        (
            format!(
                "{}{DELAY}",
                HEAD.replace("pending = 100", "pending = \"many\"")
            ),
            "line 4, column 11",
            "`pending`",
            "is \"many\", a string, of the wrong type",
            "pending = 10_000",
        ),
    ];
    for (text, place, field, given, write) in cases {
        let message = error_of(&text).to_string();
        assert!(
            message.starts_with(&format!("my.toml: invalid workload spec: {place}"))
                && message.contains(field)
                && message.contains(given)
                && message.contains(write),
            "for\n{text}\ngot\n{message}\nexpected {place:?}, {field:?}, {given:?} and {write:?}"
        );
        assert!(
            message.lines().all(|line| line.chars().count() <= 120),
            "{message}"
        );
    }
}

/// One case per kind of shape error serde reports: the message names the
/// field, quotes what was given and shows the right form.
#[test]
fn each_kind_of_shape_error_names_the_field_the_value_and_an_example() {
    let cases = [
        (
            "a wrong type",
            format!("{HEAD}{DELAY}cancel = 0.5\n"),
            "`cancel` is 0.5, a number with a fraction, of the wrong type",
            "cancel = { fraction = 0.95, after = { kind = \"lognormal\", median = 20, sigma = 1.0 } }",
        ),
        (
            "a distribution that is not a table",
            format!("{HEAD}delay = 5\n"),
            "`delay` is 5, a whole number, of the wrong type",
            "it must be a distribution: a table whose `kind` names it, e.g.\n    delay = { kind = \"uniform\"",
        ),
        (
            "an unknown field",
            format!(
                "{HEAD}{DELAY}cancel = {{ fraction = 0.5, after = {{ kind = \"constant\", value = 5 }}, when = 3 }}\n"
            ),
            "`cancel` has no field `when`",
            "its fields:\n    `fraction`, `after`",
        ),
        (
            "a missing field",
            "name = \"x\"\n".to_owned(),
            "a spec needs `description`",
            "description = \"Request timeouts of an RPC client\"",
        ),
        (
            "an unknown kind",
            format!(
                "{HEAD}{DELAY}cancel = {{ fraction = 0.5, after = {{ kind = \"normal\", median = 5 }} }}\n"
            ),
            "`cancel.after.kind` is \"normal\", not a kind of distribution",
            "after = { kind = \"lognormal\", median = 20, sigma = 1.0 }",
        ),
        (
            "a kind that is not a string",
            format!("{HEAD}delay = {{ kind = 5, value = 3 }}\n"),
            "`delay.kind` is 5, a whole number, of the wrong type",
            "delay = { kind = \"constant\", value = 100 }",
        ),
        (
            "a number out of range for its type",
            format!("{HEAD}{DELAY}[ratas]\npairs = 5000000000\n"),
            "`ratas.pairs` is 5000000000, out of range",
            "it must be a whole number of client/server pairs from 2 to 100000, e.g.\n    ratas = { pairs = 5 }",
        ),
        (
            "a number beyond every integer type",
            format!("{HEAD}{DELAY}granularity = 99999999999999999999\n"),
            "`granularity` is 99999999999999999999, out of range",
            "granularity = 1_000",
        ),
        (
            "a wrong type deep in a mixture",
            format!(
                "{HEAD}delay = {{ kind = \"mixture\", parts = [ {{ weight = 1, dist = {{ kind = \"constant\", value = 5.5 }} }} ] }}\n"
            ),
            "`delay.parts[0].dist.value` is 5.5, a number with a fraction, of the wrong type",
            "dist = { kind = \"constant\", value = 100 }",
        ),
        (
            "a table where an array goes",
            format!("{HEAD}delay = {{ kind = \"mixture\", parts = {{ weight = 1 }} }}\n"),
            "`delay.parts` is { weight = 1 }, a table, of the wrong type",
            "it must be an array of 1 to 64 `{ weight, dist }` tables",
        ),
    ];
    for (what, text, statement, example) in cases {
        let message = error_of(&text).to_string();
        assert!(
            message.contains(statement) && message.contains(example),
            "{what}: for\n{text}\ngot\n{message}\nexpected {statement:?} and {example:?}"
        );
    }
}

#[test]
fn what_is_not_a_shape_error_keeps_the_parsers_message() {
    for (text, what) in [
        (format!("{HEAD}delay = \n"), "string values must be quoted"),
        (format!("{HEAD}{DELAY}name = \"again\"\n"), "duplicate key"),
    ] {
        let message = error_of(&text).to_string();
        assert!(
            message.starts_with("my.toml: invalid workload spec: TOML parse error at line")
                && message.contains(what),
            "for\n{text}\ngot\n{message}"
        );
    }
}

/// Builds a spec from the base with `edits` (old, new) applied, and returns
/// its error's field and message.
fn invalid(extra: &str, edits: &[(&str, &str)]) -> (String, String) {
    let mut text = format!("{HEAD}{DELAY}{extra}");
    for (old, new) in edits {
        assert!(text.contains(old), "{old:?} not in the base spec");
        text = text.replacen(old, new, 1);
    }
    match error_of(&text) {
        error @ WorkloadError::InvalidSpec { .. } => {
            let message = error.to_string();
            let WorkloadError::InvalidSpec { field, .. } = error else {
                unreachable!()
            };
            (field, message)
        }
        other => panic!("expected an invalid field for\n{text}\ngot {other}"),
    }
}

/// A case: text added to the base spec, (old, new) replacements in it, the
/// field the error must name, and text the message must contain.
type Case = (
    &'static str,
    Vec<(&'static str, &'static str)>,
    &'static str,
    &'static str,
);

#[test]
fn out_of_range_values_name_their_field() {
    let cases: Vec<Case> = vec![
        (
            "",
            vec![("\"mine\"", "\"my workload\"")],
            "name",
            "it must be 1 to 64 ASCII letters, digits, `-`, `_` or `.`",
        ),
        ("", vec![("\"mine\"", "\"\"")], "name", "is \"\""),
        (
            "",
            vec![("\"A test workload\"", "\"two\\nlines\"")],
            "description",
            "it must be one non-empty line",
        ),
        (
            "source = \"\"\n",
            vec![],
            "source",
            "is \"\"; it must be one non-empty line, or be left out",
        ),
        (
            "",
            vec![("duration = 1_000", "duration = 0")],
            "duration",
            "is 0; it must be a whole number of ticks from 1 to 1099511627776",
        ),
        (
            "",
            vec![("pending = 100", "pending = 1_000_000_000")],
            "pending",
            "it must be at most 100000000",
        ),
        (
            "",
            vec![("min = 10, max = 500", "min = 500, max = 10")],
            "delay.max",
            "is 10, below `delay.min` (500); it must be at least `delay.min`",
        ),
        (
            "",
            vec![("min = 10", "min = 0")],
            "delay.min",
            "is 0; it must be a whole number of ticks from 1 to",
        ),
        (
            "granularity = 0\n",
            vec![],
            "granularity",
            "is 0; it must be a whole number of ticks from 1",
        ),
        (
            "arrivals_per_tick = -1.0\n",
            vec![],
            "arrivals_per_tick",
            "is -1; it must be a finite number from 0",
        ),
        (
            "arrivals_per_tick = nan\n",
            vec![],
            "arrivals_per_tick",
            "is NaN",
        ),
        (
            "",
            vec![(DELAY, "")],
            "delay",
            "is missing; every workload but a `[ratas]` one needs it",
        ),
        (
            "[ratas]\npairs = 1\n",
            vec![(DELAY, ""), ("pending = 100", "pending = 0")],
            "ratas.pairs",
            "is 1; it must be a whole number from 2 to 100000",
        ),
        (
            "[ratas]\npairs = 5\n",
            vec![("pending = 100", "pending = 0")],
            "delay",
            "is set, but a `[ratas]` workload's timers come from its units",
        ),
        (
            "[ratas]\npairs = 5\n",
            vec![(DELAY, "")],
            "pending",
            "is 100, but a `[ratas]` workload starts empty",
        ),
        (
            "[ratas]\npairs = 100_000\n",
            vec![
                (DELAY, ""),
                ("pending = 100", "pending = 0"),
                ("duration = 1_000", "duration = 100_000_000"),
            ],
            "ratas.pairs",
            "operations; a tape may hold at most 100000000 (1e8, 2.4 GB): lower `ratas.pairs` or shorten `duration`",
        ),
        (
            "arrivals_until = 0\n",
            vec![],
            "arrivals_until",
            "is 0; it must be a whole number of ticks from 1 to 1000",
        ),
        (
            "arrivals_until = 1_001\n",
            vec![],
            "arrivals_until",
            "is 1001; it must be a whole number of ticks from 1 to 1000",
        ),
        (
            "",
            vec![(
                DELAY,
                "delay = { kind = \"pareto\", min = 10, shape = 1.0 }\n",
            )],
            "delay.shape",
            "is 1; it must be greater than 1 (at or below 1 the mean delay is infinite",
        ),
        (
            "",
            vec![(DELAY, "delay = { kind = \"exponential\", mean = 0.5 }\n")],
            "delay.mean",
            "is 0.5; it must be a finite number from 1 to",
        ),
        (
            "",
            vec![(
                DELAY,
                "delay = { kind = \"lognormal\", median = 20, sigma = -1 }\n",
            )],
            "delay.sigma",
            "is -1; it must be a finite number from 0 to 10",
        ),
        (
            "",
            vec![(DELAY, "delay = { kind = \"constant\", value = 0 }\n")],
            "delay.value",
            "is 0",
        ),
        (
            "",
            vec![(DELAY, "delay = { kind = \"mixture\", parts = [] }\n")],
            "delay.parts",
            "has 0 parts; a mixture needs 1 to 64",
        ),
        (
            "",
            vec![(
                DELAY,
                "delay = { kind = \"mixture\", parts = [ { weight = 1, dist = { kind = \"constant\", value = 5 } }, { weight = 0, dist = { kind = \"constant\", value = 5 } } ] }\n",
            )],
            "delay.parts[1].weight",
            "is 0; it must be a finite number from 1e-9 to 1000000000",
        ),
        (
            // Two weights of 1e308 once summed to infinity: the mean was NaN,
            // the arrival rate 0 and the run measured nothing, silently.
            "",
            vec![(
                DELAY,
                "delay = { kind = \"mixture\", parts = [ { weight = 1e308, dist = { kind = \"constant\", value = 5 } }, { weight = 1e308, dist = { kind = \"constant\", value = 9 } } ] }\n",
            )],
            "delay.parts[0].weight",
            "is 1e308; it must be a finite number from 1e-9 to 1000000000",
        ),
        (
            "",
            vec![(
                DELAY,
                "delay = { kind = \"mixture\", parts = [ { weight = 1, dist = { kind = \"mixture\", parts = [ { weight = 1, dist = { kind = \"uniform\", min = 9, max = 3 } } ] } } ] }\n",
            )],
            "delay.parts[0].dist.parts[0].dist.max",
            "is 3, below",
        ),
        (
            "cancel = { fraction = 1.5, after = { kind = \"constant\", value = 5 } }\n",
            vec![],
            "cancel.fraction",
            "is 1.5; it must be a finite number from 0 to 1",
        ),
        (
            "cancel = { fraction = 0.5, after = { kind = \"uniform\", min = 0, max = 5 } }\n",
            vec![],
            "cancel.after.min",
            "is 0",
        ),
        (
            "periodic = { fraction = -0.1 }\n",
            vec![],
            "periodic.fraction",
            "is -0.1; it must be a finite number from 0 to 1",
        ),
        (
            "periodic = { fraction = 0.5, period = { kind = \"constant\", value = 0 } }\n",
            vec![],
            "periodic.period.value",
            "is 0",
        ),
        (
            "rearm = { fraction = 0.5, interval = { kind = \"constant\", value = 5 }, times = -1 }\n",
            vec![],
            "rearm.times",
            "is -1; it must be a finite number from 0 to 1000",
        ),
        (
            "rearm = { fraction = 0.5, interval = { kind = \"exponential\", mean = 0 }, times = 1 }\n",
            vec![],
            "rearm.interval.mean",
            "is 0",
        ),
        (
            "rearm = { fraction = 0.5, interval = { kind = \"constant\", value = 5 }, times = 1, delay = { kind = \"uniform\", min = 8, max = 7 } }\n",
            vec![],
            "rearm.delay.max",
            "is 7, below `rearm.delay.min` (8)",
        ),
        (
            "",
            vec![("pending = 100", "pending = 0")],
            "pending",
            "is 0 and no timers arrive, so the tape would be empty",
        ),
        (
            "",
            vec![("duration = 1_000", "duration = 1_000_000_000")],
            "duration",
            "operations; a tape may hold at most 100000000 (1e8, 2.4 GB): shorten `duration` or lower `pending` or `arrivals_per_tick`",
        ),
        (
            "rearm = { fraction = 1.0, interval = { kind = \"constant\", value = 1 }, times = 1000, delay = { kind = \"constant\", value = 1000 } }\n",
            vec![
                ("pending = 100", "pending = 100_000"),
                ("duration = 1_000", "duration = 10"),
            ],
            "rearm.times",
            "is 1000, and each idle timeout pending at time 0 draws its whole chain of re-arm intervals up front",
        ),
        (
            // Activity every 10 s keeps alive an idle timeout of 10 ms only if it
            // comes first: almost no chain survives its first interval.
            "rearm = { fraction = 1.0, interval = { kind = \"constant\", value = 10_000 }, times = 500, delay = { kind = \"constant\", value = 10 } }\n",
            vec![],
            "rearm.interval",
            "only 0.00% of its proposals survive, and at least 1% must",
        ),
    ];
    for (extra, edits, field, what) in cases {
        let (got_field, message) = invalid(extra, &edits);
        assert_eq!(got_field, field, "for {extra:?} {edits:?}: {message}");
        let prefix = format!("my.toml: invalid workload spec:\n  `{field}` ");
        let flat = message.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            message.starts_with(&prefix) && flat.contains(what),
            "for {extra:?} {edits:?}:\n  got      {message}\n  expected {prefix}...{what}"
        );
    }
}

#[test]
fn validate_names_the_workload_when_there_is_no_file() {
    let mut spec = Spec::from_toml(&format!("{HEAD}{DELAY}"), "my.toml").unwrap();
    spec.duration = 0;
    let message = spec.validate().unwrap_err().to_string();
    assert!(
        message.starts_with("workload \"mine\": invalid workload spec:\n  `duration` is 0"),
        "{message}"
    );
}

#[test]
#[should_panic(expected = "Spec::generate needs a valid spec")]
fn generating_an_invalid_spec_panics_with_the_reason() {
    let mut spec = Spec::from_toml(&format!("{HEAD}{DELAY}"), "my.toml").unwrap();
    spec.pending = u64::MAX;
    spec.generate(1);
}

#[test]
fn the_example_spec_is_valid_and_dense() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dense-timeouts.toml");
    let text = std::fs::read_to_string(&path).expect("the example spec is there");
    let spec = workloads::Spec::from_toml(&text, "dense-timeouts.toml").expect("valid");
    assert_eq!(spec.name(), "dense-timeouts");
    let tape = spec.generate(1);
    tape.check().expect("a valid tape");
    assert!(tape.ops.len() > 5_000_000, "about 10 million operations");
}
