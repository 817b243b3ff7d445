//! Replacing one file of a built [`Resolver`] by a new version without rebuilding its tables
//! (the live index's fast path for the common edits: a body changed, a definition added or
//! removed).
//!
//! The old and new definitions are matched in order by (kind, qualified name, declaration flag)
//! under matched parents ([`match_symbols`]). Matched definitions keep their place in every table
//! under new ids; the file's run of the symbol table is replaced. A live index's resolver keeps
//! spare places after each run ([`Resolver::with_spare_places`]): a run that grows into them
//! moves nothing else; one that outgrows them shifts every later position and every table holding
//! positions is renumbered (an order-preserving renaming, so each list iterates as a rebuild's
//! would). Definitions that appear or vanish enter or leave the
//! name indexes, unless their name was fixed when the tables were built (an imported name, a name
//! in an inheritance clause or an out-of-line member's owner: [`PatchError::FixedName`]), which
//! would change import bindings, hierarchies or out-of-line members elsewhere. Typed bindings
//! may differ freely: the old ones leave their lists and the new ones are appended to the table;
//! every list is ordered by (file, place in the file), so it iterates in the order a rebuild
//! would give whatever the positions.
//!
//! What the caller must check itself (the resolver does not keep them): the file's imports and
//! inheritance clauses have the same shape, since import bindings, out-of-line members and base
//! types were derived from them; and the override edges of the file and of the types deriving
//! from its types ([`Resolver::overrides_in`]) when definitions appeared or vanished.

use rustc_hash::FxHashMap;

use crate::index::{child_named, in_dir, named, norm_of, normed};
use crate::input::{Bind, FileCtx, Symbol};
use crate::lists::key_hash;
use crate::modules::normalize;
use crate::resolver::{Resolver, Target, bind_key, bound_in, bound_named};

/// Why a file could not be patched in place (the caller rebuilds the resolver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchError {
    UnknownFile,
    FileChanged,
    /// A definition that appears or vanishes has a name the built tables depend on.
    FixedName,
    /// A definition that vanishes is linked in the hierarchy or as an out-of-line member.
    Linked,
    /// The resolver's bindings were not fed in file order.
    BindingOrder,
    /// The file defined nothing, and now does.
    NoRun,
    /// The resolver takes its bindings from pages ([`Resolver::with_binding_pages`]).
    Paged,
}

/// Old and new definitions of one file paired up.
#[derive(Debug, Default)]
pub struct Matching {
    /// Old → new node ids: the File node and every matched definition.
    pub map: FxHashMap<i64, i64>,
    /// For each old definition, the index of its new counterpart.
    pub pairs: Vec<Option<usize>>,
    /// New definitions without an old counterpart.
    pub added: Vec<usize>,
}

impl Matching {
    /// Old definitions without a new counterpart.
    pub fn removed(&self) -> impl Iterator<Item = usize> + '_ {
        self.pairs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_none())
            .map(|(i, _)| i)
    }

    /// Every definition kept its counterpart (the same shape).
    pub fn complete(&self) -> bool {
        self.added.is_empty() && self.pairs.iter().all(Option::is_some)
    }
}

/// Pairs the definitions of two versions of a file in order: a new definition takes the first
/// old one after the last taken with the same kind, qualified name and declaration flag whose
/// parent is paired with its parent. Pairs never cross, so renumbering preserves every order.
pub fn match_symbols(old_node: i64, old: &[Symbol], new_node: i64, new: &[Symbol]) -> Matching {
    let key = |s: &Symbol| (s.kind, s.qname.clone(), s.declaration);
    let mut queues: FxHashMap<_, std::collections::VecDeque<usize>> = FxHashMap::default();
    for (i, s) in old.iter().enumerate() {
        queues.entry(key(s)).or_default().push_back(i);
    }
    let mut m = Matching {
        map: FxHashMap::default(),
        pairs: vec![None; old.len()],
        added: Vec::new(),
    };
    m.map.insert(old_node, new_node);
    let mut after = 0usize;
    for (j, n) in new.iter().enumerate() {
        let found = queues.get_mut(&key(n)).and_then(|q| {
            while q.front().is_some_and(|&i| i < after) {
                q.pop_front();
            }
            let at = q.iter().position(|&i| {
                old[i].parent.and_then(|p| m.map.get(&p).copied()) == n.parent
                    || (old[i].parent.is_none() && n.parent.is_none())
            })?;
            q.remove(at)
        });
        match found {
            Some(i) => {
                m.pairs[i] = Some(j);
                m.map.insert(old[i].id, n.id);
                after = i + 1;
            }
            None => m.added.push(j),
        }
    }
    m
}

