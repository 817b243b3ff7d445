//! `sextant-bench tokens`: how many tokens an agent reads to answer a question with Sextant's
//! MCP server, against reading every `rg -w WORD -C 20` hit (see `grep.rs`), counted with the
//! o200k_base tokenizer (tiktoken-rs; the vocabulary is embedded in the crate).
//!
//! The questions file is JSON: `{"repository": "...", "questions": [{"question": "...", "tool":
//! "...", "arguments": {...}, "grep": "WORD"}, ...]}` (or the bare list). Sextant's side is the
//! text content of the `tools/call` result (what a client hands the model).

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use crate::rpc::{self, Client};
use crate::{grep, machine, round3};

/// Pages followed at most when an answer was cut.
const MAX_PAGES: usize = 100;

/// The o200k_base tokenizer, built once.
pub fn tokenizer() -> Result<&'static CoreBPE> {
    static BPE: OnceLock<std::result::Result<CoreBPE, String>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| anyhow!("o200k_base: {e}"))
}

/// One question of the file.
#[derive(Debug, Clone)]
pub struct Question {
    pub question: String,
    pub tool: String,
    pub arguments: Value,
    pub grep: String,
}

/// Reads a questions file.
pub fn load_questions(text: &str) -> Result<(Option<String>, Vec<Question>)> {
    let v: Value = serde_json::from_str(text).context("questions file is not JSON")?;
    let (repository, list) = match &v {
        Value::Array(list) => (None, list.clone()),
        Value::Object(o) => (
            o.get("repository")
                .and_then(Value::as_str)
                .map(str::to_string),
            o.get("questions")
                .and_then(Value::as_array)
                .cloned()
                .context("expected a `questions` list")?,
        ),
        _ => bail!("expected a list of questions or an object with `questions`"),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, q) in list.iter().enumerate() {
        let field = |name: &str| -> Result<String> {
            q[name]
                .as_str()
                .map(str::to_string)
                .filter(|s| !s.trim().is_empty())
                .with_context(|| format!("question {}: `{name}` must be a non-empty string", i + 1))
        };
        let arguments = q["arguments"].clone();
        if !arguments.is_object() {
            bail!("question {}: `arguments` must be an object", i + 1);
        }
        out.push(Question {
            question: field("question")?,
            tool: field("tool")?,
            arguments,
            grep: field("grep")?,
        });
    }
    Ok((repository, out))
}

