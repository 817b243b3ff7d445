//! `sextant export`: the whole graph as JSON, JSON lines, Graphviz DOT or GraphML, or the call
//! graph as JSON. Written straight to stdout (a closed pipe ends the program with success, as in
//! `output.rs`) or to `--output FILE`, node by node and edge by edge.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;
use sextant_engine::{Error, ExportEdge, ExportNode, GraphExport, Repo};
use sextant_model::EdgeKind;

/// Output formats of `sextant export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One JSON document: `{"nodes": [...], "edges": [...], "generation", "commit"}`.
    Json,
    /// One JSON object per line: `{"type":"node",...}` lines, then `{"type":"edge",...}` lines.
    Jsonl,
    /// A Graphviz digraph (node labels = qualified names, edge labels = kinds).
    Dot,
    /// GraphML XML with typed attribute keys.
    Graphml,
    /// `{caller: [callees]}` by qualified name, from `calls` edges.
    Callgraph,
}

/// Parses one `--kinds` value: a known edge kind.
pub fn parse_kind(text: &str) -> Result<String, String> {
    let text = text.trim();
    match EdgeKind::parse(text) {
        Some(k) => Ok(k.as_str().to_string()),
        None => Err(format!(
            "unknown edge kind `{text}` (known: {})",
            EdgeKind::ALL
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

enum Data {
    Graph(GraphExport),
    Calls(BTreeMap<String, Vec<String>>),
}

/// Computes the export, then writes it to `file` (or stdout).
pub fn run(
    repo: &Repo,
    format: Format,
    kinds: &[String],
    file: Option<&Path>,
) -> Result<(), Error> {
    // Query first, so a failure never leaves a half-written or empty file behind.
    let data = match format {
        Format::Callgraph => Data::Calls(repo.call_graph()?),
        _ => Data::Graph(repo.export_graph(kinds)?),
    };
    let mut out: Box<dyn Write> = match file {
        Some(path) => Box::new(BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| Error::Io(format!("cannot create {}: {e}", path.display())))?,
        )),
        None => Box::new(BufWriter::with_capacity(1 << 16, io::stdout().lock())),
    };
    let written = match &data {
        Data::Calls(calls) => serde_json::to_writer_pretty(&mut out, calls)
            .map_err(io::Error::from)
            .and_then(|_| out.write_all(b"\n")),
        Data::Graph(graph) => match format {
            Format::Jsonl => jsonl(&mut out, graph),
            Format::Dot => dot(&mut out, graph),
            Format::Graphml => graphml(&mut out, graph),
            _ => json(&mut out, graph),
        },
    }
    .and_then(|_| out.flush());
    match written {
        Ok(()) => Ok(()),
        Err(e) if file.is_none() && e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Error::Io(format!(
            "writing {}: {e}",
            file.map(|p| p.display().to_string())
                .unwrap_or_else(|| "stdout".into())
        ))),
    }
}

#[derive(Serialize)]
struct NodeOut<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    tag: Option<&'static str>,
    id: i64,
    stable_id: &'a str,
    kind: &'a str,
    name: &'a str,
    qualified_name: &'a str,
    path: &'a str,
    start_line: u32,
    end_line: u32,
    language: &'a str,
}

impl<'a> NodeOut<'a> {
    fn new(n: &'a ExportNode, tag: Option<&'static str>) -> Self {
        NodeOut {
            tag,
            id: n.id,
            stable_id: &n.stable_id,
            kind: &n.kind,
            name: &n.name,
            qualified_name: &n.qualified_name,
            path: &n.path,
            start_line: n.start_line,
            end_line: n.end_line,
            language: &n.language,
        }
    }
}

#[derive(Serialize)]
struct SiteOut<'a> {
    path: &'a str,
    line: u32,
}

#[derive(Serialize)]
struct EdgeOut<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    tag: Option<&'static str>,
    src: i64,
    dst: i64,
    kind: &'a str,
    provenance: &'a str,
    rule: &'a str,
    site: Option<SiteOut<'a>>,
}

impl<'a> EdgeOut<'a> {
    fn new(e: &'a ExportEdge, tag: Option<&'static str>) -> Self {
        EdgeOut {
            tag,
            src: e.src,
            dst: e.dst,
            kind: &e.kind,
            provenance: &e.provenance,
            rule: &e.rule,
            site: e.site.as_ref().map(|s| SiteOut {
                path: &s.path,
                line: s.line,
            }),
        }
    }
}

/// One document, one node or edge per line.
fn json(out: &mut dyn Write, g: &GraphExport) -> io::Result<()> {
    out.write_all(b"{\"nodes\": [")?;
    for (i, n) in g.nodes.iter().enumerate() {
        out.write_all(if i == 0 { b"\n  " } else { b",\n  " })?;
        serde_json::to_writer(&mut *out, &NodeOut::new(n, None))?;
    }
    out.write_all(b"\n],\n\"edges\": [")?;
    for (i, e) in g.edges.iter().enumerate() {
        out.write_all(if i == 0 { b"\n  " } else { b",\n  " })?;
        serde_json::to_writer(&mut *out, &EdgeOut::new(e, None))?;
    }
    write!(out, "\n],\n\"generation\": {},\n\"commit\": ", g.generation)?;
    serde_json::to_writer(&mut *out, &g.commit)?;
    out.write_all(b"}\n")
}

