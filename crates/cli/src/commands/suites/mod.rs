//! Suites: TOML files naming benchmark steps, run in order as one run.
//!
//! ```toml
//! name = "mine"
//! description = "what it is for"
//! thresholds = ["memory.stream bandwidth{kernel=triad} >= 5 GB/s"]
//!
//! [[step]]
//! bench = "disk.iozone"        # a benchmark id
//! name = "iozone-small"        # optional, unique; default the id (-2, -3... when repeated)
//! repeat = 2                   # optional: a count or "auto", as --repeat (default: --repeat's)
//! thresholds = ["disk.iozone throughput{test=write} >= 100 MB/s"]  # this step's results only
//! file-size = "64M"            # every other key: a long flag of `disk iozone`
//! fsync = true                 # a bare flag
//! ```
//!
//! Parameters sit directly in the step table, keyed by the long flags of the
//! subcommand the id spells (`disk.iozone` runs as `disk iozone`), the
//! positional argument by its value name lower-cased (`url`, `host`). A
//! step's parameters are read by its benchmark's runnable (the clap
//! arguments and conversion its area crate defines, `cli::RUNNABLE`, which
//! the subcommand is made of too), so a suite accepts what the command line
//! accepts and builds the same config, with two defaults of its own: a disk step's `dir` is
//! the temporary directory, and an `http.load` step's `threads` (and, for
//! the built-in server, `server-threads`) split the CPUs between client and
//! server ([`http_load_threads`]) rather than run one client thread. Every error names the file, the line, the step and the
//! key before anything runs.

mod step;

use std::fmt;
use std::ops::Range;

use clap::error::{ContextKind, ContextValue};
use clap::{Arg, ArgAction};
use nodebench_core::affinity;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::Runnable;
use nodebench_core::names;
use nodebench_core::registry;
use nodebench_core::repeat::{MAX_REPEATS, Mode};
use nodebench_core::threshold::Threshold;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::args::one_line;
use crate::args::suite::Setting;
use crate::runnable;
use step::SuiteStep;

/// The suite `nodebench run` runs.
pub const QUICK: &str = "quick";

/// The built-in suites in `suite list` order: name and TOML text (the files
/// under `crates/cli/suites/`).
pub const BUILTINS: [(&str, &str); 8] = [
    (QUICK, include_str!("../../../suites/quick.toml")),
    (
        "compute-node",
        include_str!("../../../suites/compute-node.toml"),
    ),
    ("node-pair", include_str!("../../../suites/node-pair.toml")),
    (
        "resource-sweep",
        include_str!("../../../suites/resource-sweep.toml"),
    ),
    ("amp-stack", include_str!("../../../suites/amp-stack.toml")),
    (
        "iozone-auto",
        include_str!("../../../suites/iozone-auto.toml"),
    ),
    ("hpcc", include_str!("../../../suites/hpcc.toml")),
    ("gpu-node", include_str!("../../../suites/gpu-node.toml")),
];

/// The benchmark ids a step may name: the registry's suite steps
/// ([`registry::suite_steps`]), each run as its descriptor's subcommand
/// (`cpu.ops` is `cpu ops`; `memory.hpcc_random_access` is `memory gups`).
fn step_ids() -> String {
    let ids: Vec<&str> = registry::suite_steps().map(|d| d.id).collect();
    ids.join(", ")
}

/// The keys of a suite's top level.
const SUITE_KEYS: &str = "name, description, thresholds, [[step]]";
/// The keys of a step that are not benchmark parameters.
const BENCH: &str = "bench";
const NAME: &str = "name";
const REPEAT: &str = "repeat";
const THRESHOLDS: &str = "thresholds";
/// The disk steps' directory flag, defaulted to the temporary directory.
const DIR: &str = "dir";
/// The HTTP load steps' client threads, built-in server threads and URL
/// (see [`http_load_threads`]).
const THREADS: &str = "threads";
const SERVER_THREADS: &str = "server-threads";
const URL: &str = "url";
/// Most client threads `http load --threads` takes.
const MAX_CLIENT_THREADS: usize = 1024;

