//! Text and change tools: `grep` and `changes`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sextant_engine::{ChangeInput, GrepOptions, ImpactDirection};

use super::graph::{ImpactData, impact_data};
use super::*;
use crate::budget::{Cursor, Limits, fingerprint, fit, json_len};
use crate::dto::*;
use crate::server::{SextantServer, engine_err, page_meta};

fn default_grep_limit() -> u32 {
    50
}
fn default_changes_depth() -> u32 {
    2
}

/// How much of each grep hit to show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrepMode {
    /// Each hit with its line text and enclosing symbol.
    #[default]
    Full,
    /// Each hit with its location and enclosing symbol's qualified name, no text.
    Compact,
    /// Only the files with hits and their counts.
    Files,
}

/// `grep` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A regular expression (Rust `regex` syntax, linear time: no backreferences or lookaround),
    /// or a literal string with `fixed`.
    pub pattern: String,
    /// Match `pattern` literally. Default false.
    #[serde(default)]
    pub fixed: bool,
    /// Case-insensitive. Default false.
    #[serde(default)]
    pub ignore_case: bool,
    /// Whole words only. Default false.
    #[serde(default)]
    pub word: bool,
    /// Only files under this repository-relative prefix (`src/`) or matching this glob
    /// (`src/**/*.rs`, `*.py`). Default "": every indexed file.
    #[serde(default)]
    pub path: String,
    /// Only this language id (python, rust, typescript, ...). Default "": any.
    #[serde(default)]
    pub language: String,
    /// `full` (line text + enclosing symbol), `compact` (location + enclosing symbol) or
    /// `files` (files and counts). Default `full`.
    #[serde(default)]
    pub mode: GrepMode,
    /// Hits per page (files in `files` mode). Default 50, at most 500.
    #[serde(default = "default_grep_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// One matching line.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GrepHitOut {
    pub path: String,
    pub line: u32,
    /// 1-based byte column of the first match.
    pub column: u32,
    /// The line (around the match when long); absent in `compact` mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Qualified name of the innermost definition containing the line (absent at top level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Stable id of that definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_id: Option<String>,
    /// The file changed since indexing: the enclosing symbol may be off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub file_changed: bool,
}

/// A file with hits.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GrepFileOut {
    pub path: String,
    pub language: String,
    pub hits: u32,
}

/// `grep` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GrepData {
    pub pattern: String,
    /// The regular expression run.
    pub regex: String,
    pub files_searched: u64,
    /// Hits (empty in `files` mode).
    pub hits: Vec<GrepHitOut>,
    /// Files with hits (`files` mode).
    pub files: Vec<GrepFileOut>,
}

/// Refuses path filters that try to leave the repository.
fn check_repo_path(argument: &str, path: &str) -> Result<(), String> {
    let lower = path.to_ascii_lowercase();
    if path.starts_with('/')
        || path.starts_with('\\')
        || path.contains(':')
        || path.split(['/', '\\']).any(|seg| seg == "..")
        || lower.contains("%2e")
        || lower.contains("%2f")
        || path.contains('\0')
    {
        return Err(format!(
            "argument `{argument}`: {path:?} is not a repository-relative path (no absolute paths, `..` or encoded separators)"
        ));
    }
    Ok(())
}

/// `changes` arguments: a git range, a unified diff, or changed files (default: the working
/// tree against HEAD).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangesArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Git revision to compare from (`main`, `HEAD~3`, a commit; `a..b` ranges too). Default
    /// "": HEAD.
    #[serde(default)]
    pub base: String,
    /// Git revision to compare to. Default "": the working tree (staged and unstaged edits,
    /// new files).
    #[serde(default)]
    pub head: String,
    /// A unified diff (`git diff` output) instead of git revisions. Default "".
    #[serde(default)]
    pub diff: String,
    /// Repository-relative files changed as a whole, instead of git or a diff. Default [].
    #[serde(default)]
    pub files: Vec<String>,
    /// How far to follow dependents of the changed symbols. Default 2, at most 6; 0 skips the
    /// impact.
    #[serde(default = "default_changes_depth")]
    pub depth: u32,
    /// Affected symbols per level. Default 20, at most 100.
    #[serde(default = "default_calls_limit")]
    pub limit: u32,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// A changed file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedFileOut {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// `added`, `deleted`, `modified` or `renamed`.
    pub status: String,
    pub lines_added: u32,
    pub lines_removed: u32,
    /// Which version the index holds: `new`, `old`, `stale` (another: positions may be off),
    /// `not_indexed`.
    pub index: String,
    /// Changed definitions in the file.
    pub symbols: u32,
}