/// Median of a list (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn run(root: &Path, questions_file: &Path, sextant: &Path, timeout: Duration) -> Result<Value> {
    let text = std::fs::read_to_string(questions_file)
        .with_context(|| format!("reading {}", questions_file.display()))?;
    let (repository, questions) = load_questions(&text)?;
    let bpe = tokenizer()?;

    let t = Instant::now();
    let corpus = grep::load(root)?;
    let corpus_bytes: usize = corpus.files.iter().map(|f| f.bytes.len()).sum();
    let load_s = t.elapsed().as_secs_f64();

    let (mut client, init) = Client::start(sextant, root, timeout)?;
    let mut rows = Vec::new();
    let mut answers = Vec::new();
    let mut answers_uncut = Vec::new();
    let mut baselines = Vec::new();
    let mut errors = 0usize;
    for (i, q) in questions.iter().enumerate() {
        let reply = client
            .call(&q.tool, q.arguments.clone())
            .with_context(|| format!("question {}: {}", i + 1, q.question))?;
        let is_error = reply.result["isError"] == true;
        let answer = rpc::result_text(&reply.result);
        let answer_tokens = bpe.count_ordinary(&answer);
        let meta = reply.result["structuredContent"]["meta"].clone();
        let data = &reply.result["structuredContent"]["data"];
        let total = data["total"].clone();
        // A cut answer is completed as the hint says: a traversal whose level was cut is asked
        // again with `limit` 100 (the cap), then `next_cursor` is followed; both the first
        // answer and this "uncut" one are reported.
        let mut uncut_tokens = answer_tokens;
        let mut pages = 1usize;
        let mut cursor = meta["next_cursor"].as_str().map(str::to_string);
        let mut uncut_args = q.arguments.clone();
        if data["level_limit_reached"] == true {
            uncut_args["limit"] = json!(100);
            let again = client.call(&q.tool, uncut_args.clone())?;
            if again.result["isError"] != true {
                uncut_tokens = bpe.count_ordinary(&rpc::result_text(&again.result));
                cursor = again.result["structuredContent"]["meta"]["next_cursor"]
                    .as_str()
                    .map(str::to_string);
            }
        }
        while let Some(c) = cursor.take() {
            if pages >= MAX_PAGES {
                break;
            }
            let mut args = uncut_args.clone();
            args["cursor"] = json!(c);
            let next = client.call(&q.tool, args)?;
            if next.result["isError"] == true {
                break;
            }
            pages += 1;
            uncut_tokens += bpe.count_ordinary(&rpc::result_text(&next.result));
            cursor = next.result["structuredContent"]["meta"]["next_cursor"]
                .as_str()
                .map(str::to_string);
        }

        let re = grep::word_regex(&q.grep)?;
        let hits = grep::grep(&corpus, &re);
        let baseline_tokens = bpe.count_ordinary(&hits.text);
        if is_error {
            errors += 1;
        } else {
            answers.push(answer_tokens as f64);
            answers_uncut.push(uncut_tokens as f64);
            baselines.push(baseline_tokens as f64);
        }
        rows.push(json!({
            "n": i + 1,
            "question": q.question,
            "tool": q.tool,
            "arguments": q.arguments,
            "is_error": is_error,
            "error": if is_error { Some(answer.chars().take(300).collect::<String>()) } else { None },
            "answer_bytes": answer.len(),
            "answer_tokens": answer_tokens,
            "answer_truncated": meta["truncated"],
            "answer_total": total,
            "completeness": meta["completeness"]["status"],
            "level_limit_reached": data["level_limit_reached"],
            "uncut_arguments": uncut_args,
            "pages": pages,
            "answer_tokens_uncut": uncut_tokens,
            "sextant_est_tokens": meta["est_tokens"],
            "sextant_tokens_saved_estimate": meta["tokens_saved"],
            "grep": q.grep,
            "grep_files": hits.files,
            "grep_matching_lines": hits.matching_lines,
            "grep_printed_lines": hits.printed_lines,
            "grep_bytes": hits.text.len(),
            "grep_tokens": baseline_tokens,
            "ratio": if answer_tokens > 0 { round3(baseline_tokens as f64 / answer_tokens as f64) } else { f64::NAN },
        }));
    }
    client.close()?;

    let ratios: Vec<f64> = answers
        .iter()
        .zip(&baselines)
        .filter(|(a, _)| **a > 0.0)
        .map(|(a, b)| b / a)
        .collect();
    let sum_a: f64 = answers.iter().sum();
    let sum_b: f64 = baselines.iter().sum();
    let (med_a, med_b) = (median(&answers), median(&baselines));
    Ok(json!({
        "repo": root,
        "repository": repository,
        "questions_file": questions_file,
        "sextant": sextant,
        "server": init["serverInfo"],
        "tokenizer": "o200k_base (tiktoken-rs 0.12.1)",
        "baseline": {
            "method": "rg -n -w WORD -C 20 equivalent: \\bWORD\\b per line, ±20 lines, overlapping or touching windows merged, ripgrep's non-terminal output format (path:N:match, path-N-context, -- between groups)",
            "listing": corpus.listing,
            "files": corpus.files.len(),
            "bytes": corpus_bytes,
            "binary_skipped": corpus.binary_skipped,
            "load_seconds": round3(load_s),
        },
        "questions": rows,
        "answered": answers.len(),
        "tool_errors": errors,
        "summary": {
            "answer_tokens_median": med_a,
            "grep_tokens_median": med_b,
            "ratio_of_medians": round3(med_b / med_a),
            "answer_tokens_sum": sum_a,
            "grep_tokens_sum": sum_b,
            "ratio_of_sums": round3(sum_b / sum_a),
            "median_of_ratios": round3(median(&ratios)),
            "answer_tokens_uncut_median": median(&answers_uncut),
            "answer_tokens_uncut_sum": answers_uncut.iter().sum::<f64>(),
            "ratio_of_medians_uncut": round3(med_b / median(&answers_uncut)),
            "ratio_of_sums_uncut": round3(sum_b / answers_uncut.iter().sum::<f64>()),
            "questions_where_sextant_reads_more": ratios.iter().filter(|r| **r < 1.0).count(),
        },
        "machine": machine::info(),
        "commit": machine::git_commit(),
        "worktree_dirty": machine::git_dirty(),
    }))
}

