//! What each field of a spec must be, with an example of the right form: the
//! table the spec errors quote (`spec_error.rs`). A field is named by its
//! path (`cancel.fraction`, `delay.parts[1].dist.max`). Any path that runs
//! into a distribution (`delay`, `cancel.after`, `periodic.period`,
//! `rearm.interval`, `rearm.delay`, a mixture part's `dist`) is answered by
//! the distribution's kind: the form of that kind, or every kind's form when
//! the `kind` itself is what is wrong.
//!
//! The ranges here repeat what `spec.rs`, `dist.rs` and `ratas.rs` check; the
//! examples are valid specs' fields (a test parses each).

use toml::de::{DeTable, DeValue};

/// What a field must be and how to write it.
#[derive(Debug, PartialEq)]
pub(crate) struct FieldHelp {
    /// What the field must be, to follow "it must be"; empty when the
    /// examples say it all.
    pub(crate) must_be: String,
    /// Lines of TOML that write it correctly.
    pub(crate) examples: Vec<String>,
}

/// The fields of a spec's top level.
const TOP_FIELDS: [&str; 13] = [
    "name",
    "description",
    "source",
    "duration",
    "pending",
    "arrivals_per_tick",
    "arrivals_until",
    "delay",
    "granularity",
    "cancel",
    "periodic",
    "rearm",
    "ratas",
];

/// Each top-level field that is not a distribution: what it must be and an
/// example. For a section, the example writes the whole section and the
/// fields inside it share it.
const TOP_HELP: [(&str, &str, &str); 12] = [
    (
        "name",
        "1 to 64 ASCII letters, digits, `-`, `_` or `.`, in double quotes",
        "name = \"my-workload\"",
    ),
    (
        "description",
        "one line of text in double quotes",
        "description = \"Request timeouts of an RPC client\"",
    ),
    (
        "source",
        "one line of text in double quotes",
        "source = \"ours: the timeouts of our gateway\"",
    ),
    (
        "duration",
        "a whole number of ticks from 1 to 2^40",
        "duration = 60_000",
    ),
    (
        "pending",
        "a whole number of timers from 0 to 10^8",
        "pending = 10_000",
    ),
    (
        "arrivals_per_tick",
        "a number of timers, 0 or more",
        "arrivals_per_tick = 2.5",
    ),
    (
        "arrivals_until",
        "a whole number of ticks from 1 to `duration`",
        "arrivals_until = 30_000",
    ),
    (
        "granularity",
        "a whole number of ticks from 1 to 2^40",
        "granularity = 1_000",
    ),
    (
        "cancel",
        "a table of the share cancelled and when",
        "cancel = { fraction = 0.95, after = { kind = \"lognormal\", median = 20, sigma = 1.0 } }",
    ),
    (
        "periodic",
        "a table of the share of periodic tasks",
        "periodic = { fraction = 0.5, period = { kind = \"constant\", value = 1_000 } }",
    ),
    (
        "rearm",
        "a table of the share of idle timeouts and their re-arms",
        "rearm = { fraction = 0.02, interval = { kind = \"exponential\", mean = 1_000.0 }, times = 30 }",
    ),
    (
        "ratas",
        "a table with the number of client/server pairs",
        "ratas = { pairs = 5 }",
    ),
];

/// The fields inside a section, each with what it must be.
const SECTION_FIELDS: [(&str, &[Field]); 4] = [
    (
        "cancel",
        &[
            ("fraction", "a number from 0 to 1"),
            ("after", DISTRIBUTION),
        ],
    ),
    (
        "periodic",
        &[
            ("fraction", "a number from 0 to 1"),
            ("period", DISTRIBUTION),
        ],
    ),
    (
        "rearm",
        &[
            ("fraction", "a number from 0 to 1"),
            ("interval", DISTRIBUTION),
            ("times", "a number from 0 to 1000"),
            ("delay", DISTRIBUTION),
        ],
    ),
    (
        "ratas",
        &[(
            "pairs",
            "a whole number of client/server pairs from 2 to 100000",
        )],
    ),
];

/// What a distribution must be.
const DISTRIBUTION: &str = "a distribution: a table whose `kind` names it";

/// A field's name and what it must be.
type Field = (&'static str, &'static str);

