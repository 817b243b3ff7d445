//! The definitions the resolver holds, their strings in one buffer.
//!
//! A definition as a [`Symbol`] was a 112-byte record with two or three heap blocks (name,
//! qualified name, declared type); here it is a 48-byte row and its bytes in a shared buffer,
//! the name taking none when it ends the qualified name (as it mostly does). The live index
//! replaces runs of rows ([`Symbols::splice`]); the bytes of replaced rows are dropped when
//! they outweigh the live ones.
//!
//! A first index's definitions need not be in memory at all: the read phase writes each file's
//! as a piece ([`encode_piece`]), [`MappedLayout`] lays the pieces out in resolution order as a
//! table of fixed-size rows and a text section, and the caller maps the two into memory
//! ([`MappedTable`], [`Symbols::mapped`]): the pages are the operating system's cache of a file,
//! read again when dropped ([`Symbols::release`]), not memory the process must keep.

use sextant_model::NodeKind;

use crate::bindings::{NONE, clipped};
use crate::input::Symbol;

#[derive(Clone, Copy, Debug)]
struct Row {
    id: i64,
    file: i64,
    /// [`NO_PARENT`] for none.
    parent: i64,
    /// Where the qualified name starts in the buffer; the name (unless it is the qualified
    /// name's end) and the declared type follow.
    start: usize,
    qname: u32,
    name: u32,
    /// [`NONE`] for none.
    type_text: u32,
    kind: NodeKind,
    declaration: bool,
    /// The name is the end of the qualified name.
    name_in_qname: bool,
}

const NO_PARENT: i64 = i64::MIN;

/// A definition as the resolver reads it.
#[derive(Clone, Copy, Debug)]
pub struct SymRef<'a> {
    pub id: i64,
    pub file: i64,
    pub kind: NodeKind,
    pub name: &'a str,
    pub qname: &'a str,
    pub parent: Option<i64>,
    /// Declared without a body: a definition with the same qualified name is preferred.
    pub declaration: bool,
    /// Declared type as written.
    pub type_text: Option<&'a str>,
}

impl SymRef<'_> {
    /// An owned copy.
    pub fn to_symbol(&self) -> Symbol {
        Symbol {
            id: self.id,
            file: self.file,
            kind: self.kind,
            name: self.name.to_string(),
            qname: self.qname.to_string(),
            parent: self.parent,
            declaration: self.declaration,
            type_text: self.type_text.map(str::to_string),
        }
    }
}

/// A read-only table of definitions laid out by [`MappedLayout`] and kept by the caller (a
/// file mapped into memory, say: this crate does no I/O).
pub trait MappedTable: Send + Sync + std::fmt::Debug {
    /// The rows, [`ROW_BYTES`] each.
    fn rows(&self) -> &[u8];
    /// The strings the rows point into.
    fn text(&self) -> &str;
    /// Gives back the memory of the pages read so far; they are read again when next needed.
    /// Taking `&mut self`, it runs when nothing borrows the table.
    fn release(&mut self) {}
}

/// A table being laid out in memory the caller keeps (temporary files, say): its rows and
/// text written as they are made, then read back as a [`MappedTable`].
pub trait TableOut: Send + Sync {
    fn rows(&mut self) -> &mut dyn std::io::Write;
    fn text(&mut self) -> &mut dyn std::io::Write;
    /// The table written, read-only.
    fn finish(self: Box<Self>) -> std::io::Result<Box<dyn MappedTable>>;
}

/// Makes a [`TableOut`] for each table laid out ([`crate::Freeze::rows`]).
pub type TablesOut<'a> = dyn FnMut() -> std::io::Result<Box<dyn TableOut>> + 'a;

/// Lays out `rows` and `text` made on the heap through `map`.
pub(crate) fn lay_out(
    map: &mut TablesOut<'_>,
    rows: &[u8],
    text: &str,
) -> std::io::Result<Box<dyn MappedTable>> {
    let mut out = map()?;
    out.rows().write_all(rows)?;
    out.text().write_all(text.as_bytes())?;
    out.finish()
}

/// Definitions by position.
#[derive(Default, Debug)]
pub struct Symbols {
    rows: Vec<Row>,
    text: String,
    /// Bytes of `text` no row refers to any more.
    dead: usize,
    /// In place of `rows` and `text`: a read-only table ([`Symbols::mapped`]).
    mapped: Option<Box<dyn MappedTable>>,
}

