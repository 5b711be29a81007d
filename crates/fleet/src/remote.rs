//! What is on a host: its architecture and OS, whether this nodebench is in
//! its directory (checksum compared); copying the binary there over ssh and
//! checking it; starting it and stopping it.

use std::io::{Read, Write};

use nodebench_core::credentials;
use std::path::PathBuf;
use std::process::{Child, Stdio};

use sha2::{Digest, Sha256};

use crate::hosts::Host;
use crate::ssh::{HostError, Ssh, quote};

/// This machine's nodebench: what every host must run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// The running executable.
    pub path: PathBuf,
    /// Its architecture as `uname -m` prints it.
    pub arch: String,
    /// Its SHA-256, lower-case hex.
    pub sha256: String,
}

impl Local {
    /// The running executable, hashed.
    pub fn current() -> Result<Local, crate::Error> {
        let path = std::env::current_exe()
            .map_err(|e| crate::Error::Local(format!("cannot find this executable: {e}")))?;
        Ok(Local {
            sha256: sha256_file(&path)?,
            path,
            arch: std::env::consts::ARCH.to_string(),
        })
    }
}

/// The nodebench binaries the hosts get, one per architecture: those of
/// `--binary-dir` (the portable release binaries), and this one for its
/// own architecture where the folder has none. Unpacked archives live in a
/// scratch folder removed when this is dropped.
#[derive(Debug)]
pub struct Binaries {
    list: Vec<Local>,
    scratch: Option<PathBuf>,
}

impl Binaries {
    /// This executable alone.
    pub fn current() -> Result<Binaries, crate::Error> {
        Ok(Binaries {
            list: vec![Local::current()?],
            scratch: None,
        })
    }

    /// The binaries of `dir` (see [`nodebench_core::portable::find`]),
    /// then this executable for its architecture if `dir` has none for it.
    pub fn with_dir(dir: Option<&std::path::Path>) -> Result<Binaries, crate::Error> {
        let Some(dir) = dir else {
            return Binaries::current();
        };
        let scratch =
            std::env::temp_dir().join(format!("nodebench-fleet-binaries-{}", std::process::id()));
        let mut bins = Binaries {
            list: Vec::new(),
            scratch: Some(scratch.clone()),
        };
        for p in nodebench_core::portable::find(dir, &scratch).map_err(crate::Error::BinaryDir)? {
            bins.list.push(Local {
                sha256: sha256_file(&p.path)?,
                path: p.path,
                arch: p.arch,
            });
        }
        let here = Local::current()?;
        if bins.for_arch(&here.arch).is_none() {
            bins.list.push(here);
        }
        Ok(bins)
    }

    /// The binary for hosts of `arch` (`uname -m`).
    pub fn for_arch(&self, arch: &str) -> Option<&Local> {
        self.list.iter().find(|l| l.arch == arch)
    }

    /// The architectures there is a binary for, e.g. `x86_64, aarch64`.
    pub fn archs(&self) -> String {
        let v: Vec<&str> = self.list.iter().map(|l| l.arch.as_str()).collect();
        v.join(", ")
    }
}

impl Drop for Binaries {
    fn drop(&mut self) {
        if let Some(s) = &self.scratch {
            let _ = std::fs::remove_dir_all(s);
        }
    }
}

/// SHA-256 of a file's content, lower-case hex.
pub fn sha256_file(path: &std::path::Path) -> Result<String, crate::Error> {
    let mut f = std::fs::File::open(path)
        .map_err(|e| crate::Error::Local(format!("cannot read {}: {e}", path.display())))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| crate::Error::Local(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// What `fleet check` learns of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `uname -m`.
    pub arch: String,
    /// `PRETTY_NAME` of /etc/os-release (else `uname -s`).
    pub os: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// SHA-256 of the nodebench in the host's directory, if there is one.
    pub binary_sha256: Option<String>,
}

impl Probe {
    /// Whether the host's nodebench is exactly `local`.
    pub fn matches(&self, local: &Local) -> bool {
        self.binary_sha256.as_deref() == Some(local.sha256.as_str())
    }
}

/// The path of the copied binary on `host`.
pub fn binary(host: &Host) -> String {
    format!("{}/nodebench", host.dir)
}

/// Reads a host's architecture, OS and copied binary in one ssh call.
pub fn probe(ssh: &Ssh, host: &Host) -> Result<Probe, HostError> {
    let bin = quote(&binary(host));
    let script = format!(
        "echo \"arch=$(uname -m)\"; echo \"kernel=$(uname -r)\"; \
         (. /etc/os-release 2>/dev/null; echo \"os=${{PRETTY_NAME:-$(uname -s)}}\"); \
         if [ -f {bin} ]; then echo \"sha256=$(sha256sum {bin} | cut -d' ' -f1)\"; fi"
    );
    let out = ssh.run_ok(host, &script, "probe")?;
    parse_probe(&out)
        .ok_or_else(|| HostError::new(format!("probe: unexpected reply: {}", out.trim())))
}

fn parse_probe(text: &str) -> Option<Probe> {
    let get = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
            .map(|v| v.trim().to_string())
    };
    Some(Probe {
        arch: get("arch").filter(|a| !a.is_empty())?,
        os: get("os").unwrap_or_default(),
        kernel: get("kernel").unwrap_or_default(),
        binary_sha256: get("sha256").filter(|s| s.len() == 64),
    })
}

