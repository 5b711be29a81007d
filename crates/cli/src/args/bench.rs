//! A group's benchmark subcommands (`nodebench disk dd ...`), made from the
//! registry: each descriptor whose command is `[GROUP, LEAF]` and has a
//! runnable is the subcommand LEAF, with the runnable's arguments (whose
//! doc comment is its help). A benchmark added to an area crate's
//! `RUNNABLE` and to the registry is a subcommand with nothing added here.

use std::marker::PhantomData;

use clap::{ArgMatches, Command, FromArgMatches, Subcommand};
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::Runnable;
use nodebench_core::registry::{self, Descriptor};

use crate::runnable;

/// A group of subcommands (`cpu`, `disk`): the first word of its
/// benchmarks' commands.
pub trait Group {
    /// The group's word.
    const NAME: &'static str;
}

macro_rules! groups {
    ($($ty:ident => $name:literal,)*) => {$(
        #[doc = concat!("The `", $name, "` group.")]
        #[derive(Debug, Clone, Copy)]
        pub struct $ty;
        impl Group for $ty {
            const NAME: &'static str = $name;
        }
    )*};
}

groups! {
    Cpu => "cpu",
    Memory => "memory",
    Gpu => "gpu",
    Disk => "disk",
    Net => "net",
    Http => "http",
    Db => "db",
    Power => "power",
}

/// The benchmark subcommand chosen in group `G`, with its matches.
pub struct Leaf<G> {
    /// The chosen benchmark's runnable.
    pub runnable: &'static Runnable,
    matches: ArgMatches,
    group: PhantomData<G>,
}

impl<G> std::fmt::Debug for Leaf<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leaf")
            .field("id", &self.runnable.id)
            .finish()
    }
}

impl<G> Leaf<G> {
    /// The benchmark, configured by the subcommand's arguments.
    pub fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        (self.runnable.build)(&self.matches)
    }
}

/// The descriptors of group `G`'s benchmark subcommands, in registry
/// order, with their runnables and leaf words.
fn leaves<G: Group>() -> impl Iterator<Item = (&'static Descriptor, &'static Runnable, &'static str)>
{
    registry::ALL.iter().filter_map(|d| match d.command {
        [group, leaf] if *group == G::NAME => runnable::get(d.id).map(|r| (d, r, *leaf)),
        _ => None,
    })
}

impl<G: Group> FromArgMatches for Leaf<G> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = matches.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        leaves::<G>()
            .find(|(_, _, leaf)| *leaf == name)
            .map(|(_, runnable, _)| Leaf {
                runnable,
                matches: sub.clone(),
                group: PhantomData,
            })
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<G: Group> Subcommand for Leaf<G> {
    fn augment_subcommands(mut cmd: Command) -> Command {
        for (_, r, leaf) in leaves::<G>() {
            cmd = cmd.subcommand((r.args)(Command::new(leaf)));
        }
        cmd
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        leaves::<G>().any(|(_, _, leaf)| leaf == name)
    }
}
