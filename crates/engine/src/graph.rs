//! Graph queries beyond one hop: type hierarchies and override chains, impact analysis (what a
//! change affects, by distance, with risk labels), shortest dependency paths, and a repository
//! overview. Each runs inside one store snapshot over the active generation.

use std::collections::{BTreeMap, HashMap, HashSet};

use sextant_store::EdgeHit;

use crate::Result;
use crate::query::{Repo, segments, to_symbol, unresolved_site};
use crate::types::*;

/// Edge kinds an impact analysis follows (everything that makes one symbol depend on another).
pub const IMPACT_KINDS: &[&str] = &[
    "calls",
    "instantiates",
    "references",
    "reads",
    "writes",
    "uses_type",
    "inherits",
    "implements",
    "overrides",
    "imports",
];

/// Edge kinds counted for "most central" symbols.
const CENTRAL_KINDS: &[&str] = &["calls", "references", "instantiates", "uses_type"];

/// Node kinds that are containers, not code: never central, not expanded past in an impact walk.
const CONTAINER_KINDS: &[&str] = &[
    "file",
    "document",
    "doc_section",
    "module",
    "package",
    "namespace",
    "directory",
    "repository",
];

const TYPE_KINDS: &[&str] = &[
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "record",
    "union",
];

/// Most nodes one hierarchy level lists.
const HIERARCHY_LEVEL_CAP: usize = 500;
/// Most members a root is expanded into (impact, path).
const MEMBER_CAP: u32 = 5000;
/// Most nodes a path search visits from both ends together.
const PATH_NODE_CAP: usize = 250_000;

pub(crate) fn is_type(kind: &str) -> bool {
    TYPE_KINDS.contains(&kind)
}

pub(crate) fn is_container(kind: &str) -> bool {
    CONTAINER_KINDS.contains(&kind)
}

/// Asserted and inferred edges before ambiguous ones (a per-level cut keeps the surer ones).
fn provenance_rank(p: &str) -> u8 {
    match p {
        "asserted" => 0,
        "observed" => 1,
        "inferred" => 2,
        _ => 3,
    }
}

/// A test by its file: under `tests/`, `test/`, `__tests__/`, `spec/`, or named like a test file
/// (`test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.ts`, `XTest.java`, `x_spec.rb`, `conftest.py`).
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    if parts
        .iter()
        .any(|d| matches!(*d, "tests" | "test" | "__tests__" | "spec" | "specs"))
    {
        return true;
    }
    let stem = file.rsplit_once('.').map(|(s, _)| s).unwrap_or(file);
    file == "conftest.py"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
}

/// A test by its name or annotations: `test_x` / `test`, `TestX` / `Test_x`, a `tests` module
/// (Rust `mod tests`), or an `@Test`-like annotation.
pub(crate) fn is_test_symbol(s: &Symbol) -> bool {
    let name = s.name.as_str();
    let test_prefixed = name.strip_prefix("Test").is_some_and(|rest| {
        rest.chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    let callable_or_type = matches!(s.kind.as_str(), "function" | "method") || is_type(&s.kind);
    (callable_or_type && (name == "test" || name.starts_with("test_") || test_prefixed))
        || segments(&s.qualified_name)
            .iter()
            .rev()
            .skip(1)
            .any(|seg| *seg == "tests" || *seg == "test")
        || s.modifiers
            .iter()
            .any(|m| m.starts_with('@') && (m.contains("Test") || m.contains("pytest")))
}

/// A main function (top level, or a static method such as Java's `main` and C#'s `Main`), or a
/// Python file run as a script.
pub(crate) fn is_entry_point(
    s: &Symbol,
    parent: Option<&Symbol>,
    scripts: &HashSet<String>,
) -> bool {
    if s.kind == "file" {
        return scripts.contains(&s.path) || s.path.rsplit('/').next() == Some("__main__.py");
    }
    if s.name != "main" && s.name != "Main" {
        return false;
    }
    if s.modifiers.iter().any(|m| m == "declaration") {
        return false;
    }
    match s.kind.as_str() {
        "function" => parent.is_none_or(|p| is_container(&p.kind)),
        "method" => s.modifiers.iter().any(|m| m == "static"),
        _ => false,
    }
}

/// Public and reachable from outside its module: a public top-level definition, or a public
/// member of a public top-level type. Tests are never public API.
pub(crate) fn is_public_api(
    s: &Symbol,
    parent: Option<&Symbol>,
    grandparent: Option<&Symbol>,
) -> bool {
    if s.visibility != "public" || matches!(s.kind.as_str(), "file" | "document" | "doc_section") {
        return false;
    }
    match parent {
        None => true,
        Some(p) if is_container(&p.kind) => true,
        Some(p) if is_type(&p.kind) => {
            p.visibility == "public" && grandparent.is_none_or(|g| is_container(&g.kind))
        }
        Some(_) => false,
    }
}

/// Caches symbols by id during one query.
struct Symbols<'a> {
    repo: &'a Repo,
    cache: HashMap<i64, Option<Symbol>>,
}

impl<'a> Symbols<'a> {
    fn new(repo: &'a Repo) -> Self {
        Symbols {
            repo,
            cache: HashMap::new(),
        }
    }

    fn get(&mut self, id: i64) -> Result<Option<Symbol>> {
        if let Some(s) = self.cache.get(&id) {
            return Ok(s.clone());
        }
        let s = self.repo.sym(id)?;
        self.cache.insert(id, s.clone());
        Ok(s)
    }

    fn neighbor(&mut self, hit: EdgeHit) -> Result<Option<Neighbor>> {
        let Some(symbol) = self.get(hit.other)? else {
            return Ok(None);
        };
        Ok(Some(Neighbor {
            symbol,
            edge_kind: hit.kind,
            provenance: hit.provenance,
            confidence: hit.confidence,
            rule: hit.rule,
            site: hit.site.map(|(path, line, col)| Site { path, line, col }),
        }))
    }

    /// Risk labels of a symbol.
    fn labels(&mut self, s: &Symbol, scripts: &HashSet<String>) -> Result<Vec<&'static str>> {
        let parent = match s.parent_id {
            Some(p) => self.get(p)?,
            None => None,
        };
        let grandparent = match parent.as_ref().and_then(|p| p.parent_id) {
            Some(g) => self.get(g)?,
            None => None,
        };
        let mut labels = Vec::new();
        let test = is_test_path(&s.path) || is_test_symbol(s);
        if test {
            labels.push("test");
        }
        if !test && is_public_api(s, parent.as_ref(), grandparent.as_ref()) {
            labels.push("public_api");
        }
        if is_entry_point(s, parent.as_ref(), scripts) {
            labels.push("entry_point");
        }
        Ok(labels)
    }
}