/// The client threads and built-in server threads of an HTTP load step on
/// a machine with `cpus` CPUs, where the step sets neither: half the CPUs
/// each (at least one), so the client (whose own default is one thread,
/// the bottleneck on a large machine) keeps up with the server. A full
/// URL takes the client threads only.
pub fn http_load_threads(cpus: usize) -> (usize, usize) {
    let client = (cpus / 2).clamp(1, MAX_CLIENT_THREADS);
    let server = cpus
        .saturating_sub(client)
        .clamp(1, nodebench_http::server::MAX_THREADS);
    (client, server)
}

/// Why a suite cannot run: one line naming the file, the line, the step and
/// the key, and the accepted form.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteError(pub String);

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A suite, read and checked for form (its parameters are checked by
/// [`benchmarks`]).
#[derive(Debug, Clone)]
pub struct Suite {
    /// Its name (the file's `name`), the run's `suite` tag.
    pub name: String,
    /// What it is for, one line.
    pub description: String,
    /// Where it was read from (a path, or `built-in NAME`), for messages.
    pub origin: String,
    /// Thresholds judged on every result at the end.
    pub thresholds: Vec<Threshold>,
    /// The steps in run order.
    pub steps: Vec<Step>,
}

/// One step: a benchmark with its parameters, repeated as `repeat` says.
#[derive(Debug, Clone)]
pub struct Step {
    /// Unique in the suite; each result carries it as its `step` parameter.
    pub name: String,
    /// The benchmark id: a suite step of the registry.
    pub bench: &'static str,
    /// How many times it runs as a whole (`--repeat`'s count or `auto`,
    /// the repeats merged into one result); `None`: as `--repeat` says.
    pub repeat: Option<Mode>,
    /// Thresholds judged on this step's results only.
    pub thresholds: Vec<Threshold>,
    /// Its parameters in key order.
    pub params: Vec<Param>,
    /// The line of its `[[step]]` table.
    pub line: usize,
}

/// One parameter of a step: a long flag (or the positional argument) and
/// its value.
#[derive(Debug, Clone)]
pub struct Param {
    /// The flag's long name, or the positional argument's value name lower-cased.
    pub key: String,
    /// Its value.
    pub value: Value,
    /// Its line in the file; `None` for one given with `--set`.
    pub line: Option<usize>,
}

/// A parameter's value as the file (or `--set`) gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// One value, as the flag takes it (`"256M"`, `4`, `"1,2"`).
    Text(String),
    /// Several values, joined with commas (or the flag repeated, for a
    /// repeatable flag).
    List(Vec<String>),
    /// A bare flag: given when true.
    Flag(bool),
}

/// Where a suite's text came from, to turn byte offsets into lines.
struct Source<'a> {
    origin: &'a str,
    text: &'a str,
}

impl Source<'_> {
    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// An error at `span`, in `step` (if any), about `key` (if any).
    fn err(
        &self,
        span: Range<usize>,
        step: Option<&str>,
        key: Option<&str>,
        why: &str,
    ) -> SuiteError {
        located(self.origin, Some(self.line(span.start)), step, key, why)
    }
}

/// `ORIGIN:LINE: step 'STEP', key 'KEY': WHY` (`--set` for a line-less key).
fn located(
    origin: &str,
    line: Option<usize>,
    step: Option<&str>,
    key: Option<&str>,
    why: &str,
) -> SuiteError {
    let at = match line {
        Some(l) => format!("{origin}:{l}"),
        None => format!("{origin}: --set"),
    };
    let mut what = Vec::new();
    if let Some(s) = step {
        what.push(format!("step '{s}'"));
    }
    if let Some(k) = key {
        what.push(format!("key '{k}'"));
    }
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" {}:", what.join(", "))
    };
    SuiteError(format!("{at}:{what} {why}"))
}

/// The TOML text of `name_or_file` (a built-in's name, else a file) and
/// where it came from.
pub fn source(name_or_file: &str) -> Result<(String, String), SuiteError> {
    if let Some((name, text)) = BUILTINS.iter().find(|(n, _)| *n == name_or_file) {
        return Ok((text.to_string(), format!("built-in {name}")));
    }
    std::fs::read_to_string(name_or_file)
        .map(|t| (t, name_or_file.to_string()))
        .map_err(|e| {
            let builtins: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
            SuiteError(format!(
                "no built-in suite or readable file '{name_or_file}' ({e}); built-ins: {}",
                builtins.join(", ")
            ))
        })
}

