//! The typed bindings of plain names (`sextant_resolve::paged`), a page per file, in a temporary
//! file beside the database while a streamed index runs: the resolver loads a file's page when a
//! batch first needs it and forgets it after the batch, so those bindings (most of them: 97 % of
//! Django's) take no memory between. The file is unlinked from the start (`tempfile`), so
//! nothing is left behind however the process ends.

use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use sextant_model::{Confidence, EdgeKind, Provenance};
use sextant_resolve as resolve;
use sextant_store::{BindingRow, EdgeRow, UnresolvedRow};

use crate::{Error, Result};

/// Pages being written.
pub(crate) struct BindingSpill {
    w: PieceWriter,
}

impl BindingSpill {
    /// About the heap bytes held: where each file's pages are, and the write buffers.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.w.heap_bytes()
    }

    /// A spill in `dir` (the repository's data directory).
    pub(crate) fn new(dir: &Path) -> std::io::Result<BindingSpill> {
        Ok(BindingSpill {
            w: PieceWriter::new(dir)?,
        })
    }

    /// Files `rows`: plain names' bindings into their files' pages, the others into `table`
    /// (the resolver's own). A file's rows stay in the order given.
    pub(crate) fn add(
        &mut self,
        rows: &[BindingRow],
        table: &mut resolve::Bindings,
    ) -> std::io::Result<()> {
        for b in rows {
            if resolve::paged(&b.name) {
                self.w.start(b.file_id)?;
                encode(&mut self.w.buf, b);
            } else {
                crate::pipeline::push_bindings(table, std::slice::from_ref(b));
            }
        }
        self.w.flush()
    }

    /// The pages, readable.
    pub(crate) fn finish(self) -> Result<Box<dyn resolve::BindingSource>> {
        let pieces = self
            .w
            .finish()
            .map_err(|e| Error::Io(format!("binding pages: {e}")))?;
        Ok(Box::new(SpilledPages(pieces)))
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

/// Written pages, read back by the resolver's threads.
struct SpilledPages(Pieces);

impl resolve::BindingSource for SpilledPages {
    fn bindings_of(&self, file: i64) -> resolve::Bindings {
        let mut out = resolve::Bindings::default();
        let read = self.0.bytes_of(file);
        if !matches!(&read, Ok(bytes) if decode(bytes.as_deref().unwrap_or_default(), file, &mut out).is_some())
        {
            // Resolution goes on without them, which the log says: a local's type unknown
            // gives a less precise edge, not a wrong one.
            tracing::error!(file, "binding page unreadable: {:?}", read.err());
        }
        out
    }
}

/// A first index's definitions, written by the read phase a piece per file
/// (`resolve::encode_piece`) and laid out in resolution order for the resolver to read from a
/// map (`mapped.rs`) instead of memory.
pub(crate) struct SymbolSpill {
    w: PieceWriter,
    dir: std::path::PathBuf,
}

impl SymbolSpill {
    pub(crate) fn new(dir: &Path) -> std::io::Result<SymbolSpill> {
        Ok(SymbolSpill {
            w: PieceWriter::new(dir)?,
            dir: dir.to_path_buf(),
        })
    }

    /// About the heap bytes held: where each file's pieces are, and the write buffers.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.w.heap_bytes()
    }

    /// Files `defs`, definitions of `file`, as one more piece of the file's.
    pub(crate) fn add<'a>(
        &mut self,
        file: i64,
        defs: impl IntoIterator<Item = resolve::SymRef<'a>>,
    ) -> std::io::Result<()> {
        self.w.start(file)?;
        resolve::encode_piece(defs, &mut self.w.buf);
        Ok(())
    }

    /// The definitions, `files`' first in that order (each file's in id order), then any
    /// other file's (by file id), as a read-only table mapped from two more temporary files.
    pub(crate) fn finish(self, files: &[i64]) -> std::io::Result<resolve::Symbols> {
        let pieces = self.w.finish()?;
        let listed: rustc_hash::FxHashSet<i64> = files.iter().copied().collect();
        let rest: Vec<i64> = pieces
            .at
            .files()
            .into_iter()
            .filter(|f| !listed.contains(f))
            .collect();
        let mut rows = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(&self.dir)?);
        let mut text = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(&self.dir)?);
        let mut layout = resolve::MappedLayout::default();
        let (mut row_bytes, mut text_bytes) = (Vec::new(), Vec::new());
        for &file in files.iter().chain(&rest) {
            let Some(bytes) = pieces.bytes_of(file)? else {
                continue;
            };
            layout
                .append(&bytes, &mut row_bytes, &mut text_bytes)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            rows.write_all(&row_bytes)?;
            text.write_all(&text_bytes)?;
            row_bytes.clear();
            text_bytes.clear();
        }
        let done = |w: BufWriter<std::fs::File>| w.into_inner().map_err(|e| e.into_error());
        crate::mapped::symbols(done(rows)?, done(text)?)
    }
}

/// A first index's imports, written by the read phase a piece per file and read back a file
/// at a time by the resolver's import passes ([`SpilledImports`]) instead of waiting in memory.
pub(crate) struct ImportPieces {
    w: PieceWriter,
    count: u64,
}

/// The bytes of a string that may be absent: its length ([`NO_STRING`] for none), its bytes.
fn put_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        None => out.extend_from_slice(&NO_STRING.to_le_bytes()),
    }
}

const NO_STRING: u32 = u32::MAX;

impl ImportPieces {
    pub(crate) fn new(dir: &Path) -> std::io::Result<ImportPieces> {
        Ok(ImportPieces {
            w: PieceWriter::new(dir)?,
            count: 0,
        })
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.w.heap_bytes()
    }

    /// Imports written so far.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Files `imports`, all of one file.
    pub(crate) fn add(&mut self, imports: &[resolve::Imp]) -> std::io::Result<()> {
        let Some(first) = imports.first() else {
            return Ok(());
        };
        for i in imports {
            self.w.start(first.file)?;
            let out = &mut self.w.buf;
            out.extend_from_slice(&i.id.to_le_bytes());
            out.extend_from_slice(&i.src.to_le_bytes());
            out.push(u8::from(i.wildcard));
            put_str(out, Some(&i.source));
            put_str(out, i.name.as_deref());
            put_str(out, i.alias.as_deref());
        }
        self.count += imports.len() as u64;
        Ok(())
    }

