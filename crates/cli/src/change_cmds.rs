//! `sextant changes` (what a diff touches, and what that affects) and `sextant grep` (text search
//! with enclosing definitions): arguments, engine calls, and their text and JSON forms. Printing
//! goes through `output::emit`.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Value, json};
use sextant_engine::{
    ChangeInput, ChangeSet, Error, GrepOptions, GrepResult, Impact, ImpactDirection, Repo, Symbol,
};

use crate::{json, output};

/// Arguments of `sextant changes`.
#[derive(Debug, clap::Args)]
pub struct ChangesArgs {
    /// Compare from this revision (`main`, `HEAD~3`; `a..b` and `a...b` ranges too). Alone: that
    /// revision against the working tree. Default: the working tree and index against HEAD.
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Compare up to this revision instead of the working tree.
    #[arg(long, value_name = "REF")]
    pub head: Option<String>,
    /// Read a unified diff (`git diff` output) from this file, or `-` for standard input.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["base", "head", "files"])]
    pub diff: Option<PathBuf>,
    /// These whole files changed (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "PATHS", conflicts_with_all = ["base", "head"])]
    pub files: Vec<String>,
    /// How far to follow dependents of the changed symbols (0: no impact analysis).
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// At most this many affected symbols per level of the impact analysis.
    #[arg(long, default_value_t = 200)]
    pub limit: u32,
}

/// Arguments of `sextant grep`.
#[derive(Debug, clap::Args)]
pub struct GrepArgs {
    /// A regular expression (Rust `regex` syntax), or a literal with --fixed.
    pub pattern: String,
    /// The pattern is a regular expression (the default).
    #[arg(long, conflicts_with = "fixed")]
    pub regex: bool,
    /// The pattern is a literal string.
    #[arg(long, short = 'F')]
    pub fixed: bool,
    /// Ignore case.
    #[arg(short = 'i', long = "ignore-case")]
    pub ignore_case: bool,
    /// Whole words only.
    #[arg(long, short = 'w')]
    pub word: bool,
    /// Only files under this path prefix, or matching this glob (`src/**/*.rs`, `*.py`).
    #[arg(long)]
    pub path: Option<String>,
    /// Only files of this language id (rust, python, typescript, ...).
    #[arg(long)]
    pub lang: Option<String>,
    /// Stop after this many matching lines (with --files-only: files).
    #[arg(long, default_value_t = 200)]
    pub max: u32,
    /// List the matching files with their counts instead of the lines.
    #[arg(long, short = 'l')]
    pub files_only: bool,
}

fn input(args: &ChangesArgs) -> Result<ChangeInput, Error> {
    if let Some(path) = &args.diff {
        let text = if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                Error::InvalidArgument(format!("cannot read the diff from stdin: {e}"))
            })?;
            text
        } else {
            sextant_engine::read_diff_file(path)?
        };
        return Ok(ChangeInput::Diff(text));
    }
    if !args.files.is_empty() {
        return Ok(ChangeInput::Files(args.files.clone()));
    }
    Ok(ChangeInput::Git {
        base: args.base.clone(),
        head: args.head.clone(),
    })
}

/// The symbols whose dependents an impact analysis starts from: the innermost changed
/// definitions (containers would drag in every user of the whole type).
fn impact_roots(set: &ChangeSet) -> Vec<Symbol> {
    set.symbols
        .iter()
        .filter(|s| !s.container && s.change != "added")
        .map(|s| s.symbol.clone())
        .collect()
}

pub fn changes(repo: &Repo, as_json: bool, args: &ChangesArgs) -> Result<(), Error> {
    let set = repo.changes(&input(args)?)?;
    let roots = impact_roots(&set);
    let impact = if args.depth > 0 && !roots.is_empty() {
        Some(repo.impact(&roots, ImpactDirection::Upstream, args.depth, args.limit)?)
    } else {
        None
    };
    if as_json {
        output::emit_json(&changes_json(&set, impact.as_ref()));
    } else {
        output::emit(&changes_text(&set, impact.as_ref()));
    }
    Ok(())
}

pub fn grep(repo: &Repo, as_json: bool, args: &GrepArgs) -> Result<(), Error> {
    let options = GrepOptions {
        fixed_strings: args.fixed,
        ignore_case: args.ignore_case,
        word: args.word,
        path: args.path.clone(),
        language: args.lang.clone(),
        max_hits: args.max.max(1),
        files_only: args.files_only,
    };
    let result = repo.grep(&args.pattern, &options)?;
    if as_json {
        output::emit_json(&grep_json(&result));
    } else {
        output::emit(&grep_text(&result, args.files_only));
    }
    Ok(())
}

