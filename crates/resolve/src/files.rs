//! The files a resolver knows, by position: on the heap while they may change (a patchable
//! resolver's), else laid out read-only in memory the caller keeps ([`Files::freeze`]), as the
//! definitions are. Kept as `FileCtx` records with their tables of modules and paths, a
//! repository's files were about 440 bytes each on the heap (2.7 MiB for 6,457 files).
//!
//! A first index's files need not be on the heap at all: [`FilesOut`] writes each file's row as
//! it arrives to a table the caller keeps, and lays them out in path order once all have come.

use crate::input::FileCtx;
use crate::symbols::{MappedTable, TableOut, TablesOut};

/// A file as the resolver reads it.
#[derive(Clone, Copy, Debug)]
pub struct FileRef<'a> {
    pub id: i64,
    /// The File node.
    pub node: i64,
    pub path: &'a str,
    /// Module prefix of the file's qualified names.
    pub module: &'a str,
    /// Index into the rules table.
    pub lang: usize,
}

/// Files by position: a resolver's, in path order (made from a `Vec<FileCtx>` so ordered, or
/// by [`FilesOut::finish`]).
pub enum Files {
    Heap(Vec<FileCtx>),
    /// Per position a row of [`ROW`] bytes (id, node, language, then the start and length of
    /// the path and of the module in the text).
    Frozen(Frozen),
}

/// Files laid out read-only ([`Files::Frozen`]).
pub struct Frozen {
    table: Box<dyn MappedTable>,
    len: usize,
}

impl From<Vec<FileCtx>> for Files {
    fn from(v: Vec<FileCtx>) -> Files {
        Files::Heap(v)
    }
}

const ROW: usize = 36;

/// An error for text too long for the rows' 32-bit offsets.
fn too_long() -> std::io::Error {
    std::io::Error::other("file paths too long for a frozen table")
}