/// Adds one root's completeness into a running total.
fn merge_completeness(total: &mut Completeness, next: Completeness) {
    match (&mut *total, next) {
        (Completeness::Unknown { .. }, _) => {}
        (_, Completeness::Unknown { reason }) => *total = Completeness::Unknown { reason },
        (_, Completeness::Exact) => {}
        (Completeness::Exact, lower) => *total = lower,
        (
            Completeness::LowerBound {
                unresolved,
                ambiguous,
                sample,
            },
            Completeness::LowerBound {
                unresolved: u,
                ambiguous: a,
                sample: s,
            },
        ) => {
            *unresolved += u;
            *ambiguous += a;
            sample.extend(s);
            sample.truncate(5);
        }
    }
}

impl Repo {
    /// Members of a type or a file (every nested definition, and for types the members defined
    /// elsewhere: Rust `impl` blocks, Go methods, C++ out-of-line definitions), or nothing for
    /// other symbols.
    fn members_of(&self, s: &Symbol) -> Result<Vec<i64>> {
        if !is_type(&s.kind) && !is_container(&s.kind) {
            return Ok(Vec::new());
        }
        if matches!(s.kind.as_str(), "document" | "doc_section") {
            return Ok(Vec::new());
        }
        let store = self.store();
        let mut out = store.descendant_ids(s.id, MEMBER_CAP)?;
        if s.kind != "file" {
            let depth = segments(&s.qualified_name).len() + 1;
            let own = segments(&s.qualified_name);
            let mut seen: HashSet<i64> = out.iter().copied().collect();
            for n in store.nodes_with_qname_prefix(self.generation(), &s.qualified_name, 500)? {
                let segs = segments(&n.qname);
                if segs.len() == depth && segs[..depth - 1] == own[..] && seen.insert(n.id) {
                    out.push(n.id);
                    for d in store.descendant_ids(n.id, MEMBER_CAP)? {
                        if seen.insert(d) {
                            out.push(d);
                        }
                    }
                }
            }
        }
        out.truncate(MEMBER_CAP as usize);
        Ok(out)
    }

    /// The members declared directly in a type: its children and those defined elsewhere with
    /// the type's qualified name as prefix (Rust `impl` blocks, Go methods).
    fn direct_members(&self, s: &Symbol) -> Result<Vec<Symbol>> {
        let mut out: Vec<Symbol> = self
            .store()
            .children(s.id)?
            .into_iter()
            .map(to_symbol)
            .collect();
        let own = segments(&s.qualified_name);
        for n in self
            .store()
            .nodes_with_qname_prefix(self.generation(), &s.qualified_name, 500)?
        {
            let segs = segments(&n.qname);
            if segs.len() == own.len() + 1
                && segs[..own.len()] == own[..]
                && !out.iter().any(|m| m.id == n.id)
            {
                out.push(to_symbol(n));
            }
        }
        Ok(out)
    }

