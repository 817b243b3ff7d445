//! The definitions the resolver holds, their strings in one buffer.
//!
//! A definition as a [`Symbol`] was a 112-byte record with two or three heap blocks (name,
//! qualified name, declared type); here it is a 48-byte row and its bytes in a shared buffer,
//! the name taking none when it ends the qualified name (as it mostly does). The live index
//! replaces runs of rows ([`Symbols::splice`]); the bytes of replaced rows are dropped when
//! they outweigh the live ones.

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

/// Definitions by position.
#[derive(Default, Debug)]
pub struct Symbols {
    rows: Vec<Row>,
    text: String,
    /// Bytes of `text` no row refers to any more.
    dead: usize,
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
        self.rows.reserve(rows);
        self.text.reserve(bytes);
    }

    /// The heap bytes held (rows and text, reserved room included).
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>() + self.text.capacity()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
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
        let r = &self.rows[i];
        let qname = &self.text[r.start..r.start + r.qname as usize];
        let mut at = r.start + r.qname as usize;
        let name = if r.name_in_qname {
            &qname[qname.len() - r.name as usize..]
        } else {
            let name = &self.text[at..at + r.name as usize];
            at += r.name as usize;
            name
        };
        let type_text = (r.type_text != NONE).then(|| &self.text[at..at + r.type_text as usize]);
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
        let r = &self.rows[i];
        (r.id, r.file)
    }

    /// Every definition, in order.
    pub fn iter(&self) -> impl Iterator<Item = SymRef<'_>> {
        (0..self.rows.len()).map(|i| self.get(i))
    }

    /// Orders the definitions by `key` of (file, id).
    pub fn sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(i64, i64) -> K) {
        self.rows.sort_by_cached_key(|r| key(r.file, r.id));
    }

    /// Replaces the definitions at `range` by `with`. The replaced ones' bytes stay in the
    /// buffer until they outweigh the others, when the buffer is rewritten.
    pub fn splice(
        &mut self,
        range: std::ops::Range<usize>,
        with: impl IntoIterator<Item = Symbol>,
    ) {
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
}
