//! Name indexes over a generation's symbols, built once per resolution.

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use crate::files::{FileRef, Files};
use crate::input::{LangRules, Symbol};
use crate::lists::{NameLists, WordsOut, key_hash};
use crate::modules::{dir_of, normalize, normalizes_to, segments, strip_extension};
use crate::resolver::Freeze;
use crate::symbols::{MappedTable, SymRef, Symbols};

pub(crate) struct Index {
    pub symbols: Symbols,
    /// Normalised qualified name per symbol where it differs from the qualified name (a
    /// Python, Java or TypeScript name is already normalised): see [`Index::norm`].
    pub by_id: ById,
    /// Name → symbols ([`named`]).
    pub by_name: NameLists,
    /// Normalised qualified name → symbols ([`normed`]).
    pub by_norm: NameLists,
    /// (parent node id, name) → symbols ([`child_named`]). Top-level symbols have the File
    /// node as parent.
    pub children: NameLists,
    /// (directory, name) → top-level symbols ([`in_dir`]; the directory as its number in
    /// `file_dir`).
    pub by_dir: NameLists,
    /// Per file (as in `files`), the number of its directory: files of one directory share it.
    pub file_dir: Vec<u32>,
    pub files: Files,
    /// File id → its position in `files` (runs, as `by_id`'s, when never patched).
    pub file_index: ById,
    /// Normalised module → the positions of its files, in file order
    /// ([`Index::module_files`]).
    pub modules: NameLists,
    /// Last segment of a normalised module → the positions of its files (for suffix matching
    /// of Go import paths; [`Index::module_tail`]).
    pub module_tails: NameLists,
    /// Full path → the file's position in `files` ([`Index::file_at`]). These three tables
    /// keep positions, not copies of the paths (a repository's paths, three times over, were
    /// a few MiB).
    pub exact_paths: NameLists,
    /// Path without extension → files' positions, by path (`x.h` and `x.c` share `x`;
    /// [`Index::with_stem`]).
    pub paths: NameLists,
    /// File name → files' positions, by path (for include/require suffix matching;
    /// [`Index::with_file_name`]).
    pub names: NameLists,
    pub rules: Vec<LangRules>,
    /// Family id per rules entry.
    pub family_of_lang: Vec<u16>,
    /// Family id per symbol ([`Family`]).
    pub family: Family,
}

/// Symbol or file id → position.
pub(crate) enum ById {
    /// Any table; the patcher changes it.
    Map(FxHashMap<i64, u32>),
    /// A mapped table's (never patched): runs of consecutive ids at consecutive positions, a
    /// file's definitions being one such run, as (first id, first position, length) by first id.
    Runs(Vec<(i64, u32, u32)>),
    /// A never-patched table of ids close together, a position per id from the first to the
    /// last ([`ById::finish_dense`]): the files, whose ids are nearly consecutive but whose
    /// positions (by path) are not. Found at once: as runs, every file lookup was a binary
    /// search over thousands of runs (resolution 20-30 % slower on 19k files).
    Dense { first: i64, positions: Vec<u32> },
}

impl ById {
    /// An empty table: runs for a table that is never patched, else a map.
    fn empty(runs: bool) -> ById {
        if runs {
            ById::Runs(Vec::new())
        } else {
            ById::Map(FxHashMap::default())
        }
    }

    /// Adds `id` at position `pos` (positions rising).
    fn add(&mut self, id: i64, pos: u32) {
        match self {
            ById::Map(m) => {
                m.insert(id, pos);
            }
            ById::Runs(runs) => match runs.last_mut() {
                Some((first, at, len))
                    if id.checked_sub(*first) == Some(i64::from(*len))
                        && pos.checked_sub(*at) == Some(*len) =>
                {
                    *len += 1
                }
                _ => runs.push((id, pos, 1)),
            },
            ById::Dense { .. } => panic!("a finished table takes no more ids"),
        }
    }

    /// Done adding: runs sorted by first id.
    fn finish(mut self) -> ById {
        if let ById::Runs(runs) = &mut self {
            runs.sort_unstable();
            runs.shrink_to_fit();
        }
        self
    }

