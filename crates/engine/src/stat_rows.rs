//! The stat cache rows an index makes as it reads files, kept until it publishes (the cache is
//! written after the new generation, `pipeline::save_stat_cache`). On the heap they were about
//! 200 bytes a file, a path and a hash each as their own small strings, allocated all through
//! the read phase and kept to its end (1.3 MiB for 6,457 files): they wait in an unlinked
//! temporary file beside the database instead, and are read back one at a time.
//!
//! The cache is advisory: a row lost to a failed write or read means that file is hashed again
//! next time, so a failure is logged and never fails the index.

use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use sextant_store::StatRow;

pub(crate) struct StatRows {
    to: To,
    /// Writing failed: the rows written before stay; later ones are dropped.
    failed: bool,
}

enum To {
    File {
        out: BufWriter<std::fs::File>,
        buf: Vec<u8>,
    },
    /// No temporary file could be made: the rows stay on the heap.
    Memory(Vec<StatRow>),
}

impl StatRows {
    /// Rows waiting in a temporary file in `dir` (the repository's data directory), or on the
    /// heap when no file can be made there.
    pub(crate) fn new(dir: &Path) -> StatRows {
        let to = match tempfile::tempfile_in(dir) {
            Ok(file) => To::File {
                out: BufWriter::with_capacity(1 << 16, file),
                buf: Vec::new(),
            },
            Err(e) => {
                tracing::debug!("stat cache rows kept in memory ({}: {e})", dir.display());
                To::Memory(Vec::new())
            }
        };
        StatRows { to, failed: false }
    }

    pub(crate) fn push(&mut self, row: StatRow) {
        match &mut self.to {
            To::Memory(rows) => rows.push(row),
            To::File { .. } if self.failed => {}
            To::File { out, buf } => {
                buf.clear();
                encode(&row, buf);
                if let Err(e) = out.write_all(buf) {
                    tracing::warn!("stat cache rows from here on dropped: {e}");
                    self.failed = true;
                }
            }
        }
    }

    /// The rows pushed, in order (those a failure lost left out).
    pub(crate) fn into_rows(self) -> Box<dyn Iterator<Item = StatRow>> {
        let out = match self.to {
            To::Memory(rows) => return Box::new(rows.into_iter()),
            To::File { out, .. } => out,
        };
        let file = out.into_inner().unwrap_or_else(|e| {
            // A row cut short where the flush failed ends the reading below.
            if !self.failed {
                tracing::warn!("stat cache rows cut short: {}", e.error());
            }
            // What was not flushed is dropped.
            e.into_parts().1.into_parts().0
        });
        let reader = Some(file)
            .and_then(|mut f| f.rewind().ok().map(|()| f))
            .map(|f| BufReader::with_capacity(1 << 16, f));
        Box::new(Reading {
            reader,
            buf: Vec::new(),
        })
    }
}

/// Reads rows back until the end of the file or the first row that cannot be read.
struct Reading {
    reader: Option<BufReader<std::fs::File>>,
    buf: Vec<u8>,
}

impl Iterator for Reading {
    type Item = StatRow;

    fn next(&mut self) -> Option<StatRow> {
        let reader = self.reader.as_mut()?;
        let mut len = [0u8; 4];
        let row = match reader.read_exact(&mut len) {
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(e) => {
                tracing::warn!("stat cache rows cut short: {e}");
                None
            }
            Ok(()) => {
                self.buf.resize(u32::from_le_bytes(len) as usize, 0);
                match reader.read_exact(&mut self.buf) {
                    Ok(()) => {
                        let row = decode(&self.buf);
                        if row.is_none() {
                            tracing::warn!("stat cache rows cut short: a malformed row");
                        }
                        row
                    }
                    Err(e) => {
                        tracing::warn!("stat cache rows cut short: {e}");
                        None
                    }
                }
            }
        };
        if row.is_none() {
            self.reader = None;
        }
        row
    }
}

