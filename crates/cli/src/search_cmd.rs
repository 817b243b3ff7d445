//! `search`: arguments (text, kind/language/path, regular expressions, degree bounds, paging),
//! the engine call, and the text and JSON renderings (printed through `output`).

use clap::Args;
use serde_json::{Value, json};
use sextant_engine::*;

use crate::{json, output};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// A name, qualified name or words. Optional with a filter: then every symbol passing the
    /// filters, by qualified name.
    pub query: Option<String>,
    /// Only these kinds (class, function, method, ...; Cypher labels like `TypeAlias` too);
    /// repeat or separate with commas.
    #[arg(long, value_delimiter = ',', alias = "label")]
    pub kind: Vec<String>,
    /// Only this language id (python, rust, typescript, ...).
    #[arg(long)]
    pub lang: Option<String>,
    /// Only files under this path prefix.
    #[arg(long)]
    pub path: Option<String>,
    /// Only names matching this regular expression (unanchored).
    #[arg(long, value_name = "REGEX")]
    pub name_regex: Option<String>,
    /// Only qualified names matching this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub qname_regex: Option<String>,
    /// Only files whose path matches this regular expression (`^src/api/`).
    #[arg(long, value_name = "REGEX")]
    pub file_regex: Option<String>,
    /// At least N distinct callers (calls and instantiations).
    #[arg(long, value_name = "N")]
    pub min_callers: Option<u32>,
    /// At most N distinct callers (0: never called).
    #[arg(long, value_name = "N")]
    pub max_callers: Option<u32>,
    /// At least N distinct callees.
    #[arg(long, value_name = "N")]
    pub min_callees: Option<u32>,
    /// At most N distinct callees.
    #[arg(long, value_name = "N")]
    pub max_callees: Option<u32>,
    /// At least N incoming references (edges of any kind).
    #[arg(long, value_name = "N")]
    pub min_references: Option<u32>,
    /// At most N incoming references.
    #[arg(long, value_name = "N")]
    pub max_references: Option<u32>,
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// Skip the first N results (paging; the order is total).
    #[arg(long, default_value_t = 0)]
    pub offset: u32,
    /// Counts of the matches by kind, file and directory instead of the results.
    #[arg(long)]
    pub summary: bool,
}

impl SearchArgs {
    fn options(&self) -> SearchOptions {
        SearchOptions {
            kinds: self.kind.clone(),
            language: self.lang.clone(),
            path_prefix: self.path.clone(),
            limit: self.limit,
            offset: self.offset,
            name_regex: self.name_regex.clone(),
            qname_regex: self.qname_regex.clone(),
            file_regex: self.file_regex.clone(),
            min_callers: self.min_callers,
            max_callers: self.max_callers,
            min_callees: self.min_callees,
            max_callees: self.max_callees,
            min_references: self.min_references,
            max_references: self.max_references,
        }
    }
}

pub fn search(repo: &Repo, as_json: bool, args: &SearchArgs) -> Result<()> {
    let query = args.query.as_deref().unwrap_or("").trim();
    let options = args.options();
    if query.is_empty() && !options.has_filters() {
        return Err(Error::InvalidArgument(
            "give a QUERY, or at least one filter (--kind, --lang, --path, --name-regex, --qname-regex, --file-regex, --min/max-callers, --min/max-callees, --min/max-references)".into(),
        ));
    }
    if args.summary {
        let s = repo.search_summary(query, &options)?;
        if as_json {
            output::emit_json(&summary_json(query, &s));
        } else {
            output::emit(&summary_text(&s));
        }
        return Ok(());
    }
    let page = repo.search_page(query, &options)?;
    if as_json {
        let mut v = json::search(query, &page.hits);
        if let Some(total) = page.total {
            v["total"] = json!(total);
            v["offset"] = json!(args.offset);
        }
        output::emit_json(&v);
    } else {
        let mut text = output::search(&page.hits);
        if let Some(total) = page.total {
            let shown = page.hits.len() as u64;
            let first = u64::from(args.offset) + 1;
            if shown > 0 && shown < total {
                text.push_str(&format!(
                    "\n{first}-{} of {total} (--offset {} for more)",
                    u64::from(args.offset) + shown,
                    u64::from(args.offset) + shown
                ));
            }
        }
        output::emit(&text);
    }
    Ok(())
}

fn counts(c: &[(String, u64)]) -> Value {
    Value::Array(
        c.iter()
            .map(|(k, n)| json!({"key": k, "count": n}))
            .collect(),
    )
}

fn summary_json(query: &str, s: &SearchSummary) -> Value {
    json!({
        "query": query,
        "matches": s.matches,
        "complete": s.complete,
        "by_kind": counts(&s.by_kind),
        "by_file": counts(&s.by_file),
        "by_directory": counts(&s.by_directory),
        "by_match": counts(&s.by_match),
    })
}

fn summary_text(s: &SearchSummary) -> String {
    let mut out = format!(
        "{} matches{}\n",
        s.matches,
        if s.complete {
            ""
        } else {
            " (the first; narrow the search)"
        }
    );
    for (title, list) in [
        ("kinds", &s.by_kind),
        ("directories", &s.by_directory),
        ("files", &s.by_file),
    ] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{title}:\n"));
        for (k, n) in list {
            out.push_str(&format!("  {n:>6}  {k}\n"));
        }
    }
    out
}
