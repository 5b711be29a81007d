//! `nodebench run` (the quick suite) on this machine, as a new user runs
//! it: no figure above 100 % of its theoretical peak without the warning
//! that names the clock it implies, and every bottleneck line follows the
//! rules of `machine::bottleneck` against the result's own telemetry,
//! recomputed here from the stored series (busy shares over the line's
//! span, the figures it quotes).

use crate::common;

use common::{TempStore, json, stderr, stdout};
use nodebench_core::names::{cpu, http, labels, linpack, memory, net, peak, telemetry};
use nodebench_machine::bottleneck::{
    COMPUTE_BOUND_SHARE, CPU_SATURATED, LATENCY_BOUND, threads_are_all_the_work,
};
use serde_json::Value;

/// Rounding of the printed percentages (`{:.0}`) and of float sums.
const SLACK: f64 = 0.5;

/// The overlap-weighted mean of a series' intervals (each point ends one,
/// the first starts at 0) over `[from, to]`.
fn mean_over(points: &[Value], from: f64, to: f64) -> Option<f64> {
    let (mut start, mut sum, mut weight) = (0.0_f64, 0.0, 0.0);
    for p in points {
        let (end, v) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
        let w = end.min(to) - start.min(end).max(from);
        start = end;
        if w > 0.0 {
            sum += w * v;
            weight += w;
        }
    }
    (weight > 0.0).then(|| sum / weight)
}

/// Busy % of each CPU over `[from, to]`, by CPU number, from the result's
/// telemetry: user, system, irq, softirq and steal, as the rules count.
fn busy(result: &Value, from: f64, to: f64) -> Vec<(String, f64)> {
    use telemetry::series as s;
    let mut by_cpu: std::collections::BTreeMap<String, f64> = Default::default();
    for series in result["series"].as_array().unwrap() {
        let name = series["name"].as_str().unwrap();
        let labels = &series["labels"];
        if labels[telemetry::SOURCE] != telemetry::SOURCE_TELEMETRY
            || ![
                s::CPU_USER,
                s::CPU_SYSTEM,
                s::CPU_IRQ,
                s::CPU_SOFTIRQ,
                s::CPU_STEAL,
            ]
            .contains(&name)
        {
            continue;
        }
        let cpu = labels[telemetry::label::CPU].as_str().unwrap().to_string();
        let v = mean_over(series["points"].as_array().unwrap(), from, to).unwrap_or(0.0);
        *by_cpu.entry(cpu).or_default() += v;
    }
    by_cpu.into_iter().collect()
}

/// The metrics named `name` carrying every label of `phase` (all of them
/// for a whole-result line).
fn metrics<'a>(result: &'a Value, name: &'a str, phase: &'a Value) -> Vec<&'a Value> {
    result["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == name)
        .filter(|m| {
            phase["labels"]
                .as_object()
                .is_none_or(|l| l.iter().all(|(k, v)| m["labels"][k] == *v))
        })
        .collect()
}

/// The first number after `after` in `line`.
fn number_after(line: &str, after: &str) -> f64 {
    let rest = &line[line
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} in {line}"))
        + after.len()..];
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("a number after {after:?} in {line}"))
}

