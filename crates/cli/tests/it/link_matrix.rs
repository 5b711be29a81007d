//! `fleet pair --matrix` names the host whose link is slowed (a token
//! bucket on its eth0). A module of its own, named to sort away from
//! `fleet` and `fleet_quota`, because it has the hosts to itself (see
//! `fleet_quota`).

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{self, TempStore, stderr, stdout};
use crate::fleet::{hosts_file_alone, runs_list};
use serde_json::Value;

/// A token bucket on test host `host`'s eth0 (what it sends) for as long
/// as it lives.
struct Bucket(&'static str);

impl Bucket {
    fn on(host: &'static str, rate: &str, burst: &str) -> Bucket {
        in_host(
            host,
            &[
                "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate, "burst", burst,
                "latency", "50ms",
            ],
        );
        Bucket(host)
    }
}

impl Drop for Bucket {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "exec", &format!("nbf-{}", self.0)])
            .args(["tc", "qdisc", "del", "dev", "eth0", "root"])
            .output();
    }
}

#[test]
fn the_host_whose_link_is_slowed_is_the_one_the_matrix_names() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file_alone("matrix", &["h1", "h2", "h3"], tmp.path()) else {
        return;
    };
    let hosts = hosts.file.display().to_string();
    let store = TempStore::new();
    let started = Instant::now();
    // Every host sends at a line rate of 400 Mbit/s (50 MB/s: steady on
    // these shared CPUs, where the bare veths' rate swings by a third),
    // but h2 at 50 Mbit/s: the links on which it is the client, both ways
    // round every pair, are slow.
    let buckets = [
        Bucket::on("h1", "400mbit", "256kb"),
        Bucket::on("h2", "50mbit", "32kb"),
        Bucket::on("h3", "400mbit", "256kb"),
    ];
    let o = store.run(&[
        "--json",
        "fleet",
        "pair",
        &hosts,
        "--matrix",
        "--tests",
        "tcp",
        "--pairs",
        "h1:h2,h2:h1,h1:h3,h3:h1,h2:h3,h3:h2",
        "-t",
        "1s",
        "--port",
        "15311",
    ]);
    drop(buckets);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "fleet pair: 2 slow link(s) of 6: h2 is on 2 of the 2 slow link(s) (2 of its 4 link(s))"
        ),
        "{err}"
    );
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 7);
    let matrix = &runs[6];
    assert_eq!(matrix["tags"]["fleet_mode"], "matrix");
    assert_eq!(matrix["tags"]["fleet"], runs[0]["tags"]["fleet"]);
    let r = &matrix["results"][0];
    assert_eq!(r["benchmark"], "fleet.links");
    assert_eq!(r["parameters"]["plan"], "given");
    let bw = |s: &str, c: &str| common::metric(r, "bandwidth", &[("server", s), ("client", c)]);
    // Each link's figure is its client run's receiver throughput.
    for run in &runs[..6] {
        let (s, c) = (
            run["tags"]["server_host"].as_str().unwrap(),
            run["tags"]["host"].as_str().unwrap(),
        );
        let got = common::metric(
            &run["results"][0],
            "throughput",
            &[("direction", "client_to_server"), ("side", "receiver")],
        );
        assert_eq!(bw(s, c), got, "{s} -> {c}");
    }
    // Under h2's 50 Mbit/s (6.25 MB/s, a little over with its burst), the
    // others near 400.
    for (s, c) in [("h1", "h2"), ("h3", "h2")] {
        assert!(bw(s, c) < 8e6, "{s} -> {c}: {}", bw(s, c));
    }
    for (s, c) in [("h2", "h1"), ("h1", "h3"), ("h3", "h1"), ("h2", "h3")] {
        assert!(bw(s, c) > 30e6, "{s} -> {c}: {}", bw(s, c));
    }
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].starts_with("slow link h1 -> h2: bandwidth "));
    assert!(warnings[1].starts_with("slow link h3 -> h2: bandwidth "));

    // Stored: `runs show` prints it with the slow links.
    let stored = runs_list(&store);
    assert_eq!(stored.len(), 7);
    let id = stored
        .iter()
        .find(|r| r["tags"]["fleet_mode"] == "matrix")
        .unwrap()["id"]
        .to_string();
    let o = store.run(&["runs", "show", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("h2 is on 2 of the 2 slow link(s)"),
        "{}",
        stdout(&o)
    );
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "{:?}",
        started.elapsed()
    );
}

/// `ip netns exec nbf-HOST ARGS...`, which must succeed.
fn in_host(host: &str, args: &[&str]) -> String {
    let o = Command::new("ip")
        .args(["netns", "exec", &format!("nbf-{host}")])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?} in {host}: {}", stderr(&o));
    stdout(&o)
}
