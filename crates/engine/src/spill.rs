//! The typed bindings of plain names (`sextant_resolve::paged`), a page per file, in a temporary
//! file beside the database while a streamed index runs: the resolver loads a file's page when a
//! batch first needs it and forgets it after the batch, so those bindings (most of them: 97 % of
//! Django's) take no memory between. The file is unlinked from the start (`tempfile`), so
//! nothing is left behind however the process ends.

use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use rustc_hash::FxHashMap;
use sextant_resolve as resolve;
use sextant_store::BindingRow;

use crate::{Error, Result};

/// Pages being written.
pub(crate) struct BindingSpill {
    out: BufWriter<std::fs::File>,
    at: u64,
    /// Per file, where its page's pieces are (in the order written).
    pages: FxHashMap<i64, Vec<(u64, u32)>>,
    buf: Vec<u8>,
}

impl BindingSpill {
    /// A spill in `dir` (the repository's data directory).
    pub(crate) fn new(dir: &Path) -> std::io::Result<BindingSpill> {
        Ok(BindingSpill {
            out: BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(dir)?),
            at: 0,
            pages: FxHashMap::default(),
            buf: Vec::new(),
        })
    }

    /// Files `rows`: plain names' bindings into their files' pages, the others into `table`
    /// (the resolver's own). A file's rows stay in the order given.
    pub(crate) fn add(
        &mut self,
        rows: &[BindingRow],
        table: &mut resolve::Bindings,
    ) -> std::io::Result<()> {
        let mut file = None;
        for b in rows {
            if !resolve::paged(&b.name) {
                table.push(
                    b.file_id,
                    b.scope_id,
                    &b.name,
                    b.type_text.as_deref(),
                    b.value.as_deref(),
                );
                continue;
            }
            if file != Some(b.file_id) {
                if let Some(f) = file {
                    self.flush_page(f)?;
                }
                file = Some(b.file_id);
            }
            encode(&mut self.buf, b);
        }
        if let Some(f) = file {
            self.flush_page(f)?;
        }
        Ok(())
    }

    fn flush_page(&mut self, file: i64) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(self.buf.len())
            .map_err(|_| std::io::Error::other("a file's bindings exceed 4 GiB"))?;
        self.out.write_all(&self.buf)?;
        self.pages.entry(file).or_default().push((self.at, len));
        self.at += u64::from(len);
        self.buf.clear();
        Ok(())
    }

    /// The pages, readable.
    pub(crate) fn finish(self) -> Result<Box<dyn resolve::BindingSource>> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::Io(format!("binding pages: {}", e.error())))?;
        Ok(Box::new(SpilledPages {
            file,
            pages: self.pages,
        }))
    }
}

/// A binding as a page holds it: scope, then name, type and value, each a length (`u32::MAX`:
/// absent) and its bytes.
fn encode(buf: &mut Vec<u8>, b: &BindingRow) {
    buf.extend_from_slice(&b.scope_id.to_le_bytes());
    for s in [
        Some(b.name.as_str()),
        b.type_text.as_deref(),
        b.value.as_deref(),
    ] {
        match s {
            Some(s) => {
                // A string is cut under 4 GiB, as the resolver's tables cut it.
                let s = &s[..s.floor_char_boundary(u32::MAX as usize - 1)];
                buf.extend_from_slice(&(s.len() as u32).to_le_bytes());
                buf.extend_from_slice(s.as_bytes());
            }
            None => buf.extend_from_slice(&u32::MAX.to_le_bytes()),
        }
    }
}

/// Decodes one page piece into `to` (the bindings of `file`); `None` when it is malformed.
fn decode(bytes: &[u8], file: i64, to: &mut resolve::Bindings) -> Option<()> {
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, tail) = rest.split_at_checked(n)?;
        *rest = tail;
        Some(head)
    }
    let mut rest = bytes;
    while !rest.is_empty() {
        let scope = i64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?);
        let mut text: [Option<&str>; 3] = [None; 3];
        for t in &mut text {
            let len = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
            if len != u32::MAX {
                *t = Some(std::str::from_utf8(take(&mut rest, len as usize)?).ok()?);
            }
        }
        to.push(file, scope, text[0]?, text[1], text[2]);
    }
    Some(())
}

