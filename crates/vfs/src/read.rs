//! Reading one source file safely: no symlinks, no FIFOs or devices, a size cap, NUL detection,
//! minified detection, lossy UTF-8 decoding, and the git blob id of the bytes.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::skip::SkipReason;

/// A file's text, ready for extraction.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// UTF-8 text; invalid sequences replaced with U+FFFD.
    pub text: String,
    /// The git blob id (sha1 hex) of the bytes as stored on disk.
    pub hash: String,
    /// Bytes on disk.
    pub size: u64,
    /// Some bytes were not valid UTF-8 and were replaced.
    pub lossy: bool,
    /// The stat of the file read, taken before reading (`None` for texts not read from disk).
    pub stat: Option<crate::FileStat>,
}

/// Why a file could not be read as source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub reason: SkipReason,
    pub detail: String,
}

/// The git blob id of some bytes: sha1 over `blob <len>\0<bytes>`.
pub fn blob_id(bytes: &[u8]) -> String {
    use sha1::Digest as _;
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(40);
    for b in hasher.finalize() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Reads a file for indexing, applying the skip rules.
///
/// `max_size` caps the bytes read; `max_line` is the longest line allowed before the file is
/// considered minified; files whose average line is longer than `max_avg_line` are minified too.
pub fn read_source(
    path: &Path,
    max_size: u64,
    max_line: usize,
    max_avg_line: usize,
) -> Result<SourceFile, ReadError> {
    let unreadable = |e: std::io::Error| ReadError {
        reason: SkipReason::Unreadable,
        detail: e.to_string(),
    };
    let file = open_no_follow(path).map_err(|e| {
        if e.raw_os_error() == Some(libc_eloop()) {
            ReadError {
                reason: SkipReason::Symlink,
                detail: "symbolic link".into(),
            }
        } else {
            unreadable(e)
        }
    })?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.file_type().is_file() {
        return Err(ReadError {
            reason: SkipReason::Special,
            detail: "not a regular file".into(),
        });
    }
    if meta.len() > max_size {
        return Err(ReadError {
            reason: SkipReason::TooLarge,
            detail: format!("{} bytes > {max_size}", meta.len()),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_size + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > max_size {
        return Err(ReadError {
            reason: SkipReason::TooLarge,
            detail: format!("grew past {max_size} bytes while reading"),
        });
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(ReadError {
            reason: SkipReason::Binary,
            detail: "contains NUL bytes".into(),
        });
    }
    let mut longest = 0usize;
    let mut lines = 0usize;
    let mut start = 0usize;
    for nl in memchr::memchr_iter(b'\n', &bytes) {
        longest = longest.max(nl - start);
        start = nl + 1;
        lines += 1;
    }
    longest = longest.max(bytes.len() - start);
    lines += usize::from(start < bytes.len());
    if longest > max_line || (lines > 0 && bytes.len() / lines > max_avg_line && bytes.len() > 4096)
    {
        return Err(ReadError {
            reason: SkipReason::Minified,
            detail: format!("longest line {longest} bytes"),
        });
    }
    let hash = blob_id(&bytes);
    let size = bytes.len() as u64;
    let (text, lossy) = match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    Ok(SourceFile {
        text,
        hash,
        size,
        lossy,
        stat: crate::FileStat::of(&meta),
    })
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    libc::ELOOP
}

#[cfg(not(unix))]
fn libc_eloop() -> i32 {
    -1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn skip_rules_apply_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        std::fs::write(p("ok.py"), "x = 1\n").unwrap();
        std::fs::write(p("bin.py"), b"x\0y").unwrap();
        std::fs::write(p("big.py"), "x".repeat(200)).unwrap();
        std::fs::write(p("min.js"), format!("var a={};\n", "1,".repeat(6000))).unwrap();
        std::fs::write(p("latin1.py"), b"s = '\xe9t\xe9'\n").unwrap();
        let read = |n: &str, max| read_source(&p(n), max, 10_000, 300);
        assert_eq!(read("ok.py", 100).unwrap().text, "x = 1\n");
        assert_eq!(read("bin.py", 100).unwrap_err().reason, SkipReason::Binary);
        assert_eq!(
            read("big.py", 100).unwrap_err().reason,
            SkipReason::TooLarge
        );
        assert_eq!(
            read("min.js", 1 << 20).unwrap_err().reason,
            SkipReason::Minified
        );
        let latin = read("latin1.py", 100).unwrap();
        assert!(latin.lossy && latin.text.contains('\u{fffd}'));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(p("ok.py"), p("link.py")).unwrap();
            assert_eq!(
                read("link.py", 100).unwrap_err().reason,
                SkipReason::Symlink
            );
            let fifo = p("pipe.py");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo on a fresh path in our temp dir.
            #[allow(unsafe_code)]
            let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
            assert_eq!(rc, 0);
            assert_eq!(
                read("pipe.py", 100).unwrap_err().reason,
                SkipReason::Special
            );
        }
    }
}
