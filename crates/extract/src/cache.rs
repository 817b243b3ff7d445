//! Per-thread cursors; one set of compiled queries per language shared by every thread.
//! Compiling is expensive (about 0.2 s for TypeScript) and was paid once per thread before;
//! sharing measured no contention from our few `#match?` predicates and cut indexing CPU by 9 %
//! on effect (TypeScript) and 19 % on Redis (five languages), medians of 3 runs.
//!
//! Extraction runs a language's query on our own executor (`matcher.rs`): compiling it is a
//! parse of the query source, and [`Queries::own`] holds it. What follows is tree-sitter's path,
//! taken with `SEXTANT_QUERY_ENGINE=tree-sitter` (and by a query our executor cannot run, which
//! `tests/fixtures.rs` forbids for the languages we ship).
//!
//! On tree-sitter's path, a language's query runs as two parts (see [`Queries`]): the patterns that start at the file's
//! root node (`(program (lexical_declaration ...))`) in a cursor that only starts matches at the
//! root and so only walks the top levels of the tree, and every other pattern over the whole tree,
//! together with patterns capturing the nodes that count for complexity. A root pattern run with
//! the rest keeps a match state alive at every node of the file: running the 16 of TypeScript
//! apart cut its query matching by a third (instructions on a fifth of effect); the captured
//! branch nodes replace a second walk of every callable (8 % of Python's extraction). The results
//! are exactly those of the full query: where they could differ (see `collect.rs`) extraction
//! falls back to it, and `tests/fixtures.rs` compares the two on every fixture.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sextant_lang::{Capture, CompiledQuery, Language};
use tree_sitter::{Parser, QueryCursor};

/// The largest number of in-progress matches of the full query's cursor.
pub(crate) const MATCH_LIMIT: u32 = 1 << 16;

/// One compiled part of a language's query.
pub(crate) struct Part {
    pub compiled: CompiledQuery,
    /// Pattern index in this part → pattern index in the language's full query (`None` for the
    /// patterns added to the part: the branch patterns and the root sentinel).
    pub global: Vec<Option<usize>>,
}

/// A language's compiled query, possibly split (see the module docs).
pub(crate) struct Queries {
    /// Every pattern but the root ones (all of them when the query is not split), then the
    /// sentinels; `None` when our own executor runs the query.
    pub main: Option<Part>,
    /// The patterns that start at the root node kind, run with matches starting at depth 0 only.
    pub root: Option<Part>,
    /// In `main`: the patterns capturing the nodes that count for complexity, one per kind.
    pub branch_patterns: Option<std::ops::Range<usize>>,
    /// In `main`: `(<root kind>) @_root`, to notice a root kind below the root (never in the
    /// grammars we ship; the root part would then miss matches starting there).
    pub root_sentinel: Option<usize>,
    /// By full-query pattern index: does the root part run it?
    pub in_root: Vec<bool>,
    /// Node kind ids that add a branch to cyclomatic complexity.
    pub complexity_kinds: Vec<bool>,
    /// Whether `main` is not simply the full query (so the full one may be needed as a fallback).
    pub split: bool,
    /// The full query, compiled on first need (see `collect.rs`).
    full: OnceLock<Result<Arc<CompiledQuery>, String>>,
    /// The whole query on our own executor, which extraction uses when the query compiles for it
    /// (see `matcher.rs`).
    pub own: Option<Own>,
}

/// A language's query compiled for our own executor, with the meaning of each capture.
pub(crate) struct Own {
    pub program: crate::matcher::Program,
    pub captures: Vec<Option<Capture>>,
}

