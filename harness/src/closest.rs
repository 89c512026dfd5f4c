//! The valid names nearest a mistyped one, for errors that list what is
//! valid. A run has some 33 algorithm rows and 18 workloads; printed in
//! registry order on one line, the name a user meant is somewhere in 700
//! columns. So an error puts the names most like the one given first and
//! wraps the list to the terminal ([`unknown_name`]).
//!
//! "Most like" is two keys, in order: a name that contains the given text or
//! is contained in it comes before one that does not (`heap` finds every
//! heap, `binary-heap-2` finds `binary-heap`), then the smaller edit distance
//! ([`edit_distance`], Levenshtein over characters: one insertion, deletion
//! or substitution each). Ties keep the order the names were given in, which
//! is the registry's, so the list stays stable and familiar. The cost is
//! quadratic in the names' lengths, a few thousand steps per name: nothing
//! beside an error.

use crate::wrap::{TERMINAL_WIDTH, wrap};

/// How far the list of valid names is indented under the error's first line.
const LIST_INDENT: &str = "  ";

/// The edit (Levenshtein) distance between `a` and `b`, counted in
/// characters: the fewest insertions, deletions and substitutions that turn
/// one into the other.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // One row of the dynamic-programming table at a time: `row[j]` is the
    // distance between the prefix of `a` read so far and `b[..j]`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// `valid` ordered closest to `given` first: names that contain it or that
/// it contains, then by edit distance; ties keep their order in `valid`.
pub fn closest_first<'a>(given: &str, valid: &[&'a str]) -> Vec<&'a str> {
    let given = given.to_lowercase();
    let mut ranked: Vec<(bool, usize, &'a str)> = valid
        .iter()
        .map(|&name| {
            let lower = name.to_lowercase();
            let overlaps = lower.contains(&given) || given.contains(&lower);
            (!overlaps, edit_distance(&given, &lower), name)
        })
        .collect();
    // A stable sort: equal keys keep the caller's order.
    ranked.sort_by_key(|&(apart, distance, _)| (apart, distance));
    ranked.into_iter().map(|(_, _, name)| name).collect()
}

/// The message for a name that is not one of `valid`: `headline` (what was
/// wrong, e.g. `unknown algorithm "x" in --algorithms`), then `what` (e.g.
/// `valid names`) with the closest first, wrapped to the terminal under the
/// first line.
pub fn unknown_name(headline: &str, what: &str, given: &str, valid: &[&str]) -> String {
    let names: Vec<String> = closest_first(given, valid)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let lines = wrap(LIST_INDENT, &names, ", ", TERMINAL_WIDTH);
    format!(
        "{headline}; {what}, the closest first:\n{}",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("heap", ""), 4);
        assert_eq!(edit_distance("", "heap"), 4);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("binary-heep", "binary-heap"), 1);
        assert_eq!(edit_distance("flaw", "lawn"), 2);
        // Characters, not bytes: one substitution of a two-byte character.
        assert_eq!(edit_distance("a×b", "axb"), 1);
    }

    #[test]
    fn names_that_contain_the_text_come_first_then_the_nearest() {
        let valid = [
            "sorted-list",
            "binary-heap",
            "rounds-wheel",
            "4-ary-heap",
            "std-binary-heap",
            "sweep-wheel",
        ];
        assert_eq!(
            closest_first("binary-heep", &valid)[0],
            "binary-heap",
            "a typo finds its name"
        );
        assert_eq!(
            &closest_first("heap", &valid)[..3],
            ["4-ary-heap", "binary-heap", "std-binary-heap"],
            "every name containing the text, the shortest edit first"
        );
        assert_eq!(closest_first("SWEEP-WHEEL", &valid)[0], "sweep-wheel");
        assert_eq!(closest_first("rounds-wheel-2", &valid)[0], "rounds-wheel");
        // Every name is kept, whatever was given.
        let mut all = closest_first("zzz", &valid);
        all.sort_unstable();
        let mut expected = valid.to_vec();
        expected.sort_unstable();
        assert_eq!(all, expected);
    }

    #[test]
    fn the_message_wraps_the_names_under_its_first_line() {
        let valid: Vec<String> = (0..40).map(|i| format!("algorithm-number-{i}")).collect();
        let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
        let message = unknown_name(
            "unknown algorithm \"algorithm-number-33x\" in --algorithms",
            "valid names",
            "algorithm-number-33x",
            &valid,
        );
        let lines: Vec<&str> = message.lines().collect();
        assert_eq!(
            lines[0],
            "unknown algorithm \"algorithm-number-33x\" in --algorithms; valid names, the closest first:"
        );
        assert!(lines[1].starts_with("  algorithm-number-33, "), "{message}");
        assert!(lines.len() > 3, "{message}");
        assert!(
            lines.iter().all(|l| l.chars().count() <= TERMINAL_WIDTH),
            "{message}"
        );
        assert!(lines[1..].iter().all(|l| l.starts_with(LIST_INDENT)));
    }
}
