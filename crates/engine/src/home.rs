//! Where Sextant keeps its data: `$SEXTANT_HOME` (default `~/.sextant`), one directory per
//! repository (`repos/<name>-<hash of the root path>/`) holding `index.db`, `index.lock`,
//! `derived.db` (cached analytics) and `root.txt` (the repository path it belongs to).

use std::path::{Path, PathBuf};

/// The data home: `$SEXTANT_HOME`, else `~/.sextant`, else `./.sextant`.
pub fn data_home() -> PathBuf {
    if let Some(home) = std::env::var_os("SEXTANT_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home).join(".sextant");
    }
    PathBuf::from(".sextant")
}

fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The data directory of a repository root (canonical path).
pub fn repo_data_dir(home: &Path, root: &Path) -> PathBuf {
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into())
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    home.join("repos").join(format!(
        "{name}-{:012x}",
        fnv(&root.to_string_lossy()) & 0xffff_ffff_ffff
    ))
}

/// The files of one repository's data directory.
#[derive(Debug, Clone)]
pub struct DataDir {
    pub dir: PathBuf,
}

impl DataDir {
    /// The data directory of `root` under the default data home.
    pub fn for_root(root: &Path) -> DataDir {
        DataDir::in_home(&data_home(), root)
    }

    /// The data directory of `root` under an explicit data home.
    pub fn in_home(home: &Path, root: &Path) -> DataDir {
        DataDir {
            dir: repo_data_dir(home, root),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.join("index.db")
    }

    /// Results derived from generations (PageRank, communities, ...): a cache beside the index,
    /// in its own database so writing it never contends with an indexer.
    pub fn derived(&self) -> PathBuf {
        self.dir.join("derived.db")
    }

    pub fn lock(&self) -> PathBuf {
        self.dir.join("index.lock")
    }

    pub fn root_file(&self) -> PathBuf {
        self.dir.join("root.txt")
    }

    /// Cumulative token savings reported by the MCP server (`tokens_saved <n>` text).
    pub fn savings_file(&self) -> PathBuf {
        self.dir.join("savings.txt")
    }

    /// Adds `tokens` to the cumulative savings and returns the new total. Best effort: a
    /// concurrent update from another process may be lost, never corrupted (write + rename).
    pub fn add_tokens_saved(&self, tokens: u64) -> u64 {
        let path = self.savings_file();
        let before: u64 = read_config_text(&path)
            .ok()
            .flatten()
            .and_then(|t| t.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
            .unwrap_or(0);
        let total = before.saturating_add(tokens);
        if tokens > 0 {
            let tmp = self.dir.join(format!("savings.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, format!("tokens_saved {total}\n")).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
        total
    }

    pub fn exists(&self) -> bool {
        self.db().is_file()
    }
}

/// The text of a small configuration file (an agent's MCP configuration, an instructions file),
/// `None` when it does not exist. Reads go through `sextant-vfs` like every other file read:
/// symlinks are not followed, and anything over 1 MiB is refused.
pub fn read_config_text(path: &Path) -> crate::Result<Option<String>> {
    if !path.exists() {
        return Ok(None);
    }
    sextant_vfs::read_source(path, 1 << 20, usize::MAX, usize::MAX)
        .map(|f| Some(f.text))
        .map_err(|e| {
            crate::Error::Io(format!(
                "{}: {} ({})",
                path.display(),
                e.reason.as_str(),
                e.detail
            ))
        })
}

/// A repository with a data directory under the data home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownRepo {
    /// The data directory's name (`shop-0123456789ab`): a short id for the repository.
    pub id: String,
    /// The repository root it belongs to.
    pub root: PathBuf,
    /// An index has been published (a database exists).
    pub indexed: bool,
}

/// Every repository with a data directory under `home`, by id.
pub fn known_repositories(home: &Path) -> Vec<KnownRepo> {
    let Ok(entries) = home.join("repos").read_dir() else {
        return Vec::new();
    };
    let mut out: Vec<KnownRepo> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let dir = DataDir { dir: e.path() };
            let root = read_config_text(&dir.root_file()).ok().flatten()?;
            Some(KnownRepo {
                id: e.file_name().to_string_lossy().into_owned(),
                root: PathBuf::from(root.trim()),
                indexed: dir.db().exists(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}
