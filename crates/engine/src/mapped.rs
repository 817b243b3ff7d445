//! A first index's definitions, in temporary files mapped into memory (`spill.rs` lays them
//! out): their pages are the operating system's cache of a file, read in when resolution needs
//! them and dropped again after each batch, not memory the process has to keep. On 73 MB of
//! source they are 28 MiB of rows and strings that the resolver no longer holds.
//!
//! The only unsafe code of the engine, for the map and its advice. A map is undefined behaviour
//! if its file changes underneath it: these files are unlinked from creation (`tempfile`), so no
//! other process can open them, and nothing writes to them once they are mapped.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;

use memmap2::{Mmap, UncheckedAdvice};

#[derive(Debug)]
struct MappedSymbols {
    rows: Mmap,
    text: Mmap,
}

impl MappedSymbols {
    fn text_bytes(&self) -> &[u8] {
        &self.text
    }
}

impl sextant_resolve::MappedTable for MappedSymbols {
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
                tracing::debug!("madvise(DONTNEED) of mapped definitions: {e}");
            }
        }
    }
}

/// Maps the definitions laid out in `rows` and `text` (`spill::SymbolSpill::finish`).
pub(crate) fn symbols(rows: File, text: File) -> io::Result<sextant_resolve::Symbols> {
    // SAFETY: see the module's comment: the files are unlinked temporary files written before
    // and never after this point.
    let (rows, text) = unsafe { (Mmap::map(&rows)?, Mmap::map(&text)?) };
    let table = MappedSymbols { rows, text };
    std::str::from_utf8(table.text_bytes()).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("mapped definitions: {e}"),
        )
    })?;
    sextant_resolve::Symbols::mapped(Box::new(table))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
