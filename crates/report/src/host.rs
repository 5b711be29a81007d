//! The host's state as text: `nodebench check`'s lines, the `[host]`
//! rows of the inventory (with every run: `runs show`, `run`, the HTML
//! report's header, the Markdown export), and the one line of warnings a
//! benchmark's output carries.

use std::fmt::Write as _;

use nodebench_core::inventory::host::judge;
use nodebench_core::inventory::host::{CheckLine, HostState, Verdict};

/// `nodebench check`: one line per setting, `ok`/`warn`, its value, what a
/// benchmark wants and why, and the command that changes it; then a
/// count.
pub fn check_report(lines: &[CheckLine]) -> String {
    let width = lines.iter().map(|l| l.setting.len()).max().unwrap_or(0);
    let mut out = String::new();
    for l in lines {
        let fix = if l.fix.is_empty() {
            String::new()
        } else {
            format!("; change: {}", l.fix)
        };
        let _ = writeln!(
            out,
            "{:<4}  {:<width$}  {} [want {}: {}{fix}]",
            l.verdict.as_str(),
            l.setting,
            l.value,
            l.want,
            l.why
        );
    }
    let warned = lines.iter().filter(|l| l.verdict == Verdict::Warn).count();
    let _ = if warned == 0 {
        writeln!(out, "all {} settings ok", lines.len())
    } else {
        writeln!(out, "{warned} of {} settings warn", lines.len())
    };
    out
}

/// The stored state as `(setting, value)` rows, a warned value followed by
/// `(warn: want ...)`.
pub fn rows(state: &HostState) -> Vec<(String, String)> {
    judge(state, None, None)
        .into_iter()
        .map(|l| {
            let value = match l.verdict {
                Verdict::Ok => l.value,
                Verdict::Warn => format!("{} (warn: want {})", l.value, l.want),
            };
            (l.setting, value)
        })
        .collect()
}

/// One line naming the settings a benchmark would want otherwise, and
/// what `--tune` changed; `None` when there is nothing to say.
pub fn warnings_line(state: &HostState) -> Option<String> {
    let lines = judge(state, None, None);
    let warned: Vec<String> = lines
        .iter()
        .filter(|l| l.verdict == Verdict::Warn)
        .map(|l| format!("{} {}", l.setting, l.value))
        .collect();
    let tuned = state.tuning.as_ref().map(|t| {
        format!(
            "tuned for the run: {} file(s) changed and put back",
            t.changes.len()
        )
    });
    match (warned.is_empty(), tuned) {
        (true, None) => None,
        (true, Some(t)) => Some(format!("host: {t}")),
        (false, t) => Some(format!(
            "host: {} setting(s) a benchmark wants otherwise (`nodebench check` explains): {}{}",
            warned.len(),
            warned.join("; "),
            t.map(|t| format!("; {t}")).unwrap_or_default()
        )),
    }
}

/// The `[host]` section: every row, keys padded.
pub fn section(state: &HostState) -> String {
    let rows = rows(state);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::from("[host]\n");
    for (k, v) in rows {
        let _ = writeln!(out, "  {k:<width$}  {v}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::inventory::host::{CState, IdleState, TuneChange, Tuning};

    fn state() -> HostState {
        HostState {
            online_cpus: Some(4),
            idle: Some(IdleState {
                driver: Some("intel_idle".into()),
                governor: Some("menu".into()),
                deepest: Some(CState {
                    name: "C6".into(),
                    exit_latency_us: 170,
                    cpus: "0-3".into(),
                }),
                states: 4,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn check_lines_name_the_verdict_value_want_and_fix() {
        let lines = judge(&state(), None, None);
        let text = check_report(&lines);
        let c6 = text
            .lines()
            .find(|l| l.contains("deepest C-state"))
            .unwrap();
        assert!(
            c6.starts_with("warn  deepest C-state  C6 (170 µs exit latency) on CPUs 0-3"),
            "{c6}"
        );
        assert!(c6.contains("want an exit latency of at most 20 µs"), "{c6}");
        assert!(c6.contains("change: nodebench --tune"), "{c6}");
        assert_eq!(
            text.lines().last().unwrap(),
            format!("1 of {} settings warn", lines.len())
        );
        assert_eq!(text.lines().count(), lines.len() + 1);
    }

    #[test]
    fn a_run_carries_its_warnings_and_its_tuning_in_one_line() {
        let mut s = state();
        assert_eq!(
            warnings_line(&s).unwrap(),
            "host: 1 setting(s) a benchmark wants otherwise (`nodebench check` explains): deepest C-state C6 (170 µs exit latency) on CPUs 0-3; driver intel_idle, governor menu"
        );
        s.idle = None;
        assert_eq!(warnings_line(&s), None);
        s.tuning = Some(Tuning {
            changes: vec![TuneChange {
                file: "devices/system/cpu/cpufreq/policy0/scaling_governor".into(),
                from: "powersave".into(),
                to: "performance".into(),
            }],
            notes: vec![],
        });
        assert_eq!(
            warnings_line(&s).unwrap(),
            "host: tuned for the run: 1 file(s) changed and put back"
        );
        let sec = section(&s);
        assert!(sec.starts_with("[host]\n"));
        let tuned = sec.lines().find(|l| l.starts_with("  tuned ")).unwrap();
        assert!(
            tuned.ends_with(
                "  devices/system/cpu/cpufreq/policy0/scaling_governor: powersave -> performance"
            ),
            "{sec}"
        );
    }
}
