//! Opening the user's input files: specs and traces are read only from regular
//! files, and never without a bound.
//!
//! A FIFO blocks `open` until some other process writes to it, and a device
//! such as `/dev/zero` never ends, so either would hang a run or fill its memory
//! before a single line could be judged. They are refused by their file type,
//! before they are opened. A spec is read whole but at most [`MAX_SPEC_BYTES`];
//! a trace is streamed a line at a time, each line at most
//! [`MAX_TRACE_LINE_BYTES`], and the tape it builds holds at most
//! [`MAX_TAPE_OPS`] operations.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most operations a tape may hold: 10^8 operations of 24 bytes are 2.4 GB.
/// The largest built-in (`scaling-1e7` at large scale) has about 1.2 × 10^7.
pub const MAX_TAPE_OPS: u64 = 100_000_000;

/// The largest spec file read: a spec is a dozen lines, and a megabyte is
/// thousands of them, so anything larger is not a spec.
pub const MAX_SPEC_BYTES: u64 = 1 << 20;

/// The longest line of a trace: an operation's line is under 80 bytes, and
/// comments are rarely longer than a screen; a longer line is most likely a
/// binary file, which would otherwise be held in memory whole.
pub const MAX_TRACE_LINE_BYTES: usize = 4096;

/// Opens `path` for reading if it is a regular file (or a link to one); other
/// kinds are refused with an [`io::ErrorKind::InvalidInput`] error that names
/// the kind and says what to do.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let kind = std::fs::metadata(path)?.file_type();
    if let Some(what) = irregular_kind(&kind) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "it is {what}, not a regular file; inputs are read only from regular files \
                 (a pipe could block forever and a device never end), so save it to a file first"
            ),
        ));
    }
    File::open(path)
}

/// What a file of this type is, in words, if it is not a regular file.
fn irregular_kind(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("neither a file nor a directory")
}

/// Reads a regular file whole if it has at most `limit` bytes; a larger one is
/// refused after reading `limit + 1` bytes of it, whatever its length.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is larger than {limit} bytes, the most this input may have"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("workloads-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_regular_file_is_read_up_to_its_bound() {
        let path = scratch("ten.txt");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap(), b"0123456789");
        let error = read_bounded(&path, 9).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("larger than 9 bytes"), "{error}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn directories_and_devices_are_refused_by_their_kind() {
        let error = open_regular(&std::env::temp_dir()).unwrap_err();
        assert!(
            error.to_string().starts_with("it is a directory"),
            "{error}"
        );
        #[cfg(unix)]
        {
            let error = open_regular(Path::new("/dev/zero")).unwrap_err();
            assert!(error.to_string().starts_with("it is a device"), "{error}");
        }
    }
}
