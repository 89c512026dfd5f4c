//! A spec's shape errors in the user's words. serde says "invalid type:
//! floating point `0.5`, expected struct Cancel"; a user needs to know which
//! field, what they wrote, and what to write instead. [`explain`] turns each
//! kind of serde error a spec can meet (a wrong type, a number out of range,
//! an unknown field, a missing field, an unknown or mistyped `kind`) into
//! that: the field's path, the text given, what the field must be, and an
//! example of the right form from [`crate::spec_help`]. What it cannot read
//! (bad TOML syntax, a duplicate key) keeps the TOML parser's own message,
//! which already shows the line and says what is wrong.
//!
//! The field comes from the error's span: the text is parsed again as a
//! document with spans ([`toml::de::DeTable`]) and the deepest key or value
//! holding the span is the field. A distribution is an internally tagged
//! enum, which serde reads through a buffer that forgets spans, so an error
//! inside one points at the whole distribution; the value serde names (a
//! `5.5`, a table where an array goes) is then looked for inside it, and
//! found in all but contrived cases. The cost is a second parse of a file of
//! at most a few kilobytes, on the error path only.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::spec_help::{self, FieldHelp};
use crate::text::{MESSAGE_WIDTH, wrap_list};

/// The indent of what was wrong, under the line that says where.
const STATEMENT_INDENT: &str = "  ";

/// The indent of the examples and lists under it.
const EXAMPLE_INDENT: &str = "    ";

/// The most characters of the given text a message quotes.
const MAX_QUOTED: usize = 40;

/// A field found at an error's span: its path, and the value there (`None`
/// when the span is a key the spec does not know).
struct Located<'a> {
    path: String,
    value: Option<&'a Spanned<DeValue<'a>>>,
}

