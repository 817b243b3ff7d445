//! The files a resolver knows, by position: on the heap while they may change (a patchable
//! resolver's), else laid out read-only in memory the caller keeps ([`Files::freeze`]), as the
//! definitions are. Kept as `FileCtx` records with their tables of modules and paths, a
//! repository's files were about 440 bytes each on the heap (2.7 MiB for 6,457 files).

use crate::input::FileCtx;
use crate::symbols::MappedTable;

/// A file as the resolver reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FileRef<'a> {
    pub id: i64,
    /// The File node.
    pub node: i64,
    pub path: &'a str,
    /// Module prefix of the file's qualified names.
    pub module: &'a str,
    /// Index into the rules table.
    pub lang: usize,
}

/// Files by position.
pub(crate) enum Files {
    Heap(Vec<FileCtx>),
    /// Per position a row of [`ROW`] bytes (id, node, language, then the start and length of
    /// the path and of the module in the text).
    Frozen {
        table: Box<dyn MappedTable>,
        len: usize,
    },
}

const ROW: usize = 36;

impl Files {
    pub(crate) fn len(&self) -> usize {
        match self {
            Files::Heap(v) => v.len(),
            Files::Frozen { len, .. } => *len,
        }
    }

    /// The file at position `i` (which must be below [`Files::len`]).
    pub(crate) fn get(&self, i: usize) -> FileRef<'_> {
        match self {
            Files::Heap(v) => {
                let f = &v[i];
                FileRef {
                    id: f.id,
                    node: f.node,
                    path: &f.path,
                    module: &f.module,
                    lang: f.lang,
                }
            }
            Files::Frozen { table, .. } => read(&**table, i).expect("a frozen file's row"),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = FileRef<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Puts `ctx` at position `i` (only files on the heap change).
    pub(crate) fn set(&mut self, i: usize, ctx: FileCtx) {
        match self {
            Files::Heap(v) => v[i] = ctx,
            Files::Frozen { .. } => panic!("frozen files do not change"),
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Files::Heap(v) => {
                v.capacity() * std::mem::size_of::<FileCtx>()
                    + v.iter()
                        .map(|f| f.path.capacity() + f.module.capacity())
                        .sum::<usize>()
            }
            Files::Frozen { .. } => 0,
        }
    }

    /// Lays the files out read-only in memory `map` makes of their rows and text (a map of a
    /// temporary file) and drops them from the heap. On an error of `map`, text too long for
    /// the rows' 32-bit offsets, or a table that does not give back what was laid out, they
    /// stay as they are.
    pub(crate) fn freeze(
        &mut self,
        map: &mut crate::symbols::TablesOut<'_>,
    ) -> std::io::Result<()> {
        let Files::Heap(v) = self else {
            return Ok(());
        };
        let too_long = || std::io::Error::other("file paths too long for a frozen table");
        let mut rows = Vec::with_capacity(ROW * v.len());
        let mut text = String::new();
        for f in v.iter() {
            let lang = u32::try_from(f.lang).map_err(|_| too_long())?;
            rows.extend_from_slice(&f.id.to_le_bytes());
            rows.extend_from_slice(&f.node.to_le_bytes());
            rows.extend_from_slice(&lang.to_le_bytes());
            for s in [&f.path, &f.module] {
                let start = u32::try_from(text.len()).map_err(|_| too_long())?;
                let len = u32::try_from(s.len()).map_err(|_| too_long())?;
                text.push_str(s);
                rows.extend_from_slice(&start.to_le_bytes());
                rows.extend_from_slice(&len.to_le_bytes());
            }
        }
        u32::try_from(text.len()).map_err(|_| too_long())?;
        let table = crate::symbols::lay_out(map, &rows, &text)?;
        drop((rows, text));
        let same = table.rows().len() == ROW * v.len()
            && v.iter().enumerate().all(|(i, f)| {
                read(&*table, i).is_some_and(|r| {
                    (r.id, r.node, r.path, r.module, r.lang)
                        == (f.id, f.node, f.path.as_str(), f.module.as_str(), f.lang)
                })
            });
        if !same {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "frozen files differ",
            ));
        }
        let frozen = Files::Frozen {
            table,
            len: v.len(),
        };
        *self = frozen;
        Ok(())
    }
}

/// The file at position `i` of a frozen table (`None` past its end or for a row pointing
/// outside the text).
fn read(table: &dyn MappedTable, i: usize) -> Option<FileRef<'_>> {
    let row = table.rows().get(ROW * i..ROW * (i + 1))?;
    let u64_at = |at: usize| u64::from_le_bytes(row[at..at + 8].try_into().expect("eight bytes"));
    let u32_at =
        |at: usize| u32::from_le_bytes(row[at..at + 4].try_into().expect("four bytes")) as usize;
    let text = table.text();
    let str_at = |at: usize| text.get(u32_at(at)..u32_at(at) + u32_at(at + 4));
    Some(FileRef {
        id: u64_at(0) as i64,
        node: u64_at(8) as i64,
        lang: u32_at(16),
        path: str_at(20)?,
        module: str_at(28)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(id: i64, path: &str, module: &str, lang: usize) -> FileCtx {
        FileCtx {
            id,
            node: id.wrapping_mul(100) + 7,
            path: path.into(),
            module: module.into(),
            lang,
        }
    }

    fn seen(files: &Files) -> Vec<(i64, i64, String, String, usize)> {
        files
            .iter()
            .map(|f| (f.id, f.node, f.path.into(), f.module.into(), f.lang))
            .collect()
    }

    #[test]
    fn frozen_files_answer_as_the_heap_did_and_a_wrong_copy_is_refused() {
        let v = vec![
            ctx(3, "a/b.py", "a.b", 0),
            ctx(-1, "", "", 2),
            ctx(i64::MAX, "é/ü.rs", "crate::é::ü", 1),
        ];
        let mut files = Files::Heap(v.clone());
        let before = seen(&files);
        files.freeze(&mut crate::symbols::held_out).unwrap();
        assert!(matches!(files, Files::Frozen { .. }));
        assert_eq!(files.heap_bytes(), 0);
        assert_eq!(seen(&files), before);
        // A map that does not give back what was laid out leaves the files on the heap.
        for wrong in [
            |rows: Vec<u8>, _| crate::symbols::held(rows, "x".repeat(40)),
            |mut rows: Vec<u8>, text| {
                rows[0] ^= 1;
                crate::symbols::held(rows, text)
            },
            |rows: Vec<u8>, text| crate::symbols::held(rows[..36].to_vec(), text),
        ] as [crate::symbols::Finish; 3]
        {
            let mut files = Files::Heap(v.clone());
            assert!(
                files
                    .freeze(&mut || crate::symbols::out_then(wrong))
                    .is_err()
            );
            assert!(matches!(files, Files::Heap(_)));
            assert_eq!(seen(&files), before);
        }
    }
}
