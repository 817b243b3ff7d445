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
use crate::resolver::bound_in;
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sextant_model::{NodeKind, RefKind};

    use super::*;
    use crate::input::{Bind, Binds, FileCtx, Imp, LangRules, Ref, Resolution, Symbol};
    use crate::{PatchError, Resolver};

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
        let rules = LangRules {
            id: "python".into(),
            family: "python".into(),
            self_names: vec!["self".into()],
            super_names: vec![],
            binds: Binds::None,
            implicit_self: false,
            module_style: "python".into(),
            builtin_names: Default::default(),
            builtin_members: Default::default(),
            separate_call_names: false,
        };
        let file = FileCtx {
            id: 1,
            node: 100,
            path: "a.py".into(),
            module: "a".into(),
            lang: 0,
        };
        let symbol = |id, kind, qname: &str, parent| Symbol {
            id,
            file: 1,
            kind,
            name: qname.rsplit('.').next().unwrap().into(),
            qname: qname.into(),
            parent: Some(parent),
            declaration: false,
            type_text: None,
        };
        let symbols = vec![
            symbol(101, NodeKind::Class, "a.Store", 100),
            symbol(102, NodeKind::Method, "a.Store.get", 101),
            symbol(103, NodeKind::Class, "a.Cache", 100),
            symbol(104, NodeKind::Method, "a.Cache.get", 103),
            symbol(105, NodeKind::Function, "a.f", 100),
        ];
        Resolver::new(vec![file], symbols, vec![rules])
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
        paged_resolver.forget_binding_pages();
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

        let replaced = paged_resolver.replace_file(
            1,
            FileCtx {
                id: 2,
                node: 200,
                path: "a.py".into(),
                module: "a".into(),
                lang: 0,
            },
            Vec::new(),
            Vec::new(),
        );
        assert_eq!(replaced.err(), Some(PatchError::Paged));
    }
}
