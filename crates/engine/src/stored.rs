//! What the store knows of the files before a run reads them: the stored versions a run may
//! reuse ([`StoredVersions`]) and the stat cache ([`StatCache`]), looked up by path; a
//! generation's edge sets ([`EdgeSets`]), by file version. Each is a table of records (those
//! by path keyed by a hash of the path, the paths and other strings in a text of their own,
//! [`ByPath`]) in temporary files mapped into memory, instead of maps on the heap: on 162 MB of
//! source those maps were ~25 MB, ~1.4 KB a file, through the whole of a run that follows
//! another (`bench/RESULTS.md`, session 30). Built by streaming the store's rows
//! (`Store::each_version_of_generations`, `Store::each_stat_row`, `Store::each_set_hash`); read
//! by the workers without a lock.

use std::hash::Hasher;
use std::path::Path;

use sextant_store::{StatRow, StoredVersion};
use sextant_vfs::FileStat;

use crate::spill::{Records, Text};

/// A hash of a path, the same on every call (SipHash with fixed keys).
pub(crate) fn path_key(path: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    h.write(path);
    h.finish()
}

/// Records looked up by path: a record's word 0 is a hash of its path, word 1 where the path
/// starts in the text (strings the table adds after it follow it), the low half of word 2 the
/// path's length; the other words (and word 2's high half) are the table's own.
struct ByPath<const N: usize> {
    records: Records<N>,
    text: Text,
}

impl<const N: usize> ByPath<N> {
    /// In temporary files in `dir`; on the heap, with a warning naming `what`, when none can be
    /// made there.
    fn in_dir(dir: &Path, what: &str) -> ByPath<N> {
        match (Records::in_dir(dir), Text::in_dir(dir)) {
            (Ok(records), Ok(text)) => ByPath { records, text },
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!("{what} kept in memory ({}: {e})", dir.display());
                ByPath {
                    records: Records::default(),
                    text: Text::heap(),
                }
            }
        }
    }

    /// Adds `record` for `path`, with `after` written right after the path in the text; words
    /// 0, 1 and 2's low half are filled in here.
    fn push(&mut self, path: &str, after: &[&str], mut record: [u64; N]) -> std::io::Result<()> {
        let at = self.text.push(path)?;
        for s in after {
            self.text.push(s)?;
        }
        record[0] = path_key(path.as_bytes());
        record[1] = at;
        record[2] = (record[2] & !0xffff_ffff) | path.len() as u64;
        self.records.push(record)
    }

    /// Maps what was written, and sorts the records by path hash, then by `tie`.
    fn finish(
        &mut self,
        mut tie: impl FnMut(&[u64; N], &[u64; N]) -> std::cmp::Ordering,
    ) -> std::io::Result<()> {
        self.text.finish()?;
        self.records
            .sort_by(|a, b| a[0].cmp(&b[0]).then_with(|| tie(a, b)))
    }

    /// The records of `path` (once finished), in the order `finish` gave them.
    fn of(&self, path: &str) -> impl Iterator<Item = &[u64; N]> {
        let range = self.records.range_of(path_key(path.as_bytes()), |r| r[0]);
        self.records.records()[range]
            .iter()
            .filter(move |r| self.path(r) == path)
    }

    fn all(&self) -> &[[u64; N]] {
        self.records.records()
    }

    fn path(&self, r: &[u64; N]) -> &str {
        self.text.get(r[1], r[2] & 0xffff_ffff)
    }

    /// `len` bytes of the text `skip` bytes after the end of the record's path.
    fn after(&self, r: &[u64; N], skip: u64, len: u64) -> &str {
        self.text.get(r[1] + (r[2] & 0xffff_ffff) + skip, len)
    }
}

/// A stored file version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version<'a> {
    pub(crate) id: i64,
    pub(crate) node: i64,
    pub(crate) path: &'a str,
    pub(crate) module: &'a str,
    /// The content's blob id.
    pub(crate) hash: &'a str,
    pub(crate) language: &'a str,
    pub(crate) extractor: &'a str,
}