    /// The imports of `files`, to be read in that order. Another file's are left out: the
    /// resolver passes over imports of files it does not know.
    pub(crate) fn finish(self, files: Vec<i64>) -> std::io::Result<SpilledImports> {
        Ok(SpilledImports {
            pieces: self.w.finish()?,
            files,
            error: std::sync::Mutex::new(None),
        })
    }
}

/// Imports on disk, handed to the resolver a file at a time ([`ImportPieces`]).
pub(crate) struct SpilledImports {
    pieces: Pieces,
    files: Vec<i64>,
    /// The first failure to read a file's imports back (the index fails with it).
    error: std::sync::Mutex<Option<String>>,
}

impl SpilledImports {
    pub(crate) fn error(&self) -> Option<String> {
        self.error.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

/// A file's imports from their bytes ([`ImportPieces::add`]); `None` if malformed.
fn decode_imports(file: i64, mut b: &[u8]) -> Option<Vec<resolve::Imp>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let id = i64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let src = i64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let wildcard = take(&mut b, 1)?[0] != 0;
        out.push(resolve::Imp {
            id,
            file,
            src,
            source: string(&mut b)??,
            name: string(&mut b)?,
            alias: string(&mut b)?,
            wildcard,
        });
    }
    out.sort_by_key(|i| i.id);
    Some(out)
}

impl resolve::ImportSource for SpilledImports {
    fn for_each_file(&self, f: &mut dyn FnMut(&[resolve::Imp])) {
        for &file in &self.files {
            let imports = match self.pieces.bytes_of(file) {
                Ok(None) => continue,
                Ok(Some(bytes)) => decode_imports(file, &bytes)
                    .ok_or_else(|| format!("file {file}: malformed imports")),
                Err(e) => Err(format!("file {file}: {e}")),
            };
            match imports {
                Ok(imports) => f(&imports),
                Err(e) => {
                    if let Ok(mut slot) = self.error.lock() {
                        slot.get_or_insert(e);
                    }
                }
            }
        }
    }
}

/// A first index's references, written by the read phase a piece per file and read back a
/// batch of files at a time by resolution ([`SpilledRefs`]). Before, the first 131k were kept
/// in memory (13 MiB of small strings, which also kept the read phase's pages from going back
/// to the system: 15-20 MiB of anonymous memory on 73 MB of source) and the rest read back
/// from the store.
pub(crate) struct RefPieces {
    w: PieceWriter,
}

impl RefPieces {
    pub(crate) fn new(dir: &Path) -> std::io::Result<RefPieces> {
        Ok(RefPieces {
            w: PieceWriter::new(dir)?,
        })
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.w.heap_bytes()
    }

    /// Files `refs` (the store's rows or resolution's references), all of one file, in id
    /// order.
    pub(crate) fn add<R: RefParts>(&mut self, refs: &[R]) -> std::io::Result<()> {
        let Some(first) = refs.first() else {
            return Ok(());
        };
        for r in refs {
            // Each row may start a piece (a file's rows in pieces of about 64 KiB).
            self.w.start(first.file())?;
            let (id, src, kind, written) = r.parts();
            encode_ref(&mut self.w.buf, id, src, kind, written);
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> std::io::Result<SpilledRefs> {
        Ok(SpilledRefs(self.w.finish()?))
    }
}

/// A reference's name, receiver and implementor as written.
type Written<'a> = (&'a str, Option<&'a str>, Option<&'a str>);

/// What [`RefPieces::add`] writes of a reference: its file, then id, source, kind and text.
pub(crate) trait RefParts {
    fn file(&self) -> i64;
    fn parts(&self) -> (i64, i64, sextant_model::RefKind, Written<'_>);
}

impl RefParts for sextant_store::RefRow {
    fn file(&self) -> i64 {
        self.file_id
    }

    fn parts(&self) -> (i64, i64, sextant_model::RefKind, Written<'_>) {
        let written = (
            self.name.as_str(),
            self.receiver.as_deref(),
            self.implementor.as_deref(),
        );
        (self.id, self.src_id, self.kind, written)
    }
}

impl RefParts for resolve::Ref {
    fn file(&self) -> i64 {
        self.file
    }

    fn parts(&self) -> (i64, i64, sextant_model::RefKind, Written<'_>) {
        let written = (
            self.name.as_str(),
            self.receiver.as_deref(),
            self.implementor.as_deref(),
        );
        (self.id, self.src, self.kind, written)
    }
}

/// A reference as [`decode_refs`] reads it: id, source, kind, then its name, receiver and
/// implementor.
fn encode_ref(
    out: &mut Vec<u8>,
    id: i64,
    src: i64,
    kind: sextant_model::RefKind,
    (name, receiver, implementor): Written<'_>,
) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&src.to_le_bytes());
    out.push(kind_code(kind));
    put_str(out, Some(name));
    put_str(out, receiver);
    put_str(out, implementor);
}

fn kind_code(kind: sextant_model::RefKind) -> u8 {
    sextant_model::RefKind::ALL
        .iter()
        .position(|k| *k == kind)
        .map_or(u8::MAX, |i| i as u8)
}

/// References on disk, read back a file at a time ([`RefPieces`]).
pub(crate) struct SpilledRefs(Pieces);

impl SpilledRefs {
    /// The files with references here, in order.
    pub(crate) fn files(&self) -> Vec<i64> {
        self.0.at.files()
    }

    /// The references of `file` in id order (`None`: it has none here).
    pub(crate) fn refs_of(&self, file: i64) -> std::io::Result<Option<Vec<resolve::Ref>>> {
        let Some(bytes) = self.0.bytes_of(file)? else {
            return Ok(None);
        };
        decode_refs(file, &bytes).map(Some).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("file {file}: malformed references"),
            )
        })
    }
}

/// A file's references from their bytes ([`RefPieces::add`]); `None` if malformed.
fn decode_refs(file: i64, mut b: &[u8]) -> Option<Vec<resolve::Ref>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let id = i64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let src = i64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let kind = *sextant_model::RefKind::ALL.get(usize::from(take(&mut b, 1)?[0]))?;
        out.push(resolve::Ref {
            id,
            file,
            src,
            kind,
            name: string(&mut b)??,
            receiver: string(&mut b)?,
            implementor: string(&mut b)?,
        });
    }
    Some(out)
}

fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = b.split_at_checked(n)?;
    *b = rest;
    Some(head)
}

/// A string written by [`put_str`]: `Some(None)` when absent, `None` when malformed.
fn string(b: &mut &[u8]) -> Option<Option<String>> {
    let len = u32::from_le_bytes(take(b, 4)?.try_into().ok()?);
    if len == NO_STRING {
        return Some(None);
    }
    let bytes = take(b, len as usize)?;
    Some(Some(std::str::from_utf8(bytes).ok()?.to_string()))
}

/// Import tables as the resolver gave them (`Resolver::page_out_import_tables`), one piece per
/// file.
pub(crate) struct ImportSpill {
    w: PieceWriter,
}

impl ImportSpill {
    pub(crate) fn new(dir: &Path) -> std::io::Result<ImportSpill> {
        Ok(ImportSpill {
            w: PieceWriter::new(dir)?,
        })
    }

    pub(crate) fn put(&mut self, file: i64, bytes: &[u8]) -> std::io::Result<()> {
        self.w.start(file)?;
        self.w.buf.extend_from_slice(bytes);
        self.w.flush()
    }

    pub(crate) fn finish(self) -> std::io::Result<Box<dyn resolve::ImportTableSource>> {
        Ok(Box::new(SpilledTables(self.w.finish()?)))
    }
}

/// The import tables a pass before the last makes (`resolve::PassTables`), for the next pass,
/// in a temporary file instead of the heap (7.7 MiB on 162 MB of source). A write that fails
/// is recorded in `failed`, which the run reports.
pub(crate) struct PassSpill {
    spill: Option<ImportSpill>,
    failed: Arc<Mutex<Option<String>>>,
}

impl PassSpill {
    pub(crate) fn new(
        dir: &Path,
        failed: Arc<Mutex<Option<String>>>,
    ) -> std::io::Result<PassSpill> {
        Ok(PassSpill {
            spill: Some(ImportSpill::new(dir)?),
            failed,
        })
    }

    fn fail(&self, e: std::io::Error) {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| format!("import tables of a pass: {e}"));
    }
}

impl resolve::PassTables for PassSpill {
    fn put(&mut self, file: i64, table: &[u8]) {
        if let Some(spill) = self.spill.as_mut()
            && let Err(e) = spill.put(file, table)
        {
            self.spill = None;
            self.fail(e);
        }
    }

    fn finish(mut self: Box<Self>) -> Box<dyn resolve::ImportTableSource> {
        match self.spill.take().map(ImportSpill::finish) {
            Some(Ok(source)) => source,
            Some(Err(e)) => {
                self.fail(e);
                Box::new(NoTables)
            }
            None => Box::new(NoTables),
        }
    }
}

/// No import tables (a pass whose tables could not be kept: the run fails).
struct NoTables;

impl resolve::ImportTableSource for NoTables {
    fn bytes_of(&self, _file: i64) -> Option<Vec<u8>> {
        None
    }
}

struct SpilledTables(Pieces);

impl resolve::ImportTableSource for SpilledTables {
    fn bytes_of(&self, file: i64) -> Option<Vec<u8>> {
        // A table that cannot be read is a file without imports, which the log says.
        self.0
            .bytes_of(file)
            .inspect_err(|e| tracing::error!(file, "import table unreadable: {e}"))
            .ok()
            .flatten()
    }
}

/// A written temporary file and where each file's pieces are in it.
struct Pieces {
    file: std::fs::File,
    at: PieceIndex,
}

impl Pieces {
    /// The bytes of `file`'s pieces, in order (`None`: it has none).
    fn bytes_of(&self, file: i64) -> std::io::Result<Option<Vec<u8>>> {
        let pieces = self.at.of(file);
        (!pieces.is_empty()).then(|| self.read(&pieces)).transpose()
    }

    fn read(&self, pieces: &[Piece]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(pieces.iter().map(|p| p.len as usize).sum());
        for p in pieces {
            let start = out.len();
            out.resize(start + p.len as usize, 0);
            self.file.read_exact_at(&mut out[start..], p.at)?;
        }
        Ok(out)
    }
}

/// A piece: `len` bytes at `at` of the temporary file, of rows of `file`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    file: i64,
    at: u64,
    len: u32,
}

/// Records of `N` 64-bit words, written to a temporary file of their own as they are made and
/// mapped into memory when sorted, so that their pages are the file's, not the heap's: one
/// record or more per file read (on the heap, the five piece indexes were 2.9 MiB on 73 MB of
/// source, the references' ranges 1 MiB on 162 MB). In the order written until
/// [`Records::sort_by_key`]. On the heap when no temporary file was given
/// (`Records::default`).
pub(crate) struct Records<const N: usize> {
    /// The records being written, when they go to a file.
    out: Option<BufWriter<std::fs::File>>,
    /// The records on the heap (none written to a file).
    heap: Vec<[u64; N]>,
    /// The records once sorted, mapped.
    mapped: Option<crate::mapped::U64s>,
    /// How many of the mapped records are kept ([`Records::coalesce`]; all when `None`).
    kept: Option<usize>,
}

impl<const N: usize> Default for Records<N> {
    fn default() -> Self {
        Records {
            out: None,
            heap: Vec::new(),
            mapped: None,
            kept: None,
        }
    }
}

impl<const N: usize> Records<N> {
    /// Records written to a temporary file in `dir`.
    pub(crate) fn in_dir(dir: &Path) -> std::io::Result<Records<N>> {
        Ok(Records {
            out: Some(BufWriter::with_capacity(
                1 << 13,
                tempfile::tempfile_in(dir)?,
            )),
            ..Records::default()
        })
    }

    pub(crate) fn push(&mut self, record: [u64; N]) -> std::io::Result<()> {
        match &mut self.out {
            Some(out) => {
                for w in record {
                    out.write_all(&w.to_ne_bytes())?;
                }
            }
            None => self.heap.push(record),
        }
        Ok(())
    }

    /// The records (all of them once sorted; before, those on the heap).
    pub(crate) fn records(&self) -> &[[u64; N]] {
        let all = match &self.mapped {
            Some(m) => m.words().as_chunks::<N>().0,
            None => &self.heap,
        };
        &all[..self.kept.unwrap_or(all.len()).min(all.len())]
    }

