//! The graph schema (the Cypher vocabulary with counts) and Cypher queries with their rows
//! rendered as JSON values: nodes as objects, relationships with both ends, paths as lists,
//! and an output cap that keeps whole rows and says what was left out.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value as Json, json};
use sextant_graph::cypher::{self, Value};
use sextant_graph::{Graph, Ix};

use super::{Loaded, ms};
use crate::query::Repo;
use crate::{Error, Result};

/// A label or relationship type with how many nodes or (merged) edges carry it.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaEntry {
    /// As written in queries: `Function`, `USES_TYPE`.
    pub name: &'static str,
    /// The kind as stored: `function`, `uses_type`.
    pub kind: &'static str,
    pub count: usize,
}

/// What a query can name.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaReport {
    pub generation: i64,
    pub nodes: usize,
    /// Relationships as the graph holds them: parallel edges of one kind merged (`count`
    /// says how many), `CONTAINS` included.
    pub relationships: usize,
    pub node_labels: Vec<SchemaEntry>,
    pub relationship_types: Vec<SchemaEntry>,
    /// Property names, aliases included (`qname` for `qualified_name`, `path`, `line`).
    pub node_properties: Vec<&'static str>,
    pub relationship_properties: Vec<&'static str>,
    pub examples: Vec<&'static str>,
}

/// A Cypher query that cannot run, with where in the text.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("{display}")]
pub struct QueryError {
    /// `syntax`, `unsupported`, `unknown`, `limit` or `type`.
    pub kind: &'static str,
    pub message: String,
    /// Byte offset into the query.
    pub offset: usize,
    pub line: u32,
    pub column: u32,
    /// `line L, column C: message`, the query line and a caret under the position.
    pub display: String,
}

/// Rows left out to keep a query's output under its byte cap.
#[derive(Debug, Clone, Serialize)]
pub struct QueryTruncation {
    /// Rows the query returned.
    pub rows_total: usize,
    /// Rows kept (whole rows, in order).
    pub rows_kept: usize,
    /// Bytes all rows would take as JSON.
    pub bytes: usize,
    pub max_output_bytes: usize,
    pub hint: String,
}

/// A query's answer.
#[derive(Debug, Clone, Serialize)]
pub struct QueryOutput {
    pub generation: i64,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Json>>,
    /// Rows the query produced (at most `max_rows`).
    pub row_count: usize,
    /// More than `max_rows` rows matched; the first `max_rows` were kept.
    pub truncated: bool,
    pub max_rows: usize,
    /// Set when the rows did not fit in `max_output_bytes`.
    pub output_truncated: Option<QueryTruncation>,
    pub warnings: Vec<String>,
    pub expansions: u64,
    pub rows_scanned: u64,
    pub elapsed_ms: f64,
    /// The kept rows rendered for people (`(qualified.name)`, `[a-CALLS->b]`).
    #[serde(skip)]
    pub text: Vec<Vec<String>>,
}

const EXAMPLES: &[&str] = &[
    "MATCH (f:Function) WHERE f.complexity > 10 RETURN f.qualified_name, f.complexity ORDER BY f.complexity DESC LIMIT 10",
    "MATCH (a)-[:CALLS]->(b {name: 'save'}) RETURN a.qualified_name, a.path",
    "MATCH (c:Class)<-[:INHERITS*1..3]-(d) RETURN c.name, count(d) AS subclasses ORDER BY subclasses DESC",
    "MATCH p = (a {name: 'main'})-[:CALLS*1..4]->(b) RETURN p LIMIT 5",
];

fn node_json(loaded: &Loaded, ix: Ix) -> Json {
    let n = loaded.graph.node(ix);
    json!({
        "id": loaded.stable_ids.get(ix as usize),
        "kind": n.kind.as_str(),
        "name": n.name,
        "qualified_name": n.qname,
        "path": n.path,
        "line": n.start_line,
    })
}

fn end_json(loaded: &Loaded, ix: Ix) -> Json {
    json!({
        "id": loaded.stable_ids.get(ix as usize),
        "qualified_name": loaded.graph.node(ix).qname,
    })
}

/// A Cypher value as JSON: nodes as objects, relationships with both ends, paths as their
/// nodes and relationships; non-finite floats as null.
fn value_json(loaded: &Loaded, v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::Str(s) => json!(s),
        Value::List(items) => Json::Array(items.iter().map(|i| value_json(loaded, i)).collect()),
        Value::Node(ix) => node_json(loaded, *ix),
        Value::Rel {
            src,
            dst,
            kind,
            provenance,
            count,
        } => json!({
            "type": cypher::type_name(*kind),
            "src": end_json(loaded, *src),
            "dst": end_json(loaded, *dst),
            "provenance": provenance.as_str(),
            "count": count,
        }),
        Value::Path { nodes, rels } => json!({
            "nodes": nodes.iter().map(|&ix| node_json(loaded, ix)).collect::<Vec<_>>(),
            "rels": rels.iter().map(|r| value_json(loaded, r)).collect::<Vec<_>>(),
        }),
    }
}

