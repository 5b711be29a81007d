//! `runs export --format junit`: a run as JUnit XML, the test-report format
//! CI systems (Jenkins, GitLab, GitHub Actions reporters) read. The run is
//! one `<testsuite>`; each result is a `<testcase>` whose class is its area
//! (`nodebench.cpu`) and whose name is its benchmark id; a failed result is
//! a `<failure>` with its error, a benchmark that never produced a result
//! (refused before it ran, stopped with an error) an `<error>` with its
//! error, a cancelled one `<skipped>`; a failed run without any result (one
//! stored before failures named their benchmark) is one test case with an
//! `<error>`, never an empty green suite; the metrics go
//! to `<system-out>` one per line and the warnings to `<system-err>`. Each
//! acceptance threshold judged on the run is a test case of its own (class
//! `nodebench.threshold`, named by the expression), failed when it failed.

use std::fmt::Write as _;

use nodebench_core::{BenchResult, ResultStatus, Run, RunStatus, ThresholdVerdict};
use quick_xml::escape::escape;

/// The prefix of every test case's class name (`nodebench.cpu`).
const CLASS_PREFIX: &str = "nodebench";

/// The class of the threshold test cases, after [`CLASS_PREFIX`].
const THRESHOLD_CLASS: &str = "threshold";

/// `run` as a JUnit XML document.
pub fn to_junit(run: &Run) -> String {
    let name = match run.id {
        Some(id) => format!("nodebench run {id}"),
        None => "nodebench run".to_string(),
    };
    let Counts {
        tests,
        failures,
        errors,
    } = counts(run);
    let skipped = run
        .results
        .iter()
        .filter(|r| r.status == ResultStatus::Cancelled)
        .count();
    let seconds = run
        .ended_at
        .map(|end| seconds(end - run.started_at))
        .unwrap_or(0.0);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\">",
        text(&name),
    );
    let hostname = run
        .inventory
        .as_ref()
        .and_then(|i| i.hostname.as_deref())
        .map(|h| format!(" hostname=\"{}\"", text(h)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{seconds:.3}\" timestamp=\"{}\"{hostname}>",
        text(&name),
        run.started_at.format("%Y-%m-%dT%H:%M:%S"),
    );
    out.push_str("    <properties>\n");
    let mut property = |k: &str, v: &str| {
        let _ = writeln!(
            out,
            "      <property name=\"{}\" value=\"{}\"/>",
            text(k),
            text(v)
        );
    };
    property("command", &run.command_line.join(" "));
    property("status", run.status.as_str());
    property("nodebench_version", &run.nodebench_version);
    for (k, v) in &run.tags {
        property(&format!("tag.{k}"), v);
    }
    out.push_str("    </properties>\n");
    for r in &run.results {
        testcase(&mut out, r);
    }
    if failed_without_result(run) {
        let _ = writeln!(
            out,
            "    <testcase classname=\"{CLASS_PREFIX}.run\" name=\"{}\" time=\"{seconds:.3}\">\n      <error type=\"error\" message=\"{NO_RESULT}\"/>\n    </testcase>",
            text(&run_benchmarks(run)),
        );
    }
    for v in &run.verdicts {
        threshold_testcase(&mut out, v);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Several runs as one JUnit XML document: each run's `<testsuite>` under
/// one `<testsuites>` whose counts are their sums.
pub fn to_junit_many(runs: &[Run]) -> String {
    let (mut tests, mut failures, mut errors, mut seconds) = (0, 0, 0, 0.0);
    let mut suites = String::new();
    for run in runs {
        let c = counts(run);
        tests += c.tests;
        failures += c.failures;
        errors += c.errors;
        seconds += run
            .ended_at
            .map(|end| self::seconds(end - run.started_at))
            .unwrap_or(0.0);
        let doc = to_junit(run);
        // The lines between the document's own <testsuites> and its end.
        let body: Vec<&str> = doc.lines().skip(2).collect();
        for line in &body[..body.len().saturating_sub(1)] {
            suites.push_str(line);
            suites.push('\n');
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"nodebench runs\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\">",
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

/// The message of the test case of a failed run without any result.
const NO_RESULT: &str = "the run failed before any benchmark produced a result";

/// A run's test cases, failures and errors.
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
}

/// Every result and threshold is a test case; a failed result a failure,
/// or an error when its benchmark never produced a result; a failed
/// threshold a failure; a failed run without any result one error.
fn counts(run: &Run) -> Counts {
    let empty = usize::from(failed_without_result(run));
    let errors = run.results.iter().filter(|r| r.never_produced()).count() + empty;
    let failed = run
        .results
        .iter()
        .filter(|r| r.status == ResultStatus::Failed && !r.never_produced())
        .count();
    Counts {
        tests: run.results.len() + run.verdicts.len() + empty,
        failures: failed + run.verdicts.iter().filter(|v| !v.passed).count(),
        errors,
    }
}

/// Whether `run` failed and holds no result (stored before a failure named
/// its benchmark).
fn failed_without_result(run: &Run) -> bool {
    run.status == RunStatus::Failed && run.results.is_empty()
}

/// The run's command line without the program, for the name of its error
/// test case (its secrets were hidden when the run started).
fn run_benchmarks(run: &Run) -> String {
    match run.command_line.get(1..) {
        Some(words) if !words.is_empty() => words.join(" "),
        _ => "run".to_string(),
    }
}

/// One result as a `<testcase>`.
fn testcase(out: &mut String, r: &BenchResult) {
    let area = r.benchmark.split('.').next().unwrap_or(&r.benchmark);
    let _ = writeln!(
        out,
        "    <testcase classname=\"{CLASS_PREFIX}.{}\" name=\"{}\" time=\"{:.3}\">",
        text(area),
        text(&r.benchmark),
        seconds(r.ended_at - r.started_at)
    );
    let error = r.error.as_deref().unwrap_or("");
    match r.status {
        ResultStatus::Passed => {}
        ResultStatus::Failed if r.never_produced() => {
            let _ = writeln!(
                out,
                "      <error type=\"{}\" message=\"{}\">{}</error>",
                text(r.error_phase.as_deref().unwrap_or("error")),
                text(error),
                text(error)
            );
        }
        ResultStatus::Failed => {
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                r.status.as_str(),
                text(error),
                text(error)
            );
        }
        ResultStatus::Cancelled => {
            let _ = writeln!(out, "      <skipped message=\"{}\"/>", text(error));
        }
    }
    let mut metrics = String::new();
    for m in &r.metrics {
        let _ = writeln!(metrics, "{} = {} {}", m.key(), m.value, m.unit.symbol());
    }
    if !metrics.is_empty() {
        let _ = writeln!(out, "      <system-out>{}</system-out>", text(&metrics));
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(
            out,
            "      <system-err>{}</system-err>",
            text(&r.warnings.join("\n"))
        );
    }
    out.push_str("    </testcase>\n");
}

/// One threshold's verdict as a `<testcase>`: a failure when it failed,
/// with the measured value and why.
fn threshold_testcase(out: &mut String, v: &ThresholdVerdict) {
    let _ = writeln!(
        out,
        "    <testcase classname=\"{CLASS_PREFIX}.{THRESHOLD_CLASS}\" name=\"{}\" time=\"0\">",
        text(&v.threshold)
    );
    let measured = match (v.measured, v.unit) {
        (Some(x), Some(u)) => format!("measured {x} {}", u.symbol()),
        (Some(x), None) => format!("measured {x}"),
        _ => "nothing measured".to_string(),
    };
    let message = match &v.detail {
        Some(d) => format!("{measured} ({d})"),
        None => measured,
    };
    if v.passed {
        let _ = writeln!(out, "      <system-out>{}</system-out>", text(&message));
    } else {
        let _ = writeln!(
            out,
            "      <failure type=\"threshold\" message=\"{}\"/>",
            text(&message)
        );
    }
    out.push_str("    </testcase>\n");
}

/// A duration in seconds (0 for a negative one, from a clock step).
fn seconds(d: chrono::TimeDelta) -> f64 {
    (d.num_microseconds().unwrap_or(0) as f64 / 1e6).max(0.0)
}

/// `s` escaped for an XML attribute or text, without the characters XML 1.0
/// cannot hold at all (control characters other than tab and newlines).
fn text(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|&c| c >= ' ' || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    escape(clean.as_str()).into_owned()
}