fn short(commit: &Option<String>) -> String {
    commit
        .as_deref()
        .map(|c| c[..c.len().min(12)].to_string())
        .unwrap_or_else(|| "-".into())
}

fn ranges_text(ranges: &[(u32, u32)]) -> String {
    ranges
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

pub fn changes_text(set: &ChangeSet, impact: Option<&Impact>) -> String {
    let mut out = format!(
        "{} (base {}{}; index at {})\n",
        set.source,
        short(&set.base),
        set.head
            .as_ref()
            .map(|h| format!(", head {}", &h[..h.len().min(12)]))
            .unwrap_or_default(),
        short(&set.index_commit)
    );
    if set.files.is_empty() {
        out.push_str("no changes\n");
    }
    out.push_str(&format!("\nfiles ({})\n", set.files.len()));
    for f in &set.files {
        let from = f
            .old_path
            .as_ref()
            .map(|o| format!(" (from {o})"))
            .unwrap_or_default();
        let index = match f.index {
            sextant_engine::IndexSide::New => String::new(),
            other => format!("  [index: {}]", other.as_str()),
        };
        let lines = if f.binary {
            "binary".to_string()
        } else {
            format!("+{} -{}", f.lines_added, f.lines_removed)
        };
        out.push_str(&format!(
            "  {:<9} {}{from}  {lines}  {} symbols{index}\n",
            f.status, f.path, f.symbols
        ));
    }
    let direct = set.symbols.iter().filter(|s| !s.container).count();
    out.push_str(&format!(
        "\nchanged symbols ({direct}, and {} containing them)\n",
        set.symbols.len() - direct
    ));
    // Members of a definition added or deleted whole are folded into it (JSON lists them all).
    let whole: std::collections::HashMap<i64, &'static str> = set
        .symbols
        .iter()
        .filter(|s| matches!(s.change, "added" | "deleted") && !s.container)
        .map(|s| (s.symbol.id, s.change))
        .collect();
    let folded = |s: &sextant_engine::ChangedSymbol| {
        s.symbol
            .parent_id
            .and_then(|p| whole.get(&p))
            .is_some_and(|c| *c == s.change)
    };
    let mut members: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for s in set.symbols.iter().filter(|s| folded(s)) {
        let mut top = s.symbol.parent_id;
        while let Some(p) = top {
            let parent = set.symbols.iter().find(|x| x.symbol.id == p);
            match parent {
                Some(x) if folded(x) => top = x.symbol.parent_id,
                _ => break,
            }
        }
        if let Some(p) = top {
            *members.entry(p).or_default() += 1;
        }
    }
    for s in set.symbols.iter().filter(|s| !folded(s)) {
        let what = if s.container { "(contains)" } else { s.change };
        let lines = if s.ranges.is_empty() {
            String::new()
        } else {
            format!("  lines {}", ranges_text(&s.ranges))
        };
        let folded_members = members
            .get(&s.symbol.id)
            .map(|n| format!("  (+{n} members)"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:<10} {}{lines}{folded_members}\n",
            what,
            output::symbol_line(&s.symbol)
        ));
    }
    if let Some(impact) = impact {
        out.push_str(&impact_text(impact));
    }
    for (path, why) in &set.unreadable {
        out.push_str(&format!("\nnot compared: {path} ({why})"));
    }
    if !set.unreadable.is_empty() {
        out.push('\n');
    }
    for note in &set.notes {
        out.push_str(&format!("\nnote: {note}\n"));
    }
    out
}

fn impact_text(impact: &Impact) -> String {
    let mut out = format!(
        "\nimpact: {} dependents within depth {}{}\n",
        impact.affected.len(),
        impact.depth,
        if impact.truncated {
            " (cut by --limit)"
        } else {
            ""
        }
    );
    for risk in ["will_break", "likely_affected", "may_need_testing"] {
        let entries: Vec<_> = impact
            .affected
            .iter()
            .filter(|e| e.risk() == risk)
            .collect();
        if entries.is_empty() {
            continue;
        }
        out.push_str(&format!("  {risk} ({})\n", entries.len()));
        for e in entries.iter().take(30) {
            let labels = if e.labels.is_empty() {
                String::new()
            } else {
                format!("  [{}]", e.labels.join(" "))
            };
            out.push_str(&format!(
                "    {}  via {} {}{labels}\n",
                output::symbol_line(&e.neighbor.symbol),
                e.neighbor.edge_kind,
                e.from_name
            ));
        }
        if entries.len() > 30 {
            out.push_str(&format!("    ... {} more\n", entries.len() - 30));
        }
    }
    if impact.tests.is_empty() {
        out.push_str("  tests to run: none found among the dependents\n");
    } else {
        out.push_str(&format!(
            "  tests to run ({} in {} files)\n",
            impact.tests.len(),
            impact.test_files.len()
        ));
        for f in &impact.test_files {
            out.push_str(&format!("    {f}\n"));
        }
    }
    out.push_str(&format!(
        "  completeness: {}\n",
        impact.completeness.label()
    ));
    out
}

