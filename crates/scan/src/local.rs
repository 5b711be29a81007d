//! The local checks (`--local`): the processes listening on the target's
//! port (from /proc/net/tcp{,6} and each process's fds), who their workers
//! run as, the configuration file their command line names (or the
//! distribution's default) and every file it includes (`confs`), the
//! document roots they name (or `--docroot`), the secret files they name
//! and the secrets they write inline, and in the document roots:
//! world-writable entries, what the workers own or can write through their
//! group, readable secrets, default files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nodebench_core::finding::Finding;

use crate::checks::{Catalog, Kind};
use crate::confs::{self, ConfFile, Server};

/// The most entries of a document root walked.
const WALK_CAP: usize = 50_000;
/// The most paths one finding lists.
const LIST_CAP: usize = 10;

/// One process of the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// Process id.
    pub pid: u32,
    /// Parent's process id.
    pub ppid: u32,
    /// Command name (`apache2`).
    pub name: String,
    /// Effective uid and gid.
    pub uid: u32,
    /// Effective gid.
    pub gid: u32,
    /// Its command line's words.
    pub cmdline: Vec<String>,
}

/// What the local checks found and saw.
#[derive(Debug, Default)]
pub struct LocalOutcome {
    /// The findings.
    pub findings: Vec<Finding>,
    /// The workers as `apache2 (pid 12) www-data:www-data`.
    pub workers: Vec<String>,
    /// The configuration files and document roots looked at.
    pub looked_at: Vec<String>,
    /// Why something could not be judged.
    pub warnings: Vec<String>,
}

/// The socket inodes listening on TCP `port` (IPv4 and IPv6).
fn listening_inodes(port: u16) -> BTreeSet<u64> {
    let mut inodes = BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 10 || f[3] != "0A" {
                continue;
            }
            let local_port = f[1]
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port)
                && let Ok(inode) = f[9].parse::<u64>()
                && inode != 0
            {
                inodes.insert(inode);
            }
        }
    }
    inodes
}

/// Reads /proc/PID/status and cmdline.
fn process(pid: u32) -> Option<Process> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
    };
    let ids = |key: &str| -> Option<u32> { field(key)?.get(1)?.parse().ok() };
    let cmdline = fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            // nginx rewrites its arguments into one title ("nginx: master
            // process /usr/sbin/nginx -c FILE"): split on spaces too.
            String::from_utf8_lossy(&b)
                .split(['\0', ' '])
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some(Process {
        pid,
        ppid: field("PPid:")?.first()?.parse().ok()?,
        name: field("Name:")?.first()?.clone(),
        uid: ids("Uid:")?,
        gid: ids("Gid:")?,
        cmdline,
    })
}

/// The processes holding a socket listening on `port`.
pub fn listeners(port: u16) -> Vec<Process> {
    let inodes = listening_inodes(port);
    if inodes.is_empty() {
        return Vec::new();
    }
    let wanted: BTreeSet<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    let mut out = Vec::new();
    let Ok(procs) = fs::read_dir("/proc") else {
        return out;
    };
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            fs::read_link(fd.path())
                .ok()
                .and_then(|l| l.to_str().map(|s| wanted.contains(s)))
                .unwrap_or(false)
        });
        if holds && let Some(p) = process(pid) {
            out.push(p);
        }
    }
    out
}

/// The workers among `procs`: those whose parent holds the socket too; a
/// lone process (no master) is its own worker.
pub fn workers(procs: &[Process]) -> Vec<Process> {
    let pids: BTreeSet<u32> = procs.iter().map(|p| p.pid).collect();
    let children: Vec<Process> = procs
        .iter()
        .filter(|p| pids.contains(&p.ppid))
        .cloned()
        .collect();
    if children.is_empty() {
        procs.to_vec()
    } else {
        children
    }
}

/// Names from /etc/passwd or /etc/group by id.
fn id_names(file: &str) -> BTreeMap<u32, String> {
    fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            Some((f.get(2)?.parse().ok()?, f.first()?.to_string()))
        })
        .collect()
}