/// What serde said went wrong, parsed from its message.
#[derive(Debug, PartialEq)]
enum Kind<'m> {
    /// `invalid type: <given>, expected <wanted>`: a value of the wrong type,
    /// or (an integer serde read `as i128`) one too large for any field.
    InvalidType { given: &'m str },
    /// `invalid value: <given>, expected <wanted>`: a number out of range.
    InvalidValue { given: &'m str },
    /// `unknown field `<name>`, expected ...`.
    UnknownField { name: &'m str },
    /// `unknown variant `<name>`, expected ...`: a distribution's `kind`.
    UnknownVariant { name: &'m str },
    /// `missing field `<name>``.
    MissingField { name: &'m str },
}

/// Reads serde's message; `None` for anything else (a TOML syntax error).
fn kind_of(message: &str) -> Option<Kind<'_>> {
    fn ticked(text: &str) -> Option<&str> {
        text.split('`').nth(1)
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let given = rest.rsplit_once(", expected ")?.0;
        Some(Kind::InvalidType { given })
    } else if let Some(rest) = message.strip_prefix("invalid value: ") {
        let given = rest.rsplit_once(", expected ")?.0;
        Some(Kind::InvalidValue { given })
    } else if message.starts_with("unknown field ") {
        Some(Kind::UnknownField {
            name: ticked(message)?,
        })
    } else if message.starts_with("unknown variant ") {
        Some(Kind::UnknownVariant {
            name: ticked(message)?,
        })
    } else if message.starts_with("missing field ") {
        Some(Kind::MissingField {
            name: ticked(message)?,
        })
    } else {
        None
    }
}

/// The explanation of `error`, raised reading `text`: its first line says
/// where (line and column), which field and what was wrong; the lines under
/// it, indented, say what to write. `None` when the error is not one of
/// serde's kinds or its place cannot be found: the caller keeps the TOML
/// parser's message.
pub(crate) fn explain(text: &str, error: &toml::de::Error) -> Option<String> {
    let kind = kind_of(error.message())?;
    let span = error.span()?;
    let document = DeTable::parse(text).ok()?;
    let root = document.get_ref();
    let mut located = locate(root, &span);
    // A value or key found inside a distribution is where the error is;
    // otherwise the span serde gave.
    let mut start = located
        .value
        .map_or(span.start, |v| v.span().start.max(span.start));
    match kind {
        Kind::InvalidType { given } | Kind::InvalidValue { given } => {
            refine(&mut located, given);
            start = located.value.map_or(start, |v| v.span().start.max(start));
        }
        Kind::UnknownField { name } => {
            if let Some((parent, key)) =
                located.value.and_then(|v| find_key(v, &located.path, name))
            {
                located.path = parent;
                start = key.start;
            }
        }
        _ => {}
    }
    let place = position(text, start);
    let quoted = |value: &Spanned<DeValue<'_>>| quote(&text[value.span()]);
    let (statement, help) = match kind {
        Kind::InvalidType { given } | Kind::InvalidValue { given } => {
            let shown = located.value.map_or_else(|| given.to_owned(), quoted);
            let too_large = given.ends_with(" as i128") || given.ends_with(" as u128");
            let how = if matches!(kind, Kind::InvalidValue { .. }) || too_large {
                "out of range".to_owned()
            } else {
                describe(given)
            };
            (
                format!("{} is {shown}, {how}", field(&located.path)),
                spec_help::field(root, &located.path),
            )
        }
        Kind::UnknownVariant { name } => (
            format!(
                "{} is \"{name}\", not a kind of distribution",
                field(&located.path)
            ),
            spec_help::field(root, &located.path),
        ),
        Kind::UnknownField { name } => {
            let valid = spec_help::fields(root, &located.path);
            let owner = if located.path.is_empty() {
                "a spec".to_owned()
            } else {
                field(&located.path)
            };
            let mut statement = format!("{owner} has no field `{name}`");
            if !valid.is_empty() {
                let names: Vec<String> = valid.iter().map(|f| format!("`{f}`")).collect();
                statement.push_str(&format!(
                    "; its fields:\n{}",
                    wrap_list(EXAMPLE_INDENT, &names, MESSAGE_WIDTH)
                ));
            }
            (statement, spec_help::example_of(root, &located.path))
        }
        Kind::MissingField { name } => {
            let owner = if located.path.is_empty() {
                "a spec".to_owned()
            } else {
                field(&located.path)
            };
            let child = join(&located.path, name);
            (
                format!("{owner} needs `{name}`"),
                spec_help::field(root, &child),
            )
        }
    };
    let mut message = format!("{place}:\n{STATEMENT_INDENT}{statement}");
    if let Some(FieldHelp { must_be, examples }) = help {
        if must_be.is_empty() {
            message.push_str(&format!("\n{STATEMENT_INDENT}for example:"));
        } else {
            message.push_str(&format!("\n{STATEMENT_INDENT}it must be {must_be}, e.g."));
        }
        for example in examples {
            message.push_str(&format!("\n{EXAMPLE_INDENT}{example}"));
        }
    }
    Some(message)
}

/// `path.name`, or `name` at the top.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// A field's path as a message names it.
fn field(path: &str) -> String {
    if path.is_empty() {
        "the spec".to_owned()
    } else {
        format!("`{path}`")
    }
}

/// What kind of value serde's `given` is, in a user's words.
fn describe(given: &str) -> String {
    let what = if given.starts_with("floating point") {
        "a number with a fraction"
    } else if given.starts_with("integer") {
        "a whole number"
    } else if given.starts_with("string") {
        "a string"
    } else if given.starts_with("boolean") {
        "a boolean"
    } else if given == "map" {
        "a table"
    } else if given == "sequence" {
        "an array"
    } else {
        given
    };
    format!("{what}, of the wrong type")
}

/// `text` cut to [`MAX_QUOTED`] characters, one line.
fn quote(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_QUOTED {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX_QUOTED).collect();
        format!("{cut}...")
    }
}

/// `line L, column C` of byte `offset` in `text`, both from 1.
fn position(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, tail)| tail)
        .chars()
        .count()
        + 1;
    format!("line {line}, column {column}")
}

