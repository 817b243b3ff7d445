//! Sextant's own executor for the part of tree-sitter's query language our queries use: node
//! patterns with fields, negated fields, anchors, `?`, alternations, wildcards, captures, the text
//! predicates (`#eq?`, `#match?`, `#any-of?` and their negations) and `#set!`.
//!
//! tree-sitter's query cursor advances every in-progress match state at every node; with our
//! 70-150 patterns per language that cost twice to three times a plain walk of the tree. Here one
//! walk looks up, by the node's kind, the few patterns that can start at it and matches each
//! against the node's subtree directly. Compiling is a parse of the query source (microseconds,
//! against 0.1-0.6 s for tree-sitter's compile of a large query).
//!
//! Semantics follow tree-sitter's where our extraction depends on them (`tests/fixtures.rs`
//! compares the two on every fixture, `examples/matchers.rs` on whole corpora):
//! - a child pattern matches a direct visible child, in order, skipping any siblings unless
//!   anchored; an anchor (`.`) skips anonymous nodes only; a trailing anchor makes the last child
//!   pattern match the last named child;
//! - `(_)` matches any named node but ERROR, `_` any node but ERROR; no pattern starts at an
//!   ERROR node through a wildcard;
//! - a pattern that matches one node in several ways gives one match per way, except that a match
//!   whose captures are a subset of another's is dropped (tree-sitter's longest match, which is
//!   what makes `(type)? @type` capture the type when there is one);
//! - a predicate on a capture that captured nothing holds;
//! - one pattern at one node gives at most 65,536 matches and follows at most 2^20 nodes (as
//!   tree-sitter's cursor caps its in-progress matches); past that the file gets a
//!   `query_limit` diagnostic.
//!
//! A query using anything else (quantifiers `*`/`+`, sibling sequences, supertypes, other
//! predicates) does not compile here: extraction then uses tree-sitter's cursor.

use crate::flatten::{Flat, FlatNode, NONE};
use regex::bytes::Regex;
use rustc_hash::FxHashMap;
use tree_sitter::{Language as Grammar, Node, Tree};

/// Why a query cannot run on this executor.
#[derive(Debug)]
pub(crate) struct Unsupported(pub String);

/// A compiled query.
pub(crate) struct Program {
    patterns: Vec<Pattern>,
    /// By node kind id: (pattern, root alternative) starting at nodes of that kind, in pattern
    /// order.
    by_kind: Vec<Vec<(u32, u16)>>,
    /// Rooted at `(_)` (any named node) or `_` (any node).
    any_named: Vec<(u32, u16)>,
    any: Vec<(u32, u16)>,
    /// By kind id: an anonymous kind some pattern names (`"namespace"`); with a `_` anywhere,
    /// every anonymous kind. Other anonymous leaves (punctuation) stay out of the flat tree.
    anonymous: Vec<bool>,
    /// Capture names by index.
    pub capture_names: Vec<String>,
}

struct Pattern {
    roots: Vec<NodePat>,
    predicates: Vec<Predicate>,
    /// `(#set! key value)` settings.
    properties: Vec<(String, Option<String>)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Symbol(u16),
    AnyNamed,
    Any,
}

#[derive(Clone)]
struct NodePat {
    kind: Kind,
    field: Option<u16>,
    captures: Vec<u32>,
    negated: Vec<u16>,
    items: Vec<Item>,
    /// A `.` after the last child pattern: it must match the last named child.
    anchor_end: bool,
}

#[derive(Clone)]
struct Item {
    alts: Vec<NodePat>,
    optional: bool,
    /// A `.` before it: no named node between the previous match (or the first child) and this.
    anchored: bool,
}

enum Predicate {
    Eq {
        capture: u32,
        value: Value,
        positive: bool,
    },
    Match {
        capture: u32,
        regex: Regex,
        positive: bool,
    },
    AnyOf {
        capture: u32,
        values: Vec<String>,
        positive: bool,
    },
}

enum Value {
    Text(String),
    Capture(u32),
}

/// One match's captures: (capture index, node), in pattern order.
pub(crate) type Captures<'t> = Vec<(u32, Node<'t>)>;

