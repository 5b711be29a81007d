//! Helpers of the scan's server tests: Debian's apache2 and nginx started
//! on free loopback ports from configurations written into a temp dir
//! (pid, logs and document root there too), stopped by a Drop guard; small
//! in-test servers (one answering 200 with the same body to every path, a
//! TLS one with a given certificate); and the scan run in memory.

#![allow(dead_code)]

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nodebench_core::BenchResult;
use nodebench_core::bench::{Cancel, collect};
use nodebench_core::finding::{Finding, findings};
use nodebench_scan::config::ScanConfig;
use nodebench_scan::scan::Scan;

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// True when `apache2` and `nginx` (with mod_php) are installed and this
/// test runs as root (the servers switch to www-data / nobody). Missing
/// servers fail the test under CI (`CI` set: scripts/web-servers installs
/// them) and skip it elsewhere, saying so.
pub fn servers_available() -> bool {
    let have = Path::new("/usr/sbin/apache2").exists()
        && Path::new("/usr/sbin/nginx").exists()
        && php_module().is_some()
        && php_fpm().is_some();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if have && root {
        return true;
    }
    let why = if have {
        "not root (the servers' workers switch users)"
    } else {
        "nginx/apache2/libapache2-mod-php/php-fpm missing (scripts/web-servers install)"
    };
    let need = if have {
        nodebench_core::test_require::need::ROOT
    } else {
        nodebench_core::test_require::need::WEB_SERVERS
    };
    nodebench_core::test_require::missing(
        "scan (web servers)",
        need,
        why,
        "scripts/web-servers install, as root",
    );
    false
}

/// Debian's php-fpm (/usr/sbin/php-fpm8.x).
pub fn php_fpm() -> Option<PathBuf> {
    fs::read_dir("/usr/sbin")
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("php-fpm"))
        })
}

/// Debian's mod_php (libphp8.x.so).
fn php_module() -> Option<PathBuf> {
    fs::read_dir("/usr/lib/apache2/modules")
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libphp") && n.ends_with(".so"))
        })
}

