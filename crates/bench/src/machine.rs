//! Where a benchmark ran: CPUs, memory, kernel, and the Sextant commit.

use std::process::Command;

use serde_json::{Value, json};

fn proc_field(file: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// nproc (CPUs this process may use), CPU model, total RAM, kernel, load average.
pub fn info() -> Value {
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let online = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| t.lines().filter(|l| l.starts_with("processor")).count())
        .unwrap_or(0);
    let mem_kib: Option<u64> = proc_field("/proc/meminfo", "MemTotal")
        .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()));
    let loadavg: Option<Vec<f64>> = std::fs::read_to_string("/proc/loadavg").ok().map(|t| {
        t.split_whitespace()
            .take(3)
            .filter_map(|x| x.parse().ok())
            .collect()
    });
    json!({
        "nproc": nproc,
        "cpus_online": online,
        "cpu_model": proc_field("/proc/cpuinfo", "model name"),
        "mem_total_mib": mem_kib.map(|k| k / 1024),
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|s| s.trim().to_string()),
        "arch": std::env::consts::ARCH,
        "loadavg_1_5_15": loadavg,
    })
}

/// `git rev-parse HEAD` of the Sextant checkout this binary was built from.
pub fn git_commit() -> Option<String> {
    let out = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!commit.is_empty()).then_some(commit)
}

/// Whether the checkout has uncommitted changes to tracked files (the binary may then hold
/// more than `git_commit` says).
pub fn git_dirty() -> Option<bool> {
    let out = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "status",
            "--porcelain",
            "--untracked-files=no",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| !String::from_utf8_lossy(&out.stdout).trim().is_empty())
}