impl Program {
    /// Compiles `source` for `grammar`.
    pub fn compile(grammar: &Grammar, source: &str) -> Result<Program, Unsupported> {
        let tokens = tokenize(source)?;
        let mut parser = QueryParser {
            tokens,
            at: 0,
            grammar,
            capture_names: Vec::new(),
            anonymous: Vec::new(),
            any_node: false,
        };
        let mut patterns = Vec::new();
        while parser.at < parser.tokens.len() {
            patterns.push(parser.pattern()?);
        }
        let mut by_kind: Vec<Vec<(u32, u16)>> = vec![Vec::new(); grammar.node_kind_count() + 1];
        let mut any_named = Vec::new();
        let mut any = Vec::new();
        for (p, pattern) in patterns.iter().enumerate() {
            for (a, root) in pattern.roots.iter().enumerate() {
                let entry = (p as u32, a as u16);
                match root.kind {
                    Kind::Symbol(id) => {
                        let id = id as usize;
                        if id >= by_kind.len() {
                            by_kind.resize(id + 1, Vec::new());
                        }
                        by_kind[id].push(entry);
                    }
                    Kind::AnyNamed => any_named.push(entry),
                    Kind::Any => any.push(entry),
                }
            }
        }
        let mut anonymous = vec![parser.any_node; by_kind.len()];
        for id in parser.anonymous {
            if let Some(a) = anonymous.get_mut(id as usize) {
                *a = true;
            }
        }
        Ok(Program {
            patterns,
            by_kind,
            any_named,
            any,
            anonymous,
            capture_names: parser.capture_names,
        })
    }

    /// The kinds the flat tree keeps even as anonymous leaves: those a pattern names, and those
    /// `watched`.
    fn keep(&self, watched: &[bool]) -> Vec<bool> {
        let len = self.anonymous.len().max(watched.len());
        (0..len)
            .map(|k| {
                self.anonymous.get(k).copied().unwrap_or(false)
                    || watched.get(k).copied().unwrap_or(false)
            })
            .collect()
    }