/// Reads a suite from its TOML `text`; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Suite, SuiteError> {
    let src = Source { origin, text };
    let root = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| src.line(s.start)).unwrap_or(1);
        let why = e.message().trim().replace('\n', " ");
        located(
            origin,
            Some(line),
            None,
            None,
            &format!("malformed TOML: {why}"),
        )
    })?;
    let mut name = None;
    let mut description = String::new();
    let mut thresholds = Vec::new();
    let mut steps = Vec::new();
    for (key, value) in root.get_ref().iter() {
        let k: &str = key.get_ref();
        match k {
            NAME => name = Some(text_of(&src, value, None, k)?),
            "description" => description = text_of(&src, value, None, k)?,
            THRESHOLDS => thresholds = thresholds_of(&src, value, None, k)?,
            "step" => steps = steps_of(&src, value)?,
            _ => {
                return Err(src.err(
                    key.span(),
                    None,
                    Some(k),
                    &format!("unknown key; a suite has {SUITE_KEYS}"),
                ));
            }
        }
    }
    let name = name.filter(|n| !n.trim().is_empty()).ok_or_else(|| {
        src.err(
            0..0,
            None,
            Some(NAME),
            "missing: a suite needs name = \"...\"",
        )
    })?;
    if steps.is_empty() {
        return Err(src.err(
            0..0,
            None,
            None,
            "no steps: add [[step]] tables with bench = \"cpu.ops\" and the like",
        ));
    }
    Ok(Suite {
        name,
        description,
        origin: origin.to_string(),
        thresholds,
        steps,
    })
}

/// A string value.
fn text_of(
    src: &Source,
    v: &Spanned<DeValue>,
    step: Option<&str>,
    key: &str,
) -> Result<String, SuiteError> {
    match v.get_ref() {
        DeValue::String(s) => Ok(s.to_string()),
        _ => Err(src.err(v.span(), step, Some(key), "expected a string")),
    }
}

/// A list of thresholds in the `--assert` grammar, scoped to `step`'s
/// results when given.
fn thresholds_of(
    src: &Source,
    v: &Spanned<DeValue>,
    step: Option<&str>,
    key: &str,
) -> Result<Vec<Threshold>, SuiteError> {
    let DeValue::Array(items) = v.get_ref() else {
        return Err(src.err(
            v.span(),
            step,
            Some(key),
            "expected a list of strings such as [\"cpu.ops rate >= 1 GFLOPS\"]",
        ));
    };
    items
        .iter()
        .map(|item| {
            let text = text_of(src, item, step, key)?;
            let mut t: Threshold =
                text.parse()
                    .map_err(|e: nodebench_core::threshold::ThresholdError| {
                        src.err(item.span(), step, Some(key), &e.0)
                    })?;
            t.scope = step.map(|s| (names::suite::STEP.to_string(), s.to_string()));
            Ok(t)
        })
        .collect()
}

/// The `[[step]]` tables, named (default names for the unnamed ones).
fn steps_of(src: &Source, v: &Spanned<DeValue>) -> Result<Vec<Step>, SuiteError> {
    let DeValue::Array(items) = v.get_ref() else {
        return Err(src.err(v.span(), None, Some("step"), "expected [[step]] tables"));
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut named: Vec<(usize, Range<usize>)> = Vec::new();
    for item in items.iter() {
        let DeValue::Table(table) = item.get_ref() else {
            return Err(src.err(item.span(), None, Some("step"), "expected [[step]] tables"));
        };
        let (step, name_span) = step_of(src, item.span(), table)?;
        if let Some(span) = name_span {
            named.push((steps.len(), span));
        }
        steps.push(step);
    }
    // Explicit names must be unique; unnamed steps take their benchmark id,
    // with -2, -3... from its second unnamed use, skipping taken names.
    for (i, span) in &named {
        if named
            .iter()
            .any(|(j, _)| j != i && steps[*j].name == steps[*i].name)
        {
            return Err(src.err(
                span.clone(),
                Some(&steps[*i].name),
                Some(NAME),
                "a step name must be unique in the suite",
            ));
        }
    }
    let mut taken: Vec<String> = named.iter().map(|(i, _)| steps[*i].name.clone()).collect();
    for (i, step) in steps.iter_mut().enumerate() {
        if named.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let mut name = step.bench.to_string();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{}-{n}", step.bench);
        }
        taken.push(name.clone());
        step.name = name;
    }
    for step in &mut steps {
        for t in &mut step.thresholds {
            t.scope = Some((names::suite::STEP.to_string(), step.name.clone()));
        }
    }
    Ok(steps)
}

