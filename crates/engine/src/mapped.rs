//! A first index's definitions and name tables, in temporary files mapped into memory
//! (`spill.rs` lays the definitions out, the resolver the name tables): their pages are the
//! operating system's cache of a file, read in when resolution needs them (the definitions'
//! dropped again after each batch), not memory the process has to keep. On 73 MB of source
//! they are 28 MiB of rows and strings and 11.6 MiB of name lists the resolver no longer
//! holds.
//!
//! The only unsafe code of the engine, for the map and its advice. A map is undefined behaviour
//! if its file changes underneath it: these files are unlinked from creation (`tempfile`), so no
//! other process can open them, and nothing writes to them once they are mapped.
#![allow(unsafe_code)]

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use memmap2::{Mmap, UncheckedAdvice};

/// Rows and their text, each a map of a file: the definitions, the normalised names.
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

/// Writes `rows` and `text` to temporary files in `dir` and maps them.
pub(crate) fn table(
    dir: &Path,
    rows: Vec<u8>,
    text: String,
) -> io::Result<Box<dyn sextant_resolve::MappedTable>> {
    let written = |bytes: &[u8]| -> io::Result<File> {
        let mut file = tempfile::tempfile_in(dir)?;
        file.write_all(bytes)?;
        Ok(file)
    };
    let (rows_file, text_file) = (written(&rows)?, written(text.as_bytes())?);
    drop((rows, text));
    Ok(Box::new(MappedRows::new(rows_file, text_file)?))
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

/// Writes `words` (in this machine's byte order) to a temporary file in `dir` and maps it.
pub(crate) fn words(
    dir: &Path,
    words: Vec<u32>,
) -> io::Result<Box<dyn sextant_resolve::MappedWords>> {
    let mut out = io::BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(dir)?);
    for w in &words {
        out.write_all(&w.to_ne_bytes())?;
    }
    drop(words);
    let file = out.into_inner().map_err(|e| e.into_error())?;
    // SAFETY: see the module's comment: the file is an unlinked temporary file written before
    // and never after this point.
    let map = unsafe { Mmap::map(&file)? };
    if map.as_ptr().align_offset(std::mem::align_of::<u32>()) != 0 || map.len() % 4 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "unaligned map of words",
        ));
    }
    Ok(Box::new(MappedWords { map }))
}
