//! The files a walk found, for the read phase: a record of eight words a file (where its path
//! is, its size, its stat, its language) and the paths' text, in temporary files mapped into
//! memory, instead of a `WalkedFile` a file on the heap (80 bytes and the path's string, ~135
//! bytes a file, 2.3 MiB on 162 MB of source, held through the read phase). In the order the
//! files are read once [`WalkList::finish`]ed: the languages with the most files first, each
//! language's files by path.

use std::cmp::Reverse;
use std::path::Path;

use sextant_vfs::{FileStat, WalkedFile};

use crate::spill::{Records, Text};

/// A file of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Listed<'a> {
    pub(crate) path: &'a str,
    pub(crate) size: u64,
    /// The file's stat as the walk saw it.
    pub(crate) stat: Option<FileStat>,
    /// The language, as the caller numbered it when pushing.
    pub(crate) language: u32,
}

/// The record's words: the path's offset, its length (low half) with the language and a flag
/// for a stat (high half: `language << 1 | has stat`), the size, the stat's five fields.
const WORDS: usize = 8;

/// The files a walk found; see the module's comment.
pub(crate) struct WalkList {
    records: Records<WORDS>,
    text: Text,
    /// Files by language number.
    counts: Vec<usize>,
    bytes: u64,
    /// The first write error; [`WalkList::finish`] returns it.
    failed: Option<std::io::Error>,
    /// Once finished: each language's records (a range of the order).
    ranges: Vec<std::ops::Range<usize>>,
}

impl WalkList {
    /// A list in temporary files in `dir`, or on the heap when none can be made there.
    pub(crate) fn in_dir(dir: &Path) -> WalkList {
        let (records, text) = match (Records::in_dir(dir), Text::in_dir(dir)) {
            (Ok(records), Ok(text)) => (records, text),
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!("the walk's files kept in memory ({}: {e})", dir.display());
                (Records::default(), Text::heap())
            }
        };
        WalkList {
            records,
            text,
            counts: Vec::new(),
            bytes: 0,
            failed: None,
            ranges: Vec::new(),
        }
    }

    /// Adds a file of language number `language` (small: languages are counted in a vector).
    pub(crate) fn push(&mut self, file: &WalkedFile, language: u32) {
        if self.failed.is_some() {
            return;
        }
        let path = file.path.as_str();
        let stat = file.stat.unwrap_or(FileStat {
            size: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 0,
            dev: 0,
        });
        // The language and whether there is a stat ride in the second word's high half.
        let flags = (u64::from(language) << 33) | (u64::from(file.stat.is_some()) << 32);
        let record = |at: u64| {
            [
                at,
                path.len() as u64 | flags,
                file.size,
                stat.size,
                stat.mtime_ns as u64,
                stat.ctime_ns as u64,
                stat.ino,
                stat.dev,
            ]
        };
        match self
            .text
            .push(path)
            .and_then(|at| self.records.push(record(at)))
        {
            Ok(()) => {
                let i = language as usize;
                if self.counts.len() <= i {
                    self.counts.resize(i + 1, 0);
                }
                self.counts[i] += 1;
                self.bytes += file.size;
            }
            Err(e) => self.failed = Some(e),
        }
    }

    /// Maps what was written and puts the files in the order they are read: the languages with
    /// the most files first (ties by `language_ids`, the languages' names by number), each
    /// language's files by path.
    pub(crate) fn finish(&mut self, language_ids: &[&str]) -> std::io::Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.text.finish()?;
        let counts = &self.counts;
        let id = |l: u32| language_ids.get(l as usize).copied().unwrap_or_default();
        let key = |r: &[u64; WORDS]| {
            let l = language_of(r);
            (Reverse(counts[l as usize]), id(l), l)
        };
        let text = self.text.str();
        self.records.sort_by(|a, b| {
            key(a)
                .cmp(&key(b))
                .then_with(|| path_of(text, a).cmp(path_of(text, b)))
        })?;
        let records = self.records.records();
        let mut start = 0;
        while start < records.len() {
            let l = language_of(&records[start]);
            let end = start + records[start..].partition_point(|r| language_of(r) == l);
            let i = l as usize;
            if self.ranges.len() <= i {
                self.ranges.resize(i + 1, 0..0);
            }
            self.ranges[i] = start..end;
            start = end;
        }
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The files' sizes, summed.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The `i`th file in the order read (once finished).
    pub(crate) fn get(&self, i: usize) -> Listed<'_> {
        let r = &self.records.records()[i];
        let stat = (r[1] >> 32 & 1 == 1).then_some(FileStat {
            size: r[3],
            mtime_ns: r[4] as i64,
            ctime_ns: r[5] as i64,
            ino: r[6],
            dev: r[7],
        });
        Listed {
            path: path_of(self.text.str(), r),
            size: r[2],
            stat,
            language: language_of(r),
        }
    }

    /// Every path, in the order read.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        let text = self.text.str();
        self.records.records().iter().map(move |r| path_of(text, r))
    }

    /// Is `path`, of language number `language`, in the list (once finished)?
    pub(crate) fn contains(&self, path: &str, language: u32) -> bool {
        let Some(range) = self.ranges.get(language as usize) else {
            return false;
        };
        let text = self.text.str();
        self.records.records()[range.clone()]
            .binary_search_by(|r| path_of(text, r).cmp(path))
            .is_ok()
    }
}

