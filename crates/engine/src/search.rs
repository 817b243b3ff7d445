//! Search with structural filters: regular expressions on names, qualified names and paths,
//! degree bounds (callers, callees, references), paging and summaries.
//!
//! With text, the ranked search of `query.rs` runs with every filter inside its SQL. Without
//! text (allowed when a filter is given), the answer is every node passing the filters in a
//! total order (qualified name, then id), so pages and summaries cover the whole filtered set.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sextant_store::{
    Bounds, CallDegrees, Degree, FilterCandidate, GraphFilters, SearchFilters, Store, TextMatcher,
};

use crate::query::to_symbol;
use crate::types::{SearchHit, SearchOptions};
use crate::{Error, Repo, Result};

/// A ranked search answers at most this many results in all (offset included).
pub const SEARCH_CAP: u32 = 1000;
/// Longest regular expression accepted (bytes).
const REGEX_MAX_LEN: usize = 1000;
/// Compiled size limit of one regular expression.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Above this many candidates a degree is read from one scan of the generation's edges (kept
/// for the process) rather than probed node by node (~1-3 µs each; the scan ~25 ms on Django).
static SCAN_AT: AtomicUsize = AtomicUsize::new(5000);

/// Sets the candidate count above which degrees come from a scan (tests compare both ways).
#[doc(hidden)]
pub fn set_degree_scan_threshold_for_tests(candidates: usize) {
    SCAN_AT.store(candidates, Ordering::Relaxed);
}

/// One page of a search.
#[derive(Debug, Clone)]
pub struct SearchPage {
    pub hits: Vec<SearchHit>,
    /// Matches in all, when the search had no text (every filtered node was listed).
    pub total: Option<u64>,
}

/// Where the matches of a search are.
#[derive(Debug, Clone, Default)]
pub struct SearchSummary {
    /// Matches counted.
    pub matches: u64,
    /// Every match was counted (a ranked search stops at [`SEARCH_CAP`]).
    pub complete: bool,
    /// Counts by kind, most first.
    pub by_kind: Vec<(String, u64)>,
    /// The 20 files with most matches.
    pub by_file: Vec<(String, u64)>,
    /// The 20 directories with most matches (`.` = the root).
    pub by_directory: Vec<(String, u64)>,
    /// How the matches were found (`exact`, `prefix`, `text`, `fuzzy`, `filter`).
    pub by_match: Vec<(String, u64)>,
}

impl SearchOptions {
    /// Some filter narrows the search (then the query text may be empty).
    pub fn has_filters(&self) -> bool {
        self.kinds
            .iter()
            .flat_map(|k| k.split(','))
            .any(|k| !k.trim().is_empty())
            || self
                .language
                .as_deref()
                .is_some_and(|l| !l.trim().is_empty())
            || self
                .path_prefix
                .as_deref()
                .is_some_and(|p| !p.trim().is_empty())
            || [&self.name_regex, &self.qname_regex, &self.file_regex]
                .iter()
                .any(|r| r.as_deref().is_some_and(|r| !r.is_empty()))
            || [
                self.min_callers,
                self.max_callers,
                self.min_callees,
                self.max_callees,
                self.min_references,
                self.max_references,
            ]
            .iter()
            .any(Option::is_some)
    }
}

/// A node kind from a kind (`type_alias`) or a Cypher label (`TypeAlias`, `Function`).
pub fn kind_from_label(text: &str) -> String {
    let text = text.trim();
    if !text.chars().any(|c| c.is_ascii_lowercase()) {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len() + 4);
    for (i, c) in text.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A regular expression argument (linear time, size-limited); errors name the argument.
fn matcher(argument: &str, pattern: Option<&str>) -> Result<Option<TextMatcher>> {
    let Some(pattern) = pattern.filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    if pattern.len() > REGEX_MAX_LEN {
        return Err(Error::InvalidArgument(format!(
            "argument `{argument}`: the regular expression is {} bytes long, at most {REGEX_MAX_LEN} are accepted",
            pattern.len()
        )));
    }
    let re = regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "argument `{argument}`: invalid regular expression {pattern:?}: {e}"
            ))
        })?;
    Ok(Some(TextMatcher::new(move |text| re.is_match(text))))
}

fn bounds(what: &str, min: Option<u32>, max: Option<u32>) -> Result<Bounds> {
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        return Err(Error::InvalidArgument(format!(
            "argument `min_{what}` ({lo}) is greater than `max_{what}` ({hi}): nothing could match"
        )));
    }
    Ok(Bounds { min, max })
}

