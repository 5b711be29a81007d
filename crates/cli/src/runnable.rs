//! The runnable half of every benchmark's descriptor, one list per area
//! crate (each crate's `cli::RUNNABLE`: its benchmarks' clap arguments and
//! their conversion into the configured benchmark). Suite steps and the
//! burn-in's workloads are configured through it; the architecture test
//! checks it against the registry and the subcommands.

use nodebench_core::cli::Runnable;

/// Every area crate's runnables: a crate with a new benchmark lists it in
/// its own `RUNNABLE`; a new area crate is one line here.
const AREAS: [&[Runnable]; 10] = [
    nodebench_cpu::cli::RUNNABLE,
    nodebench_linpack::cli::RUNNABLE,
    nodebench_memory::cli::RUNNABLE,
    nodebench_disk::cli::RUNNABLE,
    nodebench_net::cli::RUNNABLE,
    nodebench_http::cli::RUNNABLE,
    nodebench_db::cli::RUNNABLE,
    nodebench_gpu::cli::RUNNABLE,
    nodebench_machine::cli::RUNNABLE,
    nodebench_scan::cli::RUNNABLE,
];

/// Every runnable benchmark.
pub fn all() -> impl Iterator<Item = &'static Runnable> {
    provide();
    AREAS.iter().flat_map(|a| a.iter())
}

/// What the area crates' arguments take from each other, provided where
/// both are linked: the `--db` endpoint of the built-in HTTP server (the
/// http crate serves it, the db crate answers `/db/ir`). Called by `main`
/// before the command line is parsed, and before any runnable is used.
pub fn provide() {
    nodebench_core::endpoint::provide_db(|url| {
        std::sync::Arc::new(nodebench_db::endpoint::IrEndpoint::new(url))
    });
}

/// The runnable of benchmark `id`.
pub fn get(id: &str) -> Option<&'static Runnable> {
    all().find(|r| r.id == id)
}
