//! Where a writer that died in the middle of its swap left the set it was
//! replacing, and how to put it back.
//!
//! A set of files reaches a results directory by renames from a staging
//! directory, `.timerbench-<what>-<id>` inside it (the harness's `swap`
//! module). Before the first rename every file it replaces is linked into
//! the staging directory's `previous/`. No sequence of renames is atomic as
//! a whole, so a writer killed between two of them leaves a mix of old and
//! new files, which the reader refuses (their run ids differ); but the old
//! set is whole in `previous/`. This module finds such folders, so that the
//! reader's refusal can say where the intact set is and give the command
//! that restores it, and so that the next writer keeps them rather than
//! removing them with the rest of what a dead writer left.
//!
//! Cost: one listing of the results directory, only when a read has already
//! failed or a writer cleans up.

use std::fs;
use std::path::{Path, PathBuf};

/// What every staging directory's name starts with: `.timerbench-<what>-<id>`,
/// the id ending in `-<process id>`.
pub const STAGING_PREFIX: &str = ".timerbench-";

/// The folder of a staging directory that keeps the targets' previous
/// versions while they are replaced.
pub const PREVIOUS_DIR: &str = "previous";

/// The `previous/` folders in `dir` that hold at least one file: sets of
/// files a writer was replacing when it stopped, by name.
pub fn previous_sets(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with(STAGING_PREFIX)
        })
        .map(|entry| entry.path().join(PREVIOUS_DIR))
        .filter(|previous| holds_a_file(previous))
        .collect();
    found.sort();
    found
}

/// Whether the folder `dir` holds at least one entry.
fn holds_a_file(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// The sentence that says where the set in `previous` (a folder inside
/// `dir`, from [`previous_sets`]) is, and the command that restores it.
pub fn restore_hint(dir: &Path, previous: &Path) -> String {
    let staging = previous.parent().unwrap_or(previous);
    format!(
        "a timerbench writer stopped while swapping its files into {dir}: the set that was \
         there before is whole in {previous}; restore it with `cp -p --remove-destination \
         {previous}/* {dir}/`, remove \
         any run file of {dir} that {previous} lacks (the stopped writer's), then `rm -r \
         {staging}`",
        dir = dir.display(),
        previous = previous.display(),
        staging = staging.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_staging_folders_with_a_previous_file_are_found() {
        let dir = std::env::temp_dir().join(format!("timerbench-previous-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let full = dir.join(".timerbench-run-x-1").join(PREVIOUS_DIR);
        let empty = dir.join(".timerbench-run-y-2").join(PREVIOUS_DIR);
        let other = dir.join("notes").join(PREVIOUS_DIR);
        for folder in [&full, &empty, &other] {
            fs::create_dir_all(folder).unwrap();
        }
        fs::write(full.join("runs.csv"), "old\n").unwrap();
        fs::write(other.join("runs.csv"), "mine\n").unwrap();
        assert_eq!(previous_sets(&dir), std::slice::from_ref(&full));
        let hint = restore_hint(&dir, &full);
        assert!(
            hint.contains(&format!("cp -p --remove-destination {}/*", full.display())),
            "{hint}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