    /// The `#set!` value of `key` in a pattern.
    pub fn property(&self, pattern: usize, key: &str) -> Option<&str> {
        self.patterns[pattern]
            .properties
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Runs the query over the tree: `on_match(pattern, captures)` for every match, in the order
    /// tree-sitter's cursor gives them (by the node each match ends at, in pre-order; then by the
    /// depth of the node it starts at, then by pattern). `on_node` sees every node whose kind
    /// `watched` marks, first, in pre-order.
    /// Returns the first node where matching a pattern was cut short (`MAX_STEPS`): matches
    /// there may be missing; and the flat tree it matched on (which answers parents cheaply).
    pub fn run<'t>(
        &self,
        tree: &'t Tree,
        text: &[u8],
        watched: &[bool],
        mut on_node: impl FnMut(Node<'t>),
        mut on_match: impl FnMut(usize, &[(u32, Node<'t>)], &Flat<'t>),
    ) -> (Option<Node<'t>>, Flat<'t>) {
        let flat = Flat::of(tree, text.len(), &self.keep(watched));
        for n in &flat.nodes {
            if watched.get(n.kind as usize) == Some(&true) {
                on_node(n.node());
            }
        }
        let mut candidates: Vec<(u32, u16)> = Vec::new();
        let mut ways: Vec<Way> = Vec::new();
        // The captures of every way, each way's a range of this one vector: no allocation per way.
        // A median file of our corpora has 0.3-1.1 captures and 0.17-0.5 matches per node.
        let mut arena: Captures<'t> = Vec::with_capacity(flat.nodes.len() + flat.nodes.len() / 4);
        // (end node, start depth, pattern, way) of every match.
        let mut found: Vec<(u32, u32, u32, Way)> = Vec::with_capacity(flat.nodes.len() / 2);
        let mut search = Search {
            flat: &flat,
            caps: Vec::new(),
            steps: 0,
        };
        let mut cut_short: Option<Node<'t>> = None;
        for (i, n) in flat.nodes.iter().enumerate() {
            let by_kind = self
                .by_kind
                .get(n.kind as usize)
                .map_or(&[][..], |v| &v[..]);
            let wild =
                !n.error && (!self.any.is_empty() || (n.named && !self.any_named.is_empty()));
            let list: &[(u32, u16)] = if wild {
                candidates.clear();
                candidates.extend_from_slice(by_kind);
                candidates.extend_from_slice(&self.any);
                if n.named {
                    candidates.extend_from_slice(&self.any_named);
                }
                candidates.sort_unstable();
                &candidates
            } else {
                by_kind
            };
            for &(p, a) in list {
                let pattern = &self.patterns[p as usize];
                let root = &pattern.roots[a as usize];
                if !may_match(&flat, root, i as u32, true) {
                    continue;
                }
                ways.clear();
                search.steps = 0;
                match_node(&mut search, root, i as u32, true, &mut |search, end| {
                    let start = arena.len() as u32;
                    arena.extend_from_slice(&search.caps);
                    ways.push(Way {
                        caps: start..arena.len() as u32,
                        end,
                    });
                    if ways.len() >= MAX_WAYS {
                        search.steps = MAX_STEPS + 1;
                    }
                });
                if search.steps > MAX_STEPS {
                    cut_short = cut_short.or(Some(n.node()));
                }
                // As tree-sitter: the longest match first, then the predicates (a longer way
                // that fails them does not give way to a shorter one).
                longest(&mut ways, &arena);
                ways.retain(|w| predicates_hold(&pattern.predicates, w.of(&arena), text));
                for way in ways.drain(..) {
                    found.push((way.end, n.depth, p, way));
                }
            }
        }
        // Stable: the ways of one pattern at one node keep their order.
        found.sort_by_key(|(end, start_depth, p, _)| (*end, *start_depth, *p));
        for (_, _, p, way) in &found {
            on_match(*p as usize, way.of(&arena), &flat);
        }
        (cut_short, flat)
    }
}

/// One way of matching: its captures (a range of the run's capture arena) and the pre-order
/// index of the last node it matched.
struct Way {
    caps: std::ops::Range<u32>,
    end: u32,
}

impl Way {
    fn of<'a, 't>(&self, arena: &'a Captures<'t>) -> &'a [(u32, Node<'t>)] {
        &arena[self.caps.start as usize..self.caps.end as usize]
    }
}

fn kind_matches(kind: Kind, n: &FlatNode<'_>) -> bool {
    match kind {
        Kind::Symbol(id) => n.kind == id,
        Kind::AnyNamed => n.named && !n.error,
        Kind::Any => !n.error,
    }
}

/// Whether `pat` may match node `i`: its kind, field and negated fields, and for each child
/// pattern that must match, some child that may (order and anchors aside). Most patterns tried
/// at a node fail; this rejects them without building ways.
fn may_match(flat: &Flat<'_>, pat: &NodePat, i: u32, root: bool) -> bool {
    let n = &flat.nodes[i as usize];
    if !kind_matches(pat.kind, n) || (!root && pat.field.is_some_and(|f| f != n.field)) {
        return false;
    }
    if !pat.negated.is_empty()
        && flat
            .children(i)
            .any(|c| pat.negated.contains(&flat.nodes[c as usize].field))
    {
        return false;
    }
    pat.items.iter().filter(|item| !item.optional).all(|item| {
        flat.children(i)
            .any(|c| item.alts.iter().any(|alt| may_match(flat, alt, c, false)))
    })
}

/// Work allowed for matching one pattern at one node, in nodes tried (a guard against
/// combinatorial blow-ups on huge sibling lists; our patterns never come near it). Past it the
/// ways not yet followed are dropped and the file gets a `query_limit` diagnostic.
const MAX_STEPS: usize = 1 << 20;

/// At most this many matches of one pattern at one node (tree-sitter's cursor keeps as many
/// in-progress matches in all); past it, as past `MAX_STEPS`.
const MAX_WAYS: usize = 1 << 16;

/// Matching one pattern at one node: the flat tree, the captures of the way being followed (a
/// stack: pushed on the way down, truncated on the way back) and the work done.
struct Search<'f, 't> {
    flat: &'f Flat<'t>,
    caps: Captures<'t>,
    steps: usize,
}

/// Follows every way `pat` matches node `i` (at the root of the pattern when `root`, where its
/// field does not count), calling `then(search, end)` with each way's captures on
/// `search.caps` and the pre-order index of the last node it matched. Ways come in
/// tree-sitter's order: by the choices at the first child pattern (children in order, a skipped
/// optional last), then at the next.
fn match_node<'t>(
    search: &mut Search<'_, 't>,
    pat: &NodePat,
    i: u32,
    root: bool,
    then: &mut dyn FnMut(&mut Search<'_, 't>, u32),
) {
    search.steps += 1;
    if search.steps > MAX_STEPS {
        return;
    }
    let flat = search.flat;
    let n = &flat.nodes[i as usize];
    if !kind_matches(pat.kind, n) {
        return;
    }
    if !root && pat.field.is_some_and(|f| f != n.field) {
        return;
    }
    if !pat.negated.is_empty()
        && flat
            .children(i)
            .any(|c| pat.negated.contains(&flat.nodes[c as usize].field))
    {
        return;
    }
    let mark = search.caps.len();
    search
        .caps
        .extend(pat.captures.iter().map(|&c| (c, n.node())));
    match_items(search, pat, 0, n.first_child, i, then);
    search.caps.truncate(mark);
}

