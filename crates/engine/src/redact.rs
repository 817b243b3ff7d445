//! Text shown to agents out of repository files (grep hits, reference excerpts, source) is data,
//! not instructions, and must not leak credentials: key-shaped strings are masked in snippets,
//! and invisible characters that change how text reads (bidirectional overrides, zero-width
//! characters, terminal escapes) are made visible.

use std::borrow::Cow;
use std::sync::OnceLock;

/// Credential shapes with a recognisable prefix (AWS, GitHub, Slack, OpenAI-style, Google API
/// keys, PEM private key headers).
fn secrets() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(concat!(
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
            r"|\bgh[pousr]_[A-Za-z0-9]{36,}\b",
            r"|\bgithub_pat_[A-Za-z0-9_]{22,}\b",
            r"|\bxox[abprs]-[A-Za-z0-9-]{10,}\b",
            r"|\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b",
            r"|\bAIza[0-9A-Za-z_-]{35}\b",
            r"|-----BEGIN [A-Z ]*PRIVATE KEY-----",
        ))
        .expect("the secret patterns compile")
    })
}

/// `text` with key-shaped strings replaced by `[REDACTED]`.
pub fn redact_secrets(text: &str) -> Cow<'_, str> {
    secrets().replace_all(text, "[REDACTED]")
}

/// Characters that make text read differently from what it is: bidi embeddings and overrides,
/// zero-width characters, and C0 controls other than tab (terminal escapes start with ESC).
fn invisible(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}' | '\u{FEFF}')
        || (c.is_control() && c != '\t' && c != '\n' && c != '\r')
}

/// `text` with invisible characters written out as `\u{…}`; the flag says whether any was.
pub fn make_visible(text: &str) -> (Cow<'_, str>, bool) {
    if !text.chars().any(invisible) {
        return (Cow::Borrowed(text), false);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if invisible(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    (Cow::Owned(out), true)
}

/// A snippet as shown: secrets masked, invisible characters visible.
pub fn snippet(text: &str) -> String {
    let redacted = redact_secrets(text);
    make_visible(&redacted).0.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_key_shaped_strings() {
        let line =
            r#"aws_key = "AKIAIOSFODNN7EXAMPLE"  # and ghp_abcdefghijklmnopqrstuvwxyz0123456789"#;
        let out = redact_secrets(line);
        assert!(
            !out.contains("AKIAIOSFODNN7EXAMPLE") && !out.contains("ghp_"),
            "{out}"
        );
        assert_eq!(out.matches("[REDACTED]").count(), 2);
        assert_eq!(redact_secrets("let akia = 1;"), "let akia = 1;");
        assert!(redact_secrets("-----BEGIN RSA PRIVATE KEY-----").contains("[REDACTED]"));
    }

    #[test]
    fn shows_bidi_and_escapes() {
        let (out, flagged) = make_visible("if admin \u{202E} {\u{1b}[2J");
        assert!(flagged);
        assert_eq!(out, "if admin \\u{202E} {\\u{001B}[2J");
        assert_eq!(
            make_visible("plain\ttext"),
            (Cow::Borrowed("plain\ttext"), false)
        );
    }
}
