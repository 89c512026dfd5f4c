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
use std::io::{self, BufRead, Read};
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

/// Reads a regular text file whole if it has at most `limit` bytes: the
/// checks of [`read_bounded`] for any file argument a command reads whole (a
/// README to update, say), and an error naming the first byte that is not
/// UTF-8.
pub fn read_text_file(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, limit)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (byte {} is not)",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The UTF-8 byte-order mark some editors put at the start of a file.
pub const BOM: &str = "\u{feff}";

/// One line of a text input, as [`next_text_line`] reads it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TextLine<'a> {
    /// The line without its `\n` or `\r\n`, and on the first line without a
    /// byte-order mark (which some editors write).
    Line(&'a [u8]),
    /// The line is longer than [`MAX_TRACE_LINE_BYTES`]: not a text input.
    TooLong,
}

/// Reads the next line of a trace (`--trace` or `--ftrace`) into `raw`,
/// reading at most [`MAX_TRACE_LINE_BYTES`] + 1 bytes of it, so that a file
/// with no line breaks is refused without being read whole. `None` at the
/// end; `first` strips a byte-order mark.
pub(crate) fn next_text_line<'a>(
    reader: &mut impl BufRead,
    raw: &'a mut Vec<u8>,
    first: bool,
) -> io::Result<Option<TextLine<'a>>> {
    raw.clear();
    let read = reader
        .take(MAX_TRACE_LINE_BYTES as u64 + 1)
        .read_until(b'\n', raw)?;
    if read == 0 {
        return Ok(None);
    }
    let content = raw.strip_suffix(b"\n").unwrap_or(raw);
    if content.len() > MAX_TRACE_LINE_BYTES {
        return Ok(Some(TextLine::TooLong));
    }
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    let content = if first {
        content.strip_prefix(BOM.as_bytes()).unwrap_or(content)
    } else {
        content
    };
    Ok(Some(TextLine::Line(content)))
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

    #[test]
    fn text_lines_lose_their_ends_and_the_first_its_mark() {
        let text = format!("{}a,b\r\nc\n\nd", BOM);
        let mut reader = io::BufReader::new(text.as_bytes());
        let mut raw = Vec::new();
        let mut lines = Vec::new();
        let mut first = true;
        while let Some(line) = next_text_line(&mut reader, &mut raw, first).unwrap() {
            lines.push(match line {
                TextLine::Line(bytes) => String::from_utf8(bytes.to_vec()).unwrap(),
                TextLine::TooLong => "too long".to_owned(),
            });
            first = false;
        }
        assert_eq!(lines, ["a,b", "c", "", "d"]);
        let long = vec![b'x'; MAX_TRACE_LINE_BYTES + 1];
        let mut reader = io::BufReader::new(long.as_slice());
        assert_eq!(
            next_text_line(&mut reader, &mut raw, true).unwrap(),
            Some(TextLine::TooLong)
        );
    }
}
