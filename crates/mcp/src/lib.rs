//! Sextant's MCP server: the engine's read tools (`search`, `symbol`, `source`, `references`,
//! `calls`, `status`) over stdio, built on the official SDK (rmcp). Every answer is an envelope
//! `{data, meta}`: `meta` says which generation and commit answered, whether the index is stale,
//! how complete a traversal is, and whether (and how) the answer was cut to its token budget.
//! stdout carries protocol messages only; logs go to stderr.

mod args;
mod budget;
mod dto;
mod server;

use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;

pub use dto::*;
pub use server::SextantServer;

/// Server failures (transport setup or I/O).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("MCP session failed: {0}")]
    Session(String),
}

/// Serves the repository at `root` over stdin/stdout until the client closes stdin. The
/// repository is opened read-only per call; one that is not indexed yet answers every tool but
/// `status` with an error telling to run `sextant index`.
pub fn serve_stdio(root: PathBuf) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async move {
        match sextant_engine::status(&root, 0) {
            Ok(s) if s.indexed => tracing::info!(
                root = %root.display(), generation = ?s.generation, stale = s.stale,
                "serving over stdio"
            ),
            _ => tracing::warn!(
                root = %root.display(),
                "not indexed yet: tools will answer with an error until `sextant index` runs"
            ),
        }
        let service = SextantServer::new(root)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Session(e.to_string()))?;
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
