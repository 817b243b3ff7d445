//! `sextant-bench`: measures Sextant's query latency in-process over an already indexed
//! repository. Indexing throughput is measured by `bench/run.py` around the `sextant` binary.
//!
//! `sextant-bench queries --repo PATH [--samples N] [--json]` picks N symbols deterministically
//! (see `sample.rs`) and times, per symbol:
//! - `search`: `Repo::search(name, limit 20)` (exact, then prefix, then full text), and
//! - `callers_depth2`: `Repo::resolve_symbol(qualified name or stable id)` followed by
//!   `Repo::calls(symbol, incoming = true, depth = 2, per_level = 100)`.
//!
//! `sextant-bench mcp --repo PATH [--sextant BIN] [--samples N] [--runs N] [--json]` measures
//! the MCP round trip of `sextant serve` over stdio per tool and the size of `tools/list`
//! (`mcp.rs`).
//!
//! `sextant-bench tokens --repo PATH --questions FILE [--sextant BIN] [--json]` counts the
//! tokens of Sextant's answers to agent questions against reading every `rg -w WORD -C 20` hit
//! (`tokens.rs`, `grep.rs`).
//!
//! `sextant-bench analytics --repo PATH [--samples N] [--cold-runs N] [--json]` times the graph
//! load, PageRank, communities and bridges cold and warm, and typical and variable-length Cypher
//! queries over sampled parameters (`analytics.rs`).

mod analytics;
mod grep;
mod live;
mod machine;
mod mcp;
mod rpc;
mod sample;
mod stats;
mod tokens;

/// The allocator of the `sextant` binary (see crates/cli/src/main.rs), so in-process figures
/// (live updates, queries) are what the product does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde_json::{Value, json};
use sextant_engine::{Repo, SearchOptions};

use crate::stats::Timings;

