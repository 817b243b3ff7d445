//! A minimal MCP client over stdio: newline-delimited JSON-RPC 2.0 to a child process
//! (`sextant serve --repo PATH`), no SDK. A thread reads the child's stdout, parses each line
//! and hands it over a channel, so a request can wait with a timeout; the round trip of a
//! request is measured from just before its line is written to when its reply, parsed, is
//! received.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

/// The protocol revision the benchmark asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// What one line from the server is, relative to the request being waited for.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// The reply to that request: its `result`, or its `error` object.
    Reply(std::result::Result<Value, Value>),
    /// Anything else: a notification, a request from the server, a reply to another id.
    Other,
}

/// Classifies one parsed message for a request with id `id`. A reply carries `id` and either
/// `result` or `error` and no `method`; ids are compared as JSON values (a numeric id is not
/// the string of the same digits).
pub fn classify(msg: &Value, id: &Value) -> Incoming {
    if msg.get("method").is_some() || msg.get("id") != Some(id) {
        return Incoming::Other;
    }
    if let Some(result) = msg.get("result") {
        Incoming::Reply(Ok(result.clone()))
    } else if let Some(error) = msg.get("error") {
        Incoming::Reply(Err(error.clone()))
    } else {
        Incoming::Other
    }
}

/// One line read from the server: parsed, or why not.
type Line = std::result::Result<Value, String>;

/// A running server and the client side of its stdio.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    next_id: i64,
    timeout: Duration,
    /// Lines skipped while waiting for replies (notifications, other ids, unparsable).
    pub skipped: usize,
}

/// A reply and how long it took.
#[derive(Debug)]
pub struct Reply {
    pub result: Value,
    pub round_trip_ms: f64,
    /// Bytes of the reply line as received.
    pub line_bytes: usize,
}

