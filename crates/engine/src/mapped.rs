//! A first index's definitions and name tables, in temporary files mapped into memory
//! (`spill.rs` lays the definitions out, the resolver the name tables): their pages are the
//! operating system's cache of a file, read in when resolution needs them (the definitions'
//! dropped again after each batch), not memory the process has to keep. On 73 MB of source
//! they are 28 MiB of rows and strings and 11.6 MiB of name lists the resolver no longer
//! holds.
//!
//! The only unsafe code of the engine, for the map and its advice. A map is undefined behaviour
//! if its file changes underneath it: these files are unlinked from creation (`tempfile`), so no
//! other process can open them, and nothing writes to them once they are mapped read-only (the
//! name tables' words are written through a writable map of their own first, `words_out`).
#![allow(unsafe_code)]

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use memmap2::{Mmap, MmapMut, UncheckedAdvice};

/// Rows and their text, each a map of a file: the definitions, the files.
#[derive(Debug)]
struct MappedRows {
    rows: Mmap,
    text: Mmap,
}

impl MappedRows {
    /// Maps `rows` and `text`, the text checked to be UTF-8.
    fn new(rows: File, text: File) -> io::Result<MappedRows> {
        // SAFETY: see the module's comment: the files are unlinked temporary files written
        // before and never after this point.
        let (rows, text) = unsafe { (Mmap::map(&rows)?, Mmap::map(&text)?) };
        let table = MappedRows { rows, text };
        std::str::from_utf8(table.text_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("mapped text: {e}")))?;
        Ok(table)
    }

    fn text_bytes(&self) -> &[u8] {
        &self.text
    }
}

impl sextant_resolve::MappedTable for MappedRows {
    fn rows(&self) -> &[u8] {
        &self.rows
    }

    fn text(&self) -> &str {
        // SAFETY: checked to be UTF-8 when mapped (`symbols`); the map is read-only and its
        // file is written by no one once mapped (see the module's comment).
        unsafe { std::str::from_utf8_unchecked(self.text_bytes()) }
    }

    fn release(&mut self) {
        for map in [&self.rows, &self.text] {
            // SAFETY: `&mut self`: nothing borrows the map. The map is a shared mapping of an
            // unchanged file, so the pages read again after the advice hold the same bytes.
            if let Err(e) = unsafe { map.unchecked_advise(UncheckedAdvice::DontNeed) } {
                tracing::debug!("madvise(DONTNEED) of mapped rows: {e}");
            }
        }
    }
}

/// Maps the definitions laid out in `rows` and `text` (`spill::SymbolSpill::finish`).
pub(crate) fn symbols(rows: File, text: File) -> io::Result<sextant_resolve::Symbols> {
    sextant_resolve::Symbols::mapped(Box::new(MappedRows::new(rows, text)?))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A table laid out in two temporary files in `dir`, its rows and its text written as they are
/// made, then mapped.
pub(crate) fn table_out(dir: &Path) -> io::Result<Box<dyn sextant_resolve::TableOut>> {
    let file = || -> io::Result<io::BufWriter<File>> {
        Ok(io::BufWriter::with_capacity(
            1 << 16,
            tempfile::tempfile_in(dir)?,
        ))
    };
    Ok(Box::new(TableFiles {
        rows: file()?,
        text: file()?,
    }))
}

struct TableFiles {
    rows: io::BufWriter<File>,
    text: io::BufWriter<File>,
}

impl sextant_resolve::TableOut for TableFiles {
    fn rows(&mut self) -> &mut dyn Write {
        &mut self.rows
    }

    fn text(&mut self) -> &mut dyn Write {
        &mut self.text
    }

    fn finish(self: Box<Self>) -> io::Result<Box<dyn sextant_resolve::MappedTable>> {
        let done = |w: io::BufWriter<File>| w.into_inner().map_err(|e| e.into_error());
        let (rows, text) = (done(self.rows)?, done(self.text)?);
        Ok(Box::new(MappedRows::new(rows, text)?))
    }
}

/// Words in a mapped temporary file.
#[derive(Debug)]
struct MappedWords {
    map: Mmap,
}

impl sextant_resolve::MappedWords for MappedWords {
    fn words(&self) -> &[u32] {
        let bytes: &[u8] = &self.map;
        // SAFETY: a map starts on a page boundary (aligned for u32; `words` checks it), its
        // length was written as whole words, and any bit pattern is a valid u32. The map is
        // read-only and its file written by no one once mapped (see the module's comment).
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u32>(), bytes.len() / 4) }
    }
}

/// Words being written: a shared map of a temporary file of their length, so that the pages
/// written are the file's, which the system writes back and may drop, not the process's heap.
struct WordsFile {
    map: MmapMut,
}

impl sextant_resolve::WordsOut for WordsFile {
    fn words_mut(&mut self) -> &mut [u32] {
        let bytes: &mut [u8] = &mut self.map;
        // SAFETY: a map starts on a page boundary (aligned for u32; `words_out` checks it), its
        // length is whole words, any bit pattern is a valid u32, and `&mut self` borrows the
        // map alone. No one else maps or writes the file (see the module's comment).
        unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<u32>(), bytes.len() / 4) }
    }

    fn finish(self: Box<Self>) -> io::Result<Box<dyn sextant_resolve::MappedWords>> {
        Ok(Box::new(MappedWords {
            map: self.map.make_read_only()?,
        }))
    }
}

