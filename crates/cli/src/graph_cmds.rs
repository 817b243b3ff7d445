//! `hierarchy`, `impact`, `path` and `overview`: arguments, the engine call, and the text and JSON
//! renderings (printed through `output`, the only writer of stdout).

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use sextant_engine::*;

use crate::{json, output};

#[derive(Debug, Args)]
pub struct HierarchyArgs {
    /// A type (bases and subtypes) or a method (what it overrides, what overrides it).
    pub symbol: String,
    /// Levels to follow each way.
    #[arg(long, default_value_t = 5)]
    pub depth: u32,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Direction {
    /// Who depends on the symbols (what breaks if they change).
    Upstream,
    /// What the symbols depend on.
    Downstream,
    Both,
}

#[derive(Debug, Args)]
pub struct ImpactArgs {
    /// The changed symbols (names, qualified names, stable ids or file paths).
    #[arg(required = true)]
    pub symbols: Vec<String>,
    #[arg(long, value_enum, default_value_t = Direction::Upstream)]
    pub direction: Direction,
    /// Levels to follow (1 = direct dependants: will break; 2: likely affected; 3+: may need
    /// testing).
    #[arg(long, default_value_t = 3)]
    pub depth: u32,
    /// At most this many symbols per level (and direction).
    #[arg(long, default_value_t = 100)]
    pub limit: u32,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Where the path starts (the dependent symbol).
    pub from: String,
    /// Where it should end (the dependency).
    pub to: String,
    /// Longest path to look for, in hops.
    #[arg(long, default_value_t = 8)]
    pub max_depth: u32,
    /// Only follow these edge kinds (default: all but contains); repeat or separate with commas.
    #[arg(long, value_delimiter = ',', value_parser = crate::export::parse_kind)]
    pub kind: Vec<String>,
}

#[derive(Debug, Args)]
pub struct OverviewArgs {
    /// How many central symbols, largest files, areas and entry points to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

pub fn hierarchy(repo: &Repo, json_out: bool, args: &HierarchyArgs) -> Result<()> {
    let s = repo.resolve_symbol(&args.symbol)?;
    let h = repo.hierarchy(&s, args.depth)?;
    if json_out {
        output::emit_json(&hierarchy_json(&h));
    } else {
        output::emit(&hierarchy_text(&h));
    }
    Ok(())
}

pub fn impact(repo: &Repo, json_out: bool, args: &ImpactArgs) -> Result<()> {
    let mut roots = Vec::new();
    for text in &args.symbols {
        roots.push(repo.resolve_symbol(text)?);
    }
    let direction = match args.direction {
        Direction::Upstream => ImpactDirection::Upstream,
        Direction::Downstream => ImpactDirection::Downstream,
        Direction::Both => ImpactDirection::Both,
    };
    let i = repo.impact(&roots, direction, args.depth, args.limit)?;
    if json_out {
        output::emit_json(&impact_json(&i));
    } else {
        output::emit(&impact_text(&i));
    }
    Ok(())
}

pub fn path(repo: &Repo, json_out: bool, args: &PathArgs) -> Result<()> {
    let from = repo.resolve_symbol(&args.from)?;
    let to = repo.resolve_symbol(&args.to)?;
    let search = repo.path_search(&from, &to, args.max_depth, &args.kind)?;
    if json_out {
        output::emit_json(&path_json(&from, &to, &search));
    } else {
        output::emit(&path_text(&from, &to, &search));
    }
    Ok(())
}

pub fn overview(repo: &Repo, json_out: bool, args: &OverviewArgs) -> Result<()> {
    let o = repo.overview(args.top)?;
    if json_out {
        output::emit_json(&overview_json(&o));
    } else {
        output::emit(&overview_text(&o));
    }
    Ok(())
}

// ---- text ----

fn site_text(n: &Neighbor) -> String {
    n.site
        .as_ref()
        .map(|s| format!("{}:{}", s.path, s.line))
        .unwrap_or_else(|| format!("{}:{}", n.symbol.path, n.symbol.start_line))
}

fn hierarchy_text(h: &Hierarchy) -> String {
    let r = &h.root;
    let mut out = format!(
        "hierarchy of {} {} (depth {})\n",
        r.kind, r.qualified_name, h.depth
    );
    let type_like = matches!(
        r.kind.as_str(),
        "class" | "struct" | "interface" | "trait" | "enum" | "record" | "union"
    );
    let sections: Vec<(&str, &Vec<HierarchyEntry>)> = if type_like {
        vec![("bases", &h.bases), ("derived", &h.derived)]
    } else {
        vec![
            ("overrides", &h.overrides),
            ("overridden by", &h.overridden_by),
        ]
    };
    for (title, list) in sections {
        out.push_str(&format!("{title} ({})\n", list.len()));
        if list.is_empty() {
            out.push_str("  none\n");
        }
        hierarchy_tree(&mut out, list, r.id, 1);
    }
    if !h.unresolved_bases.is_empty() {
        out.push_str("bases not in the index\n");
        for u in &h.unresolved_bases {
            out.push_str(&format!(
                "  {:<11} {:<45} {}:{}  [{}]\n",
                u.kind, u.name, u.site.path, u.site.line, u.reason
            ));
        }
    }
    if h.truncated {
        out.push_str("(some levels were cut at 500 entries)\n");
    }
    out.push_str(&output::completeness(&h.completeness));
    out
}

/// Prints the entries reached from `from`, each followed by those reached from it.
fn hierarchy_tree(out: &mut String, list: &[HierarchyEntry], from: i64, indent: usize) {
    for e in list.iter().filter(|e| e.from == from) {
        let n = &e.neighbor;
        out.push_str(&"  ".repeat(indent));
        out.push_str(&format!(
            "{:<11} {:<45} {}  [{} {}]\n",
            n.edge_kind,
            n.symbol.qualified_name,
            site_text(n),
            n.provenance,
            n.rule
        ));
        if indent < 64 {
            hierarchy_tree(out, list, n.symbol.id, indent + 1);
        }
    }
}

fn risk_title(depth: u32) -> &'static str {
    match depth {
        1 => "will break",
        2 => "likely affected",
        _ => "may need testing",
    }
}

fn impact_text(i: &Impact) -> String {
    let roots: Vec<String> = i
        .roots
        .iter()
        .map(|r| format!("{} {}", r.kind, r.qualified_name))
        .collect();
    let mut out = format!(
        "impact of {} ({}, depth {}, at most {} per level)\n",
        roots.join(", "),
        i.direction.as_str(),
        i.depth,
        i.per_level
    );
    if i.affected.is_empty() {
        out.push_str("  nothing found\n");
    }
    for dir in [ImpactDirection::Upstream, ImpactDirection::Downstream] {
        let entries: Vec<&ImpactEntry> = i.affected.iter().filter(|e| e.direction == dir).collect();
        if entries.is_empty() {
            continue;
        }
        if i.direction == ImpactDirection::Both {
            out.push_str(&format!("{}\n", dir.as_str()));
        }
        let mut last = 0;
        for e in entries {
            if e.depth != last {
                last = e.depth;
                let n = i
                    .affected
                    .iter()
                    .filter(|x| x.direction == dir && x.depth == e.depth)
                    .count();
                out.push_str(&format!(
                    "depth {} ({}): {n}\n",
                    e.depth,
                    risk_title(e.depth)
                ));
            }
            let n = &e.neighbor;
            let labels = if e.labels.is_empty() {
                String::new()
            } else {
                format!("  {}", e.labels.join(" "))
            };
            out.push_str(&format!(
                "  {:<12} {:<45} {}  <- {}  [{}]{labels}\n",
                n.edge_kind,
                n.symbol.qualified_name,
                site_text(n),
                e.from_name,
                n.provenance
            ));
        }
    }
    let by_depth: Vec<String> = i
        .by_depth
        .iter()
        .map(|(d, n)| format!("depth {d}: {n}"))
        .collect();
    let by_label: Vec<String> = i.by_label.iter().map(|(l, n)| format!("{l} {n}")).collect();
    out.push_str(&format!(
        "summary  {} affected ({}){}\n",
        i.affected.len(),
        if by_depth.is_empty() {
            "none".to_string()
        } else {
            by_depth.join(", ")
        },
        if by_label.is_empty() {
            String::new()
        } else {
            format!("; {}", by_label.join(", "))
        }
    ));
    if !i.files.is_empty() {
        out.push_str(&format!("files ({})\n", i.files.len()));
        for (path, n) in i.files.iter().take(20) {
            out.push_str(&format!("  {path} ({n})\n"));
        }
        if i.files.len() > 20 {
            out.push_str(&format!("  ... {} more\n", i.files.len() - 20));
        }
    }
    if !i.tests.is_empty() {
        out.push_str(&format!(
            "tests to run ({} in {} files)\n",
            i.tests.len(),
            i.test_files.len()
        ));
        for t in &i.tests {
            if t.kind == "file" {
                out.push_str(&format!("  {}\n", t.path));
            } else {
                out.push_str(&format!(
                    "  {}  {}:{}\n",
                    t.qualified_name, t.path, t.start_line
                ));
            }
        }
    }
    if i.truncated {
        out.push_str("(some levels were cut by --limit)\n");
    }
    out.push_str(&output::completeness(&i.completeness));
    out
}

fn path_text(from: &Symbol, to: &Symbol, s: &PathSearch) -> String {
    let Some(p) = &s.path else {
        let reason = if s.exhausted {
            format!(
                "none in the graph: every node reachable from one end was visited ({} nodes, {} hops); unresolved references may hide one",
                s.visited, s.searched_depth
            )
        } else if s.capped {
            format!(
                "searched {} hops before the node cap ({} nodes)",
                s.searched_depth, s.visited
            )
        } else {
            format!(
                "searched every path up to {} hops ({} nodes); try --max-depth",
                s.searched_depth, s.visited
            )
        };
        return format!(
            "no path from {} to {} within {} hops: {reason}\n",
            from.qualified_name, to.qualified_name, s.max_depth
        );
    };
    let mut out = format!(
        "path from {} to {} ({} hops)\n  {} {}  {}:{}\n",
        from.qualified_name,
        to.qualified_name,
        p.hops.len(),
        from.kind,
        from.qualified_name,
        from.path,
        from.start_line
    );
    for h in &p.hops {
        let n = &h.neighbor;
        let site = n
            .site
            .as_ref()
            .map(|s| format!("  at {}:{}", s.path, s.line))
            .unwrap_or_default();
        out.push_str(&format!(
            "  -{}-> {} {}{site}  [{} {}]\n",
            n.edge_kind, n.symbol.kind, n.symbol.qualified_name, n.provenance, n.rule
        ));
    }
    out
}

fn overview_text(o: &Overview) -> String {
    let short = |c: &Option<String>| {
        c.as_deref()
            .map(|c| c[..c.len().min(12)].to_string())
            .unwrap_or_else(|| "-".into())
    };
    let mut out = format!("{}\n", o.root.display());
    out.push_str(&format!(
        "index     generation {} at commit {} ({}){}{}\n",
        o.generation,
        short(&o.commit),
        o.branch.as_deref().unwrap_or("-"),
        if o.uncommitted_files > 0 {
            format!(", {} uncommitted files", o.uncommitted_files)
        } else {
            String::new()
        },
        if o.stale {
            format!(
                "  STALE: HEAD is {}; run `sextant index`",
                short(&o.head_commit)
            )
        } else {
            String::new()
        }
    ));
    out.push_str(&format!(
        "totals    {} files, {}, {} symbols, {} edges\n",
        o.files,
        output::human_bytes(o.bytes),
        o.symbols,
        o.edges
    ));
    out.push_str("languages\n");
    for l in &o.languages {
        out.push_str(&format!(
            "  {:<12} {:>6} files {:>10} {:>8} symbols\n",
            l.language,
            l.files,
            output::human_bytes(l.bytes),
            l.symbols
        ));
    }
    out.push_str(&format!(
        "areas ({}{})\n",
        o.areas.len(),
        if o.areas_total > o.areas.len() as u64 {
            format!(" of {}", o.areas_total)
        } else {
            String::new()
        }
    ));
    for a in &o.areas {
        let languages: Vec<&str> = a
            .languages
            .iter()
            .take(3)
            .map(|(l, _)| l.as_str())
            .collect();
        out.push_str(&format!(
            "  {:<32} {:>6} files {:>8} symbols  {}{}\n",
            a.path,
            a.files,
            a.symbols,
            languages.join(", "),
            if a.languages.len() > 3 { ", ..." } else { "" }
        ));
    }
    out.push_str(&format!(
        "entry points ({}{})\n",
        o.entry_points.len(),
        if o.entry_points_total > o.entry_points.len() as u64 {
            format!(" of {}", o.entry_points_total)
        } else {
            String::new()
        }
    ));
    if o.entry_points.is_empty() {
        out.push_str("  none found\n");
    }
    for e in &o.entry_points {
        let name = e
            .symbol
            .as_ref()
            .filter(|s| s.kind != "file")
            .map(|s| format!("{}:{}  {}", e.path, s.start_line, s.qualified_name))
            .unwrap_or_else(|| e.path.clone());
        out.push_str(&format!("  {:<12} {name}\n", e.kind));
    }
    out.push_str("most depended on (by incoming calls, references, instantiations, type uses; tests left out)\n");
    for c in &o.central {
        out.push_str(&format!(
            "  {:>5} from {:>4}  {:<11} {:<45} {}:{}\n",
            c.incoming,
            c.sources,
            c.symbol.kind,
            c.symbol.qualified_name,
            c.symbol.path,
            c.symbol.start_line
        ));
    }
    out.push_str("largest files\n");
    for f in &o.largest_files {
        out.push_str(&format!(
            "  {:>10} {:>6} lines {:>5} symbols  {}\n",
            output::human_bytes(f.bytes),
            f.lines,
            f.symbols,
            f.path
        ));
    }
    out
}

// ---- JSON ----

fn hierarchy_entries(list: &[HierarchyEntry]) -> Value {
    Value::Array(
        list.iter()
            .map(|e| {
                let mut v = json::neighbor(&e.neighbor);
                v["depth"] = json!(e.depth);
                v
            })
            .collect(),
    )
}

fn unresolved_json(u: &UnresolvedSite) -> Value {
    json!({
        "path": u.site.path, "line": u.site.line, "col": u.site.col,
        "kind": u.kind, "name": u.name, "reason": u.reason,
    })
}

fn hierarchy_json(h: &Hierarchy) -> Value {
    json!({
        "symbol": json::symbol(&h.root),
        "depth": h.depth,
        "bases": hierarchy_entries(&h.bases),
        "derived": hierarchy_entries(&h.derived),
        "overrides": hierarchy_entries(&h.overrides),
        "overridden_by": hierarchy_entries(&h.overridden_by),
        "unresolved_bases": h.unresolved_bases.iter().map(unresolved_json).collect::<Vec<_>>(),
        "truncated": h.truncated,
        "completeness": json::completeness(&h.completeness),
    })
}

fn impact_json(i: &Impact) -> Value {
    let by_depth: serde_json::Map<String, Value> = i
        .by_depth
        .iter()
        .map(|(d, n)| (d.to_string(), json!(n)))
        .collect();
    let by_label: serde_json::Map<String, Value> = i
        .by_label
        .iter()
        .map(|(l, n)| (l.clone(), json!(n)))
        .collect();
    json!({
        "roots": i.roots.iter().map(json::symbol).collect::<Vec<_>>(),
        "direction": i.direction.as_str(),
        "depth": i.depth,
        "per_level": i.per_level,
        "count": i.affected.len(),
        "truncated": i.truncated,
        "affected": i.affected.iter().map(|e| {
            let mut v = json::neighbor(&e.neighbor);
            v["depth"] = json!(e.depth);
            v["direction"] = json!(e.direction.as_str());
            v["risk"] = json!(e.risk());
            v["from"] = json!(e.from_name);
            v["labels"] = json!(e.labels);
            v
        }).collect::<Vec<_>>(),
        "summary": {"by_depth": by_depth, "by_label": by_label},
        "files": i.files.iter().map(|(p, n)| json!({"path": p, "count": n})).collect::<Vec<_>>(),
        "tests": i.tests.iter().map(json::symbol).collect::<Vec<_>>(),
        "test_files": i.test_files,
        "completeness": json::completeness(&i.completeness),
    })
}

fn path_json(from: &Symbol, to: &Symbol, s: &PathSearch) -> Value {
    json!({
        "from": json::symbol(from),
        "to": json::symbol(to),
        "found": s.path.is_some(),
        "length": s.path.as_ref().map(|p| p.hops.len()),
        "hops": s.path.as_ref().map(|p| p.hops.iter().map(|h| json::neighbor(&h.neighbor)).collect::<Vec<_>>()),
        "max_depth": s.max_depth,
        "searched_depth": s.searched_depth,
        "visited": s.visited,
        "exhausted": s.exhausted,
        "capped": s.capped,
        "kinds": s.kinds,
    })
}

fn overview_json(o: &Overview) -> Value {
    json!({
        "root": o.root,
        "index": {
            "generation": o.generation,
            "commit": o.commit,
            "branch": o.branch,
            "indexed_at": o.indexed_at,
            "head_commit": o.head_commit,
            "stale": o.stale,
            "uncommitted_files": o.uncommitted_files,
        },
        "totals": {"files": o.files, "bytes": o.bytes, "symbols": o.symbols, "edges": o.edges},
        "languages": o.languages.iter().map(|l| json!({
            "language": l.language, "files": l.files, "bytes": l.bytes, "symbols": l.symbols,
        })).collect::<Vec<_>>(),
        "areas": o.areas.iter().map(|a| json!({
            "path": a.path, "files": a.files, "bytes": a.bytes, "symbols": a.symbols,
            "languages": a.languages.iter().map(|(l, n)| json!({"language": l, "files": n})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "areas_total": o.areas_total,
        "entry_points": o.entry_points.iter().map(|e| json!({
            "kind": e.kind, "path": e.path, "symbol": e.symbol.as_ref().map(json::symbol),
        })).collect::<Vec<_>>(),
        "entry_points_total": o.entry_points_total,
        "central": o.central.iter().map(|c| json!({
            "symbol": json::symbol(&c.symbol), "incoming": c.incoming, "sources": c.sources,
        })).collect::<Vec<_>>(),
        "central_by": "incoming calls, references, instantiates and uses_type edges",
        "largest_files": o.largest_files.iter().map(|f| json!({
            "path": f.path, "language": f.language, "bytes": f.bytes, "lines": f.lines,
            "symbols": f.symbols,
        })).collect::<Vec<_>>(),
    })
}
