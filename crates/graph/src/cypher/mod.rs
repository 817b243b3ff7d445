//! A read-only openCypher subset over [`crate::Graph`] (issue 6).
//!
//! ```text
//! query      := single (UNION single)* | single (UNION ALL single)*   [;]
//! single     := (match | with | unwind)* return
//! match      := [OPTIONAL] MATCH pattern (, pattern)* [WHERE expr]
//! pattern    := [var =] node (rel node)*
//! node       := ( [var] (:Label(|Label)*)* [{key: expr, ...}] )
//! rel        := -[ [var] [:TYPE(|TYPE)*] [*[min][..[max]]] [{key: expr, ...}] ]->
//!               (also <-[..]-, -[..]- for either direction, and -->, <--, --)
//! with       := WITH [DISTINCT] (* | items) [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE expr]
//! unwind     := UNWIND expr AS var
//! return     := RETURN [DISTINCT] (* | items) [ORDER BY expr [ASC|DESC], ...] [SKIP n] [LIMIT n]
//! items      := expr [AS name] (, expr [AS name])*
//! ```
//!
//! Expressions: literals (strings in '…' or "…" with escapes, integers incl. `0x…`, floats,
//! booleans, null, lists), `$parameters` (from [`QueryOptions::params`], never spliced into the
//! text), variables, `n.prop`, `list[i]`, `list[a..b]`, `n:Label`, `+ - * / % ^`, `=` `<>`
//! `<` `<=` `>` `>=` (chainable: `a < b < c`), `AND` `OR` `XOR` `NOT`, `IN`, `STARTS WITH`,
//! `ENDS WITH`, `CONTAINS`, `=~` (the whole string must match; linear-time `regex` with size
//! limits), `IS [NOT] NULL`, `CASE`, pattern predicates (`(n)<-[:CALLS]-()`,
//! `exists((n)-->())`, `EXISTS { [MATCH] pattern, ... [WHERE ...] }`, `COUNT { ... }`,
//! `size((n)-->())`), scalar functions (`compile::FUNCTIONS`: `labels type id size length nodes
//! relationships toLower toUpper coalesce toString toInteger toFloat toBoolean startNode endNode
//! head last tail abs round floor ceil sign sqrt trim ltrim rtrim replace substring split left
//! right reverse range isEmpty`) and aggregates (`count(*) count collect sum avg min max`, each
//! with `DISTINCT`), grouped implicitly by the non-aggregate items.
//!
//! Labels are node kinds (`Function`, `TypeAlias`, ...) and relationship types edge kinds
//! (`CALLS`, `USES_TYPE`, ...); both compare case- and underscore-insensitively. Node
//! properties: `id name qualified_name|qname kind label file|path language start_line|line
//! end_line lines visibility modifiers (a list) complexity signature in_degree out_degree`
//! (degrees count merged edges other than `contains`); relationship properties: `type kind
//! provenance count`. Unknown labels, types, properties, variables, functions and parameters
//! are errors that list the valid names; clauses that write (or call procedures) are refused
//! with "read-only: X is not supported".
//!
//! Matching is a push-based, row-at-a-time backtracking pipeline: each pattern starts at its
//! cheapest node (already bound, an index lookup on `name` / `qualified_name` / `id` including
//! `IN [...]`, the rarest label, or a scan) and expands along the CSR adjacency filtered by kind;
//! `WHERE` conjuncts run right after the step that binds their last variable. Relationships are
//! unique within one `MATCH` (as in Cypher; a relationship is a merged edge, so `count` says how
//! many call sites it stands for), variable-length patterns are bounded by `max_hops` (an
//! unbounded or larger upper bound is capped and reported in [`QueryResult::warnings`]), and the
//! whole run by `max_work` (edges expanded, nodes scanned, values buffered or built) and the
//! deadline, both checked as it goes. `LIMIT` and the `max_rows` cap stop matching early;
//! `ORDER BY ... LIMIT` keeps only the rows that can make it. Without `ORDER BY`, rows come in a
//! deterministic order (anchors in index order, adjacency in (kind, node) order).
//!
//! Hostile input is bounded: the text is capped at 64 KiB, expression nesting at 64 levels,
//! patterns at 200 elements and clauses at 64 (so recursion stays shallow: the deepest allowed
//! query needs about 128 KiB of stack in release), strings built at 1 MiB and lists nested 64
//! deep. Errors carry a byte offset (always within the text), line and column.

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

/// The labels a pattern can use (`NodeKind`s in PascalCase), for schema help.
pub fn labels() -> Vec<&'static str> {
    schema::label_names()
}

/// The relationship types (`EdgeKind`s in UPPER_SNAKE_CASE).
pub fn relationship_types() -> Vec<&'static str> {
    schema::type_names()
}

/// Node property names (aliases included: `qname`, `path`, `line`).
pub fn node_properties() -> Vec<&'static str> {
    schema::prop_names(schema::Owner::Node)
}

/// Relationship property names.
pub fn relationship_properties() -> Vec<&'static str> {
    schema::prop_names(schema::Owner::Rel)
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
