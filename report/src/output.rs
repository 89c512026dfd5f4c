//! Writing the report directory whole or not at all: every file goes into a
//! fresh temporary directory beside the target, which then replaces the old
//! report by renames, the way the harness writes its results
//! (`harness/src/swap.rs`). A failure leaves the previous report untouched
//! and removes the temporary directory.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Writes `files` (name, contents) as the directory `target`, replacing it.
pub fn write_dir(target: &Path, files: &[(String, String)]) -> Result<()> {
    let parent = target.parent().unwrap_or_else(|| Path::new("."));
    let name = target
        .file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let staging = sibling(parent, &name, "tmp");
    let result = stage(&staging, files).and_then(|()| swap_in(&staging, target, parent, &name));
    if result.is_err() {
        fs::remove_dir_all(&staging).ok();
    }
    result
}

/// A hidden sibling name unique to this process, e.g. `.report.tmp-1234`.
fn sibling(parent: &Path, name: &str, purpose: &str) -> PathBuf {
    parent.join(format!(".{name}.{purpose}-{}", std::process::id()))
}

fn stage(staging: &Path, files: &[(String, String)]) -> Result<()> {
    fs::remove_dir_all(staging).ok();
    fs::create_dir_all(staging).with_context(|| format!("cannot create {}", staging.display()))?;
    for (file, contents) in files {
        let path = staging.join(file);
        fs::write(&path, contents).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Moves the old report aside, the new one into place, and deletes the old.
fn swap_in(staging: &Path, target: &Path, parent: &Path, name: &str) -> Result<()> {
    let old = sibling(parent, name, "old");
    let had_old = target.exists();
    if had_old {
        fs::rename(target, &old)
            .with_context(|| format!("cannot move the old {} aside", target.display()))?;
    }
    if let Err(error) = fs::rename(staging, target) {
        if had_old {
            // Put the previous report back, so that a failure changes nothing.
            fs::rename(&old, target).ok();
        }
        return Err(error)
            .with_context(|| format!("cannot move the report into {}", target.display()));
    }
    if had_old {
        fs::remove_dir_all(&old).ok();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_directory_whole() {
        let base =
            std::env::temp_dir().join(format!("timerbench-report-output-{}", std::process::id()));
        fs::remove_dir_all(&base).ok();
        fs::create_dir_all(&base).unwrap();
        let target = base.join("report");
        write_dir(
            &target,
            &[
                ("a.txt".into(), "one".into()),
                ("b.txt".into(), "two".into()),
            ],
        )
        .unwrap();
        write_dir(&target, &[("a.txt".into(), "three".into())]).unwrap();
        assert_eq!(fs::read_to_string(target.join("a.txt")).unwrap(), "three");
        assert!(
            !target.join("b.txt").exists(),
            "the old report is replaced, not merged"
        );
        let names: Vec<_> = fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report"], "no temporary directory is left");
        fs::remove_dir_all(&base).ok();
    }
}
