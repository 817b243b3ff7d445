//! Typed bindings by file, loaded when resolution first needs a file's and forgotten after each
//! batch: a first index's resolver holds only the bindings that other files look up by name
//! (attributes, `self.x = ...`, see [`paged`]), not every local of every function.
//!
//! Resolution goes a batch of whole files at a time; a batch touches the bindings of its own
//! files and a few others' (an attribute's assignment is typed in the scopes of its own file:
//! 7 % of Django's binding lookups, ~25 files per batch; `bench/RESULTS.md`, "Memory against
//! repository size, session 18"). The caller keeps the pages where it likes (this crate does no
//! I/O) and hands them over through [`BindingSource`].

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use crate::bindings::{BindRef, Bindings};
use crate::lists::{NameLists, key_hash};
use crate::resolver::{FileBindings, Target, bound_in};
use crate::typing::split_last;

/// Whether a binding named `name` lives in its file's page rather than in the resolver's own
/// table: a plain name (`x`, `store`). A path (`self.store`, `this.x`, `Foo::bar`) is looked up
/// by name across files ([`crate::Resolver`]'s attribute typing) and stays in memory.
pub fn paged(name: &str) -> bool {
    split_last(name).is_none()
}

/// Where the pages come from: one file's paged bindings ([`paged`]), in source order.
pub trait BindingSource: Send + Sync {
    fn bindings_of(&self, file: i64) -> Bindings;
}

/// One file's paged bindings and their lists by (scope, name).
pub(crate) struct Page {
    pub(crate) binds: Bindings,
    in_scope: NameLists,
}

impl Page {
    fn new(binds: Bindings) -> Page {
        let mut in_scope = NameLists::default();
        for i in 0..binds.len() {
            let b = binds.get(i);
            in_scope.push(
                key_hash(Some(b.scope), b.name),
                bound_in(&binds, b.scope, b.name),
                i as u32,
            );
        }
        Page { binds, in_scope }
    }

    /// The positions of the bindings of `name` in `scope`, in source order.
    pub(crate) fn bound(&self, scope: i64, name: &str) -> &[u32] {
        self.in_scope.get(
            key_hash(Some(scope), name),
            bound_in(&self.binds, scope, name),
        )
    }
}

/// The pages loaded since the last [`Pages::forget`].
pub(crate) struct Pages {
    source: Box<dyn BindingSource>,
    loaded: Mutex<FxHashMap<i64, Arc<Page>>>,
}

impl Pages {
    pub(crate) fn new(source: Box<dyn BindingSource>) -> Pages {
        Pages {
            source,
            loaded: Mutex::new(FxHashMap::default()),
        }
    }

    /// The page of `file`, loaded on first use. Loading happens outside the lock: two threads
    /// wanting the same new page may both load it, and the first one in is kept.
    pub(crate) fn page(&self, file: i64) -> Arc<Page> {
        if let Some(p) = self.lock().get(&file) {
            return p.clone();
        }
        let page = Arc::new(Page::new(self.source.bindings_of(file)));
        self.lock().entry(file).or_insert(page).clone()
    }

    /// Drops every loaded page (between batches).
    pub(crate) fn forget(&self) {
        let old = std::mem::take(&mut *self.lock());
        drop(old);
    }

    /// The files whose pages are loaded, sorted.
    #[cfg(test)]
    pub(crate) fn loaded(&self) -> Vec<i64> {
        let mut files: Vec<i64> = self.lock().keys().copied().collect();
        files.sort_unstable();
        files
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<i64, Arc<Page>>> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A binding found by a lookup: in the resolver's own table or in a page.
pub(crate) enum Bound<'a> {
    Table(BindRef<'a>),
    Page(Arc<Page>, u32),
}

impl Bound<'_> {
    pub(crate) fn get(&self) -> BindRef<'_> {
        match self {
            Bound::Table(b) => *b,
            Bound::Page(page, i) => page.binds.get(*i as usize),
        }
    }
}

/// Where the import tables come from once they are paged out
/// ([`crate::Resolver::page_out_import_tables`]): the bytes the resolver gave for a file, or
/// `None` for a file without imports.
pub trait ImportTableSource: Send + Sync {
    fn bytes_of(&self, file: i64) -> Option<Vec<u8>>;
}

