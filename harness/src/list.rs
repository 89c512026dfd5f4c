//! `timerbench list`: what can be run. The algorithms, then each design's
//! tunable parameters with the values compiled for a sweep (`--param`), then
//! the built-in workloads at the scale asked for. It reads the registry and
//! the workloads crate and measures nothing.
//!
//! Every entry is a block: a line naming it (an algorithm with its
//! parameters, a workload by name), then its description and source wrapped
//! under it, indented, so the names stand out to a reader scanning the left
//! edge and no line is wider than the terminal ([`TERMINAL_WIDTH`]). A
//! parameter string is broken after its commas, never inside a setting.

use algorithms::registry;

use crate::wrap::{TERMINAL_WIDTH, wrap, wrap_words};

/// The indent of an entry's name line.
const NAME_INDENT: &str = "  ";

/// The indent of the lines under an entry's name: its description, source
/// and sweep points.
const BODY_INDENT: &str = "      ";

/// Prints the algorithms, the parameters and the built-in workloads of
/// `scale`. A reader that stops early (`timerbench list | head`) ends the
/// listing quietly; a stdout that cannot take it is an error
/// ([`crate::failure::print`]).
pub fn list(scale: workloads::Scale) -> Result<(), crate::failure::Failure> {
    let mut text = lines(scale).join("\n");
    text.push('\n');
    crate::failure::print(&text)
}

/// What [`list`] prints, a line at a time.
pub fn lines(scale: workloads::Scale) -> Vec<String> {
    let mut out = vec!["Algorithms:".to_owned()];
    let catalog = registry::catalog();
    for info in catalog.iter().filter(|info| !info.variant) {
        out.extend(name_line(info.name, &info.params));
        out.extend(wrap_words(BODY_INDENT, info.summary, TERMINAL_WIDTH));
    }
    out.push(String::new());
    out.push(
        "Parameters (timerbench run --param <design>:<parameter>=<v1>,<v2>; compiled points):"
            .to_owned(),
    );
    for info in catalog.iter().filter(|info| info.sweep.is_none()) {
        for param in info.tunables {
            let values: Vec<String> = registry::sweep_points(&catalog, info, param)
                .into_iter()
                .map(|(value, row)| {
                    let row = if row == info.name { "default" } else { row };
                    format!("{value} ({row})")
                })
                .collect();
            out.push(format!("{NAME_INDENT}{}:{}", info.name, param.name));
            out.extend(wrap_words(BODY_INDENT, param.meaning, TERMINAL_WIDTH));
            out.extend(wrap(
                &format!("{BODY_INDENT}points: "),
                &values,
                ", ",
                TERMINAL_WIDTH,
            ));
        }
    }
    out.push(String::new());
    out.push(format!("Workloads (scale {scale}):"));
    for spec in &workloads::builtins(scale) {
        out.push(format!("{NAME_INDENT}{}", spec.name()));
        out.extend(wrap_words(BODY_INDENT, spec.description(), TERMINAL_WIDTH));
        // Every built-in has a source (a test in `workloads` holds them to
        // it); a user's spec need not.
        if let Some(source) = spec.source() {
            let lead = format!("{BODY_INDENT}source: ");
            out.extend(wrap_words(&lead, source, TERMINAL_WIDTH));
        }
    }
    // The committed kernel traces, the same tape at every scale.
    for real in &workloads::REAL_TRACES {
        out.push(format!("{NAME_INDENT}{}", real.name));
        out.extend(wrap_words(BODY_INDENT, real.description, TERMINAL_WIDTH));
        let lead = format!("{BODY_INDENT}source: ");
        let source = format!("{} ({})", workloads::REAL_SOURCE, real.file);
        out.extend(wrap_words(&lead, &source, TERMINAL_WIDTH));
    }
    out
}

/// An algorithm's name line: the name, two spaces, then its parameters
/// broken after commas and continued under the first, or `-` when it has
/// none.
fn name_line(name: &str, params: &str) -> Vec<String> {
    let lead = format!("{NAME_INDENT}{name}  ");
    if params.is_empty() {
        return vec![format!("{lead}-")];
    }
    let settings: Vec<String> = params.split(',').map(str::to_owned).collect();
    wrap(&lead, &settings, ",", TERMINAL_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_parameter_string_breaks_after_a_comma_under_the_first() {
        let params = (0..30)
            .map(|i| format!("setting{i}=value{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let lines = name_line("some-name", &params);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines[0].starts_with("  some-name  setting0=value0,"));
        assert!(lines[1].starts_with("             setting"), "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= TERMINAL_WIDTH));
        assert_eq!(
            lines.concat().replace(' ', ""),
            format!("some-name{params}")
        );
        assert_eq!(name_line("plain", ""), ["  plain  -"]);
    }

    #[test]
    fn every_line_of_the_list_fits_the_terminal() {
        for scale in [workloads::Scale::Small, workloads::Scale::Default] {
            let lines = lines(scale);
            let wide: Vec<&String> = lines
                .iter()
                .filter(|l| l.chars().count() > TERMINAL_WIDTH)
                .collect();
            assert!(wide.is_empty(), "{wide:#?}");
            assert!(
                lines
                    .iter()
                    .any(|l| l == "  sweep-wheel  near=1024,levels=10,slots=64")
            );
        }
    }
}