/// A query parameter from JSON.
fn param_value(name: &str, v: &Json, depth: usize) -> Result<Value> {
    Ok(match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) if depth < 64 => Value::List(
            items
                .iter()
                .map(|i| param_value(name, i, depth + 1))
                .collect::<Result<_>>()?,
        ),
        Json::Array(_) => {
            return Err(Error::InvalidArgument(format!(
                "parameter ${name}: lists nested more than 64 deep"
            )));
        }
        Json::Object(_) => {
            return Err(Error::InvalidArgument(format!(
                "parameter ${name}: maps are not supported; pass a string, number, boolean, null or a list"
            )));
        }
    })
}

impl Repo {
    /// Node labels and relationship types with counts, and the property names queries can use.
    pub fn schema(&self) -> Result<SchemaReport> {
        let loaded = self.loaded()?;
        let g: &Graph = &loaded.graph;
        let counts = g.kind_counts();
        let mut node_labels: Vec<SchemaEntry> = counts
            .nodes
            .iter()
            .map(|(k, n)| SchemaEntry {
                name: cypher::label_name(*k),
                kind: k.as_str(),
                count: *n,
            })
            .collect();
        node_labels.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(b.name)));
        let mut relationship_types: Vec<SchemaEntry> = counts
            .edges
            .iter()
            .map(|(k, n)| SchemaEntry {
                name: cypher::type_name(*k),
                kind: k.as_str(),
                count: *n,
            })
            .collect();
        relationship_types.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(b.name)));
        Ok(SchemaReport {
            generation: self.generation(),
            nodes: g.len(),
            relationships: g.edge_count(),
            node_labels,
            relationship_types,
            node_properties: cypher::node_properties(),
            relationship_properties: cypher::relationship_properties(),
            examples: EXAMPLES.to_vec(),
        })
    }

    /// Runs a read-only Cypher query over the graph: at most `max_rows` rows (more set
    /// `truncated`), stopped at `deadline`; rows whose JSON would pass `max_output_bytes` are
    /// left out whole and `output_truncated` says how many and what to do. Errors carry the
    /// position and a caret.
    pub fn query(
        &self,
        text: &str,
        max_rows: usize,
        max_output_bytes: usize,
        deadline: Option<Duration>,
    ) -> Result<QueryOutput> {
        self.query_with_params(
            text,
            &serde_json::Map::new(),
            max_rows,
            max_output_bytes,
            deadline,
        )
    }

    /// [`Repo::query`] with `$name` parameters given as JSON: null, booleans, numbers, strings
    /// and lists of them (objects are refused, naming the parameter).
    pub fn query_with_params(
        &self,
        text: &str,
        params: &serde_json::Map<String, Json>,
        max_rows: usize,
        max_output_bytes: usize,
        deadline: Option<Duration>,
    ) -> Result<QueryOutput> {
        let start = Instant::now();
        let params = params
            .iter()
            .map(|(name, v)| Ok((name.clone(), param_value(name, v, 0)?)))
            .collect::<Result<Vec<_>>>()?;
        let loaded = self.loaded()?;
        let max_rows = max_rows.clamp(1, 100_000);
        let opts = cypher::QueryOptions {
            max_rows,
            deadline: deadline.map(|d| start + d),
            params,
            ..cypher::QueryOptions::default()
        };
        let result = cypher::run(&loaded.graph, text, &opts).map_err(|e| {
            Error::Query(QueryError {
                kind: e.kind.as_str(),
                message: e.message.clone(),
                offset: e.offset,
                line: e.line,
                column: e.column,
                display: e.to_string(),
            })
        })?;
        let row_count = result.rows.len();
        let rows: Vec<Vec<Json>> = result
            .rows
            .iter()
            .map(|r| r.iter().map(|v| value_json(&loaded, v)).collect())
            .collect();
        let sizes: Vec<usize> = rows
            .iter()
            .map(|r| serde_json::to_vec(r).map_or(0, |b| b.len()) + 1)
            .collect();
        let bytes: usize = sizes.iter().sum::<usize>() + 2;
        let max_output_bytes = max_output_bytes.max(256);
        let mut kept = rows.len();
        let mut output_truncated = None;
        if bytes > max_output_bytes {
            let mut used = 2;
            kept = 0;
            for s in &sizes {
                if used + s > max_output_bytes {
                    break;
                }
                used += s;
                kept += 1;
            }
            output_truncated = Some(QueryTruncation {
                rows_total: row_count,
                rows_kept: kept,
                bytes,
                max_output_bytes,
                hint: format!(
                    "the rows take {bytes} bytes as JSON, more than the {max_output_bytes} allowed: \
                     return fewer columns (properties such as n.qualified_name instead of whole \
                     nodes or paths), aggregate (count, collect), or add LIMIT / SKIP to page"
                ),
            });
        }
        let mut rows = rows;
        rows.truncate(kept);
        let text_rows = result
            .rows
            .iter()
            .take(kept)
            .map(|r| r.iter().map(|v| v.render(&loaded.graph)).collect())
            .collect();
        Ok(QueryOutput {
            generation: self.generation(),
            columns: result.columns,
            rows,
            row_count,
            truncated: result.truncated,
            max_rows,
            output_truncated,
            warnings: result.warnings,
            expansions: result.stats.expansions,
            rows_scanned: result.stats.rows_scanned,
            elapsed_ms: ms(start),
            text: text_rows,
        })
    }
}