    fn records_mut(&mut self) -> &mut [[u64; N]] {
        let kept = self.kept;
        let all = match &mut self.mapped {
            Some(m) => m.words_mut().as_chunks_mut::<N>().0,
            None => &mut self.heap,
        };
        let len = kept.unwrap_or(all.len()).min(all.len());
        &mut all[..len]
    }

    /// Merges runs of neighbouring records in place (once sorted): `merge(kept, next)` folds
    /// `next` into the last record kept and says whether it did; records not folded are kept.
    pub(crate) fn coalesce(&mut self, mut merge: impl FnMut(&mut [u64; N], &[u64; N]) -> bool) {
        let records = self.records_mut();
        let mut kept = 0usize;
        for i in 0..records.len() {
            if kept > 0 {
                let (before, after) = records.split_at_mut(i);
                if merge(&mut before[kept - 1], &after[0]) {
                    continue;
                }
            }
            records[kept] = records[i];
            kept += 1;
        }
        self.heap.truncate(kept);
        self.kept = Some(kept);
    }

    /// Maps the records written to a file, and sorts them by `key` (records of equal keys in
    /// any order).
    pub(crate) fn sort_by_key<K: Ord>(
        &mut self,
        mut key: impl FnMut(&[u64; N]) -> K,
    ) -> std::io::Result<()> {
        self.sort_by(|a, b| key(a).cmp(&key(b)))
    }

    /// Maps the records written to a file, and sorts them by `order` (records it finds equal
    /// in any order).
    pub(crate) fn sort_by(
        &mut self,
        order: impl FnMut(&[u64; N], &[u64; N]) -> std::cmp::Ordering,
    ) -> std::io::Result<()> {
        self.finish()?;
        self.records_mut().sort_unstable_by(order);
        Ok(())
    }

    /// Maps the records written to a file, in the order written ([`Records::records`] then
    /// holds them all).
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        if let Some(out) = self.out.take() {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            self.mapped = Some(crate::mapped::U64s::new(&file)?);
        }
        self.heap.shrink_to_fit();
        Ok(())
    }

    /// The records whose `key` is `k` (sorted by `key`).
    pub(crate) fn range_of<K: Ord>(
        &self,
        k: K,
        key: impl Fn(&[u64; N]) -> K,
    ) -> std::ops::Range<usize> {
        let records = self.records();
        let start = records.partition_point(|r| key(r) < k);
        let end = start + records[start..].partition_point(|r| key(r) == k);
        start..end
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<[u64; N]>()
            + self.out.as_ref().map_or(0, BufWriter::capacity)
    }
}

/// Text written to a temporary file as it is made, then mapped (on the heap when no temporary
/// file could be made): the strings that [`Records`] point into.
pub(crate) struct Text {
    state: TextState,
    /// Bytes written.
    len: u64,
}

enum TextState {
    Out(Box<dyn resolve::TableOut>),
    Mapped(Box<dyn resolve::MappedTable>),
    Heap(String),
}

impl Text {
    /// Text written to a temporary file in `dir`.
    pub(crate) fn in_dir(dir: &Path) -> std::io::Result<Text> {
        Ok(Text {
            state: TextState::Out(crate::mapped::table_out(dir)?),
            len: 0,
        })
    }

    /// Text on the heap.
    pub(crate) fn heap() -> Text {
        Text {
            state: TextState::Heap(String::new()),
            len: 0,
        }
    }

    /// Appends `s`; returns where it starts.
    pub(crate) fn push(&mut self, s: &str) -> std::io::Result<u64> {
        match &mut self.state {
            TextState::Out(out) => out.text().write_all(s.as_bytes())?,
            TextState::Heap(h) => h.push_str(s),
            TextState::Mapped(_) => {
                return Err(std::io::Error::other("text added once mapped"));
            }
        }
        let at = self.len;
        self.len += s.len() as u64;
        Ok(at)
    }

    /// Maps the text written to a file ([`Text::str`] then holds it all).
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        if let TextState::Out(_) = self.state {
            let TextState::Out(out) =
                std::mem::replace(&mut self.state, TextState::Heap(String::new()))
            else {
                unreachable!("matched above")
            };
            self.state = TextState::Mapped(out.finish()?);
        }
        Ok(())
    }

    /// The text (once finished; before, what is on the heap).
    pub(crate) fn str(&self) -> &str {
        match &self.state {
            TextState::Mapped(m) => m.text(),
            TextState::Heap(s) => s,
            TextState::Out(_) => "",
        }
    }

    /// `len` bytes at `at` (empty when that is not text of it).
    pub(crate) fn get(&self, at: u64, len: u64) -> &str {
        let at = at as usize;
        self.str().get(at..at + len as usize).unwrap_or_default()
    }
}

/// The files each file's import table reaches directly, as the resolver hands them out
/// (`resolve::ReachOut`): a record (file, offset, length) a file with imports and the reached
/// files' ids, each in a temporary file, mapped once import resolution ends, instead of a map
/// and a vector on the heap through resolution (0.6 MB on 162 MB of source).
pub(crate) struct ReachSpill {
    index: Records<3>,
    files: Records<1>,
    written: u64,
}

impl ReachSpill {
    pub(crate) fn new(dir: &Path) -> std::io::Result<ReachSpill> {
        Ok(ReachSpill {
            index: Records::in_dir(dir)?,
            files: Records::in_dir(dir)?,
            written: 0,
        })
    }

    pub(crate) fn put(&mut self, file: i64, reached: &[i64]) -> std::io::Result<()> {
        let len = reached.len() as u64;
        self.index.push([file as u64, self.written, len])?;
        for &f in reached {
            self.files.push([f as u64])?;
        }
        self.written += len;
        Ok(())
    }

    /// The reach written, mapped, to read back.
    pub(crate) fn finish(mut self) -> std::io::Result<SpilledReach> {
        self.index.sort_by_key(|r| r[0] as i64)?;
        self.files.finish()?;
        Ok(SpilledReach {
            index: self.index,
            files: self.files,
        })
    }
}

/// [`ReachSpill`]'s records, mapped.
pub(crate) struct SpilledReach {
    index: Records<3>,
    files: Records<1>,
}

impl resolve::ReachSource for SpilledReach {
    fn reached(&self, file: i64) -> Option<&[i64]> {
        let at = self.index.range_of(file, |r| r[0] as i64);
        let &[_, start, len] = self
            .index
            .records()
            .get(at.start)
            .filter(|_| !at.is_empty())?;
        let (start, len) = (usize::try_from(start).ok()?, usize::try_from(len).ok()?);
        let words = self.files.records().get(start..start.checked_add(len)?)?;
        Some(crate::mapped::signed(words.as_flattened()))
    }

