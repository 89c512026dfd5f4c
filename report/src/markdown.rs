//! REPORT.md's layout: lines a code host shows without a long sideways
//! scroll. A table of 17 workloads with an interval in each cell is some
//! 400 characters a row, so [`table`] splits a table too wide for
//! [`ROW_WIDTH`] by column groups: each part repeats the label column and
//! takes as many of the next columns as fit, in order, so it is read as the
//! same table continued. A table with a cell too wide to share a row with
//! its label (a long description) becomes a list instead, one item per row,
//! each wrapped. Prose ([`paragraph`]) is wrapped at [`TEXT_WIDTH`]:
//! Markdown joins the lines of a paragraph again, so the page reads the
//! same.
//!
//! A line that is wrapped must not start a block of its own: a word such as
//! `-`, `+`, `*`, `>`, `#` or `1.` at the start of a line would turn the rest
//! into a list, a quote or a heading. Such a word is kept on the line before.

/// The widest table row, in characters.
pub const ROW_WIDTH: usize = 200;

/// The width prose and list items are wrapped at, in characters.
pub const TEXT_WIDTH: usize = 120;

/// A rendered table row: a heading spanning the table, or its cells' text.
pub enum Line {
    /// A heading row (a family name), shown in its own row.
    Heading(String),
    /// The cells, the first being the row's label.
    Cells(Vec<String>),
}

/// A Markdown table of `headers` and `lines`, split by column groups into
/// parts of rows at most [`ROW_WIDTH`] wide, or a list when even one column
/// beside the label is wider.
pub fn table(headers: &[String], lines: &[Line]) -> String {
    let columns = headers.len();
    let width_of = |chosen: &[usize]| -> usize {
        let row_width = |cells: &[String]| {
            // "| a | b |": a leading "| ", " | " between, a trailing " |".
            chosen
                .iter()
                .map(|&c| cells.get(c).map_or(0, |t| t.chars().count()))
                .sum::<usize>()
                + 3 * chosen.len()
                + 1
        };
        lines
            .iter()
            .filter_map(|line| match line {
                Line::Cells(cells) => Some(row_width(cells)),
                Line::Heading(_) => None,
            })
            .chain(std::iter::once(row_width(headers)))
            .max()
            .unwrap_or(0)
    };
    if columns < 2 || (1..columns).any(|c| width_of(&[0, c]) > ROW_WIDTH) {
        return if columns < 2 || width_of(&(0..columns).collect::<Vec<_>>()) <= ROW_WIDTH {
            part(headers, lines, &(0..columns).collect::<Vec<_>>())
        } else {
            list(headers, lines)
        };
    }
    let mut parts = Vec::new();
    let mut chosen = vec![0];
    for column in 1..columns {
        chosen.push(column);
        if chosen.len() > 2 && width_of(&chosen) > ROW_WIDTH {
            chosen.pop();
            parts.push(part(headers, lines, &chosen));
            chosen = vec![0, column];
        }
    }
    parts.push(part(headers, lines, &chosen));
    parts.join("\n")
}