/// Checks one line of `result` over `phase` (Null: the whole result)
/// against the rules; the error says which rule it breaks.
fn check_line(result: &Value, phase: &Value, line: &str) -> Result<(), String> {
    let (from, to) = match phase["start_s"].as_f64() {
        Some(s) => (s, phase["end_s"].as_f64().unwrap()),
        None => (0.0, f64::INFINITY),
    };
    let cpus = busy(result, from, to);
    let hot = |limit: f64| cpus.iter().filter(|c| c.1 >= limit).count();
    let benchmark = result["benchmark"].as_str().unwrap();
    if line == LATENCY_BOUND {
        if hot(CPU_SATURATED - SLACK) > 0 {
            return Err(format!("latency-bound while CPUs were busy: {cpus:?}"));
        }
        return Ok(());
    }
    if let Some(rest) = line.strip_prefix("compute-bound: FMA units at ") {
        if ![cpu::OPS, linpack::LINPACK].contains(&benchmark) {
            return Err("compute-bound on a benchmark that is not a compute kernel".into());
        }
        let said = number_after(line, "at ") / 100.0;
        // Each cell's reference is the peak of the cores its threads can
        // use (one denominator): the line's share is the best cell's.
        let cores = number_after(rest, "on ");
        let peak_cores = result["parameters"][peak::PEAK_CORES].as_f64().unwrap();
        if cores > peak_cores {
            return Err(format!(
                "compute-bound on {cores} cores of a peak of {peak_cores}"
            ));
        }
        let best = metrics(result, cpu::RATE, phase)
            .iter()
            .map(|m| m["value"].as_f64().unwrap() / m["reference"]["value"].as_f64().unwrap())
            .fold(0.0, f64::max);
        if (best - said).abs() > 0.006 || best < COMPUTE_BOUND_SHARE {
            return Err(format!(
                "compute-bound at {said} where the figures give {best}"
            ));
        }
        return Ok(());
    }
    if let Some(rest) = line.strip_prefix("CPU: all ") {
        let n = number_after(rest, "") as usize;
        if n != cpus.len() || hot(CPU_SATURATED - SLACK) != n {
            return Err(format!("all {n} cores saturated, telemetry {cpus:?}"));
        }
        return Ok(());
    }
    if line.starts_with("CPU: ") && line.contains(" cores saturated: ") {
        let k = number_after(line, "CPU: ") as usize;
        let n = number_after(line, " of ") as usize;
        if n != cpus.len() || k < hot(CPU_SATURATED + SLACK) || k > hot(CPU_SATURATED - SLACK) {
            return Err(format!("{k} of {n} cores saturated, telemetry {cpus:?}"));
        }
        for c in &cpus {
            if line.contains(&format!("cpu{} ", c.0)) && c.1 < CPU_SATURATED - SLACK {
                return Err(format!("cpu{} named at {:.1} %", c.0, c.1));
            }
        }
        return Ok(());
    }
    if let Some(rest) = line.strip_prefix("CPU: the ")
        && rest.contains(" busiest CPUs (one per thread) ")
    {
        if ![cpu::OPS, linpack::LINPACK].contains(&benchmark) {
            return Err("a compute kernel's line on another benchmark".into());
        }
        let k = number_after(rest, "") as usize;
        let said = number_after(rest, "(one per thread) ");
        let mut b: Vec<f64> = cpus.iter().map(|c| c.1).collect();
        b.sort_by(|x, y| y.total_cmp(x));
        let mean = b.iter().take(k).sum::<f64>() / k as f64;
        if (mean - said).abs() > SLACK + 0.01 || hot(CPU_SATURATED + SLACK) > 0 {
            return Err(format!(
                "the busiest {k} CPUs at {mean:.1} %, said {said}; telemetry {cpus:?}"
            ));
        }
        return Ok(());
    }
    if line.starts_with("CPU: ") && line.contains(" thread(s) kept ") {
        let threads = number_after(line, "CPU: ");
        let total: f64 = cpus.iter().map(|c| c.1).sum();
        if !threads_are_all_the_work(benchmark)
            || total < CPU_SATURATED * threads - SLACK
            || hot(CPU_SATURATED + SLACK) > 0
        {
            return Err(format!(
                "{threads} threads' CPUs at {total:.1} % in all; telemetry {cpus:?}"
            ));
        }
        return Ok(());
    }
    if line.starts_with("CPU: ") && line.contains(" thread on a core ") {
        for part in line.trim_start_matches("CPU: ").split("; ") {
            let said = number_after(part, "on a core ");
            let found = metrics(result, net::metric::THREAD_CPU, phase)
                .iter()
                .any(|m| {
                    (m["value"].as_f64().unwrap() - said).abs() <= SLACK
                        && said >= CPU_SATURATED - SLACK
                });
            if !found {
                return Err(format!("no stream thread at {said} %: {part}"));
            }
        }
        return Ok(());
    }
    if line.starts_with("client CPU: ") || line.starts_with("server CPU: ") {
        if line.starts_with("client CPU: ") {
            let threads = result["parameters"][http::load::param::THREADS]
                .as_f64()
                .unwrap_or(1.0);
            let util = metrics(result, http::load::CLIENT_CPU_UTILIZATION, phase)[0]["value"]
                .as_f64()
                .unwrap();
            if util / threads < CPU_SATURATED - SLACK {
                return Err(format!(
                    "client CPU named at {util} % over {threads} threads"
                ));
            }
        }
        if line.contains("server CPU: ") {
            let said = number_after(line, ") busy ");
            if said < CPU_SATURATED - SLACK {
                return Err(format!("server thread named at {said} %"));
            }
        }
        return Ok(());
    }
    if line.starts_with("memory bandwidth: STREAM") || line.starts_with("cache bandwidth: STREAM") {
        return (benchmark == memory::STREAM)
            .then_some(())
            .ok_or_else(|| "STREAM's line on another benchmark".into());
    }
    if line.starts_with("disk: ") {
        let said = number_after(line, " busy ");
        return (said >= CPU_SATURATED - SLACK)
            .then_some(())
            .ok_or_else(|| format!("disk named at {said} %"));
    }
    if line.starts_with("device queue: ") {
        return Ok(());
    }
    Err("a line no rule makes".into())
}

