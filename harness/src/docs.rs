//! The README's algorithm tables, generated from the registry (`make docs`,
//! `timerbench docs`), so that adding an algorithm cannot leave them behind.
//!
//! The README holds the generated text between [`BEGIN_MARKER`] and
//! [`END_MARKER`]: a line counting the rows by family, then one table per
//! family ([`Family::heading`]) with each row's name, what it is (its
//! [`Algorithm::SUMMARY`](algorithms::Algorithm::SUMMARY)), its default
//! parameters and its source file. `harness/tests/docs.rs` fails when the
//! README's block differs from what [`algorithm_tables`] makes now.
//!
//! A second block, between [`SYSTEMS_BEGIN_MARKER`] and [`SYSTEMS_END_MARKER`],
//! is the table of the real systems and the rows that model them, from
//! [`algorithms::systems::SYSTEMS`] ([`systems_table`]), held to it the same way.
//!
//! `workloads/README.md` holds a third block, between the markers of
//! [`workloads::readme`]: what each built-in workload models, its source and
//! the shape of its default-scale tape ([`workloads_table`]). That crate's
//! `tests/builtins.rs` holds the README to it, from the tapes its other tests
//! generate anyway.

use std::path::Path;

use algorithms::Family;
use algorithms::registry::{self, AlgorithmInfo};
use algorithms::systems::System;
use anyhow::{Context, Result, bail};
use workloads::readme::TableRow;
use workloads::{Scale, Shape};

use crate::headline;

/// The line that opens the generated block in the README.
pub const BEGIN_MARKER: &str = "<!-- algorithms: generated from the registry by `make docs`; edit each algorithm's SUMMARY, not this table -->";
/// The line that closes it.
pub const END_MARKER: &str = "<!-- algorithms: end -->";

/// The line that opens the systems block in the README.
pub const SYSTEMS_BEGIN_MARKER: &str = "<!-- systems: generated from algorithms/src/systems.rs by `make docs`; edit that list, not this table -->";
/// The line that closes it.
pub const SYSTEMS_END_MARKER: &str = "<!-- systems: end -->";

/// The systems block, markers included: one table row per system.
pub fn systems_table(systems: &[System]) -> String {
    let mut text = format!(
        "{SYSTEMS_BEGIN_MARKER}\n| system | its timer structure | row here | what differs, and whether \
         it moves the numbers |\n|---|---|---|---|\n"
    );
    for system in systems {
        text += &format!(
            "| {} | {} | {} | {} |\n",
            cell(system.name),
            cell(system.structure),
            cell(system.row),
            cell(system.differs)
        );
    }
    text + SYSTEMS_END_MARKER
}

/// The generated block, markers included, for the rows of `catalog`: a table
/// per family of its designs, then the table of tunable parameters and their
/// compiled sweep points ([`parameter_table`]).
pub fn algorithm_tables(catalog: &[AlgorithmInfo]) -> String {
    let designs: Vec<AlgorithmInfo> = catalog.iter().filter(|a| !a.variant).cloned().collect();
    let mut text = format!("{BEGIN_MARKER}\n{}\n", row_count(&designs));
    for family in Family::ALL {
        let rows: Vec<&AlgorithmInfo> = designs.iter().filter(|a| a.family == family).collect();
        if rows.is_empty() {
            continue;
        }
        text += &format!(
            "\n{}:\n\n| algorithm | what it is | parameters | module |\n|---|---|---|---|\n",
            family.heading()
        );
        for info in rows {
            text += &format!(
                "| `{}` | {} | `{}` | `{}` |\n",
                info.name,
                cell(info.summary),
                cell(&info.params),
                info.source
            );
        }
    }
    text + &parameter_table(catalog) + END_MARKER
}