#[derive(Debug, Parser)]
#[command(name = "sextant-bench", version, about = "Sextant benchmark harness")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Query latency over an indexed repository (index it first with `sextant index PATH`).
    Queries {
        /// The indexed repository root.
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// How many symbols to sample.
        #[arg(long, default_value_t = 200)]
        samples: usize,
        /// Times each sample is queried (measurements are pooled).
        #[arg(long, default_value_t = 1)]
        rounds: usize,
        /// Untimed queries run first (over the first samples) to warm caches.
        #[arg(long, default_value_t = 10)]
        warmup: usize,
        /// Machine-readable JSON output.
        #[arg(long)]
        json: bool,
    },
    /// MCP round-trip latency per tool over stdio (`sextant serve`), and the size of tools/list.
    Mcp {
        /// The indexed repository root (same SEXTANT_HOME as the index).
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// The sextant binary (default: `sextant` next to this executable).
        #[arg(long, value_name = "BIN")]
        sextant: Option<PathBuf>,
        /// How many symbols to sample (each is asked of every tool).
        #[arg(long, default_value_t = 200)]
        samples: usize,
        /// Samples whose calls run first, untimed, to warm caches.
        #[arg(long, default_value_t = 10)]
        warmup: usize,
        /// Runs, each with a new server process; medians over runs are reported.
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Seconds to wait for one reply.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Machine-readable JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Edit → visible latency of the live index: edit N files one at a time, update, restore
    /// (the repository must be indexed; files are restored afterwards).
    Live {
        /// The indexed repository root.
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// How many files to edit.
        #[arg(long, default_value_t = 100)]
        edits: usize,
        /// `define`: append a function (the file's definitions change); `body`: insert a
        /// comment line in the middle of the file (what it defines stays; spans move).
        #[arg(long, default_value = "define", value_parser = ["define", "body"])]
        kind: String,
        /// Machine-readable JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Graph analytics (issue 6): graph load, PageRank, communities and bridges cold and warm,
    /// typical and `*1..5` Cypher queries over sampled parameters (p50/p95/max).
    Analytics {
        /// The indexed repository root.
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// Parameter values sampled per Cypher query.
        #[arg(long, default_value_t = 100)]
        samples: usize,
        /// Cold runs (each on a fresh copy of the index without derived results).
        #[arg(long, default_value_t = 3)]
        cold_runs: usize,
        /// Warm calls of each algorithm per cold run.
        #[arg(long, default_value_t = 3)]
        warm_calls: usize,
        /// Untimed queries per Cypher query (over its first samples).
        #[arg(long, default_value_t = 5)]
        warmup: usize,
        /// Machine-readable JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Tokens of Sextant's MCP answers vs reading every `rg -w WORD -C 20` hit.
    Tokens {
        /// The indexed repository root (same SEXTANT_HOME as the index).
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// Questions (JSON; see bench/questions/).
        #[arg(long, value_name = "FILE")]
        questions: PathBuf,
        /// The sextant binary (default: `sextant` next to this executable).
        #[arg(long, value_name = "BIN")]
        sextant: Option<PathBuf>,
        /// Seconds to wait for one reply.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Machine-readable JSON output.
        #[arg(long)]
        json: bool,
    },
}

/// `sextant` next to the running executable.
fn default_sextant() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating sextant-bench")?;
    let bin = exe.with_file_name(format!("sextant{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(
        bin.exists(),
        "{} does not exist: build it (cargo build --release -p sextant-cli) or pass --sextant",
        bin.display()
    );
    Ok(bin)
}

fn emit(
    json: bool,
    report: &Value,
    human: fn(&mut std::io::StdoutLock<'static>, &Value) -> Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(report)?)?;
    } else {
        human(&mut out, report)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Queries {
            repo,
            samples,
            rounds,
            warmup,
            json,
        } => {
            let report = queries(&repo, samples, rounds.max(1), warmup)?;
            emit(json, &report, write_human)
        }
        Command::Mcp {
            repo,
            sextant,
            samples,
            warmup,
            runs,
            timeout,
            json,
        } => {
            let sextant = match sextant {
                Some(b) => b,
                None => default_sextant()?,
            };
            let report = mcp::run(&mcp::Options {
                root: &repo,
                sextant: &sextant,
                samples,
                warmup,
                runs: runs.max(1),
                timeout: Duration::from_secs(timeout.max(1)),
            })?;
            emit(json, &report, mcp::write_human)
        }
        Command::Live {
            repo,
            edits,
            kind,
            json,
        } => {
            let report = live::run(&repo, edits, kind == "body")?;
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                let e = &report["edit_to_visible"];
                writeln!(
                    out,
                    "{} files; edit -> visible p50 {} ms, p95 {} ms, max {} ms over {} edits (open {} ms)",
                    report["files"],
                    e["p50_ms"],
                    e["p95_ms"],
                    e["max_ms"],
                    e["count"],
                    report["open_ms"]
                )?;
            }
            Ok(())
        }
        Command::Analytics {
            repo,
            samples,
            cold_runs,
            warm_calls,
            warmup,
            json,
        } => {
            let report = analytics::run(&analytics::Options {
                root: &repo,
                samples,
                cold_runs,
                warm_calls,
                warmup,
            })?;
            emit(json, &report, analytics::write_human)
        }
        Command::Tokens {
            repo,
            questions,
            sextant,
            timeout,
            json,
        } => {
            let sextant = match sextant {
                Some(b) => b,
                None => default_sextant()?,
            };
            let report = tokens::run(
                &repo,
                &questions,
                &sextant,
                Duration::from_secs(timeout.max(1)),
            )?;
            emit(json, &report, tokens::write_human)
        }
    }
}

/// What one callers query needs: the argument given to `resolve_symbol`.
struct CallerArg {
    text: String,
    by_stable_id: bool,
}

fn queries(root: &Path, samples: usize, rounds: usize, warmup: usize) -> Result<Value> {
    let open_start = Instant::now();
    let repo =
        Repo::open(root).with_context(|| format!("opening the index of {}", root.display()))?;
    let open_ms = ms(open_start);

    let sample_start = Instant::now();
    let picked = sample::pick(&repo, samples)?;
    let sampling_seconds = sample_start.elapsed().as_secs_f64();
    anyhow::ensure!(
        !picked.items.is_empty(),
        "no symbols could be sampled from {} (is it indexed, with supported source files?)",
        repo.root.display()
    );

    let options = SearchOptions {
        limit: 20,
        ..SearchOptions::default()
    };

    // Untimed: choose the argument each callers query resolves (the qualified name when it
    // names exactly this symbol, else its stable id).
    let mut args = Vec::with_capacity(picked.items.len());
    for item in &picked.items {
        let by_qname =
            matches!(repo.resolve_symbol(&item.qualified_name), Ok(s) if s.id == item.id);
        args.push(if by_qname {
            CallerArg {
                text: item.qualified_name.clone(),
                by_stable_id: false,
            }
        } else {
            CallerArg {
                text: item.stable_id.clone(),
                by_stable_id: true,
            }
        });
    }

    for (item, arg) in picked.items.iter().zip(&args).take(warmup) {
        let _ = repo.search(&item.name, &options)?;
        let sym = repo.resolve_symbol(&arg.text)?;
        let _ = repo.calls(&sym, true, 2, 100)?;
    }

    let mut search = Timings::default();
    let mut callers = Timings::default();
    let mut found = 0usize;
    let mut steps_total = 0usize;
    let mut truncated = 0usize;
    let mut completeness: Vec<(String, u64)> = Vec::new();
    for round in 0..rounds {
        for (item, arg) in picked.items.iter().zip(&args) {
            let t = Instant::now();
            let hits = repo.search(&item.name, &options)?;
            search.push(&item.name, ms(t));

            let t = Instant::now();
            let sym = repo.resolve_symbol(&arg.text)?;
            let graph = repo.calls(&sym, true, 2, 100)?;
            callers.push(&arg.text, ms(t));

            if round == 0 {
                if hits.iter().any(|h| h.symbol.id == item.id) {
                    found += 1;
                }
                steps_total += graph.steps.len();
                if graph.truncated {
                    truncated += 1;
                }
                let label = graph.completeness.label();
                match completeness.iter_mut().find(|(k, _)| k == label) {
                    Some((_, n)) => *n += 1,
                    None => completeness.push((label.to_string(), 1)),
                }
            }
        }
    }

    let n = picked.items.len();
    let by_stable_id = args.iter().filter(|a| a.by_stable_id).count();
    let mut kinds: Vec<(String, u64)> = Vec::new();
    for item in &picked.items {
        match kinds.iter_mut().find(|(k, _)| *k == item.kind) {
            Some((_, c)) => *c += 1,
            None => kinds.push((item.kind.clone(), 1)),
        }
    }
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

    Ok(json!({
        "repo": repo.root,
        "generation": repo.generation(),
        "samples": n,
        "samples_requested": samples,
        "rounds": rounds,
        "warmup": warmup.min(n),
        "open_ms": round3(open_ms),
        "sampling": {
            "method": "source files sorted by path, split into N equal strides; from each stride the first file with an unused symbol gives one function/method/type chosen by a hash of its path (members of top-level types included)",
            "seconds": round3(sampling_seconds),
            "files_seen": picked.files_seen,
            "files_opened": picked.files_opened,
            "kinds": counts(&kinds),
        },
        "search": {
            "query": "Repo::search(name, limit 20)",
            "found_sampled_symbol": found,
            "timings": search.summary(),
        },
        "callers_depth2": {
            "query": "Repo::resolve_symbol(arg) + Repo::calls(sym, incoming, depth 2, 100 per level)",
            "resolved_by_qualified_name": n - by_stable_id,
            "resolved_by_stable_id": by_stable_id,
            "mean_steps": round3(steps_total as f64 / n as f64),
            "truncated": truncated,
            "completeness": counts(&completeness),
            "timings": callers.summary(),
        },
        "machine": machine::info(),
        "commit": machine::git_commit(),
    }))
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn counts(c: &[(String, u64)]) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in c {
        map.insert(k.clone(), json!(v));
    }
    Value::Object(map)
}

fn write_human(out: &mut impl Write, r: &Value) -> Result<()> {
    writeln!(
        out,
        "{}: {} samples ({} rounds), sampled in {} s",
        r["repo"].as_str().unwrap_or("?"),
        r["samples"],
        r["rounds"],
        r["sampling"]["seconds"]
    )?;
    for (label, key) in [
        ("search (limit 20)", "search"),
        ("callers depth 2", "callers_depth2"),
    ] {
        let t = &r[key]["timings"];
        writeln!(
            out,
            "  {label:<18} p50 {:>8.3} ms  p95 {:>8.3} ms  max {:>8.3} ms",
            t["p50_ms"].as_f64().unwrap_or(f64::NAN),
            t["p95_ms"].as_f64().unwrap_or(f64::NAN),
            t["max_ms"].as_f64().unwrap_or(f64::NAN),
        )?;
    }
    write_machine(out, r)
}

/// The machine and commit line of a human-readable report.
fn write_machine(out: &mut impl Write, r: &Value) -> Result<()> {
    let m = &r["machine"];
    writeln!(
        out,
        "  machine: {} cpus, {}, {} MiB RAM, load {}; commit {}{}",
        m["nproc"],
        m["cpu_model"].as_str().unwrap_or("?"),
        m["mem_total_mib"],
        m["loadavg_1_5_15"],
        r["commit"].as_str().unwrap_or("unknown"),
        if r["worktree_dirty"] == true {
            " (with uncommitted changes)"
        } else {
            ""
        }
    )?;
    Ok(())
}