fn jsonl(out: &mut dyn Write, g: &GraphExport) -> io::Result<()> {
    for n in &g.nodes {
        serde_json::to_writer(&mut *out, &NodeOut::new(n, Some("node")))?;
        out.write_all(b"\n")?;
    }
    for e in &g.edges {
        serde_json::to_writer(&mut *out, &EdgeOut::new(e, Some("edge")))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A DOT double-quoted string: quotes and backslashes escaped, line breaks as `\n`, other
/// control characters dropped.
fn dot_quote(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if c.is_control() => {}
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// One line per node, then one line per edge.
fn dot(out: &mut dyn Write, g: &GraphExport) -> io::Result<()> {
    writeln!(out, "digraph sextant {{")?;
    writeln!(out, "  node [shape=box];")?;
    for n in &g.nodes {
        writeln!(
            out,
            "  n{} [label={}, tooltip={}];",
            n.id,
            dot_quote(&n.qualified_name),
            dot_quote(&format!("{} {}:{}", n.kind, n.path, n.start_line))
        )?;
    }
    for e in &g.edges {
        let style = if e.provenance == "ambiguous" {
            ", style=dashed"
        } else {
            ""
        };
        writeln!(
            out,
            "  n{} -> n{} [label={}{style}];",
            e.src,
            e.dst,
            dot_quote(&e.kind)
        )?;
    }
    writeln!(out, "}}")
}

/// Text for XML content and attribute values: markup characters escaped, characters XML 1.0
/// forbids replaced by U+FFFD.
fn xml_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\t' => s.push_str("&#9;"),
            '\n' => s.push_str("&#10;"),
            '\r' => s.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => s.push('\u{FFFD}'),
            c => s.push(c),
        }
    }
    s
}

/// `(id, for, name, type)` of every GraphML attribute key.
const GRAPHML_KEYS: &[(&str, &str, &str, &str)] = &[
    ("g_generation", "graph", "generation", "long"),
    ("g_commit", "graph", "commit", "string"),
    ("n_stable_id", "node", "stable_id", "string"),
    ("n_kind", "node", "kind", "string"),
    ("n_name", "node", "name", "string"),
    ("n_qualified_name", "node", "qualified_name", "string"),
    ("n_path", "node", "path", "string"),
    ("n_start_line", "node", "start_line", "int"),
    ("n_end_line", "node", "end_line", "int"),
    ("n_language", "node", "language", "string"),
    ("e_kind", "edge", "kind", "string"),
    ("e_provenance", "edge", "provenance", "string"),
    ("e_rule", "edge", "rule", "string"),
    ("e_site_path", "edge", "site_path", "string"),
    ("e_site_line", "edge", "site_line", "int"),
];

fn data(out: &mut dyn Write, key: &str, value: &str) -> io::Result<()> {
    write!(out, r#"<data key="{key}">{}</data>"#, xml_escape(value))
}

fn graphml(out: &mut dyn Write, g: &GraphExport) -> io::Result<()> {
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">"#
    )?;
    for (id, domain, name, kind) in GRAPHML_KEYS {
        writeln!(
            out,
            r#"  <key id="{id}" for="{domain}" attr.name="{name}" attr.type="{kind}"/>"#
        )?;
    }
    writeln!(out, r#"  <graph id="sextant" edgedefault="directed">"#)?;
    writeln!(
        out,
        r#"    <data key="g_generation">{}</data>"#,
        g.generation
    )?;
    if let Some(commit) = &g.commit {
        writeln!(
            out,
            r#"    <data key="g_commit">{}</data>"#,
            xml_escape(commit)
        )?;
    }
    for n in &g.nodes {
        write!(out, r#"    <node id="n{}">"#, n.id)?;
        data(out, "n_stable_id", &n.stable_id)?;
        data(out, "n_kind", &n.kind)?;
        data(out, "n_name", &n.name)?;
        data(out, "n_qualified_name", &n.qualified_name)?;
        data(out, "n_path", &n.path)?;
        data(out, "n_start_line", &n.start_line.to_string())?;
        data(out, "n_end_line", &n.end_line.to_string())?;
        data(out, "n_language", &n.language)?;
        writeln!(out, "</node>")?;
    }
    for (i, e) in g.edges.iter().enumerate() {
        write!(
            out,
            r#"    <edge id="e{i}" source="n{}" target="n{}">"#,
            e.src, e.dst
        )?;
        data(out, "e_kind", &e.kind)?;
        data(out, "e_provenance", &e.provenance)?;
        data(out, "e_rule", &e.rule)?;
        if let Some(site) = &e.site {
            data(out, "e_site_path", &site.path)?;
            data(out, "e_site_line", &site.line.to_string())?;
        }
        writeln!(out, "</edge>")?;
    }
    writeln!(out, "  </graph>")?;
    writeln!(out, "</graphml>")
}