/// The deepest field of `root` whose key or value holds `span`. A `[section]`
/// spans its header only, so every field is looked at, not only those
/// inside a span that holds the error's. A span that is a key's is the field
/// the spec does not know: the result is the table that holds it.
fn locate<'a>(root: &'a DeTable<'a>, span: &Range<usize>) -> Located<'a> {
    let mut best = Located {
        path: String::new(),
        value: None,
    };
    let mut depth = 0;
    visit_table(root, "", 1, &mut |path, key_span, value, level| {
        if key_span.as_ref() == Some(span) {
            // The parent of an unknown key; nothing is deeper.
            let parent = path.rsplit_once('.').map_or("", |(parent, _)| parent);
            best.path = parent.to_owned();
            best.value = None;
            depth = usize::MAX;
        } else if holds(&value.span(), span) && level > depth {
            best.path = path.to_owned();
            best.value = Some(value);
            depth = level;
        }
    });
    best
}

/// What [`visit_table`] calls with each value: its path, its key's span
/// (none for an array's item), the value and its depth.
type Visitor<'a, 'f> = dyn FnMut(&str, Option<Range<usize>>, &'a Spanned<DeValue<'a>>, usize) + 'f;

/// Calls `visit` with every value under `table`: its path, its key's span
/// (none for an array's item), the value and its depth.
fn visit_table<'a>(table: &'a DeTable<'a>, path: &str, level: usize, visit: &mut Visitor<'a, '_>) {
    for (key, value) in table.iter() {
        let path = join(path, key.get_ref());
        visit(&path, Some(key.span()), value, level);
        visit_value(value, &path, level, visit);
    }
}

/// The values under `value`, as [`visit_table`].
fn visit_value<'a>(
    value: &'a Spanned<DeValue<'a>>,
    path: &str,
    level: usize,
    visit: &mut Visitor<'a, '_>,
) {
    match value.get_ref() {
        DeValue::Table(inner) => visit_table(inner, path, level + 1, visit),
        DeValue::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let path = format!("{path}[{index}]");
                visit(&path, None, item, level + 1);
                visit_value(item, &path, level + 1, visit);
            }
        }
        _ => {}
    }
}

/// Whether `outer` holds `inner`.
fn holds(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Moves `located` from a table to the value inside it that serde named as
/// `given` (`floating point `5.5``, `map`, ...): what an error inside a
/// distribution needs, since its span is the whole distribution.
fn refine(located: &mut Located<'_>, given: &str) {
    let Some(value) = located.value else { return };
    if !matches!(value.get_ref(), DeValue::Table(_)) {
        return;
    }
    if let Some((path, found)) = find(value, &located.path, given) {
        located.path = path;
        located.value = Some(found);
    }
}

/// The first value under `value` (itself excluded) that serde would call
/// `given`, with its path.
fn find<'a>(
    value: &'a Spanned<DeValue<'a>>,
    path: &str,
    given: &str,
) -> Option<(String, &'a Spanned<DeValue<'a>>)> {
    let children: Vec<(String, &'a Spanned<DeValue<'a>>)> = match value.get_ref() {
        DeValue::Table(table) => table
            .iter()
            .map(|(key, child)| (join(path, key.get_ref()), child))
            .collect(),
        DeValue::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, child)| (format!("{path}[{index}]"), child))
            .collect(),
        _ => return None,
    };
    for (child_path, child) in children {
        if matches_given(child.get_ref(), given) {
            return Some((child_path, child));
        }
        if let Some(found) = find(child, &child_path, given) {
            return Some(found);
        }
    }
    None
}