    /// Done adding, for lookups at once: runs become a position per id when the ids span at
    /// most four times as many places as there are ids, else a map.
    fn finish_dense(self) -> ById {
        let ById::Runs(mut runs) = self else {
            return self;
        };
        runs.sort_unstable();
        let count: u64 = runs.iter().map(|r| u64::from(r.2)).sum();
        let span = match (runs.first(), runs.last()) {
            (Some(&(first, ..)), Some(&(last, _, len))) => {
                i128::from(last) + i128::from(len) - i128::from(first)
            }
            _ => 0,
        };
        if span <= 4 * i128::from(count) + 1024 {
            let first = runs.first().map_or(0, |r| r.0);
            let mut positions = vec![NO_POSITION; span as usize];
            for &(id, pos, len) in &runs {
                let at = (id - first) as usize;
                for k in 0..len {
                    positions[at + k as usize] = pos + k;
                }
            }
            ById::Dense { first, positions }
        } else {
            let mut map = FxHashMap::default();
            for &(id, pos, len) in &runs {
                for k in 0..len {
                    map.insert(id + i64::from(k), pos + k);
                }
            }
            ById::Map(map)
        }
    }

    pub fn get(&self, id: i64) -> Option<u32> {
        match self {
            ById::Map(m) => m.get(&id).copied(),
            ById::Runs(runs) => {
                let at = runs.partition_point(|r| r.0 <= id).checked_sub(1)?;
                let (first, pos, len) = runs[at];
                let k = u32::try_from(id - first).ok()?;
                (k < len).then_some(pos + k)
            }
            ById::Dense { first, positions } => {
                let at = usize::try_from(id.checked_sub(*first)?).ok()?;
                positions.get(at).copied().filter(|&p| p != NO_POSITION)
            }
        }
    }

    /// The map of a patchable resolver's table.
    pub fn map(&self) -> &FxHashMap<i64, u32> {
        match self {
            ById::Map(m) => m,
            _ => panic!("a mapped table's ids are not a map (it is never patched)"),
        }
    }

    pub fn map_mut(&mut self) -> &mut FxHashMap<i64, u32> {
        match self {
            ById::Map(m) => m,
            _ => panic!("a mapped table's ids are not a map (it is never patched)"),
        }
    }

    pub fn heap_bytes(&self) -> usize {
        match self {
            ById::Map(m) => crate::lists::table_bytes::<(i64, u32)>(m.capacity()),
            ById::Runs(r) => r.capacity() * std::mem::size_of::<(i64, u32, u32)>(),
            ById::Dense { positions, .. } => positions.capacity() * 4,
        }
    }
}

/// An id without a position in [`ById::Dense`].
const NO_POSITION: u32 = u32::MAX;

/// A spare place of the symbol table (after a file's run, for definitions a patch adds): in no
/// index, and of a kind nothing iterating the table looks at.
pub(crate) fn spare(file: i64) -> Symbol {
    Symbol {
        id: 0,
        file,
        kind: sextant_model::NodeKind::Variable,
        name: String::new(),
        qname: String::new(),
        parent: None,
        declaration: true,
        type_text: None,
    }
}

pub(crate) fn is_spare(s: &SymRef<'_>) -> bool {
    s.id == 0
}