/// One Markdown table of the `chosen` columns.
fn part(headers: &[String], lines: &[Line], chosen: &[usize]) -> String {
    let pick = |cells: &[String]| -> Vec<String> {
        chosen
            .iter()
            .map(|&c| cells.get(c).cloned().unwrap_or_default())
            .collect()
    };
    let mut out = format!(
        "| {} |\n|{}\n",
        pick(headers).join(" | "),
        "---|".repeat(chosen.len())
    );
    for line in lines {
        let cells = match line {
            Line::Heading(text) => {
                let mut cells = vec![format!("*{text}*")];
                cells.resize(chosen.len(), String::new());
                cells
            }
            Line::Cells(cells) => pick(cells),
        };
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// The table as a list: a heading row in italics on a line of its own, each
/// other row an item naming its label in bold, then each column's header
/// and value (the value alone when there is one column), wrapped.
fn list(headers: &[String], lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        match line {
            Line::Heading(text) => out.push_str(&format!("\n*{text}*\n\n")),
            Line::Cells(cells) => {
                // With one column beside the label, its header goes without
                // saying ("machine: AMD EPYC", not "machine: value: ...").
                let named = headers.len() > 2;
                let fields: Vec<String> = headers
                    .iter()
                    .zip(cells)
                    .skip(1)
                    .filter(|(_, value)| !value.is_empty())
                    .map(|(header, value)| {
                        if named {
                            format!("{header}: {value}")
                        } else {
                            value.clone()
                        }
                    })
                    .collect();
                let label = cells.first().map_or("", String::as_str);
                let text = format!("**{label}**: {}", fields.join("; "));
                out.push_str(&wrap("- ", "  ", &text, TEXT_WIDTH));
                out.push('\n');
            }
        }
    }
    out
}

/// A paragraph of prose wrapped at [`TEXT_WIDTH`], with no line that starts
/// a block.
pub fn paragraph(text: &str) -> String {
    text.lines()
        .map(|line| wrap("", "", line, TEXT_WIDTH))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `word` at the start of a line would begin a Markdown block.
fn starts_block(word: &str) -> bool {
    matches!(word, "-" | "+" | "*" | ">" | "|")
        || word.starts_with('#')
        || word.starts_with("```")
        || word
            .strip_suffix(['.', ')'])
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// `text`'s words in lines of at most `width` characters (a word longer
/// than a line gets one of its own), the first line after `first`, the
/// others after `rest`; a word that would start a block stays on the line
/// before. The report's error messages wrap their lists with it too.
pub fn wrap(first: &str, rest: &str, text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = first.to_owned();
    let mut empty = true;
    for word in text.split_whitespace() {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !empty && !fits && !starts_block(word) {
            lines.push(std::mem::replace(&mut line, rest.to_owned()));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_narrow_table_is_one_table() {
        let headers = strings(&["algorithm", "a", "b"]);
        let lines = [
            Line::Heading("seed family".to_owned()),
            Line::Cells(strings(&["heap", "1", "2"])),
        ];
        assert_eq!(
            table(&headers, &lines),
            "| algorithm | a | b |\n|---|---|---|\n| *seed family* |  |  |\n| heap | 1 | 2 |\n"
        );
    }

    #[test]
    fn a_wide_table_is_split_by_columns_each_part_keeping_the_label() {
        let headers: Vec<String> = std::iter::once("algorithm".to_owned())
            .chain((0..20).map(|i| format!("workload-{i}")))
            .collect();
        let cells: Vec<String> = std::iter::once("hierarchical-wheel".to_owned())
            .chain((0..20).map(|_| "123.4 [120.1, 130.9]".to_owned()))
            .collect();
        let lines = [Line::Heading("seed family".to_owned()), Line::Cells(cells)];
        let text = table(&headers, &lines);
        assert!(
            text.lines().all(|l| l.chars().count() <= ROW_WIDTH),
            "{text}"
        );
        let parts: Vec<&str> = text.split("\n\n").collect();
        assert!(parts.len() > 1, "{text}");
        for part in &parts {
            assert!(part.starts_with("| algorithm |"), "{part}");
            assert!(part.contains("| hierarchical-wheel |"), "{part}");
        }
        // Every column appears once, in order.
        for (i, header) in headers.iter().enumerate().skip(1) {
            assert_eq!(
                text.matches(&format!("| {header} |")).count(),
                1,
                "{header}"
            );
            if i > 1 {
                let before = text.find(&format!(" {} |", headers[i - 1])).unwrap();
                assert!(before < text.find(&format!(" {header} |")).unwrap());
            }
        }
    }

    #[test]
    fn a_table_with_a_long_cell_is_a_wrapped_list() {
        let headers = strings(&["algorithm", "what it is", "module"]);
        let lines = [
            Line::Heading("seed family".to_owned()),
            Line::Cells(vec![
                "sweep-wheel".to_owned(),
                "a slot ".repeat(60).trim_end().to_owned(),
                "sweep_wheel.rs".to_owned(),
            ]),
        ];
        let text = table(&headers, &lines);
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains("*seed family*"), "{text}");
        assert!(
            text.contains("- **sweep-wheel**: what it is: a slot"),
            "{text}"
        );
        assert!(flat.contains("a slot; module: sweep_wheel.rs"), "{text}");
        assert!(
            text.lines().all(|l| l.chars().count() <= TEXT_WIDTH),
            "{text}"
        );
        assert!(
            text.lines()
                .filter(|l| !l.is_empty() && !l.starts_with('*') && !l.starts_with("- "))
                .all(|l| l.starts_with("  ")),
            "{text}"
        );
    }

    #[test]
    fn a_two_column_list_gives_the_value_alone() {
        let headers = strings(&["what", "value"]);
        let lines = [Line::Cells(vec!["machine".to_owned(), "word ".repeat(60)])];
        assert!(table(&headers, &lines).starts_with("- **machine**: word word"));
    }

    #[test]
    fn prose_is_wrapped_and_no_line_starts_a_block() {
        let text = format!("{} - b + c 1. d # e", "word ".repeat(40));
        let wrapped = paragraph(&text);
        for line in wrapped.lines() {
            let first = line.split_whitespace().next().unwrap();
            assert!(!starts_block(first), "{line:?} in\n{wrapped}");
        }
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert!(starts_block("12."));
        assert!(starts_block("3)"));
        assert!(!starts_block("3.5"));
        assert!(!starts_block("-x"));
    }
}
