//! Messages that fit a terminal. A spec error's lines are printed after
//! the origin (a file name) and under it, by a program that prefixes its
//! own name, so they are wrapped at [`MESSAGE_WIDTH`], which leaves that
//! room within 120 columns. Widths count characters, not bytes; a word or
//! item longer than a line gets a line of its own rather than being cut.

/// The widest line of a message's body.
pub(crate) const MESSAGE_WIDTH: usize = 100;

/// `text`'s words after `lead`, in lines of at most `width` characters, the
/// lines after the first indented as far as `lead` is long.
pub(crate) fn wrap_words(lead: &str, text: &str, width: usize) -> String {
    let indent = " ".repeat(lead.chars().count());
    let mut lines = vec![lead.to_owned()];
    let mut fresh = true;
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("a line");
        if !fresh && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(format!("{indent}{word}"));
        } else {
            if !fresh {
                last.push(' ');
            }
            last.push_str(word);
        }
        fresh = false;
    }
    lines.join("\n")
}

/// `items` after `lead`, separated by ", ", in lines of at most `width`
/// characters, each line after the first indented as far as `lead` is long.
pub(crate) fn wrap_list(lead: &str, items: &[String], width: usize) -> String {
    let mut lines = vec![lead.to_owned()];
    for (index, item) in items.iter().enumerate() {
        let last = lines.last_mut().expect("a line");
        let first_on_line = last.trim().is_empty();
        // Room is kept for the comma that ends the line if it breaks after
        // this item.
        if !first_on_line && last.chars().count() + 2 + item.chars().count() + 1 > width {
            last.push(',');
            lines.push(format!("{lead}{item}"));
        } else {
            if index > 0 && !first_on_line {
                last.push_str(", ");
            }
            last.push_str(item);
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_break_between_words_under_the_lead() {
        let text = wrap_words("  `x` ", "one two three four five six seven", 20);
        assert_eq!(
            text,
            "  `x` one two three\n      four five six\n      seven"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 20), "{text}");
    }

    #[test]
    fn lists_break_after_a_comma() {
        let items: Vec<String> = (0..30).map(|i| format!("`field{i}`")).collect();
        let list = wrap_list("  ", &items, 40);
        assert!(list.lines().all(|l| l.chars().count() <= 40), "{list}");
        assert!(list.lines().all(|l| l.starts_with("  `")), "{list}");
        assert_eq!(list.replace(['\n', ' '], ""), items.join(","));
    }
}
