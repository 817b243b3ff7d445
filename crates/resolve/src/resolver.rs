//! The resolution rules. See the crate docs for the order of preference.

use rustc_hash::{FxHashMap, FxHashSet};
use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind};

use crate::bindings::Bindings;
use crate::files::{FileRef, Files};
use crate::index::Index;
use crate::input::{Binds, Edge, Imp, LangRules, Output, Ref, Resolution, Unresolved};
use crate::links::Links;
use crate::lists::{NameLists, key_hash};
use crate::modules::{dir_of, join_relative, normalize, segments, strip_extension};
use crate::symbols::Symbols;

/// At most this many candidates are kept as `ambiguous` edges; more is `too_many_candidates`.
pub const MAX_CANDIDATES: usize = 8;

/// Wildcard re-exports followed from one module.
const MAX_REEXPORT_DEPTH: u32 = 4;

/// Import resolution passes: re-exports are followed through this many modules.
pub(crate) const IMPORT_PASSES: usize = 3;

/// A generation's imports, handed over a file at a time in resolution order (each file's in id
/// order): from memory, or from wherever the caller keeps them (this crate does no I/O).
pub trait ImportSource {
    /// Calls `f` with the imports of each file in turn.
    fn for_each_file(&self, f: &mut dyn FnMut(&[Imp]));
}

impl ImportSource for &[Imp] {
    fn for_each_file(&self, f: &mut dyn FnMut(&[Imp])) {
        f(self)
    }
}

/// Where a never-patched resolver's tables are laid out read-only ([`Resolver::frozen`]): the
/// caller keeps the memory, a map of a temporary file.
pub struct Freeze<'a> {
    /// Makes memory for a name table's words, as many as asked for.
    pub words: &'a mut dyn FnMut(usize) -> std::io::Result<Box<dyn crate::lists::WordsOut>>,
    /// Makes memory for a table's rows and text (the files, the families), written as they
    /// are made.
    pub rows: &'a mut crate::symbols::TablesOut<'a>,
}

/// Where a file's final import table goes, as bytes ([`Resolver::resolve_imports_paged`]).
type TableOut<'a> = &'a mut dyn FnMut(i64, &[u8]);

/// Where the files a file's import table reaches directly go, sorted
/// ([`Resolver::resolve_imports_paged`]).
pub type ReachOut<'a> = &'a mut dyn FnMut(i64, &[i64]);

/// Makes where each pass of import resolution before the last keeps its tables
/// ([`Resolver::resolve_imports_paged`]); `None`: on the heap.
pub type PassTablesOut<'a> = &'a mut dyn FnMut() -> Option<Box<dyn crate::pages::PassTables>>;

/// The files each file's import table reaches directly, as handed out through a [`ReachOut`]
/// and kept by the caller (a map of a temporary file, say): `None` for a file without imports.
pub trait ReachSource: Send + Sync {
    fn reached(&self, file: i64) -> Option<&[i64]>;
    /// What it holds on the heap.
    fn heap_bytes(&self) -> usize {
        0
    }
}

/// What a name or module path denotes.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A module: normalised key and its files.
    Module { key: String, files: Vec<i64> },
    /// Definitions (types, namespaces, functions...).
    Symbols(Vec<u32>),
    /// Something outside the repository.
    External,
}

#[derive(Default)]
pub(crate) struct FileBindings {
    pub(crate) names: FxHashMap<String, Target>,
    pub(crate) wildcards: Vec<Target>,
}

/// Resolves references of one generation.
pub struct Resolver {
    pub(crate) ix: Index,
    pub(crate) bindings: FxHashMap<i64, FileBindings>,
    /// Type → its base types (from resolved inherit/implement clauses).
    pub(crate) bases: Links,
    /// The reverse: type → the types deriving from or implementing it.
    pub(crate) derived: Links,
    /// (type symbol, member name) → members defined outside the type's own qualified name
    /// (Rust `impl` blocks in another module, C++ `A::f` in a `.cpp` outside the namespace).
    pub(crate) extra_members: FxHashMap<(u32, String), Vec<u32>>,
    /// The reverse: out-of-line member → its type.
    pub(crate) owner_of: FxHashMap<u32, u32>,
    /// Typed bindings, and their indexes by (scope, name) and by name.
    pub(crate) binds: Bindings,
    /// (scope, name) → bindings ([`bound_in`]).
    pub(crate) binds_in_scope: NameLists,
    /// name → bindings ([`bound_named`]).
    pub(crate) binds_named: NameLists,
    /// Per binding, its place in rebuild order ([`bind_key`]): lists are sorted by it.
    pub(crate) bind_order: Vec<u64>,
    /// File → its bindings' positions (start, count) in `binds`.
    pub(crate) binds_of_file: FxHashMap<i64, (u32, u32)>,
    /// The bindings were not fed in file order: no file can be patched.
    pub(crate) binds_unordered: bool,
    /// Bindings left in `binds` by patches, referenced by no list.
    pub(crate) dead_binds: usize,
    /// Packages of the repository by name → their directory (`package.json` names).
    packages: Vec<(String, String)>,
    /// File → the files its imports reach (modules and the files of imported symbols), and
    /// theirs, sorted ([`Resolver::imported`]). A resolver that is never patched keeps only
    /// `direct_reach` and makes these for a batch's files ([`Resolver::load_import_tables`]).
    pub(crate) imported_files: FxHashMap<i64, Box<[i64]>>,
    /// What each file's imports reach directly, for a resolver that is never patched: the sets
    /// of two steps grow with the square of the reach (13.9 MiB on three copies of 73 MB of
    /// source, where every module has three candidates), the direct ones do not.
    direct_reach: Option<Box<dyn ReachSource>>,
    /// Paged bindings ([`Resolver::with_binding_pages`]): the plain names' bindings are loaded
    /// per file when needed, `binds` holds only the paths'.
    pub(crate) pages: Option<crate::pages::Pages>,
    /// Import tables paged out ([`Resolver::page_out_import_tables`]): `bindings` then holds
    /// only the current batch's files'.
    pub(crate) import_pages: Option<crate::pages::ImportPages>,
    /// Names whose meaning was fixed when the tables were built: import path segments, the
    /// names in inheritance clauses, the owner names probed for out-of-line members (`None`:
    /// anywhere), and imported names and aliases (`Some`: in the files, by position in
    /// `ix.files`, that the import's module and its wildcard re-exports span). A definition
    /// with such a name cannot appear or vanish there by a patch.
    pub(crate) fixed_names: FxHashMap<String, Option<FxHashSet<u32>>>,
    /// Normalised owner paths of the out-of-line member candidates (a type appearing or
    /// vanishing at one of them changes which members are out of line).
    pub(crate) owner_paths: FxHashSet<String>,
    /// [`Resolver::member_candidates`]' members named `name` that a reference of a kind from a
    /// language family may reach, by name then (kind, family): a function of the tables alone,
    /// kept while resolving (Django looks up "get" thousands of times) and emptied by every
    /// method that changes the tables ([`Resolver::tables_changed`]), and when it is full.
    member_memo: std::sync::Mutex<MemberMemo>,
}

/// About the most bytes [`MemberMemo`] holds: once more would be kept, what it holds goes. Kept
/// whole, it grew with the repository (3.2 MiB at the end of 73 MB of source).
const MEMO_BYTES: usize = 1 << 20;

/// The members a reference of a kind from a language family may reach.
type MemoEntry = (RefKind, u16, std::sync::Arc<[Member]>);

/// Members by name, then by (reference kind, language family); [`Resolver::member_memo`].
#[derive(Default)]
struct MemberMemo {
    found: FxHashMap<String, Vec<MemoEntry>>,
    /// About the bytes of `found`: its names, entries and members.
    bytes: usize,
}

impl MemberMemo {
    fn get(&self, name: &str, kind: RefKind, family: u16) -> Option<std::sync::Arc<[Member]>> {
        self.found.get(name).and_then(|by_use| {
            by_use
                .iter()
                .find(|(k, f, _)| *k == kind && *f == family)
                .map(|(_, _, found)| found.clone())
        })
    }

    fn put(&mut self, name: &str, kind: RefKind, family: u16, found: std::sync::Arc<[Member]>) {
        use std::mem::size_of;
        let bytes = name.len()
            + size_of::<(String, Vec<MemoEntry>)>()
            + size_of::<MemoEntry>()
            + size_of_val::<[Member]>(&found);
        if self.bytes + bytes > MEMO_BYTES {
            self.clear();
        }
        self.bytes += bytes;
        self.found
            .entry(name.to_string())
            .or_default()
            .push((kind, family, found));
    }

    fn clear(&mut self) {
        *self = MemberMemo::default();
    }
}

/// A member candidate with what the visibility test of each reference needs: its file, and a
/// hash of that file's directory (compared first; equal hashes compare the directories).
#[derive(Clone, Copy)]
struct Member {
    id: u32,
    file: i64,
    dir: u64,
}

fn dir_hash(dir: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(dir)
}

/// Whether the binding at a position binds `name` in `scope` (the key of
/// [`Resolver::binds_in_scope`]).
pub(crate) fn bound_in<'a>(
    binds: &'a Bindings,
    scope: i64,
    name: &'a str,
) -> impl Fn(u32) -> bool + 'a {
    move |p| {
        let b = binds.get(p as usize);
        b.scope == scope && b.name == name
    }
}

/// Whether the binding at a position binds `name` (the key of [`Resolver::binds_named`]).
pub(crate) fn bound_named<'a>(binds: &'a Bindings, name: &'a str) -> impl Fn(u32) -> bool + 'a {
    move |p| binds.get(p as usize).name == name
}

/// The place of a file's `local`-th binding in rebuild order (files in the order fed).
pub(crate) fn bind_key(file: usize, local: usize) -> u64 {
    ((file as u64) << 32) | local as u64
}

fn allowed(ref_kind: RefKind, kind: NodeKind) -> bool {
    use NodeKind as K;
    let types = kind.is_type_like() || matches!(kind, K::TypeAlias | K::Delegate);
    match ref_kind {
        // Values may hold callables and types: `response_class = Response` then
        // `self.response_class()`, `pass_info = make_decorator()` then `@pass_info`.
        RefKind::Call | RefKind::Decorate => {
            kind.is_callable()
                || types
                || matches!(
                    kind,
                    K::Constructor | K::Field | K::Property | K::Variable | K::Constant
                )
        }
        RefKind::Instantiate => types,
        // Type aliases written as assignments (`Callback = Callable[...]`, `T = TypeVar("T")`).
        RefKind::Type => types || matches!(kind, K::Variable | K::Constant),
        RefKind::Inherit | RefKind::Implement => types,
        // Any definition can be read as a value (a function passed as a callback, a class
        // stored in an attribute, a `@property` method); only values are written.
        RefKind::Read => !matches!(kind, K::File | K::Document | K::DocSection),
        RefKind::Write => matches!(
            kind,
            K::Field | K::Property | K::Variable | K::Constant | K::EnumMember
        ),
    }
}