impl Index {
    /// Indexes `symbols` (grouped by file, files in order), with `spare_places` spare places
    /// after each file's run (a file defining nothing gets its spare places too).
    /// With `freeze`, and definitions that are mapped (a table never patched), the files, the
    /// name tables and the families are laid out read-only through it as they are
    /// built.
    pub fn build(
        files: impl Into<Files>,
        symbols: Symbols,
        rules: Vec<LangRules>,
        spare_places: usize,
        freeze: Option<Freeze<'_>>,
    ) -> Index {
        let mut files = files.into();
        let symbols = if spare_places == 0 {
            symbols
        } else {
            let mut by_file: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
            for i in 0..symbols.len() {
                by_file.entry(symbols.id_file(i).1).or_default().push(i);
            }
            let mut out = Symbols::default();
            for f in files.iter() {
                for i in by_file.remove(&f.id).unwrap_or_default() {
                    out.push(symbols.get(i));
                }
                let spare = spare(f.id);
                for _ in 0..spare_places {
                    out.push_symbol(&spare);
                }
            }
            // Definitions of no known file (none are fed) keep their order at the end.
            let mut rest: Vec<Vec<usize>> = by_file.into_values().collect();
            rest.sort_by_key(|v| v.first().map(|&i| symbols.id_file(i).0));
            for i in rest.into_iter().flatten() {
                out.push(symbols.get(i));
            }
            out
        };
        let mut families: FxHashMap<String, u16> = FxHashMap::default();
        let family_of_lang: Vec<u16> = rules
            .iter()
            .map(|r| {
                let n = families.len() as u16;
                *families.entry(r.family.clone()).or_insert(n)
            })
            .collect();
        // A mapped table is never patched: its ids as runs (see `ById`), and its tables laid
        // out read-only through `freeze` as they are built.
        let mapped = symbols.is_mapped();
        let mut freeze = freeze.filter(|_| mapped);
        let mut file_index = ById::empty(mapped);
        let (mut modules, mut module_tails) = (NameLists::default(), NameLists::default());
        let mut dirs: FxHashMap<&str, u32> = FxHashMap::default();
        let mut file_dir = Vec::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            let i = i as u32;
            file_index.add(f.id, i);
            let next = dirs.len() as u32;
            file_dir.push(*dirs.entry(dir_of(f.path)).or_insert(next));
            if let Some(tail) = segments(f.module).next_back() {
                let key = normalize(f.module);
                let module_of = |q: u32| files.get(q as usize).module;
                modules.push(
                    key_hash(None, &key),
                    |q| normalizes_to(module_of(q), &key),
                    i,
                );
                module_tails.push(
                    key_hash(None, tail),
                    |q| segments(module_of(q)).next_back() == Some(tail),
                    i,
                );
            }
        }
        drop(dirs);
        let file_index = file_index.finish_dense();
        // By path, so that each list of `paths` and `names` is in path order whatever order
        // the files arrived in.
        let mut by_path: Vec<u32> = (0..files.len() as u32).collect();
        by_path.sort_by(|&a, &b| files.get(a as usize).path.cmp(files.get(b as usize).path));
        let (mut exact_paths, mut paths, mut names) = Default::default();
        for p in by_path {
            let path = files.get(p as usize).path;
            push_path(&mut exact_paths, &files, path, p, exact_path);
            push_path(&mut paths, &files, path, p, strip_extension);
            push_path(&mut names, &files, path, p, file_name);
        }
        if let Some(f) = freeze.as_mut() {
            // On an error a table stays on the heap (the caller's map says why).
            let _ = files.freeze(&mut *f.rows);
            for lists in [
                &mut modules,
                &mut module_tails,
                &mut exact_paths,
                &mut paths,
                &mut names,
            ] {
                let _ = lists.freeze(&mut *f.words);
            }
        }
        let mut by_id = ById::empty(mapped);
        let mut family = Family::Heap(Vec::with_capacity(symbols.len()));
        for (i, s) in symbols.iter().enumerate() {
            let i = i as u32;
            if is_spare(&s) {
                family.heap_mut().push(u16::MAX);
                continue;
            }
            by_id.add(s.id, i);
            family.heap_mut().push(
                file_index
                    .get(s.file)
                    .map(|fi| family_of_lang[files.get(fi as usize).lang])
                    .unwrap_or(u16::MAX),
            );
        }
        let by_id = by_id.finish();
        // Each table is built (in position order) and, when a caller keeps them, frozen before
        // the next one: only one is ever on the heap.
        if let Some(f) = freeze.as_mut() {
            // On an error they stay on the heap (the caller's map says why).
            let _ = family.freeze(&mut *f.rows);
        }
        let mut words = freeze.as_mut().map(|f| &mut *f.words);
        let by_name = symbol_lists(&symbols, &mut words, |_, s| {
            Some((key_hash(None, s.name), named(&symbols, s.name)))
        });
        // Normalised on demand: stored, the normalised names were a table as large as the
        // qualified names in a language whose separators are not dots.
        let by_norm = symbol_lists(&symbols, &mut words, |_, s| {
            let key = norm_of(s.qname);
            Some((key_hash(None, &key), normed(&symbols, key)))
        });
        let children = symbol_lists(&symbols, &mut words, |_, s| {
            let p = s.parent?;
            Some((key_hash(Some(p), s.name), child_named(&symbols, p, s.name)))
        });
        let by_dir = symbol_lists(&symbols, &mut words, |_, s| {
            let fi = file_index.get(s.file)?;
            if s.parent != Some(files.get(fi as usize).node) {
                return None;
            }
            let dir = file_dir[fi as usize];
            Some((
                key_hash(Some(i64::from(dir)), s.name),
                in_dir(&symbols, &file_index, &file_dir, dir, s.name),
            ))
        });
        Index {
            symbols,
            by_id,
            by_name,
            by_norm,
            children,
            by_dir,
            file_dir,
            files,
            file_index,
            modules,
            module_tails,
            exact_paths,
            paths,
            names,
            rules,
            family_of_lang,
            family,
        }
    }

    pub fn file(&self, id: i64) -> Option<FileRef<'_>> {
        self.file_index.get(id).map(|i| self.files.get(i as usize))
    }

    /// The positions of the files of the normalised module `key`, in file order.
    pub fn module_files(&self, key: &str) -> &[u32] {
        self.modules.get(key_hash(None, key), |p| {
            normalizes_to(self.files.get(p as usize).module, key)
        })
    }

    /// The positions of the files whose normalised module ends with the segment `tail`.
    pub fn module_tail(&self, tail: &str) -> &[u32] {
        self.module_tails.get(key_hash(None, tail), |p| {
            segments(self.files.get(p as usize).module).next_back() == Some(tail)
        })
    }

    /// About the heap bytes of the per-file tables (for the debug log).
    pub fn file_bytes(&self) -> usize {
        self.files.heap_bytes()
            + self.file_index.heap_bytes()
            + self.file_dir.capacity() * 4
            + [
                &self.modules,
                &self.module_tails,
                &self.exact_paths,
                &self.paths,
                &self.names,
            ]
            .iter()
            .map(|l| l.heap_bytes())
            .sum::<usize>()
    }

    /// The file at exactly `path`.
    pub fn file_at(&self, path: &str) -> Option<FileRef<'_>> {
        let at = self.path_list(&self.exact_paths, path, exact_path);
        at.first().map(|&p| self.files.get(p as usize))
    }

    /// The positions of the files whose path without extension is `stem`, by path.
    pub fn with_stem(&self, stem: &str) -> &[u32] {
        self.path_list(&self.paths, stem, strip_extension)
    }

    /// The positions of the files named `name` (the path's last segment), by path.
    pub fn with_file_name(&self, name: &str) -> &[u32] {
        self.path_list(&self.names, name, file_name)
    }

    fn path_list<'a>(
        &'a self,
        lists: &'a NameLists,
        key: &str,
        key_of: fn(&str) -> &str,
    ) -> &'a [u32] {
        lists.get(key_hash(None, key), |p| {
            key_of(self.files.get(p as usize).path) == key
        })
    }

    pub fn symbol(&self, id: i64) -> Option<(u32, SymRef<'_>)> {
        self.by_id
            .get(id)
            .map(|i| (i, self.symbols.get(i as usize)))
    }

    pub fn children_named(&self, parent: i64, name: &str) -> &[u32] {
        self.children.get(
            key_hash(Some(parent), name),
            child_named(&self.symbols, parent, name),
        )
    }

    pub fn norm_named(&self, key: &str) -> &[u32] {
        self.by_norm
            .get(key_hash(None, key), normed(&self.symbols, key))
    }

    /// The normalised qualified name of the symbol at position `i`.
    pub fn norm(&self, i: usize) -> Cow<'_, str> {
        norm_of(self.symbols.get(i).qname)
    }

    /// The top-level symbols named `name` in the directory of file `file`.
    pub fn dir_named(&self, file: i64, name: &str) -> &[u32] {
        let Some(fi) = self.file_index.get(file) else {
            return &[];
        };
        let dir = self.file_dir[fi as usize];
        self.by_dir.get(
            key_hash(Some(i64::from(dir)), name),
            in_dir(&self.symbols, &self.file_index, &self.file_dir, dir, name),
        )
    }

    pub fn named(&self, name: &str) -> &[u32] {
        self.by_name
            .get(key_hash(None, name), named(&self.symbols, name))
    }
}