/// The configuration file a server process was started with: `-f` (Apache,
/// relative to `-d`) or `-c` (nginx), else the Debian default for its name.
pub fn config_file(p: &Process) -> Option<PathBuf> {
    let arg = |flag: &str| {
        p.cmdline
            .iter()
            .position(|w| w == flag)
            .and_then(|i| p.cmdline.get(i + 1))
            .cloned()
    };
    let is_apache = p.name.starts_with("apache2") || p.name.starts_with("httpd");
    let is_nginx = p.name.starts_with("nginx");
    let given = if is_apache {
        arg("-f").map(|f| match arg("-d") {
            Some(root) if !f.starts_with('/') => Path::new(&root).join(f),
            _ => PathBuf::from(f),
        })
    } else if is_nginx {
        arg("-c").map(PathBuf::from)
    } else {
        None
    };
    given.or_else(|| {
        let default = if is_apache {
            "/etc/apache2/apache2.conf"
        } else if is_nginx {
            "/etc/nginx/nginx.conf"
        } else {
            return None;
        };
        Some(PathBuf::from(default))
    })
}

/// The value after `flag` on `p`'s command line.
fn arg(p: &Process, flag: &str) -> Option<String> {
    p.cmdline
        .iter()
        .position(|w| w == flag)
        .and_then(|i| p.cmdline.get(i + 1))
        .cloned()
}

/// A user's or group's name by id, else the id.
fn name_of(names: &BTreeMap<u32, String>, id: u32) -> String {
    names.get(&id).cloned().unwrap_or_else(|| id.to_string())
}

/// The document roots a configuration names: Apache's `DocumentRoot` and
/// nginx's `root` directives of the file itself (quotes removed).
pub fn docroots_in(config: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in config.lines() {
        let line = line.trim();
        let mut words = line.split_whitespace();
        let key = words.next().unwrap_or_default();
        if (key.eq_ignore_ascii_case("DocumentRoot") || key == "root")
            && let Some(v) = words.next()
        {
            let v = v.trim_end_matches(';').trim_matches('"').trim_matches('\'');
            let p = PathBuf::from(v);
            if p.is_absolute() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Walks `root` without following links, at most [`WALK_CAP`] entries.
fn walk(root: &Path) -> Vec<(PathBuf, fs::Metadata)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if out.len() >= WALK_CAP {
                return out;
            }
            let Ok(meta) = fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                todo.push(e.path());
            }
            if !meta.file_type().is_symlink() {
                out.push((e.path(), meta));
            }
        }
    }
    out
}

/// A list of paths, at most [`LIST_CAP`] named.
fn listed(paths: &[String]) -> String {
    let mut text = paths
        .iter()
        .take(LIST_CAP)
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    if paths.len() > LIST_CAP {
        text.push_str(&format!("\n... and {} more", paths.len() - LIST_CAP));
    }
    text
}

/// True for a file name that holds secrets: password files, private keys,
/// environment files.
fn is_secret(name: &str) -> bool {
    matches!(name, ".htpasswd" | ".env" | "id_rsa" | "id_ed25519")
        || name.ends_with(".key")
        || name.ends_with(".pem") && name.contains("key")
}

