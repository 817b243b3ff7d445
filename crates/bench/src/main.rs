//! `sextant-bench`: measures Sextant's query latency in-process over an already indexed
//! repository. Indexing throughput is measured by `bench/run.py` around the `sextant` binary.
//!
//! `sextant-bench queries --repo PATH [--samples N] [--json]` picks N symbols deterministically
//! (see `sample.rs`) and times, per symbol:
//! - `search`: `Repo::search(name, limit 20)` (exact, then prefix, then full text), and
//! - `callers_depth2`: `Repo::resolve_symbol(qualified name or stable id)` followed by
//!   `Repo::calls(symbol, incoming = true, depth = 2, per_level = 100)`.

mod machine;
mod sample;
mod stats;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                write_human(&mut out, &report)?;
            }
            Ok(())
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
    let m = &r["machine"];
    writeln!(
        out,
        "  machine: {} cpus, {}, {} MiB RAM; commit {}",
        m["nproc"],
        m["cpu_model"].as_str().unwrap_or("?"),
        m["mem_total_mib"],
        r["commit"].as_str().unwrap_or("unknown")
    )?;
    Ok(())
}