fn is_scope_kind(kind: NodeKind) -> bool {
    kind.is_type_like()
        || matches!(
            kind,
            NodeKind::Namespace | NodeKind::Module | NodeKind::Package | NodeKind::TypeAlias
        )
}

/// A simple dotted/scoped path (`a.b`, `a::b`, `$this`, `@store`) rather than an expression.
fn is_simple_path(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '@' | '.' | ':' | '\\'))
}

impl Resolver {
    /// The import table of file `f` (what its imports bind).
    pub(crate) fn file_bindings(&self, f: i64) -> Option<crate::pages::Tables<'_>> {
        crate::trace::traced!(b'F', f);
        match (self.bindings.get(&f), &self.import_pages) {
            (Some(t), _) => Some(crate::pages::Tables::Here(t)),
            (None, Some(pages)) => pages.other(f).map(crate::pages::Tables::Loaded),
            (None, None) => None,
        }
    }

    /// Builds the indexes.
    pub fn new(
        files: impl Into<Files>,
        symbols: impl Into<Symbols>,
        rules: Vec<LangRules>,
    ) -> Resolver {
        Self::with_spare_places(files, symbols, rules, 0)
    }

    /// Builds the indexes with `spare` free places after each file's run of the symbol table, so
    /// that [`Resolver::replace_file`] can add that many definitions to a file without moving
    /// any other (a live index's resolver).
    pub fn with_spare_places(
        files: impl Into<Files>,
        symbols: impl Into<Symbols>,
        rules: Vec<LangRules>,
        spare: usize,
    ) -> Resolver {
        Self::of_index(Index::build(files, symbols.into(), rules, spare, None))
    }

    /// [`Resolver::new`] for mapped definitions ([`Symbols::mapped`]): its name tables, files
    /// and families are laid out read-only through `freeze` as they are built, one at a
    /// time, so that at most one of them is ever on the heap. A table `freeze` fails to lay out
    /// stays on the heap. With definitions on the heap (a resolver that may be patched),
    /// `freeze` is not used.
    pub fn frozen(
        files: impl Into<Files>,
        symbols: Symbols,
        rules: Vec<LangRules>,
        freeze: Freeze<'_>,
    ) -> Resolver {
        Self::of_index(Index::build(files, symbols, rules, 0, Some(freeze)))
    }

    fn of_index(ix: Index) -> Resolver {
        Resolver {
            ix,
            bindings: FxHashMap::default(),
            bases: Links::default(),
            derived: Links::default(),
            extra_members: FxHashMap::default(),
            owner_of: FxHashMap::default(),
            binds: Bindings::default(),
            binds_in_scope: NameLists::default(),
            binds_named: NameLists::default(),
            bind_order: Vec::new(),
            binds_of_file: FxHashMap::default(),
            binds_unordered: false,
            pages: None,
            import_pages: None,
            dead_binds: 0,
            packages: Vec::new(),
            imported_files: FxHashMap::default(),
            direct_reach: None,
            fixed_names: FxHashMap::default(),
            owner_paths: FxHashSet::default(),
            member_memo: Default::default(),
        }
    }

    /// Forgets what was derived from the tables: every `&mut self` entry point that changes
    /// them calls this first.
    pub(crate) fn tables_changed(&mut self) {
        self.member_memo
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Adds the repository's own packages (name, directory): an import of `name` or
    /// `name/sub` resolves inside the directory (`sub`, `src/sub`, `lib/sub`, their `index`).
    pub fn with_packages(mut self, mut packages: Vec<(String, String)>) -> Resolver {
        self.tables_changed();
        // Longest name first: `@a/b-c` before `@a/b`.
        packages.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        self.packages = packages;
        self
    }

    /// A non-relative import of one of the repository's own packages.
    fn own_package_module(&self, source: &str) -> Option<Target> {
        for (name, dir) in &self.packages {
            let rest = if source == name {
                ""
            } else if let Some(r) = source
                .strip_prefix(name.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            let join = |a: &str, b: &str| -> String {
                [a, b]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join("/")
            };
            for base in ["", "src", "lib"] {
                let path = join(&join(dir, base), rest);
                if path.is_empty() {
                    continue;
                }
                let found = self
                    .module_of_path(&path)
                    .or_else(|| self.module_of_path(&format!("{path}/index")));
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }

    /// Adds typed bindings (receiver typing). Order matters only within a scope: the first
    /// binding of a name with a declared type wins, else the first with a value.
    pub fn with_bindings(mut self, binds: impl Into<Bindings>) -> Resolver {
        let binds: Bindings = binds.into();
        self.tables_changed();
        let mut local = 0usize;
        let mut previous: Option<i64> = None;
        for i in 0..binds.len() {
            let b = binds.get(i);
            if previous != Some(b.file) {
                previous = Some(b.file);
                local = 0;
            }
            let file = self
                .ix
                .file_index
                .get(b.file)
                .map_or(u32::MAX as usize, |p| p as usize);
            let key = bind_key(file, local);
            if self.bind_order.last().is_some_and(|&k| k > key) {
                self.binds_unordered = true;
            }
            self.bind_order.push(key);
            local += 1;
            let run = self.binds_of_file.entry(b.file).or_insert((i as u32, 0));
            run.1 += 1;
            self.binds_in_scope.push(
                key_hash(Some(b.scope), b.name),
                bound_in(&binds, b.scope, b.name),
                i as u32,
            );
            self.binds_named.push(
                key_hash(None, b.name),
                bound_named(&binds, b.name),
                i as u32,
            );
        }
        self.binds = binds;
        self
    }

    /// Takes the bindings of plain names ([`crate::pages::paged`]) from `source`, a file at a
    /// time when resolution first needs one, instead of from [`Resolver::with_bindings`] (which
    /// is then given only the others). Such a resolver cannot be patched.
    pub fn with_binding_pages(mut self, source: Box<dyn crate::pages::BindingSource>) -> Resolver {
        self.tables_changed();
        self.pages = Some(crate::pages::Pages::new(source));
        self
    }

    /// About the heap bytes of the resolver's tables, by table (for the log: where a first
    /// index's memory goes; the import tables are estimated from their entries).
    pub fn table_bytes(&self) -> Vec<(&'static str, usize)> {
        use crate::lists::table_bytes;
        use std::mem::size_of;
        let ix = &self.ix;
        let import_entries: usize = self
            .bindings
            .values()
            .map(|b| {
                b.names.capacity() * 8 / 7 * (size_of::<(String, Target)>() + 1)
                    + b.names
                        .iter()
                        .map(|(k, t)| {
                            k.capacity()
                                + match t {
                                    Target::Module { key, files } => {
                                        key.capacity() + files.capacity() * 8
                                    }
                                    Target::Symbols(v) => v.capacity() * 4,
                                    Target::External => 0,
                                }
                        })
                        .sum::<usize>()
                    + b.wildcards.capacity() * size_of::<Target>()
            })
            .sum();
        vec![
            ("symbols", ix.symbols.heap_bytes()),
            ("by_id", ix.by_id.heap_bytes()),
            ("by_name", ix.by_name.heap_bytes()),
            ("by_norm", ix.by_norm.heap_bytes()),
            ("children", ix.children.heap_bytes()),
            ("by_dir", ix.by_dir.heap_bytes()),
            ("family", ix.family.heap_bytes()),
            ("files", ix.file_bytes()),
            (
                "bindings",
                self.binds.heap_bytes()
                    + self.binds_in_scope.heap_bytes()
                    + self.binds_named.heap_bytes()
                    + self.bind_order.capacity() * 8,
            ),
            ("import_tables", import_entries),
            (
                "imported_files",
                self.imported_files
                    .values()
                    .map(|s| size_of_val::<[i64]>(s))
                    .sum::<usize>()
                    + table_bytes::<(i64, Box<[i64]>)>(self.imported_files.capacity())
                    + self.direct_reach.as_ref().map_or(0, |r| r.heap_bytes()),
            ),
            (
                "hierarchy",
                self.bases.heap_bytes() + self.derived.heap_bytes(),
            ),
            (
                "fixed_names",
                self.fixed_names
                    .iter()
                    .map(|(k, v)| {
                        k.capacity() + v.as_ref().map_or(0, |s| table_bytes::<u32>(s.capacity()))
                    })
                    .sum::<usize>()
                    + table_bytes::<(String, Option<FxHashSet<u32>>)>(self.fixed_names.capacity()),
            ),
        ]
    }

    /// Whether [`Resolver::replace_file`] may patch this resolver: not one with binding pages
    /// or mapped definitions, which therefore keeps none of what only the patcher needs (the
    /// fixed names, the owner paths).
    pub(crate) fn patchable(&self) -> bool {
        self.pages.is_none() && !self.ix.symbols.is_mapped()
    }

    /// Hands every file's import table to `out` as bytes (files in id order) and drops them, to
    /// be read back from `source` a batch at a time ([`Resolver::load_import_tables`]). Only a
    /// resolver with binding pages (which cannot be patched) pages its import tables out; any
    /// other keeps them and `out` is not called. On an error of `out` the tables stay.
    pub fn page_out_import_tables(
        &mut self,
        out: &mut dyn FnMut(i64, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<bool> {
        if self.patchable() || self.import_pages.is_some() {
            return Ok(false);
        }
        let mut files: Vec<i64> = self.bindings.keys().copied().collect();
        files.sort_unstable();
        for f in files {
            out(f, &crate::pages::encode_tables(&self.bindings[&f]))?;
        }
        Ok(true)
    }

    /// Reads import tables back from `source` from now on (after
    /// [`Resolver::page_out_import_tables`] gave them out): until a batch loads its files', none
    /// is in memory.
    pub fn with_import_tables_from(&mut self, source: Box<dyn crate::pages::ImportTableSource>) {
        self.tables_changed();
        self.bindings = FxHashMap::default();
        self.import_pages = Some(crate::pages::ImportPages::new(source));
    }

    /// Loads the import tables of a batch's `files` (those of the previous batch, and the others
    /// it reached, are dropped), and makes their files' reach in two steps when only the direct
    /// reach is kept. Nothing else to do when the tables were not paged out.
    pub fn load_import_tables(&mut self, files: &[i64]) {
        if let Some(reach) = &self.direct_reach {
            self.imported_files = files
                .iter()
                .filter_map(|&f| two_steps_in(reach.as_ref(), f).map(|set| (f, set)))
                .collect();
        }
        let Some(pages) = &self.import_pages else {
            return;
        };
        let mut tables = FxHashMap::default();
        for &f in files {
            if let Some(t) = pages.load(f) {
                tables.insert(f, t);
            }
        }
        pages
            .others
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.bindings = tables;
    }

    /// Forgets the binding pages loaded so far and gives back the memory of the pages of mapped
    /// definitions read so far ([`Symbols::mapped`]); a no-op without either. Call between
    /// batches.
    pub fn forget_pages(&mut self) {
        self.forget_loaded();
        self.ix.symbols.release();
    }

    /// Forgets what lookups loaded on first use: the binding pages and the import tables of
    /// files other than a batch's own (not the pages of mapped definitions read so far).
    fn forget_loaded(&mut self) {
        if let Some(pages) = &self.pages {
            pages.forget();
        }
        if let Some(pages) = &mut self.import_pages {
            pages
                .others
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .clear();
        }
    }

    /// Whether `scope` (a definition or File node of file `file`) binds `name`.
    pub(crate) fn has_binding(&self, scope: i64, file: i64, name: &str) -> bool {
        match self.pages.as_ref().filter(|_| crate::pages::paged(name)) {
            Some(pages) => !pages.page(file).bound(scope, name).is_empty(),
            None => !self
                .binds_in_scope
                .get(
                    key_hash(Some(scope), name),
                    bound_in(&self.binds, scope, name),
                )
                .is_empty(),
        }
    }

    pub(crate) fn rules_of(&self, file: FileRef<'_>) -> &LangRules {
        &self.ix.rules[file.lang]
    }

    // ---------------------------------------------------------------- modules and imports

    fn lookup_key(&self, key: &str) -> Option<Target> {
        let files = self.ix.module_files(key);
        if !files.is_empty() {
            return Some(Target::Module {
                key: key.to_string(),
                files: files
                    .iter()
                    .map(|&p| self.ix.files.get(p as usize).id)
                    .collect(),
            });
        }
        let syms = self.ix.norm_named(key);
        (!syms.is_empty()).then(|| Target::Symbols(syms.to_vec()))
    }

    /// The file a path names: exactly (`x.h`), else by its path without extension (`./util` is
    /// `util.ts`); several files sharing a stem are all kept, in path order.
    fn module_of_path(&self, path: &str) -> Option<Target> {
        let files: Vec<i64> = match self.ix.file_at(path) {
            Some(file) => vec![file.id],
            None => self
                .ix
                .with_stem(strip_extension(path))
                .iter()
                .map(|&p| self.ix.files.get(p as usize).id)
                .collect(),
        };
        let f = self.ix.file(*files.first()?)?;
        Some(Target::Module {
            key: normalize(f.module),
            files,
        })
    }

    /// A module path as written in an import, seen from `file`.
    fn resolve_module(&self, file: FileRef<'_>, source: &str) -> Target {
        let rules = self.rules_of(file);
        let source = source.trim();
        if source.is_empty() {
            return Target::External;
        }
        let style = rules.module_style.as_str();
        // Python relative imports.
        if style == "python" && source.starts_with('.') {
            let dots = source.chars().take_while(|&c| c == '.').count();
            let rest = &source[dots..];
            let mut base: Vec<&str> = file.module.split('.').filter(|s| !s.is_empty()).collect();
            if !file.path.ends_with("__init__.py") {
                base.pop();
            }
            for _ in 1..dots {
                if base.pop().is_none() {
                    return Target::External;
                }
            }
            let mut key = base.join(".");
            if !rest.is_empty() {
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(&normalize(rest));
            }
            return self.lookup_key(&key).unwrap_or(Target::External);
        }
        // Relative file paths (JS/TS, Ruby require_relative, C includes).
        if source.starts_with("./") || source.starts_with("../") || source == "." || source == ".."
        {
            let Some(joined) = join_relative(dir_of(file.path), source) else {
                return Target::External;
            };
            let stripped = strip_extension(&joined).to_string();
            return self
                .module_of_path(&joined)
                .or_else(|| self.module_of_path(&format!("{stripped}/index")))
                .or_else(|| self.lookup_key(&normalize(&stripped)))
                .unwrap_or(Target::External);
        }
        // The repository's own npm packages (`import "zod/v4"` inside zod).
        if style == "path"
            && !self.packages.is_empty()
            && let Some(t) = self.own_package_module(source)
        {
            return t;
        }
        // Rust paths.
        if style == "rust" {
            let segs: Vec<&str> = source.split("::").filter(|s| !s.is_empty()).collect();
            let mut module: Vec<&str> = file.module.split("::").filter(|s| !s.is_empty()).collect();
            let mut rest = segs.as_slice();
            let mut base: Vec<&str> = Vec::new();
            match segs.first().copied() {
                Some("crate") => {
                    base.extend(module.first().copied());
                    rest = &segs[1..];
                }
                Some("self") => {
                    base = module.clone();
                    rest = &segs[1..];
                }
                Some("super") => {
                    let mut i = 0;
                    while segs.get(i) == Some(&"super") {
                        module.pop();
                        i += 1;
                    }
                    base = module;
                    rest = &segs[i..];
                }
                _ => {}
            }
            base.extend(rest.iter().copied());
            return self.lookup_key(&base.join(".")).unwrap_or(Target::External);
        }
        // Paths with slashes: includes, requires, Go import paths.
        if source.contains('/') || source.ends_with(".h") || source.ends_with(".hpp") {
            if let Some(joined) = join_relative(dir_of(file.path), source)
                && let Some(t) = self.module_of_path(&joined)
            {
                return t;
            }
            if style == "go" {
                let segs: Vec<&str> = source.split('/').filter(|s| !s.is_empty()).collect();
                if let Some(tail) = segs.last() {
                    // Longest matching suffix of the import path wins (the first module, in
                    // file order, of those matching as long a suffix).
                    let mut best: Option<(usize, &str)> = None;
                    for &p in self.ix.module_tail(tail) {
                        let module = self.ix.files.get(p as usize).module;
                        let common = segments(module)
                            .rev()
                            .zip(segs.iter().rev())
                            .take_while(|(a, b)| a == *b)
                            .count();
                        if common > 0 && best.is_none_or(|(c, _)| common > c) {
                            best = Some((common, module));
                        }
                    }
                    if let Some((_, module)) = best {
                        return self
                            .lookup_key(&normalize(module))
                            .unwrap_or(Target::External);
                    }
                }
                return Target::External;
            }
            // Anywhere in the repository (include paths, load paths): a unique suffix match.
            let name = source.rsplit('/').next().unwrap_or(source);
            let suffix = format!("/{source}");
            let mut hits: Vec<&str> = self
                .ix
                .with_file_name(name)
                .iter()
                .map(|&p| self.ix.files.get(p as usize).path)
                .filter(|p| *p == source || p.ends_with(&suffix))
                .collect();
            if hits.is_empty() && strip_extension(name) == name {
                // `require "x/y"` names `x/y.rb`: match on the path without extension.
                hits = self
                    .ix
                    .files
                    .iter()
                    .map(|f| f.path)
                    .filter(|p| {
                        let stem = strip_extension(p);
                        stem == source || stem.ends_with(&suffix)
                    })
                    .collect();
                hits.sort();
            }
            if hits.len() == 1
                && let Some(t) = self.module_of_path(hits[0])
            {
                return t;
            }
            return Target::External;
        }
        let key = normalize(source);
        if let Some(t) = self.lookup_key(&key) {
            return t;
        }
        // Same-directory files (C `#include "x.h"`, Ruby `require "x"`).
        let local = join_relative(dir_of(file.path), source);
        if let Some(t) = local.and_then(|p| self.module_of_path(&p)) {
            return t;
        }
        Target::External
    }

    /// The symbols named `name` inside a module target.
    fn in_module(&self, key: &str, files: &[i64], name: &str) -> Vec<u32> {
        self.in_module_at(key, files, name, 0)
    }

    fn in_module_at(&self, key: &str, files: &[i64], name: &str, depth: u32) -> Vec<u32> {
        let mut out: Vec<u32> = if key.is_empty() {
            Vec::new()
        } else {
            dotted(key, name, |key| self.ix.norm_named(key).to_vec())
        };
        if out.is_empty() {
            for f in files {
                if let Some(ctx) = self.ix.file(*f) {
                    out.extend_from_slice(self.ix.children_named(ctx.node, name));
                }
            }
        }
        // Re-exports: a name the module imports (`from .app import Flask` in `__init__.py`,
        // `export { x } from './x'`, `pub use`), as bound by the previous import pass.
        if out.is_empty() {
            for f in files {
                if let Some(Target::Symbols(syms)) = self
                    .file_bindings(*f)
                    .as_deref()
                    .and_then(|b| b.names.get(name))
                {
                    out.extend_from_slice(syms);
                }
            }
        }
        // Wildcard re-exports (`export * from './x'`, `from .x import *` in `__init__.py`).
        if out.is_empty() && depth < MAX_REEXPORT_DEPTH {
            for f in files {
                for t in self
                    .file_bindings(*f)
                    .as_deref()
                    .map(|b| b.wildcards.as_slice())
                    .unwrap_or(&[])
                {
                    if let Target::Module { key: k, files: fs } = t
                        && fs != files
                    {
                        out.extend(self.in_module_at(k, fs, name, depth + 1));
                    }
                }
            }
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// Resolves every import into per-file bindings and `Imports` edges. Imports are resolved
    /// in [`IMPORT_PASSES`] passes so that re-exports (a module importing what it exposes)
    /// chain through that many modules whatever the order of the files.
    pub fn resolve_imports(&mut self, imports: &[Imp]) -> Vec<Edge> {
        self.resolve_imports_from(&imports)
    }

    /// [`Resolver::resolve_imports`] with the imports handed over a file at a time.
    pub fn resolve_imports_from(&mut self, imports: &dyn ImportSource) -> Vec<Edge> {
        let mut edges = Vec::new();
        self.resolve_imports_into(imports, &mut |e| edges.push(e));
        edges
    }

    /// [`Resolver::resolve_imports_from`] with each `Imports` edge handed to `sink` as the last
    /// pass makes it, a file's in the order of its imports, so that a caller can write them
    /// away instead of holding them all.
    pub fn resolve_imports_into(&mut self, imports: &dyn ImportSource, sink: &mut dyn FnMut(Edge)) {
        self.resolve_imports_with(imports, sink, None, None);
    }

    /// [`Resolver::resolve_imports_into`] that also hands each file's final import table to
    /// `tables` as bytes, as soon as the last pass has made it, instead of keeping it: a
    /// resolver that cannot be patched then holds no import table, and the caller must give it
    /// a source to read them back from ([`Resolver::with_import_tables_from`]) before it
    /// resolves anything else. With `reach`, the files each table reaches directly are handed
    /// out as well, and must be given back the same way ([`Resolver::with_reach_from`]).
    /// With `passes`, each pass before the last keeps the tables it makes, for the next pass to
    /// read, in what `passes` makes (instead of on the heap). Returns whether the tables were
    /// handed out (a patchable resolver keeps its own and never calls `tables`, `reach` or
    /// `passes`).
    pub fn resolve_imports_paged(
        &mut self,
        imports: &dyn ImportSource,
        sink: &mut dyn FnMut(Edge),
        tables: TableOut<'_>,
        reach: Option<ReachOut<'_>>,
        passes: Option<PassTablesOut<'_>>,
    ) -> bool {
        let paged = !self.patchable();
        let out = paged.then_some((tables, reach));
        self.resolve_imports_with(imports, sink, out, passes.filter(|_| paged));
        paged
    }

    /// The files each file's import table reaches directly, handed out by
    /// [`Resolver::resolve_imports_paged`], read back from where the caller keeps them.
    pub fn with_reach_from(&mut self, source: Box<dyn ReachSource>) {
        self.tables_changed();
        self.imported_files = FxHashMap::default();
        self.direct_reach = Some(source);
    }

    fn resolve_imports_with(
        &mut self,
        imports: &dyn ImportSource,
        sink: &mut dyn FnMut(Edge),
        tables: Option<(TableOut<'_>, Option<ReachOut<'_>>)>,
        mut passes: Option<PassTablesOut<'_>>,
    ) {
        self.tables_changed();
        if self.patchable() {
            imports.for_each_file(&mut |file_imports| {
                for imp in file_imports {
                    for n in imp.source.split(['.', ':', '/', '\\']) {
                        self.fix(n, None);
                    }
                }
            });
        }
        for _ in 1..IMPORT_PASSES {
            let pass = passes.as_mut().and_then(|make| make());
            self.resolve_imports_once(imports, None, None, pass);
        }
        self.resolve_imports_once(imports, Some(sink), tables, None);
        // Imported names: where the last pass looked them up (for the patcher only).
        if self.patchable() {
            imports.for_each_file(&mut |file_imports| {
                for imp in file_imports.iter().filter(|i| i.name.is_some()) {
                    let Some(file) = self.ix.file(imp.file) else {
                        continue;
                    };
                    let scope = match self.resolve_module(file, &imp.source) {
                        Target::Module { files, .. } => Some(self.reexport_span(&files)),
                        Target::Symbols(_) => None,
                        Target::External => continue,
                    };
                    for n in imp.name.iter().chain(&imp.alias) {
                        self.fix(n, scope.as_ref());
                    }
                }
            });
        }
    }

    /// Records that a definition named `name` cannot appear or vanish (in `files`, or anywhere).
    pub(crate) fn fix(&mut self, name: &str, files: Option<&FxHashSet<u32>>) {
        self.tables_changed();
        if name.is_empty() || !self.patchable() {
            return;
        }
        match (self.fixed_names.get_mut(name), files) {
            (Some(None), _) => {}
            (Some(slot), None) => *slot = None,
            (Some(Some(known)), Some(files)) => known.extend(files),
            (None, files) => {
                self.fixed_names.insert(name.to_string(), files.cloned());
            }
        }
    }

    /// Whether a definition named `name` in the file at position `fi` was fixed.
    pub(crate) fn is_fixed(&self, name: &str, fi: usize) -> bool {
        match self.fixed_names.get(name) {
            None => false,
            Some(None) => true,
            Some(Some(files)) => files.contains(&(fi as u32)),
        }
    }

    /// The files (by position) a lookup in module `files` may reach: the module's own and,
    /// transitively, those of its wildcard re-exports.
    fn reexport_span(&self, files: &[i64]) -> FxHashSet<u32> {
        let mut out: FxHashSet<u32> = FxHashSet::default();
        let mut stack: Vec<(i64, u32)> = files.iter().map(|&f| (f, 0)).collect();
        while let Some((f, depth)) = stack.pop() {
            let Some(fi) = self.ix.file_index.get(f) else {
                continue;
            };
            if !out.insert(fi) || depth >= MAX_REEXPORT_DEPTH {
                continue;
            }
            for t in self
                .file_bindings(f)
                .as_deref()
                .map(|b| b.wildcards.as_slice())
                .unwrap_or(&[])
            {
                if let Target::Module { files, .. } = t {
                    stack.extend(files.iter().map(|&g| (g, depth + 1)));
                }
            }
        }
        out
    }

    /// One pass over every import: the files' import tables from the previous pass's. Only the
    /// last pass (`sink` given) makes edges and the files each file's imports reach: the
    /// earlier passes' would be thrown away. With `tables`, the last pass hands each file's
    /// table out as soon as it is made and keeps none. A resolver that is never patched keeps
    /// an earlier pass's tables as bytes, in `pass` or else on the heap
    /// ([`crate::pages::HeldTables`]), which the next pass decodes as it looks them up.
    fn resolve_imports_once(
        &mut self,
        imports: &dyn ImportSource,
        mut sink: Option<&mut dyn FnMut(Edge)>,
        tables: Option<(TableOut<'_>, Option<ReachOut<'_>>)>,
        pass: Option<Box<dyn crate::pages::PassTables>>,
    ) {
        let (mut tables, reach) = tables.unzip();
        let mut reach = reach.flatten();
        self.tables_changed();
        let is_last = sink.is_some();
        let mut bindings: FxHashMap<i64, FileBindings> = FxHashMap::default();
        // Handed-out tables: the files each one reaches, kept instead of the table.
        let mut direct: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        let mut each = |bindings: &mut FxHashMap<i64, FileBindings>, imp: &Imp| {
            let Some(file) = self.ix.file(imp.file) else {
                return;
            };
            let rules = self.rules_of(file);
            let module = self.resolve_module(file, &imp.source);
            let entry = bindings.entry(imp.file).or_default();
            let bound: Option<Target>;
            if imp.wildcard {
                entry.wildcards.push(module.clone());
                bound = Some(module);
            } else if let Some(name) = &imp.name {
                let target = match &module {
                    Target::Module { key, files } => {
                        let syms = self.prefer_definitions(self.in_module(key, files, name));
                        if !syms.is_empty() {
                            Target::Symbols(syms)
                        } else if let Some(sub) = self.lookup_key(&format!("{key}.{name}")) {
                            sub
                        } else if name == "default" {
                            // `import X from './m'`: the default export, usually named X.
                            let local = imp.alias.as_deref().unwrap_or(name);
                            let named = self.in_module(key, files, local);
                            if named.is_empty() {
                                module.clone()
                            } else {
                                Target::Symbols(named)
                            }
                        } else {
                            Target::External
                        }
                    }
                    Target::Symbols(syms) => {
                        let mut members = Vec::new();
                        for &s in syms {
                            members.extend(self.member(s, name, 0));
                        }
                        if members.is_empty() {
                            Target::External
                        } else {
                            Target::Symbols(members)
                        }
                    }
                    Target::External => Target::External,
                };
                let local = imp.alias.clone().unwrap_or_else(|| name.clone());
                entry.names.insert(local, target.clone());
                bound = Some(target);
            } else {
                let segs: Vec<&str> = imp
                    .source
                    .split(['.', ':', '/', '\\'])
                    .filter(|s| !s.is_empty())
                    .collect();
                let local = match (&imp.alias, rules.binds) {
                    (Some(alias), _) => Some((alias.clone(), module.clone())),
                    (None, Binds::First) => segs.first().map(|first| {
                        let t = self.resolve_module(file, first);
                        (first.to_string(), t)
                    }),
                    (None, Binds::Last) => segs.last().map(|l| (l.to_string(), module.clone())),
                    (None, Binds::None) => None,
                };
                match local {
                    Some((name, t)) => {
                        entry.names.insert(name, t);
                    }
                    None => entry.wildcards.push(module.clone()),
                }
                bound = Some(module);
            }
            let Some(sink) = sink.as_mut() else {
                return;
            };
            let dsts: Vec<i64> = match bound {
                Some(Target::Module { files, .. }) => files
                    .iter()
                    .take(1)
                    .filter_map(|f| self.ix.file(*f).map(|c| c.node))
                    .collect(),
                Some(Target::Symbols(syms)) => syms
                    .iter()
                    .take(MAX_CANDIDATES)
                    .map(|&s| self.ix.symbols.get(s as usize).id)
                    .collect(),
                _ => Vec::new(),
            };
            let ambiguous = dsts.len() > 1;
            for dst in dsts {
                if dst == imp.src {
                    continue;
                }
                sink(Edge {
                    src: imp.src,
                    dst,
                    kind: EdgeKind::Imports,
                    provenance: if ambiguous {
                        Provenance::Ambiguous
                    } else {
                        Provenance::Inferred
                    },
                    confidence: if ambiguous {
                        Confidence::Low
                    } else {
                        Confidence::High
                    },
                    rule: "import",
                    ref_id: None,
                    import_id: Some(imp.id),
                });
            }
        };
        let this = &*self;
        let mut held: Option<Box<dyn crate::pages::PassTables>> = (!is_last && !this.patchable())
            .then(|| pass.unwrap_or_else(|| Box::new(crate::pages::HeldTables::default())));
        imports.for_each_file(&mut |file_imports| {
            for imp in file_imports {
                each(&mut bindings, imp);
            }
            // A file's imports come together: its table is complete.
            if let Some(out) = tables.as_mut() {
                for (file, t) in bindings.drain() {
                    let reached = this.direct_files(&t);
                    match reach.as_mut() {
                        Some(reach) => reach(file, &reached),
                        None => {
                            direct.insert(file, reached);
                        }
                    }
                    out(file, &crate::pages::encode_tables(&t));
                }
            } else if let Some(held) = held.as_mut() {
                for (file, t) in bindings.drain() {
                    held.put(file, &crate::pages::encode_tables(&t));
                }
            }
        });
        // The tables this pass read are replaced by the ones it made.
        self.import_pages = None;
        if let Some(held) = held {
            self.import_pages = Some(crate::pages::ImportPages::new(held.finish()));
        }
        if !is_last {
            self.bindings = bindings;
            return;
        }
        direct.extend(bindings.iter().map(|(f, t)| (*f, self.direct_files(t))));
        if self.patchable() {
            self.imported_files = two_steps(&direct);
        } else {
            self.imported_files = FxHashMap::default();
            // Handed out: the caller gives them back (`with_reach_from`).
            self.direct_reach = match reach {
                Some(_) => None,
                None => Some(Box::new(DirectReach::new(direct))),
            };
        }
        self.bindings = bindings;
    }

    /// The files `file`'s imports reach in two steps ([`Resolver::imported_files`]); `None` for
    /// a file without imports.
    pub(crate) fn imported(&self, file: i64) -> Option<std::borrow::Cow<'_, [i64]>> {
        if let Some(set) = self.imported_files.get(&file) {
            return Some(std::borrow::Cow::Borrowed(set));
        }
        let set = two_steps_in(self.direct_reach.as_deref()?, file)?;
        Some(std::borrow::Cow::Owned(set.into_vec()))
    }

    /// The files a file's import table reaches directly, sorted.
    fn direct_files(&self, b: &FileBindings) -> Vec<i64> {
        let mut set = Vec::new();
        for t in b.names.values().chain(b.wildcards.iter()) {
            match t {
                Target::Module { files, .. } => set.extend(files.iter().copied()),
                Target::Symbols(syms) => {
                    set.extend(syms.iter().map(|&s| self.ix.symbols.get(s as usize).file))
                }
                Target::External => {}
            }
        }
        set.sort_unstable();
        set.dedup();
        set
    }

    // ---------------------------------------------------------------- members and hierarchy

    /// Members named `name` of the type/namespace `s`, following base types.
    pub(crate) fn member(&self, s: u32, name: &str, depth: u32) -> Vec<u32> {
        let mut direct = dotted(&self.ix.norm(s as usize), name, |key| {
            self.ix.norm_named(key).to_vec()
        });
        if !self.extra_members.is_empty()
            && let Some(extra) = self.extra_members.get(&(s, name.to_string()))
        {
            for e in extra {
                if !direct.contains(e) {
                    direct.push(*e);
                }
            }
        }
        if !direct.is_empty() || depth > 6 {
            return direct;
        }
        let id = self.ix.symbols.get(s as usize).id;
        let mut out = Vec::new();
        for b in self.bases.get(id) {
            if let Some((bi, _)) = self.ix.symbol(*b)
                && bi != s
            {
                out.extend(self.member(bi, name, depth + 1));
            }
        }
        out
    }

    /// The innermost type around a definition (or the type owning an out-of-line method).
    pub(crate) fn enclosing_type(&self, src: i64) -> Option<u32> {
        let mut cur = src;
        for _ in 0..32 {
            let (i, s) = self.ix.symbol(cur)?;
            if s.kind.is_type_like() {
                return Some(i);
            }
            if let Some(&t) = self.owner_of.get(&i) {
                return Some(t);
            }
            if matches!(
                s.kind,
                NodeKind::Method | NodeKind::Constructor | NodeKind::Function
            ) {
                // Out-of-line methods: the owner is the qualified name minus the last segment.
                let norm = self.ix.norm(i as usize);
                if let Some((owner, _)) = norm.rsplit_once('.')
                    && let Some(&t) = self
                        .ix
                        .norm_named(owner)
                        .iter()
                        .find(|&&t| self.ix.symbols.get(t as usize).kind.is_type_like())
                {
                    return Some(t);
                }
            }
            cur = s.parent?;
        }
        None
    }

    /// Links members written outside their type's qualified name to the type, by resolving the
    /// owner segment of their qualified name from where they are written. Call after
    /// [`Resolver::resolve_imports`].
    pub fn link_out_of_line_members(&mut self) {
        self.tables_changed();
        let mut extra: FxHashMap<(u32, String), Vec<u32>> = FxHashMap::default();
        let mut owners: FxHashMap<u32, u32> = FxHashMap::default();
        for i in 0..self.ix.symbols.len() as u32 {
            let Some((owner_path, owner)) = self.out_of_line_probe(i) else {
                continue;
            };
            if self.patchable() {
                self.owner_paths.insert(owner_path);
            }
            self.fix(&owner, None);
            if let Some(t) = self.out_of_line_owner(i) {
                let name = self.ix.symbols.get(i as usize).name.to_string();
                extra.entry((t, name)).or_default().push(i);
                owners.insert(i, t);
            }
        }
        self.extra_members = extra;
        self.owner_of = owners;
    }

    /// For a member kind written outside a type (no type-like parent): its normalised owner
    /// path and the owner's last segment.
    fn out_of_line_probe(&self, i: u32) -> Option<(String, String)> {
        let s = self.ix.symbols.get(i as usize);
        if !matches!(
            s.kind,
            NodeKind::Method
                | NodeKind::Constructor
                | NodeKind::Field
                | NodeKind::Property
                | NodeKind::Constant
                | NodeKind::TypeAlias
        ) {
            return None;
        }
        let inside_type = s
            .parent
            .and_then(|p| self.ix.symbol(p))
            .is_some_and(|(_, p)| p.kind.is_type_like());
        if inside_type {
            return None;
        }
        let norm = self.ix.norm(i as usize);
        let (owner_path, _) = norm.rsplit_once('.')?;
        let owner = owner_path.rsplit('.').next().unwrap_or(owner_path);
        Some((owner_path.to_string(), owner.to_string()))
    }

    /// The type an out-of-line member belongs to: its owner segment resolved from where it is
    /// written, when its qualified name does not already place it in a type.
    pub(crate) fn out_of_line_owner(&self, i: u32) -> Option<u32> {
        let (owner_path, owner) = self.out_of_line_probe(i)?;
        let owned = self
            .ix
            .norm_named(&owner_path)
            .iter()
            .any(|&t| self.ix.symbols.get(t as usize).kind.is_type_like());
        if owned {
            return None;
        }
        let s = self.ix.symbols.get(i as usize);
        let file = self.ix.file(s.file)?;
        let probe = Ref {
            id: -1,
            file: s.file,
            src: s.parent.unwrap_or(file.node),
            kind: RefKind::Type,
            name: owner.clone(),
            receiver: None,
            implementor: None,
        };
        let Resolution::Edges(edges) = self.resolve_plain(&probe, file, &owner) else {
            return None;
        };
        if edges.len() != 1 {
            return None;
        }
        let (t, ts) = self.ix.symbol(edges[0].dst)?;
        ts.kind.is_type_like().then_some(t)
    }

    /// Resolves inheritance and implementation clauses first, so member lookups can follow them.
    pub fn resolve_inheritance(&mut self, refs: &[Ref]) -> Vec<(i64, Resolution)> {
        self.tables_changed();
        let mut out = Vec::new();
        let mut file = None;
        for r in refs {
            if !matches!(r.kind, RefKind::Inherit | RefKind::Implement) {
                continue;
            }
            // Paged import tables and binding pages are loaded as the clauses need them: a
            // file's are forgotten once its clauses are resolved (they come a file at a time).
            // Kept to the end, the pages were 12 MiB of 73 MB of source's inheritance pass.
            if file.replace(r.file) != Some(r.file) {
                self.forget_loaded();
            }
            let written = [&r.receiver, &r.implementor];
            let segments = written
                .into_iter()
                .flatten()
                .flat_map(|t| t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')));
            let names: Vec<&str> = std::iter::once(r.name.as_str()).chain(segments).collect();
            for n in names {
                self.fix(n, None);
            }
            let mut resolution = self.resolve(r);
            // `impl Trait for Type`: the edge starts at the implementing type.
            if let (Some(implementor), Resolution::Edges(edges)) = (&r.implementor, &mut resolution)
            {
                let probe = Ref {
                    kind: RefKind::Type,
                    name: implementor
                        .rsplit([':', '.'])
                        .next()
                        .unwrap_or(implementor)
                        .to_string(),
                    receiver: None,
                    implementor: None,
                    ..r.clone()
                };
                if let Resolution::Edges(found) = self.resolve(&probe)
                    && let Some(t) = found.first()
                {
                    for e in edges.iter_mut() {
                        e.src = t.dst;
                    }
                }
            }
            if let Resolution::Edges(edges) = &resolution {
                for e in edges {
                    if e.src != e.dst {
                        self.bases.push(e.src, e.dst);
                        self.derived.push(e.dst, e.src);
                    }
                }
            }
            out.push((r.id, resolution));
        }
        out
    }

    // ---------------------------------------------------------------- references

    pub(crate) fn keep(&self, r: &Ref, file: FileRef<'_>, cands: &[u32]) -> Vec<u32> {
        let fam = self.ix.family_of_lang[file.lang];
        let mut seen = FxHashSet::default();
        let kept: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&c| {
                let s = self.ix.symbols.get(c as usize);
                allowed(r.kind, s.kind) && self.ix.family.get(c as usize) == fam && seen.insert(c)
            })
            .collect();
        self.one_per_name(r.kind, self.prefer_definitions(kept))
    }

    /// Candidates that all carry one qualified name in one file are one symbol declared twice
    /// (TypeScript's `interface X` + `const X`, a redefinition): the one that fits the use.
    fn one_per_name(&self, kind: RefKind, kept: Vec<u32>) -> Vec<u32> {
        if kept.len() < 2 {
            return kept;
        }
        let first = kept[0] as usize;
        let same = kept.iter().all(|&c| {
            self.ix.norm(c as usize) == self.ix.norm(first)
                && self.ix.symbols.get(c as usize).file == self.ix.symbols.get(first).file
        });
        if !same {
            return kept;
        }
        let wants_type = matches!(
            kind,
            RefKind::Type | RefKind::Inherit | RefKind::Implement | RefKind::Instantiate
        );
        let score = |c: u32| {
            let k = self.ix.symbols.get(c as usize).kind;
            let is_type = k.is_type_like() || matches!(k, NodeKind::TypeAlias);
            match (wants_type, is_type, k) {
                (true, true, NodeKind::Class) => 0,
                (true, true, _) => 1,
                (false, _, NodeKind::Class) => 0,
                (false, false, _) => 1,
                _ => 2,
            }
        };
        // Last among equals: an implementation follows its overloads.
        let best = kept
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, c)| (score(c), std::cmp::Reverse(i)))
            .map(|(_, c)| c);
        best.into_iter().collect()
    }

    /// A declaration (prototype, overload signature) and its definition are one symbol to a
    /// caller: keep the definition.
    pub(crate) fn prefer_definitions(&self, kept: Vec<u32>) -> Vec<u32> {
        if kept.len() > 1
            && kept
                .iter()
                .any(|&c| self.ix.symbols.get(c as usize).declaration)
        {
            let defined: FxHashSet<std::borrow::Cow<'_, str>> = kept
                .iter()
                .filter(|&&c| !self.ix.symbols.get(c as usize).declaration)
                .map(|&c| self.ix.norm(c as usize))
                .collect();
            return kept
                .into_iter()
                .filter(|&c| {
                    !self.ix.symbols.get(c as usize).declaration
                        || !defined.contains(&self.ix.norm(c as usize))
                })
                .collect();
        }
        kept
    }

    pub(crate) fn edges_to(
        &self,
        r: &Ref,
        cands: &[u32],
        rule: &'static str,
        confidence: Confidence,
    ) -> Resolution {
        // A declaration (C prototype in a header) stands for its one definition when there is one.
        let redirected: Vec<u32>;
        let cands = if cands
            .iter()
            .any(|&c| self.ix.symbols.get(c as usize).declaration)
        {
            redirected = cands
                .iter()
                .map(|&c| {
                    let s = self.ix.symbols.get(c as usize);
                    if !s.declaration {
                        return c;
                    }
                    let defs: Vec<u32> = self
                        .ix
                        .norm_named(&self.ix.norm(c as usize))
                        .iter()
                        .copied()
                        .filter(|&d| {
                            !self.ix.symbols.get(d as usize).declaration
                                && self.ix.symbols.get(d as usize).kind == s.kind
                                && self.ix.family.get(d as usize) == self.ix.family.get(c as usize)
                        })
                        .collect();
                    if defs.len() == 1 { defs[0] } else { c }
                })
                .collect();
            &redirected[..]
        } else {
            cands
        };
        if cands.len() > MAX_CANDIDATES {
            return Resolution::Unresolved(Unresolved {
                ref_id: r.id,
                reason: "too_many_candidates",
                candidates: cands.len() as u32,
            });
        }
        let ambiguous = cands.len() > 1;
        Resolution::Edges(
            cands
                .iter()
                .map(|&c| {
                    let s = self.ix.symbols.get(c as usize);
                    let kind = if r.kind == RefKind::Call && s.kind.is_type_like() {
                        EdgeKind::Instantiates
                    } else {
                        r.kind.edge_kind()
                    };
                    Edge {
                        src: r.src,
                        dst: s.id,
                        kind,
                        provenance: if ambiguous {
                            Provenance::Ambiguous
                        } else {
                            Provenance::Inferred
                        },
                        confidence: if ambiguous {
                            Confidence::Low
                        } else {
                            confidence
                        },
                        rule,
                        ref_id: Some(r.id),
                        import_id: None,
                    }
                })
                .collect(),
        )
    }

    pub(crate) fn unresolved(r: &Ref, reason: &'static str, candidates: usize) -> Resolution {
        Resolution::Unresolved(Unresolved {
            ref_id: r.id,
            reason,
            candidates: candidates as u32,
        })
    }

    /// Resolves one reference. Call [`Resolver::resolve_imports`] and
    /// [`Resolver::resolve_inheritance`] first.
    pub fn resolve(&self, r: &Ref) -> Resolution {
        self.resolve_at(r, 0)
    }

    /// [`Resolver::resolve`] inside receiver typing, `depth` steps deep.
    pub(crate) fn resolve_at(&self, r: &Ref, depth: u32) -> Resolution {
        let Some(file) = self.ix.file(r.file) else {
            return Self::unresolved(r, "no_candidates", 0);
        };
        match r.receiver.as_deref().map(str::trim) {
            Some(recv) if !recv.is_empty() => self.resolve_with_receiver(r, file, recv, depth),
            _ => self.resolve_plain(r, file, &r.name),
        }
    }

    /// Global candidates for a plain name: top-level definitions and namespace members.
    fn global(&self, r: &Ref, file: FileRef<'_>, name: &str) -> Vec<u32> {
        let all = self.ix.named(name);
        let kept = self.keep(r, file, all);
        kept.into_iter()
            .filter(|&c| {
                let s = self.ix.symbols.get(c as usize);
                // Members are not global names (unless types), nor are definitions local to a
                // function.
                match s.parent.and_then(|p| self.ix.symbol(p)) {
                    Some((_, p)) => {
                        (!p.kind.is_type_like() || s.kind.is_type_like()) && !p.kind.is_callable()
                    }
                    None => true,
                }
            })
            .collect()
    }

    fn resolve_plain(&self, r: &Ref, file: FileRef<'_>, name: &str) -> Resolution {
        let rules = self.rules_of(file);
        // `self` / `cls` read as a value is a parameter.
        if r.kind == RefKind::Read && rules.self_names.iter().any(|s| s == name) {
            return Self::unresolved(r, "local", 0);
        }
        // `Self` / `self` used as a name: the enclosing type.
        if rules.self_names.iter().any(|s| s == name)
            && let Some(t) = self.enclosing_type(r.src)
        {
            return self.edges_to(r, &[t], "self_type", Confidence::High);
        }
        // 1. Enclosing scopes, innermost first, up to the file.
        let mut container = Some(r.src);
        let mut guard = 0;
        while let Some(c) = container {
            guard += 1;
            if guard > 64 {
                break;
            }
            match self.ix.symbol(c) {
                Some((ci, sym)) => {
                    let is_type = sym.kind.is_type_like();
                    if !is_type || rules.implicit_self {
                        let found = self.keep(r, file, self.ix.children_named(c, name));
                        if !found.is_empty() {
                            return self.edges_to(r, &found, "scope", Confidence::High);
                        }
                        if is_type {
                            let inherited = self.keep(r, file, &self.member(ci, name, 0));
                            if !inherited.is_empty() {
                                return self.edges_to(
                                    r,
                                    &inherited,
                                    "inherited_member",
                                    Confidence::High,
                                );
                            }
                        }
                    }
                    // A local of this function (parameter, assignment target) shadows what
                    // encloses it; definitions at this level (nested functions) come first.
                    if sym.kind.is_callable()
                        && !(rules.separate_call_names && r.kind == RefKind::Call)
                        && self.has_binding(c, sym.file, name)
                    {
                        return Self::unresolved(r, "local", 0);
                    }
                    container = sym.parent;
                }
                None => {
                    let found = self.keep(r, file, self.ix.children_named(file.node, name));
                    if !found.is_empty() {
                        return self.edges_to(r, &found, "same_file", Confidence::High);
                    }
                    break;
                }
            }
        }
        // 2. Imported names.
        let tables = self.file_bindings(file.id);
        let bindings = tables.as_deref();
        if let Some(target) = bindings.and_then(|b| b.names.get(name)) {
            match target {
                Target::Symbols(syms) => {
                    let found = self.keep(r, file, syms);
                    if !found.is_empty() {
                        return self.edges_to(r, &found, "import", Confidence::High);
                    }
                }
                Target::External => return Self::unresolved(r, "external", 0),
                // A module read as a value (`models` after `from app import models`): the
                // edge goes to the module's file.
                Target::Module { files, .. } if r.kind == RefKind::Read => {
                    if let Some(node) = files.first().and_then(|f| self.ix.file(*f)).map(|f| f.node)
                    {
                        return Resolution::Edges(vec![Edge {
                            src: r.src,
                            dst: node,
                            kind: r.kind.edge_kind(),
                            provenance: Provenance::Inferred,
                            confidence: Confidence::High,
                            rule: "import",
                            ref_id: Some(r.id),
                            import_id: None,
                        }]);
                    }
                }
                Target::Module { .. } => {}
            }
        }
        // 3. Wildcard imports and includes.
        if let Some(b) = bindings {
            let mut found = Vec::new();
            for t in &b.wildcards {
                match t {
                    Target::Module { key, files } => found.extend(self.in_module(key, files, name)),
                    Target::Symbols(syms) => {
                        for &s in syms {
                            found.extend(self.member(s, name, 0));
                        }
                    }
                    Target::External => {}
                }
            }
            let found = self.keep(r, file, &found);
            if !found.is_empty() {
                return self.edges_to(r, &found, "wildcard_import", Confidence::Medium);
            }
        }
        // A built-in (`len`, `print`) that nothing above defines.
        if rules.builtin_names.contains(name) {
            return Self::unresolved(r, "external", 0);
        }
        // 4. The same package or directory.
        let module = normalize(file.module);
        if !module.is_empty() {
            let found = dotted(&module, name, |key| {
                self.keep(r, file, self.ix.norm_named(key))
            });
            if !found.is_empty() {
                return self.edges_to(r, &found, "same_package", Confidence::Medium);
            }
        }
        // A Rust name read as a value is in scope by its module or a `use`, nowhere else (a
        // local bound where no pattern of ours sees it must not become a definition elsewhere).
        if r.kind == RefKind::Read && rules.module_style == "rust" {
            return Self::unresolved(r, "no_candidates", 0);
        }
        let found = self.keep(r, file, self.ix.dir_named(file.id, name));
        if !found.is_empty() {
            return self.edges_to(r, &found, "same_directory", Confidence::Medium);
        }
        // 5. A unique name in the repository.
        let global = self.global(r, file, name);
        match global.len() {
            0 => Self::unresolved(r, "no_candidates", 0),
            1 => self.edges_to(r, &global, "unique_global", Confidence::Low),
            _ => self.edges_to(r, &global, "ambiguous_global", Confidence::Low),
        }
    }

    /// What the first segment of a receiver path denotes.
    fn resolve_head(&self, r: &Ref, file: FileRef<'_>, head: &str) -> Option<Target> {
        if let Some(t) = self
            .file_bindings(file.id)
            .as_deref()
            .and_then(|b| b.names.get(head))
        {
            return Some(t.clone());
        }
        let rules = self.rules_of(file);
        if rules.module_style == "rust" && matches!(head, "crate" | "super" | "self") {
            return Some(self.resolve_module(file, head));
        }
        let probe = Ref {
            kind: RefKind::Type,
            name: head.to_string(),
            receiver: None,
            implementor: None,
            ..r.clone()
        };
        if let Resolution::Edges(edges) = self.resolve_plain(&probe, file, head) {
            let syms: Vec<u32> = edges
                .iter()
                .filter_map(|e| self.ix.symbol(e.dst).map(|(i, _)| i))
                .collect();
            if !syms.is_empty() {
                return Some(Target::Symbols(syms));
            }
        }
        // Namespaces and modules written as a receiver (`ns::f()`, `mod::f()`).
        let scoped: Vec<u32> = self
            .ix
            .named(head)
            .iter()
            .copied()
            .filter(|&c| {
                matches!(
                    self.ix.symbols.get(c as usize).kind,
                    NodeKind::Namespace | NodeKind::Module | NodeKind::Package
                )
            })
            .collect();
        if !scoped.is_empty() {
            return Some(Target::Symbols(scoped));
        }
        self.lookup_key(&normalize(head))
    }

    fn descend(&self, target: Target, seg: &str) -> Option<Target> {
        match target {
            Target::External => Some(Target::External),
            Target::Module { key, files } => {
                let syms = self.in_module(&key, &files, seg);
                if !syms.is_empty() {
                    return Some(Target::Symbols(syms));
                }
                self.lookup_key(&format!("{key}.{seg}"))
            }
            Target::Symbols(syms) => {
                let mut out = Vec::new();
                for s in syms {
                    if is_scope_kind(self.ix.symbols.get(s as usize).kind) {
                        out.extend(self.member(s, seg, 0));
                    }
                }
                (!out.is_empty()).then_some(Target::Symbols(out))
            }
        }
    }

    pub(crate) fn resolve_with_receiver(
        &self,
        r: &Ref,
        file: FileRef<'_>,
        recv: &str,
        depth: u32,
    ) -> Resolution {
        let rules = self.rules_of(file);
        let name = r.name.as_str();
        let bare = recv.trim_end_matches("()");
        if rules.self_names.iter().any(|s| s == recv) {
            if let Some(t) = self.enclosing_type(r.src) {
                let found = self.keep(r, file, &self.member(t, name, 0));
                if !found.is_empty() {
                    return self.edges_to(r, &found, "self_member", Confidence::High);
                }
            }
            return self.member_candidates(r, file, name);
        }
        if rules.super_names.iter().any(|s| s == bare) {
            if let Some(t) = self.enclosing_type(r.src) {
                let id = self.ix.symbols.get(t as usize).id;
                let mut found = Vec::new();
                for b in self.bases.get(id) {
                    if let Some((bi, _)) = self.ix.symbol(*b) {
                        found.extend(self.member(bi, name, 0));
                    }
                }
                let found = self.keep(r, file, &found);
                if !found.is_empty() {
                    return self.edges_to(r, &found, "super_member", Confidence::High);
                }
            }
            return self.member_candidates(r, file, name);
        }
        if !is_simple_path(recv) {
            // `Store().get()`, `make(x).get()`, `new Foo().bar()`.
            return self
                .typed_member(r, file, recv, depth)
                .unwrap_or_else(|| self.member_candidates(r, file, name));
        }
        let segs: Vec<&str> = recv
            .split(['.', ':', '\\'])
            .filter(|s| !s.is_empty())
            .collect();
        let Some((head, rest)) = segs.split_first() else {
            return self.member_candidates(r, file, name);
        };
        // `self.store.get()`, or a local/parameter with a known type (it shadows globals).
        if rules.self_names.iter().any(|s| s == head)
            || self.binding_of(r.src, file, head).is_some()
        {
            return self
                .typed_member(r, file, recv, depth)
                .unwrap_or_else(|| self.member_candidates(r, file, name));
        }
        let mut target = self.resolve_head(r, file, head);
        for seg in rest {
            target = target.and_then(|t| self.descend(t, seg));
        }
        match target {
            Some(Target::External) => Self::unresolved(r, "external", 0),
            Some(Target::Module { key, files }) => {
                let found = self.keep(r, file, &self.in_module(&key, &files, name));
                if found.is_empty() {
                    Self::unresolved(r, "no_candidates", 0)
                } else {
                    self.edges_to(r, &found, "module_member", Confidence::High)
                }
            }
            Some(Target::Symbols(syms)) => {
                let mut found = Vec::new();
                for &s in &syms {
                    if is_scope_kind(self.ix.symbols.get(s as usize).kind) {
                        found.extend(self.member(s, name, 0));
                    }
                }
                let found = self.keep(r, file, &found);
                if !found.is_empty() {
                    return self.edges_to(r, &found, "static_member", Confidence::High);
                }
                self.member_candidates(r, file, name)
            }
            None => self
                .typed_member(r, file, recv, depth)
                .unwrap_or_else(|| self.member_candidates(r, file, name)),
        }
    }

    /// Member `r.name` of the receiver's type, when receiver typing tells the type. A known type
    /// without that member (inherited from outside the repository, or dynamic) leaves the
    /// reference unresolved rather than guessing by name.
    fn typed_member(
        &self,
        r: &Ref,
        file: FileRef<'_>,
        recv: &str,
        depth: u32,
    ) -> Option<Resolution> {
        if depth > crate::typing::MAX_TYPE_DEPTH {
            return None;
        }
        let Some(types) = self.receiver_types(r, file, recv, depth) else {
            // A receiver declared with a type that is not in the repository (`t *testing.T`,
            // `s: &str`): its members are external, not a guess by name.
            let bound = self.binding_of(r.src, file, recv)?;
            let b = bound.get();
            return b
                .type_text
                .filter(|t| self.type_is_external(t, b.file, b.scope))
                .map(|_| Self::unresolved(r, "external", 0));
        };
        let mut found = Vec::new();
        for t in &types {
            found.extend(self.member(*t, &r.name, 0));
        }
        let found = self.keep(r, file, &found);
        if found.is_empty() {
            // `toString`, `equals`, `clone`: inherited from the language's root types.
            let reason = if self.rules_of(file).builtin_members.contains(&r.name) {
                "external"
            } else {
                "no_candidates"
            };
            return Some(Self::unresolved(r, reason, 0));
        }
        // Dispatch: on an interface or trait, or to an abstract (body-less) member, the call
        // reaches the implementations too: all are candidates, flagged by the rule.
        let dispatches = types.iter().any(|&t| {
            matches!(
                self.ix.symbols.get(t as usize).kind,
                NodeKind::Interface | NodeKind::Trait
            )
        }) || found
            .iter()
            .any(|&c| self.ix.symbols.get(c as usize).declaration);
        if dispatches {
            let mut all = found.clone();
            for &t in &types {
                for d in self.implementations(t) {
                    let key = format!("{}.{}", self.ix.norm(d as usize), r.name);
                    all.extend(self.ix.norm_named(&key).iter().copied());
                    if let Some(extra) = self.extra_members.get(&(d, r.name.clone())) {
                        all.extend(extra.iter().copied());
                    }
                }
            }
            let mut seen = FxHashSet::default();
            all.retain(|c| seen.insert(*c));
            if all.len() > found.len() {
                let all = self.keep(r, file, &all);
                return Some(self.edges_to(r, &all, "dispatch", Confidence::Low));
            }
        }
        Some(self.edges_to(r, &found, "receiver_type", Confidence::Medium))
    }

    /// `Overrides` edges: a method of a type that redefines a method of one of its base types
    /// (the nearest definition up the hierarchy). Call after [`Resolver::resolve_inheritance`].
    /// Lays the hierarchy out flat once every inheritance clause is resolved, in a resolver
    /// that is never patched (the patcher changes a patchable one's).
    pub fn hierarchy_complete(&mut self) {
        if !self.patchable() {
            self.bases.flatten();
            self.derived.flatten();
        }
    }

    pub fn overrides(&self) -> Vec<Edge> {
        self.overrides_where(|_| true)
    }

    /// The [`Resolver::overrides`] of the methods defined in `files`.
    pub fn overrides_in(&self, files: &FxHashSet<i64>) -> Vec<Edge> {
        self.overrides_where(|file| files.contains(&file))
    }

    fn overrides_where(&self, in_file: impl Fn(i64) -> bool) -> Vec<Edge> {
        let mut out = Vec::new();
        for (i, s) in self.ix.symbols.iter().enumerate() {
            if !in_file(s.file) {
                continue;
            }
            if !matches!(
                s.kind,
                NodeKind::Method | NodeKind::Function | NodeKind::Property
            ) {
                continue;
            }
            let Some(owner) = self.owner_of.get(&(i as u32)).copied().or_else(|| {
                s.parent
                    .and_then(|p| self.ix.symbol(p))
                    .filter(|(_, p)| p.kind.is_type_like())
                    .map(|(pi, _)| pi)
            }) else {
                continue;
            };
            let owner_id = self.ix.symbols.get(owner as usize).id;
            let bases = self.bases.get(owner_id);
            if bases.is_empty() {
                continue;
            }
            let mut found = Vec::new();
            for b in bases {
                if let Some((bi, _)) = self.ix.symbol(*b)
                    && bi != owner
                {
                    found.extend(self.member(bi, s.name, 0).into_iter().filter(|&m| {
                        m as usize != i
                            && self.ix.symbols.get(m as usize).kind.is_callable()
                                == s.kind.is_callable()
                    }));
                }
            }
            found.sort_unstable();
            found.dedup();
            for m in found.into_iter().take(MAX_CANDIDATES) {
                out.push(Edge {
                    src: s.id,
                    dst: self.ix.symbols.get(m as usize).id,
                    kind: EdgeKind::Overrides,
                    provenance: Provenance::Inferred,
                    confidence: Confidence::High,
                    rule: "override",
                    ref_id: None,
                    import_id: None,
                });
            }
        }
        out
    }

    /// Types deriving from or implementing `t`, transitively (at most 64).
    fn implementations(&self, t: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![self.ix.symbols.get(t as usize).id];
        let mut seen = FxHashSet::default();
        while let Some(id) = stack.pop() {
            for &d in self.derived.get(id) {
                if out.len() >= 64 || !seen.insert(d) {
                    continue;
                }
                if let Some((di, _)) = self.ix.symbol(d) {
                    out.push(di);
                }
                stack.push(d);
            }
        }
        out
    }

    /// The receiver's type is unknown: candidates are members with that name anywhere.
    pub(crate) fn member_candidates(&self, r: &Ref, file: FileRef<'_>, name: &str) -> Resolution {
        if self.rules_of(file).builtin_members.contains(name) {
            return Self::unresolved(r, "external", 0);
        }
        let family = self.ix.family_of_lang[file.lang];
        let remembered = self
            .member_memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name, r.kind, family);
        let found = match remembered {
            Some(found) => found,
            None => {
                let all = self.ix.named(name);
                let found: std::sync::Arc<[Member]> = self
                    .keep(r, file, all)
                    .into_iter()
                    .filter(|&c| {
                        let s = self.ix.symbols.get(c as usize);
                        let in_type = s
                            .parent
                            .and_then(|p| self.ix.symbol(p))
                            .is_some_and(|(_, p)| p.kind.is_type_like());
                        in_type
                            || self.ix.norm(c as usize).contains('.') && s.kind == NodeKind::Method
                    })
                    .map(|c| {
                        let file = self.ix.symbols.get(c as usize).file;
                        Member {
                            id: c,
                            file,
                            // No file: a hash no directory is likely to have, and the
                            // directories are compared on equal hashes anyway.
                            dir: self
                                .ix
                                .file(file)
                                .map_or(u64::MAX, |ctx| dir_hash(dir_of(ctx.path))),
                        }
                    })
                    .collect();
                self.member_memo
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .put(name, r.kind, family, found.clone());
                found
            }
        };
        if found.is_empty() {
            return Self::unresolved(r, "no_candidates", 0);
        }
        // Only members this file can see: defined here, in its directory, or in a file it
        // imports. A same-named member elsewhere is no evidence (the receiver's type is unknown).
        let imported = self.imported(file.id);
        let dir = dir_of(file.path);
        let hash = dir_hash(dir);
        let visible: Vec<u32> = found
            .iter()
            .filter(|m| {
                m.file == file.id
                    || imported
                        .as_deref()
                        .is_some_and(|set| set.binary_search(&m.file).is_ok())
                    || m.dir == hash
                        && self
                            .ix
                            .file(m.file)
                            .is_some_and(|ctx| dir_of(ctx.path) == dir)
            })
            .map(|m| m.id)
            .collect();
        match visible.len() {
            0 => Self::unresolved(r, "unknown_receiver", found.len()),
            1 => self.edges_to(r, &visible, "unique_member", Confidence::Low),
            _ => self.edges_to(r, &visible, "ambiguous_member", Confidence::Low),
        }
    }

    /// Convenience for small inputs: resolves imports, inheritance and every reference.
    pub fn resolve_all(&mut self, imports: &[Imp], refs: &[Ref]) -> Output {
        self.tables_changed();
        let mut out = Output {
            edges: self.resolve_imports(imports),
            unresolved: Vec::new(),
        };
        self.link_out_of_line_members();
        let mut done = FxHashSet::default();
        for (id, resolution) in self.resolve_inheritance(refs) {
            done.insert(id);
            push(&mut out, resolution);
        }
        for r in refs {
            if !done.contains(&r.id) {
                push(&mut out, self.resolve(r));
            }
        }
        out
    }
}

/// Adds one resolution to an output.
pub fn push(out: &mut Output, resolution: Resolution) {
    match resolution {
        Resolution::Edges(edges) => out.edges.extend(edges),
        Resolution::Unresolved(u) => out.unresolved.push(u),
    }
}

/// The files each file's import table reaches (`direct`, sorted) and what those files' reach
/// (a parameter typed with a class the imported module uses), each list sorted.
fn two_steps(direct: &FxHashMap<i64, Vec<i64>>) -> FxHashMap<i64, Box<[i64]>> {
    direct
        .iter()
        .map(|(file, first)| {
            let more = |f: &i64| direct.get(f).map(Vec::as_slice);
            (*file, two_steps_of(first, more))
        })
        .collect()
}

/// `first` and what each of its files reaches (`more`), sorted.
fn two_steps_of<'a>(first: &[i64], more: impl Fn(&i64) -> Option<&'a [i64]>) -> Box<[i64]> {
    let mut set = first.to_vec();
    for f in first {
        if let Some(more) = more(f) {
            set.extend_from_slice(more);
        }
    }
    set.sort_unstable();
    set.dedup();
    set.into_boxed_slice()
}

/// The files each file's import table reaches directly, all in one vector.
#[derive(Default)]
struct DirectReach {
    /// File (with imports) → its range in `files`.
    at: FxHashMap<i64, (u32, u32)>,
    files: Vec<i64>,
}

impl DirectReach {
    fn new(direct: FxHashMap<i64, Vec<i64>>) -> DirectReach {
        let mut out = DirectReach::default();
        out.at.reserve(direct.len());
        out.files.reserve(direct.values().map(Vec::len).sum());
        for (file, reached) in direct {
            let start = out.files.len() as u32;
            out.files.extend(reached);
            out.at.insert(file, (start, out.files.len() as u32));
        }
        out
    }
}

impl ReachSource for DirectReach {
    fn reached(&self, file: i64) -> Option<&[i64]> {
        let &(start, end) = self.at.get(&file)?;
        Some(&self.files[start as usize..end as usize])
    }

    fn heap_bytes(&self) -> usize {
        crate::lists::table_bytes::<(i64, (u32, u32))>(self.at.capacity())
            + self.files.capacity() * 8
    }
}

/// What [`two_steps`] makes for `file`, from the direct reach in `reach`.
fn two_steps_in(reach: &dyn ReachSource, file: i64) -> Option<Box<[i64]>> {
    Some(two_steps_of(reach.reached(file)?, |f| reach.reached(*f)))
}

/// Calls `f` with `"{a}.{b}"` built in a buffer kept per thread: member lookups run hundreds of
/// thousands of times per index, and a fresh `String` each was ~1 % of a Django index. A call
/// made from inside `f` gets a `String` of its own.
fn dotted<R>(a: &str, b: &str, f: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    KEY.with(|key| match key.try_borrow_mut() {
        Ok(mut key) => {
            key.clear();
            key.push_str(a);
            key.push('.');
            key.push_str(b);
            f(&key)
        }
        Err(_) => f(&format!("{a}.{b}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Ref, Resolution};
    use crate::testing::{def as symbol, import, py_file as file, python_rules as rules};
    use sextant_model::{NodeKind, RefKind};

    #[test]
    fn the_member_memo_answers_what_it_was_given_and_empties_when_full() {
        let members = |n: u32| -> std::sync::Arc<[Member]> {
            (0..n)
                .map(|id| Member {
                    id,
                    file: 1,
                    dir: 0,
                })
                .collect()
        };
        let mut memo = MemberMemo::default();
        memo.put("get", RefKind::Call, 0, members(3));
        memo.put("get", RefKind::Type, 0, members(1));
        let ids = |m: &MemberMemo, kind, family| {
            m.get("get", kind, family)
                .map(|f| f.iter().map(|m| m.id).collect::<Vec<_>>())
        };
        assert_eq!(ids(&memo, RefKind::Call, 0), Some(vec![0, 1, 2]));
        assert_eq!(ids(&memo, RefKind::Type, 0), Some(vec![0]));
        assert_eq!(ids(&memo, RefKind::Call, 1), None, "another family");
        // A name with more members than the memo keeps in all: what it held goes first.
        let many = (MEMO_BYTES / std::mem::size_of::<Member>()) as u32 / 2;
        memo.put("save", RefKind::Call, 0, members(many));
        assert!(memo.get("save", RefKind::Call, 0).is_some());
        assert!(memo.bytes <= MEMO_BYTES);
        memo.put("run", RefKind::Call, 0, members(many));
        assert_eq!(ids(&memo, RefKind::Call, 0), None, "emptied when full");
        assert!(memo.get("save", RefKind::Call, 0).is_none());
        assert!(memo.get("run", RefKind::Call, 0).is_some());
        assert!(memo.bytes <= MEMO_BYTES);
    }

    /// `x.save()` with an untyped receiver, in the function `src` of `file`.
    fn save_call(id: i64, file: i64, src: i64) -> Ref {
        Ref {
            id,
            file,
            src,
            kind: RefKind::Call,
            name: "save".into(),
            receiver: Some("x".into()),
            implementor: None,
        }
    }

    #[test]
    fn an_untyped_receivers_member_is_seen_through_imports_two_steps_away() {
        // `pkg/a.py` defines `Store.save`; `pkg/b.py` imports `Store`; `app/c.py` imports
        // `pkg.b`, so `Store`'s file is two steps away from it. `web/d.py` imports nothing.
        let files = vec![
            file(5, "pkg/a.py"),
            file(2, "pkg/b.py"),
            file(3, "app/c.py"),
            file(4, "web/d.py"),
        ];
        let symbols = vec![
            symbol(501, 5, NodeKind::Class, "pkg.a.Store", 500),
            symbol(502, 5, NodeKind::Method, "pkg.a.Store.save", 501),
            symbol(301, 3, NodeKind::Function, "app.c.f", 300),
            symbol(401, 4, NodeKind::Function, "web.d.g", 400),
        ];
        let imports = vec![
            import(1, 2, "pkg.a", Some("Store")),
            import(2, 3, "pkg.b", None),
        ];
        let mut resolver = Resolver::new(files, symbols, vec![rules()]);
        let edges = resolver.resolve_imports(&imports);
        // Only the last of the passes makes edges: one per import.
        let mut dsts: Vec<(i64, i64)> = edges.iter().map(|e| (e.src, e.dst)).collect();
        dsts.sort_unstable();
        assert_eq!(dsts, vec![(200, 501), (300, 200)]);
        assert_eq!(
            resolver.imported_files.get(&2).map(|s| &s[..]),
            Some(&[5][..])
        );
        assert_eq!(
            resolver.imported_files.get(&3).map(|s| &s[..]),
            Some(&[2, 5][..])
        );

        match resolver.resolve(&save_call(7, 3, 301)) {
            Resolution::Edges(edges) => {
                assert_eq!(edges.iter().map(|e| e.dst).collect::<Vec<_>>(), vec![502]);
                assert_eq!(edges[0].rule, "unique_member");
            }
            other => panic!("not resolved: {other:?}"),
        }
        match resolver.resolve(&save_call(8, 4, 401)) {
            Resolution::Unresolved(u) => assert_eq!(u.reason, "unknown_receiver"),
            other => panic!("a file that imports nothing saw `save`: {other:?}"),
        }
    }
}