/// Words for frozen name lists ([`Freeze::words`]), when the tables are laid out read-only.
type WordsMap<'f, 'g> =
    Option<&'f mut (dyn FnMut(usize) -> std::io::Result<Box<dyn WordsOut>> + 'g)>;

/// A name table over the definitions: `key(i, s)` gives the hash of the key of the definition
/// at position `i` and whether another position has that key, or `None` when it is not
/// listed. With `words`, laid out read-only as it is built ([`NameLists::frozen_from`]), else
/// on the heap (and frozen there, should `words` fail).
fn symbol_lists<'s, K: Fn(u32) -> bool>(
    symbols: &'s Symbols,
    words: &mut WordsMap<'_, '_>,
    key: impl Fn(u32, &SymRef<'s>) -> Option<(u64, K)>,
) -> NameLists {
    let listed = || {
        symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| !is_spare(s))
            .map(|(i, s)| (i as u32, s))
    };
    if let Some(words) = words.as_mut() {
        let built = NameLists::frozen_from(
            symbols.len(),
            |push| {
                for (i, s) in listed() {
                    if let Some((hash, _)) = key(i, &s) {
                        push(hash, i);
                    }
                }
            },
            |head| {
                let s = symbols.get(head as usize);
                let is_key = key(head, &s).map(|(_, is_key)| is_key);
                move |q| is_key.as_ref().is_some_and(|k| k(q))
            },
            &mut **words,
        );
        // On an error the table is built on the heap (the caller's map says why).
        if let Ok(lists) = built {
            return lists;
        }
    }
    let mut lists = NameLists::default();
    for (i, s) in listed() {
        if let Some((hash, is_key)) = key(i, &s) {
            lists.push(hash, is_key, i);
        }
    }
    if let Some(words) = words.as_mut() {
        let _ = lists.freeze(&mut **words);
    }
    lists
}