/// A file's import table as bytes: its names (sorted, so equal tables give equal bytes) with
/// their targets, then its wildcard targets.
pub(crate) fn encode_tables(t: &FileBindings) -> Vec<u8> {
    fn str_(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn target(out: &mut Vec<u8>, t: &Target) {
        match t {
            Target::Module { key, files } => {
                out.push(0);
                str_(out, key);
                out.extend_from_slice(&(files.len() as u32).to_le_bytes());
                for f in files {
                    out.extend_from_slice(&f.to_le_bytes());
                }
            }
            Target::Symbols(syms) => {
                out.push(1);
                out.extend_from_slice(&(syms.len() as u32).to_le_bytes());
                for s in syms {
                    out.extend_from_slice(&s.to_le_bytes());
                }
            }
            Target::External => out.push(2),
        }
    }
    let mut out = Vec::new();
    let mut names: Vec<(&String, &Target)> = t.names.iter().collect();
    names.sort_unstable_by_key(|(n, _)| *n);
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    for (n, t) in names {
        str_(&mut out, n);
        target(&mut out, t);
    }
    out.extend_from_slice(&(t.wildcards.len() as u32).to_le_bytes());
    for t in &t.wildcards {
        target(&mut out, t);
    }
    out
}

/// The import table [`encode_tables`] wrote; `None` when the bytes are malformed.
pub(crate) fn decode_tables(bytes: &[u8]) -> Option<FileBindings> {
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, tail) = rest.split_at_checked(n)?;
        *rest = tail;
        Some(head)
    }
    fn u32_(rest: &mut &[u8]) -> Option<u32> {
        Some(u32::from_le_bytes(take(rest, 4)?.try_into().ok()?))
    }
    fn str_(rest: &mut &[u8]) -> Option<String> {
        let n = u32_(rest)? as usize;
        Some(std::str::from_utf8(take(rest, n)?).ok()?.to_string())
    }
    fn target(rest: &mut &[u8]) -> Option<Target> {
        Some(match take(rest, 1)?[0] {
            0 => {
                let key = str_(rest)?;
                let n = u32_(rest)? as usize;
                let files = (0..n)
                    .map(|_| Some(i64::from_le_bytes(take(rest, 8)?.try_into().ok()?)))
                    .collect::<Option<Vec<i64>>>()?;
                Target::Module { key, files }
            }
            1 => {
                let n = u32_(rest)? as usize;
                Target::Symbols((0..n).map(|_| u32_(rest)).collect::<Option<Vec<u32>>>()?)
            }
            2 => Target::External,
            _ => return None,
        })
    }
    let mut rest = bytes;
    let mut t = FileBindings::default();
    for _ in 0..u32_(&mut rest)? {
        let name = str_(&mut rest)?;
        t.names.insert(name, target(&mut rest)?);
    }
    for _ in 0..u32_(&mut rest)? {
        t.wildcards.push(target(&mut rest)?);
    }
    rest.is_empty().then_some(t)
}

/// Import tables as bytes in memory: what an earlier import pass made, read by the next one
/// ([`crate::Resolver`]'s `resolve_imports_once`). On 73 MB of source a pass's tables are
/// 8.6 MiB as hash tables, and the second pass held the first one's while it made its own.
#[derive(Default)]
pub(crate) struct HeldTables {
    bytes: Vec<u8>,
    /// File → its table's (start, length) in `bytes`.
    at: FxHashMap<i64, (usize, usize)>,
}

/// Where a pass of import resolution before the last keeps the tables it makes (as bytes,
/// [`encode_tables`]) for the next pass to read back: on the heap ([`HeldTables`]), or where
/// the caller keeps them, a temporary file say (`Resolver::resolve_imports_paged`).
pub trait PassTables {
    fn put(&mut self, file: i64, table: &[u8]);
    /// The tables put, for the next pass.
    fn finish(self: Box<Self>) -> Box<dyn ImportTableSource>;
}

impl PassTables for HeldTables {
    fn put(&mut self, file: i64, table: &[u8]) {
        self.at.insert(file, (self.bytes.len(), table.len()));
        self.bytes.extend_from_slice(table);
    }

    fn finish(self: Box<Self>) -> Box<dyn ImportTableSource> {
        self
    }
}

impl ImportTableSource for HeldTables {
    fn bytes_of(&self, file: i64) -> Option<Vec<u8>> {
        let &(start, len) = self.at.get(&file)?;
        Some(self.bytes[start..start + len].to_vec())
    }
}

/// Import tables that [`ImportPages::other`] keeps decoded, in bytes of their encoding: once
/// more would be kept, the ones kept are dropped. An import pass reading an earlier pass's
/// tables ([`HeldTables`]) looks up the modules its files import from, many of them again and
/// again (a package's `__init__`), so they stay decoded for a while, but not all of them.
const DECODED_BYTES: usize = 1 << 20;

