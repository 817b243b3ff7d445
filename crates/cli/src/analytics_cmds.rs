//! Graph analytics commands (issue 6): `query` (Cypher), `schema`, `central`, `bridges`,
//! `communities`, `cycles`, `entry-points`, `flows`, `dead-code`, `complexity` and
//! `architecture`: arguments, the engine call, and the text rendering (`--json` prints the
//! engine's result as it serialises). Printed through `output`, the only writer of stdout.

use std::time::Duration;

use clap::{Args, ValueEnum};
use serde::Serialize;
use sextant_engine::*;

use crate::output;

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// A read-only Cypher query, e.g. `MATCH (f:Function)-[:CALLS]->(g) RETURN f.name, g.name`.
    /// `sextant schema` lists the labels, relationship types and properties.
    pub query: String,
    /// At most this many rows.
    #[arg(long, default_value_t = 200)]
    pub max_rows: usize,
    /// At most this many bytes of rows (as JSON); whole rows past it are left out and the
    /// answer says how many.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_bytes: usize,
    /// Stop the query after this many milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub timeout_ms: u64,
}

#[derive(Debug, Args)]
pub struct CentralArgs {
    /// Only these kinds (function, method, class, ...); repeat or separate with commas.
    #[arg(long, value_delimiter = ',')]
    pub kind: Vec<String>,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct LimitArgs {
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct CommunitiesArgs {
    /// Only communities with at least this many members.
    #[arg(long, default_value_t = 3)]
    pub min_size: usize,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CycleLevel {
    /// Files depending on each other.
    File,
    /// Directories depending on each other.
    Module,
    /// Functions calling each other.
    Function,
}

#[derive(Debug, Args)]
pub struct CyclesArgs {
    #[arg(long, value_enum, default_value_t = CycleLevel::File)]
    pub level: CycleLevel,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct EntryPointsArgs {
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct FlowsArgs {
    /// The entry point (name, qualified name, id, script path) or any symbol; without it, the
    /// entry points are listed by how much they reach.
    pub entry: Option<String>,
    /// Levels of calls to follow.
    #[arg(long, default_value_t = 5)]
    pub depth: u32,
    /// At most this many symbols (or entry points).
    #[arg(long, default_value_t = 200)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct DeadCodeArgs {
    /// Only these kinds (function, method, class, ...); repeat or separate with commas.
    #[arg(long, value_delimiter = ',')]
    pub kind: Vec<String>,
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Also list the undecided definitions (`unknown`) with their reasons.
    #[arg(long)]
    pub unknown: bool,
}

#[derive(Debug, Args)]
pub struct ComplexityArgs {
    /// Only files under this path.
    #[arg(long)]
    pub path: Option<String>,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

fn emit<T: Serialize>(json_out: bool, value: &T, text: impl FnOnce(&T) -> String) {
    if json_out {
        output::emit_json(&serde_json::to_value(value).unwrap_or_default());
    } else {
        output::emit(&text(value));
    }
}

fn node_line(n: &NodeRef) -> String {
    format!(
        "{:<10} {:<55} {}:{}",
        n.kind, n.qualified_name, n.path, n.line
    )
}

fn cached_note(cached: bool, ms: f64) -> String {
    if cached {
        format!("(from derived.db, {ms:.1} ms)")
    } else {
        format!("(computed in {ms:.1} ms)")
    }
}

pub fn query(repo: &Repo, json_out: bool, args: &QueryArgs) -> Result<()> {
    let q = repo.query(
        &args.query,
        args.max_rows,
        args.max_bytes,
        Some(Duration::from_millis(args.timeout_ms)),
    )?;
    emit(json_out, &q, query_text);
    Ok(())
}

fn query_text(q: &QueryOutput) -> String {
    let mut widths: Vec<usize> = q.columns.iter().map(|c| c.chars().count()).collect();
    for row in &q.text {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count().min(80));
            }
        }
    }
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:<w$}", c, w = widths.get(i).copied().unwrap_or(0)))
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&q.columns);
    out.push_str(&line(
        &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    ));
    for row in &q.text {
        out.push_str(&line(row));
    }
    out.push_str(&format!(
        "({} row{}, {:.1} ms)\n",
        q.rows.len(),
        if q.rows.len() == 1 { "" } else { "s" },
        q.elapsed_ms
    ));
    if q.truncated {
        out.push_str(&format!(
            "more than {} rows matched; raise --max-rows or add LIMIT / SKIP\n",
            q.max_rows
        ));
    }
    if let Some(t) = &q.output_truncated {
        out.push_str(&format!(
            "{} of {} rows shown: {}\n",
            t.rows_kept, t.rows_total, t.hint
        ));
    }
    for w in &q.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

pub fn schema(repo: &Repo, json_out: bool) -> Result<()> {
    emit(json_out, &repo.schema()?, |s| {
        let mut out = format!(
            "graph schema (generation {}): {} nodes, {} relationships\nnode labels\n",
            s.generation, s.nodes, s.relationships
        );
        for l in &s.node_labels {
            out.push_str(&format!("  {:<14} {:>8}\n", l.name, l.count));
        }
        out.push_str("relationship types\n");
        for t in &s.relationship_types {
            out.push_str(&format!("  {:<14} {:>8}\n", t.name, t.count));
        }
        out.push_str(&format!(
            "node properties          {}\nrelationship properties  {}\nexamples\n",
            s.node_properties.join(", "),
            s.relationship_properties.join(", ")
        ));
        for e in &s.examples {
            out.push_str(&format!("  {e}\n"));
        }
        out
    });
    Ok(())
}

fn ranked_text(list: &[RankedNode]) -> String {
    let mut out = String::new();
    if list.is_empty() {
        out.push_str("  none\n");
    }
    for r in list {
        out.push_str(&format!(
            "{:>4}. {:>10.6}  {}  in {} out {}\n",
            r.rank,
            r.score,
            node_line(&r.node),
            r.incoming,
            r.outgoing
        ));
    }
    out
}

pub fn central(repo: &Repo, json_out: bool, args: &CentralArgs) -> Result<()> {
    emit(json_out, &repo.central(&args.kind, args.limit)?, |c| {
        format!(
            "most central symbols (PageRank over {} nodes, {} iterations{}) {}\n{}",
            c.nodes_ranked,
            c.iterations,
            if c.converged { "" } else { ", not converged" },
            cached_note(c.cached, c.compute_ms),
            ranked_text(&c.results)
        )
    });
    Ok(())
}

pub fn bridges(repo: &Repo, json_out: bool, args: &LimitArgs) -> Result<()> {
    emit(json_out, &repo.bridges(args.limit)?, |b| {
        format!(
            "bridges (betweenness over {} nodes, {}) {}\n{}",
            b.nodes,
            if b.exact {
                "exact".to_string()
            } else {
                format!("estimated from {} sources", b.sources)
            },
            cached_note(b.cached, b.compute_ms),
            ranked_text(&b.results)
        )
    });
    Ok(())
}

pub fn communities(repo: &Repo, json_out: bool, args: &CommunitiesArgs) -> Result<()> {
    emit(
        json_out,
        &repo.communities(args.min_size, args.limit)?,
        |c| {
            let mut out = format!(
                "{} communities ({} with at least {} members), modularity {:.3} {}\n",
                c.count,
                c.eligible,
                c.min_size,
                c.modularity,
                cached_note(c.cached, c.compute_ms)
            );
            for com in &c.communities {
                out.push_str(&format!(
                    "#{:<4} {:<40} {} symbols in {} files, {} internal edges\n",
                    com.id, com.label, com.size, com.files, com.internal_edges
                ));
                for m in &com.top_members {
                    out.push_str(&format!("        {}\n", node_line(&m.node)));
                }
                if !com.links.is_empty() {
                    let links: Vec<String> = com
                        .links
                        .iter()
                        .map(|l| format!("#{} {} ({})", l.community, l.label, l.edges))
                        .collect();
                    out.push_str(&format!("        linked to {}\n", links.join(", ")));
                }
            }
            out
        },
    );
    Ok(())
}

pub fn cycles(repo: &Repo, json_out: bool, args: &CyclesArgs) -> Result<()> {
    let level = match args.level {
        CycleLevel::File => "file",
        CycleLevel::Module => "module",
        CycleLevel::Function => "function",
    };
    emit(json_out, &repo.cycles(level, args.limit)?, |c| {
        let what = match c.level {
            "module" => "directories",
            "function" => "functions (calls)",
            _ => "files",
        };
        let mut out = format!(
            "{} dependency cycle{} among {what} ({} members in all)\n",
            c.count,
            if c.count == 1 { "" } else { "s" },
            c.members_in_cycles
        );
        if c.level == "function" && c.self_recursive > 0 {
            out.push_str(&format!(
                "({} functions call themselves directly; not listed)\n",
                c.self_recursive
            ));
        }
        for (i, cy) in c.cycles.iter().enumerate() {
            out.push_str(&format!("cycle {} ({} members)\n", i + 1, cy.size));
            if cy.nodes.is_empty() {
                for m in &cy.members {
                    out.push_str(&format!("  {m}\n"));
                }
            } else {
                for n in &cy.nodes {
                    out.push_str(&format!("  {}\n", node_line(n)));
                }
            }
            for e in cy.edges.iter().take(10) {
                out.push_str(&format!("    {} -> {} ({})\n", e.from, e.to, e.count));
            }
            if cy.edges.len() > 10 {
                out.push_str(&format!("    ... {} more edges\n", cy.edges.len() - 10));
            }
        }
        out
    });
    Ok(())
}

pub fn entry_points(repo: &Repo, json_out: bool, args: &EntryPointsArgs) -> Result<()> {
    emit(json_out, &repo.entry_points(args.limit)?, |e| {
        let kinds: Vec<String> = e.by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let mut out = format!("{} entry points: {}\n", e.total, kinds.join(", "));
        for i in &e.entries {
            out.push_str(&format!(
                "  {:<12} {}{}\n",
                i.kind,
                node_line(&i.node),
                i.detail
                    .as_ref()
                    .map(|d| format!("  [{d}]"))
                    .unwrap_or_default()
            ));
        }
        if e.entries.len() < e.total {
            out.push_str(&format!(
                "  ... {} more (--limit)\n",
                e.total - e.entries.len()
            ));
        }
        out
    });
    Ok(())
}

pub fn flows(repo: &Repo, json_out: bool, args: &FlowsArgs) -> Result<()> {
    let f = repo.flows(args.entry.as_deref(), args.depth, args.limit)?;
    emit(json_out, &f, |f| {
        let Some(entry) = &f.entry else {
            let mut out = format!(
                "{} entry points by reach (calls and instantiations, depth {})\n",
                f.flows_total, f.depth
            );
            for s in &f.flows {
                out.push_str(&format!(
                    "  {:<12} {:>5} symbols {:>4} files  {}\n",
                    s.kind,
                    s.reached,
                    s.files,
                    node_line(&s.entry)
                ));
            }
            if f.flows.is_empty() {
                out.push_str("  none (see `sextant entry-points`)\n");
            }
            return out;
        };
        let mut out = format!(
            "flow from {} ({} symbols reached, depth {})\n",
            entry.qualified_name, f.reached, f.depth
        );
        for s in &f.steps {
            let edge = if s.depth == 0 {
                String::new()
            } else {
                format!("{} ", s.edge)
            };
            out.push_str(&format!(
                "{}{edge}{}  {}:{}\n",
                "  ".repeat(s.depth as usize + 1),
                s.node.qualified_name,
                s.node.path,
                s.node.line
            ));
        }
        if f.truncated {
            out.push_str("(cut at --limit)\n");
        }
        out
    });
    Ok(())
}

pub fn dead_code(repo: &Repo, json_out: bool, args: &DeadCodeArgs) -> Result<()> {
    let d = repo.dead_code(&args.kind, args.limit)?;
    emit(json_out, &d, |d| {
        let mut out = format!(
            "dead code: {} dead, {} unknown ({:.0}% of the unreferenced could not be decided), \
             of {} callables and types ({} entry points, {} referenced)\n",
            d.dead_count,
            d.unknown_count,
            d.unknown_share * 100.0,
            d.candidates,
            d.entry_points,
            d.referenced
        );
        for i in &d.dead {
            out.push_str(&format!("  {}  {} lines\n", node_line(&i.node), i.lines));
        }
        if d.dead.len() < d.dead_count {
            out.push_str(&format!(
                "  ... {} more (--limit)\n",
                d.dead_count - d.dead.len()
            ));
        }
        if !d.unknown_by_reason.is_empty() {
            let reasons: Vec<String> = d
                .unknown_by_reason
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect();
            out.push_str(&format!("unknown: {}\n", reasons.join(", ")));
        }
        if args.unknown {
            for i in &d.unknown {
                out.push_str(&format!(
                    "  {}  {}{}\n",
                    node_line(&i.node),
                    i.reason,
                    i.detail
                        .as_ref()
                        .map(|x| format!(" ({x})"))
                        .unwrap_or_default()
                ));
            }
        }
        out.push_str(&format!(
            "rules: public API {}; {}\n",
            if d.rules.exported_is_live {
                "counts as used"
            } else {
                "does not count as used"
            },
            match &d.config_file {
                Some(f) => format!("[dead_code] from {f}"),
                None => "add [dead_code] live_decorators / live_names / live_paths / exported_is_live to .sextant.toml".to_string(),
            }
        ));
        out
    });
    Ok(())
}

pub fn complexity(repo: &Repo, json_out: bool, args: &ComplexityArgs) -> Result<()> {
    emit(
        json_out,
        &repo.complexity(args.limit, args.path.as_deref())?,
        |c| {
            let mut out = format!(
                "cyclomatic complexity: {} functions, total {}, mean {:.2}{}\nmost complex\n",
                c.functions,
                c.total,
                c.mean,
                c.path_prefix
                    .as_ref()
                    .map(|p| format!(" (under {p})"))
                    .unwrap_or_default()
            );
            for f in &c.most_complex {
                out.push_str(&format!(
                    "  {:>4}  {}  {} lines\n",
                    f.complexity,
                    node_line(&f.node),
                    f.lines
                ));
            }
            for (title, list) in [("files", &c.files), ("targets", &c.targets)] {
                out.push_str(&format!("{title}\n"));
                for t in list {
                    out.push_str(&format!(
                        "  {:>6} total  {:>5} functions  max {:>4}  mean {:>6.2}  {}\n",
                        t.total, t.functions, t.max, t.mean, t.path
                    ));
                }
            }
            out
        },
    );
    Ok(())
}

pub fn architecture(repo: &Repo, json_out: bool, args: &LimitArgs) -> Result<()> {
    emit(json_out, &repo.architecture(args.limit)?, |a| {
        let mut out = format!(
            "architecture: {} modules (directories of product code), {} dependencies between them\nlayers (0 depends on no other module)\n",
            a.modules, a.module_edges
        );
        for l in &a.layers {
            let more = if l.size > l.modules.len() {
                format!(" ... {} more", l.size - l.modules.len())
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  {:>3}  {}{more}\n",
                l.level,
                l.modules.join(", ")
            ));
        }
        if !a.cycles.is_empty() {
            out.push_str("module cycles\n");
            for c in &a.cycles {
                out.push_str(&format!("  {}\n", c.join(" <-> ")));
            }
        }
        out.push_str("most coupled modules\n");
        for c in &a.coupled {
            out.push_str(&format!(
                "  fan-in {:>3}  fan-out {:>3}  edges {:>5} in {:>5} out  {}\n",
                c.fan_in, c.fan_out, c.edges_in, c.edges_out, c.module
            ));
        }
        out.push_str("hotspots (lines × complexity × centrality)\n");
        for h in &a.hotspots {
            out.push_str(&format!(
                "  {:>10.1}  {}  {} lines, complexity {}, centrality {:.2}\n",
                h.score,
                node_line(&h.node),
                h.lines,
                h.complexity,
                h.centrality
            ));
        }
        out
    });
    Ok(())
}
