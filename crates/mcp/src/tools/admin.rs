//! Index administration tools: `status` (and, next, `index`).

use std::time::Instant;

use rmcp::{Json, tool, tool_router};
use sextant_engine as engine;

use crate::budget::json_len;
use crate::dto::*;
use crate::server::{SextantServer, engine_err};

#[tool_router(router = admin_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Index status of the repository: commit indexed vs HEAD (`stale`), files, languages, skipped files by reason. Call it when answers look out of date or a tool says the repository is not indexed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(&self) -> Result<Json<Envelope<StatusData>>, String> {
        self.blocking(|b| {
            let started = Instant::now();
            let status = engine::status(&b.root, 20).map_err(engine_err)?;
            let data = StatusData::from(&status);
            let bytes = json_len(&data) as u64;
            let meta = Meta {
                repository: b.root.display().to_string(),
                generation: status.generation.unwrap_or(0),
                commit: status.graph_commit.clone(),
                stale: status.stale,
                result_bytes: bytes,
                est_tokens: bytes.div_ceil(crate::budget::BYTES_PER_TOKEN),
                elapsed_ms: (started.elapsed().as_secs_f64() * 1e5).round() / 100.0,
                ..Meta::default()
            };
            Ok(Envelope { data, meta })
        })
        .await
    }
}
