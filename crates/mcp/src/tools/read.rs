//! The read tools (`search`, `symbol`, `source`, `references`, `calls`): each a thin adapter
//! from typed arguments to one engine query and from its result to a bounded envelope.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use sextant_engine::{Consistency, Repo, SEARCH_CAP, SearchOptions, ViewRequest};

use super::*;
use crate::budget::{Cursor, Limits, fingerprint, fit, head_tail, json_len};
use crate::dto::*;
use crate::server::{SextantServer, check_kinds, engine_err, page_meta};

/// Which sources answer a read tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsistencyArg {
    /// The clean index of HEAD's commit (with `workspace`: the workspace's base).
    Committed,
    /// The named workspace, else the live index.
    Workspace,
    /// `workspace` plus `virtual_files`.
    Ephemeral,
}

/// An unsaved text of a repository file, for one call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VirtualFile {
    /// Repository-relative path.
    pub path: String,
    /// The whole text.
    pub content: String,
}

/// The engine's view request of the `workspace`, `consistency` and `virtual_files` arguments,
/// checked so errors name the argument.
pub(crate) fn view_request(
    workspace: &str,
    consistency: Option<ConsistencyArg>,
    virtual_files: &[VirtualFile],
) -> Result<ViewRequest, String> {
    let workspace = workspace.trim();
    if !workspace.is_empty() {
        sextant_engine::check_workspace_name(workspace)
            .map_err(|e| format!("argument `workspace`: {e}"))?;
    }
    let consistency = consistency.map(|c| match c {
        ConsistencyArg::Committed => Consistency::Committed,
        ConsistencyArg::Workspace => Consistency::Workspace,
        ConsistencyArg::Ephemeral => Consistency::Ephemeral,
    });
    match consistency {
        Some(Consistency::Ephemeral) if virtual_files.is_empty() => {
            return Err("argument `consistency`: `ephemeral` needs `virtual_files` ([{path, content}], the unsaved texts to read); without them use `workspace`".into());
        }
        Some(c @ (Consistency::Committed | Consistency::Workspace))
            if !virtual_files.is_empty() =>
        {
            return Err(format!(
                "argument `virtual_files`: only read with consistency `ephemeral` (not `{}`); drop `consistency` or set it to `ephemeral`",
                c.as_str()
            ));
        }
        _ => {}
    }
    Ok(ViewRequest {
        consistency,
        workspace: Some(workspace.to_string()).filter(|w| !w.is_empty()),
        virtual_files: virtual_files
            .iter()
            .map(|v| (v.path.clone(), v.content.clone()))
            .collect(),
    })
}