impl Client {
    /// Starts `sextant serve --no-watch --repo ROOT` (no re-indexing during measurements) and
    /// runs the initialize handshake. Returns the client and the `initialize` result.
    pub fn start(binary: &Path, root: &Path, timeout: Duration) -> Result<(Self, Value)> {
        let mut child = Command::new(binary)
            .arg("serve")
            .arg("--no-watch")
            .arg("--repo")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {} serve", binary.display()))?;
        let stdout = child.stdout.take().context("child stdout")?;
        let stderr = child.stderr.take().context("child stderr")?;
        let (tx, rx) = channel::<Line>();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = String::new();
            loop {
                buf.clear();
                match reader.read_line(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = buf.trim_end_matches(['\n', '\r']);
                        if line.is_empty() {
                            continue;
                        }
                        let parsed = serde_json::from_str::<Value>(line)
                            .map_err(|e| format!("{e}: {}", truncate(line, 200)));
                        // The line's size travels with it (for reply sizes).
                        let parsed = parsed.map(|v| json!({"len": line.len(), "msg": v}));
                        if tx.send(parsed).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        // Keep the last few KiB of stderr for error messages (and never let the pipe fill).
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            let mut stderr = stderr;
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(&chunk[..n]);
                    let excess = t.len().saturating_sub(8192);
                    t.drain(..excess);
                }
            }
        });
        let stdin = child.stdin.take();
        let mut client = Client {
            child,
            stdin,
            lines: rx,
            stderr_tail,
            next_id: 1,
            timeout,
            skipped: 0,
        };
        let init = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "sextant-bench", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
            .context("initialize")?;
        client.notify("notifications/initialized", json!({}))?;
        Ok((client, init.result))
    }

    fn write_line(&mut self, msg: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(msg)?;
        line.push(b'\n');
        let stdin = self.stdin.as_mut().context("stdin already closed")?;
        stdin.write_all(&line)?;
        stdin.flush()?;
        Ok(())
    }

    /// Sends a notification (no reply).
    pub fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.write_line(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its reply; a JSON-RPC error is an `Err`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply> {
        let id = json!(self.next_id);
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let start = Instant::now();
        self.write_line(&msg)?;
        let deadline = start + self.timeout;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(wait) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    bail!(
                        "no reply to {method} within {:?}{}",
                        self.timeout,
                        self.stderr_note()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    bail!(
                        "the server closed stdout during {method}{}",
                        self.stderr_note()
                    )
                }
            };
            let Ok(wrapped) = line else {
                self.skipped += 1;
                continue;
            };
            match classify(&wrapped["msg"], &id) {
                Incoming::Reply(Ok(result)) => {
                    return Ok(Reply {
                        result,
                        round_trip_ms: start.elapsed().as_secs_f64() * 1000.0,
                        line_bytes: wrapped["len"].as_u64().unwrap_or(0) as usize,
                    });
                }
                Incoming::Reply(Err(error)) => bail!("{method}: JSON-RPC error {error}"),
                Incoming::Other => self.skipped += 1,
            }
        }
    }

    /// `tools/call`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Result<Reply> {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    fn stderr_note(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        if tail.trim().is_empty() {
            String::new()
        } else {
            format!("; server stderr:\n{}", tail.trim())
        }
    }

    /// Closes stdin (the server exits on EOF) and waits up to 5 s, then kills it.
    pub fn close(mut self) -> Result<()> {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.child.kill()?;
        self.child.wait()?;
        Err(anyhow!(
            "the server did not exit within 5 s of stdin closing"
        ))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            drop(self.stdin.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The text content blocks of a `tools/call` result, joined by newlines.
pub fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// `meta.timing.total_ms` of a Sextant answer (from `structuredContent`, else the text).
pub fn server_total_ms(result: &Value) -> Option<f64> {
    let from = |v: &Value| v["meta"]["timing"]["total_ms"].as_f64();
    from(&result["structuredContent"]).or_else(|| {
        serde_json::from_str::<Value>(&result_text(result))
            .ok()
            .and_then(|v| from(&v))
    })
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_matched_by_id() {
        let id = json!(7);
        let ok = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}});
        assert_eq!(
            classify(&ok, &id),
            Incoming::Reply(Ok(json!({"content": []})))
        );
        let err = json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "x"}});
        assert_eq!(
            classify(&err, &id),
            Incoming::Reply(Err(json!({"code": -32602, "message": "x"})))
        );
    }

    #[test]
    fn other_messages_are_skipped() {
        let id = json!(7);
        // A reply to another request.
        assert_eq!(
            classify(&json!({"jsonrpc": "2.0", "id": 6, "result": {}}), &id),
            Incoming::Other
        );
        // The same digits as a string are another id.
        assert_eq!(
            classify(&json!({"jsonrpc": "2.0", "id": "7", "result": {}}), &id),
            Incoming::Other
        );
        // A notification.
        assert_eq!(
            classify(
                &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}),
                &id
            ),
            Incoming::Other
        );
        // A request from the server that happens to reuse the id.
        assert_eq!(
            classify(
                &json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list", "params": {}}),
                &id
            ),
            Incoming::Other
        );
        // Neither result nor error.
        assert_eq!(
            classify(&json!({"jsonrpc": "2.0", "id": 7}), &id),
            Incoming::Other
        );
    }

    #[test]
    fn text_and_server_timing_are_read_from_a_result() {
        let structured = json!({
            "content": [{"type": "text", "text": "{\"data\":1}"}],
            "structuredContent": {"data": 1, "meta": {"timing": {"total_ms": 1.5}}},
        });
        assert_eq!(result_text(&structured), "{\"data\":1}");
        assert_eq!(server_total_ms(&structured), Some(1.5));
        let text_only = json!({"content": [
            {"type": "text", "text": "{\"data\":1,\"meta\":{\"timing\":{\"total_ms\":2.0}}}"},
            {"type": "image", "data": "…"},
        ]});
        assert_eq!(server_total_ms(&text_only), Some(2.0));
        assert_eq!(server_total_ms(&json!({"content": []})), None);
    }
}