/// `f`'s row, its path then its module placed at `*text_len` in the text (which the caller
/// writes next); moves `*text_len` past them.
fn row_of(f: &FileRef<'_>, text_len: &mut usize) -> std::io::Result<[u8; ROW]> {
    let lang = u32::try_from(f.lang).map_err(|_| too_long())?;
    let mut row = [0u8; ROW];
    row[0..8].copy_from_slice(&f.id.to_le_bytes());
    row[8..16].copy_from_slice(&f.node.to_le_bytes());
    row[16..20].copy_from_slice(&lang.to_le_bytes());
    for (at, s) in [(20, f.path), (28, f.module)] {
        let start = u32::try_from(*text_len).map_err(|_| too_long())?;
        let len = u32::try_from(s.len()).map_err(|_| too_long())?;
        row[at..at + 4].copy_from_slice(&start.to_le_bytes());
        row[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
        *text_len += s.len();
    }
    u32::try_from(*text_len).map_err(|_| too_long())?;
    Ok(row)
}

/// Whether two files read the same.
fn same(a: &FileRef<'_>, b: &FileRef<'_>) -> bool {
    (a.id, a.node, a.path, a.module, a.lang) == (b.id, b.node, b.path, b.module, b.lang)
}

impl Files {
    pub fn len(&self) -> usize {
        match self {
            Files::Heap(v) => v.len(),
            Files::Frozen(f) => f.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file at position `i` (which must be below [`Files::len`]).
    pub fn get(&self, i: usize) -> FileRef<'_> {
        match self {
            Files::Heap(v) => FileRef::from(&v[i]),
            Files::Frozen(f) => read(&*f.table, i).expect("a frozen file's row"),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = FileRef<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Puts `ctx` at position `i` (only files on the heap change).
    pub(crate) fn set(&mut self, i: usize, ctx: FileCtx) {
        match self {
            Files::Heap(v) => v[i] = ctx,
            Files::Frozen(_) => panic!("frozen files do not change"),
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
            Files::Frozen(_) => 0,
        }
    }

    /// Lays the files out read-only in memory `map` makes of their rows and text (a map of a
    /// temporary file) and drops them from the heap. On an error of `map`, text too long for
    /// the rows' 32-bit offsets, or a table that does not give back what was laid out, they
    /// stay as they are.
    pub(crate) fn freeze(&mut self, map: &mut TablesOut<'_>) -> std::io::Result<()> {
        let Files::Heap(v) = self else {
            return Ok(());
        };
        let mut rows = Vec::with_capacity(ROW * v.len());
        let mut text = String::new();
        for f in v.iter() {
            let f = FileRef::from(f);
            let mut text_len = text.len();
            rows.extend_from_slice(&row_of(&f, &mut text_len)?);
            text.push_str(f.path);
            text.push_str(f.module);
        }
        let table = crate::symbols::lay_out(map, &rows, &text)?;
        drop((rows, text));
        let same = table.rows().len() == ROW * v.len()
            && v.iter()
                .enumerate()
                .all(|(i, f)| read(&*table, i).is_some_and(|r| same(&r, &FileRef::from(f))));
        if !same {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "frozen files differ",
            ));
        }
        *self = Files::Frozen(Frozen {
            table,
            len: v.len(),
        });
        Ok(())
    }
}

impl<'a> From<&'a FileCtx> for FileRef<'a> {
    fn from(f: &'a FileCtx) -> FileRef<'a> {
        FileRef {
            id: f.id,
            node: f.node,
            path: &f.path,
            module: &f.module,
            lang: f.lang,
        }
    }
}

/// Files written as they arrive, in any order, to a table the caller keeps (a temporary file,
/// say), then laid out read-only in path order ([`FilesOut::finish`]): a first index's files
/// (whose resolver is never patched) take no heap while its read phase runs, 175 bytes a file
/// as `FileCtx` records.
pub struct FilesOut {
    out: Box<dyn TableOut>,
    len: usize,
    text_len: usize,
    /// Checksums of the rows and the text written ([`fnv`]), to check what is read back.
    sums: [u64; 2],
}

/// FNV-1a of `bytes` continuing from `h` (a whole's is its parts' in turn).
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

impl FilesOut {
    pub fn new(out: Box<dyn TableOut>) -> FilesOut {
        FilesOut {
            out,
            len: 0,
            text_len: 0,
            sums: [FNV_START; 2],
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes a file's row (an error when its text would pass the rows' 32-bit offsets).
    pub fn push(&mut self, f: FileRef<'_>) -> std::io::Result<()> {
        let mut text_len = self.text_len;
        let row = row_of(&f, &mut text_len)?;
        self.out.rows().write_all(&row)?;
        let text = self.out.text();
        text.write_all(f.path.as_bytes())?;
        text.write_all(f.module.as_bytes())?;
        self.sums[0] = fnv(self.sums[0], &row);
        self.sums[1] = fnv(fnv(self.sums[1], f.path.as_bytes()), f.module.as_bytes());
        self.text_len = text_len;
        self.len += 1;
        Ok(())
    }

    /// The files in path order (files of one path in the order they came), laid out anew
    /// through `map`; the table they were written to is dropped. Sorting holds four bytes a
    /// file on the heap. An error when a table cannot be written or mapped, or does not give
    /// back what was written.
    pub fn finish(self, map: &mut TablesOut<'_>) -> std::io::Result<Files> {
        let FilesOut { out, len, sums, .. } = self;
        let arrived = out.finish()?;
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        let read_back = [arrived.rows(), arrived.text().as_bytes()].map(|b| fnv(FNV_START, b));
        if arrived.rows().len() != ROW * len || read_back != sums {
            return Err(invalid("files written differ"));
        }
        let at =
            |i: u32| read(&*arrived, i as usize).ok_or_else(|| invalid("files written differ"));
        for i in 0..len {
            at(i as u32)?;
        }
        let mut order: Vec<u32> = (0..len as u32).collect();
        order.sort_by(|&a, &b| {
            let path = |i| read(&*arrived, i as usize).map(|f| f.path);
            path(a).cmp(&path(b))
        });
        let mut sorted = map()?;
        let mut text_len = 0;
        for &i in &order {
            let f = at(i)?;
            sorted.rows().write_all(&row_of(&f, &mut text_len)?)?;
            let text = sorted.text();
            text.write_all(f.path.as_bytes())?;
            text.write_all(f.module.as_bytes())?;
        }
        let table = sorted.finish()?;
        let laid_out = table.rows().len() == ROW * len
            && order.iter().enumerate().all(|(p, &i)| {
                read(&*table, p)
                    .zip(at(i).ok())
                    .is_some_and(|(a, b)| same(&a, &b))
            });
        if !laid_out {
            return Err(invalid("frozen files differ"));
        }
        Ok(Files::Frozen(Frozen { table, len }))
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
        assert!(matches!(files, Files::Frozen(_)));
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

    /// Files written in any order come back in path order (one path's in the order they
    /// came), as a sorted heap answers; a map that does not give back what was written, for
    /// the files as they came or as laid out, is refused.
    #[test]
    fn files_written_as_they_arrive_are_laid_out_in_path_order() {
        let v = vec![
            ctx(5, "b/z.py", "b.z", 0),
            ctx(3, "a/b.py", "a.b", 1),
            ctx(i64::MIN, "é/ü.rs", "crate::é::ü", 2),
            ctx(4, "a/b.py", "again", 0),
            ctx(1, "", "", 0),
            ctx(2, "a/b", "a", 1),
        ];
        let write_to = |table: std::io::Result<Box<dyn TableOut>>, v: &[FileCtx]| {
            let mut out = FilesOut::new(table.unwrap());
            for f in v {
                out.push(f.into()).unwrap();
            }
            out
        };
        let write = |v: &[FileCtx]| write_to(crate::symbols::held_out(), v);
        let out = write(&v);
        assert_eq!(out.len(), v.len());
        let files = out.finish(&mut crate::symbols::held_out).unwrap();
        assert!(matches!(files, Files::Frozen(_)));
        let mut sorted = v.clone();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        assert_eq!(seen(&files), seen(&Files::Heap(sorted)));
        assert_eq!(seen(&files)[1].2, "a/b");
        assert_eq!((seen(&files)[2].0, seen(&files)[3].0), (3, 4));
        let none = write(&[]).finish(&mut crate::symbols::held_out).unwrap();
        assert!(none.is_empty());
        let wrong: [crate::symbols::Finish; 3] = [
            |rows: Vec<u8>, _| crate::symbols::held(rows, "x".repeat(10)),
            |mut rows: Vec<u8>, text| {
                rows[24] ^= 1;
                crate::symbols::held(rows, text)
            },
            |rows: Vec<u8>, text| crate::symbols::held(rows[..36].to_vec(), text),
        ];
        for wrong in wrong {
            let arrived_wrong = write_to(crate::symbols::out_then(wrong), &v);
            assert!(arrived_wrong.finish(&mut crate::symbols::held_out).is_err());
            let sorted_wrong = write(&v).finish(&mut || crate::symbols::out_then(wrong));
            assert!(sorted_wrong.is_err());
        }
    }
}
