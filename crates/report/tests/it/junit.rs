//! `runs export --format junit` (results and threshold verdicts) against the JUnit XML schema CI systems
//! read (`schema/junit.xsd`), checked with libxml2's `xmllint` (Debian
//! package libxml2-utils, which `scripts/test` installs).

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use nodebench_core::inventory::fixtures;
use nodebench_core::{
    BenchResult, Better, Metric, PHASE_RUN, Run, RunStatus, ThresholdVerdict, Unit,
};
use nodebench_report::export::{Format, export};

/// A run with a passed, a failed and a cancelled result, warnings, tags and
/// text that needs escaping.
fn run() -> Run {
    let mut run = Run::start(
        vec![
            "nodebench".into(),
            "run".into(),
            "--tag".into(),
            "a=<&>".into(),
        ],
        [("a".to_string(), "<&>\"".to_string())].into(),
    );
    run.id = Some(12);
    run.inventory = Some(fixtures::sample());
    let mut ok = BenchResult::new("memory.stream");
    ok.metrics.push(
        Metric::new("bandwidth", 2.5e10, Unit::BytesPerSecond, Better::Higher)
            .label("kernel", "triad"),
    );
    ok.warnings.push("coefficient of variation 7% > 5%".into());
    let mut failed = BenchResult::new("cpu.linpack");
    failed.mark_failed("residual check failed: 3.2e+02 > 16 \u{7}");
    let mut cut = BenchResult::new("disk.iozone");
    cut.mark_cancelled();
    run.results = vec![ok, failed, cut];
    run.verdicts = vec![
        ThresholdVerdict {
            threshold: "memory.stream bandwidth{kernel=triad} >= 20 GB/s".into(),
            passed: true,
            measured: Some(2.5e10),
            unit: Some(Unit::BytesPerSecond),
            matched: 1,
            detail: None,
        },
        ThresholdVerdict {
            threshold: "http.load requests_failed == 0".into(),
            passed: false,
            measured: None,
            unit: None,
            matched: 0,
            detail: Some("no http.load result in this run".into()),
        },
    ];
    run.ended_at = Some(run.started_at + chrono::TimeDelta::milliseconds(1500));
    run.status = RunStatus::Complete;
    run
}

/// Validates `xml` with xmllint against the checked-in schema; `false` when
/// xmllint is not installed (said on stderr).
fn validate(xml: &str) -> bool {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/junit.xsd");
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(xml.as_bytes()).unwrap();
    let out = match Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(file.path())
        .output()
    {
        Ok(out) => out,
        Err(_) => {
            nodebench_core::test_require::missing(
                "junit (schema)",
                nodebench_core::test_require::need::XMLLINT,
                "xmllint not found",
                "apt-get install libxml2-utils",
            );
            return false;
        }
    };
    assert!(
        out.status.success(),
        "JUnit export does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn the_junit_export_validates_against_the_junit_schema() {
    let xml = export(&run(), Format::Junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 5);
    assert!(xml.contains("tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"1\" time=\"1.500\""));
    assert!(xml.contains(
        "<testcase classname=\"nodebench.threshold\" name=\"memory.stream bandwidth{kernel=triad} &gt;= 20 GB/s\" time=\"0\">\n      <system-out>measured 25000000000 B/s</system-out>"
    ));
    assert!(xml.contains(
        "<failure type=\"threshold\" message=\"nothing measured (no http.load result in this run)\"/>"
    ));
    assert!(xml.contains("hostname=\"node1\""));
    assert!(xml.contains("classname=\"nodebench.memory\" name=\"memory.stream\""));
    assert!(
        xml.contains(
            "<failure type=\"failed\" message=\"residual check failed: 3.2e+02 &gt; 16 \">"
        )
    );
    assert!(xml.contains("<skipped message=\"interrupted\"/>"));
    assert!(xml.contains("<system-out>bandwidth{kernel=triad} = 25000000000 B/s\n</system-out>"));
    assert!(xml.contains("<system-err>coefficient of variation 7% &gt; 5%</system-err>"));
    assert!(xml.contains("<property name=\"tag.a\" value=\"&lt;&amp;&gt;&quot;\"/>"));
    validate(&xml);
}

#[test]
fn a_benchmark_that_never_produced_a_result_is_an_error_test_case() {
    let mut r = run();
    r.results = vec![BenchResult::failure(
        "db.as3ap",
        PHASE_RUN,
        "--db mysql://u@127.0.0.1:1/x: Connection refused",
    )];
    r.verdicts.clear();
    r.status = RunStatus::Failed;
    let xml = export(&r, Format::Junit).unwrap();
    assert!(
        xml.contains("tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""),
        "{xml}"
    );
    assert!(xml.contains(
        "<testcase classname=\"nodebench.db\" name=\"db.as3ap\" time=\"0.000\">\n      <error type=\"run\" message=\"--db mysql://u@127.0.0.1:1/x: Connection refused\">"
    ), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    validate(&xml);
}

#[test]
fn a_failed_run_without_any_result_is_one_error_never_a_green_suite() {
    // A run stored before failures named their benchmark.
    let mut r = run();
    r.results.clear();
    r.verdicts.clear();
    r.status = RunStatus::Failed;
    let xml = export(&r, Format::Junit).unwrap();
    assert!(
        xml.contains("tests=\"1\" failures=\"0\" errors=\"1\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 1, "{xml}");
    assert!(xml.contains(
        "<testcase classname=\"nodebench.run\" name=\"run --tag a=&lt;&amp;&gt;\" time=\"1.500\">\n      <error type=\"error\" message=\"the run failed before any benchmark produced a result\"/>"
    ), "{xml}");
    validate(&xml);
    // Two runs, one passed and this one: the sums say one error.
    let many = nodebench_report::export::export_many(&[run(), r], Format::Junit).unwrap();
    assert!(
        many.contains(
            "<testsuites name=\"nodebench runs\" tests=\"6\" failures=\"2\" errors=\"1\""
        ),
        "{many}"
    );
    validate(&many);
}

#[test]
fn an_empty_run_is_an_empty_suite_that_still_validates() {
    let mut r = run();
    r.results.clear();
    r.verdicts.clear();
    r.ended_at = None;
    let xml = export(&r, Format::Junit).unwrap();
    assert!(xml.contains("tests=\"0\" failures=\"0\""));
    validate(&xml);
}
