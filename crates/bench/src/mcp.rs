//! `sextant-bench mcp`: MCP round-trip latency of `sextant serve` over stdio, per tool, and the
//! size of `tools/list`.
//!
//! Symbols are sampled as in `queries` (`sample.rs`), in-process, before the server starts.
//! Per run: a fresh `sextant serve --repo PATH`, the initialize handshake, `tools/list`, untimed
//! warm-up calls (every tool over the first samples), then for each sample, in order: `search`
//! (query = name), `symbol`, `references`, `calls` (direction in, depth 2) and `impact`
//! (upstream, depth 3), each by stable id, with the tools' default limits. A round trip is the
//! time from writing the request line to having its reply parsed; the server's own
//! `meta.timing.total_ms` is recorded beside it. With `--runs N` the run is repeated with a new
//! server each time and the medians over runs are reported as well.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use sextant_engine::Repo;

use crate::rpc::{self, Client};
use crate::stats::{Timings, percentile};
use crate::tokens::median;
use crate::{machine, round3, sample};

/// A tool measured, its arguments for one sample, and its p95 target in ms.
pub struct ToolCase {
    pub name: &'static str,
    pub label: &'static str,
    pub target_p95_ms: f64,
    args: fn(&sample::Item) -> Value,
}

pub const CASES: &[ToolCase] = &[
    ToolCase {
        name: "search",
        label: "search {query: name}",
        target_p95_ms: 10.0,
        args: |i| json!({"query": i.name}),
    },
    ToolCase {
        name: "symbol",
        label: "symbol {symbol: stable id}",
        target_p95_ms: 5.0,
        args: |i| json!({"symbol": i.stable_id}),
    },
    ToolCase {
        name: "references",
        label: "references {symbol: stable id}",
        target_p95_ms: 20.0,
        args: |i| json!({"symbol": i.stable_id}),
    },
    ToolCase {
        name: "calls",
        label: "calls {symbol, direction: in, depth: 2}",
        target_p95_ms: 20.0,
        args: |i| json!({"symbol": i.stable_id, "direction": "in", "depth": 2}),
    },
    ToolCase {
        name: "impact",
        label: "impact {symbol, direction: upstream, depth: 3}",
        target_p95_ms: 50.0,
        args: |i| json!({"symbol": i.stable_id, "direction": "upstream", "depth": 3}),
    },
];

pub struct Options<'a> {
    pub root: &'a Path,
    pub sextant: &'a Path,
    pub samples: usize,
    pub warmup: usize,
    pub runs: usize,
    pub timeout: Duration,
}

/// Measurements of one tool in one run.
#[derive(Default)]
struct ToolRun {
    round_trip: Timings,
    server_ms: Vec<f64>,
    reply_bytes: Vec<f64>,
    text_bytes: Vec<f64>,
    errors: Vec<String>,
}