/// The import tables of a resolver that paged them out: the current batch's files', owned
/// (read without a lock while the batch resolves), and the others' a batch reaches (modules it
/// imports from re-export names), loaded on first use.
pub(crate) struct ImportPages {
    pub(crate) source: Box<dyn ImportTableSource>,
    pub(crate) others: Mutex<Decoded>,
}

/// Tables decoded on first use, and the size of their encodings.
#[derive(Default)]
pub(crate) struct Decoded {
    pub(crate) tables: FxHashMap<i64, Option<Arc<FileBindings>>>,
    bytes: usize,
}

impl Decoded {
    pub(crate) fn clear(&mut self) {
        *self = Decoded::default();
    }
}

impl ImportPages {
    pub(crate) fn new(source: Box<dyn ImportTableSource>) -> ImportPages {
        ImportPages {
            source,
            others: Mutex::default(),
        }
    }

    /// The table of `file` (not one of the batch's), loaded on first use.
    pub(crate) fn other(&self, file: i64) -> Option<Arc<FileBindings>> {
        let lock = || self.others.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = lock().tables.get(&file) {
            return t.clone();
        }
        let bytes = self.source.bytes_of(file);
        let size = bytes.as_ref().map_or(0, Vec::len);
        let loaded = bytes.and_then(|b| Self::decode(file, &b)).map(Arc::new);
        let mut others = lock();
        if others.bytes + size > DECODED_BYTES {
            others.clear();
        }
        others.bytes += size;
        others.tables.entry(file).or_insert(loaded).clone()
    }

    fn decode(file: i64, bytes: &[u8]) -> Option<FileBindings> {
        let t = decode_tables(bytes);
        debug_assert!(t.is_some(), "import table of file {file} malformed");
        t
    }

    pub(crate) fn load(&self, file: i64) -> Option<FileBindings> {
        Self::decode(file, &self.source.bytes_of(file)?)
    }
}

/// A file's import table: the resolver's own, or one loaded for another file.
pub(crate) enum Tables<'a> {
    Here(&'a FileBindings),
    Loaded(Arc<FileBindings>),
}

