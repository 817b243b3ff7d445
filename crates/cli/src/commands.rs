//! Runs one command: resolve the repository, call the engine, print, and pick the exit code.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use sextant_engine::{Error, IndexOptions, Progress, Repo, SymbolError};

use crate::{Cli, Command, exit, json, output};

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// `callers`, `callees` and `calls`: the call graph to a depth.
fn print_calls(
    cli: &Cli,
    symbol: &str,
    incoming: bool,
    depth: u32,
    limit: u32,
) -> Result<(), Error> {
    let repo = open_repo(cli)?;
    let s = repo.resolve_symbol(symbol)?;
    let graph = repo.calls(&s, incoming, depth, limit)?;
    if cli.json {
        output::emit_json(&json::calls(&graph));
    } else {
        output::emit(&output::calls(&graph));
    }
    Ok(())
}

fn open_repo(cli: &Cli) -> Result<Repo, Error> {
    let mut repo = match &cli.repo {
        Some(path) => Repo::open(&sextant_engine::find_root(path)),
        None => Repo::find(&cwd()),
    }?;
    if let Some(name) = &cli.workspace {
        repo.apply_view(&sextant_engine::ViewRequest {
            workspace: Some(name.clone()),
            ..Default::default()
        })?;
    }
    Ok(repo)
}

/// Prints an error (human or JSON) and returns its exit code.
fn fail(cli: &Cli, error: &Error) -> u8 {
    let (kind, code, details) = match error {
        Error::Symbol(SymbolError::NotFound { suggestions, .. }) => (
            "not_found",
            exit::NOT_FOUND,
            json!({"suggestions": suggestions}),
        ),
        Error::Symbol(SymbolError::Ambiguous { candidates, .. }) => (
            "ambiguous",
            exit::NOT_FOUND,
            json!({"candidates": candidates.iter().map(json::symbol).collect::<Vec<_>>()}),
        ),
        Error::NotIndexed(_) => ("not_indexed", exit::NOT_INDEXED, json!({})),
        Error::Path(_) => ("bad_path", exit::USAGE, json!({})),
        Error::InvalidArgument(_) => ("invalid_argument", exit::USAGE, json!({})),
        Error::Query(q) => (
            "query_error",
            exit::USAGE,
            json!({"kind": q.kind, "message": q.message, "line": q.line, "column": q.column, "offset": q.offset}),
        ),
        _ => ("error", exit::ERROR, json!({})),
    };
    if cli.json {
        output::emit_json(&json::error(kind, &error.to_string(), details));
    } else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("error: {error}");
            if let Error::Symbol(SymbolError::Ambiguous { candidates, .. }) = error {
                for c in candidates {
                    eprintln!("  {}  {}", output::symbol_line(c), c.stable_id);
                }
            }
        }
    }
    code
}

fn progress_bar(json: bool) -> Option<ProgressBar> {
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:<10} [{bar:30}] {pos}/{len} files  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    Some(bar)
}

fn run_index(cli: &Cli, path: &Path, options: &IndexOptions) -> u8 {
    let bar = progress_bar(cli.json);
    let report = |p: Progress| {
        let Some(bar) = &bar else { return };
        match p {
            Progress::WaitingForLock => {
                bar.set_message("waiting for another sextant indexing this repository")
            }
            Progress::Walking => bar.set_message("walking"),
            Progress::Extracting { done, total, .. } => {
                bar.set_message("extracting");
                bar.set_length(total);
                bar.set_position(done);
            }
            Progress::Resolving { done, total } => {
                bar.set_message(format!("resolving {done}/{total} references"))
            }
            Progress::Writing => bar.set_message("writing"),
            Progress::Publishing => bar.set_message("publishing"),
        }
    };
    let result = sextant_engine::index(path, options, &report);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(summary) => {
            if cli.json {
                output::emit_json(&json::index_summary(&summary));
            } else {
                output::emit(&output::index_summary(&summary));
            }
            exit::OK
        }
        Err(e) => fail(cli, &e),
    }
}