#[test]
fn the_quick_suite_keeps_its_peaks_and_its_bottleneck_lines_true() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempStore::new();
    let out = t.run(&["run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let run = json(&t.run(&["--json", "runs", "show", "1"]));
    let results = run["results"].as_array().unwrap();

    // Every % of peak: at most 100, or the warning naming its clock.
    let mut checked_peaks = 0;
    for r in results {
        for m in r["metrics"].as_array().unwrap() {
            let Some(reference) = m["reference"]["value"].as_f64() else {
                continue;
            };
            checked_peaks += 1;
            let value = m["value"].as_f64().unwrap();
            let warned = r["warnings"].as_array().is_some_and(|w| {
                w.iter().any(|w| {
                    let w = w.as_str().unwrap();
                    w.contains("of the peak of the") && w.contains("implies a clock of")
                })
            });
            assert!(
                value <= reference || warned,
                "{} {} at {:.1} % of its peak without a warning",
                r["benchmark"],
                m["labels"],
                100.0 * value / reference
            );
        }
    }
    assert!(
        checked_peaks >= 4,
        "the quick suite's FMA and LINPACK figures have peaks"
    );
    // And as printed: a "(104.2%)" cell only beside the warning.
    for l in text.lines() {
        for cell in l.split('(').skip(1) {
            if let Some(Ok(p)) = cell.split_once("%)").map(|(p, _)| p.parse::<f64>()) {
                assert!(p <= 100.0 || text.contains("implies a clock of"), "{l}");
            }
        }
    }

    // Every bottleneck line against its own span.
    let mut lines = 0;
    let mut failures = Vec::new();
    for r in results {
        let mut check = |phase: &Value, line: &str| {
            lines += 1;
            if let Err(e) = check_line(r, phase, line) {
                failures.push(format!(
                    "{} [{}] {line}: {e}",
                    r["benchmark"], phase["labels"]
                ));
            }
        };
        if let Some(line) = r["bottleneck"].as_str() {
            check(&Value::Null, line);
        }
        for p in r["phases"].as_array().into_iter().flatten() {
            if let Some(line) = p["bottleneck"].as_str() {
                check(p, line);
            }
        }
        // A result that ran in phases is judged phase by phase, and the
        // phases carry the labels of its figures.
        if r["benchmark"] == cpu::OPS {
            let phases = r["phases"].as_array().expect("cpu.ops records its phases");
            assert_eq!(phases.len(), 2, "threads 1 and all: {r}");
            for p in phases {
                assert!(p["labels"][labels::THREADS].is_string(), "{p}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // cpu.ops: 6 kernels x 2 thread counts; the other attributed results
    // one line each, or one per phase. A sub-second phase that no
    // telemetry sample reached has no line (rightly: no line without
    // telemetry); on the noisy 2-vCPU guest that happened to one of the 18
    // once in three runs, so one may be missing.
    let without: Vec<String> = results
        .iter()
        .filter(|r| r["bottleneck"].is_null())
        .map(|r| r["benchmark"].to_string())
        .collect();
    assert!(
        lines >= 12 + 6 - 1,
        "{lines} lines; results without a line of their own: {without:?}"
    );
}

#[test]
fn the_checker_refuses_lines_the_telemetry_contradicts() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    // Two CPUs: cpu0 busy 96 % over [0, 1], cpu1 20 %; idle over [1, 2].
    let series = |cpu: &str, a: f64| {
        serde_json::json!({
            "name": telemetry::series::CPU_USER,
            "labels": {telemetry::SOURCE: telemetry::SOURCE_TELEMETRY, telemetry::label::CPU: cpu},
            "points": [[1.0, a], [2.0, 1.0]],
        })
    };
    let r = serde_json::json!({
        "benchmark": cpu::OPS,
        "parameters": {peak::PEAK_CORES: 2},
        "metrics": [{"name": cpu::RATE, "value": 50.0, "labels": {"threads": "1"},
                     "reference": {"name": "peak", "value": 50.0}}],
        "series": [series("0", 96.0), series("1", 20.0)],
    });
    let first = serde_json::json!({"labels": {"threads": "1"}, "start_s": 0.0, "end_s": 1.0});
    let second = serde_json::json!({"labels": {"threads": "1"}, "start_s": 1.0, "end_s": 2.0});
    let ok = "CPU: 1 of 2 cores saturated: cpu0 96 % (user 96 %, system 0 %)";
    assert_eq!(check_line(&r, &first, ok), Ok(()));
    assert!(check_line(&r, &second, ok).is_err());
    assert!(check_line(&r, &first, LATENCY_BOUND).is_err());
    assert_eq!(check_line(&r, &second, LATENCY_BOUND), Ok(()));
    assert!(check_line(&r, &first, "CPU: all 2 cores saturated: cpu0 96 %").is_err());
    // 50 of a 1-core peak of 50: 100 %; said 80 %: refused.
    assert_eq!(
        check_line(
            &r,
            &first,
            "compute-bound: FMA units at 100 % of peak on 1 core"
        ),
        Ok(())
    );
    assert!(
        check_line(
            &r,
            &first,
            "compute-bound: FMA units at 80 % of peak on 1 core"
        )
        .is_err()
    );
}
