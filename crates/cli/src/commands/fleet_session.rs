//! What the fleet commands that work on hosts share: the hosts file read
//! with `--only`, the binaries the hosts get, the session (Ctrl-C, ssh,
//! store, fleet id), progress lines, saving a host's run tagged, tables.

use anyhow::Result;
use nodebench_core::Run;
use nodebench_core::bench::Cancel;
use nodebench_fleet::hosts::{Host, Hosts};
use nodebench_fleet::remote::Binaries;
use nodebench_fleet::ssh::Ssh;
use nodebench_store::Store;

use super::runner::{install_signal_handlers, open_store};
use crate::CliError;
use crate::args::Cli;
use crate::args::fleet::HostsArgs;

/// The selected hosts, or the one-line refusal (exit 2).
pub(super) fn load(args: &HostsArgs) -> Result<Hosts> {
    Hosts::load(&args.hosts)
        .and_then(|h| h.select(&args.only))
        .map_err(|e| CliError::usage(e).into())
}

/// The binaries the hosts get: `--binary-dir`'s and this one. By the
/// error's kind: a folder that holds none or two for one architecture is
/// a usage error (exit 2), this executable unreadable a failure (exit 1).
pub(super) fn binaries(args: &HostsArgs) -> Result<Binaries> {
    Binaries::with_dir(args.binary_dir.as_deref()).map_err(|e| CliError::of(&e).into())
}

/// What each fleet command that runs on the hosts sets up first.
pub(super) struct Session {
    /// This binary: what is copied to the hosts.
    pub(super) local: Binaries,
    /// Set by Ctrl-C.
    pub(super) cancel: Cancel,
    /// The ssh connections to the hosts.
    pub(super) ssh: Ssh,
    /// Where the hosts' runs are saved (none with --no-save).
    pub(super) store: Option<Box<dyn Store>>,
    /// The id tying this command's runs together.
    pub(super) fleet_id: String,
}

impl Session {
    /// Reads the binaries the hosts get, installs the Ctrl-C handler,
    /// prepares ssh to `hosts` and opens the store.
    pub(super) fn open(cli: &Cli, hosts: &Hosts, args: &HostsArgs) -> Result<Session> {
        Ok(Session {
            local: binaries(args)?,
            cancel: install_signal_handlers()?,
            ssh: Ssh::new(hosts, args.connect_timeout)?,
            store: if cli.no_save {
                None
            } else {
                Some(open_store(cli)?)
            },
            fleet_id: nodebench_fleet::fleet_id(),
        })
    }
}

/// Prints a host's progress lines prefixed `[NAME]`, unless `quiet`.
pub(super) fn progress(quiet: bool) -> impl Fn(&Host, &str) + Sync {
    move |h: &Host, line: &str| {
        if !quiet {
            eprintln!("[{}] {line}", h.name);
        }
    }
}

/// Tags `run` with `tags` and the command line's `--tag`s and saves it
/// (unless `--no-save`); its new id.
pub(super) fn save(
    cli: &Cli,
    store: Option<&mut (dyn Store + 'static)>,
    run: &mut Run,
    tags: &[(&str, String)],
) -> Result<Option<i64>> {
    for (k, v) in tags {
        run.tags.insert(k.to_string(), v.clone());
    }
    for (k, v) in &cli.tags {
        run.tags.insert(k.clone(), v.clone());
    }
    run.id = None;
    if let Some(s) = store {
        run.id = Some(s.begin_run(run)?);
    }
    Ok(run.id)
}

pub(super) fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Prints rows as left-aligned columns, the first row a header.
pub(super) fn print_table(rows: &[Vec<String>]) {
    let Some((header, body)) = rows.split_first() else {
        return;
    };
    // Text columns: host names, states and messages.
    outln!(
        "{}",
        nodebench_report::table::text_table(header, body, header.len())
    );
}
