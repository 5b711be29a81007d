//! Two hosts on one machine: network namespaces joined by a veth pair
//! (scripts/netns-pair), nodebench serving in one and measuring from the
//! other, at MTU 1500 and 9000; the run's metadata records the MTU. Needs
//! root to create the namespaces (CI runs as root); skipped, saying so,
//! otherwise.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{json, metric, skipped_without_root};

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/netns-pair")
}

/// Removes the pair when dropped, whatever happened.
struct Pair(String, String);

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .args(["down", &self.0, &self.1])
            .status();
    }
}

fn run_at_mtu(mtu: u32) {
    let id = std::process::id();
    let (a, b) = (format!("nbA{id}{mtu}"), format!("nbB{id}{mtu}"));
    let up = Command::new(script())
        .args(["up", &mtu.to_string(), &a, &b])
        .output()
        .unwrap();
    assert!(
        up.status.success(),
        "netns-pair up failed: {}",
        String::from_utf8_lossy(&up.stderr)
    );
    let _pair = Pair(a.clone(), b.clone());
    let bin = env!("CARGO_BIN_EXE_nodebench");
    let mut server = Command::new("ip")
        .args([
            "netns",
            "exec",
            &a,
            bin,
            "net",
            "serve",
            "--bind",
            "169.254.231.1",
            "--max-tests",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let store = tempfile::tempdir().unwrap();
    let db = store.path().join("r.db");
    // The server needs a moment to bind; retry the client briefly.
    let deadline = Instant::now() + Duration::from_secs(10);
    let out = loop {
        let out = Command::new("ip")
            .args(["netns", "exec", &b, bin, "--store"])
            .arg(&db)
            .args([
                "--json",
                "--quiet",
                "net",
                "tcp",
                "169.254.231.1",
                "-t",
                "1",
                "--tag",
                "link=veth",
            ])
            .output()
            .unwrap();
        if out.status.success() || Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = server.kill();
    let _ = server.wait();
    let run = json(&out);
    let r = &run["results"][0];
    assert_eq!(r["status"], "passed");
    assert_eq!(
        r["parameters"]["mtu"], mtu,
        "MTU recorded in the run's metadata"
    );
    assert_eq!(r["parameters"]["local_address"], "169.254.231.2");
    let bytes = |side: &str| metric(r, "bytes", &[("side", side)]);
    assert!(bytes("sender") > 0.0);
    assert_eq!(bytes("sender"), bytes("receiver"));
}

#[test]
fn tcp_between_two_namespaces_records_mtu_1500_and_9000() {
    if skipped_without_root(
        "tcp_between_two_namespaces_records_mtu_1500_and_9000",
        "creates network namespaces and a veth pair",
    ) {
        return;
    }
    run_at_mtu(1500);
    run_at_mtu(9000);
}