pub fn run(o: &Options) -> Result<Value> {
    let repo =
        Repo::open(o.root).with_context(|| format!("opening the index of {}", o.root.display()))?;
    let picked = sample::pick(&repo, o.samples)?;
    let generation = repo.generation();
    let root = repo.root.clone();
    drop(repo);
    anyhow::ensure!(
        !picked.items.is_empty(),
        "no symbols could be sampled from {} (is it indexed?)",
        root.display()
    );
    let items = &picked.items;

    let mut runs = Vec::new();
    let mut tools_list = Value::Null;
    let mut server_info = Value::Null;
    let mut per_tool_runs: Vec<Vec<ToolRun>> = CASES.iter().map(|_| Vec::new()).collect();
    for run in 0..o.runs {
        let (mut client, init) = Client::start(o.sextant, &root, o.timeout)?;
        if init["protocolVersion"] != rpc::PROTOCOL_VERSION {
            bail!(
                "the server negotiated {} instead of {}",
                init["protocolVersion"],
                rpc::PROTOCOL_VERSION
            );
        }
        server_info = init["serverInfo"].clone();
        let list = client.request("tools/list", json!({}))?;
        if run == 0 {
            tools_list = tools_list_size(&list.result, list.round_trip_ms);
        }

        for item in items.iter().take(o.warmup) {
            for case in CASES {
                let _ = client.call(case.name, (case.args)(item))?;
            }
        }

        let mut tool_runs: Vec<ToolRun> = CASES.iter().map(|_| ToolRun::default()).collect();
        for item in items {
            for (case, tr) in CASES.iter().zip(tool_runs.iter_mut()) {
                let args = (case.args)(item);
                let reply = client.call(case.name, args.clone())?;
                if reply.result["isError"] == true {
                    tr.errors.push(format!(
                        "{} {}: {}",
                        case.name,
                        args,
                        truncate(&rpc::result_text(&reply.result), 200)
                    ));
                    continue;
                }
                tr.round_trip.push(&args.to_string(), reply.round_trip_ms);
                if let Some(ms) = rpc::server_total_ms(&reply.result) {
                    tr.server_ms.push(ms);
                }
                tr.reply_bytes.push(reply.line_bytes as f64);
                tr.text_bytes
                    .push(rpc::result_text(&reply.result).len() as f64);
            }
        }
        let skipped = client.skipped;
        client.close()?;

        let mut tools = serde_json::Map::new();
        for (case, tr) in CASES.iter().zip(&tool_runs) {
            tools.insert(case.name.to_string(), tool_summary(tr));
        }
        runs.push(json!({
            "run": run + 1,
            "loadavg_1_5_15": machine::info()["loadavg_1_5_15"],
            "messages_skipped": skipped,
            "tools": tools,
        }));
        for (dst, tr) in per_tool_runs.iter_mut().zip(tool_runs) {
            dst.push(tr);
        }
    }

    // Medians over runs of each run's figures (the figure to quote on a shared machine).
    let mut summary = serde_json::Map::new();
    for (case, trs) in CASES.iter().zip(&per_tool_runs) {
        let pick = |key: &str| -> Vec<f64> {
            runs.iter()
                .filter_map(|r| r["tools"][case.name]["round_trip"][key].as_f64())
                .collect()
        };
        let med = |key: &str| round3(median(&pick(key)));
        let server_p50: Vec<f64> = runs
            .iter()
            .filter_map(|r| r["tools"][case.name]["server_total_ms"]["p50_ms"].as_f64())
            .collect();
        let p95 = med("p95_ms");
        summary.insert(
            case.name.to_string(),
            json!({
                "arguments": case.label,
                "count_per_run": trs.first().map_or(0, |t| count(&t.round_trip)),
                "errors_per_run": trs.first().map_or(0, |t| t.errors.len()),
                "p50_ms": med("p50_ms"),
                "p95_ms": p95,
                "max_ms": med("max_ms"),
                "p95_ms_per_run": pick("p95_ms"),
                "server_total_ms_p50": round3(median(&server_p50)),
                "target_p95_ms": case.target_p95_ms,
                "met": p95 <= case.target_p95_ms,
            }),
        );
    }

    Ok(json!({
        "repo": root,
        "generation": generation,
        "sextant": o.sextant,
        "server": server_info,
        "protocol_version": rpc::PROTOCOL_VERSION,
        "samples": items.len(),
        "samples_requested": o.samples,
        "warmup": o.warmup.min(items.len()),
        "runs": o.runs,
        "method": "round trip = write the tools/call line to stdin .. its reply line read from stdout and parsed (newline-delimited JSON-RPC, one request at a time); a new server per run; medians over runs of each run's nearest-rank p50/p95/max",
        "sampling": {
            "method": "as `queries`: source files sorted by path, split into N strides, one function/method/type per stride chosen by a hash of its path",
            "files_seen": picked.files_seen,
            "files_opened": picked.files_opened,
        },
        "summary": summary,
        "tools_list": tools_list,
        "per_run": runs,
        "machine": machine::info(),
        "commit": machine::git_commit(),
        "worktree_dirty": machine::git_dirty(),
    }))
}

fn count(t: &Timings) -> usize {
    t.summary()["count"].as_u64().unwrap_or(0) as usize
}