/// Parses `PATH:START-END` (or `PATH:LINE`).
fn parse_range(target: &str) -> Option<(&str, u32, u32)> {
    let (path, range) = target.rsplit_once(':')?;
    let (start, end) = match range.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let line = range.parse().ok()?;
            (line, line)
        }
    };
    Some((path, start, end))
}

pub fn run(cli: Cli) -> u8 {
    let result: Result<(), Error> = (|| {
        match &cli.command {
            Command::Index {
                path,
                full,
                max_file_size,
                threads,
                scip,
            } => {
                let path = path.clone().or(cli.repo.clone()).unwrap_or_else(cwd);
                let options = IndexOptions {
                    full: *full,
                    max_file_size: *max_file_size,
                    threads: *threads,
                    home: None,
                    scip: scip.clone(),
                    ..IndexOptions::default()
                };
                let code = run_index(&cli, &path, &options);
                if code != exit::OK {
                    std::process::exit(i32::from(code));
                }
            }
            Command::Search(args) => crate::search_cmd::search(&open_repo(&cli)?, cli.json, args)?,
            Command::Show { symbol } => {
                let repo = open_repo(&cli)?;
                let s = repo.resolve_symbol(symbol)?;
                let card = repo.card(&s)?;
                if cli.json {
                    output::emit_json(&json::card(&card));
                } else {
                    output::emit(&output::card(&card));
                }
            }
            Command::Source { target, context } => {
                let repo = open_repo(&cli)?;
                let span = match parse_range(target) {
                    Some((path, start, end)) if !target.starts_with("sym_") => {
                        repo.source_range(path, start, end, *context)?
                    }
                    _ => {
                        let s = repo.resolve_symbol(target)?;
                        repo.source_of(&s, *context)?
                    }
                };
                if cli.json {
                    output::emit_json(&json::source(&span));
                } else {
                    output::emit(&output::source(&span));
                }
            }
            Command::Refs { symbol, kind } => {
                let repo = open_repo(&cli)?;
                let s = repo.resolve_symbol(symbol)?;
                let refs = repo.references(&s, kind)?;
                if cli.json {
                    output::emit_json(&json::references(&refs));
                } else {
                    output::emit(&output::references(&refs));
                }
            }
            Command::Callers {
                symbol,
                depth,
                limit,
            }
            | Command::Callees {
                symbol,
                depth,
                limit,
            } => {
                let incoming = matches!(cli.command, Command::Callers { .. });
                print_calls(&cli, symbol, incoming, *depth, *limit)?;
            }
            Command::Calls {
                symbol,
                direction,
                depth,
                limit,
            } => print_calls(&cli, symbol, direction == "in", *depth, *limit)?,
            Command::Hierarchy(args) => {
                crate::graph_cmds::hierarchy(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Impact(args) => crate::graph_cmds::impact(&open_repo(&cli)?, cli.json, args)?,
            Command::Path(args) => crate::graph_cmds::path(&open_repo(&cli)?, cli.json, args)?,
            Command::Overview(args) => {
                crate::graph_cmds::overview(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Changes(args) => {
                crate::change_cmds::changes(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Grep(args) => crate::change_cmds::grep(&open_repo(&cli)?, cli.json, args)?,
            Command::Query(args) => {
                crate::analytics_cmds::query(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Schema => crate::analytics_cmds::schema(&open_repo(&cli)?, cli.json)?,
            Command::Central(args) => {
                crate::analytics_cmds::central(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Bridges(args) => {
                crate::analytics_cmds::bridges(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Communities(args) => {
                crate::analytics_cmds::communities(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Cycles(args) => {
                crate::analytics_cmds::cycles(&open_repo(&cli)?, cli.json, args)?
            }
            Command::EntryPoints(args) => {
                crate::analytics_cmds::entry_points(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Flows(args) => {
                crate::analytics_cmds::flows(&open_repo(&cli)?, cli.json, args)?
            }
            Command::DeadCode(args) => {
                crate::analytics_cmds::dead_code(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Complexity(args) => {
                crate::analytics_cmds::complexity(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Architecture(args) => {
                crate::analytics_cmds::architecture(&open_repo(&cli)?, cli.json, args)?
            }
            Command::Status { path } => {
                let start = path.clone().or(cli.repo.clone()).unwrap_or_else(cwd);
                let status = sextant_engine::status(&sextant_engine::find_root(&start), 20)?;
                if cli.json {
                    output::emit_json(&json::status(&status));
                } else {
                    output::emit(&output::status(&status));
                }
            }
            Command::Stats { path } => {
                let start = path.clone().or(cli.repo.clone()).unwrap_or_else(cwd);
                let repo = Repo::open(&sextant_engine::find_root(&start))?;
                let stats = repo.stats()?;
                if cli.json {
                    output::emit_json(&json::stats(&stats));
                } else {
                    output::emit(&output::stats(&stats));
                }
            }
            Command::Eval { scip, samples } => {
                let repo = open_repo(&cli)?;
                let index = sextant_engine::read_scip(scip)?;
                let report = repo.evaluate(&index, *samples)?;
                if cli.json {
                    output::emit_json(&json::eval(&report));
                } else {
                    output::emit(&output::eval(&report, *samples));
                }
            }
            Command::Serve {
                http,
                toolsets,
                token,
                allow_remote,
                allow_host,
                allow_origin,
                max_body,
                no_watch,
            } => {
                let start = cli.repo.clone().unwrap_or_else(cwd);
                let root = sextant_engine::find_root(&start);
                if !root.is_dir() {
                    return Err(Error::NotADirectory(root.display().to_string()));
                }
                let http = http.map(|addr| sextant_mcp::HttpOptions {
                    allow_remote: *allow_remote,
                    token: token.clone().filter(|t| !t.is_empty()),
                    allowed_hosts: allow_host.clone(),
                    allowed_origins: allow_origin.clone(),
                    max_body_bytes: *max_body,
                    ..sextant_mcp::HttpOptions::new(addr)
                });
                // --toolsets wins over the configuration file's [mcp] toolsets.
                let toolsets = if toolsets.is_empty() {
                    sextant_engine::config::load_config(&sextant_engine::data_home())?
                        .mcp
                        .toolsets
                } else {
                    toolsets.clone()
                };
                let options = sextant_mcp::ServeOptions {
                    toolsets,
                    http,
                    watch: !*no_watch,
                };
                sextant_mcp::serve(root, &options).map_err(|e| Error::Io(e.to_string()))?;
            }
            Command::Watch(args) => crate::watch_cmd::run(&cli, args)?,
            Command::Baselines(command) => crate::baselines_cmd::run(&cli, command)?,
            Command::Workspace(command) => crate::workspace_cmd::run(&cli, command)?,
            Command::Export {
                format,
                kinds,
                output: file,
            } => {
                let repo = open_repo(&cli)?;
                crate::export::run(&repo, *format, kinds, file.as_deref())?;
            }
            Command::Setup { agent, print } => {
                let start = cli.repo.clone().unwrap_or_else(cwd);
                let root = sextant_engine::find_root(&start);
                if !root.is_dir() {
                    return Err(Error::NotADirectory(root.display().to_string()));
                }
                let root = root.canonicalize().unwrap_or(root);
                let binary = std::env::current_exe()
                    .and_then(|p| p.canonicalize())
                    .map_err(|e| Error::Io(format!("cannot locate the sextant binary: {e}")))?;
                let planned =
                    crate::setup::plan(*agent, &binary, &root).map_err(Error::InvalidArgument)?;
                if !*print {
                    crate::setup::write(&planned).map_err(Error::Io)?;
                }
                output::setup(&planned, *print, cli.json);
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => exit::OK,
        Err(e) => fail(&cli, &e),
    }
}
