//! The user's configuration file, `$SEXTANT_HOME/config.toml` (default `~/.sextant/config.toml`).
//! Every key is optional; command-line flags win over it.
//!
//! ```toml
//! [mcp]
//! toolsets = ["core"]   # what `sextant serve` lists when --toolsets is not given
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The parsed configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub mcp: McpConfig,
}

/// `[mcp]`: the MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Toolsets listed by `sextant serve` (empty: the default set).
    #[serde(default)]
    pub toolsets: Vec<String>,
}

/// Where the configuration file is.
pub fn config_path(home: &Path) -> PathBuf {
    home.join("config.toml")
}

/// Parses configuration text; errors name the file and say what is wrong.
pub fn parse_config(text: &str, path: &Path) -> crate::Result<Config> {
    toml::from_str(text)
        .map_err(|e| crate::Error::InvalidArgument(format!("{}: {}", path.display(), e.message())))
}

/// The configuration of the data home `home` (defaults when there is no file).
pub fn load_config(home: &Path) -> crate::Result<Config> {
    let path = config_path(home);
    match crate::home::read_config_text(&path)? {
        Some(text) => parse_config(&text, &path),
        None => Ok(Config::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects_unknown_keys() {
        let p = Path::new("config.toml");
        let c = parse_config("[mcp]\ntoolsets = [\"core\"]\n", p).unwrap();
        assert_eq!(c.mcp.toolsets, ["core"]);
        assert_eq!(parse_config("", p).unwrap(), Config::default());
        let e = parse_config("[mcp]\ntoolset = [\"core\"]\n", p).unwrap_err();
        assert!(e.to_string().contains("config.toml"), "{e}");
        assert!(e.to_string().contains("unknown field"), "{e}");
    }
}
