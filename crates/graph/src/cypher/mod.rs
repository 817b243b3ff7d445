//! A read-only openCypher subset over [`crate::Graph`] (issue 6).
//!
//! ```text
//! query      := single (UNION [ALL] single)* [;]
//! single     := (match | with | unwind)* return
//! match      := [OPTIONAL] MATCH pattern (, pattern)* [WHERE expr]
//! pattern    := [var =] node (rel node)*
//! node       := ( [var] (:Label(|Label)*)* [{key: expr, ...}] )
//! rel        := -[ [var] [:TYPE(|TYPE)*] [*[min][..[max]]] [{key: expr}] ]->  (or <-..-, -..-, -->, <--, --)
//! with       := WITH [DISTINCT] items [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE expr]
//! unwind     := UNWIND expr AS var
//! return     := RETURN [DISTINCT] (* | items) [ORDER BY expr [ASC|DESC], ...] [SKIP n] [LIMIT n]
//! items      := expr [AS name] (, expr [AS name])*
//! ```
//!
//! Expressions: literals (strings with escapes, integers, floats, booleans, null, lists),
//! `$parameters`, variables, `n.prop`, `list[i]`, `list[a..b]`, `n:Label`, arithmetic, `=`,
//! `<>`, `<`, `<=`, `>`, `>=` (chainable), `AND`/`OR`/`XOR`/`NOT`, `IN`, `STARTS WITH`, `ENDS
//! WITH`, `CONTAINS`, `=~` (whole-string regex), `IS [NOT] NULL`, `CASE`, pattern predicates
//! (`(n)<-[:CALLS]-()`, `exists(...)`, `EXISTS { ... }`, `COUNT { ... }`), functions and
//! aggregates (see `compile::FUNCTIONS`).
//!
//! Labels are node kinds (`Function`, `TypeAlias`, ...), relationship types are edge kinds
//! (`CALLS`, `USES_TYPE`, ...); both compare case- and underscore-insensitively. Unknown names
//! are errors listing the valid ones. Anything that writes is refused.
//!
//! Matching is a backtracking row-at-a-time pipeline: each pattern starts at its cheapest node
//! (already bound, an index lookup on `name` / `qualified_name` / `id`, the rarest label, or a
//! scan) and expands along the CSR adjacency filtered by kind; `WHERE` conjuncts run as soon as
//! their variables are bound. Relationships are unique within one `MATCH` (Cypher's rule),
//! variable-length patterns are bounded by `max_hops`, and the whole run by `max_work` and the
//! deadline. Without `ORDER BY`, rows come in a deterministic order (anchors in index order,
//! adjacency in (kind, node) order).

pub mod ast;
mod compile;
mod error;
mod eval;
mod exec;
mod lexer;
mod parser;
mod plan;
mod schema;
mod value;

#[cfg(test)]
mod tests;

use std::time::Instant;

use crate::Graph;

pub use ast::Query;
pub use error::{CypherError, ErrorKind};
pub use schema::{label_name, type_name};
pub use value::Value;

/// Limits and inputs of one run.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    /// Rows returned at most; more set [`QueryResult::truncated`].
    pub max_rows: usize,
    /// Stop with [`ErrorKind::Limit`] after this instant.
    pub deadline: Option<Instant>,
    /// Upper bound of variable-length patterns (`*`, `*2..`, and explicit bounds above it).
    pub max_hops: u32,
    /// `$name` values. Parameters are values, never query text.
    pub params: Vec<(String, Value)>,
    /// Cap on work units: edges expanded, nodes scanned, list elements and rows built.
    pub max_work: u64,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            max_rows: 1000,
            deadline: None,
            max_hops: 10,
            params: Vec::new(),
            max_work: 5_000_000,
        }
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Adjacency entries examined.
    pub expansions: u64,
    /// Candidate nodes examined by scans and index lookups.
    pub rows_scanned: u64,
}

/// Column names and rows.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// More than `max_rows` rows existed; `rows` holds the first `max_rows`.
    pub truncated: bool,
    pub stats: QueryStats,
    /// Things the caller should know, e.g. that an unbounded `*` was capped at `max_hops`.
    pub warnings: Vec<String>,
}

/// Parses a query (no graph needed).
pub fn parse(text: &str) -> Result<Query, CypherError> {
    parser::parse_query(text).map_err(|e| e.locate(text))
}

/// Parses and runs a query over `g`.
pub fn run(g: &Graph, text: &str, opts: &QueryOptions) -> Result<QueryResult, CypherError> {
    let query = parse(text)?;
    let plan = compile::compile(g, &query, opts).map_err(|e| e.locate(text))?;
    exec::execute(g, &plan, opts).map_err(|e| e.locate(text))
}
