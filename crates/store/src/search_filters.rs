//! Structural search filters: text matchers on names, qualified names and paths (predicates the
//! caller supplies, called by SQLite through a function registered for the query), and bounds on
//! a node's degree in the generation's edges:
//!
//! - callers: distinct source nodes of incoming `calls` and `instantiates` edges,
//! - callees: distinct target nodes of outgoing `calls` and `instantiates` edges,
//! - references: incoming edges of any kind (containment is `parent_id`, never an edge row).
//!
//! A ranked search applies every filter inside its SQL (correlated subqueries over `gen_edges`,
//! cheap for the few rows a name lookup finds). A search without text lists the candidates that
//! pass the cheap filters ([`Store::filter_candidates`]) and lets the caller bound degrees with
//! per-candidate probes ([`Store::degree_probe`]) or, for many candidates, one scan of the
//! generation's edges ([`Store::call_degree_table`], [`Store::reference_degree_table`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rusqlite::functions::FunctionFlags;
use rusqlite::params;

use crate::read::{NODE_COLUMNS, NodeRow, SearchFilters, node_row};
use crate::{Result, Store};

/// Edge kinds that make a caller / callee.
pub const CALL_EDGE_KINDS: &[&str] = &["calls", "instantiates"];
const CALL_KINDS_SQL: &str = "('calls', 'instantiates')";
/// The SQL function that runs the matchers of the current query.
const MATCH_FN: &str = "sextant_match";

/// A predicate on a text (a compiled regular expression, in practice).
#[derive(Clone)]
pub struct TextMatcher(Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl TextMatcher {
    pub fn new(f: impl Fn(&str) -> bool + Send + Sync + 'static) -> TextMatcher {
        TextMatcher(Arc::new(f))
    }

    pub fn matches(&self, text: &str) -> bool {
        (self.0)(text)
    }
}

impl fmt::Debug for TextMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TextMatcher")
    }
}

/// Inclusive bounds on a count (`None` = unbounded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    pub min: Option<u32>,
    pub max: Option<u32>,
}

impl Bounds {
    /// Bounds that every count satisfies.
    pub fn is_any(&self) -> bool {
        self.min.unwrap_or(0) == 0 && self.max.is_none()
    }

    pub fn contains(&self, n: u32) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }

    /// Only "none" (`max 0`) or "some" (`min 1`) is asked: an existence test answers it.
    fn existence_only(&self) -> bool {
        let min = self.min.unwrap_or(0);
        matches!((min, self.max), (0, Some(0)) | (1, None))
    }
}

/// Which degree of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Degree {
    Callers,
    Callees,
    References,
}

impl Degree {
    /// Edges counted for a node `n` (its id in SQL `node`), and what is counted.
    fn parts(self, node: &str) -> (String, &'static str) {
        match self {
            Degree::Callers => (
                format!(
                    "FROM gen_edges e WHERE e.generation = ?1 AND e.dst = {node} AND e.kind IN {CALL_KINDS_SQL}"
                ),
                "COUNT(DISTINCT e.src)",
            ),
            Degree::Callees => (
                format!(
                    "FROM gen_edges e WHERE e.generation = ?1 AND e.src = {node} AND e.kind IN {CALL_KINDS_SQL}"
                ),
                "COUNT(DISTINCT e.dst)",
            ),
            Degree::References => (
                format!("FROM gen_edges e WHERE e.generation = ?1 AND e.dst = {node}"),
                "COUNT(*)",
            ),
        }
    }