/// The binary for `host` (of the architecture its probe found), or the
/// refusal, in one line, of a host whose architecture has none.
pub fn check_arch<'a>(
    host: &Host,
    probe: &Probe,
    bins: &'a Binaries,
) -> Result<&'a Local, HostError> {
    bins.for_arch(&probe.arch).ok_or_else(|| {
        HostError::new(format!(
            "host '{}' is {}, and there is no nodebench for {} (have: {}): give --binary-dir with the nodebench-VERSION-{}-linux-gnu.tar.gz release archive",
            host.name,
            probe.arch,
            probe.arch,
            bins.archs(),
            probe.arch
        ))
    })
}

/// Puts the nodebench of `host`'s architecture in its directory unless the
/// same one is there (checksum compared); the copy goes over the ssh
/// connection and its checksum is checked on the host. True when it copied.
pub fn deploy(ssh: &Ssh, host: &Host, bins: &Binaries) -> Result<bool, HostError> {
    let probe = probe(ssh, host)?;
    let local = check_arch(host, &probe, bins)?;
    if probe.matches(local) {
        return Ok(false);
    }
    put(ssh, host, &local.path, "nodebench", &local.sha256)?;
    Ok(true)
}

/// Copies the local file `from` to `name` in `host`'s directory over the
/// ssh connection (executable), and checks its SHA-256 there is `sha256`.
pub fn put(
    ssh: &Ssh,
    host: &Host,
    from: &std::path::Path,
    name: &str,
    sha256: &str,
) -> Result<(), HostError> {
    let dir = quote(&host.dir);
    let to = quote(&format!("{}/{name}", host.dir));
    let part = quote(&format!("{}/{name}.part", host.dir));
    let script = format!(
        "mkdir -p {dir} && cat > {part} && chmod 755 {part} && mv -f {part} {to} && sha256sum {to} | cut -d' ' -f1"
    );
    let out = ssh.run(host, &script, Some(from))?;
    let got = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        return Err(HostError {
            message: format!("copying {name} to {} failed", host.dir),
            stderr_tail: crate::ssh::tail(&String::from_utf8_lossy(&out.stderr)),
        });
    }
    if got != sha256 {
        return Err(HostError::new(format!(
            "copy of {name} on '{}' has checksum {got}, expected {sha256}",
            host.name
        )));
    }
    Ok(())
}

/// The name of the pid file of the nodebench started in `role`.
pub fn pid_file_name(role: &str) -> String {
    format!("nodebench.{role}.pid")
}

/// The pid file of the nodebench started on `host` in `role`.
fn pid_file(host: &Host, role: &str) -> String {
    format!("{}/{}", host.dir, pid_file_name(role))
}