impl Own {
    pub fn compile(language: &Language) -> Result<Own, String> {
        let program = crate::matcher::Program::compile(&language.grammar, &language.query_source)
            .map_err(|e| e.0)?;
        let captures = program
            .capture_names
            .iter()
            .map(|name| sextant_lang::validate_capture(name).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        Ok(Own { program, captures })
    }

    /// The number of matches over a tree (for measurements).
    pub fn count(&self, tree: &tree_sitter::Tree, text: &str) -> usize {
        let mut n = 0;
        let _ = self
            .program
            .run(tree, text.as_bytes(), &[], |_| {}, |_, _, _| n += 1);
        n
    }
}

impl Queries {
    /// The language's full query (the one extraction is defined by), compiled on first use.
    pub fn full(&self, language: &Language) -> Result<Arc<CompiledQuery>, String> {
        self.full
            .get_or_init(|| language.compile().map(Arc::new).map_err(|e| e.to_string()))
            .clone()
    }
}

/// What a worker thread needs to extract one language.
pub(crate) struct Tools {
    /// Reused across files (their match buffers stay allocated): the main part's cursor and the
    /// root part's.
    pub cursor: QueryCursor,
    pub root_cursor: QueryCursor,
    pub queries: Arc<Queries>,
}

thread_local! {
    static TOOLS: RefCell<HashMap<String, Result<Tools, String>>> = RefCell::new(HashMap::new());
}

/// A language's compiled queries, built once by whichever thread needs them first.
type Slot = Arc<OnceLock<Result<Arc<Queries>, String>>>;

/// Compiled queries by language id, shared by all threads. The map's lock is held only to find a
/// language's slot, never while compiling: a thread compiling one language (C++ and Ruby take
/// about 0.4 s each) does not hold up threads extracting another.
static SHARED: Mutex<Option<HashMap<String, Slot>>> = Mutex::new(None);

fn slot(language: &Language) -> Slot {
    let mut guard = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    let map = guard.get_or_insert_with(HashMap::new);
    map.entry(language.id().to_string()).or_default().clone()
}

pub(crate) fn shared_queries(language: &Language) -> Result<Arc<Queries>, String> {
    slot(language)
        .get_or_init(|| build_queries(language).map(Arc::new))
        .clone()
}

/// Whether the language's queries are compiled (or failed to): [`shared_queries`] would return
/// at once.
pub(crate) fn queries_ready(language: &Language) -> bool {
    slot(language).get().is_some()
}

fn complexity_kinds(language: &Language) -> Vec<bool> {
    let mut kinds = vec![false; language.grammar.node_kind_count() + 1];
    let rules = &language.manifest.complexity;
    let mut mark = |kind: &str, named: bool| {
        let id = language.grammar.id_for_node_kind(kind, named) as usize;
        if id != 0 && id < kinds.len() {
            kinds[id] = true;
        }
    };
    for kind in &rules.nodes {
        mark(kind, true);
    }
    for op in &rules.operators {
        mark(op, false);
        mark(op, true);
    }
    kinds
}

/// Patterns matching exactly the nodes whose kind id is marked: `(if_statement) @_branch`,
/// `"&&" @_branch`, one per kind (a single node is a rooted pattern: it also matches directly
/// inside an ERROR node, as the walk counts it). Kind ids are public symbols, and a query names a
/// node the way `id_for_node_kind` looks it up, so `(name)` / `"name"` of a marked id matches the
/// nodes of that id. Supertypes (which no node has as its kind) are left out.
fn branch_patterns(language: &Language, kinds: &[bool]) -> Option<Vec<String>> {
    let grammar = &language.grammar;
    let mut patterns = Vec::new();
    for (id, &marked) in kinds.iter().enumerate() {
        let Ok(id) = u16::try_from(id) else { break };
        if !marked || grammar.node_kind_is_supertype(id) {
            continue;
        }
        let name = grammar.node_kind_for_id(id)?;
        if grammar.node_kind_is_named(id) {
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            patterns.push(format!("({name}) @_branch"));
        } else {
            let escaped = name.replace('\\', "\\\\").replace('"', "\\\"");
            if escaped.contains(['\n', '\r', '\t', '\0']) {
                return None;
            }
            patterns.push(format!("\"{escaped}\" @_branch"));
        }
    }
    Some(patterns)
}

/// Captures a root pattern may use: those of definitions. Its matches then only add definitions,
/// whose order `collect.rs` can check.
fn movable_capture(name: &str) -> bool {
    matches!(
        sextant_lang::validate_capture(name),
        Ok(None
            | Some(
                Capture::Definition(_)
                    | Capture::Name
                    | Capture::Owner
                    | Capture::Doc
                    | Capture::Body
                    | Capture::Type
            ))
    )
}

/// The kind of the root node of this grammar's trees (from parsing nothing).
fn root_kind(language: &Language) -> Option<String> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar).ok()?;
    let tree = parser.parse("", None)?;
    let root = tree.root_node();
    (!root.is_error()).then(|| root.kind().to_string())
}

/// Whether to run tree-sitter's query cursor instead of our own executor
/// (`SEXTANT_QUERY_ENGINE=tree-sitter`; for comparisons, and as a way out should ours be wrong).
fn tree_sitter_engine() -> bool {
    static CHOICE: OnceLock<bool> = OnceLock::new();
    *CHOICE.get_or_init(|| {
        std::env::var("SEXTANT_QUERY_ENGINE").is_ok_and(|v| v.eq_ignore_ascii_case("tree-sitter"))
    })
}