    /// A SQL condition that `node` has a degree within `bounds` (empty when any degree is).
    fn condition(self, node: &str, bounds: Bounds) -> String {
        if bounds.is_any() {
            return String::new();
        }
        let (from, count) = self.parts(node);
        if bounds.existence_only() {
            let not = if bounds.max == Some(0) { "NOT " } else { "" };
            return format!(" AND {not}EXISTS (SELECT 1 {from})");
        }
        // Bounds are integers: written into the SQL, never text.
        let test = match (bounds.min.filter(|m| *m > 0), bounds.max) {
            (Some(min), Some(max)) => format!("BETWEEN {min} AND {max}"),
            (Some(min), None) => format!(">= {min}"),
            (None, Some(max)) => format!("<= {max}"),
            (None, None) => return String::new(),
        };
        format!(" AND (SELECT {count} {from}) {test}")
    }
}

/// Structural filters (none by default).
#[derive(Debug, Clone, Default)]
pub struct GraphFilters {
    /// On the node's name.
    pub name: Option<TextMatcher>,
    /// On the node's qualified name.
    pub qname: Option<TextMatcher>,
    /// On the path of the node's file.
    pub path: Option<TextMatcher>,
    pub callers: Bounds,
    pub callees: Bounds,
    pub references: Bounds,
}

impl GraphFilters {
    /// Some filter is set.
    pub fn is_set(&self) -> bool {
        self.has_matchers() || !self.degrees().is_empty()
    }

    fn has_matchers(&self) -> bool {
        self.name.is_some() || self.qname.is_some() || self.path.is_some()
    }

    /// The degree bounds that restrict anything.
    pub fn degrees(&self) -> Vec<(Degree, Bounds)> {
        [
            (Degree::Callers, self.callers),
            (Degree::Callees, self.callees),
            (Degree::References, self.references),
        ]
        .into_iter()
        .filter(|(_, b)| !b.is_any())
        .collect()
    }

    /// Conditions on `n` (nodes) and `f` (file_versions) for the matchers.
    pub(crate) fn matcher_sql(&self) -> String {
        let mut s = String::new();
        // The path first: SQLite tests it once per file, before visiting the file's nodes.
        if self.path.is_some() {
            s.push_str(&format!(" AND {MATCH_FN}(2, f.path)"));
        }
        if self.name.is_some() {
            s.push_str(&format!(" AND {MATCH_FN}(0, n.name)"));
        }
        if self.qname.is_some() {
            s.push_str(&format!(" AND {MATCH_FN}(1, n.qname)"));
        }
        s
    }

    /// Conditions on `n` for the degree bounds (`?1` is the generation).
    pub(crate) fn degree_sql(&self) -> String {
        self.degrees()
            .into_iter()
            .map(|(d, b)| d.condition("n.id", b))
            .collect()
    }
}

/// A node passing the cheap filters of a search without text.
#[derive(Debug, Clone)]
pub struct FilterCandidate {
    pub id: i64,
    pub kind: String,
    pub qname: String,
    pub path: String,
}

/// Distinct callers and callees of every node with any (absent = 0).
#[derive(Debug, Clone, Default)]
pub struct CallDegrees {
    pub callers: HashMap<i64, u32>,
    pub callees: HashMap<i64, u32>,
}

impl Store {
    /// Makes `sextant_match(slot, text)` run this query's matchers (slot 0 name, 1 qualified
    /// name, 2 path). Registered per query: no statement is running in between, and a
    /// statement prepared against an earlier registration is prepared again by SQLite.
    pub(crate) fn register_matchers(&self, filters: &GraphFilters) -> Result<()> {
        if !filters.has_matchers() {
            return Ok(());
        }
        let slots = [
            filters.name.clone(),
            filters.qname.clone(),
            filters.path.clone(),
        ];
        self.conn
            .create_scalar_function(MATCH_FN, 2, FunctionFlags::SQLITE_UTF8, move |ctx| {
                let slot: i64 = ctx.get(0)?;
                let text = ctx.get_raw(1);
                let text = text.as_str_or_null().ok().flatten().unwrap_or("");
                Ok(usize::try_from(slot)
                    .ok()
                    .and_then(|s| slots.get(s))
                    .and_then(Option::as_ref)
                    .is_some_and(|m| m.matches(text)))
            })
            .map_err(|e| self.err(e))
    }

