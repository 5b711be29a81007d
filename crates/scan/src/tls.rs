//! The TLS checks of https targets, by OpenSSL handshakes: TLS 1.0 and 1.1
//! offered alone (at security level 0, so this side does not refuse them
//! first), weak cipher suites offered alone, and the certificate the server
//! sends (dates, self-signed, the host name, the chain against the system's
//! trust store, RSA keys under 2048 bits, SHA-1 signatures), with the chain
//! shown as evidence; SSL 3.0 by a raw ClientHello; RSA key exchange (no
//! forward secrecy) and DHE offered
//! alone (the server's DH group size); and whether plain HTTP on
//! `--http-port` redirects to https.

use nodebench_core::bench::BenchError;
use std::net::IpAddr;

use nodebench_core::finding::Finding;
use openssl::asn1::Asn1Time;
use openssl::nid::Nid;
use openssl::pkey::Id;
use openssl::ssl::{SslConnector, SslFiletype, SslMethod, SslStream, SslVerifyMode, SslVersion};
use openssl::stack::Stack;
use openssl::x509::store::{X509Lookup, X509StoreBuilder};
use openssl::x509::{X509, X509NameRef, X509Ref, X509StoreContext};

use crate::checks::Catalog;
use crate::client::Client;

/// Cipher suites RFC 7465 and NIST SP 800-131A rule out, in OpenSSL's
/// cipher-list words: NULL encryption, anonymous key exchange, export,
/// RC4, single DES and 3DES, MD5 MACs.
const WEAK_CIPHERS: &str = "eNULL:aNULL:EXPORT:LOW:RC4:DES:3DES:MD5:@SECLEVEL=0";

/// A certificate expiring within this many days is a finding.
pub const EXPIRY_WARNING_DAYS: i32 = 30;

/// What the TLS checks found.
#[derive(Debug, Default)]
pub struct TlsOutcome {
    /// The findings.
    pub findings: Vec<Finding>,
    /// Handshakes made.
    pub handshakes: u64,
    /// Why a check could not judge (a connection refused).
    pub warnings: Vec<String>,
}

/// One handshake with the given protocol range and cipher list; the
/// stream, or why the handshake failed.
fn handshake(
    client: &Client,
    versions: Option<(SslVersion, SslVersion)>,
    ciphers: Option<&str>,
) -> Result<Result<SslStream<std::net::TcpStream>, BenchError>, BenchError> {
    let mut b = SslConnector::builder(SslMethod::tls_client())
        .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
    b.set_verify(SslVerifyMode::NONE);
    if let Some((min, max)) = versions {
        b.set_min_proto_version(Some(min))
            .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
        b.set_max_proto_version(Some(max))
            .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
        b.set_cipher_list("ALL:@SECLEVEL=0")
            .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
    }
    if let Some(list) = ciphers {
        // This OpenSSL may know none of the weak suites (then there is
        // nothing to offer, and nothing to find).
        if b.set_cipher_list(list).is_err() {
            return Ok(Err(BenchError::System(
                "no weak suite in this OpenSSL".into(),
            )));
        }
        b.set_max_proto_version(Some(SslVersion::TLS1_2))
            .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
    }
    if versions.is_none() && ciphers.is_none() {
        // Small keys and old signatures are what the checks look for: do
        // not refuse them first.
        b.set_cipher_list("DEFAULT:@SECLEVEL=0")
            .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
    }
    let connector = b.build();
    let tcp = client
        .connect()
        .map_err(|e| e.to_string())
        .map_err(BenchError::System)?;
    let target = client.target();
    let mut cfg = connector
        .configure()
        .map_err(|e| BenchError::System(format!("TLS setup: {e}")))?;
    cfg.set_verify_hostname(false);
    cfg.set_use_server_name_indication(target.host.parse::<IpAddr>().is_err());
    Ok(cfg
        .connect(&target.host, tcp)
        .map_err(|e| BenchError::System(e.to_string())))
}

