//! The scan against real servers: Debian's apache2 and nginx as installed
//! (every planted issue found with its check id) and hardened (nothing
//! above low), `--local` on Apache's workers and document root, a server
//! answering 200 to everything (no default-content finding), TLS with a
//! self-signed expired certificate and TLS 1.0, and the one-line errors of
//! targets that are not HTTP servers. Scans run one at a time (the
//! servers' ports and processes are shared state).

use crate::common;

use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use common::{
    Setup, TestServer, apache, config, ids, nginx, read_head, reply_200, scan, servers_available,
};
use nodebench_core::bench::{BenchError, Cancel, collect};
use nodebench_core::finding::Severity;
use nodebench_core::names::scan::{label, metric, param};
use nodebench_scan::config::ScanConfig;
use nodebench_scan::scan::Scan;

/// One scan at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Asserts that every id of `want` is among `got`.
fn assert_found(got: &[&str], want: &[&str]) {
    let missing: Vec<&&str> = want.iter().filter(|w| !got.contains(w)).collect();
    assert!(missing.is_empty(), "missing {missing:?} in {got:?}");
}

#[test]
fn apache_as_installed_shows_every_planted_issue() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = apache(Setup::AsInstalled, "www-data");
    let (r, found) = scan(config(&server.url()));
    let got = ids(&found);
    assert_found(
        &got,
        &[
            "default-content.apache-default-page",
            "default-content.server-status",
            "default-content.cgi-printenv",
            "default-content.phpinfo",
            "default-content.backup-leftover",
            "default-content.git-repository",
            "default-content.env-file",
            "disclosure.server-version",
            "disclosure.error-page-version",
            "disclosure.directory-listing",
            "methods.trace",
            "headers.nosniff-missing",
            "headers.frame-protection-missing",
        ],
    );
    // .htaccess/.htpasswd are denied by the FilesMatch rule: no finding.
    assert!(!got.contains(&"default-content.htpasswd"), "{got:?}");
    let listing = found
        .iter()
        .find(|f| f.id == "disclosure.directory-listing")
        .unwrap();
    assert_eq!(listing.request, "GET /files/ HTTP/1.1");
    let server_version = found
        .iter()
        .find(|f| f.id == "disclosure.server-version")
        .unwrap();
    assert!(
        server_version.evidence.starts_with("Server: Apache/2."),
        "{server_version:?}"
    );
    let high = r
        .metric(metric::FINDINGS, &[(label::SEVERITY, "high")])
        .unwrap()
        .value;
    assert_eq!(
        high as usize,
        found
            .iter()
            .filter(|f| f.severity == Severity::High)
            .count()
    );
    assert!(high >= 2.0, "the .git and .env findings are high");
}

#[test]
fn apache_hardened_has_nothing_above_low() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = apache(Setup::Hardened, "www-data");
    let (_, found) = scan(config(&server.url()));
    let above: Vec<_> = found
        .iter()
        .filter(|f| f.severity.rank() > Severity::Low.rank())
        .collect();
    assert!(above.is_empty(), "{above:#?}");
    assert!(
        !ids(&found).contains(&"disclosure.server-version"),
        "{found:#?}"
    );
}

#[test]
fn nginx_as_installed_shows_every_planted_issue_within_ten_seconds() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = nginx(Setup::AsInstalled);
    let start = Instant::now();
    // The defaults a user gets (`config` raises the rate).
    let (r, found) = scan(ScanConfig {
        url: server.url(),
        ..ScanConfig::default()
    });
    let took = start.elapsed();
    let got = ids(&found);
    assert_found(
        &got,
        &[
            "default-content.nginx-default-page",
            "default-content.nginx-status",
            "default-content.git-repository",
            "default-content.env-file",
            "default-content.backup-leftover",
            "disclosure.server-version",
            "disclosure.error-page-version",
            "disclosure.directory-listing",
        ],
    );
    assert!(
        !got.contains(&"methods.trace"),
        "nginx refuses TRACE: {got:?}"
    );
    let requests = r.metric(metric::REQUESTS, &[]).unwrap().value;
    eprintln!(
        "default check set against local nginx: {requests} requests in {:.2} s",
        took.as_secs_f64()
    );
    assert!(
        took.as_secs_f64() < 10.0,
        "{took:?} for {requests} requests"
    );
    assert!(requests > 30.0, "{requests}");
}