/// Starts the host's nodebench with `args` (its stdout and stderr piped
/// back), writing its pid so [`stop`] can find it; with `at` (nanoseconds
/// since the epoch on the host's clock), the host's shell sleeps until then
/// first.
pub fn spawn(
    ssh: &Ssh,
    host: &Host,
    role: &str,
    args: &[String],
    at: Option<i64>,
) -> Result<Child, HostError> {
    // Secrets (URL passwords, --token) leave argv, where another user's
    // `ps` would show them: the remote shell reads each into its variable
    // from standard input (`read` is a builtin, so no argv holds it).
    let (args, secrets) =
        credentials::split_secrets(args).map_err(|e| HostError::new(e.to_string()))?;
    let words: Vec<String> = args.iter().map(|a| quote(a)).collect();
    let reads: String = secrets
        .iter()
        .map(|(var, _)| format!("IFS= read -r {var} && export {var} && "))
        .collect();
    let wait = match at {
        Some(t) => format!(
            "n=$(date +%s%N); if [ \"$n\" -lt {t} ]; then sleep \"$(awk -v d=$(({t} - n)) 'BEGIN {{ printf \"%.6f\", d / 1e9 }}')\"; fi; "
        ),
        None => String::new(),
    };
    let script = format!(
        "cd {} && echo $$ > {} && {reads}{wait}exec {} {}",
        quote(&host.dir),
        quote(&pid_file(host, role)),
        quote(&binary(host)),
        words.join(" ")
    );
    let mut child = ssh
        .command(host, &script)
        .stdin(if secrets.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| HostError::new(format!("cannot run ssh: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        let text: String = secrets.iter().map(|(_, v)| format!("{v}\n")).collect();
        if let Err(e) = stdin.write_all(text.as_bytes()) {
            // ssh exited before reading them (it could not connect, say):
            // what it printed says why.
            drop(stdin);
            let _ = child.kill();
            let out = child.wait_with_output();
            let stderr = out
                .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                .unwrap_or_default();
            return Err(HostError {
                message: format!("cannot pass the secrets to ssh: {e}"),
                stderr_tail: crate::ssh::tail(&stderr),
            });
        }
    }
    Ok(child)
}

/// Stops the nodebench started on `host` in `role` (SIGINT, so it keeps
/// what finished; SIGKILL after 5 s), only if that pid still runs the
/// copied binary, and removes its pid file.
pub fn stop(ssh: &Ssh, host: &Host, role: &str) -> Result<(), HostError> {
    let pid = quote(&pid_file(host, role));
    let bin = quote(&binary(host));
    let script = format!(
        "p=$(cat {pid} 2>/dev/null); \
         if [ -n \"$p\" ] && [ \"$(readlink /proc/$p/exe)\" = {bin} ]; then \
           kill -INT $p; i=0; while kill -0 $p 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; \
           kill -KILL $p 2>/dev/null; \
         fi; rm -f {pid}"
    );
    ssh.run_ok(host, &script, "stop").map(|_| ())
}

/// Removes the files `names` from `host`'s directory.
pub fn remove(ssh: &Ssh, host: &Host, names: &[&str]) -> Result<(), HostError> {
    let paths: Vec<String> = names
        .iter()
        .map(|n| quote(&format!("{}/{n}", host.dir)))
        .collect();
    let script = format!("rm -f {}", paths.join(" "));
    ssh.run_ok(host, &script, "remove").map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Host {
        Host {
            name: "a".into(),
            destination: "a".into(),
            labels: Default::default(),
            dir: "/d".into(),
            address: None,
            interface: None,
        }
    }

    #[test]
    fn reads_a_probe() {
        let sha = "ab".repeat(32);
        let p = parse_probe(&format!(
            "arch=x86_64\nkernel=6.1.0\nos=Debian GNU/Linux 12 (bookworm)\nsha256={sha}\n"
        ))
        .unwrap();
        assert_eq!(p.arch, "x86_64");
        assert_eq!(p.os, "Debian GNU/Linux 12 (bookworm)");
        assert_eq!(p.binary_sha256.as_deref(), Some(sha.as_str()));
        let none = parse_probe("arch=aarch64\nos=Linux\n").unwrap();
        assert_eq!(none.binary_sha256, None);
        assert_eq!(parse_probe("garbage"), None);
    }

    #[test]
    fn refuses_an_architecture_without_a_binary() {
        let local = Local {
            path: "/x".into(),
            arch: "x86_64".into(),
            sha256: "0".repeat(64),
        };
        let bins = Binaries {
            list: vec![local.clone()],
            scratch: None,
        };
        let p = Probe {
            arch: "aarch64".into(),
            os: String::new(),
            kernel: String::new(),
            binary_sha256: None,
        };
        assert_eq!(
            check_arch(&host(), &p, &bins).unwrap_err().message,
            "host 'a' is aarch64, and there is no nodebench for aarch64 (have: x86_64): give --binary-dir with the nodebench-VERSION-aarch64-linux-gnu.tar.gz release archive"
        );
        let same = Probe {
            arch: "x86_64".into(),
            ..p.clone()
        };
        assert_eq!(check_arch(&host(), &same, &bins).unwrap(), &local);
        assert!(!same.matches(&local));
        // With an aarch64 binary at hand the aarch64 host gets it.
        let arm = Local {
            path: "/y".into(),
            arch: "aarch64".into(),
            sha256: "1".repeat(64),
        };
        let both = Binaries {
            list: vec![local, arm.clone()],
            scratch: None,
        };
        assert_eq!(check_arch(&host(), &p, &both).unwrap(), &arm);
        assert_eq!(both.archs(), "x86_64, aarch64");
    }

    #[test]
    fn hashes_files() {
        let dir = std::env::temp_dir().join(format!("nbf-sha-{}", std::process::id()));
        std::fs::write(&dir, b"abc").unwrap();
        assert_eq!(
            sha256_file(&dir).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        std::fs::remove_file(&dir).unwrap();
    }
}