/// Writable words, `n` of them (zeroed; at least one: a map cannot be empty), in a temporary
/// file in `dir` mapped into memory.
pub(crate) fn words_out(dir: &Path, n: usize) -> io::Result<Box<dyn sextant_resolve::WordsOut>> {
    if n == 0 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no words"));
    }
    let file = tempfile::tempfile_in(dir)?;
    file.set_len(4 * n as u64)?;
    // SAFETY: see the module's comment: the file is an unlinked temporary file that only this
    // map writes.
    let map = unsafe { MmapMut::map_mut(&file)? };
    if map.as_ptr().align_offset(std::mem::align_of::<u32>()) != 0 || map.len() != 4 * n {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "unaligned map of words",
        ));
    }
    Ok(Box::new(WordsFile { map }))
}

/// 64-bit words of a file, in a writable shared map of it (none when the file is empty: a map
/// cannot be): the index of a temporary file's pieces (`spill::PieceIndex`), sorted and marked
/// in place.
pub(crate) struct U64s {
    map: Option<MmapMut>,
}

impl U64s {
    /// Maps `file`, whose length is whole words.
    pub(crate) fn new(file: &File) -> io::Result<U64s> {
        let len = file.metadata()?.len();
        if len % 8 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a file of words cut short",
            ));
        }
        if len == 0 {
            return Ok(U64s { map: None });
        }
        // SAFETY: see the module's comment: an unlinked temporary file that only this map
        // writes once it is made.
        let map = unsafe { MmapMut::map_mut(file)? };
        if map.as_ptr().align_offset(std::mem::align_of::<u64>()) != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "unaligned map of words",
            ));
        }
        Ok(U64s { map: Some(map) })
    }

    pub(crate) fn words(&self) -> &[u64] {
        let Some(map) = &self.map else {
            return &[];
        };
        let bytes: &[u8] = map;
        // SAFETY: a map starts on a page boundary (aligned for u64; `new` checks it), its
        // length is whole words (`new` checks it), and any bit pattern is a valid u64.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u64>(), bytes.len() / 8) }
    }

    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        let Some(map) = &mut self.map else {
            return &mut [];
        };
        let bytes: &mut [u8] = map;
        // SAFETY: as in `words`; `&mut self` borrows the map alone.
        unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<u64>(), bytes.len() / 8) }
    }
}

/// Words read as signed (ids written as their bits, `id as u64`).
pub(crate) fn signed(words: &[u64]) -> &[i64] {
    // SAFETY: i64 and u64 have the same size and alignment, and every bit pattern is a valid
    // i64; the slice borrows `words` for as long as it lives.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<i64>(), words.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_written_through_the_map_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = words_out(dir.path(), 1000).unwrap();
        assert!(out.words_mut().iter().all(|&w| w == 0));
        for (i, w) in out.words_mut().iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(0x9E37_79B9);
        }
        let words = out.finish().unwrap();
        let expected: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        assert_eq!(words.words(), expected.as_slice());
        assert!(words_out(dir.path(), 0).is_err());
        assert!(words_out(&dir.path().join("missing"), 4).is_err());
    }

    /// A table's rows and text written through its files come back mapped; a table without
    /// text (the families') too; text that is not UTF-8 is refused.
    #[test]
    fn a_table_written_through_its_files_is_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = table_out(dir.path()).unwrap();
        out.rows().write_all(&[1, 2, 3, 4]).unwrap();
        out.text().write_all("ab".as_bytes()).unwrap();
        out.text().write_all("é".as_bytes()).unwrap();
        let table = out.finish().unwrap();
        assert_eq!((table.rows(), table.text()), (&[1u8, 2, 3, 4][..], "abé"));
        let mut rows_only = table_out(dir.path()).unwrap();
        rows_only.rows().write_all(&[9; 8]).unwrap();
        let table = rows_only.finish().unwrap();
        assert_eq!((table.rows(), table.text()), (&[9u8; 8][..], ""));
        let mut bad = table_out(dir.path()).unwrap();
        bad.text().write_all(&[0xff, 0xfe]).unwrap();
        assert!(bad.finish().is_err());
    }

    /// Words written to a file are read and changed through its map, and the file sees the
    /// change; an empty file has none, a file cut short inside a word is refused.
    #[test]
    fn a_files_words_are_mapped_writable() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = tempfile::tempfile_in(dir.path()).unwrap();
        for w in [3u64, u64::MAX, 7] {
            file.write_all(&w.to_ne_bytes()).unwrap();
        }
        let mut words = U64s::new(&file).unwrap();
        assert_eq!(words.words(), [3, u64::MAX, 7]);
        words.words_mut().sort_unstable();
        assert_eq!(words.words(), [3, 7, u64::MAX]);
        drop(words);
        let mut back = [0u8; 8];
        std::os::unix::fs::FileExt::read_exact_at(&file, &mut back, 8).unwrap();
        assert_eq!(u64::from_ne_bytes(back), 7);
        let empty = tempfile::tempfile_in(dir.path()).unwrap();
        assert!(U64s::new(&empty).unwrap().words().is_empty());
        file.write_all(&[1, 2, 3]).unwrap();
        assert!(U64s::new(&file).is_err());
    }
}