/// A changed definition.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedSymbolOut {
    pub symbol: SymbolOut,
    /// `modified`, `added`, `deleted`, `moved`.
    pub change: String,
    /// Touched only through its members (listed too).
    pub container: bool,
    pub lines_touched: u32,
}

/// `changes` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangesData {
    /// What was compared.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Some changed file's indexed version is not the new side: positions may be off (call
    /// `index`).
    pub index_behind: bool,
    pub notes: Vec<String>,
    pub files: Vec<ChangedFileOut>,
    pub symbols_total: u64,
    pub symbols: Vec<ChangedSymbolOut>,
    /// Who depends on the changed definitions (absent with depth 0 or no changed definitions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<ImpactData>,
}

#[tool_router(router = change_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Search the text of the indexed files with a regular expression or a literal string; every hit names its enclosing function, method or class. Use it instead of shell grep for text that is not a symbol name (messages, config keys, TODOs); `mode` files lists only the files.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn grep(
        &self,
        Parameters(a): Parameters<GrepArgs>,
    ) -> Result<Json<Envelope<GrepData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                if a.pattern.is_empty() {
                    return Err("argument `pattern` must not be empty".into());
                }
                let path = a.path.trim().to_string();
                check_repo_path("path", &path)?;
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 50, 1, 500) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let mode = match a.mode {
                    GrepMode::Full => "full",
                    GrepMode::Compact => "compact",
                    GrepMode::Files => "files",
                };
                let fp = fingerprint(&[
                    "grep",
                    &a.pattern,
                    &format!("{}{}{}", a.fixed, a.ignore_case, a.word),
                    &path,
                    &a.language,
                    mode,
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let options = GrepOptions {
                    fixed_strings: a.fixed,
                    ignore_case: a.ignore_case,
                    word: a.word,
                    path: Some(path).filter(|p| !p.is_empty()),
                    language: Some(a.language.trim().to_string()).filter(|l| !l.is_empty()),
                    max_hits: (offset + limit + 1).min(10_000) as u32,
                    files_only: a.mode == GrepMode::Files,
                };
                let result = repo.grep(&a.pattern, &options).map_err(engine_err)?;
                let mut data = GrepData {
                    pattern: result.pattern.clone(),
                    regex: result.regex.clone(),
                    files_searched: result.files_searched,
                    hits: Vec::new(),
                    files: Vec::new(),
                };
                let (shown, more, cut) = if a.mode == GrepMode::Files {
                    let mut files: Vec<GrepFileOut> = result
                        .files
                        .iter()
                        .skip(offset)
                        .take(limit)
                        .map(|f| GrepFileOut {
                            path: f.path.clone(),
                            language: f.language.clone(),
                            hits: f.hits,
                        })
                        .collect();
                    let more = result.files.len() > offset + files.len() || result.truncated;
                    let cut = fit(&mut files, json_len(&data) + 256, budget);
                    let n = files.len();
                    data.files = files;
                    (n, more, cut)
                } else {
                    let mut hits: Vec<GrepHitOut> = result
                        .hits
                        .iter()
                        .skip(offset)
                        .take(limit)
                        .map(|h| GrepHitOut {
                            path: h.path.clone(),
                            line: h.line,
                            column: h.column,
                            text: (a.mode == GrepMode::Full).then(|| h.text.clone()),
                            symbol: h.symbol.as_ref().map(|s| s.qualified_name.clone()),
                            symbol_id: h.symbol.as_ref().map(|s| s.stable_id.clone()),
                            file_changed: h.file_changed,
                        })
                        .collect();
                    let more = result.hits.len() > offset + hits.len() || result.truncated;
                    let cut = fit(&mut hits, json_len(&data) + 256, budget);
                    let n = hits.len();
                    data.hits = hits;
                    (n, more, cut)
                };
                page_meta(meta, "grep", fp, offset, shown, more, cut);
                if !result.unreadable.is_empty() {
                    limits.applied.push(format!(
                        "{} files could not be read now (changed on disk since indexing?)",
                        result.unreadable.len()
                    ));
                }
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "What a change touches: from git revisions (default: uncommitted work vs HEAD), a unified diff, or a list of files, the changed functions, classes and methods, who depends on them, and the tests to run. Use it before committing or reviewing instead of reading the diff file by file.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn changes(
        &self,
        Parameters(a): Parameters<ChangesArgs>,
    ) -> Result<Json<Envelope<ChangesData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let depth = if a.depth == 0 {
                    0
                } else {
                    limits.clamp("depth", a.depth, 2, 1, 6)
                };
                let per_level = limits.clamp("limit", a.limit, 20, 1, 100);
                let budget = limits.budget_bytes(a.max_tokens);
                let git = !a.base.trim().is_empty() || !a.head.trim().is_empty();
                let diff = !a.diff.trim().is_empty();
                let files = a.files.iter().any(|f| !f.trim().is_empty());
                if [git, diff, files].iter().filter(|x| **x).count() > 1 {
                    return Err(
                        "give git revisions (`base`/`head`), a `diff`, or `files`: one of them"
                            .into(),
                    );
                }
                let input = if diff {
                    ChangeInput::Diff(a.diff.clone())
                } else if files {
                    let mut paths = Vec::new();
                    for f in a.files.iter().map(|f| f.trim()).filter(|f| !f.is_empty()) {
                        check_repo_path("files", f)?;
                        paths.push(f.to_string());
                    }
                    ChangeInput::Files(paths)
                } else {
                    ChangeInput::Git {
                        base: Some(a.base.trim().to_string()).filter(|s| !s.is_empty()),
                        head: Some(a.head.trim().to_string()).filter(|s| !s.is_empty()),
                    }
                };
                let set = repo.changes(&input).map_err(engine_err)?;
                let roots: Vec<sextant_engine::Symbol> = set
                    .symbols
                    .iter()
                    .filter(|c| !c.container && c.change != "deleted")
                    .map(|c| c.symbol.clone())
                    .take(200)
                    .collect();
                let impact = if depth > 0 && !roots.is_empty() {
                    let impact = repo
                        .impact(&roots, ImpactDirection::Upstream, depth, per_level)
                        .map_err(engine_err)?;
                    meta.completeness = Some(CompletenessOut::from(&impact.completeness));
                    Some(impact_data(repo, &impact, 0, usize::MAX).0)
                } else {
                    None
                };
                let mut symbols: Vec<ChangedSymbolOut> = set
                    .symbols
                    .iter()
                    .map(|c| ChangedSymbolOut {
                        symbol: SymbolOut::compact(&c.symbol),
                        change: c.change.to_string(),
                        container: c.container,
                        lines_touched: c.lines_touched,
                    })
                    .collect();
                let mut data = ChangesData {
                    source: set.source.clone(),
                    base: set.base.clone(),
                    head: set.head.clone(),
                    index_behind: set.index_behind,
                    notes: set.notes.clone(),
                    files: set
                        .files
                        .iter()
                        .map(|f| ChangedFileOut {
                            path: f.path.clone(),
                            old_path: f.old_path.clone(),
                            status: f.status.to_string(),
                            lines_added: f.lines_added,
                            lines_removed: f.lines_removed,
                            index: f.index.as_str().to_string(),
                            symbols: f.symbols,
                        })
                        .collect(),
                    symbols_total: symbols.len() as u64,
                    symbols: Vec::new(),
                    impact,
                };
                // The budget: affected symbols go first, then changed symbols, then files.
                let mut cut = false;
                if let Some(impact) = data.impact.as_mut() {
                    let mut affected = std::mem::take(&mut impact.affected);
                    let fixed = json_len(&data) + json_len(&symbols) + 512;
                    cut |= fit(&mut affected, fixed, budget);
                    if let Some(impact) = data.impact.as_mut() {
                        impact.affected = affected;
                    }
                }
                cut |= fit(&mut symbols, json_len(&data) + 256, budget);
                data.symbols = symbols;
                if json_len(&data) > budget {
                    let mut files = std::mem::take(&mut data.files);
                    cut |= fit(&mut files, json_len(&data) + 256, budget);
                    data.files = files;
                }
                if cut {
                    meta.truncated = true;
                    meta.hint = Some("cut to max_tokens: raise max_tokens, lower depth, or pass fewer `files`; `impact` on one changed symbol gives its full list".into());
                }
                if set.index_behind {
                    let note = "the index holds other versions of some changed files: call `index` for exact positions";
                    meta.hint = Some(match meta.hint.take() {
                        Some(h) => format!("{h}; {note}"),
                        None => note.to_string(),
                    });
                }
                meta.limit = Some(per_level);
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_filters_stay_in_the_repository() {
        for bad in [
            "/etc",
            "../x",
            "src/../../x",
            "%2e%2e/x",
            "a%2Fb",
            "C:\\x",
            "\\\\server",
        ] {
            assert!(check_repo_path("path", bad).is_err(), "{bad}");
        }
        for good in ["", "src/", "src/**/*.rs", "*.py", "a..b/c"] {
            assert!(check_repo_path("path", good).is_ok(), "{good}");
        }
    }
}