#[test]
fn local_checks_on_nginx_read_its_worker_and_the_root_of_its_config() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = nginx(Setup::AsInstalled);
    let (r, found) = scan(ScanConfig {
        local: true,
        ..config(&server.url())
    });
    let workers = r.param(param::WORKERS).unwrap().to_string();
    assert!(
        workers.contains("nginx") && workers.contains("www-data:www-data"),
        "{workers}"
    );
    assert!(
        !ids(&found).iter().any(|i| i.starts_with("local.worker")),
        "{found:#?}"
    );
    let on_disk = found
        .iter()
        .find(|f| f.id == "local.default-content-on-disk")
        .unwrap();
    for planted in ["/www/.git/HEAD", "/www/.env", "/www/index.php~"] {
        assert!(
            on_disk.evidence.contains(planted),
            "{planted} in {on_disk:?}"
        );
    }
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn nginx_hardened_has_nothing_above_low() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = nginx(Setup::Hardened);
    let (_, found) = scan(config(&server.url()));
    let above: Vec<_> = found
        .iter()
        .filter(|f| f.severity.rank() > Severity::Low.rank())
        .collect();
    assert!(above.is_empty(), "{above:#?}");
}

#[test]
fn local_checks_read_the_workers_user_and_the_document_root() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    // www-data: no user finding; the workers are listed.
    let server = apache(Setup::Hardened, "www-data");
    let (r, found) = scan(ScanConfig {
        local: true,
        ..config(&server.url())
    });
    let got = ids(&found);
    assert!(
        !got.iter().any(|i| i.starts_with("local.worker")),
        "{found:#?}"
    );
    let workers = r.param(param::WORKERS).unwrap().to_string();
    assert!(
        workers.contains("apache2") && workers.contains("www-data:www-data"),
        "{workers}"
    );
    assert!(!got.contains(&"local.docroot-world-writable"), "{got:?}");
    drop(server);

    // the AMP-stack study's case: User nobody; a world-writable upload directory
    // and a readable .htpasswd planted in the document root.
    let server = apache(Setup::Hardened, "nobody");
    let www = server.docroot();
    common::write(&www.join("uploads/x.txt"), "x");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(www.join("uploads"), std::fs::Permissions::from_mode(0o777)).unwrap();
    common::write(&www.join(".htpasswd"), "admin:$apr1$abc$def\n");
    std::fs::set_permissions(
        www.join(".htpasswd"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let (_, found) = scan(nodebench_scan::config::ScanConfig {
        local: true,
        ..config(&server.url())
    });
    let got = ids(&found);
    assert_found(
        &got,
        &[
            "local.worker-nobody",
            "local.docroot-world-writable",
            "local.secret-readable",
        ],
    );
    let nobody = found
        .iter()
        .find(|f| f.id == "local.worker-nobody")
        .unwrap();
    assert!(
        nobody.evidence.contains("runs as nobody:nogroup"),
        "{nobody:?}"
    );
    let writable = found
        .iter()
        .find(|f| f.id == "local.docroot-world-writable")
        .unwrap();
    assert!(
        writable.evidence.contains("uploads (mode 0777)"),
        "{writable:?}"
    );
    let secret = found
        .iter()
        .find(|f| f.id == "local.secret-readable")
        .unwrap();
    assert!(secret.request.ends_with("/www/.htpasswd"), "{secret:?}");
}

#[test]
fn a_server_answering_200_to_everything_gives_no_default_content_finding() {
    let _s = serial();
    let server = TestServer::start(|mut s| {
        read_head(&mut s);
        reply_200(&mut s, "<html><body>Welcome to our shop</body></html>\n");
    });
    let (r, found) = scan(config(&format!("http://127.0.0.1:{}", server.port)));
    let content: Vec<_> = found
        .iter()
        .filter(|f| f.id.starts_with("default-content.") || f.id == "disclosure.directory-listing")
        .collect();
    assert!(content.is_empty(), "{content:#?}");
    assert!(
        r.param(param::NOT_FOUND)
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("200 (")
    );
    // Its missing headers are still reported.
    assert!(
        ids(&found).contains(&"headers.nosniff-missing"),
        "{found:#?}"
    );
}

#[test]
fn targets_that_are_not_http_servers_get_one_line() {
    let _s = serial();
    let run = |url: String| {
        let inventory = nodebench_machine::inventory::collect();
        match collect(
            &Scan {
                config: config(&url),
            },
            &inventory,
            Cancel::new(),
        ) {
            Err(BenchError::System(e)) => e,
            other => panic!("{url}: {other:?}"),
        }
    };
    let closed = common::free_port();
    let e = run(format!("http://127.0.0.1:{closed}"));
    assert!(
        e.starts_with(&format!("cannot connect to 127.0.0.1:{closed}: ")),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");

    let ssh = TestServer::start(|mut s| {
        let _ = s.write_all(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");
    });
    let e = run(format!("http://127.0.0.1:{}", ssh.port));
    assert_eq!(
        e,
        format!(
            "127.0.0.1:{} did not answer HTTP (it sent 'SSH-2.0-OpenSSH_9.2p1 Debian-2..')",
            ssh.port
        )
    );

    let tls = tls_server::start(tls_server::certificate(-30, -1), false);
    let e = run(format!("http://127.0.0.1:{}", tls.port));
    assert_eq!(
        e,
        format!(
            "127.0.0.1:{p} speaks TLS, not plain HTTP: use https://127.0.0.1:{p}",
            p = tls.port
        )
    );
}

#[test]
fn ssl3_is_found_by_a_raw_client_hello_against_a_stub_that_answers_it() {
    let _s = serial();
    // Debian's OpenSSL cannot offer SSL 3.0: the stub answers an SSL 3.0
    // ClientHello with an SSL 3.0 ServerHello and hands every other
    // connection to a modern OpenSSL server.
    let server = tls_server::start_ssl3_stub(tls_server::certificate(-1, 300));
    let (_, found) = scan(config(&format!("https://127.0.0.1:{}", server.port)));
    let ssl3 = found
        .iter()
        .find(|f| f.id == "tls.ssl3")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_eq!(
        ssl3.evidence,
        "accepted: ServerHello for SSL 3.0 with suite 0x002f"
    );
    assert!(!ids(&found).contains(&"tls.tls1-0"), "{found:#?}");
}

#[test]
fn tls_small_key_sha1_rsa_key_exchange_small_dh_and_plain_http() {
    let _s = serial();
    // A 1024-bit key signed with SHA-1, every suite at security level 0
    // (RSA key exchange among them), a 1024-bit DH group; plain HTTP on
    // another port answering 200.
    let server = tls_server::start_weak(tls_server::weak_certificate());
    let http = TestServer::start(|mut s| {
        read_head(&mut s);
        reply_200(&mut s, "plain\n");
    });
    let (_, found) = scan(nodebench_scan::config::ScanConfig {
        http_port: http.port,
        ..config(&format!("https://127.0.0.1:{}", server.port))
    });
    let got = ids(&found);
    assert_found(
        &got,
        &[
            "tls.cert-weak-key",
            "tls.cert-sha1",
            "tls.no-forward-secrecy",
            "tls.dh-weak",
            "tls.http-no-redirect",
        ],
    );
    let by = |id: &str| found.iter().find(|f| f.id == id).unwrap();
    assert!(
        by("tls.cert-weak-key")
            .evidence
            .starts_with("RSA/DSA key of 1024 bits"),
        "{:?}",
        by("tls.cert-weak-key")
    );
    assert!(
        by("tls.dh-weak")
            .evidence
            .ends_with("DH group of 1024 bits")
    );
    assert_eq!(
        by("tls.http-no-redirect").request,
        format!("GET / HTTP/1.1 on http://127.0.0.1:{}", http.port)
    );

    // A 2048-bit SHA-256 certificate, TLS 1.2+ with the modern suites, and
    // plain HTTP redirecting to https: none of these.
    let server = tls_server::start(tls_server::certificate(-1, 300), false);
    let https = format!("https://127.0.0.1:{}", server.port);
    let to = https.clone();
    let http = TestServer::start(move |mut s| {
        read_head(&mut s);
        let _ = write!(
            s,
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {to}/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
    });
    let (_, found) = scan(nodebench_scan::config::ScanConfig {
        http_port: http.port,
        ..config(&https)
    });
    let got = ids(&found);
    for id in [
        "tls.ssl3",
        "tls.cert-weak-key",
        "tls.cert-sha1",
        "tls.no-forward-secrecy",
        "tls.dh-weak",
        "tls.http-no-redirect",
    ] {
        assert!(!got.contains(&id), "{id} in {got:?}");
    }
}

#[test]
fn tls_self_signed_expired_certificate_and_tls_1_0() {
    let _s = serial();
    let server = tls_server::start(tls_server::certificate(-30, -1), true);
    let (r, found) = scan(config(&format!("https://127.0.0.1:{}", server.port)));
    let got = ids(&found);
    assert_found(
        &got,
        &[
            "tls.cert-expired",
            "tls.cert-self-signed",
            "tls.cert-hostname",
            "headers.hsts-missing",
        ],
    );
    let expired = found.iter().find(|f| f.id == "tls.cert-expired").unwrap();
    assert!(
        expired
            .evidence
            .contains("0 subject: CN=test.invalid | issuer: CN=test.invalid"),
        "{expired:?}"
    );
    assert_eq!(r.metric(metric::TLS_HANDSHAKES, &[]).unwrap().value, 7.0);
    assert!(!got.contains(&"tls.ssl3"), "OpenSSL 3 cannot speak SSL 3.0");
    // The built-in OpenSSL still speaks TLS 1.0 and 1.1 at security level 0.
    assert_found(&got, &["tls.tls1-0", "tls.tls1-1"]);

    // A certificate for 127.0.0.1 valid for 10 more days, TLS 1.2 and up:
    // expiring and self-signed, neither expired nor TLS 1.0.
    let server = tls_server::start(tls_server::certificate(-1, 10), false);
    let (_, found) = scan(config(&format!("https://127.0.0.1:{}", server.port)));
    let got = ids(&found);
    assert_found(&got, &["tls.cert-expiring", "tls.cert-self-signed"]);
    assert!(
        !got.contains(&"tls.cert-expired") && !got.contains(&"tls.tls1-0"),
        "{got:?}"
    );
}

/// A TLS test server with a certificate made here.
mod tls_server {
    use openssl::asn1::Asn1Time;
    use openssl::bn::{BigNum, MsbOption};
    use openssl::hash::MessageDigest;
    use openssl::pkey::{PKey, Private};
    use openssl::ssl::{SslAcceptor, SslMethod, SslVersion};
    use openssl::x509::extension::SubjectAlternativeName;
    use openssl::x509::{X509, X509NameBuilder};

    use super::common::{TestServer, read_head, reply_200};

    /// A self-signed certificate valid from `from_days` to `to_days` from
    /// now; CN test.invalid, and for a certificate still valid the
    /// subjectAltName 127.0.0.1.
    pub fn certificate(from_days: i64, to_days: i64) -> (X509, PKey<Private>) {
        let key = PKey::from_rsa(openssl::rsa::Rsa::generate(2048).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "test.invalid").unwrap();
        let name = name.build();
        let mut b = X509::builder().unwrap();
        b.set_version(2).unwrap();
        let mut serial = BigNum::new().unwrap();
        serial.rand(64, MsbOption::MAYBE_ZERO, false).unwrap();
        b.set_serial_number(&serial.to_asn1_integer().unwrap())
            .unwrap();
        b.set_subject_name(&name).unwrap();
        b.set_issuer_name(&name).unwrap();
        b.set_pubkey(&key).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        b.set_not_before(&Asn1Time::from_unix(now + from_days * 86400).unwrap())
            .unwrap();
        b.set_not_after(&Asn1Time::from_unix(now + to_days * 86400).unwrap())
            .unwrap();
        if to_days > 0 {
            let san = SubjectAlternativeName::new()
                .ip("127.0.0.1")
                .build(&b.x509v3_context(None, None))
                .unwrap();
            b.append_extension(san).unwrap();
        }
        b.sign(&key, MessageDigest::sha256()).unwrap();
        (b.build(), key)
    }

    /// A self-signed certificate for 127.0.0.1 with a 1024-bit RSA key,
    /// signed with SHA-1.
    pub fn weak_certificate() -> (X509, PKey<Private>) {
        let key = PKey::from_rsa(openssl::rsa::Rsa::generate(1024).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "weak.invalid").unwrap();
        let name = name.build();
        let mut b = X509::builder().unwrap();
        b.set_version(2).unwrap();
        b.set_subject_name(&name).unwrap();
        b.set_issuer_name(&name).unwrap();
        b.set_pubkey(&key).unwrap();
        b.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        b.set_not_after(&Asn1Time::days_from_now(300).unwrap())
            .unwrap();
        let san = SubjectAlternativeName::new()
            .ip("127.0.0.1")
            .build(&b.x509v3_context(None, None))
            .unwrap();
        b.append_extension(san).unwrap();
        b.sign(&key, MessageDigest::sha1()).unwrap();
        (b.build(), key)
    }

    /// Serves `cert` at security level 0 with every suite, RSA key
    /// exchange and DHE with a 1024-bit group among them.
    pub fn start_weak((cert, key): (X509, PKey<Private>)) -> TestServer {
        let mut b = SslAcceptor::mozilla_intermediate(SslMethod::tls_server()).unwrap();
        b.set_cipher_list("ALL:@SECLEVEL=0").unwrap();
        b.set_tmp_dh(&openssl::dh::Dh::get_1024_160().unwrap())
            .unwrap();
        b.set_certificate(&cert).unwrap();
        b.set_private_key(&key).unwrap();
        let acceptor = b.build();
        TestServer::start(move |s| {
            if let Ok(mut tls) = acceptor.accept(s) {
                read_head(&mut tls);
                reply_200(&mut tls, "ok\n");
                let _ = tls.shutdown();
            }
        })
    }

    /// Answers an SSL 3.0 ClientHello with an SSL 3.0 ServerHello
    /// (suite 0x002f) and closes; serves every other connection as
    /// [`start`] does with TLS 1.2 and up.
    pub fn start_ssl3_stub((cert, key): (X509, PKey<Private>)) -> TestServer {
        let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).unwrap();
        b.set_certificate(&cert).unwrap();
        b.set_private_key(&key).unwrap();
        b.set_min_proto_version(Some(SslVersion::TLS1_2)).unwrap();
        let acceptor = b.build();
        TestServer::start(move |mut s| {
            let mut head = [0u8; 11];
            let start = std::time::Instant::now();
            while s.peek(&mut head).unwrap_or(0) < 11 && start.elapsed().as_secs() < 5 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            if head[0] == 0x16 && head[9..11] == [3, 0] {
                use std::io::{Read, Write};
                let mut hello = [0u8; 512];
                let _ = s.read(&mut hello);
                let mut body = vec![3u8, 0];
                body.extend([7u8; 32]);
                body.extend([0, 0x00, 0x2f, 0]);
                let mut hs = vec![2u8, 0, 0, body.len() as u8];
                hs.extend(body);
                let mut record = vec![0x16, 3, 0, 0, hs.len() as u8];
                record.extend(hs);
                let _ = s.write_all(&record);
                return;
            }
            if let Ok(mut tls) = acceptor.accept(s) {
                read_head(&mut tls);
                reply_200(&mut tls, "ok\n");
                let _ = tls.shutdown();
            }
        })
    }

    /// Serves `cert` (TLS 1.0 and up with `old`, else 1.2 and up),
    /// answering 200 to every request.
    pub fn start((cert, key): (X509, PKey<Private>), old: bool) -> TestServer {
        // Mozilla's old intermediate profile still allows TLS 1.0.
        let mut b = if old {
            SslAcceptor::mozilla_intermediate(SslMethod::tls_server()).unwrap()
        } else {
            SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).unwrap()
        };
        b.set_certificate(&cert).unwrap();
        b.set_private_key(&key).unwrap();
        if old {
            b.set_cipher_list("ALL:@SECLEVEL=0").unwrap();
            b.set_min_proto_version(Some(SslVersion::TLS1)).unwrap();
        } else {
            b.set_min_proto_version(Some(SslVersion::TLS1_2)).unwrap();
        }
        let acceptor = b.build();
        TestServer::start(move |s| {
            if let Ok(mut tls) = acceptor.accept(s) {
                read_head(&mut tls);
                reply_200(&mut tls, "ok\n");
                let _ = tls.shutdown();
            }
        })
    }
}
