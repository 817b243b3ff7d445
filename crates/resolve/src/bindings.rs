//! Typed bindings held by the resolver, their strings in one buffer.
//!
//! A repository has about two bindings per definition (296k on 73 MB of source). As [`Bind`]s
//! each took a 88-byte record and up to three heap blocks; here a binding is a 40-byte row and
//! its bytes in a shared buffer.

use crate::input::Bind;

/// Where a binding's strings are in [`Bindings::text`]: the name, then the type, then the
/// value, each present or not ([`NONE`]).
#[derive(Clone, Copy, Debug)]
struct Row {
    file: i64,
    scope: i64,
    start: usize,
    name: u32,
    type_text: u32,
    value: u32,
}

/// The length of an absent string.
pub(crate) const NONE: u32 = u32::MAX;

/// A binding as the resolver reads it.
#[derive(Clone, Copy, Debug)]
pub struct BindRef<'a> {
    pub file: i64,
    /// The enclosing definition, or the File node.
    pub scope: i64,
    /// As written: `x`, `self.store`, `this.store`.
    pub name: &'a str,
    pub type_text: Option<&'a str>,
    /// The callee of the assigned call (`Store`, `Store::new`, `make`).
    pub value: Option<&'a str>,
}

impl BindRef<'_> {
    /// An owned copy.
    pub fn to_bind(&self) -> Bind {
        Bind {
            file: self.file,
            scope: self.scope,
            name: self.name.to_string(),
            type_text: self.type_text.map(str::to_string),
            value: self.value.map(str::to_string),
        }
    }
}

/// Typed bindings, in the order pushed (see [`Bindings::sort_by_file`]).
#[derive(Default, Debug)]
pub struct Bindings {
    rows: Vec<Row>,
    text: String,
}

/// A string as kept in a row (here and in [`crate::symbols`]). Strings come from source
/// files (of at most a few MiB): one of 4 GiB or more is cut to just under it, consistently
/// with the buffer.
pub(crate) fn clipped(s: &str) -> &str {
    let max = (NONE - 1) as usize;
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl Bindings {
    /// Room for `rows` more bindings with `bytes` of strings in all.
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

    pub fn push(
        &mut self,
        file: i64,
        scope: i64,
        name: &str,
        type_text: Option<&str>,
        value: Option<&str>,
    ) {
        let start = self.text.len();
        let mut put = |s: Option<&str>| match s {
            Some(s) => {
                let s = clipped(s);
                self.text.push_str(s);
                s.len() as u32
            }
            None => NONE,
        };
        let name = put(Some(name));
        let type_text = put(type_text);
        let value = put(value);
        self.rows.push(Row {
            file,
            scope,
            start,
            name,
            type_text,
            value,
        });
    }

    /// The binding at position `i`.
    pub fn get(&self, i: usize) -> BindRef<'_> {
        crate::trace::traced!(b'B', i);
        let row = &self.rows[i];
        let mut at = row.start;
        let mut take = |len: u32| {
            (len != NONE).then(|| {
                let s = &self.text[at..at + len as usize];
                at += len as usize;
                s
            })
        };
        BindRef {
            file: row.file,
            scope: row.scope,
            name: take(row.name).unwrap_or_default(),
            type_text: take(row.type_text),
            value: take(row.value),
        }
    }

    /// Every binding, in order.
    pub fn iter(&self) -> impl Iterator<Item = BindRef<'_>> {
        (0..self.rows.len()).map(|i| self.get(i))
    }

    /// Orders the bindings by `key` of their file; a file's bindings keep their order.
    pub fn sort_by_file<K: Ord>(&mut self, mut key: impl FnMut(i64) -> K) {
        self.rows.sort_by_cached_key(|r| key(r.file));
    }

    pub fn extend(&mut self, binds: impl IntoIterator<Item = Bind>) {
        for b in binds {
            self.push(
                b.file,
                b.scope,
                &b.name,
                b.type_text.as_deref(),
                b.value.as_deref(),
            );
        }
    }
}

impl From<Vec<Bind>> for Bindings {
    fn from(binds: Vec<Bind>) -> Bindings {
        let mut out = Bindings::default();
        out.reserve(
            binds.len(),
            binds
                .iter()
                .map(|b| {
                    b.name.len()
                        + b.type_text.as_ref().map_or(0, String::len)
                        + b.value.as_ref().map_or(0, String::len)
                })
                .sum(),
        );
        out.extend(binds);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_read_back_as_pushed_and_sort_by_file_stably() {
        let mut b = Bindings::default();
        b.push(2, 20, "x", Some("Store"), None);
        b.push(1, 10, "self.store", None, Some("make"));
        b.push(2, 21, "y", None, None);
        b.push(1, 11, "é", Some(""), Some("Store::new"));
        fn got(b: &Bindings, i: usize) -> (i64, i64, &str, Option<&str>, Option<&str>) {
            let r = b.get(i);
            (r.file, r.scope, r.name, r.type_text, r.value)
        }
        assert_eq!(got(&b, 0), (2, 20, "x", Some("Store"), None));
        assert_eq!(got(&b, 1), (1, 10, "self.store", None, Some("make")));
        assert_eq!(got(&b, 2), (2, 21, "y", None, None));
        assert_eq!(got(&b, 3), (1, 11, "é", Some(""), Some("Store::new")));
        b.sort_by_file(|f| f);
        let scopes: Vec<i64> = (0..b.len()).map(|i| b.get(i).scope).collect();
        assert_eq!(scopes, vec![10, 11, 20, 21]);
        assert_eq!(got(&b, 1), (1, 11, "é", Some(""), Some("Store::new")));
        assert_eq!(
            b.iter().map(|r| r.file).collect::<Vec<_>>(),
            vec![1, 1, 2, 2]
        );
        let back: Bindings = b.iter().map(|r| r.to_bind()).collect::<Vec<_>>().into();
        assert_eq!(
            back.iter().map(|r| r.to_bind().name).collect::<Vec<_>>(),
            ["self.store", "é", "x", "y"]
        );
    }
}
