//! `sextant watch` end to end: the real binary watches a fixture repository; an edit becomes
//! searchable without running `sextant index`.

use crate::common;
use common::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the watcher even when an assertion fails.
struct Killed(Option<std::process::Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn exact_hit(f: &Fixture, name: &str) -> bool {
    let out = Command::new(bin())
        .args(["search", name, "--json", "--repo"])
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .env_remove("SEXTANT_LOG")
        .output()
        .unwrap();
    if !out.status.success() {
        return false; // not indexed yet
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == name && r["match"] == "exact")
}

fn wait_for(f: &Fixture, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !exact_hit(f, name) {
        assert!(
            Instant::now() < deadline,
            "{name} not searchable within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn watch_makes_an_edit_searchable_and_logs_plain_lines() {
    let f = fixture(false);
    let child = Command::new(bin())
        .args(["watch", "--debounce-ms", "100"])
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .env_remove("SEXTANT_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Killed(Some(child));
    // The initial run indexes the repository.
    wait_for(&f, "create_store");
    write(
        &f.repo,
        "shop/users.py",
        "def watched_new_name():\n    return 1\n",
    );
    wait_for(&f, "watched_new_name");
    assert!(
        !exact_hit(&f, "UserStore"),
        "the old version is still served"
    );

    let mut child = child.0.take().unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("watching "), "{stdout}");
    assert!(
        lines.iter().any(|l| l.starts_with("generation ")
            && l.contains("1 file changed")
            && l.contains("(shop/users.py)")
            && l.contains("ms after the change")),
        "{stdout}"
    );
    assert!(!stdout.contains('\r'), "no status line when not a terminal");
}
