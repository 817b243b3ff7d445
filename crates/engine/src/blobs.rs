//! The blob ids of a commit's files, to tell a file whose content differs from the commit's
//! (uncommitted) from one that does not: a record of four words a file (a hash of its path and
//! its id) in a mapped temporary file, sorted by the path's hash, instead of a map of every path
//! and id of the tree on the heap (~170 bytes a file of the repository, indexed or not, on a
//! first index of a git repository and in a live index).

use std::path::Path;

use crate::spill::Records;
use crate::stored::path_key;

/// A commit's files and their blob ids, looked up by path.
#[derive(Default)]
pub(crate) struct TreeBlobs {
    /// `[hash of the path, the id's first 24 bytes as three words]`, sorted by the hash.
    records: Records<4>,
    len: usize,
}

/// An id's (or a hex id's) bytes as three words, zero-padded; `None` for text that is not hex.
fn id_words(bytes: impl IntoIterator<Item = u8>) -> [u64; 3] {
    let mut padded = [0u8; 24];
    for (slot, b) in padded.iter_mut().zip(bytes) {
        *slot = b;
    }
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&padded[8 * i..8 * i + 8]);
        u64::from_ne_bytes(w)
    };
    [word(0), word(1), word(2)]
}

fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

impl TreeBlobs {
    /// Collects blobs as `fill` reports them (path, id bytes), in a temporary file in `dir` (on
    /// the heap when none can be made there). `None` when `fill` fails or finds no tree.
    pub(crate) fn collect<E: std::fmt::Display>(
        dir: &Path,
        fill: impl FnOnce(&mut dyn FnMut(&[u8], &[u8])) -> Result<bool, E>,
    ) -> Option<TreeBlobs> {
        let mut records = Records::in_dir(dir)
            .inspect_err(|e| tracing::warn!("blob ids kept in memory ({}: {e})", dir.display()))
            .unwrap_or_default();
        let mut len = 0usize;
        let mut failed: Option<std::io::Error> = None;
        let found = fill(&mut |path, id| {
            if failed.is_some() {
                return;
            }
            let [a, b, c] = id_words(id.iter().copied());
            match records.push([path_key(path), a, b, c]) {
                Ok(()) => len += 1,
                Err(e) => failed = Some(e),
            }
        });
        let found = match found {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!("cannot list the commit's files: {e}");
                return None;
            }
        };
        if let Some(e) = failed.or_else(|| records.sort_by_key(|r| r[0]).err()) {
            tracing::warn!("cannot keep the commit's blob ids: {e}");
            return None;
        }
        found.then_some(TreeBlobs { records, len })
    }

    /// No files at all (an empty tree).
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Is `hash` (hex) the blob id of `path` in the tree? `false` when the tree has no such
    /// path, and when another of its paths has the same 64-bit hash (the file then counts as
    /// uncommitted, which only marks it so).
    pub(crate) fn has(&self, path: &str, hash: &str) -> bool {
        let Some(bytes) = hex_bytes(hash) else {
            return false;
        };
        let at = self.records.range_of(path_key(path.as_bytes()), |r| r[0]);
        let records = self.records.records();
        at.len() == 1 && records[at.start][1..] == id_words(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs(dir: &Path, files: &[(&str, &str)]) -> Option<TreeBlobs> {
        TreeBlobs::collect(dir, |each| {
            for (path, hex) in files {
                each(path.as_bytes(), &hex_bytes(hex).unwrap());
            }
            Ok::<bool, String>(true)
        })
    }

    /// A path's id is found whether the records went to a file or stayed on the heap; another
    /// id, an unknown path, text that is not hex, do not match.
    #[test]
    fn a_paths_id_is_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let a = "ce013625030ba8dba906f756967f9e9ca394464a";
        let b = "5716ca5987cbf97d6bb54920bea6adde242d87e6";
        let files = [("src/a.py", a), ("src/b.py", b), ("README.md", a)];
        for at in [dir.path().to_path_buf(), dir.path().join("missing")] {
            let t = blobs(&at, &files).unwrap();
            assert!(!t.is_empty());
            assert!(t.has("src/a.py", a));
            assert!(t.has("src/b.py", b));
            assert!(t.has("README.md", a));
            assert!(!t.has("src/a.py", b));
            assert!(!t.has("src/c.py", a));
            assert!(!t.has("src/a.py", "not hex"));
            assert!(!t.has("src/a.py", &a[..38]));
        }
        let empty = blobs(dir.path(), &[]).unwrap();
        assert!(empty.is_empty() && !empty.has("src/a.py", a));
        let none = TreeBlobs::collect(dir.path(), |_| Ok::<bool, String>(false));
        assert!(none.is_none());
        let failed = TreeBlobs::collect(dir.path(), |_| Err("no repository"));
        assert!(failed.is_none());
    }
}