/// Waits until something accepts connections on `port` (10 s at most).
pub fn wait_listening(port: u16, log: &Path) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "server on port {port} did not start; log:\n{}",
            fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A web server this test started; stopped (SIGTERM to its master, then
/// SIGKILL) when dropped, also when the test fails.
pub struct WebServer {
    /// Its temp dir: config, pid file, logs, document root (`www`).
    pub dir: tempfile::TempDir,
    /// The loopback port.
    pub port: u16,
    pidfile: PathBuf,
    /// Pid files of helpers stopped with it (php-fpm).
    helpers: Vec<PathBuf>,
}

impl WebServer {
    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The document root.
    pub fn docroot(&self) -> PathBuf {
        self.dir.path().join("www")
    }

    /// The master's pid.
    pub fn pid(&self) -> Option<i32> {
        fs::read_to_string(&self.pidfile).ok()?.trim().parse().ok()
    }
}

/// Stops the process of `pidfile` (SIGTERM, then SIGKILL after 5 s).
fn stop(pidfile: &Path) {
    let Some(pid) = fs::read_to_string(pidfile)
        .ok()
        .and_then(|t| t.trim().parse::<i32>().ok())
    else {
        return;
    };
    let alive = || Path::new(&format!("/proc/{pid}")).exists();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let start = Instant::now();
    while alive() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    if alive() {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        for h in &self.helpers {
            stop(h);
        }
        let Some(pid) = self.pid() else {
            return;
        };
        let alive = || Path::new(&format!("/proc/{pid}")).exists();
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        let start = Instant::now();
        while alive() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if alive() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        // Apache's children exit with the master; wait for the port too.
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok()
            && start.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A temp dir the servers' workers (www-data, nobody) can read, with an
/// empty document root `www`.
fn server_dir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("nodebench-scan-")
        .tempdir()
        .unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir(dir.path().join("www")).unwrap();
    dir
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// What a fresh install leaves and the "as installed" plants: a
/// `.git/`, an `.env`, a directory to list, an editor leftover.
fn plant_leftovers(www: &Path) {
    write(&www.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(
        &www.join(".git/config"),
        "[core]\n\trepositoryformatversion = 0\n",
    );
    write(
        &www.join(".env"),
        "DB_PASSWORD=secret\nAPP_KEY=base64:abc\n",
    );
    write(&www.join("files/report.txt"), "quarterly figures\n");
    // A listed directory no fixed path names, linked from the home page:
    // only the crawl finds it.
    write(
        &www.join("pub/files/minutes.txt"),
        "minutes of the meeting\n",
    );
    plant_exposures_and_panels(www);
    let index = www.join("index.html");
    let mut home = fs::read_to_string(&index).unwrap_or_default();
    home.push_str("<p><a href=\"/pub/files/\">Published files</a></p>\n");
    fs::write(&index, home).unwrap();
    write(
        &www.join("index.php~"),
        "<?php $db_password = 'secret'; ?>\n",
    );
}

/// The exposures and panels families' plants: VCS and OS metadata,
/// manifests, a log, an SQL dump (in a crawled directory), a permissive
/// crossdomain.xml, and pages standing for phpMyAdmin, Adminer, Spring's
/// actuator, Jolokia and Symfony's profiler.
fn plant_exposures_and_panels(www: &Path) {
    fs::write(
        www.join(".DS_Store"),
        b"\0\0\0\x01Bud1\0\0\x10\0\0\0\x08\0files",
    )
    .unwrap();
    write(
        &www.join("pub/.hg/requires"),
        "revlogv1\nstore\nfncache\ndotencode\ngeneraldelta\n",
    );
    write(
        &www.join(".bzr/branch-format"),
        "Bazaar-NG meta directory, format 1\n",
    );
    write(
        &www.join("web.config"),
        "<?xml version=\"1.0\"?>\n<configuration>\n  <connectionStrings><add name=\"db\" connectionString=\"Server=db;Password=secret\"/></connectionStrings>\n</configuration>\n",
    );
    write(
        &www.join("composer.json"),
        "{\n  \"require\": {\"php\": \">=8.1\", \"monolog/monolog\": \"^3.0\"}\n}\n",
    );
    write(
        &www.join("package.json"),
        "{\n  \"name\": \"site\",\n  \"dependencies\": {\"express\": \"^4.19.0\"}\n}\n",
    );
    write(
        &www.join("Dockerfile"),
        "FROM php:8.2-apache\nCOPY . /var/www/html\n",
    );
    write(
        &www.join("docker-compose.yml"),
        "services:\n  db:\n    image: mariadb\n    environment:\n      MARIADB_ROOT_PASSWORD: secret\n",
    );
    write(
        &www.join("error.log"),
        "[Fri Nov 27 10:00:00.000000 2026] [php:error] [pid 12] [client 10.0.0.9:51234] PHP Fatal error:  Uncaught Error in /srv/app/db.php:12\n",
    );
    write(
        &www.join("pub/files/dump.sql"),
        "-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB\nCREATE TABLE users (id int, password varchar(255));\n",
    );
    write(
        &www.join("crossdomain.xml"),
        "<?xml version=\"1.0\"?>\n<cross-domain-policy><allow-access-from domain=\"*\"/></cross-domain-policy>\n",
    );
    write(
        &www.join("phpmyadmin/index.html"),
        "<!doctype html><html><head><title>phpMyAdmin</title></head><body>Welcome to phpMyAdmin</body></html>\n",
    );
    write(
        &www.join("adminer.php"),
        "<?php echo \"<!DOCTYPE html><title>Login - Adminer</title><a href='https://www.adminer.org/'>Adminer</a>\"; ?>\n",
    );
    write(
        &www.join("actuator/index.html"),
        "{\"_links\":{\"self\":{\"href\":\"http://localhost/actuator\",\"templated\":false},\"env\":{\"href\":\"http://localhost/actuator/env\",\"templated\":false}}}\n",
    );
    write(
        &www.join("actuator/env"),
        "{\"activeProfiles\":[],\"propertySources\":[{\"name\":\"systemEnvironment\",\"properties\":{}}]}\n",
    );
    write(
        &www.join("jolokia/version"),
        "{\"request\":{\"type\":\"version\"},\"value\":{\"agent\":\"1.7.2\",\"protocol\":\"7.2\"},\"status\":200}\n",
    );
    write(
        &www.join("_profiler/index.html"),
        "<!doctype html><title>Symfony Profiler</title><h1>Symfony Profiler</h1>\n",
    );
}

/// The two configurations the tests write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// Default pages, versions in headers and error pages, a listed
    /// directory, TRACE (Apache), status page, planted `.git/` and `.env`.
    AsInstalled,
    /// None of those, and the security headers set.
    Hardened,
}

/// Apache 2.4 (prefork, mod_php, mod_cgi) with workers as `user`.
pub fn apache(setup: Setup, user: &str) -> WebServer {
    let dir = server_dir();
    let d = dir.path().display().to_string();
    let port = free_port();
    let www = dir.path().join("www");
    let modules = "/usr/lib/apache2/modules";
    let php = php_module().unwrap();
    let mut conf = format!(
        "ServerRoot {d}\nPidFile {d}/apache2.pid\nErrorLog {d}/error.log\nDefaultRuntimeDir {d}\nMutex file:{d}\n\
Listen 127.0.0.1:{port}\nServerName 127.0.0.1\nUser {user}\nGroup {group}\n\
LoadModule mpm_prefork_module {modules}/mod_mpm_prefork.so\nStartServers 2\nMinSpareServers 1\nMaxSpareServers 4\n\
LoadModule authz_core_module {modules}/mod_authz_core.so\nLoadModule mime_module {modules}/mod_mime.so\n\
LoadModule dir_module {modules}/mod_dir.so\nLoadModule alias_module {modules}/mod_alias.so\n\
LoadModule headers_module {modules}/mod_headers.so\nLoadModule php_module {php}\n\
TypesConfig /etc/mime.types\nDirectoryIndex index.html index.php\n\
<FilesMatch \"\\.php$\">\n  SetHandler application/x-httpd-php\n</FilesMatch>\n\
<FilesMatch \"^\\.ht\">\n  Require all denied\n</FilesMatch>\n\
<Directory />\n  AllowOverride None\n  Require all denied\n</Directory>\n\
DocumentRoot \"{www}\"\n",
        group = if user == "nobody" { "nogroup" } else { user },
        php = php.display(),
        www = www.display(),
    );
    match setup {
        Setup::AsInstalled => {
            conf.push_str(&format!(
                "ServerTokens Full\nServerSignature On\nTraceEnable On\n\
LoadModule autoindex_module {modules}/mod_autoindex.so\nLoadModule status_module {modules}/mod_status.so\n\
LoadModule cgi_module {modules}/mod_cgi.so\n\
LoadModule setenvif_module {modules}/mod_setenvif.so\nLoadModule auth_basic_module {modules}/mod_auth_basic.so\n\
LoadModule authn_core_module {modules}/mod_authn_core.so\nLoadModule authn_file_module {modules}/mod_authn_file.so\n\
LoadModule authz_user_module {modules}/mod_authz_user.so\nLoadModule userdir_module {modules}/mod_userdir.so\n\
LoadModule env_module {modules}/mod_env.so\n\
ServerName 10.0.0.5\nUseCanonicalName On\nFileETag All\nphp_admin_flag expose_php on\n\
SetEnvIf Origin \"^(.+)$\" CORS_ORIGIN=$1\n\
Header always set Access-Control-Allow-Origin %{{CORS_ORIGIN}}e env=CORS_ORIGIN\n\
Header always set Access-Control-Allow-Credentials true\n\
<Location /manager/html>\n  AuthType Basic\n  AuthName \"Tomcat Manager Application\"\n  AuthUserFile {d}/htpasswd\n  Require valid-user\n</Location>\n\
UserDir {d}/home/*/public_html\n<Directory \"{d}/home\">\n  Require all granted\n</Directory>\n\
<Directory \"{www}\">\n  Options Indexes FollowSymLinks\n  Require all granted\n</Directory>\n\
<Location /server-status>\n  SetHandler server-status\n</Location>\n\
ScriptAlias /cgi-bin/ {d}/cgi-bin/\n<Directory \"{d}/cgi-bin\">\n  Options +ExecCGI\n  Require all granted\n</Directory>\n",
                www = www.display(),
            ));
            fs::copy(
                "/usr/share/apache2/default-site/index.html",
                www.join("index.html"),
            )
            .unwrap();
            plant_leftovers(&www);
            write(&www.join("phpinfo.php"), "<?php phpinfo(); ?>\n");
            write(&dir.path().join("htpasswd"), "admin:$apr1$abc$def\n");
            write(
                &dir.path().join("home/www-data/public_html/index.html"),
                "<p>www-data's page</p>\n",
            );
            // An application answering TRACK (echoing the request) and
            // DEBUG ("OK"), linked from the home page.
            write(
                &www.join("app/index.php"),
                "<?php $m = $_SERVER['REQUEST_METHOD'];\nif ($m === 'TRACK') { header('Content-Type: message/http'); echo \"TRACK {$_SERVER['REQUEST_URI']} HTTP/1.1\\r\\n\"; foreach (getallheaders() as $k => $v) { echo \"$k: $v\\r\\n\"; } }\nelseif ($m === 'DEBUG') { echo 'OK'; }\nelse { echo '<!doctype html><title>App</title><p>The app.</p>'; }\n",
            );
            let index = www.join("index.html");
            let mut home = fs::read_to_string(&index).unwrap();
            home.push_str("<p><a href=\"/app/\">App</a></p>\n");
            fs::write(&index, home).unwrap();
            let printenv = dir.path().join("cgi-bin/printenv");
            write(
                &printenv,
                "#!/bin/sh\necho 'Content-Type: text/plain'\necho\nenv | sort\n",
            );
            fs::set_permissions(&printenv, fs::Permissions::from_mode(0o755)).unwrap();
        }
        Setup::Hardened => {
            conf.push_str(&format!(
                "ServerTokens Prod\nServerSignature Off\nTraceEnable Off\n\
<Directory \"{www}\">\n  Options -Indexes\n  Require all granted\n</Directory>\n\
Header always set X-Content-Type-Options nosniff\n\
Header always set Content-Security-Policy \"default-src 'self'; frame-ancestors 'self'\"\n\
Header always set X-Frame-Options SAMEORIGIN\n\
Header always set Referrer-Policy strict-origin-when-cross-origin\n\
Header always set Permissions-Policy \"camera=(), microphone=(), geolocation=()\"\n\
Header always set Cross-Origin-Opener-Policy same-origin\n\
Header always set Cross-Origin-Resource-Policy same-origin\n",
                www = www.display(),
            ));
            write(
                &www.join("index.html"),
                "<!doctype html><title>Site</title><p>Our own page.</p>\n",
            );
        }
    }
    // Debian's layout: the site, with its document root, in
    // sites-enabled/, included relative to the server root.
    let docroot_line = format!("DocumentRoot \"{}\"\n", www.display());
    let mut site = docroot_line.clone();
    if setup == Setup::AsInstalled {
        site.push_str("SetEnv DB_PASSWORD secret\n");
    }
    conf = conf.replace(&docroot_line, "IncludeOptional sites-enabled/*.conf\n");
    write(&dir.path().join("sites-enabled/000-default.conf"), &site);
    let conf_path = dir.path().join("apache2.conf");
    write(&conf_path, &conf);
    let status = std::process::Command::new("/usr/sbin/apache2")
        .args(["-f", conf_path.to_str().unwrap(), "-d", &d, "-k", "start"])
        .status()
        .unwrap();
    assert!(
        status.success(),
        "apache2 did not start: {}",
        fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
    );
    wait_listening(port, &dir.path().join("error.log"));
    let pidfile = dir.path().join("apache2.pid");
    WebServer {
        dir,
        port,
        pidfile,
        helpers: Vec::new(),
    }
}

/// php-fpm with one static pool as www-data on a socket in `d`, with its
/// status and ping pages at /fpm-status and /fpm-ping; its pid file.
fn start_php_fpm(d: &str) -> PathBuf {
    let conf = format!(
        "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = yes\n\
[www]\nuser = www-data\ngroup = www-data\nlisten = {d}/php-fpm.sock\nlisten.owner = www-data\nlisten.group = www-data\n\
pm = static\npm.max_children = 2\npm.status_path = /fpm-status\nping.path = /fpm-ping\n"
    );
    let path = Path::new(d).join("php-fpm.conf");
    write(&path, &conf);
    let status = std::process::Command::new(php_fpm().unwrap())
        .args(["-y", path.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(
        status.success(),
        "php-fpm did not start: {}",
        fs::read_to_string(Path::new(d).join("php-fpm.log")).unwrap_or_default()
    );
    let sock = Path::new(d).join("php-fpm.sock");
    let start = Instant::now();
    while !sock.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "php-fpm made no socket"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Path::new(d).join("php-fpm.pid")
}

/// nginx with one worker as www-data.
pub fn nginx(setup: Setup) -> WebServer {
    let dir = server_dir();
    let d = dir.path().display().to_string();
    let port = free_port();
    let www = dir.path().join("www");
    // php-fpm behind nginx: its status and ping pages open as installed,
    // denied when hardened.
    let helpers = vec![start_php_fpm(&d)];
    let fpm = |guard: &str| {
        format!(
            "location ~ ^/fpm-(status|ping)$ {{ {guard}include /etc/nginx/fastcgi.conf; fastcgi_pass unix:{d}/php-fpm.sock; }}\n    "
        )
    };
    let (tokens, extra) = match setup {
        Setup::AsInstalled => {
            fs::copy("/usr/share/nginx/html/index.html", www.join("index.html")).unwrap();
            plant_leftovers(&www);
            write(&dir.path().join("htpasswd"), "admin:$apr1$abc$def\n");
            (
                "on",
                format!(
                    "server_name 10.0.0.5;\n    server_name_in_redirect on;\n    \
add_header Access-Control-Allow-Origin * always;\n    add_header Access-Control-Allow-Credentials true always;\n    \
location /files/ {{ autoindex on; }}\n    location /pub/files/ {{ autoindex on; }}\n    \
location = /nginx_status {{ stub_status; }}\n    \
location /manager/ {{ auth_basic \"Tomcat Manager Application\"; auth_basic_user_file {d}/htpasswd; }}\n    {}",
                    fpm("")
                ),
            )
        }
        Setup::Hardened => {
            write(
                &www.join("index.html"),
                "<!doctype html><title>Site</title><p>Our own page.</p>\n",
            );
            (
                "off",
                format!(
                    "add_header X-Content-Type-Options nosniff always;\n    add_header Content-Security-Policy \"default-src 'self'; frame-ancestors 'self'\" always;\n    add_header X-Frame-Options SAMEORIGIN always;\n    add_header Referrer-Policy strict-origin-when-cross-origin always;\n    \
add_header Permissions-Policy \"camera=(), microphone=(), geolocation=()\" always;\n    add_header Cross-Origin-Opener-Policy same-origin always;\n    add_header Cross-Origin-Resource-Policy same-origin always;\n    \
location ~ /\\. {{ deny all; }}\n    {}",
                    fpm("allow 192.0.2.1; deny all; ")
                ),
            )
        }
    };
    let conf = format!(
        "user www-data;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
events {{ worker_connections 64; }}\n\
http {{\n  include /etc/nginx/mime.types;\n  access_log {d}/access.log;\n  server_tokens {tokens};\n\
  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
  include sites-enabled/*;\n}}\n"
    );
    // Debian's layout: the server block in sites-enabled/, included
    // relative to the main file's directory.
    write(
        &dir.path().join("sites-enabled/default"),
        &format!(
            "server {{\n    listen 127.0.0.1:{port};\n    root {www};\n    index index.html;\n    {extra}  }}\n",
            www = www.display(),
        ),
    );
    let conf_path = dir.path().join("nginx.conf");
    write(&conf_path, &conf);
    let status = std::process::Command::new("/usr/sbin/nginx")
        .args([
            "-c",
            conf_path.to_str().unwrap(),
            "-p",
            &d,
            "-e",
            &format!("{d}/error.log"),
        ])
        .status()
        .unwrap();
    assert!(
        status.success(),
        "nginx did not start: {}",
        fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
    );
    wait_listening(port, &dir.path().join("error.log"));
    let pidfile = dir.path().join("nginx.pid");
    WebServer {
        dir,
        port,
        pidfile,
        helpers,
    }
}

/// A loopback server that runs `serve` on every connection in its own
/// thread until dropped.
pub struct TestServer {
    /// Its port.
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Starts it.
    pub fn start(serve: impl Fn(TcpStream) + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let serve = Arc::new(serve);
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((s, _)) => {
                        s.set_nonblocking(false).unwrap();
                        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                        let serve = serve.clone();
                        std::thread::spawn(move || serve(s));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        TestServer {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads a request head from `s` (up to the blank line); its first line.
pub fn read_head(s: &mut impl Read) -> String {
    read_whole_head(s)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Reads a request head from `s` (up to the blank line), every line.
pub fn read_whole_head(s: &mut impl Read) -> String {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
        match s.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Writes a 200 reply with `body`.
pub fn reply_200(s: &mut impl Write, body: &str) {
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Runs the scan of `url` with `config` changes, returning the result and
/// its findings.
pub fn scan(config: ScanConfig) -> (BenchResult, Vec<Finding>) {
    let inventory = nodebench_machine::inventory::collect();
    let mut results = collect(&Scan { config }, &inventory, Cancel::new()).unwrap();
    assert_eq!(results.len(), 1);
    let r = results.remove(0);
    let f = findings(&r);
    (r, f)
}

/// The config of a default scan of `url`, at up to 1000 requests a
/// second rather than `--rate`'s default 50: every target here is a server
/// on loopback, and these tests check what a scan finds, not its pacing
/// (at 50 a second this binary's scans took two minutes of the CI's 30).
/// `nginx_as_installed_shows_every_planted_issue_within_ten_seconds` keeps
/// the defaults a user gets.
pub fn config(url: &str) -> ScanConfig {
    ScanConfig {
        url: url.into(),
        rate: 1000,
        ..ScanConfig::default()
    }
}

/// The ids of `findings`.
pub fn ids(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.id.as_str()).collect()
}