/// The first key `name` under `value`: the path of the table holding it
/// and the key's span. Where serde read a distribution through its buffer,
/// an unknown key's span is the whole distribution's.
fn find_key(
    value: &Spanned<DeValue<'_>>,
    path: &str,
    name: &str,
) -> Option<(String, Range<usize>)> {
    let mut found = None;
    visit_value(value, path, 0, &mut |child_path, key_span, _, _| {
        if found.is_some() {
            return;
        }
        if let Some(key) = key_span
            && child_path.rsplit('.').next() == Some(name)
        {
            let parent = child_path.rsplit_once('.').map_or("", |(parent, _)| parent);
            found = Some((parent.to_owned(), key));
        }
    });
    found
}

/// Whether serde would describe `value` as `given`.
fn matches_given(value: &DeValue<'_>, given: &str) -> bool {
    let literal = given.split('`').nth(1);
    match value {
        DeValue::Float(float) => {
            literal.is_some_and(|l| float_text(float.as_str()) == float_text(l))
        }
        DeValue::Integer(integer) => {
            given.starts_with("integer")
                && literal.is_some_and(|l| integer.as_str().replace('_', "") == l)
        }
        DeValue::String(text) => given == format!("string {text:?}"),
        DeValue::Boolean(b) => given == format!("boolean `{b}`"),
        DeValue::Array(_) => given == "sequence",
        DeValue::Table(_) => given == "map",
        DeValue::Datetime(_) => false,
    }
}

/// A float's text as a number, so that `1_000.5` matches serde's `1000.5`.
fn float_text(text: &str) -> Option<f64> {
    text.replace('_', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_are_read_by_kind() {
        assert_eq!(
            kind_of("invalid type: floating point `0.5`, expected struct Cancel"),
            Some(Kind::InvalidType {
                given: "floating point `0.5`"
            })
        );
        assert_eq!(
            kind_of("invalid value: integer `-1`, expected u32"),
            Some(Kind::InvalidValue {
                given: "integer `-1`"
            })
        );
        assert_eq!(
            kind_of("unknown field `delya`, expected one of `name`, `description`"),
            Some(Kind::UnknownField { name: "delya" })
        );
        assert_eq!(
            kind_of("unknown variant `gaussian`, expected one of `constant`"),
            Some(Kind::UnknownVariant { name: "gaussian" })
        );
        assert_eq!(
            kind_of("missing field `max`"),
            Some(Kind::MissingField { name: "max" })
        );
        assert_eq!(kind_of("duplicate key"), None);
        assert_eq!(kind_of("string values must be quoted"), None);
    }

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        assert_eq!(position("a = 1\nb = ×x", 0), "line 1, column 1");
        assert_eq!(position("a = 1\nb = ×x", 6), "line 2, column 1");
        assert_eq!(position("a = 1\nb = ×x", 12), "line 2, column 6");
    }

    #[test]
    fn a_span_is_found_in_nested_tables_and_arrays() {
        let text = "a = 1\nb = { c = [ { d = 2.5 } ] }\n";
        let document = DeTable::parse(text).unwrap();
        let at = text.find("2.5").unwrap();
        let located = locate(document.get_ref(), &(at..at + 3));
        assert_eq!(located.path, "b.c[0].d");
        let whole = text.find('{').unwrap();
        let mut located = locate(document.get_ref(), &(whole..text.len() - 1));
        assert_eq!(located.path, "b");
        refine(&mut located, "floating point `2.5`");
        assert_eq!(located.path, "b.c[0].d");
        let key = text.find('a').unwrap();
        assert_eq!(locate(document.get_ref(), &(key..key + 1)).path, "");
    }

    #[test]
    fn long_values_are_cut_to_one_short_line() {
        assert_eq!(quote("{ a = 1,\n b = 2 }"), "{ a = 1, b = 2 }");
        let long = "x".repeat(MAX_QUOTED + 5);
        assert_eq!(quote(&long).chars().count(), MAX_QUOTED + 3);
    }
}
