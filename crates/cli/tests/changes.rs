//! `sextant changes` and `sextant grep` end to end: the real binary on a committed git repository
//! indexed into a private data home.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{Fixture, bin, fixture, git, write};
use serde_json::Value;

fn run(f: &Fixture, args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(bin())
        .args(args)
        .arg("--repo")
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .env_remove("SEXTANT_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(f: &Fixture, args: &[&str], stdin: Option<&str>) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, stdout, stderr) = run(f, &all, stdin);
    assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

fn reindex(f: &Fixture) {
    let (code, _, stderr) = run(f, &["index", f.repo.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stderr}");
}

fn changed(v: &Value) -> Vec<(String, String, bool)> {
    v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["symbol"]["qualified_name"].as_str().unwrap().to_string(),
                s["change"].as_str().unwrap().to_string(),
                s["container"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn changes_of_the_working_tree_a_diff_and_a_range() {
    let f = fixture(true);
    let users = std::fs::read_to_string(f.repo.join("shop/users.py")).unwrap();
    write(
        &f.repo,
        "shop/users.py",
        &users.replace(
            "return {\"id\": user_id}",
            "return {\"id\": user_id, \"v\": 2}",
        ),
    );
    reindex(&f);
    let v = json(&f, &["changes"], None);
    assert_eq!(v["source"], "working tree vs HEAD");
    assert_eq!(v["index_behind"], false);
    assert_eq!(v["files"][0]["path"], "shop/users.py");
    assert_eq!(v["files"][0]["status"], "modified");
    assert_eq!(v["files"][0]["index"], "new");
    let expected = vec![
        (
            "shop.users.UserStore".to_string(),
            "modified".to_string(),
            true,
        ),
        (
            "shop.users.UserStore.load".to_string(),
            "modified".to_string(),
            false,
        ),
    ];
    assert_eq!(changed(&v), expected, "{v:#}");
    // The impact of `load` reaches its caller.
    let affected: Vec<&str> = v["impact"]["affected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["symbol"]["qualified_name"].as_str().unwrap())
        .collect();
    assert!(
        affected.contains(&"shop.users.UserStore.get_user_by_id"),
        "{v:#}"
    );

    // The same change as diff text on stdin.
    let diff = Command::new("git")
        .args(["diff"])
        .current_dir(&f.repo)
        .output()
        .unwrap()
        .stdout;
    let diff = String::from_utf8(diff).unwrap();
    let from_diff = json(&f, &["changes", "--diff", "-", "--depth", "0"], Some(&diff));
    assert_eq!(changed(&from_diff), expected);
    assert!(from_diff["impact"].is_null());

    // Committed: HEAD~1..HEAD says the same; the working tree is clean.
    git(&f.repo, &["commit", "-qam", "two"]);
    let range = json(&f, &["changes", "--base", "HEAD~1", "--head", "HEAD"], None);
    assert_eq!(range["source"], "HEAD~1..HEAD");
    assert_eq!(changed(&range), expected);
    let clean = json(&f, &["changes"], None);
    assert!(clean["files"].as_array().unwrap().is_empty());

    // Whole files, human output.
    let (code, text, _) = run(&f, &["changes", "--files", "shop/api.py"], None);
    assert_eq!(code, 0);
    assert!(text.contains("shop.api.handler"), "{text}");
    assert!(text.contains("changed symbols"), "{text}");

    // A bad revision is an error that says so.
    let (code, _, stderr) = run(&f, &["changes", "--base", "no-such-branch"], None);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no-such-branch"), "{stderr}");
}

#[test]
fn grep_json_and_text() {
    let f = fixture(true);
    let v = json(&f, &["grep", r"return self\.\w+"], None);
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{v:#}");
    assert_eq!(hits[0]["path"], "shop/users.py");
    assert_eq!(hits[0]["line"], 8);
    assert_eq!(hits[0]["column"], 9);
    assert_eq!(
        hits[0]["symbol"]["qualified_name"],
        "shop.users.UserStore.get_user_by_id"
    );
    assert_eq!(hits[0]["file_changed"], false);
    assert_eq!(v["truncated"], false);

    // Files only, with counts; language and path filters.
    let files = json(&f, &["grep", "create", "--files-only"], None);
    let paths: Vec<&str> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "shop/api.py",
            "shop/users.py",
            "src/lib.rs",
            "tests/test_users.py"
        ]
    );
    let rust = json(&f, &["grep", "create", "--lang", "rust"], None);
    assert_eq!(rust["files"].as_array().unwrap().len(), 1);
    let limited = json(&f, &["grep", "let v", "--fixed", "--max", "5"], None);
    assert_eq!(limited["hits"].as_array().unwrap().len(), 5);
    assert_eq!(limited["truncated"], true);

    // Secret files are never searched.
    let secret = json(&f, &["grep", "TOKEN"], None);
    assert!(secret["hits"].as_array().unwrap().is_empty());

    // Text form: path:line:col, the line, the enclosing definition.
    let (code, text, _) = run(&f, &["grep", "-i", "--fixed", "USERSTORE()"], None);
    assert_eq!(code, 0);
    assert!(
        text.contains(
            "shop/users.py:15:12: return UserStore()  [function shop.users.create_store]"
        ),
        "{text}"
    );

    // An invalid regular expression is a usage error naming the problem.
    let (code, stdout, _) = run(&f, &["grep", "fn (", "--json"], None);
    assert_eq!(code, 2);
    let err: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(err["error"]["kind"], "invalid_argument", "{err:#}");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid regular expression"),
        "{err:#}"
    );
}
