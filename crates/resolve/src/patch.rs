//! Replacing one file of a built [`Resolver`] by a new version *of the same shape* without
//! rebuilding its tables (the live index's fast path for the common edit: a body changed).
//!
//! Same shape means: the same path, module and language, and the same definitions in the same
//! order (kind, name, qualified name, declaration flag, declared type, parent at the same place).
//! Then every table of the resolver is what a rebuild would give except for the ids of the file
//! and of its definitions, so patching is renaming ids: positions in the symbol table do not move,
//! name lists do not change, import bindings and hierarchies keep their shape. Typed bindings may
//! differ freely (a new local variable): the old ones leave their lists and the new ones are
//! appended to the table; every list is ordered by (file, place in the file), so it iterates in
//! the order a rebuild would give whatever the positions.
//!
//! What the caller must check itself (the resolver does not keep them): the file's imports and
//! inheritance clauses have the same shape too, since import bindings, out-of-line members and
//! base types were derived from them.

use rustc_hash::FxHashMap;

use crate::input::{Bind, FileCtx, Symbol};
use crate::resolver::{Resolver, Target, bind_key};

/// Why a file could not be patched in place (the caller rebuilds the resolver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchError {
    UnknownFile,
    FileChanged,
    SymbolCount,
    SymbolChanged,
    /// The resolver's bindings were not fed in file order.
    BindingOrder,
}

impl Resolver {
    /// Replaces file `old` by `ctx` with `symbols` (new ids, same shape) and typed `binds`.
    /// Returns the old → new node ids (the File node and every definition). On error nothing
    /// was changed.
    pub fn replace_file_same_shape(
        &mut self,
        old: i64,
        ctx: FileCtx,
        symbols: Vec<Symbol>,
        binds: Vec<Bind>,
    ) -> Result<FxHashMap<i64, i64>, PatchError> {
        let Some(&fi) = self.ix.file_index.get(&old) else {
            return Err(PatchError::UnknownFile);
        };
        if self.binds_unordered {
            return Err(PatchError::BindingOrder);
        }
        let before = &self.ix.files[fi];
        if before.path != ctx.path || before.module != ctx.module || before.lang != ctx.lang {
            return Err(PatchError::FileChanged);
        }
        // The file's definitions are one run of the symbol table (files are fed in order).
        let old_positions: Vec<u32> = {
            let first = self
                .ix
                .symbols
                .iter()
                .position(|s| s.file == old)
                .unwrap_or(self.ix.symbols.len());
            let n = self.ix.symbols[first..]
                .iter()
                .take_while(|s| s.file == old)
                .count();
            (first as u32..(first + n) as u32).collect()
        };
        if old_positions.len() != symbols.len() {
            return Err(PatchError::SymbolCount);
        }
        let mut map: FxHashMap<i64, i64> = FxHashMap::default();
        map.insert(before.node, ctx.node);
        for (&p, new) in old_positions.iter().zip(&symbols) {
            map.insert(self.ix.symbols[p as usize].id, new.id);
        }
        for (&p, new) in old_positions.iter().zip(&symbols) {
            let s = &self.ix.symbols[p as usize];
            let parent = s.parent.map(|q| map.get(&q).copied().unwrap_or(q));
            if s.kind != new.kind
                || s.name != new.name
                || s.qname != new.qname
                || s.declaration != new.declaration
                || s.type_text != new.type_text
                || parent != new.parent
                || new.file != ctx.id
            {
                return Err(PatchError::SymbolChanged);
            }
        }

        // Files.
        let new_file = ctx.id;
        self.ix.file_index.remove(&old);
        self.ix.file_index.insert(new_file, fi);
        let swap = |id: &mut i64| {
            if *id == old {
                *id = new_file;
            }
        };
        for files in self.ix.modules.values_mut() {
            files.iter_mut().for_each(swap);
        }
        if let Some(id) = self.ix.exact_paths.get_mut(&ctx.path) {
            *id = new_file;
        }
        for list in self.ix.paths.values_mut() {
            list.iter_mut().for_each(|(_, id)| swap(id));
        }
        self.ix.files[fi] = ctx;

        // Definitions keep their positions; their ids change.
        for (&p, new) in old_positions.iter().zip(symbols) {
            self.ix.by_id.remove(&self.ix.symbols[p as usize].id);
            self.ix.by_id.insert(new.id, p);
            self.ix.symbols[p as usize] = new;
        }
        let node = |id: &mut i64| {
            if let Some(&n) = map.get(id) {
                *id = n;
            }
        };
        for (o, n) in &map {
            if let Some(children) = self.ix.children.remove(o) {
                self.ix.children.insert(*n, children);
            }
        }

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
            if set.remove(&old) {
                set.insert(new_file);
            }
        }