/// A name as `CN=x, O=y`.
fn name_text(name: &X509NameRef) -> String {
    name.entries()
        .map(|e| {
            let key = e.object().nid().short_name().unwrap_or("?");
            let value = e.data().to_string().unwrap_or_else(|_| "?".into());
            format!("{key}={value}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The chain as evidence: one line per certificate.
fn chain_text(chain: &[X509]) -> String {
    chain
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{i} subject: {} | issuer: {} | valid {} to {}",
                name_text(c.subject_name()),
                name_text(c.issuer_name()),
                c.not_before(),
                c.not_after()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// True when `cert` names itself as issuer and its signature verifies with
/// its own key.
fn self_signed(cert: &X509Ref) -> bool {
    let same = cert
        .subject_name()
        .try_cmp(cert.issuer_name())
        .is_ok_and(|o| o.is_eq());
    same && cert
        .public_key()
        .and_then(|k| cert.verify(&k))
        .unwrap_or(false)
}

/// True when `cert` names `host`: a subjectAltName DNS name (with a `*.`
/// wildcard for one label) or IP address; the subject's CN only when there
/// is no subjectAltName (RFC 6125).
pub fn names_host(cert: &X509Ref, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let ip: Option<IpAddr> = host.parse().ok();
    let dns_matches = |pattern: &str| {
        let pattern = pattern.trim_end_matches('.').to_ascii_lowercase();
        match pattern.strip_prefix("*.") {
            Some(rest) => host
                .split_once('.')
                .is_some_and(|(label, domain)| !label.is_empty() && domain == rest),
            None => pattern == host,
        }
    };
    if let Some(sans) = cert.subject_alt_names() {
        return sans.iter().any(|n| match (ip, n.ipaddress(), n.dnsname()) {
            (Some(IpAddr::V4(a)), Some(b), _) => b == a.octets(),
            (Some(IpAddr::V6(a)), Some(b), _) => b == a.octets(),
            (None, _, Some(d)) => dns_matches(d),
            _ => false,
        });
    }
    cert.subject_name()
        .entries_by_nid(openssl::nid::Nid::COMMONNAME)
        .filter_map(|e| e.data().to_string().ok())
        .any(|cn| ip.is_none() && dns_matches(&cn))
}

/// The system trust store's verdict on `chain` (leaf first): `None` when
/// trusted, else OpenSSL's reason. The OpenSSL built into the binary does
/// not know where this system keeps its CA certificates, so they are
/// found as curl and native-tls find them (`SSL_CERT_FILE`/`SSL_CERT_DIR`,
/// then the distributions' usual places).
fn untrusted(chain: &[X509]) -> Option<String> {
    let run = || -> Result<Option<String>, openssl::error::ErrorStack> {
        let mut b = X509StoreBuilder::new()?;
        b.set_default_paths()?;
        let system = openssl_probe::probe();
        if let Some(file) = &system.cert_file {
            b.add_lookup(X509Lookup::file())?
                .load_cert_file(file, SslFiletype::PEM)?;
        }
        for dir in &system.cert_dir {
            if let Some(dir) = dir.to_str() {
                b.add_lookup(X509Lookup::hash_dir())?
                    .add_dir(dir, SslFiletype::PEM)?;
            }
        }
        let store = b.build();
        let mut rest = Stack::new()?;
        for c in &chain[1..] {
            rest.push(c.clone())?;
        }
        let mut ctx = X509StoreContext::new()?;
        ctx.init(&store, &chain[0], &rest, |c| {
            let ok = c.verify_cert()?;
            Ok((!ok).then(|| c.error().error_string().to_string()))
        })
    };
    run().unwrap_or_else(|e| Some(e.to_string()))
}

/// True when the client's port completes a TLS handshake (a TLS port
/// given as an http:// URL).
pub fn speaks_tls(client: &Client) -> bool {
    matches!(handshake(client, None, None), Ok(Ok(_)))
}

/// Runs the TLS checks against the client's https target.
pub fn check(client: &Client, catalog: &Catalog) -> TlsOutcome {
    let mut out = TlsOutcome::default();
    let target = client.target().clone();
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
    // The certificate, from a default handshake.
    out.handshakes += 1;
    let chain: Vec<X509> = match handshake(client, None, None) {
        Ok(Ok(stream)) => stream
            .ssl()
            .peer_cert_chain()
            .map(|s| s.iter().map(|c| c.to_owned()).collect())
            .unwrap_or_default(),
        Ok(Err(e)) => {
            out.warnings.push(format!(
                "TLS: handshake with {} failed ({e}): no certificate checks",
                target.authority()
            ));
            Vec::new()
        }
        Err(e) => {
            out.warnings.push(format!("TLS: {e}"));
            return out;
        }
    };
    if let Some(leaf) = chain.first() {
        let shown = chain_text(&chain);
        let request = format!("TLS handshake with {}", target.authority());
        let now = Asn1Time::days_from_now(0).ok();
        let until_expiry = now.as_ref().and_then(|n| n.diff(leaf.not_after()).ok());
        let until_valid = now.as_ref().and_then(|n| n.diff(leaf.not_before()).ok());
        let expired = until_expiry
            .as_ref()
            .is_some_and(|d| d.days < 0 || (d.days == 0 && d.secs < 0));
        let not_yet = until_valid
            .as_ref()
            .is_some_and(|d| d.days > 0 || (d.days == 0 && d.secs > 0));
        if expired || not_yet {
            let why = if expired {
                format!("expired {} (not after)", leaf.not_after())
            } else {
                format!("not valid before {}", leaf.not_before())
            };
            out.findings.extend(finding(
                "cert-expired",
                request.clone(),
                format!("{why}\n{shown}"),
            ));
        } else if let Some(d) = until_expiry.filter(|d| d.days < EXPIRY_WARNING_DAYS) {
            out.findings.extend(finding(
                "cert-expiring",
                request.clone(),
                format!("expires {} (in {} days)\n{shown}", leaf.not_after(), d.days),
            ));
        }
        let selfsigned = chain.len() == 1 && self_signed(leaf);
        if selfsigned {
            out.findings.extend(finding(
                "cert-self-signed",
                request.clone(),
                format!("issuer = subject, signed by its own key\n{shown}"),
            ));
        }
        if !names_host(leaf, &target.host) {
            let sans: Vec<String> = leaf
                .subject_alt_names()
                .map(|s| {
                    s.iter()
                        .filter_map(|n| {
                            n.dnsname().map(str::to_string).or_else(|| {
                                n.ipaddress().map(|b| match b.len() {
                                    4 => IpAddr::from(<[u8; 4]>::try_from(b).unwrap_or_default())
                                        .to_string(),
                                    16 => IpAddr::from(<[u8; 16]>::try_from(b).unwrap_or_default())
                                        .to_string(),
                                    _ => "?".into(),
                                })
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.findings.extend(finding(
                "cert-hostname",
                request.clone(),
                format!(
                    "host '{}' not in subjectAltName [{}]\n{shown}",
                    target.host,
                    sans.join(", ")
                ),
            ));
        }
        if !selfsigned && let Some(why) = untrusted(&chain) {
            out.findings.extend(finding(
                "cert-untrusted",
                request,
                format!("{why}\n{shown}"),
            ));
        }
    }
    // Key size and SHA-1 signatures of the chain the server sent.
    let request = format!("TLS handshake with {}", target.authority());
    if let Some(leaf) = chain.first()
        && let Ok(key) = leaf.public_key()
    {
        let (kind, small) = match key.id() {
            Id::RSA | Id::DSA => ("RSA/DSA", key.bits() < 2048),
            Id::EC => ("EC", key.bits() < 224),
            _ => ("", false),
        };
        if small {
            out.findings.extend(finding(
                "cert-weak-key",
                request.clone(),
                format!(
                    "{kind} key of {} bits: {}",
                    key.bits(),
                    name_text(leaf.subject_name())
                ),
            ));
        }
    }
    let sha1: Vec<String> = chain
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            // A self-signed root's own signature is not checked by anyone.
            (*i == 0 || !self_signed(c))
                && matches!(
                    c.signature_algorithm().object().nid(),
                    Nid::SHA1WITHRSAENCRYPTION
                        | Nid::ECDSA_WITH_SHA1
                        | Nid::DSAWITHSHA1
                        | Nid::SHA1WITHRSA
                )
        })
        .map(|(i, c)| format!("{i} {} signed with SHA-1", name_text(c.subject_name())))
        .collect();
    if !sha1.is_empty() {
        out.findings
            .extend(finding("cert-sha1", request.clone(), sha1.join("\n")));
    }
    // Key exchange without forward secrecy (RSA key transport) and
    // finite-field DH groups, each offered alone up to TLS 1.2.
    for (probe, list) in [
        ("no-forward-secrecy", "kRSA:@SECLEVEL=0"),
        ("dh-weak", "kDHE:@SECLEVEL=0"),
    ] {
        out.handshakes += 1;
        match handshake(client, None, Some(list)) {
            Ok(Ok(stream)) => {
                let ssl = stream.ssl();
                let cipher = ssl.current_cipher().map(|c| c.name()).unwrap_or("?");
                let what = format!("accepted: {cipher} ({})", ssl.version_str());
                if probe == "no-forward-secrecy" {
                    out.findings.extend(finding(
                        probe,
                        format!(
                            "handshake offering only RSA key exchange with {}",
                            target.authority()
                        ),
                        what,
                    ));
                } else if let Ok(k) = ssl.peer_tmp_key()
                    && k.id() == Id::DH
                    && k.bits() < 2048
                {
                    out.findings.extend(finding(
                        probe,
                        format!(
                            "handshake offering only DHE suites with {}",
                            target.authority()
                        ),
                        format!("{what}; DH group of {} bits", k.bits()),
                    ));
                }
            }
            Ok(Err(_)) => {}
            Err(e) => out.warnings.push(format!("TLS: {e}")),
        }
    }
    // SSL 3.0 by a raw ClientHello (no OpenSSL here speaks it).
    out.handshakes += 1;
    match ssl3_accepted(client) {
        Ok(Some(cipher)) => out.findings.extend(finding(
            "ssl-3",
            format!("SSL 3.0 ClientHello to {}", target.authority()),
            format!("accepted: ServerHello for SSL 3.0 with suite 0x{cipher:04x}"),
        )),
        Ok(None) => {}
        Err(e) => out.warnings.push(format!("TLS: {e}")),
    }
    // Protocol versions offered alone.
    for (probe, version, label) in [
        ("tls-1.0", SslVersion::TLS1, "TLS 1.0"),
        ("tls-1.1", SslVersion::TLS1_1, "TLS 1.1"),
    ] {
        out.handshakes += 1;
        match handshake(client, Some((version, version)), None) {
            Ok(Ok(stream)) => {
                let cipher = stream
                    .ssl()
                    .current_cipher()
                    .map(|c| c.name())
                    .unwrap_or("?");
                out.findings.extend(finding(
                    probe,
                    format!("{label}-only handshake with {}", target.authority()),
                    format!("accepted: {} with {cipher}", stream.ssl().version_str()),
                ));
            }
            Ok(Err(_)) => {}
            Err(e) => out.warnings.push(format!("TLS: {e}")),
        }
    }
    out.handshakes += 1;
    match handshake(client, None, Some(WEAK_CIPHERS)) {
        Ok(Ok(stream)) => {
            let cipher = stream
                .ssl()
                .current_cipher()
                .map(|c| c.name())
                .unwrap_or("?");
            out.findings.extend(finding(
                "tls-weak-cipher",
                format!(
                    "handshake offering only weak suites with {}",
                    target.authority()
                ),
                format!("accepted: {cipher} ({})", stream.ssl().version_str()),
            ));
        }
        Ok(Err(_)) => {}
        Err(e) => out.warnings.push(format!("TLS: {e}")),
    }
    out
}

/// The SSL 3.0 ClientHello: record and hello version 3.0, a fixed random,
/// no session, the RSA/DHE suites SSL 3.0 servers speak, no compression.
fn ssl3_client_hello() -> Vec<u8> {
    let suites: [u16; 6] = [0x002f, 0x0035, 0x000a, 0x0033, 0x0005, 0x0004];
    let mut body = vec![0x03, 0x00];
    body.extend((0u8..32).map(|i| i.wrapping_mul(37).wrapping_add(11)));
    body.push(0); // session id length
    body.extend_from_slice(&((suites.len() * 2) as u16).to_be_bytes());
    for s in suites {
        body.extend_from_slice(&s.to_be_bytes());
    }
    body.extend_from_slice(&[1, 0]); // compression: null
    let mut hs = vec![1u8, 0, 0, 0];
    hs[1..4].copy_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    hs.extend(body);
    let mut record = vec![0x16, 0x03, 0x00];
    record.extend_from_slice(&(hs.len() as u16).to_be_bytes());
    record.extend(hs);
    record
}

/// Sends the SSL 3.0 ClientHello; the suite of a ServerHello for SSL 3.0,
/// `None` for an alert, a hello of another version or a closed connection.
pub fn ssl3_accepted(client: &Client) -> Result<Option<u16>, BenchError> {
    use std::io::{Read, Write};
    let mut tcp = client.connect()?;
    tcp.write_all(&ssl3_client_hello())
        .map_err(|e| BenchError::System(format!("SSL 3.0 ClientHello: {e}")))?;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // Record header (5) + handshake header (4) + version (2) + random (32)
    // + session id length (1): the suite follows the session id.
    loop {
        let need = got.get(43).map_or(46, |sid| 46 + usize::from(*sid));
        if got.len() >= need || (!got.is_empty() && got[0] != 0x16) {
            break;
        }
        match tcp.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    if got.len() < 44 || got[0] != 0x16 || got[5] != 2 || got[9..11] != [3, 0] {
        return Ok(None);
    }
    let sid = usize::from(got[43]);
    Ok(got
        .get(44 + sid..46 + sid)
        .map(|b| u16::from_be_bytes([b[0], b[1]])))
}

/// Plain HTTP on `port` of the https target's host: a reply that is not a
/// redirect to an https URL is a finding; nothing listening is none.
pub fn http_redirect(client: &Client, catalog: &Catalog, port: u16) -> Option<Finding> {
    let target = client.target();
    let mut plain = target.clone();
    plain.scheme = crate::config::Scheme::Http;
    plain.port = port;
    let plain_client = Client::new(&plain, 1000, std::time::Duration::from_secs(5)).ok()?;
    let reply = plain_client
        .send(&crate::client::Request::new("GET", "/"))
        .ok()?;
    let location = reply.header("Location").next().unwrap_or_default();
    let redirects =
        (300..400).contains(&reply.status) && location.to_ascii_lowercase().starts_with("https://");
    if redirects {
        return None;
    }
    let c = catalog.probe("http-no-redirect")?;
    Some(Finding {
        id: c.id.clone(),
        name: c.name.clone(),
        severity: c.severity,
        request: format!("{} on http://{}", reply.request_line, plain.authority()),
        status: Some(reply.status),
        evidence: if location.is_empty() {
            format!("status {}, no redirect to https://", reply.status)
        } else {
            format!("status {}; Location: {location}", reply.status)
        },
        remediation: c.remediation.clone(),
    })
}
