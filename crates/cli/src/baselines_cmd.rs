//! `sextant baselines list|gc|push|pull|pin|unpin`: the generations a repository's database keeps
//! (the active one, the previous one, the baselines of recent commits and the pinned ones),
//! garbage collection on demand, and the shared baseline cache (`SEXTANT_CACHE_DIR`).

use std::path::PathBuf;

use serde_json::json;

use crate::{Cli, output};

#[derive(Debug, clap::Subcommand)]
pub enum BaselinesCommand {
    /// List the kept generations, newest first.
    List,
    /// Remove what no kept generation needs (waits for a running index).
    Gc,
    /// Push a commit's baseline to the shared cache (replacing a cached one).
    Push {
        /// The commit (default: the active generation's when it is clean, else HEAD's).
        #[arg(long)]
        commit: Option<String>,
        /// The cache directory (default: $SEXTANT_CACHE_DIR).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Pull a commit's baseline from the shared cache; the next index of it resolves nothing.
    Pull {
        /// The commit (default: HEAD's).
        #[arg(long)]
        commit: Option<String>,
        /// The cache directory (default: $SEXTANT_CACHE_DIR).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Keep a generation (its id) or a commit's baseline (a revision) through garbage collection.
    Pin {
        /// A generation id or a commit.
        target: String,
    },
    /// Remove a pin.
    Unpin {
        /// A generation id or a commit.
        target: String,
    },
}

pub fn run(cli: &Cli, command: &BaselinesCommand) -> sextant_engine::Result<()> {
    let start = cli
        .repo
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let root = sextant_engine::find_root(&start);
    let home = sextant_engine::data_home();
    match command {
        BaselinesCommand::List => {
            let list = sextant_engine::baselines(&home, &root)?;
            if cli.json {
                output::emit_json(&json!({ "generations": list }));
            } else {
                let mut text = String::new();
                for b in &list {
                    text.push_str(&format!(
                        "{:>6}  {:<12} {:<10} {:<9} {:>6} files {:>8} symbols{}{}{}\n",
                        b.generation,
                        b.commit.as_deref().map_or("-", |c| &c[..c.len().min(12)]),
                        b.branch.as_deref().unwrap_or("-"),
                        b.status,
                        b.files,
                        b.symbols,
                        if b.dirty { "  (uncommitted files)" } else { "" },
                        if b.active { "  active" } else { "" },
                        if b.pinned { "  pinned" } else { "" },
                    ));
                }
                if list.is_empty() {
                    text.push_str("no generations\n");
                }
                output::emit(&text);
            }
        }
        BaselinesCommand::Gc => {
            let removed = sextant_engine::collect_baselines(&home, &root)?;
            if cli.json {
                output::emit_json(&json!({ "removed_generations": removed }));
            } else {
                output::emit(&format!("removed {removed} generation(s)\n"));
            }
        }
        BaselinesCommand::Push { commit, cache_dir } => {
            let dir = sextant_engine::cache_dir(cache_dir.as_deref())?;
            let t = sextant_engine::push_baseline(&home, &root, &dir, commit.as_deref())?;
            if cli.json {
                output::emit_json(&json!({ "pushed": t }));
            } else {
                output::emit(&format!(
                    "pushed generation {} of {} to {} ({} bytes, {:.2} s)\n",
                    t.generation,
                    t.commit,
                    t.file.display(),
                    t.bytes,
                    t.seconds
                ));
            }
        }
        BaselinesCommand::Pull { commit, cache_dir } => {
            let dir = sextant_engine::cache_dir(cache_dir.as_deref())?;
            let t = sextant_engine::pull_baseline(&home, &root, &dir, commit.as_deref())?;
            if cli.json {
                output::emit_json(&json!({ "pulled": t }));
            } else if t.already {
                output::emit(&format!(
                    "generation {} already holds {}: nothing pulled\n",
                    t.generation, t.commit
                ));
            } else {
                output::emit(&format!(
                    "pulled {} from {} as generation {} ({} bytes, {:.2} s); the next index of it resolves nothing\n",
                    t.commit,
                    t.file.display(),
                    t.generation,
                    t.bytes,
                    t.seconds
                ));
            }
        }
        BaselinesCommand::Pin { target } => {
            let p = sextant_engine::pin_baseline(&home, &root, target)?;
            if cli.json {
                output::emit_json(&json!({ "pinned": p }));
            } else {
                output::emit(&format!(
                    "{} {} {}{}\n",
                    p.kind,
                    p.target,
                    if p.changed {
                        "pinned"
                    } else {
                        "was already pinned"
                    },
                    p.generation
                        .map(|g| format!(" (keeps generation {g})"))
                        .unwrap_or_default()
                ));
            }
        }
        BaselinesCommand::Unpin { target } => {
            let p = sextant_engine::unpin_baseline(&home, &root, target)?;
            if cli.json {
                output::emit_json(&json!({ "unpinned": p }));
            } else {
                output::emit(&format!("{} {} unpinned\n", p.kind, p.target));
            }
        }
    }
    Ok(())
}
