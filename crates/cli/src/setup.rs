//! `sextant setup AGENT`: connects a coding agent to `sextant serve` for one repository. It
//! writes (or, with `--print`, prints) two things: the agent's MCP server configuration, merged
//! into what is already there, and a short instruction block telling the agent when to prefer
//! Sextant's tools, kept between markers so running setup again replaces it instead of
//! appending a copy.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The agents `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: `.mcp.json` and `CLAUDE.md` in the repository.
    Claude,
    /// Cursor: `.cursor/mcp.json` and `.cursor/rules/sextant.mdc` in the repository.
    Cursor,
    /// OpenAI Codex CLI: `$CODEX_HOME/config.toml` (default `~/.codex`) and `AGENTS.md`.
    Codex,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json` and `.github/copilot-instructions.md`.
    Vscode,
}

/// One file setup writes.
#[derive(Debug)]
pub struct Planned {
    pub path: PathBuf,
    /// The whole new content.
    pub text: String,
    /// What the file is for.
    pub what: &'static str,
}

const BEGIN: &str = "<!-- sextant:begin -->";
const END: &str = "<!-- sextant:end -->";

/// The instruction block: when to use which tool, in a few lines.
pub const INSTRUCTIONS: &str = "## Code navigation: use Sextant

This repository is indexed by Sextant (MCP server `sextant`). Prefer its tools to grep and to reading whole files:
- `search` finds where a class, function or method is defined (by name or words); `symbol` tells what it is: signature, doc, members, callers and callees.
- Before changing a function, ask `references` or `calls` (who uses it) and `impact` (what may break, which tests cover it); after editing, `changes` lists the symbols your diff touched and the tests to run.
- `source` with `mode` = `signature` or `head_tail` shows code without opening whole files; `grep` finds text and names the enclosing symbol of each hit; `path` explains how two symbols are connected; `overview` maps an unfamiliar repository.
- Answers carry `meta`: `stale` means the index is behind HEAD (call `index`), `completeness` says whether unresolved sites could add results, `next_cursor` pages through long answers.
";

fn server_entry(binary: &Path, repo: &Path) -> (String, Vec<String>) {
    (
        binary.display().to_string(),
        vec![
            "serve".to_string(),
            "--repo".to_string(),
            repo.display().to_string(),
        ],
    )
}

/// `existing` with the `sextant` server set under `key` (other servers kept).
fn merge_json(
    existing: Option<&str>,
    key: &str,
    entry: Value,
    path: &Path,
) -> Result<String, String> {
    let mut root: Map<String, Value> = match existing.map(str::trim).filter(|t| !t.is_empty()) {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return Err(format!(
                    "{}: expected a JSON object; fix or move the file and run setup again",
                    path.display()
                ));
            }
            Err(e) => {
                return Err(format!(
                    "{}: not valid JSON ({e}); fix or move the file and run setup again (nothing was written)",
                    path.display()
                ));
            }
        },
    };
    let servers = root
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(format!(
            "{}: `{key}` is not an object; fix the file and run setup again",
            path.display()
        ));
    };
    servers.insert("sextant".to_string(), entry);
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    Ok(text)
}

/// `existing` with the marked instruction block replaced (or appended).
fn merge_block(existing: Option<&str>, block: &str) -> String {
    let marked = format!("{BEGIN}\n{}{END}\n", block);
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return marked;
    };
    if let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END))
        && b < e
    {
        let after = &text[e + END.len()..];
        let after = after.strip_prefix('\n').unwrap_or(after);
        return format!("{}{marked}{after}", &text[..b]);
    }
    let sep = if text.ends_with("\n\n") {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    format!("{text}{sep}{marked}")
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `existing` TOML with the `[mcp_servers.sextant]` table replaced (or appended). Other tables
/// and comments are kept as written.
fn merge_codex(existing: Option<&str>, binary: &str, args: &[String]) -> String {
    let args: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
    let table = format!(
        "[mcp_servers.sextant]\ncommand = {}\nargs = [{}]\n",
        toml_string(binary),
        args.join(", ")
    );
    let text = existing.unwrap_or("");
    let mut out = String::new();
    let mut skipping = false;
    let mut replaced = false;
    for line in text.lines() {
        let header = line.trim_start().starts_with('[');
        if header {
            skipping = line.trim() == "[mcp_servers.sextant]";
            if skipping && !replaced {
                out.push_str(&table);
                replaced = true;
            }
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !replaced {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&table);
    }
    out
}

fn codex_home() -> PathBuf {
    if let Some(h) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".codex")
}

fn read(path: &Path) -> Result<Option<String>, String> {
    sextant_engine::read_config_text(path).map_err(|e| e.to_string())
}

/// The files `setup` would write for `agent`, with their merged contents.
pub fn plan(agent: Agent, binary: &Path, repo: &Path) -> Result<Vec<Planned>, String> {
    let (command, args) = server_entry(binary, repo);
    let mut out = Vec::new();
    match agent {
        Agent::Claude | Agent::Cursor => {
            let (config, notes, notes_text) = if agent == Agent::Claude {
                (
                    repo.join(".mcp.json"),
                    repo.join("CLAUDE.md"),
                    None::<String>,
                )
            } else {
                (
                    repo.join(".cursor/mcp.json"),
                    repo.join(".cursor/rules/sextant.mdc"),
                    Some(format!(
                        "---\ndescription: Use Sextant's code graph tools for code navigation\nalwaysApply: true\n---\n\n{INSTRUCTIONS}"
                    )),
                )
            };
            let entry = json!({"command": command, "args": args});
            out.push(Planned {
                text: merge_json(read(&config)?.as_deref(), "mcpServers", entry, &config)?,
                path: config,
                what: "MCP server configuration",
            });
            let text = match notes_text {
                Some(whole) => whole,
                None => merge_block(read(&notes)?.as_deref(), INSTRUCTIONS),
            };
            out.push(Planned {
                path: notes,
                text,
                what: "agent instructions",
            });
        }
        Agent::Vscode => {
            let config = repo.join(".vscode/mcp.json");
            let entry = json!({"type": "stdio", "command": command, "args": args});
            out.push(Planned {
                text: merge_json(read(&config)?.as_deref(), "servers", entry, &config)?,
                path: config,
                what: "MCP server configuration",
            });
            let notes = repo.join(".github/copilot-instructions.md");
            out.push(Planned {
                text: merge_block(read(&notes)?.as_deref(), INSTRUCTIONS),
                path: notes,
                what: "agent instructions",
            });
        }
        Agent::Codex => {
            let config = codex_home().join("config.toml");
            out.push(Planned {
                text: merge_codex(read(&config)?.as_deref(), &command, &args),
                path: config,
                what: "MCP server configuration (user-wide; the server is pinned to this repository)",
            });
            let notes = repo.join("AGENTS.md");
            out.push(Planned {
                text: merge_block(read(&notes)?.as_deref(), INSTRUCTIONS),
                path: notes,
                what: "agent instructions",
            });
        }
    }
    Ok(out)
}

/// Writes the planned files (creating their directories).
pub fn write(planned: &[Planned]) -> Result<(), String> {
    for p in planned {
        if let Some(dir) = p.path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&p.path, &p.text)
            .map_err(|e| format!("cannot write {}: {e}", p.path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_merge_keeps_other_servers_and_replaces_ours() {
        let p = Path::new(".mcp.json");
        let before = r#"{"mcpServers": {"other": {"command": "x"}, "sextant": {"command": "old"}}, "keep": 1}"#;
        let text = merge_json(Some(before), "mcpServers", json!({"command": "new"}), p).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["mcpServers"]["sextant"]["command"], "new");
        assert_eq!(v["keep"], 1);
        let e = merge_json(Some("{oops"), "mcpServers", json!({}), p).unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
    }

    #[test]
    fn instruction_block_is_replaced_not_duplicated() {
        let once = merge_block(Some("# Project\n\nNotes.\n"), "A\n");
        assert!(once.starts_with("# Project\n\nNotes.\n\n<!-- sextant:begin -->\nA\n"));
        let twice = merge_block(Some(&once), "B\n");
        assert_eq!(twice.matches(BEGIN).count(), 1);
        assert!(
            twice.contains("\nB\n") && !twice.contains("\nA\n"),
            "{twice}"
        );
        assert!(twice.starts_with("# Project\n"));
        assert_eq!(merge_block(None, "A\n"), format!("{BEGIN}\nA\n{END}\n"));
    }

    #[test]
    fn codex_table_is_replaced_in_place() {
        let before = "model = \"x\"\n\n[mcp_servers.sextant]\ncommand = \"old\"\nargs = []\n\n[other]\nk = 1\n";
        let after = merge_codex(
            Some(before),
            "/bin/sextant",
            &["serve".into(), "--repo".into(), "/r".into()],
        );
        assert!(after.contains("model = \"x\""));
        assert!(after.contains("[other]\nk = 1"));
        assert!(!after.contains("old"));
        assert_eq!(after.matches("[mcp_servers.sextant]").count(), 1);
        assert!(
            after.contains("args = [\"serve\", \"--repo\", \"/r\"]"),
            "{after}"
        );
        let fresh = merge_codex(None, "s", &[]);
        assert_eq!(fresh, "[mcp_servers.sextant]\ncommand = \"s\"\nargs = []\n");
    }
}