/// Files a path table lists under a key made from their path ([`Index::exact_paths`],
/// [`Index::paths`], [`Index::names`]).
fn exact_path(path: &str) -> &str {
    path
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Adds the file at position `p` (of path `path`) to `lists` under `key_of(path)`.
fn push_path(lists: &mut NameLists, files: &Files, path: &str, p: u32, key_of: fn(&str) -> &str) {
    let key = key_of(path);
    lists.push(
        key_hash(None, key),
        |q| key_of(files.get(q as usize).path) == key,
        p,
    );
}

/// Whether the symbol at a position is named `name` (the key of [`Index::by_name`]).
pub(crate) fn named<'a>(symbols: &'a Symbols, name: &'a str) -> impl Fn(u32) -> bool + 'a {
    move |p| symbols.get(p as usize).name == name
}

/// A qualified name normalised ([`normalize`]), borrowed when it already is.
pub(crate) fn norm_of(qname: &str) -> Cow<'_, str> {
    let normal = !qname.contains([':', '\\', '/', '#'])
        && !qname.starts_with('.')
        && !qname.ends_with('.')
        && !qname.contains("..");
    if normal {
        Cow::Borrowed(qname)
    } else {
        Cow::Owned(normalize(qname))
    }
}

/// Whether `normalize(qname) == normal`, without making the normalised name.
pub(crate) fn joins_to(qname: &str, normal: &str) -> bool {
    if normal.is_empty() {
        segments(qname).next().is_none()
    } else {
        segments(qname).eq(normal.split('.'))
    }
}

/// The language family of the symbol at each position (`u16::MAX`: none, a spare place).
pub(crate) enum Family {
    Heap(Vec<u16>),
    /// Laid out read-only ([`Family::freeze`]): two bytes a position, in the rows.
    Frozen(Box<dyn MappedTable>),
}

impl Family {
    pub(crate) fn get(&self, i: usize) -> u16 {
        match self {
            Family::Heap(v) => v[i],
            Family::Frozen(t) => u16::from_le_bytes([t.rows()[2 * i], t.rows()[2 * i + 1]]),
        }
    }

    /// The families on the heap, to change (only those never frozen change).
    pub(crate) fn heap_mut(&mut self) -> &mut Vec<u16> {
        match self {
            Family::Heap(v) => v,
            Family::Frozen(_) => panic!("frozen families do not change"),
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Family::Heap(v) => v.capacity() * 2,
            Family::Frozen(_) => 0,
        }
    }