    /// Every node of a generation passing the kind, language, path and text filters (not the
    /// degree bounds), unordered.
    pub fn filter_candidates(
        &self,
        generation: i64,
        filters: &SearchFilters,
    ) -> Result<Vec<FilterCandidate>> {
        self.register_matchers(&filters.graph)?;
        let sql = format!(
            "SELECT n.id, n.kind, n.qname, f.path FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE 1 {}",
            filters.base_sql()
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let kinds = filters.kinds_json();
        let prefix = filters.prefix();
        let mut raw = stmt.raw_bind_parameter(1, generation);
        if !filters.kinds.is_empty() {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(3, &kinds));
        }
        if let Some(lang) = &filters.language {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(4, lang));
        }
        if let Some(p) = &prefix {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(5, p));
        }
        raw.map_err(|e| self.err(e))?;
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let row = (|| {
                Ok::<_, rusqlite::Error>(FilterCandidate {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    qname: r.get(2)?,
                    path: r.get(3)?,
                })
            })()
            .map_err(|e| self.err(e))?;
            out.push(row);
        }
        Ok(out)
    }

    /// Nodes by id, in the order of `ids` (unknown ids left out).
    pub fn nodes_by_ids(&self, ids: &[i64]) -> Result<Vec<NodeRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM json_each(?1) AS w
             JOIN nodes n ON n.id = w.value
             JOIN file_versions f ON f.id = n.file_id
             ORDER BY w.key"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_map([ids_json(ids)], node_row)?.collect())
            .map_err(|e| self.err(e))
    }

    /// The degree of each node of `ids` in a generation, in their order, counted by one index
    /// probe per node. With `bounds` asking only "none" or "some", counts are 0 or 1.
    pub fn degree_probe(
        &self,
        generation: i64,
        ids: &[i64],
        degree: Degree,
        bounds: Bounds,
    ) -> Result<Vec<u32>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let (from, count) = degree.parts("w.value");
        let value = if bounds.existence_only() {
            format!("EXISTS (SELECT 1 {from})")
        } else {
            format!("(SELECT {count} {from})")
        };
        let sql = format!("SELECT {value} FROM json_each(?2) AS w ORDER BY w.key");
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map(params![generation, ids_json(ids)], |r| r.get(0))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Distinct callers and callees of every node of a generation: one scan of its call edges.
    pub fn call_degree_table(&self, generation: i64) -> Result<CallDegrees> {
        let mut pairs: Vec<(i64, i64)> = self
            .conn
            .prepare_cached(&format!(
                "SELECT e.src, e.dst FROM gen_edges e
                 WHERE e.generation = ?1 AND e.kind IN {CALL_KINDS_SQL}"
            ))
            .and_then(|mut s| {
                s.query_map([generation], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(|e| self.err(e))?;
        pairs.sort_unstable();
        pairs.dedup();
        let mut out = CallDegrees::default();
        for (src, dst) in pairs {
            *out.callees.entry(src).or_default() += 1;
            *out.callers.entry(dst).or_default() += 1;
        }
        Ok(out)
    }

    /// Incoming edges of every node of a generation with any: one scan of its edges.
    pub fn reference_degree_table(&self, generation: i64) -> Result<HashMap<i64, u32>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT e.dst FROM gen_edges e WHERE e.generation = ?1")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([generation]).map_err(|e| self.err(e))?;
        let mut out: HashMap<i64, u32> = HashMap::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let dst: i64 = r.get(0).map_err(|e| self.err(e))?;
            *out.entry(dst).or_default() += 1;
        }
        Ok(out)
    }
}

/// A JSON array of ids (bound to `json_each`).
fn ids_json(ids: &[i64]) -> String {
    let mut s = String::with_capacity(ids.len() * 8 + 2);
    s.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&id.to_string());
    }
    s.push(']');
    s
}