/// What [`Resolver::replace_file`] did.
#[derive(Debug, Default)]
pub struct Replaced {
    /// Old → new node ids (the File node and the matched definitions).
    pub map: FxHashMap<i64, i64>,
    /// Definitions appeared or vanished (not only ids and bindings changed).
    pub reshaped: bool,
    /// The names of the definitions that appeared or vanished (references so named may now
    /// resolve differently).
    pub changed: Vec<String>,
    /// A matched definition changed its declared type (what receivers typed by it resolve to
    /// may change wherever they are written).
    pub retyped: bool,
}

impl Resolver {
    /// Replaces file `old` by `ctx` with `symbols` (new ids) and typed `binds`. On error nothing
    /// was changed.
    pub fn replace_file(
        &mut self,
        old: i64,
        ctx: FileCtx,
        symbols: Vec<Symbol>,
        binds: Vec<Bind>,
    ) -> Result<Replaced, PatchError> {
        self.tables_changed();
        let Some(fi) = self.ix.file_index.get(old) else {
            return Err(PatchError::UnknownFile);
        };
        if self.binds_unordered {
            return Err(PatchError::BindingOrder);
        }
        if !self.patchable() {
            return Err(PatchError::Paged);
        }
        let fi = fi as usize;
        let before = self.ix.files.get(fi);
        if before.path != ctx.path
            || before.module != ctx.module
            || before.lang != ctx.lang
            || symbols.iter().any(|s| s.file != ctx.id)
        {
            return Err(PatchError::FileChanged);
        }
        // The file's definitions are one run of the symbol table (files are fed in order).
        let table = &self.ix.symbols;
        let first = (0..table.len())
            .position(|i| table.id_file(i).1 == old)
            .unwrap_or(table.len());
        // A spare place has id 0 (see `index::spare`).
        let n_old = (first..table.len())
            .take_while(|&i| table.id_file(i) != (0, old) && table.id_file(i).1 == old)
            .count();
        // Spare places after the run (see `Index::build`): a run that grows into them moves
        // nothing after it.
        let slack = (first + n_old..table.len())
            .take_while(|&i| table.id_file(i) == (0, old))
            .count();
        if n_old + slack == 0 && !symbols.is_empty() {
            // No run to grow in place (where the new one goes is not kept).
            return Err(PatchError::NoRun);
        }
        let olds: Vec<Symbol> = (first..first + n_old)
            .map(|i| table.get(i).to_symbol())
            .collect();
        let olds = &olds[..];
        let matching = match_symbols(before.node, olds, ctx.node, &symbols);
        let reshaped = !matching.complete();
        let changed: Vec<String> = matching
            .removed()
            .map(|i| olds[i].name.clone())
            .chain(matching.added.iter().map(|&j| symbols[j].name.clone()))
            .collect();
        let retyped = matching
            .pairs
            .iter()
            .enumerate()
            .any(|(i, j)| j.is_some_and(|j| olds[i].type_text != symbols[j].type_text));
        for i in matching.removed() {
            let s = &olds[i];
            if self.is_fixed(&s.name, fi)
                || (s.kind.is_type_like() && self.owner_paths.contains(&*self.ix.norm(first + i)))
            {
                return Err(PatchError::FixedName);
            }
            if self.owner_of.contains_key(&((first + i) as u32))
                || self.bases.contains(s.id)
                || self.derived.contains(s.id)
            {
                return Err(PatchError::Linked);
            }
        }
        for &j in &matching.added {
            let s = &symbols[j];
            if self.is_fixed(&s.name, fi)
                || (s.kind.is_type_like() && self.owner_paths.contains(&normalize(&s.qname)))
            {
                return Err(PatchError::FixedName);
            }
        }

        // Nothing fails from here on.
        let n_new = symbols.len();
        let end = first + n_old;
        let ctx_node = ctx.node;
        let ctx_file = ctx.id;
        let dir = self.ix.file_dir[fi];
        let family = self.ix.family_of_lang[ctx.lang];
        // The old run leaves the name indexes.
        let in_run = |p: &u32| (first..end).contains(&(*p as usize));
        let symbols_now = &self.ix.symbols;
        for k in 0..end - first {
            let s = symbols_now.get(first + k);
            self.ix.by_id.map_mut().remove(&s.id);
            self.ix
                .by_name
                .remove(key_hash(None, s.name), named(symbols_now, s.name), |p| {
                    in_run(&p)
                });
            let n = norm_of(s.qname);
            self.ix
                .by_norm
                .remove(key_hash(None, &n), normed(symbols_now, &*n), |p| in_run(&p));
            // Containment lists of the file's own nodes hold only its definitions: they go.
            if let Some(parent) = s.parent {
                self.ix.children.remove(
                    key_hash(Some(parent), s.name),
                    child_named(symbols_now, parent, s.name),
                    |p| in_run(&p),
                );
            }
            if s.parent == Some(before.node) {
                self.ix.by_dir.remove(
                    key_hash(Some(i64::from(dir)), s.name),
                    in_dir(
                        symbols_now,
                        &self.ix.file_index,
                        &self.ix.file_dir,
                        dir,
                        s.name,
                    ),
                    |p| in_run(&p),
                );
            }
        }

        // The run and its spare places are replaced by the new run, padded with spare places
        // when it fits (then nothing after it moves), else without (then later positions shift).
        let region_end = end + slack;
        let fits = n_new <= n_old + slack;
        let new_region = if fits { n_old + slack } else { n_new };
        let renumber = |p: u32| -> u32 {
            let p = p as usize;
            if p < first {
                p as u32
            } else if p < end {
                // Only matched definitions are still referenced (checked above).
                (first + matching.pairs[p - first].unwrap_or(0)) as u32
            } else if p < region_end {
                p as u32
            } else {
                (p + new_region - (n_old + slack)) as u32
            }
        };
        // Without definitions appearing or vanishing the pairing is the identity. When the new
        // run fits, only tables that may hold this file's positions need a look (the name
        // indexes lost them above and get them again below).
        if reshaped && fits {
            for v in self.extra_members.values_mut() {
                v.iter_mut().for_each(|p| *p = renumber(*p));
            }
            self.extra_members = std::mem::take(&mut self.extra_members)
                .into_iter()
                .map(|((t, name), v)| ((renumber(t), name), v))
                .collect();
            self.owner_of = std::mem::take(&mut self.owner_of)
                .into_iter()
                .map(|(m, t)| (renumber(m), renumber(t)))
                .collect();
            for b in self.bindings.values_mut() {
                for t in b.names.values_mut().chain(b.wildcards.iter_mut()) {
                    if let Target::Symbols(syms) = t {
                        syms.iter_mut().for_each(|p| *p = renumber(*p));
                    }
                }
            }
        } else if reshaped {
            self.ix.by_name.renumber(renumber);
            self.ix.by_norm.renumber(renumber);
            self.ix.children.renumber(renumber);
            self.ix.by_dir.renumber(renumber);
            for list in self.extra_members.values_mut() {
                for p in list.iter_mut() {
                    *p = renumber(*p);
                }
            }
            for p in self.ix.by_id.map_mut().values_mut() {
                *p = renumber(*p);
            }
            self.extra_members = std::mem::take(&mut self.extra_members)
                .into_iter()
                .map(|((t, name), v)| ((renumber(t), name), v))
                .collect();
            self.owner_of = std::mem::take(&mut self.owner_of)
                .into_iter()
                .map(|(m, t)| (renumber(m), renumber(t)))
                .collect();
            for b in self.bindings.values_mut() {
                for t in b.names.values_mut().chain(b.wildcards.iter_mut()) {
                    if let Target::Symbols(syms) = t {
                        syms.iter_mut().for_each(|p| *p = renumber(*p));
                    }
                }
            }
        }

        // The new run.
        let pad = new_region - n_new;
        self.ix.family.heap_mut().splice(
            first..region_end,
            std::iter::repeat_n(family, n_new).chain(std::iter::repeat_n(u16::MAX, pad)),
        );
        let removed_ids: Vec<i64> = (first..end)
            .filter(|&i| matching.pairs[i - first].is_none())
            .map(|i| self.ix.symbols.id_file(i).0)
            .collect();
        self.ix.symbols.splice(
            first..region_end,
            symbols
                .into_iter()
                .chain(std::iter::repeat_with(|| crate::index::spare(ctx_file)).take(pad)),
        );
        let sorted_insert = |list: &mut Vec<u32>, p: u32| {
            let at = list.partition_point(|&x| x < p);
            list.insert(at, p);
        };
        let sorted = |p: u32| move |list: &[u32]| list.partition_point(|&x| x < p);
        let symbols_now = &self.ix.symbols;
        for j in 0..n_new {
            let p = (first + j) as u32;
            let s = symbols_now.get(first + j);
            self.ix.by_id.map_mut().insert(s.id, p);
            self.ix.by_name.insert_by(
                key_hash(None, s.name),
                named(symbols_now, s.name),
                p,
                sorted(p),
            );
            let n = norm_of(s.qname);
            self.ix
                .by_norm
                .insert_by(key_hash(None, &n), normed(symbols_now, &*n), p, sorted(p));
            if let Some(parent) = s.parent {
                self.ix.children.push(
                    key_hash(Some(parent), s.name),
                    child_named(symbols_now, parent, s.name),
                    p,
                );
                if parent == ctx_node {
                    self.ix.by_dir.insert_by(
                        key_hash(Some(i64::from(dir)), s.name),
                        in_dir(
                            symbols_now,
                            &self.ix.file_index,
                            &self.ix.file_dir,
                            dir,
                            s.name,
                        ),
                        p,
                        sorted(p),
                    );
                }
            }
        }

        // Files.
        let new_file = ctx.id;
        let file_index = self.ix.file_index.map_mut();
        file_index.remove(&old);
        file_index.insert(new_file, fi as u32);
        // The module and path tables keep positions: the file keeps its module, its path and
        // its position.
        self.ix.files.set(fi, ctx);
        let swap = |id: &mut i64| {
            if *id == old {
                *id = new_file;
            }
        };
        let map = matching.map;
        let node = |id: &mut i64| {
            if let Some(&n) = map.get(id) {
                *id = n;
            }
        };

        // Import bindings and the files imports reach.
        if let Some(b) = self.bindings.remove(&old) {
            self.bindings.insert(new_file, b);
        }
        for b in self.bindings.values_mut() {
            for t in b.names.values_mut().chain(b.wildcards.iter_mut()) {
                if let Target::Module { files, .. } = t {
                    files.iter_mut().for_each(swap);
                }
            }
        }
        if let Some(set) = self.imported_files.remove(&old) {
            self.imported_files.insert(new_file, set);
        }
        for set in self.imported_files.values_mut() {
            if let Ok(at) = set.binary_search(&old) {
                let mut files = std::mem::take(set).into_vec();
                files.remove(at);
                if let Err(to) = files.binary_search(&new_file) {
                    files.insert(to, new_file);
                }
                *set = files.into_boxed_slice();
            }
        }

        // Hierarchy.
        for table in [self.bases.map_mut(), self.derived.map_mut()] {
            let moved: Vec<i64> = table
                .keys()
                .copied()
                .filter(|k| map.contains_key(k))
                .collect();
            for k in moved {
                if let Some(v) = table.remove(&k) {
                    table.insert(map[&k], v);
                }
            }
            for list in table.values_mut() {
                list.iter_mut().for_each(node);
            }
        }

        // Out-of-line members that appeared (the tables are complete again, so the probe
        // answers as a rebuild's would).
        for &j in &matching.added {
            let p = (first + j) as u32;
            if let Some(t) = self.out_of_line_owner(p) {
                let name = self.ix.symbols.get(p as usize).name.to_string();
                sorted_insert(self.extra_members.entry((t, name)).or_default(), p);
                self.owner_of.insert(p, t);
            }
        }
        debug_assert!(
            removed_ids
                .iter()
                .all(|id| !self.ix.by_id.map().contains_key(id))
        );

        // Typed bindings: the old ones leave their lists (they stay in the table, unreferenced),
        // the new ones are appended and enter their lists where the file's order puts them.
        let (start, len) = self.binds_of_file.remove(&old).unwrap_or((0, 0));
        self.dead_binds += len as usize;
        let binds_now = &self.binds;
        for p in start..start + len {
            let b = binds_now.get(p as usize);
            self.binds_in_scope.remove(
                key_hash(Some(b.scope), b.name),
                bound_in(binds_now, b.scope, b.name),
                |x| x == p,
            );
            self.binds_named.remove(
                key_hash(None, b.name),
                bound_named(binds_now, b.name),
                |x| x == p,
            );
        }
        // Appended first: a list is recognised by its first binding, which may be a new one.
        let base = self.binds.len() as u32;
        let count = binds.len();
        self.binds.extend(binds);
        let binds_now = &self.binds;
        for k in 0..count {
            let p = base + k as u32;
            let b = binds_now.get(p as usize);
            let key = bind_key(fi, k);
            self.bind_order.push(key);
            let order = &self.bind_order;
            let at = |list: &[u32]| list.partition_point(|&x| order[x as usize] < key);
            self.binds_in_scope.insert_by(
                key_hash(Some(b.scope), b.name),
                bound_in(binds_now, b.scope, b.name),
                p,
                at,
            );
            self.binds_named.insert_by(
                key_hash(None, b.name),
                bound_named(binds_now, b.name),
                p,
                at,
            );
        }
        self.binds_of_file.insert(new_file, (base, count as u32));
        Ok(Replaced {
            map,
            reshaped,
            changed,
            retyped,
        })
    }
}

