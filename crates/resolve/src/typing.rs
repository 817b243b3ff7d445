//! Receiver typing: what type a receiver expression has, from typed bindings (parameters,
//! annotated variables, assignments from constructors and calls, attributes assigned in
//! methods), declared field types and return types. Used when a member is looked up on a
//! receiver that is not a module, a type name or `self`.
//!
//! Everything is bounded: expressions are followed at most [`MAX_TYPE_DEPTH`] steps deep, and a
//! receiver whose type cannot be told yields `None` (the caller falls back to name candidates).

use sextant_model::{NodeKind, RefKind};

use crate::bindings::BindRef;
use crate::files::FileRef;
use crate::input::{Ref, Resolution};
use crate::lists::key_hash;
use crate::pages::Bound;
use crate::resolver::{Resolver, bound_in, bound_named};

/// How many expression steps (call → return type → member → ...) typing follows.
pub const MAX_TYPE_DEPTH: u32 = 4;

/// Type constructors that stand for their first argument when typing a receiver.
const WRAPPERS: &[&str] = &[
    "Optional",
    "Option",
    "Box",
    "Rc",
    "Arc",
    "RefCell",
    "Cell",
    "Mutex",
    "RwLock",
    "Ref",
    "RefMut",
    "Final",
    "ClassVar",
    "Annotated",
    "Readonly",
    "Partial",
    "Required",
    "Promise",
    "Awaitable",
    "Type",
    "type",
    "Nullable",
    "Lazy",
    "Weak",
    "Pin",
    "MutexGuard",
    "Result",
    "Task",
    "ValueTask",
    "Future",
    "CompletableFuture",
    "Deferred",
];

/// Rules that pick a target by name alone.
const GUESSES: &[&str] = &[
    "unique_member",
    "ambiguous_member",
    "unique_global",
    "ambiguous_global",
];

/// Names that mean "no value" in a union (`Store | None`).
const NOTHING: &[&str] = &["None", "null", "undefined", "void", "nil", "NoneType"];

/// Splits `a.b().c` into (`a.b()`, `c`) at the last separator outside brackets
/// (`.`, `?.`, `::`, `->`).
pub(crate) fn split_last(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        match bytes[i] {
            b')' | b']' | b'>' if !(bytes[i] == b'>' && i > 0 && bytes[i - 1] == b'-') => {
                depth += 1
            }
            b'(' | b'[' | b'<' => depth -= 1,
            b'.' if depth == 0 => {
                let prefix = text[..i].trim_end_matches('?');
                return Some((prefix, &text[i + 1..]));
            }
            b':' if depth == 0 && i > 0 && bytes[i - 1] == b':' => {
                return Some((&text[..i - 1], &text[i + 1..]));
            }
            b'>' if depth == 0 && i > 0 && bytes[i - 1] == b'-' => {
                return Some((&text[..i - 1], &text[i + 1..]));
            }
            _ => {}
        }
    }
    None
}

/// The callee of a call expression (`Foo(a, b)` → `Foo`, `new a.Foo()` → `a.Foo`), or `None`
/// when the text does not end with an argument list.
pub(crate) fn callee_of(text: &str) -> Option<&str> {
    let text = text.trim();
    if !text.ends_with(')') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    for i in (0..bytes.len()).rev() {
        match bytes[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    let mut callee = text[..i].trim();
                    // Generic arguments of the call: `make::<T>()`, `make<T>()`.
                    if callee.ends_with('>')
                        && let Some(open) = callee.find('<')
                    {
                        callee = callee[..open].trim_end_matches("::");
                    }
                    let callee = callee.strip_prefix("new ").unwrap_or(callee).trim();
                    return (!callee.is_empty()).then_some(callee);
                }
            }
            _ => {}
        }
    }
    None
}

