//! Lines that fit a terminal. Whatever `timerbench` prints for a person to
//! read (the list of what can be run, a run's summary, an error listing the
//! valid names) keeps within [`TERMINAL_WIDTH`] columns, so that nothing
//! wraps mid-word in an 80-to-120-column window or a CI log. Two helpers do
//! it: [`wrap`] breaks a list of items after a separator, [`wrap_words`]
//! breaks prose between words; both indent every line after the first under
//! a lead, so a wrapped entry reads as one block.
//!
//! Widths are counted in characters, not bytes: the text holds `×`, `≈` and
//! the like, one column each. An item or word longer than a line gets a line
//! of its own rather than being cut, so a name is never split.

/// The widest line `timerbench` prints for a person to read.
pub const TERMINAL_WIDTH: usize = 120;

/// `items` after `lead`, separated by `separator`, in lines of at most
/// `width` characters; a line that breaks ends with the separator's visible
/// part (the comma of ", "), and lines after the first start with as many
/// spaces as `lead` is long. An item longer than a line gets a line of its own.
pub fn wrap(lead: &str, items: &[String], separator: &str, width: usize) -> Vec<String> {
    let indent = " ".repeat(lead.chars().count());
    let tail = separator.trim_end();
    let mut lines = Vec::new();
    let mut line = lead.to_owned();
    let mut first_on_line = true;
    for item in items {
        // Room is kept for the separator's tail, should the line break after
        // this item.
        let needed = separator.len() + item.chars().count() + tail.len();
        if !first_on_line && line.chars().count() + needed > width {
            line.push_str(tail);
            lines.push(std::mem::replace(&mut line, indent.clone()));
            first_on_line = true;
        }
        if !first_on_line {
            line.push_str(separator);
        }
        line.push_str(item);
        first_on_line = false;
    }
    lines.push(line);
    lines
}

/// `text`'s words after `lead`, in lines of at most `width` characters, the
/// lines after the first indented as far as `lead` is long.
pub fn wrap_words(lead: &str, text: &str, width: usize) -> Vec<String> {
    let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    wrap(lead, &words, " ", width)
}

/// A message of one or more lines, the first after `lead` (such as
/// `timerbench: error: `), each line that is too wide broken between words
/// and continued two spaces further in than it started; lines that fit, and
/// their breaks and indents, are kept as they are.
pub fn fit_message(lead: &str, text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = if index == 0 {
            format!("{lead}{line}")
        } else {
            line.to_owned()
        };
        if line.chars().count() <= width {
            out.push(line);
            continue;
        }
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let first = wrap(&indent, &words, " ", width).swap_remove(0);
        let taken = first.split_whitespace().count();
        out.push(first);
        if taken < words.len() {
            out.extend(wrap(&format!("{indent}  "), &words[taken..], " ", width));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn wrapped_lines_keep_to_the_width_and_indent_under_the_lead() {
        let items = strings(&["alpha 1", "beta 22", "gamma 333", "delta 4444"]);
        let lines = wrap("lead: ", &items, ", ", 24);
        assert_eq!(
            lines,
            [
                "lead: alpha 1, beta 22,",
                "      gamma 333,",
                "      delta 4444"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 24), "{lines:?}");
        // Nothing to wrap, and an item wider than the line.
        assert_eq!(wrap("x: ", &[], ", ", 10), ["x: "]);
        let long = strings(&["a", "much-longer-than-the-line"]);
        assert_eq!(wrap("", &long, " ", 10), ["a", "much-longer-than-the-line"]);
    }

    #[test]
    fn prose_breaks_between_words_under_its_lead() {
        let lines = wrap_words("    ", "one two three four five six", 14);
        assert_eq!(lines, ["    one two", "    three four", "    five six"]);
        assert!(lines.iter().all(|l| l.chars().count() <= 14), "{lines:?}");
        assert_eq!(wrap_words("- ", "", 10), ["- "]);
    }

    #[test]
    fn a_message_keeps_its_lines_and_breaks_the_wide_ones() {
        let text = "one two three four five\n  a list, of, names\nshort";
        let lines = fit_message("err: ", text, 16);
        assert_eq!(
            lines,
            [
                "err: one two",
                "  three four",
                "  five",
                "  a list, of,",
                "    names",
                "short"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 16), "{lines:?}");
    }
}
