//! A set of files swapped into a directory whole, or not at all: how a run's
//! files, `timerbench counts`' and `timerbench compare --save`'s reach disk.
//!
//! 1. **Checks first.** Every target that exists must be a file
//!    ([`check_targets`]): a directory where a file goes would otherwise fail
//!    the swap after the work was done. The caller checks free space
//!    ([`check_free_space`]) before measuring anything.
//! 2. **Staging.** Every file is written completely into a fresh staging
//!    directory inside the output directory, `.timerbench-<what>-<id>`, where
//!    the id ends in the writer's process id; each is flushed and synced. The
//!    staging directory is on the same filesystem as the targets, so that each
//!    move below is a rename, never a copy. A write that fails (a full disk)
//!    removes the staging directory and leaves the output directory as it was.
//! 3. **Preserving.** Before the first rename, every target that exists (and
//!    every file the new set makes stale) is hard-linked (or, where links are
//!    not possible, copied) into `previous/` inside the staging directory.
//! 4. **Swapping.** Each staged file is renamed over its target, then the
//!    stale files are removed. If any step fails, the steps already done are
//!    undone from `previous/`, so the old set is back exactly, and the error
//!    says so.
//! 5. **Cleaning up.** The staging directory is removed, on success and on
//!    every failure; nothing is left behind. (The one exception: when undoing
//!    fails too, `previous/` holds the only copy of an old file, and the error
//!    says where.)
//!
//! A process killed between two renames can still leave a mix of old and new
//! files: no sequence of renames is atomic as a whole. The run id in every
//! file (`results/README.md`) lets every reader refuse such a mix, and the
//! refusal says where the intact previous set is (the staging directory's
//! `previous/`) and how to restore it (`schema::interrupted`). The next
//! command that writes into the directory removes what the killed process
//! left ([`remove_abandoned`]), except a `previous/` with files in it, which
//! it keeps and names.
//!
//! The rename is a parameter of [`write_set`], so that a test can make any one
//! of them fail (`output.rs` makes the second of a run's fail).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

pub use schema::{PREVIOUS_DIR, STAGING_PREFIX};

/// How many times the estimated size of what is written the filesystem must
/// have free: room for the staged files and the previous ones they replace,
/// which both exist until the swap ends.
pub const SPACE_MARGIN: u64 = 2;

/// Bytes in a MiB, for messages.
const MIB: f64 = 1024.0 * 1024.0;

/// What [`write_set`] did.
#[derive(Debug, Default)]
pub struct Swapped {
    /// The files written, in place.
    pub written: Vec<PathBuf>,
    /// The stale files removed.
    pub removed: Vec<PathBuf>,
}

/// A set of files for [`write_set`].
pub struct FileSet<'a> {
    /// The output directory.
    pub dir: &'a Path,
    /// The staging directory's name inside it (see [`staging_name`]).
    pub staging: String,
    /// The files the set holds, by name: every one of them is staged.
    pub files: &'a [&'a str],
    /// Files of `dir` the new set makes stale, removed as part of the swap.
    pub stale: &'a [&'a str],
    /// Who writes the set, for messages: "a run", "timerbench counts".
    pub writer: &'a str,
}

/// The name of a staging directory for `what` (`run`, `counts`, `compare`)
/// with `id`, which must end in `-<process id>`.
pub fn staging_name(what: &str, id: &str) -> String {
    format!("{STAGING_PREFIX}{what}-{id}")
}

/// The process id a staging directory's name ends in, if it is one.
fn staging_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(STAGING_PREFIX)?;
    let (_, pid) = rest.rsplit_once('-')?;
    pid.parse().ok()
}

/// What the scratch directory of `timerbench counts` (its tapes, callgrind's
/// files while they are read) is called in its output directory, followed by
/// the process id.
pub const COUNTS_SCRATCH_PREFIX: &str = ".counts-";

/// The process id a `counts` scratch directory's name ends in, if it is one.
fn counts_scratch_pid(name: &str) -> Option<u32> {
    name.strip_prefix(COUNTS_SCRATCH_PREFIX)?.parse().ok()
}