/// Follows the ways `pat`'s child patterns from `item` on match children from `pos` on, the way
/// so far having ended at node `end`.
fn match_items<'t>(
    search: &mut Search<'_, 't>,
    pat: &NodePat,
    item: usize,
    pos: u32,
    end: u32,
    then: &mut dyn FnMut(&mut Search<'_, 't>, u32),
) {
    let flat = search.flat;
    let Some(current) = pat.items.get(item) else {
        if pat.anchor_end {
            let mut j = pos;
            while j != NONE {
                let c = &flat.nodes[j as usize];
                if c.named {
                    return;
                }
                j = c.next_sibling;
            }
        }
        then(search, end);
        return;
    };
    let mut j = pos;
    while j != NONE {
        let child = &flat.nodes[j as usize];
        for alt in &current.alts {
            if !kind_matches(alt.kind, child) || alt.field.is_some_and(|f| f != child.field) {
                continue;
            }
            let next = child.next_sibling;
            match_node(
                search,
                alt,
                j,
                false,
                &mut |search: &mut Search<'_, 't>, end| {
                    match_items(search, pat, item + 1, next, end, then)
                },
            );
        }
        // An anchored pattern cannot skip a named node.
        if (current.anchored && child.named) || search.steps > MAX_STEPS {
            break;
        }
        j = child.next_sibling;
    }
    if current.optional {
        match_items(search, pat, item + 1, pos, end, then);
    }
}

fn node_text<'a>(node: Node<'_>, text: &'a [u8]) -> &'a [u8] {
    text.get(node.start_byte()..node.end_byte())
        .unwrap_or_default()
}

fn predicates_hold(predicates: &[Predicate], caps: &[(u32, Node<'_>)], text: &[u8]) -> bool {
    let nodes = |c: u32| caps.iter().filter(move |(i, _)| *i == c).map(|(_, n)| *n);
    predicates.iter().all(|p| match p {
        Predicate::Eq {
            capture,
            value: Value::Text(s),
            positive,
        } => nodes(*capture).all(|n| (node_text(n, text) == s.as_bytes()) == *positive),
        Predicate::Eq {
            capture,
            value: Value::Capture(other),
            positive,
        } => {
            let a: Vec<Node<'_>> = nodes(*capture).collect();
            let b: Vec<Node<'_>> = nodes(*other).collect();
            a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(x, y)| (node_text(*x, text) == node_text(*y, text)) == *positive)
        }
        Predicate::Match {
            capture,
            regex,
            positive,
        } => nodes(*capture).all(|n| regex.is_match(node_text(n, text)) == *positive),
        Predicate::AnyOf {
            capture,
            values,
            positive,
        } => nodes(*capture).all(|n| {
            let t = node_text(n, text);
            values.iter().any(|v| v.as_bytes() == t) == *positive
        }),
    })
}

/// Drops repeated ways and ways whose captures are a strict subset of another's. A way is only
/// compared with the ways sharing its rarest capture: a node with 40,000 children matched one
/// way each (an array of identifiers) costs linear time, not quadratic.
fn longest(ways: &mut Vec<Way>, arena: &Captures<'_>) {
    if ways.len() < 2 {
        return;
    }
    let keys: Vec<Vec<(u32, usize)>> = ways
        .iter()
        .map(|way| {
            let mut k: Vec<(u32, usize)> =
                way.of(arena).iter().map(|(c, n)| (*c, n.id())).collect();
            k.sort_unstable();
            k.dedup();
            k
        })
        .collect();
    let mut by_entry: FxHashMap<(u32, usize), Vec<usize>> = FxHashMap::default();
    for (j, key) in keys.iter().enumerate() {
        for &entry in key {
            by_entry.entry(entry).or_default().push(j);
        }
    }
    let subset =
        |a: &[(u32, usize)], b: &[(u32, usize)]| a.iter().all(|x| b.binary_search(x).is_ok());
    let everyone: Vec<usize> = (0..ways.len()).collect();
    let mut keep = vec![true; ways.len()];
    for i in 0..ways.len() {
        let a = &keys[i];
        // Every way containing `a` shares its rarest entry (an empty `a` is in every way).
        let candidates = a
            .iter()
            .map(|e| &by_entry[e])
            .min_by_key(|list| list.len())
            .unwrap_or(&everyone);
        for &j in candidates {
            if j == i || !keep[j] {
                continue;
            }
            let b = &keys[j];
            #[cfg(test)]
            tests::COMPARISONS.with(|c| c.set(c.get() + 1));
            // Equal: keep the first; strict subset: drop.
            if (a == b && j < i) || (a.len() < b.len() && subset(a, b)) {
                keep[i] = false;
                break;
            }
        }
    }
    let mut k = 0;
    ways.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

// ---- parsing the query source

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    OpenAlt,
    CloseAlt,
    Str(String),
    /// A node kind, field name, `_`, or predicate name (`#eq?`).
    Word(String),
    Capture(String),
    Colon,
    Dot,
    Bang,
    Quantifier(char),
}

fn tokenize(source: &str) -> Result<Vec<Token>, Unsupported> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let word =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'?' | b'!' | b'#');
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b if b.is_ascii_whitespace() => {}
            b'(' => tokens.push(Token::Open),
            b')' => tokens.push(Token::Close),
            b'[' => tokens.push(Token::OpenAlt),
            b']' => tokens.push(Token::CloseAlt),
            b':' => tokens.push(Token::Colon),
            b'.' => tokens.push(Token::Dot),
            b'!' => tokens.push(Token::Bang),
            b'?' | b'*' | b'+' => tokens.push(Token::Quantifier(b as char)),
            b'"' => {
                let mut s = Vec::new();
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' && i + 1 < bytes.len() {
                        i += 1;
                        s.push(match bytes[i] {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'0' => b'\0',
                            other => other,
                        });
                    } else {
                        s.push(bytes[i]);
                    }
                    i += 1;
                }
                if i >= bytes.len() {
                    return Err(Unsupported("unterminated string".into()));
                }
                tokens.push(Token::Str(
                    String::from_utf8(s).map_err(|_| Unsupported("string is not UTF-8".into()))?,
                ));
            }
            b'@' => {
                let start = i + 1;
                let mut end = start;
                while end < bytes.len() && word(bytes[end]) && bytes[end] != b'?' {
                    end += 1;
                }
                tokens.push(Token::Capture(source[start..end].to_string()));
                i = end;
                continue;
            }
            b if word(b) => {
                let start = i;
                let mut end = start;
                // `?` and `!` end a word unless it is a predicate name (`#eq?`, `#set!`); a
                // `.` is part of it between letters (`import.name`), an anchor otherwise.
                while end < bytes.len()
                    && word(bytes[end])
                    && (bytes[start] == b'#' || !matches!(bytes[end], b'?' | b'!'))
                    && (bytes[end] != b'.'
                        || bytes
                            .get(end + 1)
                            .is_some_and(|b| b.is_ascii_alphanumeric()))
                {
                    end += 1;
                }
                tokens.push(Token::Word(source[start..end].to_string()));
                i = end;
                continue;
            }
            other => {
                return Err(Unsupported(format!(
                    "unexpected character {:?} in the query",
                    other as char
                )));
            }
        }
        i += 1;
    }
    Ok(tokens)
}