/// A kind of distribution: its name, its form, and its fields.
type Kind = (&'static str, &'static str, &'static [Field]);

/// Each kind of distribution: its name, its form, and its fields with what
/// each must be.
const KINDS: [Kind; 7] = [
    (
        "constant",
        "{ kind = \"constant\", value = 100 }",
        &[("value", "a whole number of ticks from 1 to 2^62")],
    ),
    (
        "uniform",
        "{ kind = \"uniform\", min = 10, max = 500 }",
        &[
            ("min", "a whole number of ticks from 1 to `max`"),
            ("max", "a whole number of ticks from `min` to 2^62"),
        ],
    ),
    (
        "exponential",
        "{ kind = \"exponential\", mean = 100.0 }",
        &[("mean", "a number of ticks from 1 to 2^62")],
    ),
    (
        "lognormal",
        "{ kind = \"lognormal\", median = 20, sigma = 1.0 }",
        &[
            ("median", "a number of ticks from 1 to 2^62"),
            ("sigma", "a number from 0 to 10"),
        ],
    ),
    (
        "pareto",
        "{ kind = \"pareto\", min = 10, shape = 1.5 }",
        &[
            ("min", "a number of ticks from 1 to 2^62"),
            ("shape", "a number above 1, at most 1000"),
        ],
    ),
    (
        "loguniform",
        "{ kind = \"loguniform\", min = 1, max = 86_400_000 }",
        &[
            ("min", "a number of ticks from 1, below `max`"),
            ("max", "a number of ticks above `min`, at most 2^62"),
        ],
    ),
    (
        "mixture",
        "{ kind = \"mixture\", parts = [ { weight = 9, dist = { kind = \"constant\", value = 100 } }, ... ] }",
        &[("parts", "an array of 1 to 64 `{ weight, dist }` tables")],
    ),
];

/// The fields of a mixture's part, with what each must be.
const PART_FIELDS: [Field; 2] = [
    ("weight", "a number from 1e-9 to 1e9"),
    ("dist", DISTRIBUTION),
];

/// A path's segments, an array index dropped (`parts[1]` is `parts`).
fn segments(path: &str) -> Vec<&str> {
    path.split('.')
        .filter(|s| !s.is_empty())
        .map(|s| s.split_once('[').map_or(s, |(name, _)| name))
        .collect()
}

/// Where in `path` the last distribution it runs into ends: the number of
/// the path's segments that name it (`delay.parts[0].dist.max` -> 4).
fn distribution_end(segments: &[&str]) -> Option<usize> {
    let mut end = None;
    for i in 0..segments.len() {
        let is_distribution = match end {
            None if i == 0 => segments[0] == "delay",
            None if i == 1 => matches!(
                (segments[0], segments[1]),
                ("cancel", "after")
                    | ("periodic", "period")
                    | ("rearm", "interval")
                    | ("rearm", "delay")
            ),
            Some(at) => i == at + 1 && segments[at] == "parts" && segments[i] == "dist",
            None => false,
        };
        if is_distribution {
            end = Some(i + 1);
        }
    }
    end
}

/// The value at `path` in `root`, following `[i]` indices.
fn value_at<'a>(root: &'a DeTable<'a>, path: &str) -> Option<&'a DeValue<'a>> {
    let mut table = root;
    let mut value: Option<&DeValue<'_>> = None;
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        if let Some(DeValue::Table(inner)) = value {
            table = inner;
        } else if value.is_some() {
            return None;
        }
        let (name, index) = match segment.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (segment, None),
        };
        let found = table.get(name)?.get_ref();
        value = Some(match (found, index) {
            (DeValue::Array(items), Some(index)) => items.get(index)?.get_ref(),
            (found, None) => found,
            _ => return None,
        });
    }
    value
}

/// The distribution kind written at `path`, if it is one this crate knows.
fn kind_at(root: &DeTable<'_>, path: &str) -> Option<usize> {
    let DeValue::Table(table) = value_at(root, path)? else {
        return None;
    };
    let DeValue::String(kind) = table.get("kind")?.get_ref() else {
        return None;
    };
    KINDS.iter().position(|(name, ..)| *name == kind.as_ref())
}

/// The first `count` segments of `path` as written, indices kept.
fn prefix(path: &str, count: usize) -> String {
    path.split('.')
        .filter(|s| !s.is_empty())
        .take(count)
        .collect::<Vec<_>>()
        .join(".")
}

/// The last key of a path (`cancel.after` -> `after`).
fn last_key(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split_once('[').map_or(last, |(name, _)| name)
}

/// How to write the field at `path`: what it must be and an example. `root`
/// is the spec as written, for the kind of a distribution on the way.
pub(crate) fn field(root: &DeTable<'_>, path: &str) -> Option<FieldHelp> {
    let segments = segments(path);
    if let Some(end) = distribution_end(&segments) {
        return distribution_field(root, &prefix(path, end), &segments[end..]);
    }
    let top = *segments.first()?;
    let (_, top_must_be, example) = TOP_HELP.iter().find(|(name, ..)| *name == top)?;
    let must_be = match segments.get(1) {
        None => (*top_must_be).to_owned(),
        Some(inner) => {
            let (_, fields) = SECTION_FIELDS.iter().find(|(name, _)| *name == top)?;
            fields.iter().find(|(name, _)| name == inner)?.1.to_owned()
        }
    };
    Some(FieldHelp {
        must_be,
        examples: vec![(*example).to_owned()],
    })
}

