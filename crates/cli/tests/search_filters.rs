//! `search` with structural filters through the real binary: `sextant search` flags (regular
//! expressions, degree bounds, no query, paging, summaries, errors) and the MCP `search` tool
//! over stdio (degree filters without a query, cursors, summary, argument errors).

use std::process::Command;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::common;
use common::*;

fn run(f: &Fixture, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .arg("--repo")
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .env_remove("SEXTANT_LOG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run_json(f: &Fixture, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, stdout, stderr) = run(f, &all);
    assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

fn qnames(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.get("symbol")
                .unwrap_or(r)
                .get("qualified_name")
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn cli_search_filters() {
    let f = fixture(true);
    // Functions nobody calls, without a query: by qualified name, with a total.
    let v = run_json(&f, &["search", "--kind", "function", "--max-callers", "0"]);
    let names = qnames(&v);
    assert!(names.contains(&"shop.api.create".to_string()), "{v:#}");
    assert!(!names.iter().any(|n| n.ends_with("create_store")), "{v:#}");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(v["total"], names.len(), "{v:#}");
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["match"] == "filter")
    );
    // `--label` is `--kind`, and Cypher labels are kinds.
    let labelled = run_json(&f, &["search", "--label", "Function", "--max-callers", "0"]);
    assert_eq!(qnames(&labelled), names);
    // Regular expressions and callers: Rust functions someone calls.
    let v = run_json(
        &f,
        &["search", "--file-regex", "^src/", "--min-callers", "1"],
    );
    let rust = qnames(&v);
    assert_eq!(rust.len(), 2, "{v:#}");
    assert!(rust.iter().any(|n| n.ends_with("add")) && rust.iter().any(|n| n.ends_with("twice")));
    let v = run_json(
        &f,
        &["search", "--name-regex", "^get_", "--min-callees", "1"],
    );
    assert_eq!(qnames(&v), ["shop.users.UserStore.get_user_by_id"], "{v:#}");
    // With a query, ranking stays and the filters apply: `create` (never called) drops out.
    let v = run_json(&f, &["search", "create", "--min-callers", "1"]);
    assert_eq!(v["results"][0]["name"], "create_store", "{v:#}");
    assert_eq!(v["results"][0]["match"], "prefix", "{v:#}");
    assert!(v.get("total").is_none());
    // Pages concatenate to the whole list.
    let mut paged = Vec::new();
    for offset in 0..names.len() {
        let o = offset.to_string();
        let v = run_json(
            &f,
            &[
                "search",
                "--kind",
                "function",
                "--max-callers",
                "0",
                "--limit",
                "1",
                "--offset",
                &o,
            ],
        );
        paged.extend(qnames(&v));
    }
    assert_eq!(paged, names);
    // A summary counts the filtered set.
    let s = run_json(
        &f,
        &[
            "search",
            "--kind",
            "function",
            "--max-callers",
            "0",
            "--summary",
        ],
    );
    assert_eq!(s["matches"], names.len(), "{s:#}");
    assert_eq!(s["complete"], true);
    assert_eq!(s["by_kind"][0]["key"], "function", "{s:#}");
    // Human text says where the page is.
    let (code, out, _) = run(
        &f,
        &[
            "search",
            "--kind",
            "function",
            "--max-callers",
            "0",
            "--limit",
            "1",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains(&format!("1-1 of {}", names.len())), "{out}");
    // Argument errors name the argument and exit 2.
    let (code, _, err) = run(&f, &["search", "--name-regex", "("]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("name_regex"), "{err}");
    let (code, _, err) = run(&f, &["search", "--min-callers", "3", "--max-callers", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("min_callers"), "{err}");
    let (code, _, err) = run(&f, &["search"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("QUERY") && err.contains("filter"), "{err}");
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_search_with_degree_filters() {
    let f = fixture(true);
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("serve")
            .arg("--no-watch")
            .arg("--repo")
            .arg(&f.repo)
            .env("SEXTANT_HOME", &f.home)
            .env_remove("SEXTANT_LOG");
    }))
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    let call = |a: Value| {
        let client = &client;
        async move {
            client
                .call_tool(
                    CallToolRequestParams::new("search")
                        .with_arguments(a.as_object().unwrap().clone()),
                )
                .await
                .unwrap()
        }
    };
    let ok = |r: CallToolResult| -> (Value, Value) {
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let s = r.structured_content.unwrap();
        (s["data"].clone(), s["meta"].clone())
    };

    // Every function nobody calls, in one page and page by page with cursors.
    let (all, meta) = ok(call(json!({"kind": ["function"], "max_callers": 0, "limit": 100})).await);
    let names = qnames(&all);
    assert!(names.len() >= 3, "{all:#}");
    assert!(names.contains(&"shop.api.create".to_string()), "{all:#}");
    assert_eq!(all["total"], names.len(), "{all:#}");
    assert_eq!(meta["truncated"], false);
    assert!(
        meta["hint"].as_str().unwrap().contains("unresolved"),
        "{meta}"
    );
    let mut seen = Vec::new();
    let mut cursor = String::new();
    for _ in 0..20 {
        let (page, meta) = ok(call(json!({
            "kind": ["function"], "max_callers": 0, "limit": 1, "mode": "compact", "cursor": cursor
        }))
        .await);
        seen.extend(qnames(&page));
        match meta["next_cursor"].as_str() {
            Some(next) => cursor = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, names, "paging yields every result once, in order");
    // A cursor belongs to its filters.
    let (_, meta) = ok(call(json!({"kind": ["function"], "max_callers": 0, "limit": 1})).await);
    let other = call(json!({
        "kind": ["function"], "max_callers": 1, "limit": 1,
        "cursor": meta["next_cursor"].as_str().unwrap()
    }))
    .await;
    assert_eq!(other.is_error, Some(true), "{}", text(&other));

    // `label` is `kind`; callees and references; regular expressions.
    let (d, _) =
        ok(call(json!({"label": ["Method"], "min_callees": 1, "file_regex": "^shop/users"})).await);
    assert_eq!(qnames(&d), ["shop.users.UserStore.get_user_by_id"], "{d:#}");
    let (d, _) = ok(call(json!({"qname_regex": "^shop\\.api\\.", "min_references": 1})).await);
    assert!(
        qnames(&d).contains(&"shop.api.handler".to_string()),
        "{d:#}"
    );
    // With a query: ranked, filtered.
    let (d, _) = ok(call(json!({"query": "create", "min_callers": 1})).await);
    assert_eq!(d["results"][0]["symbol"]["name"], "create_store", "{d:#}");
    assert!(d.get("total").is_none());

    // Summary over the whole filtered set.
    let (s, _) = ok(call(json!({"kind": ["function"], "max_callers": 0, "mode": "summary"})).await);
    assert_eq!(s["summary"]["matches"], names.len(), "{s:#}");
    assert_eq!(s["summary"]["by_kind"][0]["kind"], "function", "{s:#}");

    // Argument errors name the argument.
    let bad = call(json!({"name_regex": "("})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`name_regex`"), "{}", text(&bad));
    let bad = call(json!({"min_callees": 2, "max_callees": 1})).await;
    assert!(text(&bad).contains("`min_callees`"), "{}", text(&bad));
    let bad = call(json!({"max_callers": -1})).await;
    assert!(text(&bad).contains("`max_callers`"), "{}", text(&bad));
    let bad = call(json!({})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`query`"), "{}", text(&bad));
    client.cancel().await.unwrap();
}