fn tool_summary(tr: &ToolRun) -> Value {
    let mut server = tr.server_ms.clone();
    server.sort_by(f64::total_cmp);
    let mut bytes = tr.reply_bytes.clone();
    bytes.sort_by(f64::total_cmp);
    let mut text = tr.text_bytes.clone();
    text.sort_by(f64::total_cmp);
    json!({
        "round_trip": tr.round_trip.summary(),
        "server_total_ms": {
            "count": server.len(),
            "p50_ms": round3(percentile(&server, 50.0)),
            "p95_ms": round3(percentile(&server, 95.0)),
            "max_ms": round3(server.last().copied().unwrap_or(0.0)),
        },
        "reply_line_bytes": {"p50": percentile(&bytes, 50.0), "p95": percentile(&bytes, 95.0), "max": bytes.last().copied().unwrap_or(0.0)},
        "text_bytes_p50": percentile(&text, 50.0),
        "errors": tr.errors.len(),
        "error_examples": tr.errors.iter().take(3).collect::<Vec<_>>(),
    })
}

/// Sizes of the `tools/list` result: the whole result as compact JSON, and only what a model is
/// shown of each tool (name, description, inputSchema), also in o200k_base tokens.
fn tools_list_size(result: &Value, round_trip_ms: f64) -> Value {
    let tools = result["tools"].as_array().cloned().unwrap_or_default();
    let visible: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "name": t["name"],
                "description": t["description"],
                "inputSchema": t["inputSchema"],
            })
        })
        .collect();
    let full = serde_json::to_string(result).unwrap_or_default();
    let visible_text = serde_json::to_string(&visible).unwrap_or_default();
    let per_tool: Vec<Value> = tools
        .iter()
        .zip(&visible)
        .map(|(t, v)| {
            json!({
                "name": t["name"],
                "bytes": serde_json::to_string(t).map_or(0, |s| s.len()),
                "model_visible_bytes": serde_json::to_string(v).map_or(0, |s| s.len()),
            })
        })
        .collect();
    let tokenizer = crate::tokens::tokenizer();
    json!({
        "tools": tools.len(),
        "result_bytes": full.len(),
        "result_tokens_o200k": tokenizer.as_ref().map(|t| t.count_ordinary(&full)).ok(),
        "model_visible_bytes": visible_text.len(),
        "model_visible_tokens_o200k": tokenizer.as_ref().map(|t| t.count_ordinary(&visible_text)).ok(),
        "round_trip_ms": round3(round_trip_ms),
        "per_tool": per_tool,
    })
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

pub fn write_human(out: &mut impl std::io::Write, r: &Value) -> Result<()> {
    writeln!(
        out,
        "{}: MCP over stdio, {} samples x {} run(s), warm-up {} ({} {})",
        r["repo"].as_str().unwrap_or("?"),
        r["samples"],
        r["runs"],
        r["warmup"],
        r["server"]["name"].as_str().unwrap_or("server"),
        r["server"]["version"].as_str().unwrap_or("")
    )?;
    writeln!(
        out,
        "  {:<11} {:>6} {:>9} {:>9} {:>9} {:>11}  {:>7}",
        "tool", "count", "p50 ms", "p95 ms", "max ms", "server p50", "target"
    )?;
    for case in CASES {
        let s = &r["summary"][case.name];
        writeln!(
            out,
            "  {:<11} {:>6} {:>9.3} {:>9.3} {:>9.3} {:>11.3}  ≤{:>4} {}",
            case.name,
            s["count_per_run"].to_string(),
            s["p50_ms"].as_f64().unwrap_or(f64::NAN),
            s["p95_ms"].as_f64().unwrap_or(f64::NAN),
            s["max_ms"].as_f64().unwrap_or(f64::NAN),
            s["server_total_ms_p50"].as_f64().unwrap_or(f64::NAN),
            case.target_p95_ms.to_string(),
            if s["met"] == true { "met" } else { "MISSED" },
        )?;
        if s["errors_per_run"].as_u64().unwrap_or(0) > 0 {
            writeln!(out, "      {} tool errors per run", s["errors_per_run"])?;
        }
    }
    let t = &r["tools_list"];
    writeln!(
        out,
        "  tools/list: {} tools, result {} bytes ({} tokens); name+description+inputSchema {} bytes ({} tokens)",
        t["tools"],
        t["result_bytes"],
        t["result_tokens_o200k"],
        t["model_visible_bytes"],
        t["model_visible_tokens_o200k"]
    )?;
    crate::write_machine(out, r)
}
