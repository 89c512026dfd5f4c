//! One writer per output directory: an advisory lock, so that two commands
//! writing the same `--out` at once cannot leave a mix of their files.
//!
//! **The idea.** A writer opens `.timerbench-lock` in the output directory
//! and takes an exclusive `flock` on it without waiting
//! ([`std::fs::File::try_lock`]). The one that gets it writes its process id
//! into the file; one that does not reads that id and refuses at once,
//! before it measures anything, naming the other process. The lock is held
//! until the process ends (the open file lives in a process-wide list), and
//! the kernel lets it go when the process does, however it ends: a SIGKILL
//! leaves no stale lock, only a file that names a process that is gone.
//!
//! **Invariants.** A process takes the lock of a directory once and keeps it
//! until it has written its set ([`release`]; a second `flock` through
//! another open file of the same process would conflict with its own first
//! one, so taking it again is a no-op). The holder removes the file while it
//! still holds the lock, so a finished run leaves nothing behind; a writer
//! that opened the file just before it was removed finds, once it holds the
//! lock, that the path no longer names the file it locked, and starts over,
//! so two writers never hold locks on two different files.
//!
//! **Cost.** One open, one `flock` and one small write per command that
//! writes a directory. Advisory: a process that does not ask (another tool,
//! a `cp`) is not stopped.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Result, bail};

/// The lock file's name in an output directory. It starts with a dot and is
/// not a staging directory's name (`swap::STAGING_PREFIX` followed by a
/// dash and a process id), so nothing cleans it up as abandoned.
pub const LOCK_FILE: &str = ".timerbench-lock";

/// The locks this process holds, by directory, kept open until it ends.
static HELD: Mutex<BTreeMap<PathBuf, File>> = Mutex::new(BTreeMap::new());

/// Takes the lock of the output directory `dir` for `writer` ("a run",
/// "timerbench counts"), or refuses with the process id of the writer that
/// holds it. `dir` must exist.
pub fn lock(dir: &Path, writer: &str) -> Result<()> {
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if held.contains_key(&key) {
        return Ok(());
    }
    let path = dir.join(LOCK_FILE);
    let mut file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
    {
        Ok(file) => file,
        Err(error) => bail!(
            "cannot open the lock file {} ({}), which keeps two writers out of one directory; \
             {writer} cannot write to {}",
            path.display(),
            describe(&error),
            dir.display()
        ),
    };
    match file.try_lock() {
        Ok(()) if !names_file(&path, &file) => {
            // The holder removed the file after this process opened it:
            // lock the one the path names now.
            drop(held);
            return lock(dir, writer);
        }
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            bail!(
                "another timerbench command ({}) is writing into {} now; two writers would mix \
                 their files. Wait for it to end, or write elsewhere (--out)",
                holder_name(&holder),
                dir.display()
            );
        }
        Err(TryLockError::Error(error)) => bail!(
            "cannot lock {} ({error}); {writer} cannot make sure that no other command writes \
             into {} at once",
            path.display(),
            dir.display()
        ),
    }
    // The holder's id, for the message of the next writer that is refused.
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", std::process::id()));
    held.insert(key, file);
    Ok(())
}

/// Lets go of this process's lock of `dir`, removing the lock file first
/// (while it is still held, see the module doc). Nothing happens when this
/// process does not hold it.
pub fn release(dir: &Path) {
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(file) = held.remove(&key) {
        let _ = std::fs::remove_file(dir.join(LOCK_FILE));
        drop(file);
    }
}

/// Lets go of every lock this process holds ([`release`] of each): the end
/// of a command, however it ended short of a signal.
pub fn release_all() {
    let dirs: Vec<PathBuf> = HELD
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .keys()
        .cloned()
        .collect();
    for dir in dirs {
        release(&dir);
    }
}

/// Whether `path` still names the open `file` (the same inode).
#[cfg(unix)]
fn names_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
        _ => false,
    }
}

/// Off Unix the file is taken to be the one named.
#[cfg(not(unix))]
fn names_file(_path: &Path, _file: &File) -> bool {
    true
}

/// The holder as a refusal names it, from the lock file's text.
fn holder_name(text: &str) -> String {
    match text.trim().parse::<u32>() {
        Ok(pid) => format!("process {pid}"),
        Err(_) => "a process that has not yet written its id".to_owned(),
    }
}

/// An I/O error in words, naming a read-only filesystem as such.
pub fn describe(error: &std::io::Error) -> String {
    if error.kind() == ErrorKind::ReadOnlyFilesystem {
        "the filesystem is read-only".to_owned()
    } else {
        error.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_filesystem_is_named_as_such() {
        let error = std::io::Error::from(ErrorKind::ReadOnlyFilesystem);
        assert_eq!(describe(&error), "the filesystem is read-only");
        let other = std::io::Error::from(ErrorKind::PermissionDenied);
        assert_eq!(describe(&other), other.to_string());
    }

    #[test]
    fn the_holder_is_named_by_its_process_id() {
        assert_eq!(holder_name("4242\n"), "process 4242");
        assert_eq!(holder_name(""), "a process that has not yet written its id");
    }

    #[test]
    fn a_second_lock_of_this_process_is_a_no_op_and_another_open_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("timerbench-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        lock(&dir, "a test").unwrap();
        lock(&dir, "a test").unwrap();
        // Another open file of the lock stands for another process: flock
        // locks belong to the open file.
        let other = File::open(dir.join(LOCK_FILE)).unwrap();
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        let text = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert_eq!(text.trim(), std::process::id().to_string());
        // Released, the file is gone and another open file can lock anew.
        release(&dir);
        assert!(!dir.join(LOCK_FILE).exists());
        drop(other);
        lock(&dir, "a test").unwrap();
        release(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
