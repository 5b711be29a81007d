//! `--local` on Debian's layouts: the stock /etc/apache2 and /etc/nginx
//! configurations name /var/www/html through their includes; live servers
//! whose sites sit in sites-enabled/ get their document roots found without
//! --docroot, the secret files and inline secrets of every configuration
//! file read, and what the workers own or can write in the document root.

use crate::common;

use std::os::unix::fs::{PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use common::{Setup, apache, config, ids, nginx, scan, servers_available};
use nodebench_core::names::scan::param;
use nodebench_scan::config::ScanConfig;
use nodebench_scan::confs::{self, Server};

/// One scan at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// www-data's uid and gid from /etc/passwd.
fn www_data() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let f: Vec<&str> = passwd
        .lines()
        .find(|l| l.starts_with("www-data:"))
        .unwrap()
        .split(':')
        .collect();
    (f[2].parse().unwrap(), f[3].parse().unwrap())
}

#[test]
fn the_stock_debian_configurations_name_var_www_html() {
    if !servers_available() {
        return;
    }
    let www = PathBuf::from("/var/www/html");
    let (files, problems) = confs::read_all(
        Path::new("/etc/apache2/apache2.conf"),
        Server::Apache,
        &confs::apache_root("", Some(Path::new("/etc/apache2"))),
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert!(
        files
            .iter()
            .any(|f| f.path.starts_with("/etc/apache2/sites-enabled")),
        "{:?}",
        files.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
    assert!(confs::docroots(&files).contains(&www), "apache2");
    let (files, problems) = confs::read_all(
        Path::new("/etc/nginx/nginx.conf"),
        Server::Nginx,
        Path::new("/etc/nginx"),
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert!(confs::docroots(&files).contains(&www), "nginx");
}

#[test]
fn apache_as_installed_local_finds_the_root_secrets_and_worker_writable_content() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = apache(Setup::AsInstalled, "www-data");
    let www = server.docroot();
    let (uid, gid) = www_data();
    common::write(&www.join("uploads/owned.php"), "<?php ?>\n");
    chown(www.join("uploads/owned.php"), Some(uid), Some(gid)).unwrap();
    common::write(&www.join("shared/x.txt"), "x\n");
    chown(www.join("shared"), Some(0), Some(gid)).unwrap();
    std::fs::set_permissions(www.join("shared"), std::fs::Permissions::from_mode(0o775)).unwrap();
    let (r, found) = scan(ScanConfig {
        local: true,
        ..config(&server.url())
    });
    let looked = r.param(param::LOOKED_AT).unwrap().to_string();
    assert!(
        looked.contains(&format!("docroot {}", www.display())),
        "the root named in sites-enabled/: {looked}"
    );
    assert!(
        looked.contains("sites-enabled/000-default.conf"),
        "{looked}"
    );
    let by = |id: &str| {
        found
            .iter()
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("no {id} in {:?}", ids(&found)))
    };
    let writable = by("local.docroot-worker-writable");
    assert!(
        writable
            .evidence
            .contains("/www/uploads/owned.php (owned by www-data:www-data, mode 0644)"),
        "{writable:?}"
    );
    assert!(
        writable
            .evidence
            .contains("/www/shared (group-writable, root:www-data, mode 0775)"),
        "{writable:?}"
    );
    let secret = found
        .iter()
        .find(|f| f.id == "local.secret-readable" && f.request.ends_with("/htpasswd"))
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(
        secret
            .evidence
            .starts_with("mode 0644, owner root, named by ")
            && secret.evidence.contains("apache2.conf:"),
        "{secret:?}"
    );
    let inline = by("local.config-secret-readable");
    assert!(
        inline.request.ends_with("sites-enabled/000-default.conf"),
        "{inline:?}"
    );
    assert_eq!(
        inline.evidence,
        "mode 0644, readable by every user; line 2: SetEnv DB_PASSWORD"
    );
    assert!(!inline.evidence.contains("secret"), "the value stays out");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn hardened_servers_local_find_their_roots_and_none_of_these() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    for (name, server) in [
        ("apache2", apache(Setup::Hardened, "www-data")),
        ("nginx", nginx(Setup::Hardened)),
    ] {
        let (r, found) = scan(ScanConfig {
            local: true,
            ..config(&server.url())
        });
        let looked = r.param(param::LOOKED_AT).unwrap().to_string();
        assert!(
            looked.contains(&format!("docroot {}", server.docroot().display())),
            "{name}: {looked}"
        );
        let got = ids(&found);
        for id in [
            "local.docroot-worker-writable",
            "local.config-secret-readable",
            "local.secret-readable",
            "local.docroot-world-writable",
        ] {
            assert!(!got.contains(&id), "{name}: {id} in {found:#?}");
        }
        assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
    }
}
