//! Everything the CLI prints to stdout goes through here. A closed pipe (`sextant search x | head`)
//! ends the program quietly with success.

#![allow(clippy::print_stdout)]

use std::io::Write;

use sextant_engine::*;

/// Writes text to stdout; exits 0 on a broken pipe.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let result = out.write_all(text.as_bytes()).and_then(|_| {
        if text.ends_with('\n') {
            Ok(())
        } else {
            out.write_all(b"\n")
        }
    });
    if let Err(e) = result.and_then(|_| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

pub fn emit_json(value: &serde_json::Value) {
    emit(&serde_json::to_string_pretty(value).unwrap_or_default());
}

/// One JSON object on one line (streams such as `sextant watch --json`).
pub fn emit_json_line(value: &serde_json::Value) {
    emit(&serde_json::to_string(value).unwrap_or_default());
}

/// Replaces the terminal's current line with `text` (no newline): a live status line. Written
/// in one piece, so an interrupted program never leaves half a line.
pub fn status_line(text: &str) {
    let mut out = std::io::stdout().lock();
    let line = format!("\r\x1b[2K{text}");
    if let Err(e) = out.write_all(line.as_bytes()).and_then(|_| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

fn loc(s: &Symbol) -> String {
    format!("{}:{}", s.path, s.start_line)
}

pub fn symbol_line(s: &Symbol) -> String {
    format!("{:<11} {:<50} {}", s.kind, s.qualified_name, loc(s))
}

pub fn human_bytes(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64)
    } else if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn counts_line(c: &[(String, u64)]) -> String {
    if c.is_empty() {
        return "none".into();
    }
    c.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn index_summary(s: &IndexSummary) -> String {
    let mut out = String::new();
    let commit = s
        .commit
        .as_deref()
        .map(|c| {
            format!(
                "{} ({})",
                &c[..c.len().min(12)],
                s.branch.as_deref().unwrap_or("detached")
            )
        })
        .unwrap_or_else(|| "no git commit".into());
    out.push_str(&format!(
        "Indexed {} at {commit}{}\n",
        s.root.display(),
        if s.dirty {
            ", with uncommitted changes"
        } else {
            ""
        }
    ));
    out.push_str(&format!(
        "  files      {} indexed ({} reused, {} uncommitted, {} with syntax errors), {} unsupported\n",
        s.files_indexed, s.files_reused, s.files_uncommitted, s.files_with_syntax_errors, s.ignored_files
    ));
    if let Some(g) = s.reused_generation {
        out.push_str(&format!(
            "  unchanged  same file versions as generation {g}: its resolution is shared\n"
        ));
    }
    out.push_str(&format!("  skipped    {}\n", counts_line(&s.skipped)));
    out.push_str(&format!("  languages  {}\n", counts_line(&s.languages)));
    out.push_str(&format!(
        "  symbols    {}   references {}   imports {}\n",
        s.symbols, s.references, s.imports
    ));
    out.push_str("  edges      ");
    out.push_str(&counts_line(&s.edges));
    out.push('\n');
    out.push_str(&format!("  unresolved {}\n", counts_line(&s.unresolved)));
    if let Some(x) = &s.scip {
        out.push_str(&format!(
            "  scip       {} {}: {} documents matched; {} sites asserted ({} changed), {} external, {} local\n",
            x.tool,
            x.tool_version,
            x.documents_matched,
            x.sites_asserted,
            x.sites_changed,
            x.sites_external,
            x.sites_local
        ));
    }
    if let Some(c) = &s.cache {
        let mut parts = Vec::new();
        if let (Some(commit), Some(g)) = (&c.pulled, c.pulled_generation) {
            parts.push(format!(
                "pulled {} as generation {g} ({:.2} s)",
                &commit[..commit.len().min(12)],
                c.pull_seconds
            ));
        }
        if let Some(commit) = &c.pushed {
            parts.push(format!(
                "pushed {} ({}, {:.2} s)",
                &commit[..commit.len().min(12)],
                human_bytes(c.pushed_bytes),
                c.push_seconds
            ));
        }
        if parts.is_empty() {
            parts.push("nothing to pull or push".into());
        }
        out.push_str(&format!(
            "  cache      {} in {}\n",
            parts.join(", "),
            c.dir.display()
        ));
        for w in &c.warnings {
            out.push_str(&format!("  cache      warning: {w}\n"));
        }
    }
    out.push_str(&format!(
        "  time       {:.2} s, {:.1} MB/s over {}   database {} (generation {})\n",
        s.wall_seconds,
        s.mb_per_second(),
        human_bytes(s.bytes),
        human_bytes(s.db_bytes),
        s.generation
    ));
    out
}

pub fn search(hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return "no matches".into();
    }
    hits.iter()
        .map(|h| format!("{:<7} {}", h.matched, symbol_line(&h.symbol)))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn card(c: &SymbolCard) -> String {
    let s = &c.symbol;
    let mut out = format!("{} {}\n", s.kind, s.qualified_name);
    out.push_str(&format!("  id          {}\n", s.stable_id));
    out.push_str(&format!(
        "  location    {}:{}-{} ({})\n",
        s.path, s.start_line, s.end_line, s.language
    ));
    out.push_str(&format!("  signature   {}\n", s.signature));
    out.push_str(&format!("  visibility  {}", s.visibility));
    if !s.modifiers.is_empty() {
        out.push_str(&format!("   modifiers {}", s.modifiers.join(" ")));
    }
    if let Some(c) = s.complexity {
        out.push_str(&format!("   complexity {c}"));
    }
    out.push('\n');
    if let Some(p) = &c.parent {
        out.push_str(&format!("  in          {} {}\n", p.kind, p.qualified_name));
    }
    if let Some(doc) = &s.doc {
        out.push_str("  doc\n");
        for line in doc.lines().take(12) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out.push_str(&format!("  incoming    {}\n", counts_line(&c.incoming)));
    out.push_str(&format!("  outgoing    {}\n", counts_line(&c.outgoing)));
    if !c.members.is_empty() {
        out.push_str(&format!("  members ({})\n", c.members.len()));
        for m in c.members.iter().take(30) {
            out.push_str(&format!(
                "    {:<11} {:<30} :{}\n",
                m.kind, m.name, m.start_line
            ));
        }
    }
    for (title, list) in [("callers", &c.callers), ("callees", &c.callees)] {
        if !list.is_empty() {
            out.push_str(&format!("  {title}\n"));
            for n in list {
                out.push_str(&format!(
                    "    {} [{}]\n",
                    symbol_line(&n.symbol),
                    n.provenance
                ));
            }
        }
    }
    out
}

pub fn completeness(c: &Completeness) -> String {
    match c {
        Completeness::Exact => "completeness: exact".into(),
        Completeness::Unknown { reason } => format!("completeness: unknown ({reason})"),
        Completeness::LowerBound {
            unresolved,
            ambiguous,
            sample,
        } => {
            let mut s = format!(
                "completeness: lower bound ({unresolved} unresolved sites with this name, {ambiguous} ambiguous edges)"
            );
            for u in sample {
                s.push_str(&format!(
                    "\n  maybe  {}:{}  {}{}  [{}]",
                    u.site.path,
                    u.site.line,
                    u.receiver
                        .as_deref()
                        .map(|r| format!("{r}."))
                        .unwrap_or_default(),
                    u.name,
                    u.reason
                ));
            }
            s
        }
    }
}

fn neighbor_line(n: &Neighbor) -> String {
    let site = n
        .site
        .as_ref()
        .map(|s| format!("{}:{}", s.path, s.line))
        .unwrap_or_else(|| loc(&n.symbol));
    format!(
        "{:<13} {:<45} {}  [{} {}]",
        n.edge_kind, n.symbol.qualified_name, site, n.provenance, n.rule
    )
}

pub fn references(r: &References) -> String {
    let mut out = format!(
        "{} references to {} {}\n",
        r.references.len(),
        r.target.kind,
        r.target.qualified_name
    );
    for n in &r.references {
        out.push_str(&neighbor_line(n));
        out.push('\n');
    }
    out.push_str(&completeness(&r.completeness));
    out
}

pub fn calls(g: &CallGraph) -> String {
    let mut out = format!(
        "{} of {} {} (depth {})\n",
        g.direction, g.root.kind, g.root.qualified_name, g.depth
    );
    if g.steps.is_empty() {
        out.push_str(&format!("  no {} found\n", g.direction));
    }
    for s in &g.steps {
        out.push_str(&"  ".repeat(s.depth as usize));
        out.push_str(&neighbor_line(&s.neighbor));
        out.push('\n');
    }
    if g.truncated {
        out.push_str("  (more results were cut by --limit)\n");
    }
    out.push_str(&completeness(&g.completeness));
    out
}

pub fn source(s: &SourceSpan) -> String {
    let mut out = String::new();
    if s.stale {
        out.push_str(&format!(
            "# {} changed since it was indexed; showing current lines\n",
            s.path
        ));
    }
    let width = s.end_line.to_string().len();
    for (i, line) in s.text.lines().enumerate() {
        out.push_str(&format!("{:>width$}  {line}\n", s.start_line as usize + i));
    }
    out
}

pub fn status(s: &Status) -> String {
    let mut out = format!(
        "repository  {}\ndata        {}\n",
        s.root.display(),
        s.data_dir.display()
    );
    if !s.indexed {
        out.push_str(&format!(
            "index       none yet; run `sextant index {}`\n",
            s.root.display()
        ));
        return out;
    }
    let short = |c: &Option<String>| {
        c.as_deref()
            .map(|c| c[..c.len().min(12)].to_string())
            .unwrap_or_else(|| "-".into())
    };
    out.push_str(&format!(
        "index       generation {} at commit {} ({}){}\n",
        s.generation.unwrap_or(0),
        short(&s.graph_commit),
        s.graph_branch.as_deref().unwrap_or("-"),
        if s.uncommitted_files > 0 {
            format!(", {} uncommitted files", s.uncommitted_files)
        } else {
            String::new()
        }
    ));
    out.push_str(&format!(
        "HEAD        {} ({}){}\n",
        short(&s.repo_commit),
        s.repo_branch.as_deref().unwrap_or("-"),
        if s.stale {
            "  STALE: HEAD moved since indexing; run `sextant index`"
        } else {
            ""
        }
    ));
    out.push_str(&format!(
        "files       {}   languages: {}\n",
        s.files,
        counts_line(&s.languages)
    ));
    out.push_str(&format!("skipped     {}\n", counts_line(&s.skipped)));
    for f in &s.skipped_files {
        out.push_str(&format!(
            "  {:<10} {} ({})\n",
            f.reason,
            f.path,
            human_bytes(f.size)
        ));
    }
    out.push_str(&format!("database    {}\n", human_bytes(s.db_bytes)));
    out
}

pub fn stats(s: &Stats) -> String {
    let mut out = String::new();
    for (title, c) in [
        ("nodes", &s.nodes),
        ("edges (kind/provenance)", &s.edges),
        ("references", &s.references),
        ("unresolved references", &s.unresolved),
        ("files by language", &s.languages),
    ] {
        out.push_str(&format!("{title}\n"));
        for (k, v) in c {
            out.push_str(&format!("  {k:<32} {v:>9}\n"));
        }
    }
    out
}

pub fn eval(r: &EvalReport, samples: usize) -> String {
    let c = &r.corpus;
    let mut out = format!(
        "compared with {} {}: {} of {} documents, {} of {} in-repository symbols mapped\n\n",
        c.scip_tool,
        c.scip_tool_version,
        c.documents_matched,
        c.scip_documents,
        c.symbols_mapped,
        c.symbols_defined
    );
    out.push_str(&format!(
        "{:<12} {:>6} {:>7} {:>6} {:>8} {:>9} {:>6} {:>12} {:>12}\n",
        "language",
        "files",
        "sites",
        "top1",
        "in-cand",
        "abstained",
        "wrong",
        "callers P/R",
        "refs P/R"
    ));
    for (language, s) in &r.languages {
        out.push_str(&format!(
            "{:<12} {:>6} {:>7} {:>6.3} {:>8.3} {:>9.3} {:>6.3} {:>5.3}/{:<6.3} {:>5.3}/{:<6.3}\n",
            language,
            s.files,
            s.definition.sites,
            s.definition.top1_ratio(),
            s.definition.in_candidates_ratio(),
            s.definition.abstained_ratio(),
            s.definition.wrong_ratio(),
            s.callers.precision(),
            s.callers.recall(),
            s.references.precision(),
            s.references.recall(),
        ));
    }
    if samples > 0 {
        let mut shown: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
        for s in &r.samples {
            let n = shown.entry((&s.language, &s.outcome)).or_default();
            if *n >= samples {
                continue;
            }
            *n += 1;
            out.push_str(&format!(
                "\n{:<14} {}:{}:{} {}{}  expected {}  got [{}]  ({})",
                s.outcome,
                s.path,
                s.line,
                s.col,
                s.receiver
                    .as_ref()
                    .map(|r| format!("{r}."))
                    .unwrap_or_default(),
                s.name,
                s.expected,
                s.got.join(", "),
                s.why
            ));
        }
        out.push('\n');
    }
    out
}

/// `setup`: the files written (or, with `--print`, their contents).
pub fn setup(planned: &[crate::setup::Planned], printed: bool, json: bool) {
    if json {
        let files: Vec<serde_json::Value> = planned
            .iter()
            .map(|p| {
                serde_json::json!({
                    "path": p.path.display().to_string(),
                    "what": p.what,
                    "written": !printed,
                    "text": p.text,
                })
            })
            .collect();
        emit_json(&serde_json::json!({ "files": files }));
        return;
    }
    let mut out = String::new();
    for p in planned {
        if printed {
            out.push_str(&format!(
                "# {} ({})\n{}\n",
                p.path.display(),
                p.what,
                p.text
            ));
        } else {
            out.push_str(&format!("wrote {} ({})\n", p.path.display(), p.what));
        }
    }
    if !printed {
        out.push_str("Restart the agent (or reload its MCP servers) to connect.\n");
    }
    emit(&out);
}