/// The table of every design's tunable parameters: its default and the
/// values compiled as sweep points (`timerbench run --param` takes these),
/// each sweep point that is a design of its own named beside its value.
/// Empty when no design declares a parameter.
pub fn parameter_table(catalog: &[AlgorithmInfo]) -> String {
    let mut rows = String::new();
    for design in catalog.iter().filter(|a| a.sweep.is_none()) {
        for param in design.tunables {
            let values: Vec<String> = registry::sweep_points(catalog, design, param)
                .into_iter()
                .map(|(value, row)| {
                    if row == design.name {
                        format!("{value} (default)")
                    } else if catalog.iter().any(|a| a.name == row && a.variant) {
                        value.to_string()
                    } else {
                        format!("{value} (`{row}`)")
                    }
                })
                .collect();
            rows += &format!(
                "| `{}` | `{}` | {} | {} |\n",
                design.name,
                param.name,
                cell(param.meaning),
                values.join(", ")
            );
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "\n**Parameters** (each design's tunables, and the values compiled as sweep points: \
         `timerbench run --param <design>:<parameter>=<v1>,<v2>` runs them; a point's row is \
         `<design>@<parameter>=<value>`):\n\n| design | parameter | what it decides | values |\n\
         |---|---|---|---|\n{rows}"
    )
}

/// The sentence that counts the rows, by family and native rows, and names
/// the inexact ones.
pub fn row_count(catalog: &[AlgorithmInfo]) -> String {
    let parts: Vec<String> = Family::ALL
        .iter()
        .filter_map(|family| {
            let rows: Vec<&AlgorithmInfo> =
                catalog.iter().filter(|a| a.family == *family).collect();
            let native = rows.iter().filter(|a| a.native_of.is_some()).count();
            match (rows.len(), native) {
                (0, _) => None,
                (n, 0) => Some(format!("{n} {}", family.as_str())),
                (n, native) => Some(format!("{n} {} ({native} of them native)", family.as_str())),
            }
        })
        .collect();
    let inexact: Vec<String> = catalog
        .iter()
        .filter(|a| !a.exact)
        .map(|a| format!("`{}`", a.name))
        .collect();
    let exactness = if inexact.is_empty() {
        "all exact".to_owned()
    } else {
        format!("all exact but {}", inexact.join(", "))
    };
    format!(
        "{} rows with the default features: {}; {exactness}.",
        catalog.len(),
        parts.join(", ")
    )
}

/// Text made safe for one Markdown table cell: a `|` would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `readme` with its generated algorithm block replaced by `block`; an error
/// when the markers are missing, out of order or repeated.
pub fn replace_block(readme: &str, block: &str) -> Result<String> {
    replace_between(readme, BEGIN_MARKER, END_MARKER, block)
}

/// `readme` with the text from the `begin` line to the `end` line replaced
/// by `block`; an error when the markers are missing, out of order or
/// repeated.
fn replace_between(readme: &str, begin: &str, end: &str, block: &str) -> Result<String> {
    let begins: Vec<usize> = readme.match_indices(begin).map(|(i, _)| i).collect();
    let ends: Vec<usize> = readme.match_indices(end).map(|(i, _)| i).collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([first], [last]) if first < last => Ok(format!(
            "{}{block}{}",
            &readme[..*first],
            &readme[last + end.len()..]
        )),
        ([first], [last]) => bail!(
            "the README's `{end}` line (line {}) comes before its `{begin}` line (line {}); \
             the generated block goes between `{begin}` and, after it, `{end}`",
            line_at(readme, *last),
            line_at(readme, *first)
        ),
        _ => bail!(
            "the README needs exactly one `{begin}` line followed by one `{end}` line \
             (found {} of the first and {} of the second)",
            begins.len(),
            ends.len()
        ),
    }
}

/// The 1-based line of byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The largest README `docs` reads: the project's are tens of kilobytes, so
/// anything near this is not one.
const MAX_README_BYTES: u64 = 4 << 20;

