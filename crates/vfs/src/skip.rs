//! Why a file is not indexed, and the secret-file name rules.

/// Why a file was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// Contains a NUL byte.
    Binary,
    /// Larger than the configured limit.
    TooLarge,
    /// Very long lines: minified or generated.
    Minified,
    /// Name says it may hold credentials (`.env`, keys, certificates).
    Secret,
    /// A symbolic link (never followed).
    Symlink,
    /// A FIFO, socket or device (never opened).
    Special,
    /// Could not be read (permissions, vanished mid-walk, I/O error).
    Unreadable,
}

impl SkipReason {
    pub const ALL: &'static [SkipReason] = &[
        SkipReason::Binary,
        SkipReason::TooLarge,
        SkipReason::Minified,
        SkipReason::Secret,
        SkipReason::Symlink,
        SkipReason::Special,
        SkipReason::Unreadable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too_large",
            SkipReason::Minified => "minified",
            SkipReason::Secret => "secret",
            SkipReason::Symlink => "symlink",
            SkipReason::Special => "special",
            SkipReason::Unreadable => "unreadable",
        }
    }

    pub fn parse(text: &str) -> Option<SkipReason> {
        SkipReason::ALL.iter().copied().find(|r| r.as_str() == text)
    }
}

/// Does this repository path name a file that may hold secrets? Such files are never read.
pub fn is_secret_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let in_dir = |dir: &str| lower.split('/').any(|c| c == dir);
    if in_dir(".ssh") || in_dir(".aws") || in_dir(".gnupg") {
        return true;
    }
    if name == ".env" || name.starts_with(".env.") || name.ends_with(".env") {
        return true;
    }
    const NAMES: &[&str] = &[
        ".npmrc",
        ".pypirc",
        ".netrc",
        ".git-credentials",
        ".htpasswd",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "credentials",
        "secrets.yml",
        "secrets.yaml",
        "secrets.json",
        "master.key",
    ];
    if NAMES.contains(&name) {
        return true;
    }
    const EXTENSIONS: &[&str] = &[
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".kdbx",
        ".jks",
        ".keystore",
        ".asc",
        ".gpg",
    ];
    if EXTENSIONS.iter().any(|e| name.ends_with(e)) {
        return true;
    }
    (name.starts_with("credentials") && name.ends_with(".json"))
        || (name.starts_with("id_") && (name.ends_with("_rsa") || name.ends_with(".pub")))
        || name.starts_with("service-account") && name.ends_with(".json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for p in [
            ".env",
            "app/.env.local",
            "prod.env",
            "certs/server.pem",
            "k/tls.key",
            "home/.ssh/config",
            "credentials.json",
            "credentials-prod.json",
            ".npmrc",
            "config/master.key",
        ] {
            assert!(is_secret_path(p), "{p}");
        }
        for p in [
            "src/env.rs",
            "keyboard.py",
            "docs/secrets.md",
            "environment.ts",
            "src/key.rs",
        ] {
            assert!(!is_secret_path(p), "{p}");
        }
    }
}
