//! Stat data that tells a file has not changed since its content was hashed (the stat cache):
//! size, modification and change times to the nanosecond, inode and device. A content write
//! always moves the change time (ctime), which no user call can set back, so a file whose stat is
//! identical to the one seen when it was hashed still has that content, unless the hash was taken
//! within the timestamp granularity of its last change ("racily clean", git's term): such an entry
//! is never trusted and the file is hashed again.

use std::time::{SystemTime, UNIX_EPOCH};

/// How recent a file's last change may be, relative to the moment its content was hashed, for
/// that hash to be trusted later: the file-system clock's granularity (a coarse tick of a few
/// milliseconds on Linux, one second on some file systems) with room to spare. A file changed
/// within this window before it was hashed is hashed again on the next run.
pub const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// What `stat` says about a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStat {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub dev: u64,
}

impl FileStat {
    /// The stat of `meta` (`None` where the platform has no change time and inode).
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<FileStat> {
        use std::os::unix::fs::MetadataExt;
        Some(FileStat {
            size: meta.size(),
            mtime_ns: meta.mtime().saturating_mul(1_000_000_000) + meta.mtime_nsec(),
            ctime_ns: meta.ctime().saturating_mul(1_000_000_000) + meta.ctime_nsec(),
            ino: meta.ino(),
            dev: meta.dev(),
        })
    }

    /// The stat of `meta` (`None` where the platform has no change time and inode).
    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> Option<FileStat> {
        None
    }

    /// Whether content hashed from a file seen as `self` by a run that started at `verified_ns`
    /// ([`clock_ns`] before the file was read) is still the content of the file now seen as
    /// `now`: the stat is identical and the file's last change was at least [`RACY_WINDOW_NS`]
    /// older than the hash (a later write, even one that keeps the size and sets the
    /// modification time back, moves the change time past it).
    pub fn still_matches(&self, now: &FileStat, verified_ns: i64) -> bool {
        self == now && self.mtime_ns.max(self.ctime_ns) < verified_ns.saturating_sub(RACY_WINDOW_NS)
    }
}

/// The system clock in nanoseconds since the Unix epoch (0 before it).
pub fn clock_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(mtime: i64, ctime: i64) -> FileStat {
        FileStat {
            size: 10,
            mtime_ns: mtime,
            ctime_ns: ctime,
            ino: 7,
            dev: 1,
        }
    }

    #[test]
    fn only_identical_and_old_enough_stats_are_trusted() {
        let t = 100 * RACY_WINDOW_NS;
        let old = stat(t - 3 * RACY_WINDOW_NS, t - 3 * RACY_WINDOW_NS);
        assert!(old.still_matches(&old, t));
        // Racily clean: changed within the window before the run that hashed it.
        let racy = stat(t - 1, t - 1);
        assert!(!racy.still_matches(&racy, t));
        // A modification time set back does not hide a recent change time.
        let reset = stat(t - 3 * RACY_WINDOW_NS, t - 10);
        assert!(!reset.still_matches(&reset, t));
        // Any field that differs means the file changed.
        for other in [
            FileStat { size: 11, ..old },
            FileStat {
                mtime_ns: old.mtime_ns + 1,
                ..old
            },
            FileStat {
                ctime_ns: old.ctime_ns + 1,
                ..old
            },
            FileStat { ino: 8, ..old },
            FileStat { dev: 2, ..old },
        ] {
            assert!(!old.still_matches(&other, t));
        }
        // A file changed in the future (a skewed clock) is never trusted.
        let future = stat(t + 5, t + 5);
        assert!(!future.still_matches(&future, t));
    }

    #[cfg(unix)]
    #[test]
    fn stat_of_a_file_sees_a_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.py");
        std::fs::write(&p, "x = 1\n").unwrap();
        let a = FileStat::of(&std::fs::metadata(&p).unwrap()).unwrap();
        assert_eq!(a.size, 6);
        assert!(a.ctime_ns > 0 && a.ino > 0);
        let again = FileStat::of(&std::fs::metadata(&p).unwrap()).unwrap();
        assert_eq!(a, again);
    }
}
