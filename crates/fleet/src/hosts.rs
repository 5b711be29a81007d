//! The hosts file (TOML): which machines a fleet command runs on and how
//! `ssh` reaches each.
//!
//! ```toml
//! ssh_config = "/path/to/ssh_config"   # optional, passed as `ssh -F`
//!
//! [[host]]
//! name = "web1"                  # unique, used in tags and tables
//! destination = "root@10.0.0.5"  # anything `ssh` accepts (an ~/.ssh/config alias too)
//! labels = { role = "web", rack = "3" }
//! dir = "/scratch/nodebench"     # where the binary is copied and runs (default /tmp/nodebench-fleet)
//! address = "10.0.1.5"           # address other hosts reach it at (pair, http)
//! interface = "eth1"             # interface `fleet pair` sets the MTU of
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Where the binary is copied to and runs on a host without a `dir`.
pub const DEFAULT_DIR: &str = "/tmp/nodebench-fleet";

/// The accepted form of a host table, for error lines.
const HOST_FORM: &str =
    "[[host]] name = \"NAME\" destination = \"[USER@]HOST or an ssh config alias\"";

/// One machine of the fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// Its name in the hosts file: the `host` tag of its runs.
    pub name: String,
    /// What `ssh` is given to reach it.
    pub destination: String,
    /// Free labels (role, rack), shown by `fleet check`.
    pub labels: BTreeMap<String, String>,
    /// Its scratch directory: the copied binary and its files live here.
    pub dir: String,
    /// The address other hosts reach it at (`fleet pair`, `fleet http`).
    pub address: Option<String>,
    /// The network interface `fleet pair` tests (sets the MTU of).
    pub interface: Option<String>,
}