struct QueryParser<'g> {
    tokens: Vec<Token>,
    at: usize,
    grammar: &'g Grammar,
    capture_names: Vec<String>,
    /// Anonymous kinds named, and whether `_` (any node) occurs.
    anonymous: Vec<u16>,
    any_node: bool,
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(what.into()))
}

impl QueryParser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn peek2(&self) -> Option<&Token> {
        self.tokens.get(self.at + 1)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, token: Token) -> Result<(), Unsupported> {
        match self.next() {
            Some(t) if t == token => Ok(()),
            other => unsupported(format!("expected {token:?}, found {other:?}")),
        }
    }

    fn capture(&mut self, name: String) -> u32 {
        match self.capture_names.iter().position(|n| *n == name) {
            Some(i) => i as u32,
            None => {
                self.capture_names.push(name);
                (self.capture_names.len() - 1) as u32
            }
        }
    }

    /// One top-level pattern.
    fn pattern(&mut self) -> Result<Pattern, Unsupported> {
        let mut predicates = Vec::new();
        let mut properties = Vec::new();
        let (roots, optional) = self.expression(&mut predicates, &mut properties)?;
        if optional {
            return unsupported("a quantified top-level pattern");
        }
        Ok(Pattern {
            roots,
            predicates,
            properties,
        })
    }

    /// An expression with its quantifier and captures: the alternatives it can match and
    /// whether it is optional.
    fn expression(
        &mut self,
        predicates: &mut Vec<Predicate>,
        properties: &mut Vec<(String, Option<String>)>,
    ) -> Result<(Vec<NodePat>, bool), Unsupported> {
        let mut alts = match self.next() {
            Some(Token::Open) => match self.peek().cloned() {
                Some(Token::Word(w)) if !w.starts_with('#') => {
                    self.at += 1;
                    vec![self.node(&w, predicates, properties)?]
                }
                // A group: one expression and predicates.
                Some(Token::Open | Token::OpenAlt | Token::Str(_)) => {
                    let mut inner: Option<Vec<NodePat>> = None;
                    loop {
                        match self.peek() {
                            Some(Token::Close) => {
                                self.at += 1;
                                break;
                            }
                            Some(Token::Open) if matches!(self.peek2(), Some(Token::Word(w)) if w.starts_with('#')) =>
                            {
                                self.predicate(predicates, properties)?;
                            }
                            Some(_) => {
                                if inner.is_some() {
                                    return unsupported("a sequence of sibling patterns");
                                }
                                let (alts, optional) = self.expression(predicates, properties)?;
                                if optional {
                                    return unsupported("a quantified pattern in a group");
                                }
                                inner = Some(alts);
                            }
                            None => return unsupported("unclosed group"),
                        }
                    }
                    match inner {
                        Some(alts) => alts,
                        None => return unsupported("an empty group"),
                    }
                }
                other => return unsupported(format!("unexpected {other:?} after '('")),
            },
            Some(Token::OpenAlt) => {
                let mut alts = Vec::new();
                loop {
                    match self.peek() {
                        Some(Token::CloseAlt) => {
                            self.at += 1;
                            break;
                        }
                        Some(Token::Open) if matches!(self.peek2(), Some(Token::Word(w)) if w.starts_with('#')) =>
                        {
                            self.predicate(predicates, properties)?;
                        }
                        Some(_) => {
                            let field = self.field_prefix()?;
                            let (mut inner, optional) = self.expression(predicates, properties)?;
                            if optional {
                                return unsupported("a quantified alternative");
                            }
                            if let Some(f) = field {
                                for alt in &mut inner {
                                    alt.field = Some(f);
                                }
                            }
                            alts.extend(inner);
                        }
                        None => return unsupported("unclosed alternation"),
                    }
                }
                alts
            }
            Some(Token::Str(s)) => {
                let id = self.grammar.id_for_node_kind(&s, false);
                if id == 0 {
                    return unsupported(format!("unknown anonymous node {s:?}"));
                }
                self.anonymous.push(id);
                vec![leaf(Kind::Symbol(id))]
            }
            Some(Token::Word(w)) if w == "_" => {
                self.any_node = true;
                vec![leaf(Kind::Any)]
            }
            other => return unsupported(format!("unexpected {other:?}")),
        };
        let mut optional = false;
        if let Some(Token::Quantifier(q)) = self.peek() {
            if *q != '?' {
                return unsupported(format!("the quantifier {q}"));
            }
            optional = true;
            self.at += 1;
        }
        while let Some(Token::Capture(name)) = self.peek().cloned() {
            self.at += 1;
            let c = self.capture(name);
            for alt in &mut alts {
                alt.captures.push(c);
            }
        }
        Ok((alts, optional))
    }

    /// `name:` before an expression.
    fn field_prefix(&mut self) -> Result<Option<u16>, Unsupported> {
        if let (Some(Token::Word(w)), Some(Token::Colon)) = (self.peek(), self.peek2()) {
            let w = w.clone();
            self.at += 2;
            return match self.grammar.field_id_for_name(&w) {
                Some(f) => Ok(Some(f.get())),
                None => unsupported(format!("unknown field {w}")),
            };
        }
        Ok(None)
    }

    /// The rest of `(kind ...)`, after the kind.
    fn node(
        &mut self,
        kind: &str,
        predicates: &mut Vec<Predicate>,
        properties: &mut Vec<(String, Option<String>)>,
    ) -> Result<NodePat, Unsupported> {
        let kind = if kind == "_" {
            Kind::AnyNamed
        } else {
            if kind.contains('/') {
                return unsupported("a supertype path");
            }
            let id = self.grammar.id_for_node_kind(kind, true);
            if id == 0 {
                return unsupported(format!("unknown node kind {kind}"));
            }
            if self.grammar.node_kind_is_supertype(id) {
                // tree-sitter matches a node reached through the hidden supertype node, which
                // its Rust API does not show: write the kinds out (`[(user_type) ...]`).
                return unsupported(format!("the supertype {kind}"));
            }
            Kind::Symbol(id)
        };
        let mut pat = leaf(kind);
        let mut anchored = false;
        loop {
            match self.peek().cloned() {
                Some(Token::Close) => {
                    self.at += 1;
                    pat.anchor_end = anchored;
                    return Ok(pat);
                }
                Some(Token::Dot) => {
                    self.at += 1;
                    anchored = true;
                }
                Some(Token::Bang) => {
                    self.at += 1;
                    match self.next() {
                        Some(Token::Word(w)) => match self.grammar.field_id_for_name(&w) {
                            Some(f) => pat.negated.push(f.get()),
                            None => return unsupported(format!("unknown field {w}")),
                        },
                        other => return unsupported(format!("unexpected {other:?} after '!'")),
                    }
                }
                Some(Token::Open) if matches!(self.peek2(), Some(Token::Word(w)) if w.starts_with('#')) =>
                {
                    self.predicate(predicates, properties)?;
                }
                Some(_) => {
                    let field = self.field_prefix()?;
                    let (mut alts, optional) = self.expression(predicates, properties)?;
                    if let Some(f) = field {
                        for alt in &mut alts {
                            alt.field = Some(f);
                        }
                    }
                    pat.items.push(Item {
                        alts,
                        optional,
                        anchored,
                    });
                    anchored = false;
                }
                None => return unsupported("unclosed node pattern"),
            }
        }
    }

    /// `(#name args...)`.
    fn predicate(
        &mut self,
        predicates: &mut Vec<Predicate>,
        properties: &mut Vec<(String, Option<String>)>,
    ) -> Result<(), Unsupported> {
        self.expect(Token::Open)?;
        let Some(Token::Word(name)) = self.next() else {
            return unsupported("a predicate without a name");
        };
        let mut args = Vec::new();
        loop {
            match self.next() {
                Some(Token::Close) => break,
                Some(t @ (Token::Capture(_) | Token::Str(_) | Token::Word(_))) => args.push(t),
                other => return unsupported(format!("unexpected {other:?} in {name}")),
            }
        }
        let capture_arg = |this: &mut Self, t: &Token| -> Result<u32, Unsupported> {
            match t {
                Token::Capture(c) => Ok(this.capture(c.clone())),
                other => unsupported(format!("{name} expects a capture, found {other:?}")),
            }
        };
        let text_arg = |t: &Token| -> Option<String> {
            match t {
                Token::Str(s) | Token::Word(s) => Some(s.clone()),
                _ => None,
            }
        };
        match name.as_str() {
            "#eq?" | "#not-eq?" => {
                if args.len() != 2 {
                    return unsupported(format!("{name} takes two arguments"));
                }
                let capture = capture_arg(self, &args[0])?;
                let value = match &args[1] {
                    Token::Capture(c) => Value::Capture(self.capture(c.clone())),
                    t => Value::Text(text_arg(t).unwrap_or_default()),
                };
                predicates.push(Predicate::Eq {
                    capture,
                    value,
                    positive: name == "#eq?",
                });
            }
            "#match?" | "#not-match?" => {
                if args.len() != 2 {
                    return unsupported(format!("{name} takes two arguments"));
                }
                let capture = capture_arg(self, &args[0])?;
                let pattern = text_arg(&args[1]).unwrap_or_default();
                let regex = Regex::new(&pattern)
                    .map_err(|e| Unsupported(format!("regex {pattern:?}: {e}")))?;
                predicates.push(Predicate::Match {
                    capture,
                    regex,
                    positive: name == "#match?",
                });
            }
            "#any-of?" | "#not-any-of?" => {
                let Some((first, rest)) = args.split_first() else {
                    return unsupported(format!("{name} takes arguments"));
                };
                let capture = capture_arg(self, first)?;
                let values = rest.iter().filter_map(text_arg).collect();
                predicates.push(Predicate::AnyOf {
                    capture,
                    values,
                    positive: name == "#any-of?",
                });
            }
            "#set!" => {
                let key = args.first().and_then(text_arg);
                let value = args.get(1).and_then(text_arg);
                match key {
                    Some(key) if args.len() <= 2 => properties.push((key, value)),
                    _ => return unsupported("#set! with other than a key and a value"),
                }
            }
            other => return unsupported(format!("the predicate {other}")),
        }
        Ok(())
    }
}

