//! `RepoPath`: a path relative to the repository root, `/`-separated, never escaping the root.

use std::fmt;

/// A validated repository-relative path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoPath(String);

/// Why a string is not a repository path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoPathError {
    Empty,
    Absolute,
    ParentComponent,
    Nul,
    DriveLetter,
}

impl fmt::Display for RepoPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RepoPathError::Empty => "path is empty",
            RepoPathError::Absolute => "path is absolute; give a path relative to the repository",
            RepoPathError::ParentComponent => "path contains '..'; it would leave the repository",
            RepoPathError::Nul => "path contains a NUL byte",
            RepoPathError::DriveLetter => "path has a drive letter; give a relative path",
        })
    }
}

impl std::error::Error for RepoPathError {}

impl RepoPath {
    /// Validates and normalises (`\` → `/`, `./` and empty components dropped).
    pub fn new(text: &str) -> Result<RepoPath, RepoPathError> {
        if text.contains('\0') {
            return Err(RepoPathError::Nul);
        }
        let text = text.replace('\\', "/");
        if text.starts_with('/') {
            return Err(RepoPathError::Absolute);
        }
        let bytes = text.as_bytes();
        if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
            return Err(RepoPathError::DriveLetter);
        }
        let mut parts = Vec::new();
        for part in text.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(RepoPathError::ParentComponent),
                p => parts.push(p),
            }
        }
        if parts.is_empty() {
            return Err(RepoPathError::Empty);
        }
        Ok(RepoPath(parts.join("/")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// Everything before the last component (empty at the root).
    pub fn parent(&self) -> &str {
        self.0.rsplit_once('/').map(|(dir, _)| dir).unwrap_or("")
    }

    /// The extension of the file name, without the dot.
    pub fn extension(&self) -> Option<&str> {
        let name = self.file_name();
        name.rsplit_once('.')
            .filter(|(stem, _)| !stem.is_empty())
            .map(|(_, ext)| ext)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_paths_are_confined() {
        assert_eq!(RepoPath::new("a/./b//c.rs").unwrap().as_str(), "a/b/c.rs");
        assert_eq!(RepoPath::new("a\\b.py").unwrap().as_str(), "a/b.py");
        assert_eq!(RepoPath::new("/etc/passwd"), Err(RepoPathError::Absolute));
        assert_eq!(
            RepoPath::new("a/../../x"),
            Err(RepoPathError::ParentComponent)
        );
        assert_eq!(RepoPath::new("C:/x"), Err(RepoPathError::DriveLetter));
        assert_eq!(RepoPath::new("a\0b"), Err(RepoPathError::Nul));
        assert_eq!(RepoPath::new("./"), Err(RepoPathError::Empty));
        let p = RepoPath::new("src/lib.rs").unwrap();
        assert_eq!(
            (p.parent(), p.file_name(), p.extension()),
            ("src", "lib.rs", Some("rs"))
        );
        assert_eq!(RepoPath::new(".env").unwrap().extension(), None);
    }
}