/// One step table, and the span of its `name` when it has one.
fn step_of(
    src: &Source,
    span: Range<usize>,
    table: &DeTable,
) -> Result<(Step, Option<Range<usize>>), SuiteError> {
    let line = src.line(span.start);
    let key_of = |k: &str| table.iter().find(|(key, _)| key.get_ref().as_ref() == k);
    let (name, name_span) = match key_of(NAME) {
        Some((_, v)) => (Some(text_of(src, v, None, NAME)?), Some(v.span())),
        None => (None, None),
    };
    let label = |bench: &str| name.clone().unwrap_or_else(|| bench.to_string());
    let bench = match key_of(BENCH) {
        None => {
            return Err(located(
                src.origin,
                Some(line),
                name.as_deref(),
                Some(BENCH),
                &format!("missing: a step needs bench = one of {}", step_ids()),
            ));
        }
        Some((_, v)) => {
            let id = text_of(src, v, name.as_deref(), BENCH)?;
            registry::suite_steps()
                .find(|d| d.id == id)
                .map(|d| d.id)
                .ok_or_else(|| {
                    src.err(
                        v.span(),
                        name.as_deref(),
                        Some(BENCH),
                        &format!("unknown benchmark '{id}' (accepted: {})", step_ids()),
                    )
                })?
        }
    };
    let step_label = label(bench);
    let mut repeat = None;
    let mut thresholds = Vec::new();
    let mut params = Vec::new();
    for (key, v) in table.iter() {
        let k: &str = key.get_ref();
        let at = Some(step_label.as_str());
        match k {
            NAME | BENCH => {}
            REPEAT => {
                let text = match v.get_ref() {
                    DeValue::Integer(i) => Some(i.as_str().replace('_', "")),
                    DeValue::String(t) => Some(t.to_string()),
                    _ => None,
                };
                repeat = Some(text.and_then(|t| t.parse::<Mode>().ok()).ok_or_else(|| {
                    src.err(
                        v.span(),
                        at,
                        Some(k),
                        &format!("expected a whole number of runs 1..={MAX_REPEATS}, or \"auto\""),
                    )
                })?);
            }
            THRESHOLDS => thresholds = thresholds_of(src, v, at, k)?,
            _ => params.push(Param {
                key: k.to_string(),
                value: value_of(src, v, at, k)?,
                line: Some(src.line(key.span().start)),
            }),
        }
    }
    Ok((
        Step {
            name: step_label,
            bench,
            repeat,
            thresholds,
            params,
            line,
        },
        name_span,
    ))
}

/// A parameter's value: a scalar as text, a list of scalars, or a boolean.
fn value_of(
    src: &Source,
    v: &Spanned<DeValue>,
    step: Option<&str>,
    key: &str,
) -> Result<Value, SuiteError> {
    let scalar = |v: &Spanned<DeValue>| -> Option<String> {
        match v.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            DeValue::Integer(i) if i.radix() == 10 => Some(i.as_str().replace('_', "")),
            DeValue::Float(f) => Some(f.as_str().replace('_', "")),
            _ => None,
        }
    };
    let accepted = "expected a string, a number, a list of them, or true/false for a bare flag";
    match v.get_ref() {
        DeValue::Boolean(b) => Ok(Value::Flag(*b)),
        DeValue::Array(items) => items
            .iter()
            .map(|i| scalar(i).ok_or_else(|| src.err(i.span(), step, Some(key), accepted)))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
        _ => scalar(v)
            .map(Value::Text)
            .ok_or_else(|| src.err(v.span(), step, Some(key), accepted)),
    }
}

/// The command a step of benchmark `id` is read by: the arguments of its
/// runnable (the area crate's, which its subcommand has too), so a step
/// takes the subcommand's long flags with the same parsers and defaults.
fn step_command(id: &str) -> clap::Command {
    let r = runnable::get(id).unwrap_or_else(|| panic!("benchmark {id} has no runnable"));
    (r.args)(clap::Command::new(id.to_string()).no_binary_name(true))
}

/// The key an argument is given by in a step: its long flag, or a
/// positional's value name lower-cased.
fn key_of(arg: &Arg) -> Option<String> {
    if arg.is_positional() {
        let name = arg
            .get_value_names()
            .and_then(|n| n.first())
            .map(|n| n.as_str().to_string())
            .unwrap_or_else(|| arg.get_id().as_str().to_string());
        Some(name.to_lowercase())
    } else {
        arg.get_long().map(str::to_string)
    }
}