/// The type name a declared type stands for when it is a receiver: wrappers and sigils removed,
/// the first non-null member of a union, generic arguments dropped. `None` for arrays, tuples,
/// functions and literal types.
pub(crate) fn type_head(text: &str) -> Option<String> {
    let mut t = text.trim();
    for _ in 0..8 {
        t = t.trim_matches(|c| c == '"' || c == '\'' || c == '`').trim();
        for prefix in [
            "&'_ ",
            "&mut ",
            "&",
            "*mut ",
            "*const ",
            "*",
            "mut ",
            "const ",
            "readonly ",
            "?",
            "^",
        ] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest.trim();
            }
        }
        t = t.trim_end_matches(['?', '*', '&', '!']).trim();
        // Lifetimes in Rust references: `&'a Store`.
        if let Some(rest) = t.strip_prefix('\'') {
            t = rest.split_once(' ').map(|(_, r)| r.trim())?;
        }
        // Unions: the first member that is not "nothing".
        if top_level_contains(t, '|') {
            let part = split_top_level(t, '|')
                .into_iter()
                .map(str::trim)
                .find(|p| !NOTHING.contains(p))?;
            t = part;
            continue;
        }
        if t.ends_with("[]") || t.starts_with('(') || t.starts_with('[') || t.starts_with('{') {
            return None;
        }
        let open = t.find(['<', '[']);
        let head = open.map_or(t, |o| &t[..o]).trim();
        let last = head.rsplit(['.', ':']).next().unwrap_or(head);
        if WRAPPERS.contains(&last)
            && let Some(o) = open
        {
            // The closing bracket, when the text has one (a type cut short at a length limit,
            // ending in `…`, has none: never slice inside a multi-byte character).
            let rest = &t[o + 1..];
            let inner = rest.strip_suffix(['>', ']']).unwrap_or(rest);
            t = split_top_level(inner, ',').into_iter().next()?.trim();
            continue;
        }
        if head.is_empty()
            || !head
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '\\' | '$'))
        {
            return None;
        }
        return Some(head.to_string());
    }
    None
}

fn top_level_contains(text: &str, sep: char) -> bool {
    split_top_level(text, sep).len() > 1
}

fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

impl Resolver {
    /// The scopes from a definition outwards, ending with the File node.
    fn scope_chain(&self, src: i64, file_node: i64) -> Vec<i64> {
        let mut out = Vec::with_capacity(6);
        let mut cur = Some(src);
        while let Some(c) = cur {
            if out.len() > 32 {
                break;
            }
            out.push(c);
            cur = self.ix.symbol(c).and_then(|(_, s)| s.parent);
        }
        if out.last() != Some(&file_node) {
            out.push(file_node);
        }
        out
    }