pub fn write_human(out: &mut impl std::io::Write, r: &Value) -> Result<()> {
    writeln!(
        out,
        "{}: {} questions (sextant: first answer, and uncut: limit 100 and every page when cut), baseline over {} files ({}), tokenizer {}",
        r["repo"].as_str().unwrap_or("?"),
        r["questions"].as_array().map_or(0, Vec::len),
        r["baseline"]["files"],
        r["baseline"]["listing"].as_str().unwrap_or("?"),
        r["tokenizer"].as_str().unwrap_or("?"),
    )?;
    writeln!(
        out,
        "  {:>2} {:<11} {:>8} {:>9} {:>10} {:>9}  question",
        "#", "tool", "sextant", "uncut", "rg -C 20", "ratio"
    )?;
    for q in r["questions"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {:>2} {:<11} {:>8} {:>9} {:>10} {:>9}  {}{}",
            q["n"].to_string(),
            q["tool"].as_str().unwrap_or("?"),
            q["answer_tokens"].to_string(),
            q["answer_tokens_uncut"].to_string(),
            q["grep_tokens"].to_string(),
            q["ratio"].to_string(),
            q["question"].as_str().unwrap_or(""),
            if q["is_error"] == true {
                "  [TOOL ERROR]"
            } else {
                ""
            },
        )?;
    }
    let s = &r["summary"];
    writeln!(
        out,
        "  medians: sextant {} vs grep {} tokens (ratio {}); sums: {} vs {} (ratio {}); median of ratios {}",
        s["answer_tokens_median"],
        s["grep_tokens_median"],
        s["ratio_of_medians"],
        s["answer_tokens_sum"],
        s["grep_tokens_sum"],
        s["ratio_of_sums"],
        s["median_of_ratios"],
    )?;
    writeln!(
        out,
        "  uncut: median {} (ratio {}), sum {} (ratio {})",
        s["answer_tokens_uncut_median"],
        s["ratio_of_medians_uncut"],
        s["answer_tokens_uncut_sum"],
        s["ratio_of_sums_uncut"],
    )?;
    crate::write_machine(out, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_load_from_an_object_or_a_list() {
        let one =
            r#"{"question": "q", "tool": "search", "arguments": {"query": "x"}, "grep": "x"}"#;
        let (repo, qs) =
            load_questions(&format!(r#"{{"repository": "r", "questions": [{one}]}}"#)).unwrap();
        assert_eq!(repo.as_deref(), Some("r"));
        assert_eq!(qs[0].tool, "search");
        let (repo, qs) = load_questions(&format!("[{one}]")).unwrap();
        assert_eq!(repo, None);
        assert_eq!(qs[0].arguments["query"], "x");
        assert!(
            load_questions(r#"[{"question": "q", "tool": "search", "arguments": 1, "grep": "x"}]"#)
                .is_err()
        );
        assert!(
            load_questions(r#"[{"question": "q", "tool": "search", "arguments": {}}]"#).is_err()
        );
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn the_tokenizer_is_o200k() {
        let bpe = tokenizer().unwrap();
        assert_eq!(bpe.count_ordinary("hello world"), 2);
        assert_eq!(bpe.count_ordinary(""), 0);
    }
}