/// The bytes of a row of a mapped table.
pub const ROW_BYTES: usize = 48;

const DECLARATION: u8 = 1;
const NAME_IN_QNAME: u8 = 2;

impl Row {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.file.to_le_bytes());
        out.extend_from_slice(&self.parent.to_le_bytes());
        out.extend_from_slice(&(self.start as u64).to_le_bytes());
        out.extend_from_slice(&self.qname.to_le_bytes());
        out.extend_from_slice(&self.name.to_le_bytes());
        out.extend_from_slice(&self.type_text.to_le_bytes());
        out.push(self.kind as u8);
        out.push(
            if self.declaration { DECLARATION } else { 0 }
                | if self.name_in_qname { NAME_IN_QNAME } else { 0 },
        );
        out.extend_from_slice(&[0, 0]);
    }

    /// The row in `b` (at least [`ROW_BYTES`] long); `None` for an unknown kind.
    fn decode(b: &[u8]) -> Option<Row> {
        let i64_at = |at: usize| i64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default());
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default());
        Some(Row {
            id: i64_at(0),
            file: i64_at(8),
            parent: i64_at(16),
            start: usize::try_from(i64_at(24)).ok()?,
            qname: u32_at(32),
            name: u32_at(36),
            type_text: u32_at(40),
            kind: *NodeKind::ALL.get(usize::from(b[44]))?,
            declaration: b[45] & DECLARATION != 0,
            name_in_qname: b[45] & NAME_IN_QNAME != 0,
        })
    }

    /// Whether the row's strings lie inside `text`, on character boundaries.
    fn fits(&self, text: &str) -> bool {
        let mut at = self.start;
        let mut cut = |len: u32| {
            at = at.saturating_add(len as usize);
            text.is_char_boundary(at)
        };
        if !text.is_char_boundary(self.start) || !cut(self.qname) {
            return false;
        }
        if self.name_in_qname {
            if self.name > self.qname
                || !text.is_char_boundary(self.start + (self.qname - self.name) as usize)
            {
                return false;
            }
        } else if !cut(self.name) {
            return false;
        }
        self.type_text == NONE || cut(self.type_text)
    }
}

/// Appends `defs` to `out` as one piece: their count, the bytes of their strings, their rows
/// (pointing into the piece's strings), then the strings. A file's pieces may follow one
/// another ([`MappedLayout::append`] reads them back to back).
pub fn encode_piece<'a>(defs: impl IntoIterator<Item = SymRef<'a>>, out: &mut Vec<u8>) {
    let mut text = String::new();
    let rows: Vec<Row> = defs
        .into_iter()
        .map(|s| Symbols::row(&mut text, &s))
        .collect();
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    for r in &rows {
        r.encode(out);
    }
    out.extend_from_slice(text.as_bytes());
}

/// Lays pieces ([`encode_piece`]) out as a mapped table: rows in the order the pieces come
/// (each file's in id order), strings in a section of their own.
#[derive(Default, Debug)]
pub struct MappedLayout {
    /// Bytes of strings laid out so far.
    text_at: usize,
    /// Rows laid out so far.
    pub len: usize,
}

impl MappedLayout {
    /// Appends the definitions of `pieces` (one file's, back to back) in id order: rows to
    /// `rows`, strings to `text`. Bytes that do not parse are an error and append nothing;
    /// the rows' strings are checked when the table is taken ([`Symbols::mapped`]).
    pub fn append(
        &mut self,
        mut pieces: &[u8],
        rows: &mut Vec<u8>,
        text: &mut Vec<u8>,
    ) -> Result<(), String> {
        let malformed = |what: &str| format!("malformed definitions ({what})");
        let mut all: Vec<Row> = Vec::new();
        let mut strings: Vec<u8> = Vec::new();
        while !pieces.is_empty() {
            let (count, len) = match (pieces.get(..4), pieces.get(4..12)) {
                (Some(c), Some(l)) => (
                    u32::from_le_bytes(c.try_into().unwrap_or_default()) as usize,
                    u64::from_le_bytes(l.try_into().unwrap_or_default()),
                ),
                _ => return Err(malformed("header")),
            };
            let len = usize::try_from(len).map_err(|_| malformed("length"))?;
            let row_end = count
                .checked_mul(ROW_BYTES)
                .and_then(|n| n.checked_add(12))
                .ok_or_else(|| malformed("count"))?;
            let end = row_end
                .checked_add(len)
                .filter(|&e| e <= pieces.len())
                .ok_or_else(|| malformed("truncated"))?;
            let base = self.text_at + strings.len();
            for chunk in pieces[12..row_end].chunks_exact(ROW_BYTES) {
                let mut r = Row::decode(chunk).ok_or_else(|| malformed("kind"))?;
                r.start += base;
                all.push(r);
            }
            strings.extend_from_slice(&pieces[row_end..end]);
            pieces = &pieces[end..];
        }
        all.sort_by_key(|r| r.id);
        for r in &all {
            r.encode(rows);
        }
        text.extend_from_slice(&strings);
        self.text_at += strings.len();
        self.len += all.len();
        Ok(())
    }
}