    /// Lays the families out read-only in memory `map` makes of them (a map of a temporary
    /// file) and drops them from the heap. On an error of `map`, or a table that does not give
    /// back what was laid out, they stay as they are.
    pub(crate) fn freeze(
        &mut self,
        map: &mut crate::symbols::TablesOut<'_>,
    ) -> std::io::Result<()> {
        let Family::Heap(v) = self else {
            return Ok(());
        };
        let mut out = map()?;
        for f in v.iter() {
            out.rows().write_all(&f.to_le_bytes())?;
        }
        let table = out.finish()?;
        let rows = table.rows();
        if rows.len() != 2 * v.len()
            || v.iter()
                .enumerate()
                .any(|(i, &f)| rows[2 * i..2 * i + 2] != f.to_le_bytes())
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "frozen families differ",
            ));
        }
        *self = Family::Frozen(table);
        Ok(())
    }
}

/// Whether the symbol at a position has the normalised qualified name `key` (the key of
/// [`Index::by_norm`]).
pub(crate) fn normed<'a>(
    symbols: &'a Symbols,
    key: impl AsRef<str> + 'a,
) -> impl Fn(u32) -> bool + 'a {
    move |p| joins_to(symbols.get(p as usize).qname, key.as_ref())
}

/// Whether the symbol at a position is named `name` and defined in a file of directory `dir`
/// (the key of [`Index::by_dir`]).
pub(crate) fn in_dir<'a>(
    symbols: &'a Symbols,
    file_index: &'a ById,
    file_dir: &'a [u32],
    dir: u32,
    name: &'a str,
) -> impl Fn(u32) -> bool + 'a {
    move |p| {
        let s = symbols.get(p as usize);
        s.name == name
            && file_index
                .get(s.file)
                .is_some_and(|f| file_dir[f as usize] == dir)
    }
}