/// Runs the local checks against the server listening on `port`.
pub fn check(port: u16, docroots: &[PathBuf], catalog: &Catalog) -> LocalOutcome {
    let mut out = LocalOutcome::default();
    let finding = |probe: &str, request: String, evidence: String| {
        catalog.probe(probe).map(|c| Finding {
            id: c.id.clone(),
            name: c.name.clone(),
            severity: c.severity,
            request,
            status: None,
            evidence,
            remediation: c.remediation.clone(),
        })
    };
    let users = id_names("/etc/passwd");
    let groups = id_names("/etc/group");
    let procs = listeners(port);
    if procs.is_empty() {
        out.warnings.push(format!(
            "--local: no process readable here listens on port {port} (run as root to see other users' processes)"
        ));
    }
    let workers = workers(&procs);
    let mut worker_uids = BTreeSet::new();
    let mut worker_gids = BTreeSet::new();
    for w in &workers {
        let user = users
            .get(&w.uid)
            .cloned()
            .unwrap_or_else(|| w.uid.to_string());
        let group = groups
            .get(&w.gid)
            .cloned()
            .unwrap_or_else(|| w.gid.to_string());
        let who = format!(
            "{} (pid {}) runs as {user}:{group} (uid {}, gid {})",
            w.name, w.pid, w.uid, w.gid
        );
        let request = format!("/proc/{}/status", w.pid);
        if w.uid == 0 {
            out.findings
                .extend(finding("worker-root", request, who.clone()));
        } else if user == "nobody" || w.uid == 65534 {
            out.findings
                .extend(finding("worker-nobody", request, who.clone()));
        }
        worker_uids.insert(w.uid);
        worker_gids.insert(w.gid);
        out.workers
            .push(format!("{} (pid {}) {user}:{group}", w.name, w.pid));
    }
    // The configuration of the master processes (or the lone process):
    // the main file and every file it includes.
    let mut mains: Vec<(PathBuf, Server, Option<PathBuf>)> = Vec::new();
    for p in procs
        .iter()
        .filter(|p| !workers.contains(p) || workers.len() == procs.len())
    {
        if let Some(c) = config_file(p)
            && !mains.iter().any(|(m, _, _)| *m == c)
        {
            let server = if p.name.starts_with("nginx") {
                Server::Nginx
            } else {
                Server::Apache
            };
            mains.push((c, server, arg(p, "-d").map(PathBuf::from)));
        }
    }
    let mut roots: Vec<PathBuf> = docroots.to_vec();
    let mut read: Vec<ConfFile> = Vec::new();
    for (main, server, given_root) in &mains {
        let root = match server {
            Server::Apache => confs::apache_root(
                &fs::read_to_string(main).unwrap_or_default(),
                given_root.as_deref(),
            ),
            Server::Nginx => main
                .parent()
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
        };
        let (files, problems) = confs::read_all(main, *server, &root);
        out.warnings
            .extend(problems.into_iter().map(|p| format!("--local: {p}")));
        for (secret, named_by) in confs::secret_files(&files, &root) {
            if let Ok(m) = fs::metadata(&secret)
                && m.is_file()
                && m.permissions().mode() & 0o004 != 0
            {
                out.findings.extend(finding(
                    "secret-readable",
                    secret.display().to_string(),
                    format!(
                        "mode {:04o}, owner {}, named by {named_by}",
                        m.permissions().mode() & 0o7777,
                        name_of(&users, m.uid())
                    ),
                ));
            }
        }
        if docroots.is_empty() {
            for r in confs::docroots(&files) {
                if !roots.contains(&r) {
                    roots.push(r);
                }
            }
        }
        read.extend(files);
    }
    for c in &read {
        out.looked_at.push(format!("config {}", c.path.display()));
        match fs::metadata(&c.path) {
            Ok(meta) => {
                let mode = meta.permissions().mode();
                let writable_by_others = mode & 0o022 != 0;
                let owned_by_worker = worker_uids.contains(&meta.uid()) && meta.uid() != 0;
                if writable_by_others || owned_by_worker {
                    out.findings.extend(finding(
                        "config-writable",
                        c.path.display().to_string(),
                        format!(
                            "mode {:04o}, owner {}",
                            mode & 0o7777,
                            name_of(&users, meta.uid())
                        ),
                    ));
                }
                let inline = confs::inline_secrets(c);
                if mode & 0o004 != 0 && !inline.is_empty() {
                    out.findings.extend(finding(
                        "config-secret-readable",
                        c.path.display().to_string(),
                        format!(
                            "mode {:04o}, readable by every user; {}",
                            mode & 0o7777,
                            inline.join("; ")
                        ),
                    ));
                }
            }
            Err(e) => out
                .warnings
                .push(format!("--local: cannot read {}: {e}", c.path.display())),
        }
    }
    // The checks' fixed paths, and their in_dirs names at the root.
    let mut on_disk: Vec<String> = Vec::new();
    for c in &catalog.checks {
        if let Kind::Request {
            paths,
            in_dirs,
            on_disk: true,
            ..
        } = &c.kind
        {
            let rooted = in_dirs
                .iter()
                .filter(|r| !r.is_empty() && r.as_str() != crate::checks::NO_SLASH)
                .map(|r| format!("/{r}"));
            for p in paths.iter().cloned().chain(rooted) {
                if p != "/" && !on_disk.contains(&p) {
                    on_disk.push(p);
                }
            }
        }
    }
    for root in &roots {
        out.looked_at.push(format!("docroot {}", root.display()));
        let entries = walk(root);
        let writable: Vec<String> = entries
            .iter()
            .filter(|(_, m)| m.permissions().mode() & 0o002 != 0)
            .map(|(p, m)| {
                format!(
                    "{} (mode {:04o})",
                    p.display(),
                    m.permissions().mode() & 0o7777
                )
            })
            .collect();
        if !writable.is_empty() {
            out.findings.extend(finding(
                "docroot-world-writable",
                root.display().to_string(),
                listed(&writable),
            ));
        }
        // What the workers can change: owned by their user, or writable
        // through their group.
        let by_worker: Vec<String> = entries
            .iter()
            .filter_map(|(p, m)| {
                let mode = m.permissions().mode();
                let owner = m.uid() != 0 && worker_uids.contains(&m.uid());
                let group = m.gid() != 0 && mode & 0o020 != 0 && worker_gids.contains(&m.gid());
                (owner || group).then(|| {
                    format!(
                        "{} ({} {}:{}, mode {:04o})",
                        p.display(),
                        if owner { "owned by" } else { "group-writable," },
                        name_of(&users, m.uid()),
                        name_of(&groups, m.gid()),
                        mode & 0o7777
                    )
                })
            })
            .collect();
        if !by_worker.is_empty() {
            out.findings.extend(finding(
                "docroot-worker-writable",
                root.display().to_string(),
                listed(&by_worker),
            ));
        }
        for (p, m) in &entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if m.is_file() && is_secret(name) && m.permissions().mode() & 0o004 != 0 {
                let owner = users
                    .get(&m.uid())
                    .cloned()
                    .unwrap_or_else(|| m.uid().to_string());
                out.findings.extend(finding(
                    "secret-readable",
                    p.display().to_string(),
                    format!(
                        "mode {:04o}, owner {owner}, inside the document root",
                        m.permissions().mode() & 0o7777
                    ),
                ));
            }
        }
        let present: Vec<String> = on_disk
            .iter()
            .map(|p| root.join(p.trim_start_matches('/')))
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if !present.is_empty() {
            out.findings.extend(finding(
                "default-content-on-disk",
                root.display().to_string(),
                listed(&present),
            ));
        }
    }
    if roots.is_empty() {
        out.warnings.push(
            "--local: no document root found in the server's configuration: pass --docroot PATH"
                .into(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docroots_come_from_apache_and_nginx_directives() {
        let apache = "ServerRoot /x\nDocumentRoot \"/srv/www\"\n  <Directory /srv/www>";
        assert_eq!(docroots_in(apache), [PathBuf::from("/srv/www")]);
        let nginx = "server {\n  root /var/www/html;\n  location / { root /srv/b; }\n}";
        assert_eq!(docroots_in(nginx), [PathBuf::from("/var/www/html")]);
    }

    #[test]
    fn workers_are_the_children_of_the_master() {
        let p = |pid, ppid| Process {
            pid,
            ppid,
            name: "apache2".into(),
            uid: 33,
            gid: 33,
            cmdline: vec![
                "apache2".into(),
                "-f".into(),
                "conf".into(),
                "-d".into(),
                "/t".into(),
            ],
        };
        let procs = [p(10, 1), p(11, 10), p(12, 10)];
        assert_eq!(
            workers(&procs).iter().map(|w| w.pid).collect::<Vec<_>>(),
            [11, 12]
        );
        assert_eq!(workers(&procs[..1]).len(), 1);
        assert_eq!(config_file(&procs[0]), Some(PathBuf::from("/t/conf")));
    }
}