fn leaf(kind: Kind) -> NodePat {
    NodePat {
        kind,
        field: None,
        captures: Vec::new(),
        negated: Vec::new(),
        items: Vec::new(),
        anchor_end: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

    /// Every match as (pattern, [(capture name, start..end)]), in order: ours and tree-sitter's.
    type Listed = Vec<(usize, Vec<(String, std::ops::Range<usize>)>)>;

    fn both(language: &str, query: &str, source: &str) -> (Listed, Listed) {
        let registry = sextant_lang::Registry::builtin().unwrap();
        let grammar = &registry.get(language).unwrap().grammar;
        let mut parser = Parser::new();
        parser.set_language(grammar).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let program = Program::compile(grammar, query).unwrap_or_else(|e| panic!("{}", e.0));
        let mut ours = Vec::new();
        program.run(
            &tree,
            source.as_bytes(),
            &[],
            |_| {},
            |p, caps, _| {
                let caps = caps
                    .iter()
                    .map(|(c, n)| (program.capture_names[*c as usize].clone(), n.byte_range()))
                    .collect();
                ours.push((p, caps));
            },
        );
        let ts = Query::new(grammar, query).unwrap();
        let mut cursor = QueryCursor::new();
        let mut theirs = Vec::new();
        let mut matches = cursor.matches(&ts, tree.root_node(), source.as_bytes());
        while let Some(m) = matches.next() {
            let caps = m
                .captures()
                .iter()
                .map(|c| {
                    (
                        ts.capture_names()[c.index as usize].to_string(),
                        c.node.byte_range(),
                    )
                })
                .collect();
            theirs.push((m.pattern_index, caps));
        }
        (ours, theirs)
    }

    /// Cases where tree-sitter's semantics are easy to get wrong: each runs on both executors
    /// and the matches (order included) must be the same.
    #[test]
    fn matches_as_tree_sitter_does() {
        let cases: &[(&str, &str, &str)] = &[
            // Several ways to match one node: one match per way.
            ("python", "(argument_list (identifier) @a)", "f(a, b, c)\n"),
            // Longest match: the optional child is captured when present.
            (
                "python",
                "(function_definition name: (identifier) @n return_type: (type)? @t body: (_) @b)",
                "def f() -> int:\n    pass\ndef g():\n    pass\n",
            ),
            // Anchors: first named child, adjacent named siblings, last named child.
            (
                "python",
                "(argument_list . (identifier) @first)",
                "f(a, b)\nf(1, b)\n",
            ),
            (
                "python",
                "(argument_list (identifier) @x . (identifier) @y)",
                "f(a, b, 1, c, d)\n",
            ),
            ("python", "(argument_list (_) @last .)", "f(a, b, c)\n"),
            // Negated fields and alternations with fields.
            (
                "python",
                "(function_definition !return_type name: (identifier) @n)",
                "def f() -> int:\n    pass\ndef g():\n    pass\n",
            ),
            (
                "python",
                "(call function: [(identifier) @f (attribute attribute: (identifier) @f)])",
                "f(x)\na.b.g(y)\n",
            ),
            // Predicates, also on a capture that captured nothing.
            (
                "python",
                "((call function: (identifier) @f) (#not-any-of? @f \"print\" \"len\"))\n\
                 ((identifier) @i (#match? @i \"^[A-Z]\"))\n\
                 ((function_definition return_type: (type)? @t) @d (#eq? @t \"int\"))",
                "print(x)\nfoo(Y)\ndef f() -> int: pass\ndef g(): pass\ndef h() -> str: pass\n",
            ),
            // Match order: by where each match ends, then by the depth it starts at, then by
            // pattern; patterns nested in each other's matches.
            (
                "javascript",
                "(call_expression function: (identifier) @f arguments: (arguments) @a)\n\
                 (call_expression function: (_) @callee)\n\
                 (arguments (call_expression) @inner)\n\
                 (identifier) @id",
                "f(g(h(1)), k)\n",
            ),
            // Wildcards: `(_)` skips anonymous nodes, `_` does not.
            (
                "rust",
                "(parameters (_) @p)\n(parameters _ @any)",
                "fn f(a: u8, b: u8) {}\n",
            ),
            // A pattern below an ERROR node.
            (
                "python",
                "(call function: (identifier) @f)\n(argument_list (_) @a)\n(_ (argument_list) @l)",
                "class (:\n    f(x)\nprint(g(y) +)\n",
            ),
        ];
        for (language, query, source) in cases {
            let (ours, theirs) = both(language, query, source);
            assert!(!theirs.is_empty(), "{language} {query}: no match at all");
            assert_eq!(ours, theirs, "{language}: {query}\non {source:?}");
        }
    }

    thread_local! {
        /// Ways compared by `longest` on this thread.
        pub(super) static COMPARISONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// One node with 5,000 children matched one way each (a generated table of identifiers):
    /// each way is compared with the few sharing its rarest capture, not with all the others
    /// (which took 5 s on a 41,728-element Rust array).
    #[test]
    fn many_ways_at_one_node_cost_linear_comparisons() {
        let n = 5000;
        let items: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
        let source = format!("x = [{}]\n", items.join(", "));
        let (ours, theirs) = both("python", "(list (identifier) @item) @list", &source);
        assert_eq!(ours.len(), n);
        assert_eq!(ours, theirs);
        COMPARISONS.with(|c| c.set(0));
        let _ = both("python", "(list (identifier) @item) @list", &source);
        let compared = COMPARISONS.with(|c| c.get());
        assert!(compared <= 4 * n, "{compared} comparisons for {n} ways");
    }

    #[test]
    fn what_it_does_not_run_is_refused() {
        let registry = sextant_lang::Registry::builtin().unwrap();
        let python = &registry.get("python").unwrap().grammar;
        for query in [
            "(block (expression_statement)* @s)",
            "((identifier) @a (identifier) @b)",
            "(expression) @e",
            "((identifier) @a (#is? @a local))",
            "(no_such_kind) @x",
        ] {
            assert!(Program::compile(python, query).is_err(), "{query}");
        }
        assert!(Program::compile(python, "(call function: (identifier) @f)").is_ok());
    }
}