impl std::ops::Deref for Tables<'_> {
    type Target = FileBindings;

    fn deref(&self) -> &FileBindings {
        match self {
            Tables::Here(t) => t,
            Tables::Loaded(t) => t,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sextant_model::{NodeKind, RefKind};

    use super::*;
    use crate::input::{Bind, FileCtx, Imp, LangRules, Ref, Resolution, Symbol};
    use crate::testing::{def as symbol, import, py_file as file};
    use crate::{PatchError, Resolver};
    use rustc_hash::FxHashMap;

    struct Source {
        binds: Vec<Bind>,
        loads: Arc<AtomicUsize>,
    }

    impl BindingSource for Source {
        fn bindings_of(&self, file: i64) -> Bindings {
            self.loads.fetch_add(1, Ordering::Relaxed);
            let mine: Vec<Bind> = self
                .binds
                .iter()
                .filter(|b| b.file == file)
                .cloned()
                .collect();
            Bindings::from(mine)
        }
    }

    fn resolver() -> Resolver {
        let (files, symbols, rules) = parts();
        Resolver::new(files, symbols, rules)
    }

    /// The files, definitions and rules of [`resolver`].
    fn parts() -> (Vec<FileCtx>, Vec<Symbol>, Vec<LangRules>) {
        let rules = crate::testing::python_rules();
        let symbol = |id, kind, qname: &str, parent| symbol(id, 1, kind, qname, parent);
        let symbols = vec![
            symbol(101, NodeKind::Class, "a.Store", 100),
            symbol(102, NodeKind::Method, "a.Store.get", 101),
            symbol(103, NodeKind::Class, "a.Cache", 100),
            symbol(104, NodeKind::Method, "a.Cache.get", 103),
            symbol(105, NodeKind::Function, "a.f", 100),
        ];
        (vec![file(1, "a.py")], symbols, vec![rules])
    }

    /// `s = Store()` in `f`, and an attribute binding (a path: kept in the table).
    fn binds() -> Vec<Bind> {
        let bind = |scope, name: &str, value: &str| Bind {
            file: 1,
            scope,
            name: name.into(),
            type_text: None,
            value: Some(value.into()),
        };
        vec![bind(105, "s", "Store"), bind(102, "self.c", "Cache")]
    }

    /// `s.get()` in `f`.
    fn call() -> Ref {
        Ref {
            id: 1,
            file: 1,
            src: 105,
            kind: RefKind::Call,
            name: "get".into(),
            receiver: Some("s".into()),
            implementor: None,
        }
    }

    fn targets(r: Resolution) -> Vec<i64> {
        match r {
            Resolution::Edges(edges) => edges.iter().map(|e| e.dst).collect(),
            Resolution::Unresolved(_) => Vec::new(),
        }
    }

    #[test]
    fn paged_bindings_resolve_as_bindings_in_memory_and_load_again_after_forget() {
        let in_memory = targets(resolver().with_bindings(binds()).resolve(&call()));
        assert_eq!(in_memory, vec![102], "typed by `s = Store()`");

        let loads = Arc::new(AtomicUsize::new(0));
        let (plain, paths): (Vec<Bind>, Vec<Bind>) =
            binds().into_iter().partition(|b| paged(&b.name));
        assert_eq!((plain.len(), paths.len()), (1, 1));
        let mut paged_resolver =
            resolver()
                .with_bindings(paths)
                .with_binding_pages(Box::new(Source {
                    binds: plain,
                    loads: loads.clone(),
                }));
        assert_eq!(targets(paged_resolver.resolve(&call())), in_memory);
        let first = loads.load(Ordering::Relaxed);
        assert!(first >= 1);
        // Loaded once while the batch lasts, again after it is forgotten.
        paged_resolver.resolve(&call());
        assert_eq!(loads.load(Ordering::Relaxed), first);
        paged_resolver.forget_pages();
        assert_eq!(targets(paged_resolver.resolve(&call())), in_memory);
        assert_eq!(loads.load(Ordering::Relaxed), first + 1);

        // Without the page the receiver is untyped: the pages are what typed it.
        let empty = resolver().with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        assert_ne!(targets(empty.resolve(&call())), in_memory);

        // What only the patcher needs is not kept by a resolver that cannot be patched.
        let import = Imp {
            id: 9,
            file: 1,
            src: 100,
            source: "a".into(),
            name: Some("Store".into()),
            alias: None,
            wildcard: false,
        };
        let mut patchable = resolver().with_bindings(binds());
        patchable.resolve_imports(std::slice::from_ref(&import));
        assert!(!patchable.fixed_names.is_empty());
        paged_resolver.resolve_imports(&[import]);
        assert!(paged_resolver.fixed_names.is_empty());

        let replaced = paged_resolver.replace_file(1, file(2, "a.py"), Vec::new(), Vec::new());
        assert_eq!(replaced.err(), Some(PatchError::Paged));
    }

    #[test]
    fn the_inheritance_pass_keeps_only_the_binding_pages_of_the_file_it_is_at() {
        let rules = crate::testing::python_rules();
        let files = vec![file(1, "a.py"), file(2, "b.py"), file(3, "c.py")];
        let symbols = vec![
            symbol(101, 1, NodeKind::Class, "a.Base", 100),
            symbol(102, 1, NodeKind::Class, "a.A", 100),
            symbol(201, 2, NodeKind::Class, "b.B", 200),
            symbol(301, 3, NodeKind::Class, "c.C", 300),
        ];
        // A module-level name in each file: a base written `m.Base` reads the page of its file.
        let binds: Vec<Bind> = [(1, 100), (2, 200), (3, 300)]
            .into_iter()
            .map(|(file, scope)| Bind {
                file,
                scope,
                name: "m".into(),
                type_text: None,
                value: Some("A".into()),
            })
            .collect();
        let clause = |id, file, src| Ref {
            id,
            file,
            src,
            kind: RefKind::Inherit,
            name: "Base".into(),
            receiver: Some("m".into()),
            implementor: None,
        };
        let clauses = [clause(1, 1, 102), clause(2, 2, 201), clause(3, 3, 301)];
        let loads = Arc::new(AtomicUsize::new(0));
        let mut r =
            Resolver::new(files, symbols, vec![rules]).with_binding_pages(Box::new(Source {
                binds,
                loads: loads.clone(),
            }));
        let resolved = r.resolve_inheritance(&clauses);
        assert_eq!(resolved.len(), 3);
        assert_eq!(
            loads.load(Ordering::Relaxed),
            3,
            "each file's page was read"
        );
        let loaded = r.pages.as_ref().map(|p| p.loaded()).unwrap_or_default();
        assert_eq!(loaded, vec![3], "the earlier files' pages were forgotten");
    }

    #[test]
    fn mapped_definitions_resolve_as_in_memory_and_refuse_patches() {
        let (files, symbols, rules) = parts();
        let in_memory = targets(resolver().with_bindings(binds()).resolve(&call()));
        let mapped = crate::symbols::mapped_copy(&symbols.clone().into());
        let mut r = Resolver::new(files.clone(), mapped, rules.clone()).with_bindings(binds());
        assert_eq!(targets(r.resolve(&call())), in_memory);
        r.forget_pages();
        assert_eq!(targets(r.resolve(&call())), in_memory);
        let replaced = r.replace_file(1, file(2, "a.py"), Vec::new(), Vec::new());
        assert_eq!(replaced.err(), Some(PatchError::Paged));

        // Its files, their five tables, its four name tables and its families can be laid out
        // read-only as they are built.
        let laid_out = std::cell::Cell::new(0);
        let freeze = |symbols: crate::symbols::Symbols| {
            Resolver::frozen(
                files.clone(),
                symbols,
                rules.clone(),
                crate::Freeze {
                    words: &mut |n| {
                        laid_out.set(laid_out.get() + 1);
                        crate::lists::tests::heap_words(n)
                    },
                    rows: &mut || {
                        laid_out.set(laid_out.get() + 1);
                        crate::symbols::held_out()
                    },
                },
            )
            .with_bindings(binds())
        };
        let heap =
            |r: &Resolver, part: &str| r.table_bytes().iter().find(|p| p.0 == part).unwrap().1;
        let frozen = freeze(crate::symbols::mapped_copy(&symbols.clone().into()));
        assert_eq!(
            laid_out.get(),
            15,
            "1 + 5 file tables, 4 symbol tables (scratch and layout each) + 1"
        );
        let heaps = ["by_norm", "family"].map(|part| heap(&frozen, part));
        assert_eq!(heaps, [0, 0]);
        // The files' tables keep only a position per id and a directory per file.
        assert_eq!(heap(&frozen, "files"), 8 * files.len());
        assert_eq!(targets(frozen.resolve(&call())), in_memory);
        // Files written as they came (here last first) and laid out in path order resolve the
        // same.
        let mut out = crate::FilesOut::new(crate::symbols::held_out().unwrap());
        for f in files.iter().rev() {
            out.push(f.into()).unwrap();
        }
        let written = out.finish(&mut crate::symbols::held_out).unwrap();
        let r = Resolver::new(
            written,
            crate::symbols::mapped_copy(&symbols.clone().into()),
            rules.clone(),
        )
        .with_bindings(binds());
        assert_eq!(targets(r.resolve(&call())), in_memory);
        // Definitions on the heap (a resolver that may be patched): nothing is laid out.
        let kept = freeze(symbols.into());
        assert_eq!(laid_out.get(), 15);
        assert_ne!(heap(&kept, "by_norm"), 0);
        assert_eq!(targets(kept.resolve(&call())), in_memory);
    }

    #[test]
    fn import_tables_round_trip_and_reject_malformed_bytes() {
        let mut t = FileBindings::default();
        t.names.insert(
            "Flask".into(),
            Target::Module {
                key: "flask.app".into(),
                files: vec![3, -4, i64::MAX],
            },
        );
        t.names
            .insert("é".into(), Target::Symbols(vec![0, 7, u32::MAX]));
        t.names.insert("os".into(), Target::External);
        t.wildcards.push(Target::Symbols(Vec::new()));
        t.wildcards.push(Target::External);
        let bytes = encode_tables(&t);
        let back = decode_tables(&bytes).unwrap();
        let show = |t: &FileBindings| {
            let mut names: Vec<String> =
                t.names.iter().map(|(k, v)| format!("{k} {v:?}")).collect();
            names.sort();
            format!("{names:?} {:?}", t.wildcards)
        };
        assert_eq!(show(&back), show(&t));
        // Equal tables give equal bytes, whatever order the names were inserted in.
        assert_eq!(encode_tables(&back), bytes);
        assert!(decode_tables(&bytes[..bytes.len() - 1]).is_none());
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(decode_tables(&extra).is_none());
        assert!(decode_tables(&encode_tables(&FileBindings::default())).is_some());
    }

    struct Tables(FxHashMap<i64, Vec<u8>>);

    /// The files whose tables were handed out.
    fn files_of(bytes: &FxHashMap<i64, Vec<u8>>) -> std::collections::BTreeSet<i64> {
        bytes.keys().copied().collect()
    }

    /// A direct reach handed out, as a caller would keep it.
    struct Reach(Vec<(i64, Vec<i64>)>);

    impl crate::ReachSource for Reach {
        fn reached(&self, file: i64) -> Option<&[i64]> {
            self.0
                .iter()
                .find(|(f, _)| *f == file)
                .map(|(_, r)| r.as_slice())
        }
    }

    impl ImportTableSource for Tables {
        fn bytes_of(&self, file: i64) -> Option<Vec<u8>> {
            self.0.get(&file).cloned()
        }
    }

    /// `from a import Store` in b.py; `import b` then `b.Store()` in c.py's `g`.
    fn three_files() -> (Resolver, Vec<Imp>, Ref) {
        let resolver = Resolver::new(
            vec![file(1, "a.py"), file(2, "b.py"), file(3, "c.py")],
            vec![
                symbol(101, 1, NodeKind::Class, "a.Store", 100),
                symbol(301, 3, NodeKind::Function, "c.g", 300),
            ],
            vec![resolver().ix.rules[0].clone()],
        );
        let imports = vec![import(1, 2, "a", Some("Store")), import(2, 3, "b", None)];
        let call = Ref {
            id: 5,
            file: 3,
            src: 301,
            kind: RefKind::Call,
            name: "Store".into(),
            receiver: Some("b".into()),
            implementor: None,
        };
        (resolver, imports, call)
    }

    #[test]
    fn paged_import_tables_resolve_as_tables_in_memory() {
        let (mut in_memory, imports, call) = three_files();
        in_memory.resolve_imports(&imports);
        let expected = targets(in_memory.resolve(&call));
        assert_eq!(expected, vec![101], "b.Store is a.Store, re-exported by b");

        let (resolver, imports, call) = three_files();
        let mut paged = resolver.with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        paged.resolve_imports(&imports);
        let mut bytes = FxHashMap::default();
        let out = paged
            .page_out_import_tables(&mut |f, b| {
                bytes.insert(f, b.to_vec());
                Ok(())
            })
            .unwrap();
        assert!(out);
        assert_eq!(files_of(&bytes), [2, 3].into());
        paged.with_import_tables_from(Box::new(Tables(bytes)));
        assert!(paged.bindings.is_empty());
        paged.load_import_tables(&[3]);
        assert_eq!(targets(paged.resolve(&call)), expected);
        // c.py's table came with its batch; b.py's was loaded when the lookup reached it.
        let others = |r: &Resolver| -> Vec<i64> {
            let pages = r.import_pages.as_ref().unwrap();
            pages
                .others
                .lock()
                .unwrap()
                .tables
                .keys()
                .copied()
                .collect()
        };
        assert_eq!(others(&paged), vec![2]);
        paged.load_import_tables(&[1]);
        assert!(others(&paged).is_empty());

        // A resolver that can be patched keeps its tables.
        let (mut patchable, imports, _) = three_files();
        patchable.resolve_imports(&imports);
        assert!(
            !patchable
                .page_out_import_tables(&mut |_, _| Ok(()))
                .unwrap()
        );
    }

    /// `class X(b.Store)` in c.py.
    fn clause() -> Ref {
        Ref {
            id: 6,
            kind: RefKind::Inherit,
            ..three_files().2
        }
    }

    #[test]
    fn tables_handed_out_by_the_last_pass_resolve_as_tables_in_memory() {
        let (mut in_memory, imports, call) = three_files();
        let expected_edges = in_memory.resolve_imports(&imports);
        let expected = targets(in_memory.resolve(&call));
        assert_eq!(expected, vec![101]);
        let inherited = in_memory.resolve_inheritance(&[clause()]);
        assert_eq!(targets(inherited[0].1.clone()), vec![101]);
        // A resolver the patcher may change keeps its hierarchy as a map.
        in_memory.hierarchy_complete();
        assert!(matches!(in_memory.bases, crate::links::Links::Map(_)));

        let (resolver, imports, call) = three_files();
        let mut paged = resolver.with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        let (mut edges, mut bytes) = (Vec::new(), FxHashMap::default());
        let handed_out = paged.resolve_imports_paged(
            &imports.as_slice(),
            &mut |e| edges.push(e),
            &mut |f, b| assert!(bytes.insert(f, b.to_vec()).is_none(), "one table per file"),
            None,
            None,
        );
        assert!(handed_out);
        assert_eq!(edges, expected_edges);
        assert!(paged.bindings.is_empty(), "no table kept");
        // The reach in two steps: kept whole in memory, made when asked from the direct one.
        assert!(paged.imported_files.is_empty());
        for f in [1, 2, 3, 4] {
            assert_eq!(paged.imported(f), in_memory.imported(f), "file {f}");
        }
        // The direct reach handed out too, and given back: the same reach in two steps.
        let (resolver, imports, _) = three_files();
        let mut handed = resolver.with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        let mut reach: Vec<(i64, Vec<i64>)> = Vec::new();
        assert!(handed.resolve_imports_paged(
            &imports.as_slice(),
            &mut |_| {},
            &mut |_, _| {},
            Some(&mut |f, r| reach.push((f, r.to_vec()))),
            None,
        ));
        assert!(!reach.is_empty());
        assert!(handed.imported(2).is_none(), "not given back yet");
        handed.with_reach_from(Box::new(Reach(reach)));
        for f in [1, 2, 3, 4] {
            assert_eq!(handed.imported(f), in_memory.imported(f), "file {f}");
        }
        handed.load_import_tables(&[2]);
        assert_eq!(handed.imported(2), in_memory.imported(2));
        assert!(in_memory.imported(2).is_some());
        paged.load_import_tables(&[2]);
        assert_eq!(paged.imported_files.keys().collect::<Vec<_>>(), [&2]);
        assert_eq!(paged.imported(2), in_memory.imported(2));
        assert_eq!(files_of(&bytes), [2, 3].into());
        paged.with_import_tables_from(Box::new(Tables(bytes)));
        // Loaded on first use, without a batch: the passes after the imports run so.
        assert_eq!(targets(paged.resolve(&call)), expected);
        let others = |r: &Resolver| {
            r.import_pages
                .as_ref()
                .unwrap()
                .others
                .lock()
                .unwrap()
                .tables
                .len()
        };
        assert_eq!(others(&paged), 2, "c.py's table, and b.py's it reached");
        paged.forget_pages();
        assert_eq!(others(&paged), 0);
        let inherited = paged.resolve_inheritance(&[clause()]);
        assert_eq!(targets(inherited[0].1.clone()), vec![101]);
        // Complete, the hierarchy of a resolver never patched is laid out flat (X is 6's
        // enclosing class).
        let x = inherited[0].1.clone();
        let crate::Resolution::Edges(x) = x else {
            panic!("resolved")
        };
        let (x, derived) = (x[0].src, paged.derived_types(101).to_vec());
        assert_eq!(
            (paged.bases.get(x), derived.as_slice()),
            (&[101][..], &[x][..])
        );
        paged.hierarchy_complete();
        assert!(matches!(paged.bases, crate::links::Links::Flat { .. }));
        assert!(matches!(paged.derived, crate::links::Links::Flat { .. }));
        assert_eq!(
            (paged.bases.get(x), paged.derived_types(101)),
            (&[101][..], &[x][..])
        );
        // Already handed out: nothing more to page out (and the source stays).
        assert!(
            !paged
                .page_out_import_tables(&mut |_, _| panic!("paged out twice"))
                .unwrap()
        );
        assert_eq!(targets(paged.resolve(&call)), expected);

        // A resolver that can be patched keeps its tables and hands none out.
        let (mut patchable, imports, call) = three_files();
        let handed_out = patchable.resolve_imports_paged(
            &imports.as_slice(),
            &mut |_| {},
            &mut |_, _| panic!("a patchable resolver keeps its tables"),
            Some(&mut |_, _| panic!("and its reach")),
            Some(&mut || panic!("and its earlier passes' tables")),
        );
        assert!(!handed_out);
        assert_eq!(targets(patchable.resolve(&call)), expected);
    }

    /// `from c import X` in d.py, `from b import X` in c.py, `from a import X` in b.py, listed
    /// in that order: d.py's import reaches a.X only in the third pass, through the tables the
    /// first two made.
    fn chain() -> (Vec<FileCtx>, Vec<Symbol>, Vec<LangRules>, Vec<Imp>) {
        let files = ["a.py", "b.py", "c.py", "d.py"];
        let files = (1..).zip(files).map(|(id, p)| file(id, p)).collect();
        let symbols = vec![symbol(101, 1, NodeKind::Class, "a.X", 100)];
        let imports = vec![
            import(1, 4, "c", Some("X")),
            import(2, 3, "b", Some("X")),
            import(3, 2, "a", Some("X")),
        ];
        (
            files,
            symbols,
            vec![crate::testing::python_rules()],
            imports,
        )
    }

    #[test]
    fn earlier_passes_tables_held_as_bytes_resolve_as_tables_in_memory() {
        let (files, symbols, rules, imports) = chain();
        let mut in_memory = Resolver::new(files, symbols, rules);
        let expected = in_memory.resolve_imports(&imports);
        let d_imports: Vec<i64> = expected
            .iter()
            .filter(|e| e.import_id == Some(1))
            .map(|e| e.dst)
            .collect();
        assert_eq!(d_imports, vec![101], "d.X is a.X, three modules away");

        // Never patched: its earlier passes' tables are bytes.
        let (files, symbols, rules, imports) = chain();
        let mut held = Resolver::new(files, symbols, rules).with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        assert_eq!(held.resolve_imports(&imports), expected);
        assert!(
            held.import_pages.is_none(),
            "the last pass's tables are its own"
        );
        for f in 2..=4 {
            assert_eq!(
                held.file_bindings(f).map(|t| encode_tables(&t)),
                in_memory.file_bindings(f).map(|t| encode_tables(&t)),
                "file {f}"
            );
        }

        // Its earlier passes' tables kept where the caller says: the same edges and tables.
        let (files, symbols, rules, imports) = chain();
        let mut kept = Resolver::new(files, symbols, rules).with_binding_pages(Box::new(Source {
            binds: Vec::new(),
            loads: Arc::new(AtomicUsize::new(0)),
        }));
        let put = Arc::new(AtomicUsize::new(0));
        let mut passes = 0;
        let (mut edges, mut last) = (Vec::new(), FxHashMap::default());
        assert!(kept.resolve_imports_paged(
            &imports.as_slice(),
            &mut |e| edges.push(e),
            &mut |f, b| {
                last.insert(f, b.to_vec());
            },
            None,
            Some(&mut || {
                passes += 1;
                Some(Box::new(Kept {
                    tables: FxHashMap::default(),
                    put: put.clone(),
                }))
            }),
        ));
        assert_eq!(edges, expected);
        assert_eq!(passes, crate::resolver::IMPORT_PASSES - 1);
        assert_eq!(
            put.load(Ordering::Relaxed),
            3 * passes,
            "b, c and d.py each pass"
        );
        for f in 2..=4 {
            assert_eq!(
                last.get(&f).cloned(),
                in_memory.file_bindings(f).map(|t| encode_tables(&t)),
                "file {f}"
            );
        }
    }

    /// Tables put by a pass, in a map, counted.
    struct Kept {
        tables: FxHashMap<i64, Vec<u8>>,
        put: Arc<AtomicUsize>,
    }

    impl PassTables for Kept {
        fn put(&mut self, file: i64, table: &[u8]) {
            self.put.fetch_add(1, Ordering::Relaxed);
            self.tables.insert(file, table.to_vec());
        }

        fn finish(self: Box<Self>) -> Box<dyn ImportTableSource> {
            Box::new(Tables(self.tables))
        }
    }

    #[test]
    fn decoded_tables_are_dropped_once_they_exceed_their_bound() {
        // Two tables of ~0.6 MB each: the second one loaded drops the first.
        let big = |prefix: &str| {
            let mut t = FileBindings::default();
            for i in 0..30_000 {
                t.names
                    .insert(format!("{prefix}{i:06}"), Target::Symbols(vec![i]));
            }
            encode_tables(&t)
        };
        let (one, two) = (big("a"), big("b"));
        assert!(one.len() + two.len() > DECODED_BYTES && one.len() < DECODED_BYTES);
        let pages = ImportPages::new(Box::new(Tables(FxHashMap::from_iter([(1, one), (2, two)]))));
        let kept = |p: &ImportPages| -> Vec<i64> {
            let mut v: Vec<i64> = p.others.lock().unwrap().tables.keys().copied().collect();
            v.sort_unstable();
            v
        };
        assert_eq!(pages.other(1).unwrap().names.len(), 30_000);
        assert!(pages.other(7).is_none(), "no table: none, and kept as none");
        assert_eq!(kept(&pages), [1, 7]);
        assert_eq!(pages.other(2).unwrap().names.len(), 30_000);
        assert_eq!(kept(&pages), [2]);
        let again = pages.other(1).unwrap();
        assert!(matches!(&again.names["a000042"], Target::Symbols(s) if s == &[42]));
        assert_eq!(kept(&pages), [1]);
    }
}
