//! Sextant's MCP server: the engine's tools over stdio or streamable HTTP, built on the official
//! SDK (rmcp). Tools are grouped in toolsets (`toolsets`); every answer is an envelope
//! `{data, meta}`: `meta` says which generation and commit answered, whether the index is stale,
//! how complete a traversal is, and whether (and how) the answer was cut to its token budget.
//! stdout carries protocol messages only (stdio); logs go to stderr.

mod args;
mod budget;
mod dto;
mod http;
mod server;
mod tools;
pub mod toolsets;
mod watches;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::ServiceExt;

pub use dto::*;
pub use http::HttpOptions;
pub use server::SextantServer;

/// Server failures (transport setup or I/O).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("MCP session failed: {0}")]
    Session(String),
    #[error("{0}")]
    Config(String),
}

/// What `sextant serve` serves and how.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Toolset names (`core`, ...; empty: the default set).
    pub toolsets: Vec<String>,
    /// Streamable HTTP instead of stdio.
    pub http: Option<HttpOptions>,
    /// Keep the index fresh while serving: index on start, then re-index after every burst of
    /// file changes (see `sextant_engine::watch`). Answers switch to each new generation.
    pub watch: bool,
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        .enable_all()
        .build()?)
}

fn log_start(root: &Path, transport: &str) {
    match sextant_engine::status(root, 0) {
        Ok(s) if s.indexed => tracing::info!(
            root = %root.display(), generation = ?s.generation, stale = s.stale,
            "serving over {transport}"
        ),
        _ => tracing::warn!(
            root = %root.display(),
            "not indexed yet: tools will answer with an error until `sextant index` runs"
        ),
    }
}

/// Serves the repository at `root` until the client goes away (stdio: stdin closes) or the
/// process is interrupted (HTTP). The repository is opened read-only per call; one that is not
/// indexed yet answers every tool but `status` with an error telling to run `sextant index`.
pub fn serve(root: PathBuf, options: &ServeOptions) -> Result<(), Error> {
    let sets = toolsets::parse(&options.toolsets).map_err(Error::Config)?;
    let server = SextantServer::with_toolsets(root.clone(), &sets);
    // The served root's watcher is registered like any other (`watched` lists it).
    if options.watch {
        let root = root.canonicalize().unwrap_or_else(|_| root.clone());
        watches::registry()
            .start(&root, sextant_engine::WatchOptions::default())
            .map_err(Error::Config)?;
    }
    let result = serve_with(root, server, options);
    // A run in progress stops before publishing; give it a moment, never hang the exit.
    watches::registry().stop_all(Duration::from_secs(2));
    result
}

fn serve_with(root: PathBuf, server: SextantServer, options: &ServeOptions) -> Result<(), Error> {
    if let Some(http) = &options.http {
        http.check().map_err(Error::Config)?;
        let runtime = runtime()?;
        let result = runtime.block_on(async move {
            log_start(&root, "streamable HTTP");
            http::serve(server, http.clone()).await
        });
        runtime.shutdown_timeout(Duration::from_secs(1));
        return result;
    }
    let runtime = runtime()?;
    let result = runtime.block_on(async move {
        log_start(&root, "stdio");
        let service = match server.serve(rmcp::transport::stdio()).await {
            Ok(service) => service,
            // The client went away before initializing: nothing to serve, not a failure.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(why)) => {
                tracing::info!(%why, "stdin closed before initialize");
                return Ok(());
            }
            Err(e) => return Err(Error::Session(e.to_string())),
        };
        let reason = service
            .waiting()
            .await
            .map_err(|e| Error::Session(e.to_string()))?;
        tracing::info!(?reason, "session ended");
        Ok(())
    });
    // Calls still running on the blocking pool must not keep the process alive after EOF.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

/// [`serve`] over stdio with the default toolsets.
pub fn serve_stdio(root: PathBuf) -> Result<(), Error> {
    serve(root, &ServeOptions::default())
}