        // Hierarchy.
        for table in [&mut self.bases, &mut self.derived] {
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

        // Typed bindings: the old ones leave their lists (they stay in the table, unreferenced),
        // the new ones are appended and enter their lists where the file's order puts them.
        let (start, len) = self.binds_of_file.remove(&old).unwrap_or((0, 0));
        self.dead_binds += len as usize;
        for p in start..start + len {
            let b = &self.binds[p as usize];
            if let Some(scope) = self.binds_in_scope.get_mut(&b.scope) {
                if let Some(list) = scope.get_mut(&b.name) {
                    list.retain(|&x| x != p);
                    if list.is_empty() {
                        scope.remove(&b.name);
                    }
                }
                if scope.is_empty() {
                    self.binds_in_scope.remove(&b.scope);
                }
            }
            if let Some(list) = self.binds_named.get_mut(&b.name) {
                list.retain(|&x| x != p);
                if list.is_empty() {
                    self.binds_named.remove(&b.name);
                }
            }
        }
        let base = self.binds.len() as u32;
        for (k, b) in binds.iter().enumerate() {
            let p = base + k as u32;
            let key = bind_key(fi, k);
            self.bind_order.push(key);
            let order = &self.bind_order;
            let insert = |list: &mut Vec<u32>| {
                let at = list.partition_point(|&x| order[x as usize] < key);
                list.insert(at, p);
            };
            insert(
                self.binds_in_scope
                    .entry(b.scope)
                    .or_default()
                    .entry(b.name.clone())
                    .or_default(),
            );
            insert(self.binds_named.entry(b.name.clone()).or_default());
        }
        self.binds_of_file
            .insert(new_file, (base, binds.len() as u32));
        self.binds.extend(binds);
        Ok(map)
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
        self.derived.get(&id).map(Vec::as_slice).unwrap_or(&[])
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
        LangRules {
            id: "python".into(),
            family: "python".into(),
            self_names: vec!["self".into()],
            super_names: vec![],
            binds: crate::input::Binds::None,
            implicit_self: false,
            module_style: "python".into(),
            builtin_names: Default::default(),
            builtin_members: Default::default(),
            separate_call_names: false,
        }
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

    #[test]
    fn a_same_shape_version_renames_ids_and_rethreads_bindings_in_file_order() {
        let files = vec![file(1, 10, "a.py"), file(2, 20, "b.py")];
        let symbols = vec![symbol(11, 1, 10, "f", "a"), symbol(21, 2, 20, "g", "b")];
        let mut r = Resolver::new(files, symbols, vec![rules()])
            .with_bindings(vec![bind(1, 11, "x"), bind(2, 21, "x")]);
        // a.py again, with new ids and one more binding of `x`.
        let map = r
            .replace_file_same_shape(
                1,
                file(3, 30, "a.py"),
                vec![symbol(31, 3, 30, "f", "a")],
                vec![bind(3, 31, "x"), bind(3, 31, "x")],
            )
            .unwrap();
        assert_eq!(map.get(&10), Some(&30));
        assert_eq!(map.get(&11), Some(&31));
        assert_eq!(r.file_of(31), Some(3));
        assert_eq!(r.file_of(11), None);
        // `x` lists a.py's two new bindings before b.py's, as a rebuild would.
        let files_of_x: Vec<i64> = r.binds_named["x"]
            .iter()
            .map(|&i| r.binds[i as usize].file)
            .collect();
        assert_eq!(files_of_x, vec![3, 3, 2]);
        assert_eq!(r.dead_bindings(), 1);
        // Another shape is refused and changes nothing.
        let err = r
            .replace_file_same_shape(
                3,
                file(4, 40, "a.py"),
                vec![symbol(41, 4, 40, "renamed", "a")],
                vec![],
            )
            .unwrap_err();
        assert_eq!(err, PatchError::SymbolChanged);
        assert_eq!(r.file_of(31), Some(3));
    }
}
