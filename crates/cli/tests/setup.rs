//! `sextant setup AGENT`: the files it writes for each agent, merged into what is there, and
//! idempotent (running it twice changes nothing).

use crate::common;
use common::*;

use std::process::Command;

use serde_json::Value;

fn setup(f: &Fixture, agent: &str, extra: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(["setup", agent, "--repo"])
        .arg(&f.repo)
        .args(extra)
        .env("SEXTANT_HOME", &f.home)
        .env("CODEX_HOME", f.scratch.join("codex"))
        .output()
        .unwrap()
}

#[test]
fn setup_writes_merges_and_is_idempotent() {
    let f = fixture(false);
    // An existing configuration with another server, and an existing CLAUDE.md.
    write(
        &f.repo,
        ".mcp.json",
        r#"{"mcpServers": {"other": {"command": "other-server"}}}"#,
    );
    write(&f.repo, "CLAUDE.md", "# Shop\n\nRun tests with pytest.\n");
    let out = setup(&f, "claude", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(f.repo.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(config["mcpServers"]["other"]["command"], "other-server");
    let ours = &config["mcpServers"]["sextant"];
    assert!(ours["command"].as_str().unwrap().ends_with("sextant"));
    assert_eq!(ours["args"][0], "serve");
    assert_eq!(ours["args"][2], f.repo.display().to_string());
    let notes = std::fs::read_to_string(f.repo.join("CLAUDE.md")).unwrap();
    assert!(
        notes.starts_with("# Shop\n\nRun tests with pytest.\n"),
        "{notes}"
    );
    assert!(notes.contains("<!-- sextant:begin -->") && notes.contains("`impact`"));
    // Twice: the same bytes.
    let out = setup(&f, "claude", &[]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(f.repo.join("CLAUDE.md")).unwrap(),
        notes
    );

    // --print writes nothing.
    let out = setup(&f, "cursor", &["--print"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(".cursor/mcp.json"));
    assert!(!f.repo.join(".cursor").exists());

    // VS Code's shape, and Codex's TOML in its own home.
    assert!(setup(&f, "vscode", &[]).status.success());
    let vs: Value =
        serde_json::from_str(&std::fs::read_to_string(f.repo.join(".vscode/mcp.json")).unwrap())
            .unwrap();
    assert_eq!(vs["servers"]["sextant"]["type"], "stdio");
    assert!(setup(&f, "codex", &[]).status.success());
    let toml = std::fs::read_to_string(f.scratch.join("codex/config.toml")).unwrap();
    assert!(
        toml.starts_with("[mcp_servers.sextant]\ncommand = "),
        "{toml}"
    );
    assert!(f.repo.join("AGENTS.md").exists());

    // A broken configuration is not overwritten.
    write(&f.repo, ".cursor/mcp.json", "{not json");
    let out = setup(&f, "cursor", &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid JSON"));
    assert_eq!(
        std::fs::read_to_string(f.repo.join(".cursor/mcp.json")).unwrap(),
        "{not json"
    );
}