fn build_queries(language: &Language) -> Result<Queries, String> {
    let kinds = complexity_kinds(language);
    if !tree_sitter_engine()
        && let Ok(own) = Own::compile(language)
    {
        return Ok(Queries {
            main: None,
            root: None,
            branch_patterns: None,
            root_sentinel: None,
            in_root: Vec::new(),
            complexity_kinds: kinds,
            split: false,
            full: OnceLock::new(),
            own: Some(own),
        });
    }
    let whole = |kinds: Vec<bool>| -> Result<Queries, String> {
        let compiled = language.compile().map_err(|e| e.to_string())?;
        let n = compiled.query.pattern_count();
        Ok(Queries {
            main: Some(Part {
                compiled,
                global: (0..n).map(Some).collect(),
            }),
            root: None,
            branch_patterns: None,
            root_sentinel: None,
            in_root: vec![false; n],
            complexity_kinds: kinds,
            split: false,
            full: OnceLock::new(),
            own: None,
        })
    };
    match split_queries(language, &kinds) {
        Some(queries) => Ok(queries),
        // The query does not split (or does not compile: the full compile reports why).
        None => whole(kinds),
    }
}

fn split_queries(language: &Language, kinds: &[bool]) -> Option<Queries> {
    let source = &language.query_source;
    let ranges = sextant_lang::pattern_ranges(source);
    let root = root_kind(language);
    let mut main_src = String::new();
    let mut root_src = String::new();
    let mut main_global = Vec::new();
    let mut root_global = Vec::new();
    let mut in_root = vec![false; ranges.len()];
    for (i, range) in ranges.iter().enumerate() {
        let text = &source[range.clone()];
        let is_root = root.as_deref().is_some_and(|r| {
            sextant_lang::root_node_kind(text) == Some(r)
                && sextant_lang::capture_names(text)
                    .into_iter()
                    .all(movable_capture)
        });
        let (src, global) = if is_root {
            in_root[i] = true;
            (&mut root_src, &mut root_global)
        } else {
            (&mut main_src, &mut main_global)
        };
        src.push_str(text);
        src.push('\n');
        global.push(Some(i));
    }
    let mut root_sentinel = None;
    if !root_global.is_empty() {
        let r = root.as_deref()?;
        if !r.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        root_sentinel = Some(main_global.len());
        main_src.push_str(&format!("({r}) @_root\n"));
        main_global.push(None);
    }
    let branches = branch_patterns(language, kinds).filter(|p| !p.is_empty());
    let branch_patterns =
        main_global.len()..main_global.len() + branches.as_ref().map_or(0, Vec::len);
    for pattern in branches.iter().flatten() {
        main_src.push_str(pattern);
        main_src.push('\n');
        main_global.push(None);
    }
    if root_global.is_empty() && branches.is_none() {
        return None;
    }
    let main = language.compile_source(&main_src).ok()?;
    if main.query.pattern_count() != main_global.len() {
        return None;
    }
    let root_part = if root_global.is_empty() {
        None
    } else {
        let compiled = language.compile_source(&root_src).ok()?;
        if compiled.query.pattern_count() != root_global.len() {
            return None;
        }
        Some(Part {
            compiled,
            global: root_global,
        })
    };
    Some(Queries {
        main: Some(Part {
            compiled: main,
            global: main_global,
        }),
        root: root_part,
        branch_patterns: branches.map(|_| branch_patterns),
        root_sentinel,
        in_root,
        complexity_kinds: kinds.to_vec(),
        split: true,
        full: OnceLock::new(),
        own: None,
    })
}

fn build(language: &Language) -> Result<Tools, String> {
    let queries = shared_queries(language)?;
    // The grammar must load (each file's parser is made as it is parsed, see `parse.rs`).
    Parser::new()
        .set_language(&language.grammar)
        .map_err(|e| format!("grammar {}: {e}", language.manifest.grammar))?;
    let mut cursor = QueryCursor::new();
    let mut root_cursor = QueryCursor::new();
    // With a root part, half each: neither overflowing means the full query's cursor would not
    // have either (the main part alone holds all of the full query's other matches and more).
    let limit = if queries.root.is_some() {
        MATCH_LIMIT / 2
    } else {
        MATCH_LIMIT
    };
    cursor.set_match_limit(limit);
    root_cursor.set_match_limit(limit);
    root_cursor.set_max_start_depth(Some(0));
    Ok(Tools {
        cursor,
        root_cursor,
        queries,
    })
}

/// Runs `f` with this thread's tools for `language`, building them on first use.
pub(crate) fn with_tools<R>(
    language: &Language,
    f: impl FnOnce(Result<&mut Tools, String>) -> R,
) -> R {
    TOOLS.with(|cell| {
        let mut map = cell.borrow_mut();
        let entry = map
            .entry(language.id().to_string())
            .or_insert_with(|| build(language));
        match entry {
            Ok(tools) => f(Ok(tools)),
            Err(e) => f(Err(e.clone())),
        }
    })
}