/// The process id of a temporary file `.<target>.tmp-<pid>` that timerbench
/// wrote before staging directories, for a target among `targets`.
fn legacy_temp_pid(name: &str, targets: &[&str]) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (target, pid) = rest.rsplit_once(".tmp-")?;
    if !targets.contains(&target) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` is known to be gone. Only Linux can tell (by
/// `/proc/<pid>`); elsewhere, and where `/proc` is not mounted, every process
/// is taken to be alive, so that nothing of a live writer is removed.
fn process_gone(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    if cfg!(target_os = "linux") {
        let proc = Path::new("/proc");
        proc.join("self").exists() && !proc.join(pid.to_string()).exists()
    } else {
        false
    }
}

/// Removes what timerbench processes that are gone left in `dir`: staging
/// directories, `timerbench counts`' scratch directories, and the temporary files (`.<target>.tmp-<pid>`, for a name of
/// `targets`) that versions before staging directories left. Returns one
/// sentence per thing removed or that could not be removed, for the caller to
/// print.
pub fn remove_abandoned(dir: &Path, targets: &[&str]) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut notes = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let Ok(metadata) = fs::symlink_metadata(&path) else {
            continue;
        };
        let pid = if metadata.is_dir() {
            staging_pid(&name).or_else(|| counts_scratch_pid(&name))
        } else if metadata.is_file() {
            legacy_temp_pid(&name, targets)
        } else {
            None
        };
        let Some(pid) = pid.filter(|&pid| process_gone(pid)) else {
            continue;
        };
        // A writer that died in the middle of its swap left the set it was
        // replacing whole in `previous/`: perhaps the only intact one, so it
        // is kept, and the note says how to restore it.
        let previous = path.join(PREVIOUS_DIR);
        if metadata.is_dir() && schema::previous_sets(dir).contains(&previous) {
            notes.push(format!(
                "kept {}, left by a timerbench process ({pid}) that ended while swapping its \
                 files in: {}",
                path.display(),
                schema::restore_hint(dir, &previous)
            ));
            continue;
        }
        let removed = if metadata.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        notes.push(match removed {
            Ok(()) => format!(
                "removed {}, left by a timerbench process ({pid}) that ended before it finished writing",
                path.display()
            ),
            Err(error) => format!(
                "cannot remove {}, left by a timerbench process ({pid}) that is gone: {error}",
                path.display()
            ),
        });
    }
    notes
}

/// Checks that every name of `names` in `dir` is absent or a file (or a
/// symbolic link, which the swap replaces): the swap replaces each, and
/// cannot replace a directory.
pub fn check_targets(dir: &Path, names: &[&str], writer: &str) -> Result<()> {
    for name in names {
        let path = dir.join(name);
        let metadata = match fs::symlink_metadata(&path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == ErrorKind::NotFound => continue,
            Err(error) => bail!("cannot look at {}: {error}", path.display()),
        };
        let kind = metadata.file_type();
        if kind.is_dir() {
            bail!(
                "{} is a directory; {writer} writes a file there; move it away",
                path.display()
            );
        }
        if !kind.is_file() && !kind.is_symlink() {
            bail!(
                "{} is not a regular file (a pipe, socket or device); {writer} writes a file \
                 there; move it away",
                path.display()
            );
        }
    }
    Ok(())
}

/// `bytes` in MiB, for messages.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB)
}

/// Refuses to go on when the filesystem of `dir` has less than
/// [`SPACE_MARGIN`] times `estimate` bytes free (`how` says how the estimate
/// was made). Skipped where free space cannot be read.
pub fn check_free_space(dir: &Path, estimate: u64, how: &str) -> Result<()> {
    match free_bytes(dir) {
        Some(free) => enough_space(dir, estimate, free, how),
        None => Ok(()),
    }
}

/// [`check_free_space`] with the free space given.
fn enough_space(dir: &Path, estimate: u64, free: u64, how: &str) -> Result<()> {
    let needed = estimate.saturating_mul(SPACE_MARGIN);
    if free < needed {
        // Where MiB with one decimal would print the two alike, bytes.
        let (needed_text, free_text) = if mib(needed) == mib(free) {
            (format!("{needed} bytes"), format!("{free} bytes"))
        } else {
            (mib(needed), mib(free))
        };
        bail!(
            "not enough free disk space for {}: the files will take about {} ({how}), and the \
             filesystem needs {SPACE_MARGIN} times that free, {needed_text}, but has \
             {free_text}; free some space, write elsewhere (--out) or choose fewer algorithms, \
             workloads or repetitions",
            dir.display(),
            mib(estimate),
        );
    }
    Ok(())
}

/// The bytes an unprivileged user may still write on the filesystem of `dir`
/// (`statvfs`'s `f_bavail` blocks of `f_frsize` bytes); `None` when it
/// cannot be read.
#[cfg(unix)]
#[allow(unsafe_code, clippy::unnecessary_cast)]
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and
    // `stats` points to memory for one `statvfs`, which the call fills when it
    // returns 0; it is read only then.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    // The field types differ between platforms (32 or 64 bits).
    Some((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// Free space is not checked off Unix.
#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// Writes `set`: checks its targets, calls `stage` with the staging directory
/// (it must write every file of `set.files` there, with [`write_synced`] or
/// [`write_csv`]), then swaps them in with `rename` (`fs::rename`, but for
/// tests) and removes the stale files. On any failure the directory holds
/// what it held before, and the error says so.
pub fn write_set(
    set: &FileSet<'_>,
    stage: impl FnOnce(&Path) -> Result<()>,
    rename: impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<Swapped> {
    let dir = set.dir;
    let every: Vec<&str> = set.files.iter().chain(set.stale).copied().collect();
    check_targets(dir, &every, set.writer)?;
    crate::dir_lock::lock(dir, set.writer)?;
    let written = write_locked(set, stage, rename);
    crate::dir_lock::release(dir);
    written
}

/// [`write_set`] once the directory's lock is held.
fn write_locked(
    set: &FileSet<'_>,
    stage: impl FnOnce(&Path) -> Result<()>,
    rename: impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<Swapped> {
    let dir = set.dir;
    let staging = dir.join(&set.staging);
    fs::create_dir(&staging).map_err(|error| {
        let why = if error.kind() == ErrorKind::AlreadyExists {
            "a directory of that name is there: another writer of the same process id is under \
             way"
            .to_owned()
        } else {
            crate::dir_lock::describe(&error)
        };
        anyhow::anyhow!(
            "cannot create the staging directory {} ({why}); nothing was written",
            staging.display()
        )
    })?;
    if let Err(error) = stage(&staging) {
        fs::remove_dir_all(&staging).ok();
        return Err(error.context(format!(
            "nothing was written to {}; the previous files are unchanged",
            dir.display()
        )));
    }
    match swap(dir, &staging, set, rename) {
        Ok(swapped) => {
            fs::remove_dir_all(&staging).ok();
            sync_dir(dir);
            Ok(swapped)
        }
        Err(Failure {
            error,
            restored: true,
        }) => {
            fs::remove_dir_all(&staging).ok();
            Err(error)
        }
        // The previous versions of some files are only in the staging
        // directory now: it stays, and the error says where.
        Err(Failure { error, .. }) => Err(error),
    }
}

/// Why a swap failed, and whether the previous files are all back.
struct Failure {
    error: anyhow::Error,
    restored: bool,
}

/// Steps 3 and 4 of the module doc: preserves every target, renames each
/// staged file into place and removes the stale ones, undoing everything on
/// the first failure.
fn swap(
    dir: &Path,
    staging: &Path,
    set: &FileSet<'_>,
    mut rename: impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<Swapped, Failure> {
    let unchanged = |error: anyhow::Error| Failure {
        error: error.context(format!(
            "nothing was moved into {}; the previous files are unchanged",
            dir.display()
        )),
        restored: true,
    };
    let previous = staging.join(PREVIOUS_DIR);
    fs::create_dir(&previous)
        .with_context(|| format!("cannot create {}", previous.display()))
        .map_err(unchanged)?;
    // Which names had a previous version, kept in `previous/`.
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    for name in set.files.iter().chain(set.stale) {
        let target = dir.join(name);
        if fs::symlink_metadata(&target).is_err() {
            continue;
        }
        preserve(&target, &previous.join(name))
            .with_context(|| format!("cannot keep a copy of {} to restore", target.display()))
            .map_err(unchanged)?;
        kept.insert(name);
    }
    // The names whose target has been replaced or removed, in order.
    let mut done: Vec<&str> = Vec::new();
    let mut swapped = Swapped::default();
    let mut failure = None;
    for name in set.files {
        let (from, to) = (staging.join(name), dir.join(name));
        if let Err(error) = rename(&from, &to) {
            failure = Some(format!(
                "cannot move {} into place as {}: {error}",
                from.display(),
                to.display()
            ));
            break;
        }
        done.push(name);
        swapped.written.push(to);
    }
    if failure.is_none() {
        for name in set.stale.iter().filter(|name| kept.contains(*name)) {
            let target = dir.join(name);
            if let Err(error) = fs::remove_file(&target) {
                failure = Some(format!(
                    "cannot remove {}, which the new files make stale: {error}",
                    target.display()
                ));
                break;
            }
            done.push(name);
            swapped.removed.push(target);
        }
    }
    let Some(failure) = failure else {
        return Ok(swapped);
    };
    let lost = undo(dir, &previous, &done, &kept, &mut rename);
    if lost.is_empty() {
        return Err(Failure {
            error: anyhow::anyhow!(
                "{failure}; the files already moved were put back: the previous files in {} are \
                 unchanged",
                dir.display()
            ),
            restored: true,
        });
    }
    Err(Failure {
        error: anyhow::anyhow!(
            "{failure}; and undoing the files already moved failed ({}): the previous versions \
             are in {}; move them back into {} by hand before running timerbench there again",
            lost.join("; "),
            previous.display(),
            dir.display()
        ),
        restored: false,
    })
}

/// Undoes the steps of `done`, last first: a name with a previous version in
/// `previous` gets it back, a new one is removed. Returns what could not be
/// undone.
fn undo(
    dir: &Path,
    previous: &Path,
    done: &[&str],
    kept: &BTreeSet<&str>,
    rename: &mut impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Vec<String> {
    let mut lost = Vec::new();
    for name in done.iter().rev() {
        let target = dir.join(name);
        let result = if kept.contains(name) {
            rename(&previous.join(name), &target)
        } else {
            fs::remove_file(&target)
        };
        if let Err(error) = result {
            lost.push(format!("{}: {error}", target.display()));
        }
    }
    lost
}

/// Keeps `target`'s contents at `copy`: a hard link (no data copied, and the
/// same file comes back), or a copy where the filesystem has no links.
fn preserve(target: &Path, copy: &Path) -> io::Result<()> {
    match fs::hard_link(target, copy) {
        Ok(()) => Ok(()),
        Err(_) => fs::copy(target, copy).map(|_| ()),
    }
}

/// Makes the renames in `dir` durable where the platform allows (a directory
/// opened for reading and synced: Linux and most Unixes); best effort, since
/// the files are in place either way.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        handle.sync_all().ok();
    }
}

/// Writes `bytes` to the new file `path` and syncs it to disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let write = || -> io::Result<()> {
        let mut file = File::create_new(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    write().with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `rows` as CSV (a header from the first row's field names) to the
/// new file `path` and syncs it to disk.
pub fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let context = || format!("cannot write {}", path.display());
    let file = File::create_new(path).with_context(context)?;
    let mut writer = csv::Writer::from_writer(file);
    for row in rows {
        writer.serialize(row).with_context(context)?;
    }
    let file = writer
        .into_inner()
        .map_err(csv::IntoInnerError::into_error)
        .with_context(context)?;
    file.sync_all().with_context(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory removed when the test ends.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("timerbench-swap-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const FILES: [&str; 3] = ["runs.csv", "latency.csv", "metadata.json"];
    const STALE: [&str; 1] = ["comparison.csv"];

    /// An output directory as a user has it: a previous set without
    /// `metadata.json`, a stale comparison, and files of no set.
    fn previous_set(dir: &Path) {
        for (name, text) in [
            ("runs.csv", "old runs\n"),
            ("latency.csv", "old latency\n"),
            ("comparison.csv", "old comparison\n"),
            ("README.md", "notes\n"),
            ("counts.csv", "counts\n"),
        ] {
            fs::write(dir.join(name), text).unwrap();
        }
    }

    /// Every file of `dir` but the writers' lock, and its contents, sorted
    /// by name.
    fn contents(dir: &Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = fs::read_dir(dir)
            .unwrap()
            .filter(|entry| entry.as_ref().unwrap().file_name() != crate::dir_lock::LOCK_FILE)
            .map(|entry| {
                let entry = entry.unwrap();
                let text = fs::read_to_string(entry.path()).unwrap_or_else(|_| "<dir>".into());
                (entry.file_name().to_string_lossy().into_owned(), text)
            })
            .collect();
        files.sort();
        files
    }

    fn set(dir: &Path) -> FileSet<'_> {
        FileSet {
            dir,
            staging: staging_name("run", &format!("test-{}", std::process::id())),
            files: &FILES,
            stale: &STALE,
            writer: "a run",
        }
    }

    fn stage_new(staging: &Path) -> Result<()> {
        for name in FILES {
            write_synced(&staging.join(name), format!("new {name}\n").as_bytes())?;
        }
        Ok(())
    }

    #[test]
    fn a_set_is_swapped_in_whole_and_its_stale_file_removed() {
        let scratch = Scratch::new("whole");
        previous_set(&scratch.0);
        let swapped = write_set(&set(&scratch.0), stage_new, |a, b| fs::rename(a, b)).unwrap();
        assert_eq!(swapped.written.len(), 3);
        assert_eq!(swapped.removed, [scratch.0.join("comparison.csv")]);
        let expected: Vec<(String, String)> = [
            ("README.md", "notes\n"),
            ("counts.csv", "counts\n"),
            ("latency.csv", "new latency.csv\n"),
            ("metadata.json", "new metadata.json\n"),
            ("runs.csv", "new runs.csv\n"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(contents(&scratch.0), expected, "no staging directory left");
    }

    #[test]
    fn a_failed_undo_keeps_the_previous_versions_and_says_where() {
        let scratch = Scratch::new("undo");
        previous_set(&scratch.0);
        let mut calls = 0;
        let error = write_set(&set(&scratch.0), stage_new, |from, to| {
            calls += 1;
            if calls >= 2 {
                return Err(io::Error::other("simulated failure"));
            }
            fs::rename(from, to)
        })
        .unwrap_err();
        let message = format!("{error:#}");
        let previous = scratch.0.join(set(&scratch.0).staging).join(PREVIOUS_DIR);
        assert!(
            message.contains(&previous.display().to_string()),
            "{message}"
        );
        assert_eq!(
            fs::read_to_string(previous.join("runs.csv")).unwrap(),
            "old runs\n"
        );
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let scratch = Scratch::new("full");
        previous_set(&scratch.0);
        let before = contents(&scratch.0);
        let error = write_set(
            &set(&scratch.0),
            |staging| {
                write_synced(&staging.join("runs.csv"), b"new\n")?;
                bail!("No space left on device (simulated)")
            },
            |a, b| fs::rename(a, b),
        )
        .unwrap_err();
        assert!(
            format!("{error:#}").contains("nothing was written"),
            "{error:#}"
        );
        assert_eq!(contents(&scratch.0), before);
    }

    #[test]
    fn a_directory_where_a_file_goes_is_refused_before_anything_is_written() {
        let scratch = Scratch::new("dir-target");
        previous_set(&scratch.0);
        fs::remove_file(scratch.0.join("latency.csv")).unwrap();
        fs::create_dir(scratch.0.join("latency.csv")).unwrap();
        let before = contents(&scratch.0);
        let mut staged = false;
        let error = write_set(
            &set(&scratch.0),
            |_| {
                staged = true;
                Ok(())
            },
            |a, b| fs::rename(a, b),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.ends_with("latency.csv is a directory; a run writes a file there; move it away"),
            "{error}"
        );
        assert!(!staged);
        assert_eq!(contents(&scratch.0), before);
    }

    #[test]
    fn abandoned_staging_is_removed_only_for_a_process_that_is_gone() {
        let scratch = Scratch::new("abandoned");
        // A process that has ended: its id is free (until reused).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let mine = std::process::id();
        for name in [
            staging_name("run", &format!("20260101T000000Z-{gone}")),
            staging_name("run", &format!("20260101T000000Z-{mine}")),
            format!("{COUNTS_SCRATCH_PREFIX}{gone}"),
            "report".to_owned(),
        ] {
            fs::create_dir(scratch.0.join(name)).unwrap();
        }
        fs::write(scratch.0.join(format!(".runs.csv.tmp-{gone}")), "").unwrap();
        fs::write(scratch.0.join(format!(".notes.tmp-{gone}")), "").unwrap();
        let notes = remove_abandoned(&scratch.0, &FILES);
        let left: Vec<String> = contents(&scratch.0).into_iter().map(|(n, _)| n).collect();
        if cfg!(target_os = "linux") {
            assert_eq!(notes.len(), 3, "{notes:?}");
            assert!(notes[0].contains(&format!("({gone})")), "{notes:?}");
            let mut expected = vec![
                format!(".notes.tmp-{gone}"),
                staging_name("run", &format!("20260101T000000Z-{mine}")),
                "report".to_owned(),
            ];
            expected.sort();
            assert_eq!(left, expected);
        } else {
            assert!(notes.is_empty());
        }
    }

    #[test]
    fn names_give_their_process() {
        assert_eq!(
            staging_pid(".timerbench-run-20261125T130501Z-12345"),
            Some(12345)
        );
        assert_eq!(staging_pid(".timerbench-counts-77"), Some(77));
        assert_eq!(staging_pid(".timerbench-run-x"), None);
        assert_eq!(staging_pid(".report.tmp-12"), None);
        assert_eq!(counts_scratch_pid(".counts-4321"), Some(4321));
        assert_eq!(counts_scratch_pid(".counts-x"), None);
        assert_eq!(legacy_temp_pid(".runs.csv.tmp-42", &FILES), Some(42));
        assert_eq!(legacy_temp_pid(".other.csv.tmp-42", &FILES), None);
        assert_eq!(legacy_temp_pid(".runs.csv.tmp-x", &FILES), None);
    }

    #[test]
    fn space_is_refused_below_twice_the_estimate() {
        let dir = Path::new("results");
        assert!(enough_space(dir, 100 << 20, 200 << 20, "an estimate").is_ok());
        let error = enough_space(dir, 100 << 20, (200 << 20) - 1, "3 cells of 10 rows")
            .unwrap_err()
            .to_string();
        // One byte short: in MiB the two would read alike, so bytes.
        for fragment in [
            "results",
            "100.0 MiB",
            "209715200 bytes",
            "209715199 bytes",
            "3 cells of 10 rows",
        ] {
            assert!(error.contains(fragment), "{fragment}: {error}");
        }
        let error = enough_space(dir, 100 << 20, 100 << 20, "")
            .unwrap_err()
            .to_string();
        assert!(error.contains("200.0 MiB, but has 100.0 MiB"), "{error}");
        assert!(
            enough_space(dir, u64::MAX, u64::MAX - 1, "").is_err(),
            "no overflow"
        );
    }

    #[cfg(unix)]
    #[test]
    fn free_space_is_read_on_unix() {
        assert!(free_bytes(&std::env::temp_dir()).is_some_and(|free| free > 0));
        assert_eq!(free_bytes(Path::new("/no/such/directory")), None);
    }

    /// A run's whole file set, as `fixture` writes it.
    const RUN_SET: [&str; 5] = [
        schema::METADATA_FILE,
        schema::RUNS_FILE,
        schema::THROUGHPUT_FILE,
        schema::REPETITIONS_FILE,
        schema::LATENCY_FILE,
    ];

    /// A recorded run of id `run_id` written into `dir`.
    fn recorded(dir: &Path, run_id: &str, ns: f64) {
        let mut run = crate::fixture::Run::of(vec![crate::fixture::Cell {
            algorithm: "heap",
            workload: "w",
            ns: vec![ns; 6],
        }]);
        run.run_id = run_id;
        run.write(dir);
    }

    #[test]
    fn a_writer_killed_at_any_point_of_its_swap_leaves_a_set_or_a_restoring_message() {
        let scratch = Scratch::new("killed");
        let new_set = scratch.0.join("new-set");
        recorded(&new_set, "new-run-1", 20.0);
        // Killed before the k-th rename, for every k: before the first, between
        // each two, and after the last but before the staging is removed.
        for killed_before in 0..=RUN_SET.len() {
            let dir = scratch.0.join(format!("out-{killed_before}"));
            recorded(&dir, "old-run-1", 10.0);
            let set = FileSet {
                dir: &dir,
                staging: staging_name("run", &format!("killed-{killed_before}-{}", u32::MAX)),
                files: &RUN_SET,
                stale: &[],
                writer: "a run",
            };
            let mut renames = 0;
            // A panic stands for the kill: it leaves the swap where it was,
            // with nothing undone and nothing cleaned up.
            let killed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let stage = |staging: &Path| -> Result<()> {
                    for name in RUN_SET {
                        fs::copy(new_set.join(name), staging.join(name))?;
                    }
                    Ok(())
                };
                write_set(&set, stage, |from, to| {
                    if renames == killed_before {
                        panic!("killed");
                    }
                    renames += 1;
                    fs::rename(from, to)
                })
            }));
            if killed_before < RUN_SET.len() {
                assert!(killed.is_err(), "killed before rename {killed_before}");
            }
            let read = schema::RunFiles::read(&dir);
            match (killed_before, read) {
                // Nothing moved yet: the old set, whole.
                (0, Ok(files)) => {
                    assert_eq!(files.metadata.run_id.as_deref(), Some("old-run-1"));
                }
                // Every file moved: the new set, whole.
                (n, Ok(files)) if n == RUN_SET.len() => {
                    assert_eq!(files.metadata.run_id.as_deref(), Some("new-run-1"));
                }
                (n, Ok(files)) => panic!(
                    "killed before rename {n}: a mix was read as run {:?}",
                    files.metadata.run_id
                ),
                // A mix: refused, with where the old set is and how to put
                // it back; doing what it says gives the old set.
                (n, Err(error)) => {
                    let message = error.to_string();
                    assert!(n > 0 && n < RUN_SET.len(), "killed before {n}: {message}");
                    assert!(message.contains("restore it with `cp -p"), "{message}");
                    let previous = schema::previous_sets(&dir);
                    assert_eq!(previous.len(), 1, "{message}");
                    // As `cp -p --remove-destination` does: a file not yet
                    // replaced is the same file as its copy in `previous/`.
                    for name in RUN_SET {
                        fs::remove_file(dir.join(name)).unwrap();
                        fs::copy(previous[0].join(name), dir.join(name)).unwrap();
                    }
                    fs::remove_dir_all(previous[0].parent().unwrap()).unwrap();
                    let restored = schema::RunFiles::read(&dir).expect("the restored set");
                    assert_eq!(restored.metadata.run_id.as_deref(), Some("old-run-1"));
                }
            }
        }
    }
}