/// Written pages, read back by the resolver's threads (`pread`: no shared cursor).
struct SpilledPages {
    file: std::fs::File,
    pages: FxHashMap<i64, Vec<(u64, u32)>>,
}

impl resolve::BindingSource for SpilledPages {
    fn bindings_of(&self, file: i64) -> resolve::Bindings {
        let mut out = resolve::Bindings::default();
        for &(at, len) in self.pages.get(&file).map(Vec::as_slice).unwrap_or_default() {
            let mut bytes = vec![0u8; len as usize];
            let read = self.file.read_exact_at(&mut bytes, at);
            if read.is_err() || decode(&bytes, file, &mut out).is_none() {
                // Resolution goes on without them, which the log says: a local's type unknown
                // gives a less precise edge, not a wrong one.
                tracing::error!(file, "binding page unreadable: {read:?}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(file: i64, scope: i64, name: &str, t: Option<&str>, v: Option<&str>) -> BindingRow {
        BindingRow {
            file_id: file,
            scope_id: scope,
            name: name.into(),
            type_text: t.map(Into::into),
            value: v.map(Into::into),
            line: 1,
        }
    }

    type Owned = (i64, i64, String, Option<String>, Option<String>);

    fn owned(b: &resolve::Bindings) -> Vec<Owned> {
        b.iter()
            .map(|r| {
                let b = r.to_bind();
                (b.file, b.scope, b.name, b.type_text, b.value)
            })
            .collect()
    }

    #[test]
    fn pages_give_back_each_files_plain_bindings_in_order_and_keep_paths_in_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = BindingSpill::new(dir.path()).unwrap();
        let mut table = resolve::Bindings::default();
        let first = vec![
            row(1, 10, "x", Some("int"), None),
            row(1, 10, "self.store", None, Some("Store")),
            row(1, 11, "é", None, Some("make")),
            row(2, 20, "y", None, None),
        ];
        spill.add(&first, &mut table).unwrap();
        // A file's rows in a second call (the reused files' rows come apart from the new ones).
        spill
            .add(&[row(1, 12, "z", Some(""), Some("f"))], &mut table)
            .unwrap();
        let pages = spill.finish().unwrap();

        let expect = |rows: &[BindingRow]| -> Vec<Owned> {
            let mut b = resolve::Bindings::default();
            for r in rows {
                b.push(
                    r.file_id,
                    r.scope_id,
                    &r.name,
                    r.type_text.as_deref(),
                    r.value.as_deref(),
                );
            }
            owned(&b)
        };
        assert_eq!(
            owned(&pages.bindings_of(1)),
            expect(&[
                row(1, 10, "x", Some("int"), None),
                row(1, 11, "é", None, Some("make")),
                row(1, 12, "z", Some(""), Some("f")),
            ])
        );
        assert_eq!(
            owned(&pages.bindings_of(2)),
            expect(&[row(2, 20, "y", None, None)])
        );
        assert!(pages.bindings_of(3).is_empty());
        assert_eq!(
            owned(&table),
            expect(&[row(1, 10, "self.store", None, Some("Store"))])
        );
    }

    #[test]
    fn a_malformed_page_decodes_to_nothing_more() {
        let mut buf = Vec::new();
        encode(&mut buf, &row(1, 5, "x", None, None));
        let mut out = resolve::Bindings::default();
        assert!(decode(&buf[..buf.len() - 1], 1, &mut out).is_none());
        let mut out = resolve::Bindings::default();
        assert!(decode(&buf, 1, &mut out).is_some());
        assert_eq!(out.len(), 1);
    }
}
