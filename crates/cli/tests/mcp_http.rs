//! `sextant serve --http`: the real binary listening on a loopback port, driven by a raw HTTP/1.1
//! client over a TCP socket, for what an SDK client would never send: foreign `Host` and `Origin`
//! headers (DNS rebinding), missing or wrong bearer tokens, oversized bodies, and a
//! `server/discover` before `initialize`.

use crate::common;
use common::*;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(f: &Fixture, extra: &[&str]) -> Server {
        let mut child = Command::new(bin())
            .args(["serve", "--http", "127.0.0.1:0", "--repo"])
            .arg(&f.repo)
            .args(extra)
            .env("SEXTANT_HOME", &f.home)
            .env("SEXTANT_LOG", "warn")
            .env_remove("SEXTANT_MCP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("at http://").nth(1) {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_string());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints its address");
        Server { child, addr }
    }

    /// One request on a fresh connection: (status, headers lowercased, body).
    fn request(&self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut head = format!("{method} /mcp HTTP/1.1\r\n");
        let mut has_host = false;
        for (k, v) in headers {
            has_host |= k.eq_ignore_ascii_case("host");
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if !has_host {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        stream.write_all(head.as_bytes()).unwrap();
        // The server may answer (413) before the whole body is sent.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let text = String::from_utf8_lossy(&raw).to_string();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status: u16 = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Response {
            status,
            headers,
            body: body.to_string(),
        }
    }

    fn post(&self, extra: &[(&str, &str)], message: &Value) -> Response {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", &headers, message.to_string().as_bytes())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body (plain JSON, or the `data:` lines of an SSE stream,
    /// possibly chunked).
    fn message(&self) -> Value {
        if let Ok(v) = serde_json::from_str(self.body.trim()) {
            return v;
        }
        for line in self.body.lines() {
            if let Some(data) = line.strip_prefix("data:")
                && let Ok(v) = serde_json::from_str::<Value>(data.trim())
                && (v.get("result").is_some() || v.get("error").is_some())
            {
                return v;
            }
        }
        panic!("no JSON-RPC message in {:?}", self.body);
    }
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "raw-http-test", "version": "0"}
    }})
}

#[test]
fn http_serves_tools_and_refuses_rebinding_foreign_origins_and_big_bodies() {
    let f = fixture(true);
    let server = Server::start(&f, &[]);

    // A current client may try discovery first: it gets a prompt answer (not a hang).
    let r = server.post(
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}}),
    );
    assert!(
        r.status == 200 || r.status == 400,
        "{} {}",
        r.status,
        r.body
    );

    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let r = server.post(&[], &initialize(version));
        assert_eq!(r.status, 200, "{}", r.body);
        let m = r.message();
        assert_eq!(m["result"]["protocolVersion"], version, "{m}");
        assert_eq!(m["result"]["serverInfo"]["name"], "sextant", "{m}");
    }

    // A session: initialize, initialized, then a tool call.
    let r = server.post(&[], &initialize("2025-11-25"));
    let session = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let r = server.post(
        &with_session,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let r = server.post(
        &with_session,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "UserStore"}}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let m = r.message();
    let data = &m["result"]["structuredContent"]["data"];
    assert_eq!(
        data["results"][0]["symbol"]["qualified_name"], "shop.users.UserStore",
        "{m}"
    );
    let r = server.post(
        &with_session,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    );
    let names: Vec<String> = r.message()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.contains(&"search".to_string()), "{names:?}");

    // Protocol edges (RELIABILITY.md T13): a notification gets 202 (above); an unknown session
    // 404; a request without a session 400; an invalid protocol version header 400.
    let r = server.post(
        &[
            ("Mcp-Session-Id", "no-such-session"),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        &json!({"jsonrpc": "2.0", "id": 20, "method": "tools/list"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.post(
        &[("MCP-Protocol-Version", "2025-11-25")],
        &json!({"jsonrpc": "2.0", "id": 21, "method": "tools/list"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = server.post(
        &[
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        &json!({"jsonrpc": "2.0", "id": 22, "method": "tools/list"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    // Session ids are long random tokens.
    assert!(session.len() >= 32, "{session}");

    // DNS rebinding: a foreign Host is refused.
    let r = server.post(&[("Host", "attacker.example")], &initialize("2025-11-25"));
    assert_eq!(r.status, 403, "{}", r.body);
    // A foreign browser origin is refused; a loopback one is accepted.
    let r = server.post(
        &[("Origin", "https://attacker.example")],
        &initialize("2025-11-25"),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    let r = server.post(
        &[("Origin", "http://localhost:6274")],
        &initialize("2025-11-25"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Bodies over the limit get 413 and the server keeps serving.
    let big = vec![b' '; 2 << 20];
    let r = server.request(
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        &big,
    );
    assert_eq!(r.status, 413, "{}", r.body);
    let r = server.post(&[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.body);
    // Not JSON: a client error, not a crash.
    let r = server.request(
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        b"{not json",
    );
    assert!((400..500).contains(&r.status), "{} {}", r.status, r.body);
    let r = server.post(&[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn http_token_is_required_when_set() {
    let f = fixture(true);
    let token = "0123456789abcdef-test-token";
    let server = Server::start(&f, &["--token", token]);
    let r = server.post(&[], &initialize("2025-11-25"));
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    let r = server.post(
        &[("Authorization", "Bearer wrong-token-wrong-token")],
        &initialize("2025-11-25"),
    );
    assert_eq!(r.status, 401, "{}", r.body);
    let auth = format!("Bearer {token}");
    let r = server.post(&[("Authorization", &auth)], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn http_refuses_a_public_address_without_allow_remote_and_token() {
    let f = fixture(false);
    let out = Command::new(bin())
        .args(["serve", "--http", "0.0.0.0:0", "--repo"])
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .env_remove("SEXTANT_MCP_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--allow-remote"), "{err}");
}

#[test]
fn toolsets_come_from_the_flag_or_the_configuration_file() {
    let f = fixture(false);
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), "[mcp]\ntoolsets = [\"nope\"]\n").unwrap();
    let serve = |extra: &[&str]| {
        Command::new(bin())
            .args(["serve", "--repo"])
            .arg(&f.repo)
            .args(extra)
            .env("SEXTANT_HOME", &f.home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = serve(&[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown toolset `nope`"), "{err}");
    // The flag wins: core is served (stdin is closed at once, so it exits cleanly).
    let out = serve(&["--toolsets", "core"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(f.home.join("config.toml"), "[mcp]\ntoolset = 1\n").unwrap();
    let out = serve(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml") && err.contains("unknown field"),
        "{err}"
    );
}
