//! Repository containment: a user-supplied path becomes an absolute path inside the repository, or
//! an error. Checks are by path components after resolving symlinks, never by string prefix.

use std::path::{Path, PathBuf};

use sextant_model::{RepoPath, RepoPathError};

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("{0}")]
    Invalid(RepoPathError),
    #[error("{0} is outside the repository")]
    Outside(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// Resolves a repository-relative path (as given by a user) to a file inside `root`.
/// Refuses absolute paths, `..`, NUL bytes, and symlinks that lead outside.
pub fn confine(root: &Path, user_path: &str) -> Result<(RepoPath, PathBuf), ConfineError> {
    let path = RepoPath::new(user_path).map_err(ConfineError::Invalid)?;
    let io = |e: std::io::Error, p: &Path| ConfineError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let root_real = root.canonicalize().map_err(|e| io(e, root))?;
    let joined = root_real.join(path.as_str());
    let real = joined.canonicalize().map_err(|e| io(e, &joined))?;
    if !real.starts_with(&root_real) {
        return Err(ConfineError::Outside(user_path.to_string()));
    }
    Ok((path, real))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("repo");
        let evil = outer.path().join("repo-evil");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&evil).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(evil.join("x.rs"), "secret").unwrap();
        assert!(confine(&root, "src/a.rs").is_ok());
        assert!(matches!(
            confine(&root, "../repo-evil/x.rs"),
            Err(ConfineError::Invalid(_))
        ));
        assert!(matches!(
            confine(&root, "/etc/passwd"),
            Err(ConfineError::Invalid(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(evil.join("x.rs"), root.join("src/out.rs")).unwrap();
            assert!(matches!(
                confine(&root, "src/out.rs"),
                Err(ConfineError::Outside(_))
            ));
        }
    }
}