/// The argument of `cmd` a step's `key` names.
fn arg_named<'c>(cmd: &'c clap::Command, key: &str) -> Option<&'c Arg> {
    cmd.get_arguments()
        .find(|a| key_of(a).as_deref() == Some(key))
}

/// The keys `cmd` takes, for messages.
fn accepted_keys(cmd: &clap::Command) -> String {
    let keys: Vec<String> = cmd.get_arguments().filter_map(key_of).collect();
    keys.join(", ")
}

/// Applies `--set`s to `suite`: a key alone to every step that takes it, a
/// `STEP.KEY` to that step; an unknown step, or a key no step (or not that
/// step) takes, is an error naming it.
pub fn apply(suite: &mut Suite, sets: &[Setting]) -> Result<(), SuiteError> {
    for set in sets {
        let shown = match &set.step {
            Some(s) => format!("{s}.{}", set.key),
            None => set.key.clone(),
        };
        let err = |why: String| SuiteError(format!("--set {shown}: {why}"));
        let chosen: Vec<usize> = match &set.step {
            Some(name) => {
                let i = suite
                    .steps
                    .iter()
                    .position(|s| &s.name == name)
                    .ok_or_else(|| {
                        let steps: Vec<&str> =
                            suite.steps.iter().map(|s| s.name.as_str()).collect();
                        err(format!(
                            "suite '{}' has no step '{name}' (its steps: {})",
                            suite.name,
                            steps.join(", ")
                        ))
                    })?;
                let cmd = step_command(suite.steps[i].bench);
                if arg_named(&cmd, &set.key).is_none() {
                    return Err(err(format!(
                        "step '{name}' ({}) takes no '{}' (accepted: {})",
                        suite.steps[i].bench,
                        set.key,
                        accepted_keys(&cmd)
                    )));
                }
                vec![i]
            }
            None => {
                let takers: Vec<usize> = (0..suite.steps.len())
                    .filter(|&i| arg_named(&step_command(suite.steps[i].bench), &set.key).is_some())
                    .collect();
                if takers.is_empty() {
                    return Err(err(format!(
                        "no step of suite '{}' takes '{}' (a long flag of a step's benchmark, or STEP.KEY=VALUE for one step)",
                        suite.name, set.key
                    )));
                }
                takers
            }
        };
        for i in chosen {
            let params = &mut suite.steps[i].params;
            params.retain(|p| p.key != set.key);
            params.push(Param {
                key: set.key.clone(),
                value: Value::Text(set.value.clone()),
                line: None,
            });
        }
    }
    Ok(())
}

/// The arguments (`--file-size=256M ...`) `step`'s parameters spell for
/// its runnable's clap matcher, checking each key against `cmd`, the
/// step's command ([`step_command`]).
fn tokens(suite: &Suite, step: &Step, cmd: &clap::Command) -> Result<Vec<String>, SuiteError> {
    let mut flags: Vec<String> = Vec::new();
    let mut positional: Vec<String> = Vec::new();
    let given = |key: &str| step.params.iter().any(|p| p.key == key);
    for p in &step.params {
        let err = |why: &str| located(&suite.origin, p.line, Some(&step.name), Some(&p.key), why);
        let arg = arg_named(cmd, &p.key).ok_or_else(|| {
            err(&format!(
                "unknown parameter of {} (accepted: {})",
                step.bench,
                accepted_keys(cmd)
            ))
        })?;
        let flag = format!("--{}", p.key);
        let bare = matches!(arg.get_action(), ArgAction::SetTrue);
        match (&p.value, bare) {
            (Value::Flag(b), true) => flags.extend(b.then_some(flag)),
            (Value::Text(t), true) => match t.as_str() {
                "true" => flags.push(flag),
                "false" => {}
                _ => {
                    return Err(err(&format!(
                        "invalid value '{t}': a bare flag takes true or false"
                    )));
                }
            },
            (Value::List(_), true) => {
                return Err(err("a bare flag takes true or false, not a list"));
            }
            (Value::Flag(_), false) => {
                return Err(err(
                    "takes a value, not true/false (true/false is for bare flags)",
                ));
            }
            (value, false) => {
                let values = match value {
                    Value::Text(t) => vec![t.clone()],
                    Value::List(l) => l.clone(),
                    Value::Flag(_) => Vec::new(),
                };
                if arg.is_positional() {
                    if values.len() != 1 {
                        return Err(err("expected one value"));
                    }
                    positional.extend(values);
                } else if matches!(arg.get_action(), ArgAction::Append) {
                    flags.extend(values.iter().map(|v| format!("{flag}={v}")));
                } else {
                    flags.push(format!("{flag}={}", values.join(",")));
                }
            }
        }
    }
    // Disk steps write under --dir: the temporary directory unless given.
    if !given(DIR) && arg_named(cmd, DIR).is_some() {
        flags.push(format!("--{DIR}={}", std::env::temp_dir().display()));
    }
    // HTTP load steps share the CPUs between client and built-in server.
    if step.bench == names::http::LOAD {
        let (client, server) = http_load_threads(affinity::allowed_cpus().len());
        if !given(THREADS) {
            flags.push(format!("--{THREADS}={client}"));
        }
        let built_in = step
            .params
            .iter()
            .any(|p| p.key == URL && matches!(&p.value, Value::Text(u) if u.starts_with('/')));
        if built_in && !given(SERVER_THREADS) {
            flags.push(format!("--{SERVER_THREADS}={server}"));
        }
    }
    if !positional.is_empty() {
        flags.push("--".into());
        flags.extend(positional);
    }
    Ok(flags)
}