    fn heap_bytes(&self) -> usize {
        self.index.heap_bytes() + self.files.heap_bytes()
    }
}

/// Where each file's pieces are: 24 bytes a piece (file, offset, length) in [`Records`]. In the
/// order written until [`PieceIndex::sort`], then by file, each file's in the order written.
#[derive(Default)]
struct PieceIndex(Records<3>);

/// The length of a piece taken ([`PieceIndex::take`]); no piece written is that long.
const TAKEN: u32 = u32::MAX;

fn piece_of(r: &[u64; 3]) -> Piece {
    Piece {
        file: r[0] as i64,
        at: r[1],
        len: r[2] as u32,
    }
}

impl PieceIndex {
    /// Records written to a temporary file in `dir`.
    fn in_dir(dir: &Path) -> std::io::Result<PieceIndex> {
        Records::in_dir(dir).map(PieceIndex)
    }

    fn push(&mut self, file: i64, at: u64, len: u32) -> std::io::Result<()> {
        self.0.push([file as u64, at, u64::from(len)])
    }

    fn sort(&mut self) -> std::io::Result<()> {
        // A file's pieces keep their order: offsets grow in the order written.
        self.0.sort_by_key(|r| (r[0] as i64, r[1]))
    }

    /// The pieces of `file` not taken, in order (after [`PieceIndex::sort`]).
    fn of(&self, file: i64) -> Vec<Piece> {
        let records = &self.0.records()[self.range(file)];
        if records.first().is_some_and(|r| r[2] as u32 == TAKEN) {
            return Vec::new();
        }
        records.iter().map(piece_of).collect()
    }

    fn range(&self, file: i64) -> std::ops::Range<usize> {
        self.0.range_of(file, |r| r[0] as i64)
    }

    /// The pieces of `file`, which [`PieceIndex::of`] no longer gives.
    fn take(&mut self, file: i64) -> Vec<Piece> {
        let range = self.range(file);
        let out = self.of(file);
        for r in &mut self.0.records_mut()[range] {
            r[2] = u64::from(TAKEN);
        }
        out
    }

    /// The files with pieces not taken, in order.
    fn files(&self) -> Vec<i64> {
        let mut files: Vec<i64> = self
            .0
            .records()
            .iter()
            .filter(|r| r[2] as u32 != TAKEN)
            .map(|r| r[0] as i64)
            .collect();
        files.dedup();
        files
    }

    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
}

/// Consecutive rows of one file as one piece of a temporary file.
struct PieceWriter {
    out: BufWriter<std::fs::File>,
    pieces: PieceIndex,
    at: u64,
    buf: Vec<u8>,
    current: Option<i64>,
}

impl PieceWriter {
    fn heap_bytes(&self) -> usize {
        self.pieces.heap_bytes() + self.buf.capacity() + self.out.capacity()
    }

    fn new(dir: &Path) -> std::io::Result<PieceWriter> {
        Ok(PieceWriter {
            out: BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(dir)?),
            pieces: PieceIndex::in_dir(dir)?,
            at: 0,
            buf: Vec::new(),
            current: None,
        })
    }

    /// The file, written out, and where each file's pieces are.
    fn finish(mut self) -> std::io::Result<Pieces> {
        self.flush()?;
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        self.pieces.sort()?;
        Ok(Pieces {
            file,
            at: self.pieces,
        })
    }

    /// Starts a row of `file`: a new piece when the file changes (or the piece is 64 KiB: the
    /// buffer of each of the five writers stays that small, where pieces of 1 MiB kept 1-2 MiB
    /// each all through the read).
    fn start(&mut self, file: i64) -> std::io::Result<()> {
        if self.current != Some(file) || self.buf.len() >= 1 << 16 {
            self.flush()?;
        }
        self.current = Some(file);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(file) = self.current.take()
            && !self.buf.is_empty()
        {
            self.out.write_all(&self.buf)?;
            self.pieces.push(file, self.at, self.buf.len() as u32)?;
            self.at += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }
}

/// The rows that come before the references' (import, inheritance and override edges, and the
/// inheritance clauses that resolved to nothing), by file, on disk until their file's batch
/// takes them: 131k edges on 73 MB of source, ~18 MB in memory as rows.
pub(crate) struct HeadRows {
    /// Per file, its pieces in the order written.
    pieces: Pieces,
    rules: Vec<&'static str>,
    reasons: Vec<&'static str>,
    /// The first failure to read a piece back.
    pub(crate) error: Option<String>,
}

const EDGE: u8 = 0;
const UNRESOLVED: u8 = 1;

/// Writes [`HeadRows`] as they are made: a file's rows come back in the order written, edges
/// and unresolved rows apart.
pub(crate) struct HeadWriter {
    w: PieceWriter,
    rules: Vec<&'static str>,
    reasons: Vec<&'static str>,
}

/// The position of `s` in `table`, added if new.
fn string_index(table: &mut Vec<&'static str>, s: &'static str) -> u16 {
    match table.iter().position(|t| *t == s) {
        Some(i) => i as u16,
        None => {
            table.push(s);
            (table.len() - 1) as u16
        }
    }
}

impl HeadWriter {
    /// A writer to a temporary file in `dir`.
    pub(crate) fn new(dir: &Path) -> std::io::Result<HeadWriter> {
        Ok(HeadWriter {
            w: PieceWriter::new(dir)?,
            rules: Vec::new(),
            reasons: Vec::new(),
        })
    }

    pub(crate) fn edge(&mut self, e: &EdgeRow) -> std::io::Result<()> {
        let w = &mut self.w;
        w.start(e.file_id)?;
        w.buf.push(EDGE);
        for v in [
            e.src,
            e.dst,
            e.ref_id.unwrap_or(0),
            e.import_id.unwrap_or(0),
        ] {
            w.buf.extend_from_slice(&v.to_le_bytes());
        }
        let flags = u8::from(e.ref_id.is_some()) | (u8::from(e.import_id.is_some()) << 1);
        w.buf
            .extend_from_slice(&[e.kind as u8, e.provenance as u8, e.confidence as u8, flags]);
        w.buf
            .extend_from_slice(&string_index(&mut self.rules, e.rule).to_le_bytes());
        Ok(())
    }

