//! The web server's configuration as the server reads it: the main file
//! and every file its `Include`/`IncludeOptional` (Apache, relative to the
//! server root) or `include` (nginx, relative to the main file's
//! directory) names, globs expanded in name order as both servers do; and
//! what `--local` reads from them (document roots, the secret files they
//! name, secrets written inline).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The most configuration files read.
pub const FILE_CAP: usize = 512;
/// Includes followed at most this deep.
const DEPTH_CAP: usize = 16;

/// Which server's syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// Apache httpd (`Include`, `IncludeOptional`, `ServerRoot`).
    Apache,
    /// nginx (`include`).
    Nginx,
}

/// One configuration file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfFile {
    /// Its path.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// True when `name` matches the glob `pattern` (`*`, `?`, `[...]` of one
/// path component).
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob_match(&pattern[1..], name) || (!name.is_empty() && glob_match(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => glob_match(&pattern[1..], &name[1..]),
        (Some(b'['), Some(c)) => {
            let Some(end) = pattern.iter().position(|b| *b == b']') else {
                return false;
            };
            let set = &pattern[1..end];
            let (negate, set) = match set.first() {
                Some(b'!' | b'^') => (true, &set[1..]),
                _ => (false, set),
            };
            let mut hit = false;
            let mut i = 0;
            while i < set.len() {
                if i + 2 < set.len() && set[i + 1] == b'-' {
                    hit |= (set[i]..=set[i + 2]).contains(c);
                    i += 3;
                } else {
                    hit |= set[i] == *c;
                    i += 1;
                }
            }
            hit != negate && glob_match(&pattern[end + 1..], &name[1..])
        }
        (Some(p), Some(c)) => p == c && glob_match(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// The files (not directories) `pattern` names, wildcards in any
/// component, in name order; a path without wildcards is itself when it
/// exists (a directory: the files in it, as Apache's Include does).
pub fn expand(pattern: &Path) -> Vec<PathBuf> {
    let mut current: Vec<PathBuf> = vec![PathBuf::from("/")];
    for comp in pattern.components().skip(1) {
        let part = comp.as_os_str().to_string_lossy().to_string();
        let mut next = Vec::new();
        for base in &current {
            if part.contains(['*', '?', '[']) {
                let Ok(entries) = fs::read_dir(base) else {
                    continue;
                };
                let mut names: Vec<String> = entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .filter(|n| !n.starts_with('.') && glob_match(part.as_bytes(), n.as_bytes()))
                    .collect();
                names.sort();
                next.extend(names.into_iter().map(|n| base.join(n)));
            } else {
                next.push(base.join(&part));
            }
            if next.len() > FILE_CAP {
                break;
            }
        }
        current = next;
    }
    let mut out = Vec::new();
    for p in current {
        if p.is_dir() {
            if let Ok(entries) = fs::read_dir(&p) {
                let mut files: Vec<PathBuf> = entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.is_file())
                    .collect();
                files.sort();
                out.extend(files);
            }
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

/// A directive's first argument, quotes and a trailing `;` removed.
fn argument(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    if line.starts_with('#') {
        return None;
    }
    let mut words = line.split_whitespace();
    let key = words.next()?.to_string();
    let value = words.next()?;
    let value = value
        .trim_end_matches(';')
        .trim_matches('"')
        .trim_matches('\'')
        .to_string();
    Some((key, value))
}

/// Apache's server root: `ServerRoot` in the main file, else `given`
/// (`-d`), else Debian's `/etc/apache2`.
pub fn apache_root(main_text: &str, given: Option<&Path>) -> PathBuf {
    main_text
        .lines()
        .filter_map(argument)
        .find(|(k, _)| k.eq_ignore_ascii_case("ServerRoot"))
        .map(|(_, v)| PathBuf::from(v))
        .or_else(|| given.map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("/etc/apache2"))
}

/// Reads `main` and every file it includes, depth first in the order the
/// server reads them, each file once, at most [`FILE_CAP`]; `root` is the
/// base of relative include paths (Apache's server root; nginx: the main
/// file's directory). Files that cannot be read are listed in the second
/// value.
pub fn read_all(main: &Path, server: Server, root: &Path) -> (Vec<ConfFile>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    read_into(main, server, root, 0, &mut seen, &mut out, &mut problems);
    (out, problems)
}

fn read_into(
    path: &Path,
    server: Server,
    root: &Path,
    depth: usize,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut Vec<ConfFile>,
    problems: &mut Vec<String>,
) {
    if depth > DEPTH_CAP || out.len() >= FILE_CAP || !seen.insert(path.to_path_buf()) {
        return;
    }
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("cannot read {}: {e}", path.display()));
            return;
        }
    };
    let includes: Vec<(String, bool)> = text
        .lines()
        .filter_map(argument)
        .filter_map(|(k, v)| match server {
            Server::Apache if k.eq_ignore_ascii_case("Include") => Some((v, false)),
            Server::Apache if k.eq_ignore_ascii_case("IncludeOptional") => Some((v, true)),
            Server::Nginx if k == "include" => Some((v, true)),
            _ => None,
        })
        .collect();
    out.push(ConfFile {
        path: path.to_path_buf(),
        text,
    });
    for (inc, optional) in includes {
        let full = if Path::new(&inc).is_absolute() {
            PathBuf::from(&inc)
        } else {
            root.join(&inc)
        };
        let files = expand(&full);
        if files.is_empty() && !optional && !inc.contains(['*', '?', '[']) {
            problems.push(format!(
                "{} includes {}, which is missing",
                path.display(),
                full.display()
            ));
        }
        for f in files {
            read_into(&f, server, root, depth + 1, seen, out, problems);
        }
    }
}

/// The document roots of `files`: Apache's `DocumentRoot`, nginx's `root`
/// (absolute paths, each once, in order).
pub fn docroots(files: &[ConfFile]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for f in files {
        for (k, v) in f.text.lines().filter_map(argument) {
            if k.eq_ignore_ascii_case("DocumentRoot") || k == "root" {
                let p = PathBuf::from(v);
                if p.is_absolute() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The directives that name a secret file (private keys, password files).
const SECRET_FILE_DIRECTIVES: &[&str] = &[
    "SSLCertificateKeyFile",
    "AuthUserFile",
    "AuthDBMUserFile",
    "AuthGroupFile",
    "ssl_certificate_key",
    "auth_basic_user_file",
    "ssl_password_file",
];

/// The secret files `files` name: (the file, `config:line` naming it).
pub fn secret_files(files: &[ConfFile], root: &Path) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    for f in files {
        for (n, line) in f.text.lines().enumerate() {
            let Some((k, v)) = argument(line) else {
                continue;
            };
            if SECRET_FILE_DIRECTIVES
                .iter()
                .any(|d| d.eq_ignore_ascii_case(&k))
            {
                let p = if Path::new(&v).is_absolute() {
                    PathBuf::from(&v)
                } else {
                    root.join(&v)
                };
                if !out.iter().any(|(q, _)| *q == p) {
                    out.push((p, format!("{}:{}", f.path.display(), n + 1)));
                }
            }
        }
    }
    out
}

/// Lines of `file` that write a secret inline (a password, token or key
/// set with SetEnv, fastcgi_param, env, proxy_set_header Authorization):
/// `line number: directive NAME` (the value left out).
pub fn inline_secrets(file: &ConfFile) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in file.text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let (Some(key), Some(name)) = (words.first(), words.get(1)) else {
            continue;
        };
        let setter = [
            "SetEnv",
            "fastcgi_param",
            "env",
            "proxy_set_header",
            "PassEnv",
        ]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(key));
        let lower = name.to_ascii_lowercase();
        let secret_name = ["password", "passwd", "secret", "token", "api_key", "apikey"]
            .iter()
            .any(|w| lower.contains(w))
            || (key.eq_ignore_ascii_case("proxy_set_header") && lower == "authorization");
        if setter && secret_name && words.len() >= 3 {
            out.push(format!("line {}: {key} {name}", n + 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_the_servers() {
        assert!(glob_match(b"*.conf", b"000-default.conf"));
        assert!(!glob_match(b"*.conf", b"default"));
        assert!(glob_match(b"*", b"default"));
        assert!(glob_match(b"php?.?.load", b"php8.2.load"));
        assert!(glob_match(b"[0-9]*", b"000-x") && !glob_match(b"[!0-9]*", b"000-x"));
    }

    #[test]
    fn includes_are_followed_relative_to_the_root_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let w = |p: &str, t: &str| {
            let p = d.join(p);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, t).unwrap();
        };
        w(
            "apache2.conf",
            "Include ports.conf\nIncludeOptional conf-enabled/*.conf\nIncludeOptional sites-enabled/*.conf\nIncludeOptional nothing/*.conf\nInclude apache2.conf\n",
        );
        w("ports.conf", "Listen 80\n");
        w(
            "sites-enabled/001-b.conf",
            "<VirtualHost *:80>\n  DocumentRoot /srv/b\n</VirtualHost>\n",
        );
        w(
            "sites-enabled/000-a.conf",
            "  DocumentRoot \"/srv/a\"\n  AuthUserFile keys/htpasswd\n  SetEnv DB_PASSWORD hunter2\n",
        );
        w("sites-enabled/readme.txt", "DocumentRoot /nope\n");
        let (files, problems) = read_all(&d.join("apache2.conf"), Server::Apache, d);
        let names: Vec<String> = files
            .iter()
            .map(|f| f.path.strip_prefix(d).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "apache2.conf",
                "ports.conf",
                "sites-enabled/000-a.conf",
                "sites-enabled/001-b.conf"
            ]
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            docroots(&files),
            [PathBuf::from("/srv/a"), PathBuf::from("/srv/b")]
        );
        let secrets = secret_files(&files, d);
        assert_eq!(secrets[0].0, d.join("keys/htpasswd"));
        assert!(
            secrets[0].1.ends_with("sites-enabled/000-a.conf:2"),
            "{secrets:?}"
        );
        assert_eq!(inline_secrets(&files[2]), ["line 3: SetEnv DB_PASSWORD"]);

        w(
            "nginx.conf",
            "http {\n  include mime.types;\n  include sites-enabled/*;\n}\n",
        );
        w("mime.types", "types { text/html html; }\n");
        let (files, _) = read_all(&d.join("nginx.conf"), Server::Nginx, d);
        // sites-enabled/* takes every file there, the .txt too (nginx does).
        assert_eq!(files.len(), 5, "{files:#?}");
        assert_eq!(
            apache_root("ServerRoot \"/etc/httpd\"\n", None),
            PathBuf::from("/etc/httpd")
        );
        assert_eq!(apache_root("", Some(d)), d.to_path_buf());
    }
}