    /// The binding of `name` visible from `src`: innermost scope first; in a scope, the first
    /// with a declared type, else the first with a value, else the first.
    pub(crate) fn binding_of(&self, src: i64, file: FileRef<'_>, name: &str) -> Option<Bound<'_>> {
        let pages = self.pages.as_ref().filter(|_| crate::pages::paged(name));
        let mut page: Option<(i64, std::sync::Arc<crate::pages::Page>)> = None;
        for scope in self.scope_chain(src, file.node) {
            if let Some(pages) = pages {
                let owner = self.scope_file(scope, file);
                let p = match &page {
                    Some((f, p)) if *f == owner => p.clone(),
                    _ => {
                        let p = pages.page(owner);
                        page = Some((owner, p.clone()));
                        p
                    }
                };
                if let Some(i) = first_binding(p.bound(scope, name), |i| p.binds.get(i)) {
                    return Some(Bound::Page(p, i));
                }
                continue;
            }
            let list = self.binds_in_scope.get(
                key_hash(Some(scope), name),
                bound_in(&self.binds, scope, name),
            );
            if let Some(i) = first_binding(list, |i| self.binds.get(i)) {
                return Some(Bound::Table(self.binds.get(i as usize)));
            }
        }
        None
    }

    /// The file whose bindings hold those of `scope` (a definition, or a File node) seen from
    /// `file`.
    fn scope_file(&self, scope: i64, file: FileRef<'_>) -> i64 {
        if scope == file.node {
            return file.id;
        }
        if let Some((_, s)) = self.ix.symbol(scope) {
            return s.file;
        }
        self.ix
            .files
            .iter()
            .find(|f| f.node == scope)
            .map_or(file.id, |f| f.id)
    }

    /// The types a receiver expression has, when bindings and declared types tell.
    pub(crate) fn receiver_types(
        &self,
        r: &Ref,
        file: FileRef<'_>,
        recv: &str,
        depth: u32,
    ) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let recv = recv.trim();
        let rules = self.rules_of(file);
        if let Some(callee) = callee_of(recv) {
            return self.call_types(r, callee, depth + 1);
        }
        let Some((prefix, last)) = split_last(recv) else {
            if rules.self_names.iter().any(|s| s == recv) {
                return self.enclosing_type(r.src).map(|t| vec![t]);
            }
            let b = self.binding_of(r.src, file, recv)?;
            return self.binding_types(b.get(), depth + 1);
        };
        // An attribute assigned in a method of the same type (`self.store = Store()`).
        if rules.self_names.iter().any(|s| s == prefix)
            && let Some(t) = self.enclosing_type(r.src)
            && let Some(found) = self.attribute_types(t, recv, last, depth)
        {
            return Some(found);
        }
        // A typed local named by the whole path (`this.x` bound as such in a constructor).
        if let Some(b) = self.binding_of(r.src, file, recv) {
            return self.binding_types(b.get(), depth + 1);
        }
        let owners = self.receiver_types(r, file, prefix, depth + 1)?;
        let mut out = Vec::new();
        for t in owners {
            if let Some(found) = self.attribute_types(t, &format!("{prefix}.{last}"), last, depth) {
                out.extend(found);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The type of attribute `name` of type `t`: a declared field/property type, else an
    /// assignment `self.name = ...` in one of the type's methods.
    fn attribute_types(&self, t: u32, written: &str, name: &str, depth: u32) -> Option<Vec<u32>> {
        for m in self.member(t, name, 0) {
            let s = self.ix.symbols.get(m as usize);
            if matches!(
                s.kind,
                NodeKind::Field | NodeKind::Property | NodeKind::Variable | NodeKind::Constant
            ) && let Some(text) = &s.type_text
                && let Some(found) = self.type_text_types(text, s.file, s.id)
            {
                return Some(found);
            }
        }
        let list = self
            .binds_named
            .get(key_hash(None, written), bound_named(&self.binds, written));
        for &i in list {
            let b = self.binds.get(i as usize);
            if self.enclosing_type(b.scope) == Some(t)
                && let Some(found) = self.binding_types(b, depth + 1)
            {
                return Some(found);
            }
        }
        None
    }

    fn binding_types(&self, b: BindRef<'_>, depth: u32) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        if let Some(text) = &b.type_text
            && let Some(found) = self.type_text_types(text, b.file, b.scope)
        {
            return Some(found);
        }
        // The callee as written, or a whole call expression (`factory.make()`).
        let value = b.value?;
        let value = callee_of(value).unwrap_or(value);
        let probe = Ref {
            id: -1,
            file: b.file,
            src: b.scope,
            kind: RefKind::Call,
            name: String::new(),
            receiver: None,
            implementor: None,
        };
        self.call_types(&probe, value, depth + 1)
    }

    /// The types a call to `callee` (as written) produces: a type's instance, a constructor's
    /// type, or a function's declared return type.
    fn call_types(&self, r: &Ref, callee: &str, depth: u32) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let (receiver, name) = match split_last(callee) {
            Some((p, n)) => (Some(p.to_string()), n.to_string()),
            None => (None, callee.to_string()),
        };
        let probe = Ref {
            kind: RefKind::Call,
            name,
            receiver,
            implementor: None,
            ..r.clone()
        };
        let Resolution::Edges(edges) = self.resolve_at(&probe, depth + 1) else {
            return None;
        };
        let mut out = Vec::new();
        // Only confident answers type a value: a guess by name would spread to every use.
        for e in edges.iter().filter(|e| !GUESSES.contains(&e.rule)) {
            let Some((i, s)) = self.ix.symbol(e.dst) else {
                continue;
            };
            if s.kind.is_type_like() {
                out.push(i);
            } else if s.kind == NodeKind::Constructor {
                out.extend(self.enclosing_type(s.id));
            } else if let Some(text) = &s.type_text
                && let Some(found) = self.type_text_types(text, s.file, s.id)
            {
                out.extend(found);
            }
        }
        out.sort_unstable();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }

    /// A declared type that names nothing in the repository (`&str`, `testing.T`, `Date`);
    /// false for in-repository names that are not types (aliases of unions, type variables).
    pub(crate) fn type_is_external(&self, text: &str, file: i64, scope: i64) -> bool {
        let Some(head) = type_head(text) else {
            return false;
        };
        let Some(ctx) = self.ix.file(file) else {
            return false;
        };
        let (receiver, name) = match split_last(&head) {
            Some((p, n)) => (Some(p.to_string()), n.to_string()),
            None => (None, head.clone()),
        };
        let probe = Ref {
            id: -1,
            file,
            src: scope,
            kind: RefKind::Read,
            name,
            receiver,
            implementor: None,
        };
        let resolution = match &probe.receiver {
            Some(recv) => self.resolve_with_receiver(&probe, ctx, recv, MAX_TYPE_DEPTH + 1),
            None => self.resolve_at(&probe, MAX_TYPE_DEPTH + 1),
        };
        matches!(resolution, Resolution::Unresolved(u) if u.reason == "external" || u.reason == "no_candidates")
    }

    /// The type symbols a declared type (as written in `file`, inside `scope`) names.
    pub(crate) fn type_text_types(&self, text: &str, file: i64, scope: i64) -> Option<Vec<u32>> {
        let head = type_head(text)?;
        let ctx = self.ix.file(file)?;
        if matches!(head.as_str(), "Self" | "self" | "static" | "this" | "$this") {
            return self.enclosing_type(scope).map(|t| vec![t]);
        }
        let (receiver, name) = match split_last(&head) {
            Some((p, n)) => (Some(p.to_string()), n.to_string()),
            None => (None, head.clone()),
        };
        let probe = Ref {
            id: -1,
            file,
            src: scope,
            kind: RefKind::Type,
            name,
            receiver,
            implementor: None,
        };
        let resolution = match &probe.receiver {
            Some(recv) => self.resolve_with_receiver(&probe, ctx, recv, MAX_TYPE_DEPTH + 1),
            None => self.resolve_at(&probe, MAX_TYPE_DEPTH + 1),
        };
        let Resolution::Edges(edges) = resolution else {
            return None;
        };
        let out: Vec<u32> = edges
            .iter()
            .filter_map(|e| self.ix.symbol(e.dst))
            .filter(|(_, s)| s.kind.is_type_like())
            .map(|(i, _)| i)
            .collect();
        (!out.is_empty()).then_some(out)
    }
}

/// In a scope's list of bindings of a name: the first with a declared type, else the first with
/// a value, else the first.
fn first_binding<'b>(list: &[u32], get: impl Fn(usize) -> BindRef<'b>) -> Option<u32> {
    let at = |i: &u32| get(*i as usize);
    list.iter()
        .find(|i| at(i).type_text.is_some())
        .or_else(|| list.iter().find(|i| at(i).value.is_some()))
        .or_else(|| list.first())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_receivers() {
        assert_eq!(split_last("self.store"), Some(("self", "store")));
        assert_eq!(split_last("a.b().c"), Some(("a.b()", "c")));
        assert_eq!(split_last("f(a.b)"), None);
        assert_eq!(split_last("Foo::new"), Some(("Foo", "new")));
        assert_eq!(split_last("$this->store"), Some(("$this", "store")));
        assert_eq!(split_last("a?.b"), Some(("a", "b")));
        assert_eq!(split_last("x"), None);
    }

    #[test]
    fn finds_callees() {
        assert_eq!(callee_of("Store()"), Some("Store"));
        assert_eq!(callee_of("Store(a, f(b))"), Some("Store"));
        assert_eq!(callee_of("new pkg.Store()"), Some("pkg.Store"));
        assert_eq!(callee_of("a.b(x).c(y)"), Some("a.b(x).c"));
        assert_eq!(callee_of("Vec::<u8>::new()"), Some("Vec::<u8>::new"));
        assert_eq!(callee_of("make::<T>()"), Some("make"));
        assert_eq!(callee_of("store"), None);
    }

    #[test]
    fn type_heads() {
        assert_eq!(type_head("Store").as_deref(), Some("Store"));
        assert_eq!(type_head("Optional[Store]").as_deref(), Some("Store"));
        assert_eq!(type_head("Store | None").as_deref(), Some("Store"));
        assert_eq!(type_head("&mut Store<T>").as_deref(), Some("Store"));
        assert_eq!(type_head("&'a Store").as_deref(), Some("Store"));
        assert_eq!(type_head("Arc<Mutex<Store>>").as_deref(), Some("Store"));
        assert_eq!(type_head("\"Store\"").as_deref(), Some("Store"));
        assert_eq!(type_head("pkg.Store").as_deref(), Some("pkg.Store"));
        assert_eq!(type_head("*Server").as_deref(), Some("Server"));
        assert_eq!(type_head("Store[]"), None);
        assert_eq!(type_head("(a: number) => void"), None);
        assert_eq!(type_head("Promise<Store>").as_deref(), Some("Store"));
        assert_eq!(type_head("Result<Store, Error>").as_deref(), Some("Store"));
        // A declared type cut short (ends in a multi-byte `…`, no closing bracket): no panic.
        assert_eq!(type_head("Promise<Store…").as_deref(), None);
        assert_eq!(
            type_head("Promise<Map<string, Store>…").as_deref(),
            Some("Map")
        );
        let _ = type_head("Promise<é");
        assert_eq!(type_head("Promise<").as_deref(), None);
    }
}