/// The text of the README at `path`, read only if it is a regular file of
/// at most [`MAX_README_BYTES`]: a FIFO would block and `/dev/zero` never end.
fn read_readme(path: &Path) -> Result<String> {
    workloads::read_text_file(path, MAX_README_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// The README at `path` as it is, and as it should be with the registry's
/// tables, the systems table and, from the run recorded in `results`, the
/// headline and the findings ([`crate::headline`]).
fn current_and_expected(
    path: &Path,
    catalog: &[AlgorithmInfo],
    results: &Path,
) -> Result<(String, String)> {
    let readme = read_readme(path)?;
    let headline = headline::headline_block(results)?;
    let findings = headline::findings_block(results)?;
    let expected = replace_block(&readme, &algorithm_tables(catalog))
        .and_then(|text| {
            replace_between(
                &text,
                SYSTEMS_BEGIN_MARKER,
                SYSTEMS_END_MARKER,
                &systems_table(algorithms::systems::SYSTEMS),
            )
        })
        .and_then(|text| {
            replace_between(
                &text,
                headline::HEADLINE_BEGIN,
                headline::HEADLINE_END,
                &headline,
            )
        })
        .and_then(|text| {
            replace_between(
                &text,
                headline::FINDINGS_BEGIN,
                headline::FINDINGS_END,
                &findings,
            )
        })
        .with_context(|| path.display().to_string())?;
    Ok((readme, expected))
}

/// Whether the README at `path` has the registry's tables and the headline
/// and findings of the run in `results`.
pub fn readme_is_current(path: &Path, catalog: &[AlgorithmInfo], results: &Path) -> Result<bool> {
    let (readme, expected) = current_and_expected(path, catalog, results)?;
    Ok(readme == expected)
}

/// Rewrites the generated blocks of the README at `path`; returns whether it
/// changed.
pub fn update_readme(path: &Path, catalog: &[AlgorithmInfo], results: &Path) -> Result<bool> {
    let (readme, updated) = current_and_expected(path, catalog, results)?;
    write_if_changed(path, &readme, &updated)
}

/// The workloads README's block: every built-in at the default scale, with
/// the shape of its tape at [`DEFAULT_SEED`](crate::DEFAULT_SEED). It
/// generates every default-scale tape, a few seconds' work.
pub fn workloads_table() -> Result<String> {
    let specs = workloads::builtins(Scale::Default);
    let mut rows: Vec<TableRow<'_>> = specs
        .iter()
        .map(|spec| TableRow::of_spec(spec, Shape::of(&spec.generate(crate::DEFAULT_SEED))))
        .collect();
    for real in &workloads::REAL_TRACES {
        rows.push(TableRow::of_real(real, &real.import()?));
    }
    Ok(workloads::readme::builtin_table(&rows, crate::DEFAULT_SEED))
}

/// The workloads README at `path` as it is, and as it should be.
fn workloads_current_and_expected(path: &Path) -> Result<(String, String)> {
    let readme = read_readme(path)?;
    let expected = replace_between(
        &readme,
        workloads::readme::BEGIN_MARKER,
        workloads::readme::END_MARKER,
        &workloads_table()?,
    )
    .with_context(|| path.display().to_string())?;
    Ok((readme, expected))
}

/// Whether the workloads README at `path` has the built-ins' current table.
pub fn workloads_readme_is_current(path: &Path) -> Result<bool> {
    let (readme, expected) = workloads_current_and_expected(path)?;
    Ok(readme == expected)
}

/// Rewrites the generated block of the workloads README at `path`; returns
/// whether it changed.
pub fn update_workloads_readme(path: &Path) -> Result<bool> {
    let (readme, updated) = workloads_current_and_expected(path)?;
    write_if_changed(path, &readme, &updated)
}

/// Writes `updated` to `path` unless it equals `current`, atomically (a
/// temporary file renamed over it, so that an interrupted run leaves the old
/// file whole); returns whether it wrote.
fn write_if_changed(path: &Path, current: &str, updated: &str) -> Result<bool> {
    if updated == current {
        return Ok(false);
    }
    let temporary = path.with_extension(format!("md.tmp-{}", std::process::id()));
    std::fs::write(&temporary, updated)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &'static str, family: Family, native_of: Option<&'static str>) -> AlgorithmInfo {
        AlgorithmInfo {
            name,
            summary: "a | b",
            family,
            exact: true,
            counts_work: true,
            params: "slots=8".to_owned(),
            native_of,
            source: format!("algorithms/src/{name}.rs"),
            tunables: &[],
            sweep: None,
            variant: false,
        }
    }

    #[test]
    fn markers_in_the_wrong_order_are_said_to_be_so() {
        let readme = "a\nEND\nb\nBEGIN\nc\n";
        let error = replace_between(readme, "BEGIN", "END", "x")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`END` line (line 2) comes before its `BEGIN` line (line 4)"),
            "{error}"
        );
        let error = replace_between("BEGIN\nBEGIN\nEND\n", "BEGIN", "END", "x")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("found 2 of the first and 1 of the second"),
            "{error}"
        );
        assert_eq!(
            replace_between("a\nBEGIN\nold\nEND\nb", "BEGIN", "END", "x").unwrap(),
            "a\nx\nb"
        );
    }

    #[test]
    fn the_block_counts_and_tables_every_family_that_has_rows() {
        let catalog = [
            info("wheel", Family::Modern, None),
            info("crate", Family::Crate, None),
            info("crate-native", Family::Crate, Some("crate")),
        ];
        let block = algorithm_tables(&catalog);
        assert!(block.starts_with(BEGIN_MARKER) && block.ends_with(END_MARKER));
        assert!(
            block.contains(
                "3 rows with the default features: 1 modern, 2 crate (1 of them native); all exact."
            ),
            "{block}"
        );
        assert!(!block.contains("Seed schemes"), "{block}");
        assert!(
            block.contains("| `wheel` | a \\| b | `slots=8` | `algorithms/src/wheel.rs` |"),
            "{block}"
        );
    }

    #[test]
    fn the_systems_block_has_a_row_per_system() {
        let systems = [System {
            name: "Timer | v2",
            structure: "a heap",
            rows: &["binary-heap"],
            row: "`binary-heap`",
            differs: "nothing",
        }];
        let block = systems_table(&systems);
        assert!(block.starts_with(SYSTEMS_BEGIN_MARKER) && block.ends_with(SYSTEMS_END_MARKER));
        assert!(
            block.contains("| Timer \\| v2 | a heap | `binary-heap` | nothing |\n"),
            "{block}"
        );
    }

    #[test]
    fn the_block_is_replaced_between_its_markers_only() {
        let readme = format!("intro\n{BEGIN_MARKER}\nold\n{END_MARKER}\nrest\n");
        let replaced = replace_block(&readme, "NEW").unwrap();
        assert_eq!(replaced, "intro\nNEW\nrest\n");
        assert!(replace_block("no markers", "NEW").is_err());
        let twice = format!("{readme}{BEGIN_MARKER}\n");
        let error = replace_block(&twice, "NEW").unwrap_err().to_string();
        assert!(
            error.contains("found 2 of the first and 1 of the second"),
            "{error}"
        );
    }
}