/// The key a clap error is about: its invalid argument's long name, or its
/// positional's value name lower-cased.
fn error_key(e: &clap::Error) -> Option<String> {
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    if let Some(long) = arg.strip_prefix("--") {
        return Some(long.split([' ', '=']).next().unwrap_or(long).to_string());
    }
    arg.strip_prefix('<')
        .and_then(|a| a.split('>').next())
        .map(str::to_lowercase)
}

/// Every step's benchmark (repeated as its `repeat` says), configured
/// from its parameters as its subcommand's flags would configure it; the
/// first bad key or value is an error naming the file, line, step and key.
pub fn benchmarks(suite: &Suite) -> Result<Vec<Box<dyn Benchmark>>, SuiteError> {
    let mut out: Vec<Box<dyn Benchmark>> = Vec::new();
    for (step, args) in suite.steps.iter().zip(step_args(suite)?) {
        let bench = args.benchmark().map_err(|e| {
            located(
                &suite.origin,
                Some(step.line),
                Some(&step.name),
                None,
                &e.to_string(),
            )
        })?;
        out.push(Box::new(SuiteStep {
            step: step.name.clone(),
            repeat: step.repeat,
            at: format!("{}:{}", suite.origin, step.line),
            bench,
        }));
    }
    Ok(out)
}

/// A step's parameters, read by its benchmark's runnable: what builds the
/// benchmark (again for every iteration of a burn-in).
pub struct StepArgs {
    runnable: &'static Runnable,
    matches: clap::ArgMatches,
}

impl StepArgs {
    /// The step's benchmark, configured by its parameters.
    pub fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        (self.runnable.build)(&self.matches)
    }
}

/// Each step of `suite` read by its benchmark's runnable; an error names
/// the step's line and key.
pub fn step_args(suite: &Suite) -> Result<Vec<StepArgs>, SuiteError> {
    let mut out = Vec::with_capacity(suite.steps.len());
    for step in &suite.steps {
        let runnable = runnable::get(step.bench)
            .unwrap_or_else(|| panic!("benchmark {} has no runnable", step.bench));
        let cmd = step_command(step.bench);
        let tokens = tokens(suite, step, &cmd)?;
        let matches = cmd.try_get_matches_from(&tokens).map_err(|e| {
            let key = error_key(&e);
            let line = key
                .as_deref()
                .and_then(|k| step.params.iter().find(|p| p.key == k))
                .map_or(Some(step.line), |p| p.line);
            located(
                &suite.origin,
                line,
                Some(&step.name),
                key.as_deref(),
                &one_line(&e),
            )
        })?;
        out.push(StepArgs { runnable, matches });
    }
    Ok(out)
}

/// Every threshold of `suite`: its own (on every result) and its steps'
/// (each on that step's results).
pub fn thresholds(suite: &Suite) -> Vec<Threshold> {
    suite
        .thresholds
        .iter()
        .chain(suite.steps.iter().flat_map(|s| &s.thresholds))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