    /// Breadth-first walk over edges of `kinds` from `start`, to `depth`, cycle-safe, at most
    /// `cap` nodes per level.
    fn hierarchy_walk(
        &self,
        syms: &mut Symbols<'_>,
        start: i64,
        outgoing: bool,
        kinds: &[&str],
        depth: u32,
        cap: usize,
    ) -> Result<(Vec<HierarchyEntry>, bool)> {
        let mut out = Vec::new();
        let mut truncated = false;
        let mut visited: HashSet<i64> = HashSet::from([start]);
        let mut frontier = vec![start];
        for level in 1..=depth {
            let mut next = Vec::new();
            for &id in &frontier {
                let hits = self
                    .store()
                    .edges_with_sites(self.generation(), id, outgoing, kinds)?;
                for h in hits {
                    if !visited.insert(h.other) {
                        continue;
                    }
                    if next.len() >= cap {
                        truncated = true;
                        continue;
                    }
                    if let Some(neighbor) = syms.neighbor(h)? {
                        // A file stands for an `impl` whose type was not resolved: listed, not
                        // walked past.
                        if !is_container(&neighbor.symbol.kind) {
                            next.push(neighbor.symbol.id);
                        }
                        out.push(HierarchyEntry {
                            depth: level,
                            neighbor,
                            from: id,
                        });
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        Ok((out, truncated))
    }

    /// The hierarchy around a symbol, to `depth` levels (1..=20). For a type: its bases
    /// (outgoing `inherits`/`implements`) and the types deriving from or implementing it
    /// (incoming). For a method (or property): what it overrides and what overrides it
    /// (`overrides` edges, derived from the type hierarchy at index time). Completeness is about
    /// the downward direction: unresolved `inherit`/`implement` sites naming the type (for a
    /// method, its owner type) could be more subtypes.
    pub fn hierarchy(&self, symbol: &Symbol, depth: u32) -> Result<Hierarchy> {
        let depth = depth.clamp(1, 20);
        self.store().snapshot(|_| {
            let mut syms = Symbols::new(self);
            let type_kinds = &["inherits", "implements"];
            let (bases, t1) = self.hierarchy_walk(
                &mut syms,
                symbol.id,
                true,
                type_kinds,
                depth,
                HIERARCHY_LEVEL_CAP,
            )?;
            let (derived, t2) = self.hierarchy_walk(
                &mut syms,
                symbol.id,
                false,
                type_kinds,
                depth,
                HIERARCHY_LEVEL_CAP,
            )?;
            let (overrides, t3) = self.hierarchy_walk(
                &mut syms,
                symbol.id,
                true,
                &["overrides"],
                depth,
                HIERARCHY_LEVEL_CAP,
            )?;
            let (overridden_by, t4) = self.hierarchy_walk(
                &mut syms,
                symbol.id,
                false,
                &["overrides"],
                depth,
                HIERARCHY_LEVEL_CAP,
            )?;
            // The type whose inheritance matters: the symbol, or a member's owner type.
            let owner = if is_type(&symbol.kind) {
                Some(symbol.clone())
            } else {
                match symbol.parent_id {
                    Some(p) => syms.get(p)?.filter(|p| is_type(&p.kind)),
                    None => None,
                }
            };
            let (unresolved_bases, completeness) = match &owner {
                Some(t) => {
                    let unresolved =
                        self.store()
                            .unresolved_bases(self.generation(), t.id, &t.name, &t.path)?;
                    let found: Vec<Neighbor> = derived
                        .iter()
                        .chain(&overridden_by)
                        .filter(|e| e.depth == 1)
                        .map(|e| e.neighbor.clone())
                        .collect();
                    let completeness =
                        self.completeness_in(t, &["inherit", "implement"], &found)?;
                    (
                        unresolved.into_iter().map(unresolved_site).collect(),
                        completeness,
                    )
                }
                None => (Vec::new(), Completeness::Exact),
            };
            Ok(Hierarchy {
                root: symbol.clone(),
                depth,
                bases,
                derived,
                overrides,
                overridden_by,
                unresolved_bases,
                truncated: t1 || t2 || t3 || t4,
                completeness,
            })
        })
    }

    /// What a change to `symbols` affects, breadth first to `depth` (1..=10), at most
    /// `per_level` symbols per level and direction, cycle-safe. Upstream follows incoming
    /// [`IMPACT_KINDS`] edges (who calls, instantiates, reads, writes, names the type of,
    /// inherits from, implements, overrides or imports the roots); downstream follows outgoing
    /// ones (what the roots depend on).
    ///
    /// A root that is a type (class, struct, interface, ...) or a file stands for its members
    /// too: users of a class's methods and fields are users of the class (changing the class
    /// affects them), and what its methods use is what the class depends on. Members themselves
    /// are part of the change and never listed. Files and modules reached on the way (imports,
    /// module-level code) are listed but not walked past: depending on a module that uses a
    /// symbol is not depending on the symbol. Ambiguous edges (a name with several candidates)
    /// are listed, marked `ambiguous`, but not walked past either (a guess of a guess is noise),
    /// except `dispatch` ones (a call on an interface reaching its implementations). Each level
    /// keeps asserted and inferred edges before ambiguous ones when `per_level` cuts it.
    ///
    /// Depth 1 is "will break", 2 "likely affected", 3 and more "may need testing"
    /// ([`ImpactEntry::risk`]). Labels: `test` (test files and test functions), `public_api`
    /// (public top-level definitions and public members of public top-level types),
    /// `entry_point` (main functions, Python scripts).
    pub fn impact(
        &self,
        symbols: &[Symbol],
        direction: ImpactDirection,
        depth: u32,
        per_level: u32,
    ) -> Result<Impact> {
        let depth = depth.clamp(1, 10);
        let per_level = per_level.clamp(1, 100_000);
        self.store().snapshot(|_| {
            let mut syms = Symbols::new(self);
            let scripts: HashSet<String> = self
                .store()
                .files_with_top_level_ref(self.generation(), "__name__")?
                .into_iter()
                .collect();
            let mut roots: Vec<Symbol> = Vec::new();
            for s in symbols {
                if !roots.iter().any(|r| r.id == s.id) {
                    roots.push(s.clone());
                }
            }
            // Each root with its members: the starting points of both walks.
            let mut start: Vec<i64> = Vec::new();
            for r in &roots {
                start.push(r.id);
                start.extend(self.members_of(r)?);
            }
            let mut affected = Vec::new();
            let mut truncated = false;
            let mut completeness = Completeness::Exact;
            let directions: &[ImpactDirection] = match direction {
                ImpactDirection::Upstream => &[ImpactDirection::Upstream],
                ImpactDirection::Downstream => &[ImpactDirection::Downstream],
                ImpactDirection::Both => &[ImpactDirection::Upstream, ImpactDirection::Downstream],
            };
            for &dir in directions {
                let upstream = dir == ImpactDirection::Upstream;
                let (entries, cut, ambiguous) =
                    self.impact_walk(&mut syms, &start, upstream, depth, per_level, &scripts)?;
                truncated |= cut;
                affected.extend(entries);
                let mut c = Completeness::Exact;
                if ambiguous > 0 {
                    c = Completeness::LowerBound {
                        unresolved: 0,
                        ambiguous,
                        sample: Vec::new(),
                    };
                }
                if upstream {
                    // Unresolved sites naming a root or one of its members could be more users.
                    let mut names: Vec<Symbol> = roots.clone();
                    for r in &roots {
                        if is_type(&r.kind) {
                            names.extend(self.direct_members(r)?);
                        }
                    }
                    let mut seen_names = HashSet::new();
                    for n in names {
                        if !seen_names.insert(n.name.clone()) {
                            continue;
                        }
                        merge_completeness(&mut c, self.completeness_in(&n, &[], &[])?);
                    }
                } else {
                    let mut unresolved = 0u64;
                    let mut sample = Vec::new();
                    for &id in &start {
                        for site in self
                            .store()
                            .unresolved_from(self.generation(), id, &[])?
                            .into_iter()
                            .filter(|s| s.reason != "external" && s.reason != "local")
                        {
                            unresolved += 1;
                            if sample.len() < 5 {
                                sample.push(unresolved_site(site));
                            }
                        }
                    }
                    if unresolved > 0 {
                        merge_completeness(
                            &mut c,
                            Completeness::LowerBound {
                                unresolved,
                                ambiguous: 0,
                                sample,
                            },
                        );
                    }
                }
                merge_completeness(&mut completeness, c);
            }
            // Summaries.
            let mut by_depth: BTreeMap<u32, u64> = BTreeMap::new();
            let mut by_label: BTreeMap<&'static str, u64> = BTreeMap::new();
            let mut files: HashMap<String, u64> = HashMap::new();
            let mut tests: Vec<Symbol> = Vec::new();
            let mut test_files: Vec<String> = Vec::new();
            for e in &affected {
                *by_depth.entry(e.depth).or_default() += 1;
                for l in &e.labels {
                    *by_label.entry(l).or_default() += 1;
                }
                *files.entry(e.neighbor.symbol.path.clone()).or_default() += 1;
                if e.labels.contains(&"test") && !tests.iter().any(|t| t.id == e.neighbor.symbol.id)
                {
                    tests.push(e.neighbor.symbol.clone());
                    if !test_files.contains(&e.neighbor.symbol.path) {
                        test_files.push(e.neighbor.symbol.path.clone());
                    }
                }
            }
            test_files.sort();
            let mut files: Counts = files.into_iter().collect();
            files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut by_label: Counts = by_label
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            by_label.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            Ok(Impact {
                roots,
                direction,
                depth,
                per_level,
                affected,
                by_depth: by_depth.into_iter().collect(),
                by_label,
                files,
                tests,
                test_files,
                truncated,
                completeness,
            })
        })
    }

    /// One direction of [`Repo::impact`]: (entries, truncated, ambiguous edges at depth 1).
    fn impact_walk(
        &self,
        syms: &mut Symbols<'_>,
        start: &[i64],
        upstream: bool,
        depth: u32,
        per_level: u32,
        scripts: &HashSet<String>,
    ) -> Result<(Vec<ImpactEntry>, bool, u64)> {
        let direction = if upstream {
            ImpactDirection::Upstream
        } else {
            ImpactDirection::Downstream
        };
        let mut visited: HashSet<i64> = start.iter().copied().collect();
        let mut frontier: Vec<i64> = start.to_vec();
        let mut out = Vec::new();
        let mut truncated = false;
        let mut ambiguous = 0u64;
        for level in 1..=depth {
            // The whole level's edges, surest first, so a cut drops guesses before answers.
            let mut hits: Vec<(i64, EdgeHit)> = Vec::new();
            for &id in &frontier {
                for h in
                    self.store()
                        .edges_with_sites(self.generation(), id, !upstream, IMPACT_KINDS)?
                {
                    hits.push((id, h));
                }
            }
            if level == 1 {
                ambiguous = hits
                    .iter()
                    .filter(|(_, h)| h.provenance == "ambiguous")
                    .count() as u64;
            }
            hits.sort_by_key(|(_, h)| provenance_rank(&h.provenance));
            let mut next = Vec::new();
            let mut count = 0u32;
            for (id, h) in hits {
                // Marked even when cut, so it never reappears at a wrong (deeper) level.
                if !visited.insert(h.other) {
                    continue;
                }
                if count >= per_level {
                    truncated = true;
                    continue;
                }
                let guess = h.provenance == "ambiguous" && h.rule != "dispatch";
                let Some(neighbor) = syms.neighbor(h)? else {
                    continue;
                };
                count += 1;
                if !guess && !is_container(&neighbor.symbol.kind) {
                    next.push(neighbor.symbol.id);
                }
                let from_name = syms.get(id)?.map(|s| s.qualified_name).unwrap_or_default();
                let labels = syms.labels(&neighbor.symbol, scripts)?;
                out.push(ImpactEntry {
                    depth: level,
                    direction,
                    neighbor,
                    from: id,
                    from_name,
                    labels,
                });
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        Ok((out, truncated, ambiguous))
    }

    /// The shortest dependency path from `from` to `to` (see [`Repo::path_search`]), or `None`
    /// when there is none within `max_depth` hops.
    pub fn path(
        &self,
        from: &Symbol,
        to: &Symbol,
        max_depth: u32,
        kinds: &[String],
    ) -> Result<Option<DepPath>> {
        Ok(self.path_search(from, to, max_depth, kinds)?.path)
    }

    /// Searches for the shortest dependency path from `from` to `to` along outgoing edges of
    /// `kinds` (default: every kind except `contains`), at most `max_depth` hops (1..=30):
    /// bidirectional breadth-first search (forward from `from` over outgoing edges, backward from
    /// `to` over incoming ones, always widening the smaller frontier), with every hop's edge
    /// kind, provenance and site. A type or file at either end stands for its members: the path
    /// may start with a `contains` hop into a member of `from` and end with a `member_of` hop
    /// from a member of `to`. Says how far it searched when nothing was found.
    pub fn path_search(
        &self,
        from: &Symbol,
        to: &Symbol,
        max_depth: u32,
        kinds: &[String],
    ) -> Result<PathSearch> {
        let max_depth = max_depth.clamp(1, 30);
        let kinds: Vec<String> = if kinds.is_empty() {
            sextant_model::EdgeKind::ALL
                .iter()
                .filter(|k| **k != sextant_model::EdgeKind::Contains)
                .map(|k| k.as_str().to_string())
                .collect()
        } else {
            kinds.iter().filter(|k| *k != "contains").cloned().collect()
        };
        let kind_refs: Vec<&str> = kinds.iter().map(String::as_str).collect();
        self.store().snapshot(|_| {
            let mut search = PathSearch {
                path: None,
                max_depth,
                searched_depth: 0,
                visited: 2,
                exhausted: false,
                capped: false,
                kinds: kinds.clone(),
            };
            if from.id == to.id {
                search.path = Some(DepPath {
                    from: from.clone(),
                    to: to.clone(),
                    hops: Vec::new(),
                });
                return Ok(search);
            }
            // node → (distance, link toward the end it was reached from). A forward link is
            // (previous node, edge previous → node); a backward link is (next node, edge
            // node → next), both with `other` set to the edge's destination.
            type Links = HashMap<i64, (u32, Option<(i64, EdgeHit)>)>;
            let mut fwd: Links = HashMap::from([(from.id, (0, None))]);
            let mut bwd: Links = HashMap::from([(to.id, (0, None))]);
            let mut fwd_frontier = vec![from.id];
            let mut bwd_frontier = vec![to.id];
            let (mut fd, mut bd) = (0u32, 0u32);
            let member_hit = |other: i64, kind: &str| EdgeHit {
                other,
                kind: kind.to_string(),
                provenance: "asserted".into(),
                confidence: "high".into(),
                rule: "member".into(),
                site: None,
            };
            let mut meet: Option<(u32, i64)> = None;
            // One side has run out of nodes, and the other has taken its first step (which adds
            // the `contains` / `member_of` hops the first side cannot see): no path at any depth.
            let exhausted = |fwd_frontier: &[i64], bwd_frontier: &[i64], fd: u32, bd: u32| {
                (fwd_frontier.is_empty() && bd > 0) || (bwd_frontier.is_empty() && fd > 0)
            };
            while fd + bd < max_depth {
                if exhausted(&fwd_frontier, &bwd_frontier, fd, bd) {
                    break;
                }
                // Each end takes its first step (members), then the smaller frontier widens.
                let forward = if fd == 0 {
                    true
                } else if bd == 0 {
                    false
                } else {
                    fwd_frontier.len() <= bwd_frontier.len()
                };
                let (frontier, links, other_links, dist) = if forward {
                    (&mut fwd_frontier, &mut fwd, &bwd, fd)
                } else {
                    (&mut bwd_frontier, &mut bwd, &fwd, bd)
                };
                let mut next = Vec::new();
                for &id in frontier.iter() {
                    let mut steps: Vec<(i64, EdgeHit)> = Vec::new();
                    if dist == 0 {
                        let end = if forward { from } else { to };
                        for m in self.members_of(end)? {
                            if forward {
                                steps.push((m, member_hit(m, "contains")));
                            } else {
                                steps.push((m, member_hit(to.id, "member_of")));
                            }
                        }
                    }
                    for mut h in
                        self.store()
                            .edges_with_sites(self.generation(), id, forward, &kind_refs)?
                    {
                        let other = h.other;
                        if !forward {
                            h.other = id;
                        }
                        steps.push((other, h));
                    }
                    for (other, hit) in steps {
                        if links.contains_key(&other) {
                            continue;
                        }
                        links.insert(other, (dist + 1, Some((id, hit))));
                        next.push(other);
                        if let Some((d, _)) = other_links.get(&other) {
                            let total = dist + 1 + d;
                            if meet.is_none_or(|(t, _)| total < t) {
                                meet = Some((total, other));
                            }
                        }
                    }
                }
                *frontier = next;
                if forward {
                    fd += 1;
                } else {
                    bd += 1;
                }
                search.visited = (fwd.len() + bwd.len()) as u64;
                if meet.is_some() {
                    break;
                }
                search.searched_depth = fd + bd;
                if fwd.len() + bwd.len() > PATH_NODE_CAP {
                    search.capped = true;
                    break;
                }
            }
            if meet.is_none() && exhausted(&fwd_frontier, &bwd_frontier, fd, bd) {
                search.exhausted = true;
            }
            let Some((total, middle)) = meet else {
                return Ok(search);
            };
            search.searched_depth = total;
            // Walk back to `from`, then forward to `to`.
            let mut raw: Vec<(i64, EdgeHit)> = Vec::new();
            let mut node = middle;
            while let Some((_, Some((prev, hit)))) = fwd.get(&node) {
                raw.push((*prev, hit.clone()));
                node = *prev;
            }
            raw.reverse();
            let mut node = middle;
            while let Some((_, Some((next, hit)))) = bwd.get(&node) {
                raw.push((node, hit.clone()));
                node = *next;
            }
            let mut syms = Symbols::new(self);
            let mut hops = Vec::new();
            for (src, hit) in raw {
                if let Some(neighbor) = syms.neighbor(hit)? {
                    hops.push(PathHop {
                        from: src,
                        neighbor,
                    });
                }
            }
            search.path = Some(DepPath {
                from: from.clone(),
                to: to.clone(),
                hops,
            });
            Ok(search)
        })
    }

    /// The repository at a glance: languages (files, bytes, symbols), totals, areas (top-level
    /// directories; one holding most files is split into its children), entry points (main
    /// functions, Python `__main__` guards and `__main__.py`), the `top` most central symbols by
    /// incoming edges (`calls`, `references`, `instantiates`, `uses_type`; ambiguous edges, files,
    /// documents and tests left out), the `top` largest files, and how fresh the index is.
    pub fn overview(&self, top: usize) -> Result<Overview> {
        let top = top.clamp(1, 1000);
        let head = sextant_git::discover(&self.root)
            .and_then(|w| w.canonicalize().ok())
            .filter(|w| *w == self.root)
            .and_then(|_| sextant_git::head(&self.root).ok());
        self.store().snapshot(|store| {
            let generation = self.generation();
            let info = store.generation(generation)?;
            let files = store.files(generation)?;
            let symbol_counts: HashMap<i64, u64> = store
                .symbol_counts_by_file(generation)?
                .into_iter()
                .collect();
            let symbols_of = |id: i64| symbol_counts.get(&id).copied().unwrap_or(0);

            let mut languages: BTreeMap<String, LanguageShare> = BTreeMap::new();
            for f in &files {
                let l = languages
                    .entry(f.language.clone())
                    .or_insert_with(|| LanguageShare {
                        language: f.language.clone(),
                        files: 0,
                        bytes: 0,
                        symbols: 0,
                    });
                l.files += 1;
                l.bytes += f.size;
                l.symbols += symbols_of(f.id);
            }
            let mut languages: Vec<LanguageShare> = languages.into_values().collect();
            languages.sort_by(|a, b| b.files.cmp(&a.files).then(a.language.cmp(&b.language)));

            let mut areas = areas(
                &files
                    .iter()
                    .map(|f| {
                        (
                            f.path.as_str(),
                            f.size,
                            symbols_of(f.id),
                            f.language.as_str(),
                        )
                    })
                    .collect::<Vec<_>>(),
            );
            let areas_total = areas.len() as u64;
            areas.truncate(top.max(20));

            let mut syms = Symbols::new(self);
            let scripts: HashSet<String> = store
                .files_with_top_level_ref(generation, "__name__")?
                .into_iter()
                .collect();
            let mut entry_points: Vec<EntryPoint> = Vec::new();
            for name in ["main", "Main"] {
                for n in store.nodes_by_name(generation, name, 1000)? {
                    let s = to_symbol(n);
                    let parent = match s.parent_id {
                        Some(p) => syms.get(p)?,
                        None => None,
                    };
                    if is_entry_point(&s, parent.as_ref(), &scripts) {
                        entry_points.push(EntryPoint {
                            kind: "main",
                            path: s.path.clone(),
                            symbol: Some(s),
                        });
                    }
                }
            }
            for f in &files {
                let script = scripts.contains(&f.path) && f.language == "python";
                let package_main = f.path.rsplit('/').next() == Some("__main__.py");
                if script || package_main {
                    entry_points.push(EntryPoint {
                        kind: if package_main {
                            "package_main"
                        } else {
                            "script"
                        },
                        path: f.path.clone(),
                        symbol: syms.get(f.node_id)?,
                    });
                }
            }
            // Programs first; tests, fixtures, examples and build scripts last.
            let rank = |e: &EntryPoint| {
                let sample = e.path.split('/').any(|d| {
                    matches!(
                        d,
                        "fixtures" | "examples" | "example" | "samples" | "testdata" | "build.rs"
                    )
                });
                (
                    is_test_path(&e.path),
                    sample,
                    e.kind != "main",
                    e.path.clone(),
                )
            };
            entry_points.sort_by_key(rank);
            let entry_points_total = entry_points.len() as u64;
            entry_points.truncate(top.max(20));

            // Product code only: test helpers are often the most used symbols of their files.
            let mut central = Vec::new();
            let ranked = store.most_depended_on(
                generation,
                CENTRAL_KINDS,
                CONTAINER_KINDS,
                (top as u32).saturating_mul(4).saturating_add(20),
            )?;
            for (id, incoming, sources) in ranked {
                if central.len() >= top {
                    break;
                }
                if let Some(symbol) = syms.get(id)?
                    && !is_test_path(&symbol.path)
                    && !is_test_symbol(&symbol)
                {
                    central.push(CentralSymbol {
                        symbol,
                        incoming,
                        sources,
                    });
                }
            }

            let mut largest: Vec<FileSize> = files
                .iter()
                .map(|f| FileSize {
                    path: f.path.clone(),
                    language: f.language.clone(),
                    bytes: f.size,
                    lines: f.lines,
                    symbols: symbols_of(f.id),
                })
                .collect();
            largest.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.path.cmp(&b.path)));
            largest.truncate(top);

            let symbols: u64 = symbol_counts.values().sum();
            let edges: u64 = store
                .edge_histogram(generation)?
                .iter()
                .map(|(_, n)| n)
                .sum::<u64>()
                + symbols;
            let commit = info.as_ref().and_then(|i| i.commit.clone());
            let head_commit = head.and_then(|h| h.commit);
            Ok(Overview {
                root: self.root.clone(),
                generation,
                stale: head_commit.is_some() && head_commit != commit,
                commit,
                branch: info.as_ref().and_then(|i| i.branch.clone()),
                indexed_at: info.as_ref().and_then(|i| i.finished_at),
                head_commit,
                uncommitted_files: files.iter().filter(|f| f.uncommitted).count() as u64,
                files: files.len() as u64,
                bytes: files.iter().map(|f| f.size).sum(),
                symbols,
                edges,
                languages,
                areas,
                areas_total,
                entry_points,
                entry_points_total,
                central,
                largest_files: largest,
            })
        })
    }
}

/// Groups files (path, bytes, symbols, language) by top-level directory; while one area holds
/// more than half of the files and splits into several, it is replaced by its children.
fn areas(files: &[(&str, u64, u64, &str)]) -> Vec<Area> {
    // The area of a path at a depth: its first `depth` directories (fewer for shallow files).
    fn area_of(path: &str, depth: usize) -> String {
        let dirs: Vec<&str> = path.split('/').collect();
        let dirs = &dirs[..dirs.len() - 1];
        if dirs.is_empty() {
            ".".to_string()
        } else {
            dirs[..dirs.len().min(depth)].join("/")
        }
    }
    let total = files.len();
    // area path → depth at which it groups files
    let mut depth_of: HashMap<String, usize> = HashMap::new();
    let assign = |depth_of: &HashMap<String, usize>, path: &str| -> String {
        let mut depth = 1;
        loop {
            let a = area_of(path, depth);
            match depth_of.get(&a) {
                Some(&d) if d > depth && area_of(path, depth + 1) != a => depth += 1,
                _ => return a,
            }
        }
    };
    for _ in 0..4 {
        let mut groups: HashMap<String, Vec<&str>> = HashMap::new();
        for (path, ..) in files {
            groups
                .entry(assign(&depth_of, path))
                .or_default()
                .push(path);
        }
        let Some((big, members)) = groups
            .iter()
            .filter(|(a, _)| a.as_str() != ".")
            .max_by_key(|(a, m)| (m.len(), std::cmp::Reverse((*a).clone())))
        else {
            break;
        };
        if members.len() * 2 <= total {
            break;
        }
        let depth = big.split('/').count();
        let children: HashSet<String> = members.iter().map(|p| area_of(p, depth + 1)).collect();
        if children.len() < 2 {
            break;
        }
        depth_of.insert(big.clone(), depth + 1);
    }
    let mut out: BTreeMap<String, (Area, BTreeMap<&str, u64>)> = BTreeMap::new();
    for (path, bytes, symbols, language) in files {
        let a = assign(&depth_of, path);
        let entry = out.entry(a.clone()).or_insert_with(|| {
            (
                Area {
                    path: a,
                    files: 0,
                    bytes: 0,
                    symbols: 0,
                    languages: Vec::new(),
                },
                BTreeMap::new(),
            )
        });
        entry.0.files += 1;
        entry.0.bytes += bytes;
        entry.0.symbols += symbols;
        *entry.1.entry(language).or_default() += 1;
    }
    let mut areas: Vec<Area> = out
        .into_values()
        .map(|(mut a, langs)| {
            a.languages = langs.into_iter().map(|(l, n)| (l.to_string(), n)).collect();
            a.languages
                .sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            a
        })
        .collect();
    areas.sort_by(|a, b| b.files.cmp(&a.files).then(a.path.cmp(&b.path)));
    areas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_and_names() {
        for p in [
            "tests/test_api.py",
            "src/foo/__tests__/x.ts",
            "pkg/server_test.go",
            "web/app.test.ts",
            "web/app.spec.tsx",
            "src/main/java/FooTest.java",
            "test_utils.py",
            "spec/models/user_spec.rb",
            "conftest.py",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/contest.py",
            "src/latest.ts",
            "testing_tools/x.py",
            "src/attest.rs",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn areas_split_a_dominant_directory() {
        let files = [
            ("crates/a/src/lib.rs", 10, 1, "rust"),
            ("crates/a/src/x.rs", 10, 1, "rust"),
            ("crates/b/src/lib.rs", 10, 1, "rust"),
            ("crates/b/tests/t.rs", 10, 1, "rust"),
            ("docs/x.md", 5, 0, "markdown"),
            ("README.md", 5, 0, "markdown"),
        ];
        let areas = areas(&files);
        let names: Vec<(&str, u64)> = areas.iter().map(|a| (a.path.as_str(), a.files)).collect();
        assert_eq!(
            names,
            vec![("crates/a", 2), ("crates/b", 2), (".", 1), ("docs", 1)]
        );
    }
}