/// How to write `rest` inside the distribution at `at`.
fn distribution_field(root: &DeTable<'_>, at: &str, rest: &[&str]) -> Option<FieldHelp> {
    let key = last_key(at);
    let kind = kind_at(root, at);
    let form = |index: usize| format!("{key} = {}", KINDS[index].1);
    let every_kind = || (0..KINDS.len()).map(form).collect::<Vec<_>>();
    let names: Vec<&str> = KINDS.iter().map(|(name, ..)| *name).collect();
    let (must_be, examples) = match rest {
        [] => (DISTRIBUTION.to_owned(), vec![form(kind.unwrap_or(1))]),
        ["kind"] => {
            let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
            (format!("one of {}", quoted.join(", ")), every_kind())
        }
        ["parts", ..] => {
            let must_be = match rest.get(1) {
                None => KINDS[6].2[0].1,
                Some(inner) => PART_FIELDS.iter().find(|(name, _)| name == inner)?.1,
            };
            (must_be.to_owned(), vec![form(6)])
        }
        [inner] => {
            let index = kind?;
            let (_, _, fields) = KINDS[index];
            let must_be = fields.iter().find(|(name, _)| name == inner)?.1;
            (must_be.to_owned(), vec![form(index)])
        }
        _ => return None,
    };
    Some(FieldHelp { must_be, examples })
}

/// An example of the table at `path` (a section or a distribution), with no
/// "must be": what an unknown field's message shows.
pub(crate) fn example_of(root: &DeTable<'_>, path: &str) -> Option<FieldHelp> {
    if path.is_empty() {
        return None;
    }
    field(root, path).map(|help| FieldHelp {
        must_be: String::new(),
        examples: help.examples,
    })
}

/// The fields the table at `path` may have.
pub(crate) fn fields(root: &DeTable<'_>, path: &str) -> Vec<&'static str> {
    let segments = segments(path);
    if segments.is_empty() {
        return TOP_FIELDS.to_vec();
    }
    if let Some(end) = distribution_end(&segments) {
        return match &segments[end..] {
            [] => {
                let mut names = vec!["kind"];
                if let Some(index) = kind_at(root, &prefix(path, end)) {
                    names.extend(KINDS[index].2.iter().map(|(name, _)| *name));
                }
                names
            }
            ["parts"] => PART_FIELDS.iter().map(|(name, _)| *name).collect(),
            _ => Vec::new(),
        };
    }
    SECTION_FIELDS
        .iter()
        .find(|(name, _)| segments == [*name])
        .map(|(_, fields)| fields.iter().map(|(name, _)| *name).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Spec;

    fn document(text: &str) -> toml::Spanned<DeTable<'_>> {
        DeTable::parse(text).expect("valid TOML")
    }

    #[test]
    fn every_example_is_a_valid_field() {
        let head = "name = \"e\"\ndescription = \"d\"\nduration = 60_000\npending = 10\n";
        let delay = "delay = { kind = \"uniform\", min = 10, max = 500 }\n";
        for (name, _, example) in TOP_HELP {
            let own_line = head.lines().find(|l| l.starts_with(&format!("{name} =")));
            let text = match (name, own_line) {
                (_, Some(line)) => format!("{}{delay}", head.replacen(line, example, 1)),
                ("ratas", None) => {
                    format!("{}{example}\n", head.replace("pending = 10", "pending = 0"))
                }
                _ => format!("{head}{delay}{example}\n"),
            };
            if let Err(error) = Spec::from_toml(&text, "example.toml") {
                panic!("the example of `{name}` is refused:\n{text}\n{error}");
            }
        }
        for (kind, form, _) in KINDS {
            let form = form.replace(", ... ]", " ]");
            let text = format!("{head}delay = {form}\n");
            if let Err(error) = Spec::from_toml(&text, "example.toml") {
                panic!("the form of `{kind}` is refused:\n{text}\n{error}");
            }
        }
    }

    #[test]
    fn paths_into_distributions_are_answered_by_their_kind() {
        let text = "delay = { kind = \"mixture\", parts = [ { weight = 1, dist = { kind = \"uniform\", \
                    min = 1, max = 2 } } ] }\ncancel = { fraction = 0.5, after = { kind = \"pareto\" } }\n";
        let doc = document(text);
        let root = doc.get_ref();
        let help = field(root, "delay.parts[0].dist.max").unwrap();
        assert_eq!(help.must_be, "a whole number of ticks from `min` to 2^62");
        assert_eq!(
            help.examples,
            ["dist = { kind = \"uniform\", min = 10, max = 500 }"]
        );
        let help = field(root, "cancel.after.shape").unwrap();
        assert!(help.examples[0].starts_with("after = { kind = \"pareto\""));
        let help = field(root, "delay.kind").unwrap();
        assert_eq!(help.examples.len(), KINDS.len());
        assert!(help.must_be.starts_with("one of \"constant\", \"uniform\""));
        assert_eq!(
            field(root, "delay.parts[0].weight").unwrap().must_be,
            PART_FIELDS[0].1
        );
        assert_eq!(
            field(root, "cancel.fraction").unwrap().must_be,
            "a number from 0 to 1"
        );
        assert_eq!(
            field(root, "pending").unwrap().examples,
            ["pending = 10_000"]
        );
        assert_eq!(field(root, "nonsense"), None);
        assert_eq!(fields(root, ""), TOP_FIELDS);
        assert_eq!(fields(root, "cancel"), ["fraction", "after"]);
        assert_eq!(fields(root, "cancel.after"), ["kind", "min", "shape"]);
        assert_eq!(fields(root, "delay.parts[0]"), ["weight", "dist"]);
    }
}