impl Resolver {
    /// Share of the binding table that patches left unreferenced (the caller rebuilds when it
    /// grows: a long session of edits would otherwise keep every old binding).
    pub fn garbage_share(&self) -> f64 {
        self.dead_binds as f64 / self.binds.len().max(1) as f64
    }

    /// Bindings that patches left unreferenced.
    pub fn dead_bindings(&self) -> usize {
        self.dead_binds
    }

    /// The types deriving from or implementing type `id` (directly).
    pub fn derived_types(&self, id: i64) -> &[i64] {
        self.derived.get(id)
    }

    /// The file holding definition `node`.
    pub fn file_of(&self, node: i64) -> Option<i64> {
        self.ix.symbol(node).map(|(_, s)| s.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::LangRules;
    use sextant_model::NodeKind;

    fn rules() -> LangRules {
        crate::testing::python_rules()
    }

    fn file(id: i64, node: i64, path: &str) -> FileCtx {
        FileCtx {
            id,
            node,
            path: path.into(),
            module: path.trim_end_matches(".py").into(),
            lang: 0,
        }
    }

    fn symbol(id: i64, file: i64, parent: i64, name: &str, module: &str) -> Symbol {
        Symbol {
            id,
            file,
            kind: NodeKind::Function,
            name: name.into(),
            qname: format!("{module}.{name}"),
            parent: Some(parent),
            declaration: false,
            type_text: None,
        }
    }

    fn bind(file: i64, scope: i64, name: &str) -> Bind {
        Bind {
            file,
            scope,
            name: name.into(),
            type_text: None,
            value: Some("f".into()),
        }
    }

    /// The name tables as ids (positions differ between a patched and a built resolver only
    /// if something is wrong).
    fn tables(r: &Resolver) -> Vec<String> {
        let id = |p: &u32| r.ix.symbols.get(*p as usize).id;
        let mut out: Vec<String> = Vec::new();
        for v in r.ix.by_name.lists() {
            let k = r.ix.symbols.get(v[0] as usize).name;
            out.push(format!(
                "name {k} {:?}",
                v.iter().map(id).collect::<Vec<_>>()
            ));
        }
        for v in r.ix.by_norm.lists() {
            let k = r.ix.norm(v[0] as usize);
            out.push(format!(
                "norm {k} {:?}",
                v.iter().map(id).collect::<Vec<_>>()
            ));
        }
        for v in r.ix.by_dir.lists() {
            let s = r.ix.symbols.get(v[0] as usize);
            let path = &r.ix.file(s.file).map(|f| f.path).unwrap_or_default();
            out.push(format!(
                "dir {:?} {} {:?}",
                crate::modules::dir_of(path),
                s.name,
                v.iter().map(id).collect::<Vec<_>>()
            ));
        }
        for v in r.ix.children.lists() {
            let s = r.ix.symbols.get(v[0] as usize);
            out.push(format!(
                "child {:?} {} {:?}",
                s.parent,
                s.name,
                v.iter().map(id).collect::<Vec<_>>()
            ));
        }
        for (k, &p) in r.ix.by_id.map() {
            out.push(format!("id {k} {}", r.ix.symbols.get(p as usize).id));
        }
        let live: Vec<usize> = (0..r.ix.symbols.len())
            .filter(|&i| !crate::index::is_spare(&r.ix.symbols.get(i)))
            .collect();
        out.push(format!(
            "symbols {:?}",
            live.iter()
                .map(|&i| r.ix.symbols.get(i).id)
                .collect::<Vec<_>>()
        ));
        out.push(format!(
            "norm {:?}",
            live.iter().map(|&i| r.ix.norm(i)).collect::<Vec<_>>()
        ));
        out.sort();
        out
    }

    #[test]
    fn a_same_shape_version_renames_ids_and_rethreads_bindings_in_file_order() {
        let files = vec![file(1, 10, "a.py"), file(2, 20, "b.py")];
        let symbols = vec![symbol(11, 1, 10, "f", "a"), symbol(21, 2, 20, "g", "b")];
        let mut r = Resolver::new(files, symbols, vec![rules()])
            .with_bindings(vec![bind(1, 11, "x"), bind(2, 21, "x")]);
        // a.py again, with new ids and one more binding of `x`.
        let replaced = r
            .replace_file(
                1,
                file(3, 30, "a.py"),
                vec![symbol(31, 3, 30, "f", "a")],
                vec![bind(3, 31, "x"), bind(3, 31, "x")],
            )
            .unwrap();
        assert!(!replaced.reshaped);
        assert_eq!(replaced.map.get(&10), Some(&30));
        assert_eq!(replaced.map.get(&11), Some(&31));
        assert_eq!(r.file_of(31), Some(3));
        assert_eq!(r.file_of(11), None);
        // `x` lists a.py's two new bindings before b.py's, as a rebuild would.
        let files_of_x: Vec<i64> = r
            .binds_named
            .get(key_hash(None, "x"), bound_named(&r.binds, "x"))
            .iter()
            .map(|&i| r.binds.get(i as usize).file)
            .collect();
        assert_eq!(files_of_x, vec![3, 3, 2]);
        assert_eq!(r.dead_bindings(), 1);
    }

    #[test]
    fn definitions_that_appear_or_vanish_leave_the_tables_a_rebuild_would_build() {
        // Without spare places (later positions shift), with fewer than the run grows by (they
        // are outgrown) and with enough (nothing else moves).
        for spare in [0, 1, 4] {
            appear_and_vanish(spare);
        }
    }

    fn appear_and_vanish(spare: usize) {
        let b = || vec![symbol(21, 2, 20, "g", "b"), symbol(22, 2, 20, "f", "b")];
        let a1 = vec![symbol(11, 1, 10, "f", "a"), symbol(12, 1, 10, "old", "a")];
        let mut symbols = a1.clone();
        symbols.extend(b());
        let mut r = Resolver::with_spare_places(
            vec![file(1, 10, "a.py"), file(2, 20, "b.py")],
            symbols,
            vec![rules()],
            spare,
        );
        // `old` vanishes, `new` and a second `g` appear before and after `f`.
        let a2 = vec![
            symbol(31, 3, 30, "g", "a"),
            symbol(32, 3, 30, "f", "a"),
            symbol(33, 3, 30, "new", "a"),
        ];
        let replaced = r
            .replace_file(1, file(3, 30, "a.py"), a2.clone(), vec![])
            .unwrap();
        assert!(replaced.reshaped);
        assert_eq!(replaced.map.get(&11), Some(&32));
        assert_eq!(replaced.map.get(&12), None);
        let mut symbols = a2;
        symbols.extend(b());
        let built = Resolver::new(
            vec![file(3, 30, "a.py"), file(2, 20, "b.py")],
            symbols,
            vec![rules()],
        );
        assert_eq!(tables(&r), tables(&built));
        assert_eq!(r.file_of(22), Some(2));
        assert_eq!(r.file_of(12), None);
    }

    #[test]
    fn a_file_that_defined_nothing_gains_a_definition_in_its_spare_places() {
        let files = || vec![file(1, 10, "a.py"), file(2, 20, "b.py")];
        let b = || vec![symbol(21, 2, 20, "f", "b")];
        // Without spare places there is no run to grow: refused.
        let mut r = Resolver::new(files(), b(), vec![rules()]);
        let err = r
            .replace_file(
                1,
                file(3, 30, "a.py"),
                vec![symbol(31, 3, 30, "f", "a")],
                vec![],
            )
            .unwrap_err();
        assert_eq!(err, PatchError::NoRun);
        // With them a.py's definitions go before b.py's, as a rebuild puts them.
        let mut r = Resolver::with_spare_places(files(), b(), vec![rules()], 2);
        r.replace_file(
            1,
            file(3, 30, "a.py"),
            vec![symbol(31, 3, 30, "f", "a")],
            vec![],
        )
        .unwrap();
        let mut symbols = vec![symbol(31, 3, 30, "f", "a")];
        symbols.extend(b());
        let built = Resolver::new(
            vec![file(3, 30, "a.py"), file(2, 20, "b.py")],
            symbols,
            vec![rules()],
        );
        assert_eq!(tables(&r), tables(&built));
        assert_eq!(
            r.ix.named("f")
                .iter()
                .map(|&p| r.ix.symbols.get(p as usize).id)
                .collect::<Vec<_>>(),
            vec![31, 21]
        );
    }

    #[test]
    fn a_definition_named_like_an_import_is_refused_and_nothing_changes() {
        let mut r = Resolver::new(
            vec![file(1, 10, "a.py"), file(2, 20, "b.py")],
            vec![symbol(11, 1, 10, "f", "a"), symbol(21, 2, 20, "g", "b")],
            vec![rules()],
        );
        r.resolve_imports(&[crate::input::Imp {
            id: 1,
            file: 2,
            src: 20,
            source: "a".into(),
            name: Some("h".into()),
            alias: None,
            wildcard: false,
        }]);
        let before = tables(&r);
        let err = r
            .replace_file(
                1,
                file(3, 30, "a.py"),
                vec![symbol(31, 3, 30, "f", "a"), symbol(32, 3, 30, "h", "a")],
                vec![],
            )
            .unwrap_err();
        assert_eq!(err, PatchError::FixedName);
        assert_eq!(tables(&r), before);
        assert_eq!(r.file_of(11), Some(1));
        // b.py's import of `h` looks in a.py only: b.py may define an `h` of its own.
        let replaced = r
            .replace_file(
                2,
                file(4, 40, "b.py"),
                vec![symbol(41, 4, 40, "g", "b"), symbol(42, 4, 40, "h", "b")],
                vec![],
            )
            .unwrap();
        assert!(replaced.reshaped);
    }
}