/// A row as its length (four bytes) and its fields: the path and the hash as a length and
/// bytes, the numbers as eight bytes each.
fn encode(r: &StatRow, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0; 4]);
    for s in [&r.path, &r.hash] {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    for n in [
        r.size,
        r.mtime_ns as u64,
        r.ctime_ns as u64,
        r.ino,
        r.dev,
        r.verified_ns as u64,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_le_bytes());
}

fn decode(mut b: &[u8]) -> Option<StatRow> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, rest) = b.split_at_checked(n)?;
        *b = rest;
        Some(head)
    }
    fn string(b: &mut &[u8]) -> Option<String> {
        let len = u32::from_le_bytes(take(b, 4)?.try_into().ok()?) as usize;
        String::from_utf8(take(b, len)?.to_vec()).ok()
    }
    fn number(b: &mut &[u8]) -> Option<u64> {
        Some(u64::from_le_bytes(take(b, 8)?.try_into().ok()?))
    }
    let row = StatRow {
        path: string(&mut b)?,
        hash: string(&mut b)?,
        size: number(&mut b)?,
        mtime_ns: number(&mut b)? as i64,
        ctime_ns: number(&mut b)? as i64,
        ino: number(&mut b)?,
        dev: number(&mut b)?,
        verified_ns: number(&mut b)? as i64,
    };
    b.is_empty().then_some(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: u64) -> StatRow {
        StatRow {
            path: format!("dir/é{i}.py"),
            size: i,
            mtime_ns: -(i as i64),
            ctime_ns: i64::MAX - i as i64,
            ino: u64::MAX - i,
            dev: 1 << 63,
            hash: format!("{i:040x}"),
            verified_ns: i64::MIN + i as i64,
        }
    }

    #[test]
    fn rows_come_back_in_order_from_the_file_or_the_heap() {
        let dir = tempfile::tempdir().unwrap();
        let rows: Vec<StatRow> = (0..3000).map(row).collect();
        let mut on_disk = StatRows::new(dir.path());
        assert!(matches!(on_disk.to, To::File { .. }));
        rows.iter().cloned().for_each(|r| on_disk.push(r));
        assert_eq!(on_disk.into_rows().collect::<Vec<_>>(), rows);
        // No directory to make a temporary file in: the heap keeps them.
        let mut in_memory = StatRows::new(&dir.path().join("missing"));
        assert!(matches!(in_memory.to, To::Memory(_)));
        rows.iter().cloned().for_each(|r| in_memory.push(r));
        assert_eq!(in_memory.into_rows().collect::<Vec<_>>(), rows);
    }

    #[test]
    fn reading_stops_at_a_row_cut_short_or_malformed() {
        let mut bytes = Vec::new();
        encode(&row(1), &mut bytes);
        assert_eq!(decode(&bytes[4..]), Some(row(1)));
        for cut in 4..bytes.len() - 1 {
            assert_eq!(decode(&bytes[4..cut]), None, "cut at {cut}");
        }
        // A byte too many, and a path that is not UTF-8.
        let mut longer = bytes[4..].to_vec();
        longer.push(0);
        assert_eq!(decode(&longer), None);
        let mut bad = bytes[4..].to_vec();
        bad[4] = 0xff;
        assert_eq!(decode(&bad), None);
        // In a file whose writing failed (what was written is a prefix of the rows): the rows
        // before the one cut short come back.
        let mut file = tempfile::tempfile().unwrap();
        let mut second = Vec::new();
        encode(&row(2), &mut second);
        file.write_all(&bytes).unwrap();
        file.write_all(&second[..second.len() - 3]).unwrap();
        file.rewind().unwrap();
        let read = Reading {
            reader: Some(BufReader::new(file)),
            buf: Vec::new(),
        };
        assert_eq!(read.collect::<Vec<_>>(), vec![row(1)]);
    }
}
