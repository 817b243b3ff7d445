//! `sextant watch [PATH]`: index, then re-index incrementally whenever files change, until the
//! process is interrupted. On a terminal one status line is rewritten in place; otherwise every
//! event is a plain log line (`--json`: one JSON object per line). Ctrl-C ends the process where it
//! stands: indexing is crash-safe (a generation is published by one transaction), and every status
//! write is a single whole line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::json;
use sextant_engine::{Error, IndexOptions, IndexSummary, WatchEvent, WatchOptions, WatchTrigger};

use crate::{Cli, output};

#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// The repository root (default: the current directory).
    pub path: Option<PathBuf>,
    /// Quiet time after the last file change before re-indexing, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub debounce_ms: u64,
    /// Re-extract every file in the first run even when an identical version is stored.
    #[arg(long)]
    pub full: bool,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_file_size: u64,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

fn trigger_name(t: WatchTrigger) -> &'static str {
    match t {
        WatchTrigger::Initial => "initial",
        WatchTrigger::Changes => "changes",
        WatchTrigger::Rescan => "rescan",
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `generation 12 · 3 files changed · indexed in 0.41 s`
fn indexed_text(s: &IndexSummary, trigger: WatchTrigger, changed: &[String]) -> String {
    let what = match trigger {
        WatchTrigger::Initial => format!("{} indexed", plural(s.files_indexed as usize, "file")),
        WatchTrigger::Changes => format!("{} changed", plural(changed.len(), "file")),
        WatchTrigger::Rescan => "rescanned".to_string(),
    };
    format!(
        "generation {} · {what} · indexed in {:.2} s",
        s.generation, s.wall_seconds
    )
}

/// Up to five changed paths, then how many more.
fn paths_text(changed: &[String]) -> String {
    let mut text = changed
        .iter()
        .take(5)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if changed.len() > 5 {
        text.push_str(&format!(" and {} more", changed.len() - 5));
    }
    text
}

pub fn run(cli: &Cli, args: &WatchArgs) -> Result<(), Error> {
    let path = args
        .path
        .clone()
        .or(cli.repo.clone())
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let options = WatchOptions {
        index: IndexOptions {
            full: args.full,
            max_file_size: args.max_file_size,
            threads: args.threads,
            ..IndexOptions::default()
        },
        debounce: Duration::from_millis(args.debounce_ms.max(1)),
    };
    let live = !cli.json && std::io::stdout().is_terminal();
    let json = cli.json;
    if !json {
        let root = path.canonicalize().unwrap_or_else(|_| path.clone());
        output::emit(&format!(
            "watching {} (debounce {} ms); Ctrl-C to stop",
            root.display(),
            args.debounce_ms
        ));
    }
    let mut last = String::new();
    let on_event = |event: WatchEvent| match event {
        WatchEvent::Indexing { trigger, changed } => {
            if live {
                let what = match trigger {
                    WatchTrigger::Initial => "indexing".to_string(),
                    WatchTrigger::Changes => {
                        format!("indexing {}", plural(changed, "changed file"))
                    }
                    WatchTrigger::Rescan => "rescanning".to_string(),
                };
                let prefix = if last.is_empty() {
                    String::new()
                } else {
                    format!("{last} · ")
                };
                output::status_line(&format!("{prefix}{what}…"));
            }
        }
        WatchEvent::Indexed {
            summary,
            trigger,
            changed,
            latency,
        } => {
            let text = indexed_text(&summary, trigger, &changed);
            if json {
                output::emit_json_line(&json!({
                    "event": "indexed",
                    "trigger": trigger_name(trigger),
                    "generation": summary.generation,
                    "commit": summary.commit,
                    "branch": summary.branch,
                    "resolution_shared_with": summary.reused_generation,
                    "changed": changed,
                    "files_indexed": summary.files_indexed,
                    "files_reused": summary.files_reused,
                    "wall_seconds": summary.wall_seconds,
                    "phases": crate::json::counts_f(&summary.phases),
                    "latency_ms": latency.map(|l| l.as_secs_f64() * 1000.0),
                }));
            } else if live {
                output::status_line(&format!("{text} · watching"));
            } else {
                let mut line = text.clone();
                if !changed.is_empty() {
                    line.push_str(&format!(" ({})", paths_text(&changed)));
                }
                if let Some(l) = latency {
                    line.push_str(&format!(", {} ms after the change", l.as_millis()));
                }
                output::emit(&line);
            }
            last = text;
        }
        WatchEvent::Watching => {}
        WatchEvent::Rescan(why) => {
            if json {
                output::emit_json_line(&json!({"event": "rescan", "reason": why}));
            } else if live {
                output::status_line(&format!("{why}; rescanning…"));
            } else {
                output::emit(&format!("{why}; rescanning"));
            }
        }
        WatchEvent::Error(e) => {
            if json {
                output::emit_json_line(&json!({"event": "error", "message": e}));
            } else {
                if live {
                    // The error goes below the status line, which the next run rewrites.
                    output::emit("");
                }
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("error: {e}; the previous generation keeps serving");
                }
            }
        }
    };
    // Nothing sets `stop`: Ctrl-C ends the process (see the module documentation).
    sextant_engine::watch(&path, &options, on_event, Arc::new(AtomicBool::new(false)))
}