/// An owned definition read as a view.
fn view(s: &Symbol) -> SymRef<'_> {
    SymRef {
        id: s.id,
        file: s.file,
        kind: s.kind,
        name: &s.name,
        qname: &s.qname,
        parent: s.parent,
        declaration: s.declaration,
        type_text: s.type_text.as_deref(),
    }
}

/// The bytes a row takes in the buffer.
fn row_bytes(r: &Row) -> usize {
    r.qname as usize
        + if r.name_in_qname { 0 } else { r.name as usize }
        + if r.type_text == NONE {
            0
        } else {
            r.type_text as usize
        }
}

impl Symbols {
    /// Room for `rows` more definitions with `bytes` of strings in all.
    pub fn reserve(&mut self, rows: usize, bytes: usize) {
        self.writable();
        self.rows.reserve(rows);
        self.text.reserve(bytes);
    }

    /// The heap bytes held (rows and text, reserved room included; none when mapped).
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>() + self.text.capacity()
    }

    pub fn len(&self) -> usize {
        match &self.mapped {
            Some(m) => m.rows().len() / ROW_BYTES,
            None => self.rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Definitions read from `table` (laid out by [`MappedLayout`], which checked every row),
    /// read-only: `push`, `splice` and `sort_by_key` must not be called on them.
    pub fn mapped(table: Box<dyn MappedTable>) -> Result<Symbols, String> {
        let rows = table.rows();
        if !rows.len().is_multiple_of(ROW_BYTES) {
            return Err(format!(
                "mapped definitions: {} bytes of rows is no whole number of rows",
                rows.len()
            ));
        }
        if let Some(bad) = rows
            .chunks_exact(ROW_BYTES)
            .position(|b| Row::decode(b).is_none_or(|r| !r.fits(table.text())))
        {
            return Err(format!("mapped definitions: row {bad} is malformed"));
        }
        Ok(Symbols {
            mapped: Some(table),
            ..Symbols::default()
        })
    }

    /// Whether the definitions are a read-only mapped table.
    pub fn is_mapped(&self) -> bool {
        self.mapped.is_some()
    }

    /// Gives back the memory of a mapped table's pages read so far (nothing otherwise).
    pub fn release(&mut self) {
        if let Some(m) = &mut self.mapped {
            m.release();
        }
    }

    fn writable(&self) {
        assert!(
            self.mapped.is_none(),
            "mapped definitions are read-only (a resolver with them is never patched)"
        );
    }

    /// The row at position `i`, and the text it points into.
    fn row_at(&self, i: usize) -> (Row, &str) {
        match &self.mapped {
            Some(m) => {
                let at = i * ROW_BYTES;
                let row = Row::decode(&m.rows()[at..at + ROW_BYTES]);
                // Every row was checked when the table was taken (`Symbols::mapped`).
                (row.expect("a checked row"), m.text())
            }
            None => (self.rows[i], &self.text),
        }
    }

    fn row(text: &mut String, s: &SymRef<'_>) -> Row {
        let start = text.len();
        let qname = clipped(s.qname);
        text.push_str(qname);
        let name = clipped(s.name);
        let name_in_qname = qname.ends_with(name);
        if !name_in_qname {
            text.push_str(name);
        }
        let type_text = match s.type_text {
            Some(t) => {
                let t = clipped(t);
                text.push_str(t);
                t.len() as u32
            }
            None => NONE,
        };
        Row {
            id: s.id,
            file: s.file,
            parent: s.parent.unwrap_or(NO_PARENT),
            start,
            qname: qname.len() as u32,
            name: name.len() as u32,
            type_text,
            kind: s.kind,
            declaration: s.declaration,
            name_in_qname,
        }
    }

    /// Appends a definition.
    pub fn push(&mut self, s: SymRef<'_>) {
        self.writable();
        let row = Self::row(&mut self.text, &s);
        self.rows.push(row);
    }

    /// Appends an owned definition.
    pub fn push_symbol(&mut self, s: &Symbol) {
        self.push(view(s));
    }

    /// The definition at position `i`.
    pub fn get(&self, i: usize) -> SymRef<'_> {
        crate::trace::traced!(b'S', i);
        let (r, text) = self.row_at(i);
        let qname = &text[r.start..r.start + r.qname as usize];
        let mut at = r.start + r.qname as usize;
        let name = if r.name_in_qname {
            &qname[qname.len() - r.name as usize..]
        } else {
            let name = &text[at..at + r.name as usize];
            at += r.name as usize;
            name
        };
        let type_text = (r.type_text != NONE).then(|| &text[at..at + r.type_text as usize]);
        SymRef {
            id: r.id,
            file: r.file,
            kind: r.kind,
            name,
            qname,
            parent: (r.parent != NO_PARENT).then_some(r.parent),
            declaration: r.declaration,
            type_text,
        }
    }

    /// The id and file of the definition at position `i` (without reading its strings).
    pub fn id_file(&self, i: usize) -> (i64, i64) {
        let r = self.row_at(i).0;
        (r.id, r.file)
    }

    /// Every definition, in order.
    pub fn iter(&self) -> impl Iterator<Item = SymRef<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Orders the definitions by `key` of (file, id).
    pub fn sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(i64, i64) -> K) {
        self.writable();
        self.rows.sort_by_cached_key(|r| key(r.file, r.id));
    }

    /// Replaces the definitions at `range` by `with`. The replaced ones' bytes stay in the
    /// buffer until they outweigh the others, when the buffer is rewritten.
    pub fn splice(
        &mut self,
        range: std::ops::Range<usize>,
        with: impl IntoIterator<Item = Symbol>,
    ) {
        self.writable();
        self.dead += self.rows[range.clone()]
            .iter()
            .map(row_bytes)
            .sum::<usize>();
        let text = &mut self.text;
        let new: Vec<Row> = with
            .into_iter()
            .map(|s| Self::row(text, &view(&s)))
            .collect();
        self.rows.splice(range, new);
        if self.dead > self.text.len() / 2 {
            self.compact();
        }
    }

    /// Rewrites the buffer with the live rows' bytes only.
    fn compact(&mut self) {
        let mut text = String::with_capacity(self.text.len() - self.dead);
        for r in &mut self.rows {
            let n = row_bytes(r);
            let start = text.len();
            text.push_str(&self.text[r.start..r.start + n]);
            r.start = start;
        }
        self.text = text;
        self.dead = 0;
    }
}