/// The store's filters for these options (arguments checked).
pub(crate) fn search_filters(options: &SearchOptions) -> Result<SearchFilters> {
    let kinds: Vec<String> = options
        .kinds
        .iter()
        .flat_map(|k| k.split(','))
        .filter(|k| !k.trim().is_empty())
        .map(kind_from_label)
        .collect();
    fn text(o: &Option<String>) -> Option<&str> {
        o.as_deref().map(str::trim).filter(|t| !t.is_empty())
    }
    Ok(SearchFilters {
        skip_files: kinds.is_empty(),
        kinds,
        language: text(&options.language).map(str::to_string),
        path_prefix: text(&options.path_prefix).map(str::to_string),
        graph: GraphFilters {
            name: matcher("name_regex", options.name_regex.as_deref())?,
            qname: matcher("qname_regex", options.qname_regex.as_deref())?,
            path: matcher("file_regex", options.file_regex.as_deref())?,
            callers: bounds("callers", options.min_callers, options.max_callers)?,
            callees: bounds("callees", options.min_callees, options.max_callees)?,
            references: bounds("references", options.min_references, options.max_references)?,
        },
    })
}

fn no_query() -> Error {
    Error::InvalidArgument(
        "give a query, or at least one filter (kind, language, path, name_regex, qname_regex, file_regex, min/max_callers, min/max_callees, min/max_references)".into(),
    )
}

impl Repo {
    /// One page of a search: `options.limit` hits from the `options.offset`-th. With text, the
    /// ranked list of [`Repo::search`] (at most [`SEARCH_CAP`] in all) with the filters applied;
    /// without text (only with a filter), every node passing the filters, by qualified name then
    /// id, with the total.
    pub fn search_page(&self, query: &str, options: &SearchOptions) -> Result<SearchPage> {
        let query = query.trim();
        let filters = search_filters(options)?;
        let limit = options.limit.clamp(1, SEARCH_CAP);
        if query.is_empty() {
            if !options.has_filters() {
                return Err(no_query());
            }
            return self.store().snapshot(|store| {
                let matches = self.filtered(store, &filters)?;
                let total = matches.len() as u64;
                let ids: Vec<i64> = matches
                    .iter()
                    .skip(options.offset as usize)
                    .take(limit as usize)
                    .map(|c| c.id)
                    .collect();
                let hits = store
                    .nodes_by_ids(&ids)?
                    .into_iter()
                    .map(|n| SearchHit {
                        symbol: to_symbol(n),
                        matched: "filter",
                    })
                    .collect();
                Ok(SearchPage {
                    hits,
                    total: Some(total),
                })
            });
        }
        let offset = options.offset.min(SEARCH_CAP);
        let want = offset.saturating_add(limit).min(SEARCH_CAP);
        let hits = self
            .search_ranked(query, &filters, want)?
            .into_iter()
            .skip(offset as usize)
            .collect();
        Ok(SearchPage { hits, total: None })
    }

    /// Counts of the matches by kind, file, directory and how they matched: over every filtered
    /// node without text, over the first [`SEARCH_CAP`] ranked hits with text.
    pub fn search_summary(&self, query: &str, options: &SearchOptions) -> Result<SearchSummary> {
        let query = query.trim();
        let filters = search_filters(options)?;
        let mut kinds: HashMap<String, u64> = HashMap::new();
        let mut files: HashMap<String, u64> = HashMap::new();
        let mut matched: HashMap<String, u64> = HashMap::new();
        let matches;
        let complete;
        if query.is_empty() {
            if !options.has_filters() {
                return Err(no_query());
            }
            let all = self
                .store()
                .snapshot(|store| self.filtered(store, &filters))?;
            for c in &all {
                *kinds.entry(c.kind.clone()).or_default() += 1;
                *files.entry(c.path.clone()).or_default() += 1;
            }
            if !all.is_empty() {
                matched.insert("filter".into(), all.len() as u64);
            }
            matches = all.len() as u64;
            complete = true;
        } else {
            let hits = self.search_ranked(query, &filters, SEARCH_CAP)?;
            for h in &hits {
                *kinds.entry(h.symbol.kind.clone()).or_default() += 1;
                *files.entry(h.symbol.path.clone()).or_default() += 1;
                *matched.entry(h.matched.to_string()).or_default() += 1;
            }
            matches = hits.len() as u64;
            complete = hits.len() < SEARCH_CAP as usize;
        }
        let mut dirs: HashMap<String, u64> = HashMap::new();
        for (path, n) in &files {
            let dir = path.rsplit_once('/').map_or(".", |(d, _)| d);
            *dirs.entry(dir.to_string()).or_default() += n;
        }
        Ok(SearchSummary {
            matches,
            complete,
            by_kind: top(kinds, usize::MAX),
            by_file: top(files, 20),
            by_directory: top(dirs, 20),
            by_match: top(matched, usize::MAX),
        })
    }

