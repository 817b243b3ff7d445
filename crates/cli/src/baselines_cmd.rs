//! `sextant baselines list|gc`: the generations a repository's database keeps (the active one,
//! the previous one, and the baselines of recent commits), and garbage collection on demand.

use std::path::PathBuf;

use serde_json::json;

use crate::{Cli, output};

#[derive(Debug, clap::Subcommand)]
pub enum BaselinesCommand {
    /// List the kept generations, newest first.
    List,
    /// Remove what no kept generation needs (waits for a running index).
    Gc,
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
                        "{:>6}  {:<12} {:<10} {:<9} {:>6} files {:>8} symbols{}{}\n",
                        b.generation,
                        b.commit.as_deref().map_or("-", |c| &c[..c.len().min(12)]),
                        b.branch.as_deref().unwrap_or("-"),
                        b.status,
                        b.files,
                        b.symbols,
                        if b.dirty { "  (uncommitted files)" } else { "" },
                        if b.active { "  active" } else { "" },
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
    }
    Ok(())
}