impl From<Vec<Symbol>> for Symbols {
    fn from(symbols: Vec<Symbol>) -> Symbols {
        let mut out = Symbols::default();
        out.reserve(
            symbols.len(),
            symbols
                .iter()
                .map(|s| s.qname.len() + s.type_text.as_ref().map_or(0, String::len))
                .sum(),
        );
        for s in &symbols {
            out.push_symbol(s);
        }
        out
    }
}

/// Rows and text held in memory, as a map would give them (for tests).
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Held(pub(crate) Vec<u8>, pub(crate) String);

#[cfg(test)]
impl MappedTable for Held {
    fn rows(&self) -> &[u8] {
        &self.0
    }
    fn text(&self) -> &str {
        &self.1
    }
}

/// [`Held`] rows and text, boxed as a caller's map would be (for tests).
#[cfg(test)]
pub(crate) fn held(rows: Vec<u8>, text: String) -> std::io::Result<Box<dyn MappedTable>> {
    Ok(Box::new(Held(rows, text)))
}

/// What a table laid out on the heap ([`out_then`]) becomes: its rows and text.
#[cfg(test)]
pub(crate) type Finish = fn(Vec<u8>, String) -> std::io::Result<Box<dyn MappedTable>>;

/// A table laid out on the heap, as a caller's temporary files would be, then given to `then`
/// (which may change it, as a faulty map would; for tests).
#[cfg(test)]
pub(crate) fn out_then(then: Finish) -> std::io::Result<Box<dyn TableOut>> {
    struct HeldOut(Vec<u8>, Vec<u8>, Finish);
    impl TableOut for HeldOut {
        fn rows(&mut self) -> &mut dyn std::io::Write {
            &mut self.0
        }
        fn text(&mut self) -> &mut dyn std::io::Write {
            &mut self.1
        }
        fn finish(self: Box<Self>) -> std::io::Result<Box<dyn MappedTable>> {
            let text = String::from_utf8(self.1).map_err(std::io::Error::other)?;
            (self.2)(self.0, text)
        }
    }
    Ok(Box::new(HeldOut(Vec::new(), Vec::new(), then)))
}

