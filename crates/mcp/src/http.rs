//! Streamable HTTP transport: rmcp's `StreamableHttpService` mounted at `/mcp` with axum.
//!
//! Safety defaults: loopback only (another address needs `allow_remote` and a token); `Host`
//! must be a loopback name or the bound address (DNS rebinding); a browser `Origin` must be a
//! loopback origin or one allowed explicitly (403 otherwise); an optional bearer token (401
//! without it); request bodies above `max_body_bytes` get 413.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::Error;
use crate::server::SextantServer;

/// How `sextant serve --http` listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Binding a non-loopback address is refused without this.
    pub allow_remote: bool,
    /// Clients must send `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// More accepted `Host` values (`name` or `name:port`) besides loopback and the bound address.
    pub allowed_hosts: Vec<String>,
    /// More accepted browser origins (`https://app.example.com:443`) besides loopback ones.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
}

/// The default request body limit (1 MiB: tool arguments are small).
pub const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;

impl HttpOptions {
    /// Loopback on `addr` with the defaults.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            allow_remote: false,
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// Refuses unsafe combinations before anything listens.
    pub fn check(&self) -> Result<(), String> {
        if !self.addr.ip().is_loopback() {
            if !self.allow_remote {
                return Err(format!(
                    "refusing to listen on {} (not a loopback address): anyone who can reach it could read the repository. Use 127.0.0.1, or pass --allow-remote together with --token",
                    self.addr
                ));
            }
            if self.token.as_deref().unwrap_or("").is_empty() {
                return Err(format!(
                    "listening on {} needs a bearer token: pass --token (or set SEXTANT_MCP_TOKEN)",
                    self.addr
                ));
            }
        }
        if let Some(t) = &self.token
            && (t.len() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(
                "the token must be at least 16 characters without spaces or control characters"
                    .into(),
            );
        }
        if self.max_body_bytes < 1024 {
            return Err("the request body limit must be at least 1024 bytes".into());
        }
        Ok(())
    }

    fn config(&self, bound: SocketAddr, ct: CancellationToken) -> StreamableHttpServerConfig {
        let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        if !bound.ip().is_unspecified() {
            hosts.push(bound.ip().to_string());
        }
        hosts.extend(self.allowed_hosts.iter().cloned());
        let mut origins: Vec<String> = vec![
            "http://localhost:*".into(),
            "http://127.0.0.1:*".into(),
            "http://[::1]:*".into(),
            "https://localhost:*".into(),
            "https://127.0.0.1:*".into(),
        ];
        origins.extend(self.allowed_origins.iter().cloned());
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            .with_cancellation_token(ct);
        config.max_request_body_bytes = self.max_body_bytes;
        config
    }
}

/// Compares without an early exit, so timing does not reveal a prefix of the token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_token(
    State(token): State<Arc<Option<String>>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(token) = token.as_ref() {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same(given.as_bytes(), token.as_bytes()) {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send `Authorization: Bearer <token>` with the token given to `sextant serve --token`",
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    next.run(request).await
}

/// Listens until Ctrl-C / SIGTERM. The bound address is logged (port 0 picks a free one).
pub(crate) async fn serve(server: SextantServer, options: HttpOptions) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| Error::Config(format!("cannot listen on {}: {e}", options.addr)))?;
    let bound = listener.local_addr()?;
    let ct = CancellationToken::new();
    let service: StreamableHttpService<SextantServer, LocalSessionManager> =
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            options.config(bound, ct.child_token()),
        );
    let app =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(
                Arc::new(options.token.clone()),
                require_token,
            ));
    announce(bound);
    tracing::info!(%bound, token = options.token.is_some(), "listening");
    let shutdown = {
        let ct = ct.clone();
        async move {
            shutdown_signal().await;
            tracing::info!("shutting down");
            ct.cancel();
        }
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| Error::Session(e.to_string()))
}

/// The one line a person starting the server needs (tests and scripts read the port from it);
/// logs may be filtered out entirely, so it is printed, to stderr.
#[allow(clippy::print_stderr)]
fn announce(bound: SocketAddr) {
    eprintln!("sextant: MCP over streamable HTTP at http://{bound}/mcp");
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_unsafe_listening() {
        let local = HttpOptions::new("127.0.0.1:0".parse().unwrap());
        assert!(local.check().is_ok());
        let mut remote = HttpOptions::new("0.0.0.0:8080".parse().unwrap());
        assert!(remote.check().unwrap_err().contains("--allow-remote"));
        remote.allow_remote = true;
        assert!(remote.check().unwrap_err().contains("--token"));
        remote.token = Some("short".into());
        assert!(remote.check().unwrap_err().contains("16 characters"));
        remote.token = Some("0123456789abcdef0123".into());
        assert!(remote.check().is_ok());
    }

    #[test]
    fn token_comparison() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