/// A parsed hosts file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hosts {
    /// The file it was read from (named in errors).
    pub file: PathBuf,
    /// An ssh client configuration file every `ssh` call is given (`-F`).
    pub ssh_config: Option<PathBuf>,
    /// The hosts, in file order.
    pub hosts: Vec<Host>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileForm {
    ssh_config: Option<PathBuf>,
    #[serde(default)]
    host: Vec<HostForm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostForm {
    name: Option<String>,
    destination: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    dir: Option<String>,
    address: Option<String>,
    interface: Option<String>,
}

impl Hosts {
    /// Reads and checks the hosts file at `path`; every refusal is one line
    /// naming the file (and line where the TOML says) and the accepted form.
    pub fn load(path: &Path) -> Result<Hosts, crate::Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            crate::Error::Usage(format!("hosts file {}: cannot read: {e}", path.display()))
        })?;
        Hosts::parse(&text, path)
    }

    /// Parses and checks the text of a hosts file read from `file`.
    pub fn parse(text: &str, file: &Path) -> Result<Hosts, crate::Error> {
        let shown = file.display();
        let form: FileForm = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!(":{}", text[..s.start].matches('\n').count() + 1))
                .unwrap_or_default();
            crate::Error::Usage(format!(
                "hosts file {shown}{line}: {} (accepted: {HOST_FORM})",
                e.message().trim()
            ))
        })?;
        if form.host.is_empty() {
            return Err(crate::Error::Usage(format!(
                "hosts file {shown}: no hosts (accepted: {HOST_FORM})"
            )));
        }
        let mut hosts: Vec<Host> = Vec::new();
        for (i, h) in form.host.into_iter().enumerate() {
            let name = match h.name.map(|n| n.trim().to_string()) {
                Some(n) if valid_name(&n) => n,
                Some(n) => {
                    return Err(crate::Error::Usage(format!(
                        "hosts file {shown}: host #{} has name '{n}': a name is letters, digits, '-', '_' or '.'",
                        i + 1
                    )));
                }
                None => {
                    return Err(crate::Error::Usage(format!(
                        "hosts file {shown}: host #{} has no name (accepted: {HOST_FORM})",
                        i + 1
                    )));
                }
            };
            if hosts.iter().any(|o| o.name == name) {
                return Err(crate::Error::Usage(format!(
                    "hosts file {shown}: host '{name}' is defined twice (names must be unique)"
                )));
            }
            let destination = match h.destination.map(|d| d.trim().to_string()) {
                Some(d) if !d.is_empty() && !d.starts_with('-') => d,
                _ => {
                    return Err(crate::Error::Usage(format!(
                        "hosts file {shown}: host '{name}' has no destination (accepted: destination = \"[USER@]HOST\" or an ssh config alias)"
                    )));
                }
            };
            let dir = h.dir.unwrap_or_else(|| DEFAULT_DIR.to_string());
            if !dir.starts_with('/') || dir.contains('\'') {
                return Err(crate::Error::Usage(format!(
                    "hosts file {shown}: host '{name}' has dir '{dir}': an absolute path without quotes is needed"
                )));
            }
            hosts.push(Host {
                name,
                destination,
                labels: h.labels,
                dir,
                address: h.address,
                interface: h.interface,
            });
        }
        Ok(Hosts {
            file: file.to_path_buf(),
            ssh_config: form.ssh_config,
            hosts,
        })
    }

    /// Keeps only the hosts named in `only` (all when empty), in file order;
    /// a name the file does not define is refused naming the ones it does.
    pub fn select(mut self, only: &[String]) -> Result<Hosts, crate::Error> {
        if only.is_empty() {
            return Ok(self);
        }
        for name in only {
            if !self.hosts.iter().any(|h| &h.name == name) {
                let known: Vec<&str> = self.hosts.iter().map(|h| h.name.as_str()).collect();
                return Err(crate::Error::Usage(format!(
                    "--only: no host '{name}' in {} (hosts: {})",
                    self.file.display(),
                    known.join(", ")
                )));
            }
        }
        self.hosts.retain(|h| only.contains(&h.name));
        Ok(self)
    }

    /// The host named `name`, or a one-line refusal naming `flag`.
    pub fn get(&self, name: &str, flag: &str) -> Result<&Host, crate::Error> {
        self.hosts.iter().find(|h| h.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.hosts.iter().map(|h| h.name.as_str()).collect();
            crate::Error::Usage(format!(
                "{flag}: no host '{name}' in {} (hosts: {})",
                self.file.display(),
                known.join(", ")
            ))
        })
    }
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Hosts, crate::Error> {
        Hosts::parse(text, Path::new("h.toml"))
    }

    #[test]
    fn reads_hosts_with_defaults_and_overrides() {
        let h = parse(
            "ssh_config = \"/etc/c\"\n[[host]]\nname = \"a\"\ndestination = \"root@10.0.0.1\"\nlabels = { role = \"web\" }\n\
             [[host]]\nname = \"b\"\ndestination = \"b\"\ndir = \"/scratch\"\naddress = \"10.0.1.2\"\ninterface = \"eth1\"\n",
        )
        .unwrap();
        assert_eq!(h.ssh_config.as_deref(), Some(Path::new("/etc/c")));
        assert_eq!(h.hosts.len(), 2);
        assert_eq!(h.hosts[0].dir, DEFAULT_DIR);
        assert_eq!(h.hosts[0].labels["role"], "web");
        assert_eq!(h.hosts[1].dir, "/scratch");
        assert_eq!(h.hosts[1].address.as_deref(), Some("10.0.1.2"));
        assert_eq!(h.hosts[1].interface.as_deref(), Some("eth1"));
    }

    #[test]
    fn refuses_duplicates_missing_destination_and_unknown_keys() {
        let dup = parse(
            "[[host]]\nname = \"a\"\ndestination = \"x\"\n[[host]]\nname = \"a\"\ndestination = \"y\"\n",
        );
        assert_eq!(
            dup.unwrap_err().to_string(),
            "hosts file h.toml: host 'a' is defined twice (names must be unique)"
        );
        let missing = parse("[[host]]\nname = \"a\"\n").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("hosts file h.toml: host 'a' has no destination"),
            "{missing}"
        );
        let option =
            parse("[[host]]\nname = \"a\"\ndestination = \"-oProxyCommand=x\"\n").unwrap_err();
        assert!(
            option.to_string().contains("has no destination"),
            "{option}"
        );
        let unknown =
            parse("[[host]]\nname = \"a\"\ndestination = \"x\"\nport = 22\n").unwrap_err();
        assert!(
            unknown
                .to_string()
                .starts_with("hosts file h.toml:4: unknown field `port`"),
            "{unknown}"
        );
        assert!(!unknown.to_string().contains('\n'));
        assert!(parse("").unwrap_err().to_string().contains("no hosts"));
        let rel =
            parse("[[host]]\nname = \"a\"\ndestination = \"x\"\ndir = \"tmp\"\n").unwrap_err();
        assert!(rel.to_string().contains("absolute path"), "{rel}");
    }

    #[test]
    fn selects_known_aliases_only() {
        let h = parse("[[host]]\nname = \"a\"\ndestination = \"x\"\n[[host]]\nname = \"b\"\ndestination = \"y\"\n")
            .unwrap();
        let one = h.clone().select(&["b".into()]).unwrap();
        assert_eq!(one.hosts.len(), 1);
        assert_eq!(one.hosts[0].name, "b");
        assert_eq!(
            h.select(&["c".into()]).unwrap_err().to_string(),
            "--only: no host 'c' in h.toml (hosts: a, b)"
        );
    }
}
