//! The runnable half of a benchmark's descriptor (feature `cli`): the
//! clap arguments of its subcommand and their one conversion into the
//! configured benchmark. Each area crate defines its benchmarks' arguments
//! next to their configs and lists them in its `RUNNABLE`; the CLI's
//! subcommands and the suites' steps both configure a benchmark through
//! it. The static half ([`crate::registry::Descriptor`]: metrics, labels,
//! headline, charts, bottleneck rule) needs no clap, so `report`, `import`
//! and `fleet` read it without linking the engines' flags.

pub mod parse;

use crate::bench::{BenchError, Benchmark};

/// A benchmark's command-line arguments.
pub trait BenchArgs: clap::Args + Sized {
    /// The id of the benchmark they configure: its descriptor's.
    const ID: &'static str;

    /// The benchmark, configured by these arguments. Fails only where the
    /// arguments need the machine (a host name to resolve, a body file to
    /// read); whether the configuration is usable is its `validate`.
    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError>;
}

/// One benchmark's arguments as every caller takes them: the CLI's
/// subcommand and a suite step (`bench = "disk.dd"` with the subcommand's
/// long flags as keys).
#[derive(Clone, Copy)]
pub struct Runnable {
    /// The benchmark id ([`BenchArgs::ID`]).
    pub id: &'static str,
    /// Adds the arguments to a command: the benchmark's subcommand, or
    /// the command a suite step's parameters are read by.
    pub args: fn(clap::Command) -> clap::Command,
    /// The configured benchmark, from a command's matches of [`Self::args`].
    pub build: fn(&clap::ArgMatches) -> Result<Box<dyn Benchmark>, BenchError>,
}

impl std::fmt::Debug for Runnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runnable").field("id", &self.id).finish()
    }
}

impl Runnable {
    /// The runnable of arguments `A`.
    pub const fn of<A: BenchArgs>() -> Runnable {
        Runnable {
            id: A::ID,
            args: <A as clap::Args>::augment_args,
            build: build::<A>,
        }
    }
}

/// `A` from `matches`, then its benchmark.
fn build<A: BenchArgs>(matches: &clap::ArgMatches) -> Result<Box<dyn Benchmark>, BenchError> {
    let args = <A as clap::FromArgMatches>::from_arg_matches(matches)
        .map_err(|e| BenchError::Invalid(e.to_string()))?;
    args.benchmark()
}