/// Whether the symbol at a position is the child `name` of `parent` (the key of
/// [`Index::children`]).
pub(crate) fn child_named<'a>(
    symbols: &'a Symbols,
    parent: i64,
    name: &'a str,
) -> impl Fn(u32) -> bool + 'a {
    move |p| {
        let s = symbols.get(p as usize);
        s.parent == Some(parent) && s.name == name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::FileCtx;
    use sextant_model::NodeKind;

    fn def(id: i64, file: i64) -> Symbol {
        Symbol {
            id,
            file,
            kind: NodeKind::Function,
            name: format!("f{id}"),
            qname: format!("m.f{id}"),
            parent: Some(file * 100),
            declaration: false,
            type_text: None,
        }
    }

    fn file(id: i64) -> FileCtx {
        FileCtx {
            id,
            node: id * 100,
            path: format!("m{id}.py"),
            module: format!("m{id}"),
            lang: 0,
        }
    }

    fn rules() -> Vec<LangRules> {
        vec![LangRules {
            id: "python".into(),
            family: "python".into(),
            self_names: Vec::new(),
            super_names: Vec::new(),
            binds: crate::input::Binds::None,
            implicit_self: false,
            module_style: "python".into(),
            builtin_names: Default::default(),
            builtin_members: Default::default(),
            separate_call_names: false,
        }]
    }

    #[test]
    fn normalised_names_are_made_on_demand_and_found_by_their_key() {
        // Already normal, with separators, empty, separators only, dots at an end or doubled.
        let qnames = [
            "a.b",
            "a::b",
            "",
            "::",
            "é::ü\\x",
            "m.C#f",
            "a..b",
            ".a",
            "a.",
            "a/b",
            "x",
        ];
        let normal = [
            "a.b", "a.b", "", "", "é.ü.x", "m.C.f", "a.b", "a", "a", "a.b", "x",
        ];
        for (q, n) in qnames.iter().zip(normal) {
            assert_eq!(normalize(q), n, "{q}");
            let made = norm_of(q);
            assert_eq!(made, n, "{q}");
            // Borrowed exactly when the name is its own normal form.
            assert_eq!(matches!(made, Cow::Borrowed(_)), *q == n, "{q}");
        }
        let mut defs: Vec<Symbol> = qnames
            .iter()
            .enumerate()
            .map(|(i, q)| Symbol {
                qname: q.to_string(),
                ..def(i as i64 + 1, 1)
            })
            .collect();
        defs.push(spare(1));
        let symbols: Symbols = defs.into();
        let ix = Index::build(vec![file(1)], symbols, rules(), 0, None);
        for (i, n) in normal.iter().enumerate() {
            assert_eq!(ix.norm(i), *n);
            let want: Vec<u32> = (0..qnames.len() as u32)
                .filter(|&p| normal[p as usize] == *n)
                .collect();
            assert_eq!(ix.norm_named(n), &want[..], "{n}");
        }
        assert!(ix.norm_named("a.b.c").is_empty());
        assert!(
            ix.norm_named("a::b").is_empty(),
            "a key is normalised already"
        );
    }

    #[test]
    fn frozen_families_answer_as_the_heap_did_and_a_wrong_copy_is_refused() {
        let v = vec![0, u16::MAX, 3, 0x1234];
        let mut family = Family::Heap(v.clone());
        family.freeze(&mut crate::symbols::held_out).unwrap();
        assert!(matches!(family, Family::Frozen(_)));
        assert_eq!(family.heap_bytes(), 0);
        assert_eq!((0..v.len()).map(|i| family.get(i)).collect::<Vec<_>>(), v);
        for wrong in [
            |rows: Vec<u8>, text| crate::symbols::held(rows[2..].to_vec(), text),
            |mut rows: Vec<u8>, text| {
                rows[7] ^= 1;
                crate::symbols::held(rows, text)
            },
        ] as [crate::symbols::Finish; 2]
        {
            let mut family = Family::Heap(v.clone());
            assert!(
                family
                    .freeze(&mut || crate::symbols::out_then(wrong))
                    .is_err()
            );
            assert_eq!(family.heap_mut(), &v);
        }
    }

    #[test]
    fn a_mapped_tables_ids_as_runs_find_what_the_map_finds() {
        // File 1's definitions first, with gaps; file 2's ids are lower than file 1's.
        let defs: Vec<Symbol> = [(5, 1), (6, 1), (7, 1), (100, 1), (1000, 1), (3, 2), (4, 2)]
            .into_iter()
            .map(|(id, f)| def(id, f))
            .collect();
        let files = || vec![file(1), file(2)];
        let in_memory = Index::build(files(), defs.clone().into(), rules(), 0, None);
        let mapped = Index::build(
            files(),
            crate::symbols::mapped_copy(&defs.into()),
            rules(),
            0,
            None,
        );
        assert!(matches!(in_memory.by_id, ById::Map(_)));
        let ById::Runs(runs) = &mapped.by_id else {
            panic!("a mapped table's ids are runs");
        };
        assert_eq!(runs, &[(3, 5, 2), (5, 0, 3), (100, 3, 1), (1000, 4, 1)]);
        for id in (-1..15).chain([99, 100, 101, 999, 1000, 1001]) {
            let found = |ix: &Index| ix.symbol(id).map(|(p, s)| (p, s.id));
            assert_eq!(found(&mapped), found(&in_memory), "id {id}");
        }
    }

    #[test]
    fn file_ids_close_together_are_dense_and_far_apart_a_map() {
        // Files: nearly consecutive ids, their positions (by path) in another order.
        let (mut dense, mut map) = (ById::empty(true), ById::empty(false));
        for (pos, id) in [7, 5, 6, 10, 8].into_iter().enumerate() {
            dense.add(id, pos as u32);
            map.add(id, pos as u32);
        }
        let dense = dense.finish_dense();
        let ById::Dense { first, positions } = &dense else {
            panic!("ids close together are dense");
        };
        assert_eq!(
            (*first, positions.as_slice()),
            (5, &[1, 2, 0, 4, NO_POSITION, 3][..])
        );
        for id in [i64::MIN, -1, 4, 5, 6, 7, 8, 9, 10, 11, i64::MAX] {
            assert_eq!(dense.get(id), map.get(id), "id {id}");
        }
        // Ids spread far apart (files reused from many generations): a map.
        let mut spread = ById::empty(true);
        for (pos, id) in [3, 1 << 40, 9, i64::MAX - 1].into_iter().enumerate() {
            spread.add(id, pos as u32);
        }
        let spread = spread.finish_dense();
        assert!(matches!(spread, ById::Map(_)));
        assert_eq!(
            (spread.get(1 << 40), spread.get(i64::MAX - 1), spread.get(4)),
            (Some(1), Some(3), None)
        );
        // Nothing: dense and empty.
        assert_eq!(ById::empty(true).finish_dense().get(0), None);
        // A patchable resolver's map stays a map.
        assert!(matches!(ById::empty(false).finish_dense(), ById::Map(_)));
    }
}