    pub(crate) fn unresolved(&mut self, u: &UnresolvedRow) -> std::io::Result<()> {
        let w = &mut self.w;
        w.start(u.file_id)?;
        w.buf.push(UNRESOLVED);
        w.buf.extend_from_slice(&u.ref_id.to_le_bytes());
        w.buf.extend_from_slice(&u.candidates.to_le_bytes());
        w.buf
            .extend_from_slice(&string_index(&mut self.reasons, u.reason).to_le_bytes());
        Ok(())
    }

    pub(crate) fn finish(self) -> std::io::Result<HeadRows> {
        Ok(HeadRows {
            pieces: self.w.finish()?,
            rules: self.rules,
            reasons: self.reasons,
            error: None,
        })
    }
}

impl HeadRows {
    /// Writes `edges` and `unresolved` to a temporary file in `dir`.
    pub(crate) fn write(
        dir: &Path,
        edges: impl IntoIterator<Item = EdgeRow>,
        unresolved: impl IntoIterator<Item = UnresolvedRow>,
    ) -> std::io::Result<HeadRows> {
        let mut w = HeadWriter::new(dir)?;
        for e in edges {
            w.edge(&e)?;
        }
        for u in unresolved {
            w.unresolved(&u)?;
        }
        w.finish()
    }

    /// Takes the rows of `file` (`None`: it has none).
    pub(crate) fn take(&mut self, file: i64) -> Option<(Vec<EdgeRow>, Vec<UnresolvedRow>)> {
        let pieces = self.pieces.at.take(file);
        if pieces.is_empty() {
            return None;
        }
        let mut edges = Vec::new();
        let mut unresolved = Vec::new();
        let read = self.pieces.read(&pieces);
        if !matches!(&read, Ok(bytes) if self.decode(bytes, file, &mut edges, &mut unresolved).is_some())
        {
            self.error
                .get_or_insert_with(|| format!("rows of file {file} unreadable: {:?}", read.err()));
        }
        Some((edges, unresolved))
    }

    /// The files whose rows were not taken.
    pub(crate) fn files(&self) -> Vec<i64> {
        self.pieces.at.files()
    }