/// The record's words after the three of [`ByPath`]: word 2's high half the module's length
/// (it follows the path in the text, and the hash follows it), word 3 the hash's length (low
/// 16 bits), the language's and the extractor's numbers (two more 16 bits) and whether the
/// marked generation holds the version (bit 48); word 4 the rank, 5 the id, 6 the file's node.
const VERSION_WORDS: usize = 7;

/// The file versions of the published generations, each once, looked up by path: those of the
/// generation given first are preferred, and so on (the rank), then the oldest; see the
/// module's comment.
pub(crate) struct StoredVersions {
    table: ByPath<VERSION_WORDS>,
    /// The languages' and the extractors' names, by number (a handful).
    names: Vec<String>,
}

impl StoredVersions {
    /// The versions that `fill` hands out (`Store::each_version_of_generations`), in temporary
    /// files in `dir`.
    pub(crate) fn collect<E>(
        dir: &Path,
        fill: impl FnOnce(&mut dyn FnMut(StoredVersion<'_>)) -> Result<(), E>,
    ) -> Result<StoredVersions, crate::Error>
    where
        crate::Error: From<E>,
    {
        let mut table = ByPath::in_dir(dir, "the stored versions");
        let mut names: Vec<String> = Vec::new();
        let mut number = |name: &str| -> u64 {
            let at = names.iter().position(|n| n == name).unwrap_or_else(|| {
                names.push(name.to_string());
                names.len() - 1
            });
            at as u64 & 0xffff
        };
        let mut failed: Option<std::io::Error> = None;
        fill(&mut |v| {
            if failed.is_some() {
                return;
            }
            let record = [
                0,
                0,
                (v.module.len() as u64) << 32,
                (v.hash.len() as u64 & 0xffff)
                    | number(v.language) << 16
                    | number(v.extractor) << 32
                    | u64::from(v.marked) << 48,
                v.rank as u64,
                v.id as u64,
                v.node_id as u64,
            ];
            if let Err(e) = table.push(v.path, &[v.module, v.hash], record) {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed.or_else(|| {
            table
                .finish(|a, b| (a[4], a[5] as i64).cmp(&(b[4], b[5] as i64)))
                .err()
        }) {
            return Err(crate::Error::Io(format!(
                "cannot keep the stored versions in {}: {e}",
                dir.display()
            )));
        }
        Ok(StoredVersions { table, names })
    }

    fn version<'a>(&'a self, r: &[u64; VERSION_WORDS]) -> Version<'a> {
        let module_len = r[2] >> 32;
        let name = |n: u64| {
            self.names
                .get((n & 0xffff) as usize)
                .map(String::as_str)
                .unwrap_or_default()
        };
        Version {
            id: r[5] as i64,
            node: r[6] as i64,
            path: self.table.path(r),
            module: self.table.after(r, 0, module_len),
            hash: self.table.after(r, module_len, r[3] & 0xffff),
            language: name(r[3] >> 16),
            extractor: name(r[3] >> 32),
        }
    }

    /// The versions of `path`, preferred first.
    pub(crate) fn of(&self, path: &str) -> impl Iterator<Item = Version<'_>> {
        self.table.of(path).map(|r| self.version(r))
    }

    /// The content of `path` in the marked generation (`None` when it does not hold the path).
    pub(crate) fn marked_hash(&self, path: &str) -> Option<&str> {
        self.table
            .of(path)
            .find(|r| r[3] >> 48 & 1 == 1)
            .map(|r| self.version(r).hash)
    }

    /// Every version, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Version<'_>> {
        self.table.all().iter().map(|r| self.version(r))
    }
}

/// The record's words after the three of [`ByPath`]: word 2's high half the hash's length (it
/// follows the path in the text), then the stat's five fields and the clock of the run that
/// hashed the file.
const STAT_WORDS: usize = 9;

/// The stat cache (`Store::each_stat_row`), looked up by path: see the module's comment.
pub(crate) struct StatCache {
    table: ByPath<STAT_WORDS>,
}

impl StatCache {
    /// The rows that `fill` hands out, in temporary files in `dir`.
    pub(crate) fn collect<E>(
        dir: &Path,
        fill: impl FnOnce(&mut dyn FnMut(StatRow)) -> Result<(), E>,
    ) -> Result<StatCache, crate::Error>
    where
        crate::Error: From<E>,
    {
        let mut table = ByPath::in_dir(dir, "the stat cache");
        let mut failed: Option<std::io::Error> = None;
        fill(&mut |r| {
            if failed.is_some() {
                return;
            }
            let record = [
                0,
                0,
                (r.hash.len() as u64) << 32,
                r.size,
                r.mtime_ns as u64,
                r.ctime_ns as u64,
                r.ino,
                r.dev,
                r.verified_ns as u64,
            ];
            if let Err(e) = table.push(&r.path, &[&r.hash], record) {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed.or_else(|| table.finish(|_, _| std::cmp::Ordering::Equal).err()) {
            return Err(crate::Error::Io(format!(
                "cannot keep the stat cache in {}: {e}",
                dir.display()
            )));
        }
        Ok(StatCache { table })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.table.all().is_empty()
    }

    /// `path`'s stat when it was hashed, the content's blob id then, and the clock of the run
    /// that hashed it.
    pub(crate) fn get(&self, path: &str) -> Option<(FileStat, &str, i64)> {
        let r = self.table.of(path).next()?;
        let stat = FileStat {
            size: r[3],
            mtime_ns: r[4] as i64,
            ctime_ns: r[5] as i64,
            ino: r[6],
            dev: r[7],
        };
        Some((stat, self.table.after(r, 0, r[2] >> 32), r[8] as i64))
    }

    /// Every cached path, in no particular order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.table.all().iter().map(|r| self.table.path(r))
    }
}

/// A generation's edge set and its fingerprint by file version: `[file, set, fingerprint,
/// whether there is one]`, sorted by file.
#[derive(Default)]
pub(crate) struct EdgeSets {
    records: Records<4>,
}

impl EdgeSets {
    /// The sets that `fill` hands out (`Store::each_set_hash`), in a temporary file in `dir`.
    pub(crate) fn collect<E>(
        dir: &Path,
        fill: impl FnOnce(&mut dyn FnMut(i64, i64, Option<i64>)) -> Result<(), E>,
    ) -> Result<EdgeSets, crate::Error>
    where
        crate::Error: From<E>,
    {
        let mut records = Records::in_dir(dir)
            .inspect_err(|e| tracing::warn!("edge sets kept in memory ({}: {e})", dir.display()))
            .unwrap_or_default();
        let mut failed: Option<std::io::Error> = None;
        fill(&mut |file, set, hash| {
            if failed.is_none()
                && let Err(e) = records.push([
                    file as u64,
                    set as u64,
                    hash.unwrap_or_default() as u64,
                    u64::from(hash.is_some()),
                ])
            {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed.or_else(|| records.sort_by_key(|r| r[0] as i64).err()) {
            return Err(crate::Error::Io(format!(
                "cannot keep the edge sets in {}: {e}",
                dir.display()
            )));
        }
        Ok(EdgeSets { records })
    }

    /// `file`'s set and fingerprint.
    pub(crate) fn get(&self, file: i64) -> Option<(i64, Option<i64>)> {
        let at = self.records.range_of(file, |r| r[0] as i64);
        let r = self.records.records().get(at)?.first()?;
        Some((r[1] as i64, (r[3] == 1).then_some(r[2] as i64)))
    }

    /// The files, in order.
    pub(crate) fn files(&self) -> impl ExactSizeIterator<Item = i64> {
        self.records.records().iter().map(|r| r[0] as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(v: (i64, &'static str, &'static str, usize, bool)) -> StoredVersion<'static> {
        let (id, path, hash, rank, marked) = v;
        StoredVersion {
            id,
            path,
            hash,
            language: if path.ends_with(".rs") {
                "rust"
            } else {
                "python"
            },
            module: if rank == 0 { "pkg.mod" } else { "" },
            extractor: "e1",
            node_id: id * 100,
            rank,
            marked,
        }
    }

    /// A path's versions come back preferred first (by rank, then oldest), with their strings,
    /// whether the tables are in temporary files or on the heap; the marked one gives the
    /// path's content in the marked generation.
    #[test]
    fn versions_are_found_by_path_preferred_first() {
        let dir = tempfile::tempdir().unwrap();
        let given = [
            (7, "src/a.py", "h7", 1, true),
            (3, "src/b.rs", "h3", 0, false),
            (9, "src/a.py", "h9", 0, false),
            (5, "src/a.py", "h5", 1, false),
            (4, "é/ü.py", "h4", 2, true),
        ];
        for at in [dir.path().to_path_buf(), dir.path().join("missing")] {
            let versions = StoredVersions::collect(&at, |each| {
                for v in given {
                    each(stored(v));
                }
                Ok::<(), crate::Error>(())
            })
            .unwrap();
            let a: Vec<(i64, &str, &str)> = versions
                .of("src/a.py")
                .map(|v| (v.id, v.hash, v.module))
                .collect();
            assert_eq!(a, [(9, "h9", "pkg.mod"), (5, "h5", ""), (7, "h7", "")]);
            let b = versions.of("src/b.rs").next().unwrap();
            assert_eq!(
                b,
                Version {
                    id: 3,
                    node: 300,
                    path: "src/b.rs",
                    module: "pkg.mod",
                    hash: "h3",
                    language: "rust",
                    extractor: "e1",
                }
            );
            assert_eq!(versions.marked_hash("src/a.py"), Some("h7"));
            assert_eq!(versions.marked_hash("é/ü.py"), Some("h4"));
            assert_eq!(versions.marked_hash("src/b.rs"), None);
            assert_eq!(versions.of("src/c.py").count(), 0);
            let mut ids: Vec<i64> = versions.iter().map(|v| v.id).collect();
            ids.sort_unstable();
            assert_eq!(ids, [3, 4, 5, 7, 9]);
        }
        let failed =
            StoredVersions::collect(dir.path(), |_| Err(crate::Error::Io("the store".into())));
        assert!(failed.is_err());
    }

    /// A cached path gives its stat, content and clock; a path not cached gives nothing.
    #[test]
    fn the_stat_cache_is_found_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let row = |path: &str, hash: &str, size: u64| StatRow {
            path: path.into(),
            size,
            mtime_ns: -7,
            ctime_ns: 1 << 62,
            ino: u64::MAX,
            dev: 9,
            hash: hash.into(),
            verified_ns: 1_700_000_000_000_000_000,
        };
        for at in [dir.path().to_path_buf(), dir.path().join("missing")] {
            let cache = StatCache::collect(&at, |each| {
                each(row("a.py", "ha", 10));
                each(row("lib/b.py", "hb", 20));
                Ok::<(), crate::Error>(())
            })
            .unwrap();
            assert!(!cache.is_empty());
            let (stat, hash, verified) = cache.get("lib/b.py").unwrap();
            assert_eq!(
                (stat.size, stat.mtime_ns, stat.ctime_ns, stat.ino, stat.dev),
                (20, -7, 1 << 62, u64::MAX, 9)
            );
            assert_eq!((hash, verified), ("hb", 1_700_000_000_000_000_000));
            assert_eq!(cache.get("a.py").unwrap().1, "ha");
            assert!(cache.get("b.py").is_none());
            let mut paths: Vec<&str> = cache.paths().collect();
            paths.sort_unstable();
            assert_eq!(paths, ["a.py", "lib/b.py"]);
        }
        let empty = StatCache::collect(dir.path(), |_| Ok::<(), crate::Error>(())).unwrap();
        assert!(empty.is_empty() && empty.get("a.py").is_none());
    }

    /// A file's set and fingerprint (or none) are found by file version; the files come in
    /// order.
    #[test]
    fn edge_sets_are_found_by_file() {
        let dir = tempfile::tempdir().unwrap();
        let sets = EdgeSets::collect(dir.path(), |each| {
            each(12, 5, Some(-3));
            each(4, 6, None);
            each(8, 7, Some(0));
            Ok::<(), crate::Error>(())
        })
        .unwrap();
        assert_eq!(sets.get(12), Some((5, Some(-3))));
        assert_eq!(sets.get(4), Some((6, None)));
        assert_eq!(sets.get(8), Some((7, Some(0))));
        assert_eq!(sets.get(5), None);
        assert_eq!(sets.files().collect::<Vec<_>>(), [4, 8, 12]);
        assert_eq!(EdgeSets::default().get(4), None);
    }
}
