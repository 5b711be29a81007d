//! Names a suite run (`nodebench suite run`) adds to its run and results.

/// Run tag: the name of the suite the run ran.
pub const TAG: &str = "suite";
/// Result parameter: the name of the suite step that produced the result.
pub const STEP: &str = "step";
/// The built-in suite of HPC Challenge's summary (`suite run hpcc`), whose
/// run report ends with the figures under HPCC's summary names.
pub const HPCC: &str = "hpcc";