pub fn changes_json(set: &ChangeSet, impact: Option<&Impact>) -> Value {
    json!({
        "source": set.source,
        "base": set.base,
        "head": set.head,
        "index_commit": set.index_commit,
        "index_behind": set.index_behind,
        "files": set.files.iter().map(|f| json!({
            "path": f.path,
            "old_path": f.old_path,
            "status": f.status,
            "language": f.language,
            "lines_added": f.lines_added,
            "lines_removed": f.lines_removed,
            "binary": f.binary,
            "index": f.index.as_str(),
            "symbols": f.symbols,
            "hunks": f.hunks.iter().map(|h| json!([h.old_start, h.old_len, h.new_start, h.new_len])).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "symbols": set.symbols.iter().map(|s| json!({
            "symbol": json::symbol(&s.symbol),
            "change": s.change,
            "container": s.container,
            "lines_touched": s.lines_touched,
            "ranges": s.ranges,
            "index": s.index.as_str(),
        })).collect::<Vec<_>>(),
        "impact": impact.map(impact_json),
        "unreadable": set.unreadable.iter().map(|(p, r)| json!({"path": p, "reason": r})).collect::<Vec<_>>(),
        "notes": set.notes,
    })
}

fn impact_json(impact: &Impact) -> Value {
    json!({
        "direction": impact.direction.as_str(),
        "depth": impact.depth,
        "affected": impact.affected.iter().map(|e| json!({
            "depth": e.depth,
            "risk": e.risk(),
            "symbol": json::symbol(&e.neighbor.symbol),
            "edge": e.neighbor.edge_kind,
            "provenance": e.neighbor.provenance,
            "from": e.from_name,
            "labels": e.labels,
        })).collect::<Vec<_>>(),
        "tests": impact.tests.iter().map(json::symbol).collect::<Vec<_>>(),
        "test_files": impact.test_files,
        "truncated": impact.truncated,
        "completeness": json::completeness(&impact.completeness),
    })
}

pub fn grep_text(r: &GrepResult, files_only: bool) -> String {
    let mut out = String::new();
    if files_only {
        for f in &r.files {
            out.push_str(&format!(
                "{:>6}  {}{}\n",
                f.hits,
                f.path,
                if f.file_changed {
                    "  (changed since indexed)"
                } else {
                    ""
                }
            ));
        }
    } else {
        for h in &r.hits {
            let within = h
                .symbol
                .as_ref()
                .map(|s| format!("  [{} {}]", s.kind, s.qualified_name))
                .unwrap_or_default();
            out.push_str(&format!(
                "{}:{}:{}: {}{}{within}{}\n",
                h.path,
                h.line,
                h.column,
                h.text.trim(),
                if h.text_cut { " …" } else { "" },
                if h.file_changed { "  (changed)" } else { "" }
            ));
        }
    }
    if r.files.is_empty() {
        out.push_str("no matches\n");
    }
    out.push_str(&format!(
        "-- {} {} in {} files; {} of {} files searched{}\n",
        if files_only {
            r.files.iter().map(|f| u64::from(f.hits)).sum::<u64>()
        } else {
            r.hits.len() as u64
        },
        if files_only { "matching lines" } else { "hits" },
        r.files.len(),
        r.files_searched,
        r.files_eligible,
        if r.truncated {
            "; stopped at --max (more may match)"
        } else {
            ""
        }
    ));
    for (path, why) in &r.unreadable {
        out.push_str(&format!("-- not searched: {path} ({why})\n"));
    }
    out
}

pub fn grep_json(r: &GrepResult) -> Value {
    json!({
        "pattern": r.pattern,
        "regex": r.regex,
        "hits": r.hits.iter().map(|h| json!({
            "path": h.path,
            "line": h.line,
            "column": h.column,
            "match_len": h.match_len,
            "text": h.text,
            "text_cut": h.text_cut,
            "symbol": h.symbol.as_ref().map(json::symbol),
            "file_changed": h.file_changed,
        })).collect::<Vec<_>>(),
        "files": r.files.iter().map(|f| json!({
            "path": f.path,
            "language": f.language,
            "hits": f.hits,
            "file_changed": f.file_changed,
        })).collect::<Vec<_>>(),
        "files_searched": r.files_searched,
        "files_eligible": r.files_eligible,
        "truncated": r.truncated,
        "unreadable": r.unreadable.iter().map(|(p, why)| json!({"path": p, "reason": why})).collect::<Vec<_>>(),
    })
}