    /// Every node passing the filters, by qualified name then id.
    fn filtered(&self, store: &Store, filters: &SearchFilters) -> Result<Vec<FilterCandidate>> {
        let generation = self.generation();
        let mut candidates = store.filter_candidates(generation, filters)?;
        for (degree, b) in filters.graph.degrees() {
            if candidates.is_empty() {
                break;
            }
            let cached = cached_table(store, generation, degree, false)?;
            let table = match cached {
                Some(t) => Some(t),
                None if candidates.len() > SCAN_AT.load(Ordering::Relaxed) => {
                    cached_table(store, generation, degree, true)?
                }
                None => None,
            };
            match table {
                Some(table) => {
                    candidates.retain(|c| b.contains(table.get(&c.id).copied().unwrap_or(0)))
                }
                None => {
                    let ids: Vec<i64> = candidates.iter().map(|c| c.id).collect();
                    let counts = store.degree_probe(generation, &ids, degree, b)?;
                    let mut keep = counts.into_iter().map(|n| b.contains(n));
                    candidates.retain(|_| keep.next().unwrap_or(false));
                }
            }
        }
        candidates.sort_unstable_by(|a, b| a.qname.cmp(&b.qname).then(a.id.cmp(&b.id)));
        Ok(candidates)
    }
}

fn top(counts: HashMap<String, u64>, n: usize) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

// ---- degree tables, one scan per (database, generation), kept for the process ----

type Table = Arc<HashMap<i64, u32>>;

#[derive(Default)]
struct Tables {
    callers: Option<Table>,
    callees: Option<Table>,
    references: Option<Table>,
}

/// Tables by (database path, generation, its start time: tells a re-created database's
/// same-numbered generation apart), most recently used last.
#[allow(clippy::type_complexity)]
static TABLES: Mutex<Vec<((std::path::PathBuf, i64, i64), Tables)>> = Mutex::new(Vec::new());
const TABLE_ENTRIES: usize = 2;

/// The degree table of a generation: the cached one, or (with `build`) a new one.
fn cached_table(
    store: &Store,
    generation: i64,
    degree: Degree,
    build: bool,
) -> Result<Option<Table>> {
    let stamp = store.generation(generation)?.map_or(0, |g| g.started_at);
    let key = (store.path().to_path_buf(), generation, stamp);
    let pick = |t: &Tables| match degree {
        Degree::Callers => t.callers.clone(),
        Degree::Callees => t.callees.clone(),
        Degree::References => t.references.clone(),
    };
    {
        let list = TABLES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = list.iter().find(|(k, _)| *k == key)
            && let Some(table) = pick(t)
        {
            return Ok(Some(table));
        }
    }
    if !build {
        return Ok(None);
    }
    // Built outside the lock (a concurrent caller may build the same table: harmless).
    let mut fresh = Tables::default();
    match degree {
        Degree::Callers | Degree::Callees => {
            let CallDegrees { callers, callees } = store.call_degree_table(generation)?;
            fresh.callers = Some(Arc::new(callers));
            fresh.callees = Some(Arc::new(callees));
        }
        Degree::References => {
            fresh.references = Some(Arc::new(store.reference_degree_table(generation)?));
        }
    }
    let table = pick(&fresh);
    let mut list = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    let mut entry = match list.iter().position(|(k, _)| *k == key) {
        Some(pos) => list.remove(pos),
        None => (key, Tables::default()),
    };
    entry.1.callers = entry.1.callers.take().or(fresh.callers);
    entry.1.callees = entry.1.callees.take().or(fresh.callees);
    entry.1.references = entry.1.references.take().or(fresh.references);
    list.push(entry);
    while list.len() > TABLE_ENTRIES {
        list.remove(0);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_kinds() {
        assert_eq!(kind_from_label("Function"), "function");
        assert_eq!(kind_from_label("TypeAlias"), "type_alias");
        assert_eq!(kind_from_label("type_alias"), "type_alias");
        assert_eq!(kind_from_label("METHOD"), "method");
        assert_eq!(kind_from_label(" EnumMember "), "enum_member");
    }

    #[test]
    fn regex_errors_name_the_argument() {
        let e = matcher("name_regex", Some("(")).err().unwrap().to_string();
        assert!(e.contains("`name_regex`"), "{e}");
        let long = "a".repeat(REGEX_MAX_LEN + 1);
        let e = matcher("file_regex", Some(&long))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("`file_regex`"), "{e}");
        let e = matcher("qname_regex", Some("\\w{1000}{1000}"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("`qname_regex`"), "{e}");
        assert!(matcher("name_regex", Some("")).unwrap().is_none());
    }
}