/// A table laid out on the heap, as a caller's temporary files would be (for tests).
#[cfg(test)]
pub(crate) fn held_out() -> std::io::Result<Box<dyn TableOut>> {
    out_then(held)
}

/// A mapped copy of `s`, the table held in memory (for tests: one piece per definition).
#[cfg(test)]
pub(crate) fn mapped_copy(s: &Symbols) -> Symbols {
    let (mut rows, mut text, mut layout) = (Vec::new(), Vec::new(), MappedLayout::default());
    for d in s.iter() {
        let mut piece = Vec::new();
        encode_piece([d], &mut piece);
        layout
            .append(&piece, &mut rows, &mut text)
            .expect("pieces of a table");
    }
    let text = String::from_utf8(text).expect("strings of a table");
    Symbols::mapped(Box::new(Held(rows, text))).expect("rows of a table")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(id: i64, file: i64, name: &str, qname: &str, type_text: Option<&str>) -> Symbol {
        Symbol {
            id,
            file,
            kind: NodeKind::Function,
            name: name.to_string(),
            qname: qname.to_string(),
            parent: (id > 1).then_some(id - 1),
            declaration: id % 2 == 0,
            type_text: type_text.map(str::to_string),
        }
    }

    /// Every definition, owned and printed (Symbol has no PartialEq).
    fn owned(s: &Symbols) -> Vec<String> {
        s.iter().map(|r| format!("{:?}", r.to_symbol())).collect()
    }

    #[test]
    fn definitions_read_back_as_written_through_splices_and_compaction() {
        let input = vec![
            sym(1, 2, "f", "m.f", Some("int")),
            sym(2, 1, "g", "m::A::g", None),
            sym(3, 1, "new", "A", Some("A")),
            sym(4, 2, "", "", None),
            sym(5, 2, "é", "ns.é", Some("")),
        ];
        let mut s: Symbols = input.clone().into();
        let want = |v: &[Symbol]| v.iter().map(|o| format!("{o:?}")).collect::<Vec<_>>();
        assert_eq!(owned(&s), want(&input));
        // The name "new" is not the end of "A": it has bytes of its own.
        assert_eq!(s.get(2).name, "new");
        s.sort_by_key(|file, id| (file, id));
        assert_eq!(s.iter().map(|r| r.id).collect::<Vec<_>>(), [2, 3, 1, 4, 5]);
        assert_eq!(s.id_file(0), (2, 1));
        // Replace the middle three, more than once: the buffer is compacted on the way.
        let mut expect: Vec<Symbol> = [2, 3, 1, 4, 5]
            .iter()
            .map(|&id| input[id as usize - 1].clone())
            .collect();
        for round in 0..6 {
            let with: Vec<Symbol> = (0..3)
                .map(|k| sym(10 * round + k, 7, "h", &format!("x.y{round}.h"), Some("T")))
                .collect();
            s.splice(1..4, with.clone());
            expect.splice(1..4, with);
            assert_eq!(owned(&s), want(&expect));
            assert!(s.dead <= s.text.len() / 2, "round {round}: never compacted");
        }
    }

    /// A mapped table kept in memory, as a test's stand-in for a map.
    #[derive(Debug)]
    struct Held(
        Vec<u8>,
        String,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    );

    impl MappedTable for Held {
        fn rows(&self) -> &[u8] {
            &self.0
        }
        fn text(&self) -> &str {
            &self.1
        }
        fn release(&mut self) {
            self.2.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn piece(defs: &[Symbol]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_piece(defs.iter().map(view), &mut out);
        out
    }

    /// Lays `pieces` out (one entry per file) and maps the result; with the count of releases.
    fn laid_out(
        pieces: &[Vec<u8>],
    ) -> Result<(Symbols, std::sync::Arc<std::sync::atomic::AtomicUsize>), String> {
        let (mut rows, mut text) = (Vec::new(), Vec::new());
        let mut layout = MappedLayout::default();
        for p in pieces {
            layout.append(p, &mut rows, &mut text)?;
        }
        assert_eq!(layout.len, rows.len() / ROW_BYTES);
        let text = String::from_utf8(text).map_err(|e| e.to_string())?;
        let released = std::sync::Arc::default();
        let s = Symbols::mapped(Box::new(Held(rows, text, std::sync::Arc::clone(&released))))?;
        Ok((s, released))
    }

    #[test]
    fn mapped_definitions_read_back_as_in_memory_in_the_laid_out_order() {
        let a = [
            sym(7, 2, "g", "m.A.g", None),
            sym(6, 2, "A", "m.A", Some("type")),
        ];
        let b = [
            sym(3, 1, "new", "B", Some("B")),
            sym(4, 1, "é", "ns.é", Some("")),
        ];
        let b2 = [sym(5, 1, "", "", None), sym(2, 1, "h", "n::h", None)];
        // File 2 first; file 1's definitions come in two pieces back to back.
        let mut one = piece(&b);
        one.extend(piece(&b2));
        let (mapped, released) = laid_out(&[piece(&a), one]).expect("well-formed pieces");
        assert!(mapped.is_mapped());
        assert_eq!(mapped.heap_bytes(), 0);
        // Each file's definitions in id order, files in the order given.
        let mut expect: Symbols = [a[1].clone(), a[0].clone(), b2[1].clone(), b[0].clone()]
            .into_iter()
            .chain([b[1].clone(), b2[0].clone()])
            .collect::<Vec<_>>()
            .into();
        assert_eq!(owned(&mapped), owned(&expect));
        assert_eq!(mapped.len(), 6);
        assert_eq!(mapped.id_file(2), (2, 1));
        assert_eq!(mapped.get(3).name, "new");
        assert_eq!(mapped.get(4).type_text, Some(""));
        // Reading is the same through a release; a mapped table cannot be changed.
        let mut mapped = mapped;
        mapped.release();
        assert_eq!(released.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(owned(&mapped), owned(&expect));
        expect.release();
        let sorted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            mapped.sort_by_key(|file, id| (file, id))
        }));
        assert!(sorted.is_err(), "a mapped table was sorted");
    }

    #[test]
    fn malformed_pieces_and_rows_are_errors_not_panics() {
        let good = piece(&[
            sym(1, 1, "f", "m.f", Some("int")),
            sym(2, 1, "g", "m.g", None),
        ]);
        // Cut anywhere, a piece is refused.
        for cut in [1, 11, 12, 30, good.len() - 1] {
            let e = laid_out(&[good[..cut].to_vec()]).expect_err("a truncated piece");
            assert!(e.contains("malformed definitions"), "{cut}: {e}");
        }
        // A kind no node has.
        let mut bad_kind = good.clone();
        bad_kind[12 + 44] = 200;
        assert!(
            laid_out(&[bad_kind])
                .expect_err("an unknown kind")
                .contains("kind")
        );
        // A string past the text, and one cutting a character in two.
        let mut past = good.clone();
        past[12 + 32..12 + 36].copy_from_slice(&999u32.to_le_bytes());
        assert!(
            laid_out(&[past])
                .expect_err("out of range")
                .contains("row 0")
        );
        let accented = piece(&[sym(1, 1, "é", "m.é", None)]);
        let mut split = accented.clone();
        // qname "m.é" is 4 bytes; 3 cuts the "é".
        split[12 + 32..12 + 36].copy_from_slice(&3u32.to_le_bytes());
        assert!(laid_out(&[split]).is_err());
        assert!(laid_out(&[accented]).is_ok());
    }
}