/// At most this many members on a card.
const CARD_MEMBERS: usize = 50;
/// Longer source lines are cut.
const LINE_CAP: usize = 1000;

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A named workspace to answer from (`workspace_create`, `workspace_refresh`): its edits are
    /// in the graph and in the source. Default "": none (the live index).
    #[serde(default)]
    pub workspace: String,
    /// `committed` (the clean index of HEAD's commit; with `workspace`, the workspace's base),
    /// `workspace` (the named workspace, else the live index) or `ephemeral` (`workspace` plus
    /// `virtual_files`). Default: `ephemeral` with `virtual_files`, else `workspace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ConsistencyArg")]
    pub consistency: Option<ConsistencyArg>,
    /// Unsaved texts, `[{path, content}]`, that replace those files' text in source and excerpts
    /// for this call only (the graph is unchanged). Needs consistency `ephemeral` (the default
    /// when given). Default: none.
    #[serde(default)]
    pub virtual_files: Vec<VirtualFile>,
    /// A name (`UserStore`, `get_user`), a qualified name (`users.UserStore`) or words
    /// (`user id` finds `getUserById`). Default "": with a filter, every symbol passing the
    /// filters, by qualified name.
    #[serde(default)]
    pub query: String,
    /// Only these kinds (class, struct, interface, trait, enum, function, method, constructor,
    /// field, property, constant, variable, module, type_alias, ...; `label` is an alias).
    /// Default: all but files.
    #[serde(default, alias = "label")]
    pub kind: Vec<String>,
    /// Only this language id (python, rust, typescript, tsx, javascript, go, java, c, cpp,
    /// csharp, ruby, php, kotlin, markdown). Default "": any.
    #[serde(default)]
    pub language: String,
    /// Only files under this repository-relative path prefix (`src/api/`). Default "": all.
    #[serde(default)]
    pub path: String,
    /// Regular expression (unanchored) on the name. Default "": any.
    #[serde(default)]
    pub name_regex: String,
    /// Regular expression on the qualified name. Default "": any.
    #[serde(default)]
    pub qname_regex: String,
    /// Regular expression on the file path (`^src/api/`). Default "": any.
    #[serde(default)]
    pub file_regex: String,
    /// At least this many distinct callers (calls and instantiations). Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub min_callers: Option<u32>,
    /// At most this many distinct callers (0: never called). Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub max_callers: Option<u32>,
    /// At least this many distinct callees. Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub min_callees: Option<u32>,
    /// At most this many distinct callees. Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub max_callees: Option<u32>,
    /// At least this many incoming references (edges of any kind). Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub min_references: Option<u32>,
    /// At most this many incoming references. Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub max_references: Option<u32>,
    /// Results per page. Default 20, at most 100.
    #[serde(default = "default_search_limit")]
    pub limit: u32,
    /// `full` (signature, doc, visibility, modifiers, complexity), `compact` (id, kind, names,
    /// location) or `summary` (no results: counts of all matches by kind, file, directory).
    /// Default `full`.
    #[serde(default)]
    pub mode: ListMode,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens (~4 bytes of JSON each); longer answers are cut and say so.
    /// Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A named workspace to answer from (`workspace_create`, `workspace_refresh`): its edits are
    /// in the graph and in the source. Default "": none (the live index).
    #[serde(default)]
    pub workspace: String,
    /// `committed` (the clean index of HEAD's commit; with `workspace`, the workspace's base),
    /// `workspace` (the named workspace, else the live index) or `ephemeral` (`workspace` plus
    /// `virtual_files`). Default: `ephemeral` with `virtual_files`, else `workspace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ConsistencyArg")]
    pub consistency: Option<ConsistencyArg>,
    /// Unsaved texts, `[{path, content}]`, that replace those files' text in source and excerpts
    /// for this call only (the graph is unchanged). Needs consistency `ephemeral` (the default
    /// when given). Default: none.
    #[serde(default)]
    pub virtual_files: Vec<VirtualFile>,
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `source` arguments: a `symbol`, or a `path` with a line range.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A named workspace to answer from (`workspace_create`, `workspace_refresh`): its edits are
    /// in the graph and in the source. Default "": none (the live index).
    #[serde(default)]
    pub workspace: String,
    /// `committed` (the clean index of HEAD's commit; with `workspace`, the workspace's base),
    /// `workspace` (the named workspace, else the live index) or `ephemeral` (`workspace` plus
    /// `virtual_files`). Default: `ephemeral` with `virtual_files`, else `workspace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ConsistencyArg")]
    pub consistency: Option<ConsistencyArg>,
    /// Unsaved texts, `[{path, content}]`, that replace those files' text in source and excerpts
    /// for this call only (the graph is unchanged). Needs consistency `ephemeral` (the default
    /// when given). Default: none.
    #[serde(default)]
    pub virtual_files: Vec<VirtualFile>,
    /// The symbol whose definition to show (same syntax as the other tools). Give this or `path`.
    #[serde(default)]
    pub symbol: String,
    /// A repository-relative file path. Give this or `symbol`.
    #[serde(default)]
    pub path: String,
    /// With `path`: first line (1-based). Default 1.
    #[serde(default)]
    pub start_line: u32,
    /// With `path`: last line. Default 0: to the end of the file (within `max_lines`).
    #[serde(default)]
    pub end_line: u32,
    /// With `path`: the file's unsaved text (an editor buffer), read instead of the file on
    /// disk. Default "": the file on disk.
    #[serde(default)]
    pub content: String,
    /// Extra lines before and after. Default 0, at most 50.
    #[serde(default)]
    pub context_lines: u32,
    /// At most this many lines are returned. Default 120, at most 400.
    #[serde(default = "default_max_lines")]
    pub max_lines: u32,
    /// `full`, `signature` (the declaration only; needs `symbol`) or `head_tail` (first 60% and
    /// last 40% of `max_lines` when longer). Default `full`.
    #[serde(default)]
    pub mode: SourceMode,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `references` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReferencesArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A named workspace to answer from (`workspace_create`, `workspace_refresh`): its edits are
    /// in the graph and in the source. Default "": none (the live index).
    #[serde(default)]
    pub workspace: String,
    /// `committed` (the clean index of HEAD's commit; with `workspace`, the workspace's base),
    /// `workspace` (the named workspace, else the live index) or `ephemeral` (`workspace` plus
    /// `virtual_files`). Default: `ephemeral` with `virtual_files`, else `workspace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ConsistencyArg")]
    pub consistency: Option<ConsistencyArg>,
    /// Unsaved texts, `[{path, content}]`, that replace those files' text in source and excerpts
    /// for this call only (the graph is unchanged). Needs consistency `ephemeral` (the default
    /// when given). Default: none.
    #[serde(default)]
    pub virtual_files: Vec<VirtualFile>,
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// Only these edge kinds (calls, instantiates, uses_type, inherits, implements, imports,
    /// reads, writes, ...). Default: all.
    #[serde(default)]
    pub kind: Vec<String>,
    /// References per page. Default 50, at most 500.
    #[serde(default = "default_references_limit")]
    pub limit: u32,
    /// Each reference with its source line. Default true.
    #[serde(default = "yes")]
    pub excerpts: bool,
    /// Also list (up to 20) sites naming the symbol that did not resolve to it for sure
    /// (unresolved or ambiguous): they may be references too. Default true.
    #[serde(default = "yes")]
    pub unresolved: bool,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// Which way `calls` walks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Callers: who calls the symbol.
    #[default]
    In,
    /// Callees: what the symbol calls.
    Out,
}

