//! The rule that keeps runs apart: every row of a run's files ends with the
//! run's id, and `metadata.json` carries it, so a directory whose files name
//! different runs (a run interrupted between two of its renames, a file
//! copied from another run, a `comparison.csv` left from an earlier run) is
//! refused rather than read as one.
//!
//! Files made before run ids have none; a set in which no file has one is
//! accepted (it cannot be checked), a set in which some have one and some
//! none is not. A file without rows names no run: it tells nothing of its
//! run.

use std::collections::BTreeSet;

/// `None` when the files (each a name and the run ids its rows name, the
/// empty string for "none") all name one run, or none; otherwise which file
/// names which, for the refusal.
pub fn mixed_runs(files: &[(&str, BTreeSet<String>)]) -> Option<String> {
    let every: BTreeSet<&String> = files.iter().flat_map(|(_, ids)| ids).collect();
    if every.len() <= 1 {
        return None;
    }
    let named = |id: &String| {
        if id.is_empty() {
            "no run id".to_owned()
        } else {
            format!("run id {id}")
        }
    };
    let which: Vec<String> = files
        .iter()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(name, ids)| {
            let ids: Vec<String> = ids.iter().map(named).collect();
            format!("{name} has {}", ids.join(" and "))
        })
        .collect();
    Some(which.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn one_run_or_none_is_accepted() {
        assert_eq!(
            mixed_runs(&[
                ("metadata.json", ids(&["a"])),
                ("runs.csv", ids(&["a"])),
                ("contract_cost.csv", ids(&[])),
            ]),
            None,
            "a file without rows says nothing"
        );
        assert_eq!(
            mixed_runs(&[("metadata.json", ids(&[""])), ("runs.csv", ids(&[""]))]),
            None,
            "files made before run ids"
        );
    }

    #[test]
    fn files_of_different_runs_are_named_with_their_ids() {
        let mixed = [
            ("metadata.json", ids(&["a"])),
            ("runs.csv", ids(&["b"])),
            ("latency.csv", ids(&[""])),
            ("throughput.csv", ids(&["a", "b"])),
            ("contract_cost.csv", ids(&[])),
        ];
        assert_eq!(
            mixed_runs(&mixed).as_deref(),
            Some(
                "metadata.json has run id a; runs.csv has run id b; latency.csv has no run id; \
                 throughput.csv has run id a and run id b"
            )
        );
    }
}