fn language_of(r: &[u64; WORDS]) -> u32 {
    (r[1] >> 33) as u32
}

fn path_of<'t>(text: &'t str, r: &[u64; WORDS]) -> &'t str {
    let at = r[0] as usize;
    let len = (r[1] & 0xffff_ffff) as usize;
    text.get(at..at + len).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sextant_model::RepoPath;

    fn file(path: &str, size: u64, stat: bool) -> WalkedFile {
        WalkedFile {
            path: RepoPath::new(path).unwrap(),
            size,
            stat: stat.then_some(FileStat {
                size,
                mtime_ns: -5,
                ctime_ns: 1 << 40,
                ino: u64::MAX,
                dev: 3,
            }),
        }
    }

    /// Files come back in the order read (most files first, ties by name, then paths), with
    /// their sizes and stats, whether the list is in temporary files or on the heap; a path is
    /// found in its language's files only.
    #[test]
    fn files_come_back_in_the_order_read() {
        let dir = tempfile::tempdir().unwrap();
        for at in [dir.path().to_path_buf(), dir.path().join("missing")] {
            let mut list = WalkList::in_dir(&at);
            let pushed = [
                ("src/z.py", 0),
                ("a/é.rs", 1),
                ("src/a.py", 0),
                ("b.go", 2),
                ("lib/m.py", 0),
                ("a/b.rs", 1),
            ];
            for (i, (path, language)) in pushed.into_iter().enumerate() {
                list.push(&file(path, 10 + i as u64, i % 2 == 0), language);
            }
            list.finish(&["python", "rust", "go"]).unwrap();
            assert_eq!(list.len(), 6);
            assert_eq!(list.bytes(), 10 + 11 + 12 + 13 + 14 + 15);
            let paths: Vec<&str> = list.paths().collect();
            assert_eq!(
                paths,
                [
                    "lib/m.py", "src/a.py", "src/z.py", "a/b.rs", "a/é.rs", "b.go"
                ]
            );
            let third = list.get(2);
            assert_eq!(
                (third.path, third.size, third.language),
                ("src/z.py", 10, 0)
            );
            assert_eq!(third.stat, file("x", 10, true).stat);
            assert_eq!(list.get(3).stat, None);
            assert_eq!(list.get(4).path, "a/é.rs");
            assert!(list.contains("a/é.rs", 1));
            assert!(list.contains("lib/m.py", 0));
            assert!(!list.contains("lib/m.py", 1));
            assert!(!list.contains("lib/n.py", 0));
            assert!(!list.contains("b.go", 7));
        }
        // Ties between languages go by name.
        let mut list = WalkList::in_dir(dir.path());
        list.push(&file("x.rs", 1, false), 0);
        list.push(&file("y.go", 1, false), 1);
        list.finish(&["rust", "go"]).unwrap();
        assert_eq!(list.paths().collect::<Vec<_>>(), ["y.go", "x.rs"]);
        let mut empty = WalkList::in_dir(dir.path());
        empty.finish(&[]).unwrap();
        assert_eq!((empty.len(), empty.paths().count()), (0, 0));
    }
}