/// `calls` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallsArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A named workspace to answer from (`workspace_create`, `workspace_refresh`): its edits are
    /// in the graph and in the source. Default "": none (the live index).
    #[serde(default)]
    pub workspace: String,
    /// `committed` (the clean index of HEAD's commit; with `workspace`, the workspace's base),
    /// `workspace` (the named workspace, else the live index) or `ephemeral` (`workspace` plus
    /// `virtual_files`). Default: `ephemeral` with `virtual_files`, else `workspace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ConsistencyArg")]
    pub consistency: Option<ConsistencyArg>,
    /// Unsaved texts, `[{path, content}]`, that replace those files' text in source and excerpts
    /// for this call only (the graph is unchanged). Needs consistency `ephemeral` (the default
    /// when given). Default: none.
    #[serde(default)]
    pub virtual_files: Vec<VirtualFile>,
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// `in` (callers) or `out` (callees). Default `in`.
    #[serde(default)]
    pub direction: Direction,
    /// How many calls away to go. Default 3, at most 6.
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// At most this many symbols per level (the rest are not followed). Default 20, at most 100.
    #[serde(default = "default_calls_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

#[tool_router(router = read_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Find definitions (classes, functions, methods, fields, modules, doc sections) by name or words: exact name, then prefix, then full text over split identifiers, signatures and docs, then close spellings. Use it instead of grep to locate where something is defined; filter by kind, language, path, regexes on name/qname/file and caller/callee/reference counts (without `query`: every match, by qualified name, e.g. kind=function, max_callers=0); `mode` summary counts matches by kind and directory.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> Result<Json<Envelope<SearchData>>, String> {
        let view = view_request(&a.workspace, a.consistency, &a.virtual_files)?;
        self.blocking(&a.repo.clone(), move |b| {
            b.answer_in(&view, |repo, meta| {
                let query = a.query.trim().to_string();
                let labels: Vec<String> = a
                    .kind
                    .iter()
                    .flat_map(|k| k.split(','))
                    .map(sextant_engine::kind_from_label)
                    .collect();
                let kinds = check_kinds("kind", &labels, false)?;
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 20, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let mode = match a.mode {
                    ListMode::Full => "full",
                    ListMode::Compact => "compact",
                    ListMode::Summary => "summary",
                };
                let bound = |b: Option<u32>| b.map_or(String::new(), |n| n.to_string());
                let fp = fingerprint(&[
                    "search",
                    &query,
                    &kinds.join(","),
                    &a.language,
                    &a.path,
                    mode,
                    &a.name_regex,
                    &a.qname_regex,
                    &a.file_regex,
                    &bound(a.min_callers),
                    &bound(a.max_callers),
                    &bound(a.min_callees),
                    &bound(a.max_callees),
                    &bound(a.min_references),
                    &bound(a.max_references),
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let text = |t: &str| Some(t.trim().to_string()).filter(|t| !t.is_empty());
                let options = SearchOptions {
                    kinds,
                    language: text(&a.language),
                    path_prefix: text(&a.path),
                    limit: limit as u32 + 1,
                    offset: offset.min(u32::MAX as usize) as u32,
                    name_regex: Some(a.name_regex.clone()).filter(|r| !r.is_empty()),
                    qname_regex: Some(a.qname_regex.clone()).filter(|r| !r.is_empty()),
                    file_regex: Some(a.file_regex.clone()).filter(|r| !r.is_empty()),
                    min_callers: a.min_callers,
                    max_callers: a.max_callers,
                    min_callees: a.min_callees,
                    max_callees: a.max_callees,
                    min_references: a.min_references,
                    max_references: a.max_references,
                };
                if query.is_empty() && !options.has_filters() {
                    return Err("argument `query` must not be empty unless a filter is given (kind, language, path, name_regex, qname_regex, file_regex, min_/max_callers, min_/max_callees, min_/max_references)".into());
                }
                let degree_note = (a.max_callers.is_some() || a.max_references.is_some())
                    .then_some("callers and references count resolved edges only: unresolved sites naming a symbol are not counted (check `references` before calling something unused)");
                if a.mode == ListMode::Summary {
                    let s = repo.search_summary(&query, &options).map_err(engine_err)?;
                    meta.limits_applied = limits.applied;
                    if !s.complete {
                        meta.truncated = true;
                        meta.hint = Some(format!(
                            "counted the first {SEARCH_CAP} matches: narrow with filters, or leave `query` empty to count every symbol passing them"
                        ));
                    } else if let Some(note) = degree_note {
                        meta.hint = Some(note.into());
                    }
                    return Ok(SearchData {
                        query,
                        count: 0,
                        total: None,
                        results: Vec::new(),
                        summary: Some(SearchSummary {
                            matches: s.matches,
                            by_kind: kind_counts(&s.by_kind),
                            by_file: kind_counts(&s.by_file),
                            by_directory: kind_counts(&s.by_directory),
                            by_match: kind_counts(&s.by_match),
                        }),
                    });
                }
                let page = repo.search_page(&query, &options).map_err(engine_err)?;
                let hits = page.hits;
                let more = hits.len() > limit;
                let mut results: Vec<SearchHitOut> = hits
                    .iter()
                    .take(limit)
                    .map(|h| SearchHitOut {
                        matched: h.matched.to_string(),
                        symbol: SymbolOut::with_mode(&h.symbol, a.mode),
                    })
                    .collect();
                // Over budget in full mode: degrade to compact before dropping results.
                let whole = results.len();
                let mut probe = results.clone();
                let mut cut = fit(&mut probe, 256 + query.len(), budget);
                if cut && a.mode == ListMode::Full {
                    let mut compact: Vec<SearchHitOut> = hits
                        .iter()
                        .take(limit)
                        .map(|h| SearchHitOut {
                            matched: h.matched.to_string(),
                            symbol: SymbolOut::compact(&h.symbol),
                        })
                        .collect();
                    cut = fit(&mut compact, 256 + query.len(), budget);
                    limits.applied.push(format!(
                        "mode full → compact: {whole} full results exceed max_tokens"
                    ));
                    results = compact;
                } else {
                    results = probe;
                }
                page_meta(meta, "search", fp, offset, results.len(), more, cut);
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                if hits.iter().any(|h| h.matched == "fuzzy") {
                    meta.hint = Some(
                        "no name or word matched exactly: these are the closest names (edit distance ≤ 2)"
                            .into(),
                    );
                } else if meta.hint.is_none()
                    && let Some(note) = degree_note
                {
                    meta.hint = Some(note.into());
                }
                Ok(SearchData {
                    query,
                    count: results.len() as u64,
                    total: page.total,
                    results,
                    summary: None,
                })
            })
        })
        .await
    }

    #[tool(
        description = "The card of one symbol: signature, doc, location, visibility, modifiers, complexity, parent, members, counts of incoming and outgoing edges by kind, top callers and callees. Use it instead of opening files to learn what something is and how connected it is.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn symbol(
        &self,
        Parameters(a): Parameters<SymbolArgs>,
    ) -> Result<Json<Envelope<CardData>>, String> {
        let view = view_request(&a.workspace, a.consistency, &a.virtual_files)?;
        self.blocking(&a.repo.clone(), move |b| {
            b.answer_in(&view, |repo, meta| {
                let mut limits = Limits::default();
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let card = repo.card(&s).map_err(engine_err)?;
                let members_total = card.members.len();
                let mut members: Vec<SymbolOut> = card
                    .members
                    .iter()
                    .take(CARD_MEMBERS)
                    .map(SymbolOut::compact)
                    .collect();
                let mut data = CardData {
                    symbol: SymbolOut::full(&card.symbol),
                    parent: card.parent.as_ref().map(SymbolOut::compact),
                    members_total: members_total as u64,
                    members: Vec::new(),
                    incoming: kind_counts(&card.incoming),
                    outgoing: kind_counts(&card.outgoing),
                    callers: card.callers.iter().map(NeighborOut::from).collect(),
                    callees: card.callees.iter().map(NeighborOut::from).collect(),
                };
                let cut = fit(&mut members, json_len(&data), budget);
                if cut || members.len() < members_total {
                    meta.truncated = true;
                    meta.hint = Some(format!(
                        "{} of {members_total} members shown: list them with `search` (path = \"{}\", and a kind filter)",
                        members.len(),
                        card.symbol.path
                    ));
                }
                data.members = members;
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "Source of a symbol's definition (`symbol`), or lines of a repository file (`path`, `start_line`, `end_line`), with `context_lines`. Use it instead of reading whole files: `mode` signature or head_tail and `max_lines` keep answers small. Paths outside the repository and secret files are refused.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn source(
        &self,
        Parameters(a): Parameters<SourceArgs>,
    ) -> Result<Json<Envelope<SourceData>>, String> {
        let view = view_request(&a.workspace, a.consistency, &a.virtual_files)?;
        self.blocking(&a.repo.clone(), move |b| {
            b.answer_in(&view, |repo, meta| source(repo, meta, a))
        })
        .await
    }

    #[tool(
        description = "Every reference to a symbol, classified (calls, instantiations, reads, writes, type uses, inheritance, implementations, overrides, imports), each with its site, source line and how it was resolved; plus sites that may refer to it but did not resolve, and completeness. Use it instead of grepping for a name: same-named symbols are not confused.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn references(
        &self,
        Parameters(a): Parameters<ReferencesArgs>,
    ) -> Result<Json<Envelope<ReferencesData>>, String> {
        let view = view_request(&a.workspace, a.consistency, &a.virtual_files)?;
        self.blocking(&a.repo.clone(), move |b| {
            b.answer_in(&view, |repo, meta| {
                let kinds = check_kinds("kind", &a.kind, true)?;
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 50, 1, 500) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let fp = fingerprint(&["references", &s.stable_id, &kinds.join(",")]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let refs = repo.references(&s, &kinds).map_err(engine_err)?;
                let total = refs.references.len();
                let mut page: Vec<NeighborOut> = refs
                    .references
                    .iter()
                    .skip(offset)
                    .take(limit)
                    .map(NeighborOut::from)
                    .collect();
                let more = total > offset + page.len();
                let symbol = SymbolOut::compact(&refs.target);
                let completeness = CompletenessOut::from(&refs.completeness);
                let mut by_kind: Vec<(String, u64)> = Vec::new();
                for r in &refs.references {
                    match by_kind.iter_mut().find(|(k, _)| *k == r.edge_kind) {
                        Some((_, n)) => *n += 1,
                        None => by_kind.push((r.edge_kind.clone(), 1)),
                    }
                }
                by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                // Unresolved sites naming the symbol: on the first page only.
                let mut unresolved: Vec<UnresolvedOut> = Vec::new();
                if a.unresolved && offset == 0 && completeness.status == "lower_bound" {
                    let ref_kinds: Vec<&str> = Vec::new();
                    let (_, sites) = repo
                        .unresolved_sites(&refs.target, &ref_kinds, 20)
                        .map_err(engine_err)?;
                    unresolved = sites.iter().map(UnresolvedOut::from).collect();
                }
                if a.excerpts {
                    let mut sites: Vec<(String, u32)> = page
                        .iter()
                        .filter_map(|n| n.site.as_ref().map(|s| (s.path.clone(), s.line)))
                        .collect();
                    sites.extend(unresolved.iter().map(|u| (u.path.clone(), u.line)));
                    let lines = repo.line_excerpts(&sites, 160);
                    for n in &mut page {
                        if let Some(s) = &n.site {
                            n.excerpt = lines.get(&(s.path.clone(), s.line)).cloned();
                        }
                    }
                    for u in &mut unresolved {
                        u.excerpt = lines.get(&(u.path.clone(), u.line)).cloned();
                    }
                }
                let fixed = json_len(&symbol) + json_len(&completeness) + json_len(&by_kind) + 256;
                let cut_unresolved = fit(&mut unresolved, fixed, budget / 4);
                let cut = fit(&mut page, fixed + json_len(&unresolved), budget);
                let more = more || cut;
                page_meta(
                    meta,
                    "references",
                    fp,
                    offset,
                    page.len(),
                    more,
                    cut || cut_unresolved,
                );
                meta.completeness = Some(completeness);
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                Ok(ReferencesData {
                    symbol,
                    total: total as u64,
                    by_kind: kind_counts(&by_kind),
                    references: page,
                    unresolved,
                })
            })
        })
        .await
    }

    #[tool(
        description = "Callers (`direction` in) or callees (`direction` out) of a function or method, breadth first to `depth`, cycle-safe, at most `limit` per level, with completeness. Use it instead of grepping for call sites.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn calls(
        &self,
        Parameters(a): Parameters<CallsArgs>,
    ) -> Result<Json<Envelope<CallsData>>, String> {
        let view = view_request(&a.workspace, a.consistency, &a.virtual_files)?;
        self.blocking(&a.repo.clone(), move |b| {
            b.answer_in(&view, |repo, meta| {
                let mut limits = Limits::default();
                let depth = limits.clamp("depth", a.depth, 3, 1, 6);
                let per_level = limits.clamp("limit", a.limit, 20, 1, 100);
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let incoming = a.direction == Direction::In;
                let direction = if incoming { "in" } else { "out" };
                let fp = fingerprint(&[
                    "calls",
                    &s.stable_id,
                    direction,
                    &depth.to_string(),
                    &per_level.to_string(),
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let graph = repo
                    .calls(&s, incoming, depth, per_level)
                    .map_err(engine_err)?;
                let mut ids: std::collections::HashMap<i64, String> =
                    std::collections::HashMap::from([(graph.root.id, graph.root.stable_id.clone())]);
                for step in &graph.steps {
                    ids.insert(step.neighbor.symbol.id, step.neighbor.symbol.stable_id.clone());
                }
                let total = graph.steps.len();
                let mut page: Vec<CallStepOut> = graph
                    .steps
                    .iter()
                    .skip(offset)
                    .map(|step| CallStepOut {
                        depth: step.depth,
                        from: ids.get(&step.from).cloned().unwrap_or_default(),
                        neighbor: NeighborOut::from(&step.neighbor),
                    })
                    .collect();
                let symbol = SymbolOut::compact(&graph.root);
                let completeness = CompletenessOut::from(&graph.completeness);
                let cut = fit(
                    &mut page,
                    json_len(&symbol) + json_len(&completeness) + 256,
                    budget,
                );
                page_meta(meta, "calls", fp, offset, page.len(), false, cut);
                if graph.truncated {
                    meta.truncated = true;
                    let note = format!(
                        "some level had more than {per_level} symbols and the rest were not followed: raise `limit` (at most 100)"
                    );
                    meta.hint = Some(match meta.hint.take() {
                        Some(h) => format!("{h}; {note}"),
                        None => note,
                    });
                }
                meta.completeness = Some(completeness);
                meta.limit = Some(per_level);
                meta.limits_applied = limits.applied;
                Ok(CallsData {
                    symbol,
                    direction: direction.to_string(),
                    depth: graph.depth,
                    total: total as u64,
                    level_limit_reached: graph.truncated,
                    steps: page,
                })
            })
        })
        .await
    }
}

/// `source`: a symbol's definition or a line range, cut to `max_lines` and the budget.
fn source(repo: &Repo, meta: &mut Meta, a: SourceArgs) -> Result<SourceData, String> {
    let mut limits = Limits::default();
    let max_lines = limits.clamp("max_lines", a.max_lines, 120, 1, 400) as usize;
    let context = if a.context_lines > 50 {
        limits.applied.push(format!(
            "context_lines: {} exceeds the hard cap, 50 used",
            a.context_lines
        ));
        50
    } else {
        a.context_lines
    };
    let budget = limits.budget_bytes(a.max_tokens);
    let symbol_arg = a.symbol.trim();
    let path_arg = a.path.trim();
    if !a.content.is_empty() && path_arg.is_empty() {
        return Err("argument `content` needs `path`: the file it is the unsaved text of".into());
    }
    let span = match (symbol_arg.is_empty(), path_arg.is_empty()) {
        (true, true) => return Err("give `symbol` or `path`".into()),
        (false, false) => return Err("give `symbol` or `path`, not both".into()),
        (false, true) => {
            let s = repo.resolve_symbol(symbol_arg).map_err(engine_err)?;
            if a.mode == SourceMode::Signature {
                let text = if s.signature.is_empty() {
                    s.name.clone()
                } else {
                    s.signature.clone()
                };
                let lines = text.lines().count().max(1) as u32;
                meta.limits_applied = limits.applied;
                return Ok(SourceData {
                    path: s.path.clone(),
                    start_line: s.start_line,
                    end_line: s.start_line + lines - 1,
                    mode: a.mode,
                    text,
                    file_changed: false,
                    omitted: None,
                    symbol: Some(SymbolOut::full(&s)),
                });
            }
            repo.source_of(&s, context).map_err(engine_err)?
        }
        (true, false) => {
            if a.mode == SourceMode::Signature {
                return Err(
                    "mode `signature` needs `symbol` (a file range has no single signature)".into(),
                );
            }
            let start = a.start_line.max(1);
            let end = if a.end_line == 0 {
                u32::MAX - context
            } else if a.end_line < start {
                return Err(format!(
                    "argument `end_line` ({}) is before `start_line` ({start})",
                    a.end_line
                ));
            } else {
                a.end_line
            };
            if a.content.is_empty() {
                repo.source_range(path_arg, start, end, context)
                    .map_err(engine_err)?
            } else {
                repo.virtual_range(path_arg, &a.content, start, end, context)
                    .map_err(engine_err)?
            }
        }
    };
    let lines: Vec<&str> = span.text.lines().collect();
    let first = span.start_line;
    // Very long lines (minified or generated code) are cut so `max_lines` bounds the size.
    let mut long_lines = 0usize;
    // Invisible characters (bidi overrides, zero-width, terminal escapes) are written out.
    let mut invisible_lines = 0usize;
    let mut cap = |l: &str| -> String {
        let (visible, flagged) = sextant_engine::redact::make_visible(l);
        if flagged {
            invisible_lines += 1;
        }
        let l = visible.as_ref();
        if l.len() <= LINE_CAP {
            return l.to_string();
        }
        long_lines += 1;
        let mut cut = LINE_CAP;
        while !l.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… [{} more bytes]", &l[..cut], l.len() - cut)
    };
    let mut omitted = None;
    let mut shown: Vec<String> = Vec::new();
    let mut end_line = span.end_line;
    let mut rest_from = None;
    let split = match a.mode {
        SourceMode::HeadTail => head_tail(&lines, max_lines),
        _ => None,
    };
    let overhead = 512 + span.path.len();
    // JSON size of the text: escapes (quotes, backslashes, control characters) count.
    let size_of = |shown: &[String]| -> usize { shown.iter().map(|l| json_len(l) - 1).sum() };
    if let Some((head, tail_from)) = split {
        let skip_start = first + head as u32;
        let skip_end = first + tail_from as u32 - 1;
        shown.extend(lines[..head].iter().map(|l| cap(l)));
        shown.push(format!(
            "… {} lines omitted ({skip_start}-{skip_end}) …",
            skip_end - skip_start + 1
        ));
        shown.extend(lines[tail_from..].iter().map(|l| cap(l)));
        omitted = Some(LineRange {
            start_line: skip_start,
            end_line: skip_end,
        });
        meta.truncated = true;
        if size_of(&shown) + overhead > budget {
            // Over budget even so: fall back to the head alone, cut below.
            shown.clear();
            omitted = None;
        }
    }
    if shown.is_empty() {
        shown.extend(lines.iter().take(max_lines).map(|l| cap(l)));
        if lines.len() > max_lines {
            end_line = first + max_lines as u32 - 1;
            rest_from = Some(end_line + 1);
        }
    }
    // The byte budget: drop trailing lines.
    if omitted.is_none() {
        let mut size = size_of(&shown);
        if size + overhead > budget {
            while shown.len() > 1 && size + overhead > budget {
                if let Some(l) = shown.pop() {
                    size -= json_len(&l) - 1;
                }
            }
            end_line = first + shown.len() as u32 - 1;
            rest_from = Some(end_line + 1);
        }
    }
    if invisible_lines > 0 {
        limits.applied.push(format!(
            "{invisible_lines} lines hold invisible characters (bidirectional overrides, zero-width characters or control codes), written as \\u{{…}}"
        ));
    }
    if long_lines > 0 {
        meta.truncated = true;
        limits.applied.push(format!(
            "{long_lines} lines longer than {LINE_CAP} bytes were cut"
        ));
    }
    if let Some(from) = rest_from {
        meta.truncated = true;
        meta.hint = Some(format!(
            "lines {first}-{end_line} shown: call `source` with path = \"{}\" and start_line = {from} for more, or raise max_lines / max_tokens, or use mode head_tail",
            span.path
        ));
    } else if omitted.is_some() {
        meta.hint = Some(format!(
            "the middle was left out: call `source` with path = \"{}\" and start_line/end_line for it",
            span.path
        ));
    }
    meta.limits_applied = limits.applied;
    Ok(SourceData {
        path: span.path.clone(),
        start_line: first,
        end_line: end_line.max(first),
        mode: a.mode,
        text: shown.join("\n"),
        file_changed: span.stale,
        omitted,
        symbol: span.symbol.as_ref().map(SymbolOut::full),
    })
}