    fn decode(
        &self,
        bytes: &[u8],
        file: i64,
        edges: &mut Vec<EdgeRow>,
        unresolved: &mut Vec<UnresolvedRow>,
    ) -> Option<()> {
        fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, tail) = rest.split_at_checked(n)?;
            *rest = tail;
            Some(head)
        }
        let i64_of = |rest: &mut &[u8]| -> Option<i64> {
            Some(i64::from_le_bytes(take(rest, 8)?.try_into().ok()?))
        };
        let mut rest = bytes;
        while let Some(&tag) = rest.first() {
            rest = &rest[1..];
            if tag == EDGE {
                let (src, dst, ref_id, import_id) = (
                    i64_of(&mut rest)?,
                    i64_of(&mut rest)?,
                    i64_of(&mut rest)?,
                    i64_of(&mut rest)?,
                );
                let b = take(&mut rest, 4)?;
                let rule = u16::from_le_bytes(take(&mut rest, 2)?.try_into().ok()?);
                edges.push(EdgeRow {
                    file_id: file,
                    src,
                    dst,
                    kind: *EdgeKind::ALL.get(b[0] as usize)?,
                    provenance: *Provenance::ALL.get(b[1] as usize)?,
                    confidence: *Confidence::ALL.get(b[2] as usize)?,
                    rule: self.rules.get(rule as usize)?,
                    ref_id: (b[3] & 1 != 0).then_some(ref_id),
                    import_id: (b[3] & 2 != 0).then_some(import_id),
                });
            } else {
                let ref_id = i64_of(&mut rest)?;
                let candidates = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
                let reason = u16::from_le_bytes(take(&mut rest, 2)?.try_into().ok()?);
                unresolved.push(UnresolvedRow {
                    file_id: file,
                    ref_id,
                    reason: self.reasons.get(reason as usize)?,
                    candidates,
                });
            }
        }
        Some(())
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

    /// Each file's direct reach comes back as it was handed out, files given in any order
    /// (negative and large ids too); a file without imports has none, one whose imports reach
    /// nothing an empty list.
    #[test]
    fn the_direct_reach_comes_back_as_handed_out() {
        use resolve::ReachSource;
        let dir = tempfile::tempdir().unwrap();
        let mut out = ReachSpill::new(dir.path()).unwrap();
        let given: [(i64, &[i64]); 4] = [
            (30, &[1, 2, 3]),
            (-2, &[i64::MAX, 30]),
            (7, &[]),
            (5, &[-2]),
        ];
        for (file, reached) in given {
            out.put(file, reached).unwrap();
        }
        let back = out.finish().unwrap();
        for (file, reached) in given {
            assert_eq!(back.reached(file), Some(reached), "file {file}");
        }
        assert_eq!(back.reached(6), None);
        assert_eq!(back.reached(i64::MIN), None);
        assert!(ReachSpill::new(&dir.path().join("missing")).is_err());
        let empty = ReachSpill::new(dir.path()).unwrap().finish().unwrap();
        assert_eq!(empty.reached(1), None);
    }

    /// On the heap or in a mapped file, alike.
    #[test]
    fn a_piece_index_gives_each_files_pieces_in_the_order_written_until_taken() {
        let dir = tempfile::tempdir().unwrap();
        for mut ix in [
            PieceIndex::default(),
            PieceIndex::in_dir(dir.path()).unwrap(),
        ] {
            // Files 7 and 3 interleaved, 7 in three pieces; 5 alone.
            for (file, at, len) in [(7, 0, 4), (3, 4, 2), (7, 6, 1), (5, 7, 9), (7, 16, 3)] {
                ix.push(file, at, len).unwrap();
            }
            ix.sort().unwrap();
            let at = |ix: &PieceIndex, f| ix.of(f).iter().map(|p| p.at).collect::<Vec<_>>();
            assert_eq!(at(&ix, 7), vec![0, 6, 16]);
            assert_eq!(at(&ix, 3), vec![4]);
            assert_eq!(at(&ix, 4), Vec::<u64>::new());
            assert_eq!(ix.files(), vec![3, 5, 7]);
            let taken = ix.take(7);
            assert_eq!(
                taken.iter().map(|p| (p.at, p.len)).collect::<Vec<_>>(),
                [(0, 4), (6, 1), (16, 3)]
            );
            assert!(ix.of(7).is_empty());
            assert!(ix.take(7).is_empty(), "taken once");
            assert_eq!(ix.files(), vec![3, 5]);
            assert_eq!(at(&ix, 5), vec![7]);
        }
        // Nothing written: no pieces.
        let mut empty = PieceIndex::in_dir(dir.path()).unwrap();
        empty.sort().unwrap();
        assert!(empty.of(1).is_empty() && empty.files().is_empty());
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
            crate::pipeline::push_bindings(&mut b, rows);
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

    fn edge(
        file: i64,
        src: i64,
        rule: &'static str,
        ref_id: Option<i64>,
        import_id: Option<i64>,
    ) -> EdgeRow {
        use sextant_model::{Confidence, EdgeKind, Provenance};
        EdgeRow {
            file_id: file,
            src,
            dst: src + 1000,
            kind: EdgeKind::ALL[src as usize % EdgeKind::ALL.len()],
            provenance: Provenance::ALL[src as usize % Provenance::ALL.len()],
            confidence: Confidence::ALL[src as usize % Confidence::ALL.len()],
            rule,
            ref_id,
            import_id,
        }
    }

    fn unresolved(file: i64, ref_id: i64, reason: &'static str) -> UnresolvedRow {
        UnresolvedRow {
            file_id: file,
            ref_id,
            reason,
            candidates: ref_id as u32 * 3,
        }
    }

    fn key(e: &EdgeRow) -> String {
        format!("{e:?}")
    }

    fn ukey(u: &UnresolvedRow) -> String {
        format!("{} {} {} {}", u.file_id, u.ref_id, u.reason, u.candidates)
    }

    /// The rows of `file` taken from `head`, printed.
    fn taken(head: &mut HeadRows, file: i64) -> (Vec<String>, Vec<String>) {
        let (edges, rows) = head.take(file).unwrap();
        (
            edges.iter().map(key).collect(),
            rows.iter().map(ukey).collect(),
        )
    }

    #[test]
    fn head_rows_come_back_by_file_in_the_order_written() {
        let edges = vec![
            edge(1, 1, "import", None, Some(7)),
            edge(2, 2, "inherit", Some(8), None),
            edge(1, 3, "import", Some(-9), Some(i64::MAX)),
            edge(1, 4, "override", None, None),
        ];
        let rows = vec![
            unresolved(2, 5, "external"),
            unresolved(1, 6, "no_candidates"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut head = HeadRows::write(dir.path(), edges.clone(), rows.clone()).unwrap();
        assert_eq!(head.files(), vec![1, 2]);
        assert_eq!(
            taken(&mut head, 1),
            (
                [&edges[0], &edges[2], &edges[3]].map(key).to_vec(),
                vec![ukey(&rows[1])]
            )
        );
        assert!(head.take(1).is_none(), "taken once");
        assert_eq!(
            taken(&mut head, 2),
            (vec![key(&edges[1])], vec![ukey(&rows[0])])
        );
        assert!(head.files().is_empty());
        assert!(head.error.is_none());
    }

    #[test]
    fn rows_written_as_they_come_return_by_file_in_the_order_written() {
        // Import edges first, then an inheritance clause's unresolved row between edges of the
        // same file, then overrides back in the first file: the order a streamed index
        // writes its head in.
        let edges = [
            edge(1, 1, "import", None, Some(10)),
            edge(2, 2, "import", None, Some(11)),
            edge(1, 3, "inherits", Some(7), None),
            edge(1, 4, "override", None, None),
        ];
        let rows = [
            unresolved(1, 6, "no_candidates"),
            unresolved(2, 5, "external"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut w = HeadWriter::new(dir.path()).unwrap();
        w.edge(&edges[0]).unwrap();
        w.edge(&edges[1]).unwrap();
        w.unresolved(&rows[0]).unwrap();
        w.edge(&edges[2]).unwrap();
        w.unresolved(&rows[1]).unwrap();
        w.edge(&edges[3]).unwrap();
        let mut head = w.finish().unwrap();
        assert_eq!(head.files(), vec![1, 2]);
        assert_eq!(
            taken(&mut head, 1),
            (
                [&edges[0], &edges[2], &edges[3]].map(key).to_vec(),
                vec![ukey(&rows[0])]
            )
        );
        assert_eq!(
            taken(&mut head, 2),
            (vec![key(&edges[1])], vec![ukey(&rows[1])])
        );
        assert!(head.error.is_none());
    }

    fn def(id: i64, file: i64, name: &str, qname: &str) -> resolve::Symbol {
        resolve::Symbol {
            id,
            file,
            kind: sextant_model::NodeKind::Method,
            name: name.into(),
            qname: qname.into(),
            parent: Some(file * 100),
            declaration: false,
            type_text: (id % 2 == 0).then(|| "int".into()),
        }
    }

    fn view(d: &resolve::Symbol) -> resolve::SymRef<'_> {
        resolve::SymRef {
            id: d.id,
            file: d.file,
            kind: d.kind,
            name: &d.name,
            qname: &d.qname,
            parent: d.parent,
            declaration: d.declaration,
            type_text: d.type_text.as_deref(),
        }
    }

    fn printed(s: &resolve::Symbols) -> Vec<String> {
        s.iter().map(|d| format!("{:?}", d.to_symbol())).collect()
    }

    #[test]
    fn definitions_come_back_mapped_in_file_order_then_the_unlisted_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = SymbolSpill::new(dir.path()).unwrap();
        let f1 = [def(11, 1, "a", "p.a"), def(12, 1, "b", "p.b")];
        let f2 = [def(21, 2, "c", "q.C.c"), def(22, 2, "ü", "q.ü")];
        let f3 = [def(31, 3, "d", "r.d")];
        // Files arrive out of order; file 1's in two calls, its second id first.
        spill.add(3, f3.iter().map(view)).unwrap();
        spill.add(1, f1[1..].iter().map(view)).unwrap();
        spill.add(2, f2.iter().map(view)).unwrap();
        spill.add(1, f1[..1].iter().map(view)).unwrap();
        let mut mapped = spill.finish(&[2, 1]).unwrap();
        assert!(mapped.is_mapped());
        let expect: resolve::Symbols = f2
            .iter()
            .chain(&f1)
            .chain(&f3)
            .cloned()
            .collect::<Vec<_>>()
            .into();
        assert_eq!(printed(&mapped), printed(&expect));
        // The map's pages given back and read again.
        mapped.release();
        assert_eq!(printed(&mapped), printed(&expect));
        // Nothing spilled: an empty table.
        let empty = SymbolSpill::new(dir.path()).unwrap().finish(&[1]).unwrap();
        assert!(empty.is_empty() && empty.is_mapped());
    }

    #[test]
    fn imports_come_back_a_file_at_a_time_in_the_order_asked_and_a_bad_piece_is_an_error() {
        use resolve::ImportSource;
        let imp = |id: i64, file: i64, name: Option<&str>, alias: Option<&str>| resolve::Imp {
            id,
            file,
            src: file * 100,
            source: format!("pkg.m{id}"),
            name: name.map(Into::into),
            alias: alias.map(Into::into),
            wildcard: id % 3 == 0,
        };
        let dir = tempfile::tempdir().unwrap();
        let mut pieces = ImportPieces::new(dir.path()).unwrap();
        let f1 = [imp(2, 1, Some("a"), None), imp(3, 1, None, Some("é"))];
        let f2 = [imp(5, 2, Some(""), Some("b"))];
        // File 1's in two calls, its later id first; file 7 is not asked for.
        pieces.add(&f1[1..]).unwrap();
        pieces.add(&f2).unwrap();
        pieces.add(&[imp(9, 7, None, None)]).unwrap();
        pieces.add(&f1[..1]).unwrap();
        pieces.add(&[]).unwrap();
        assert_eq!(pieces.count(), 4);
        let spilled = pieces.finish(vec![2, 1, 3]).unwrap();
        let mut seen = Vec::new();
        spilled.for_each_file(&mut |imports| seen.push(format!("{imports:?}")));
        let want = [format!("{:?}", f2.to_vec()), format!("{:?}", f1.to_vec())];
        assert_eq!(seen, want);
        assert_eq!(spilled.error(), None);

        // A piece cut short: its file is left out and the error kept.
        let mut pieces = ImportPieces::new(dir.path()).unwrap();
        pieces.add(&f2).unwrap();
        pieces.w.start(1).unwrap();
        pieces.w.buf.extend_from_slice(&[1, 2, 3]);
        let spilled = pieces.finish(vec![1, 2]).unwrap();
        let mut seen = Vec::new();
        spilled.for_each_file(&mut |imports| seen.push(imports.len()));
        assert_eq!(seen, [1]);
        assert!(spilled.error().is_some_and(|e| e.contains("file 1")));
    }

    #[test]
    fn references_come_back_a_file_at_a_time_as_written_and_a_bad_piece_is_an_error() {
        use sextant_model::RefKind;
        let row = |id: i64, file: i64, kind: RefKind, recv: Option<&str>, imp: Option<&str>| {
            sextant_store::RefRow {
                id,
                file_id: file,
                src_id: file * 100 + id,
                kind,
                name: format!("name{id}"),
                receiver: recv.map(Into::into),
                implementor: imp.map(Into::into),
                line: 1,
                col: 2,
                end_col: 3,
            }
        };
        let want = |rows: &[sextant_store::RefRow]| -> Vec<String> {
            rows.iter()
                .map(|r| {
                    format!(
                        "{:?}",
                        resolve::Ref {
                            id: r.id,
                            file: r.file_id,
                            src: r.src_id,
                            kind: r.kind,
                            name: r.name.clone(),
                            receiver: r.receiver.clone(),
                            implementor: r.implementor.clone(),
                        }
                    )
                })
                .collect()
        };
        let got = |refs: Vec<resolve::Ref>| -> Vec<String> {
            refs.iter().map(|r| format!("{r:?}")).collect()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut pieces = RefPieces::new(dir.path()).unwrap();
        // Every kind, absent and empty strings, text that is not ASCII.
        let f1: Vec<_> = RefKind::ALL
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let recv = [None, Some(""), Some("self.é")][i % 3];
                row(10 + i as i64, 1, k, recv, (i == 4).then_some("Impl"))
            })
            .collect();
        let f2 = [row(40, 2, RefKind::Call, Some("client"), None)];
        // File 1's in two calls, with file 2's between.
        pieces.add(&f1[..3]).unwrap();
        pieces.add(&f2).unwrap();
        pieces.add(&f1[3..]).unwrap();
        pieces.add::<sextant_store::RefRow>(&[]).unwrap();
        let spilled = pieces.finish().unwrap();
        assert_eq!(got(spilled.refs_of(1).unwrap().unwrap()), want(&f1));
        assert_eq!(got(spilled.refs_of(2).unwrap().unwrap()), want(&f2));
        assert!(
            spilled.refs_of(3).unwrap().is_none(),
            "none written: none here"
        );

        // A piece cut short is an error for its file only.
        let mut pieces = RefPieces::new(dir.path()).unwrap();
        pieces.add(&f2).unwrap();
        pieces.w.start(1).unwrap();
        pieces.w.buf.extend_from_slice(&[1, 2, 3]);
        let spilled = pieces.finish().unwrap();
        assert_eq!(got(spilled.refs_of(2).unwrap().unwrap()), want(&f2));
        let err = spilled.refs_of(1).unwrap_err();
        assert!(err.to_string().contains("file 1"), "{err}");
    }

    /// A pass's tables come back by file; none is an error; a directory where no temporary
    /// file can be made is refused up front.
    #[test]
    fn a_passs_import_tables_come_back_by_file() {
        use resolve::PassTables;
        let dir = tempfile::tempdir().unwrap();
        let failed = Arc::new(Mutex::new(None));
        let mut pass = Box::new(PassSpill::new(dir.path(), failed.clone()).unwrap());
        pass.put(3, b"three");
        pass.put(1, &[0, 1, 2]);
        let source = pass.finish();
        assert_eq!(source.bytes_of(3).as_deref(), Some(&b"three"[..]));
        assert_eq!(source.bytes_of(1).as_deref(), Some(&[0u8, 1, 2][..]));
        assert_eq!(source.bytes_of(2), None);
        assert!(failed.lock().unwrap().is_none());
        assert!(PassSpill::new(&dir.path().join("missing"), failed).is_err());
    }
}
