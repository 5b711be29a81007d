//! The one switch for tests that need something the machine may lack (a
//! database server, Slurm, the ssh test hosts, the web servers, Chromium,
//! xmllint, root): without it such a test says "skipped: ..." and passes,
//! as a developer's `cargo test` should; with [`REQUIRE_VAR`] set to `all`
//! (what `scripts/test`, and so CI, sets) or to a list naming the need,
//! it fails instead, naming what is missing and the command that provides
//! it. A test can then never pass unrun where it is meant to run.

/// The environment variable: `all`, or needs separated by commas
/// (`postgres,mysql`).
pub const REQUIRE_VAR: &str = "NODEBENCH_TEST_REQUIRE";

/// The needs tests name, as [`REQUIRE_VAR`] lists them.
pub mod need {
    /// PostgreSQL (`NODEBENCH_TEST_POSTGRES`, `NODEBENCH_TEST_STORE_POSTGRES`).
    pub const POSTGRES: &str = "postgres";
    /// MariaDB (`NODEBENCH_TEST_MYSQL`).
    pub const MYSQL: &str = "mysql";
    /// A Slurm cluster with a node up.
    pub const SLURM: &str = "slurm";
    /// The ssh test hosts (`NODEBENCH_TEST_HOSTS`).
    pub const SSH_HOSTS: &str = "ssh-hosts";
    /// nginx, apache2 with mod_php, php-fpm.
    pub const WEB_SERVERS: &str = "web-servers";
    /// Headless Chromium.
    pub const CHROMIUM: &str = "chromium";
    /// xmllint (the JUnit schema checks).
    pub const XMLLINT: &str = "xmllint";
    /// OpenBLAS (Debian's libopenblas0).
    pub const OPENBLAS: &str = "openblas";
    /// Root (namespaces, mounts, `--tune`).
    pub const ROOT: &str = "root";
}

/// Whether `need` must be present: [`REQUIRE_VAR`] is `all` or lists it.
pub fn required(need: &str) -> bool {
    required_by(std::env::var(REQUIRE_VAR).ok().as_deref(), need)
}

fn required_by(value: Option<&str>, need: &str) -> bool {
    value.is_some_and(|v| v.split(',').map(str::trim).any(|s| s == "all" || s == need))
}

/// Where `test` finds `need` missing (`why`; `start` provides it): fails
/// the test when [`required`], else says it is skipped on stderr (the
/// caller then returns).
pub fn missing(test: &str, need: &str, why: &str, start: &str) {
    assert!(
        !required(need),
        "{test}: {why}, and {REQUIRE_VAR} requires {need}: {start}"
    );
    eprintln!("{test}: skipped: {why} ({start})");
}

/// Whether this process runs as root; where not, [`missing`] for
/// `test`, which needs it for `what`.
pub fn root(test: &str, what: &str) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return true;
    }
    missing(
        test,
        need::ROOT,
        &format!("needs root ({what})"),
        "run the tests as root",
    );
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_or_a_list_naming_the_need_requires_it() {
        assert!(!required_by(None, need::MYSQL));
        assert!(required_by(Some("all"), need::MYSQL));
        assert!(required_by(Some("postgres, mysql"), need::MYSQL));
        assert!(!required_by(Some("postgres"), need::MYSQL));
        assert!(!required_by(Some(""), need::MYSQL));
    }
}
