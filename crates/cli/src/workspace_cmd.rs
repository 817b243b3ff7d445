//! `sextant workspace create|reset|list|delete|refresh`: named workspaces, each an overlay of
//! file texts on the index of a commit, queried with `--workspace NAME` on the read commands.

use std::path::PathBuf;

use serde_json::json;
use sextant_engine::{RefreshInput, WorkspaceInfo};

use crate::{Cli, output};

#[derive(Debug, clap::Subcommand)]
pub enum WorkspaceCommand {
    /// Create a workspace on the clean index of a commit (default HEAD). Idempotent.
    Create {
        name: String,
        /// The commit (any revision) whose clean index the workspace starts from.
        #[arg(long, value_name = "REV")]
        commit: Option<String>,
    },
    /// Drop a workspace's overlay (revision back to 0).
    Reset { name: String },
    /// List the workspaces: base commit, revision, modified files, whether HEAD moved since.
    List,
    /// Delete a workspace (and the generation it holds).
    Delete { name: String },
    /// Take changes into a workspace: the given files as they are on disk, or (without PATHS)
    /// every file of the working tree that differs from the workspace's base commit.
    Refresh {
        name: String,
        /// Repository-relative paths to re-read.
        paths: Vec<String>,
    },
}

fn short(commit: Option<&str>) -> &str {
    commit.map_or("-", |c| &c[..c.len().min(12)])
}

pub fn run(cli: &Cli, command: &WorkspaceCommand) -> sextant_engine::Result<()> {
    let start = cli
        .repo
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let root = sextant_engine::find_root(&start);
    let home = sextant_engine::data_home();
    match command {
        WorkspaceCommand::Create { name, commit } => {
            let c = sextant_engine::create_workspace(&home, &root, name, commit.as_deref())?;
            if cli.json {
                output::emit_json(&json!(c));
            } else {
                output::emit(&format!(
                    "{} workspace {} on {} (generation {}), revision {}\n",
                    if c.created { "created" } else { "existing" },
                    c.name,
                    short(c.base_commit.as_deref()),
                    c.base_generation,
                    c.revision
                ));
            }
        }
        WorkspaceCommand::Reset { name } => {
            let r = sextant_engine::reset_workspace(&home, &root, name)?;
            if cli.json {
                output::emit_json(&json!(r));
            } else {
                output::emit(&format!(
                    "reset workspace {}: revision {} -> {}\n",
                    r.name, r.previous_revision, r.new_revision
                ));
            }
        }
        WorkspaceCommand::List => {
            let list = sextant_engine::list_workspaces(&home, &root)?;
            if cli.json {
                output::emit_json(&json!(list));
            } else {
                let mut text = String::new();
                for w in &list.workspaces {
                    text.push_str(&line(w));
                }
                if list.workspaces.is_empty() {
                    text.push_str("no workspaces\n");
                }
                output::emit(&text);
            }
        }
        WorkspaceCommand::Delete { name } => {
            let d = sextant_engine::delete_workspace(&home, &root, name)?;
            if cli.json {
                output::emit_json(&json!(d));
            } else if d.deleted {
                output::emit(&format!("deleted workspace {}\n", d.name));
            } else {
                output::emit(&format!("no workspace {}\n", d.name));
            }
        }
        WorkspaceCommand::Refresh { name, paths } => {
            let input = RefreshInput {
                paths: (!paths.is_empty()).then(|| paths.clone()),
                contents: None,
            };
            let r = sextant_engine::refresh_workspace(&home, &root, name, &input)?;
            if cli.json {
                output::emit_json(&json!(r));
            } else {
                let mut text = format!(
                    "workspace {}: revision {}, {} files re-indexed, {} symbols updated ({:.0} ms)\n",
                    r.name,
                    r.revision,
                    r.files_reindexed,
                    r.symbols_updated,
                    r.wall_seconds * 1000.0
                );
                for p in &r.changed {
                    text.push_str(&format!("  {p}\n"));
                }
                output::emit(&text);
            }
        }
    }
    Ok(())
}

fn line(w: &WorkspaceInfo) -> String {
    format!(
        "{:<20} {:<12} revision {:>3}  {:>4} files{}\n",
        w.name,
        short(w.base_commit.as_deref()),
        w.revision,
        w.modified_files,
        if w.is_stale {
            "  (stale: HEAD moved)"
        } else {
            ""
        },
    )
}
