//! A result's own cells as evidence of the cores a floating host gave.
//!
//! The effective-cores probe ([`crate::cores`]) measures, at one moment,
//! how many cores' worth of FMA throughput all usable CPUs hold together.
//! Where it finds no fixed sibling sets and all CPUs at once run fewer
//! times one CPU than their count, the CPUs float over fewer host cores,
//! and that share moves with the host's other load: a 16-vCPU guest
//! measured 8.2x one vCPU in one run's probe and 14.0x in the next, and a
//! kernel ran 12.7x one thread minutes after an 8.2x probe. A rate cannot
//! exceed the cores that produced it, so a cell that ran well above the
//! peak of the cores its threads can use, counted from such a verdict,
//! proves the probe's moment gave too few: the result is then set against
//! all usable CPUs (the count a probe that found no sharing gives), and
//! says why. A measurement never lowers the peak; this only raises it.
//!
//! Cells at or below [`MORE_CORES_SHOWN`] x their peak, and any cell over
//! the peak of fixed siblings or physical cores, keep the probe's count:
//! there the excess is the clock's (the implied-clock warning of
//! [`Peak::above_peak`]).

use nodebench_core::BenchResult;
use nodebench_core::names::labels::THREADS;
use nodebench_core::names::peak::PEAK_CORES;

use super::Peak;

/// A cell above this share of the peak of the cores it can use (counted
/// from a floating verdict) shows more cores than the probe counted; at or
/// under it the excess is within what the clock's measurement leaves open.
pub const MORE_CORES_SHOWN: f64 = 1.10;

impl Peak {
    /// The peak a result's `cells` (`what`, threads, FLOP/s) are set
    /// against: this one, or, where the count is a floating verdict
    /// ([`Peak::floating_cpus`]) and a cell with more threads than it ran
    /// above [`MORE_CORES_SHOWN`] x the peak of the cores its threads can
    /// use, one counting all usable CPUs, marked uncertain with the cell
    /// that showed it.
    pub fn against(&self, cells: &[(String, usize, f64)], double: bool) -> Peak {
        let Some(cpus) = self.floating_cpus.filter(|&c| c > self.cores) else {
            return self.clone();
        };
        let per_core = self.per_core(double);
        let shown = cells
            .iter()
            .filter(|(_, threads, rate)| {
                *threads > self.cores as usize
                    && *rate > MORE_CORES_SHOWN * self.cell_reference(*threads, double).value
            })
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let Some((what, _, rate)) = shown else {
            return self.clone();
        };
        let why = format!(
            "effective cores: the probe's {} of {cpus} CPUs (they float over the host's cores) is contradicted by {what} at {:.2} GFLOPS, {:.1} cores' worth at {:.3} GHz: the host gave more cores than at the probe's moment; this result's peak counts all {cpus} usable CPUs",
            self.cores,
            rate / 1e9,
            rate / per_core,
            self.clock_hz / 1e9,
        );
        Peak {
            cores: cpus,
            cores_source: "usable",
            uncertain: Some(match &self.uncertain {
                Some(u) => format!("{u}; {why}"),
                None => why,
            }),
            floating_cpus: None,
            ..self.clone()
        }
    }
}

/// Sets a result against its peak once its cells (`what`, threads,
/// FLOP/s) are measured: the peak ([`Peak::against`] the cells) in words
/// as `peak_param` and its cores as [`PEAK_CORES`], why it is uncertain,
/// each metric named in `rates` referenced to the peak of the cores its
/// threads can use (its `threads` label, else `threads`), and a warning
/// for any cell still above that. An unknown peak is recorded with why.
/// Every view (table, warning, bottleneck line, JSON, report) reads these.
pub fn set_result_against(
    result: &mut BenchResult,
    peak: &Result<Peak, crate::Error>,
    peak_param: &str,
    cells: &[(String, usize, f64)],
    rates: &[&str],
    threads: Option<usize>,
    double: bool,
) {
    let p = match peak {
        Ok(p) => p.against(cells, double),
        Err(why) => {
            result.set_param(peak_param, format!("unknown: {why}"));
            return;
        }
    };
    result.set_param(peak_param, p.describe(double));
    result.set_param(PEAK_CORES, p.cores);
    result.warnings.extend(p.uncertain_warning());
    for (what, t, rate) in cells {
        result
            .warnings
            .extend(p.above_peak(what, *rate, *t, double));
    }
    for m in result
        .metrics
        .iter_mut()
        .filter(|m| rates.contains(&m.name.as_str()))
    {
        let t = m
            .label_value(THREADS)
            .and_then(|t| t.parse::<usize>().ok())
            .or(threads);
        if let Some(t) = t {
            *m = m.clone().with_reference(Some(p.cell_reference(t, double)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peak::CoreFlops;

    /// The 16-vCPU Emerald Rapids guest's peak: its probe counted 8
    /// floating cores, 2.555 GHz all-core under 512-bit FMA.
    fn emr(floating: Option<u32>) -> Peak {
        Peak {
            cores: 8,
            cores_source: "effective",
            clock_hz: 2.555e9,
            clock_source: "measured all-core under 512-bit FMA".into(),
            core: CoreFlops {
                dp_per_cycle: 32,
                basis: "Emerald Rapids: AVX-512, 2 x 512-bit FMA".into(),
                scalar_fma_ports: 2,
                one_lane: false,
            },
            uncertain: None,
            floating_cpus: floating,
        }
    }

    fn cell(what: &str, threads: usize, gflops: f64) -> (String, usize, f64) {
        (what.to_string(), threads, gflops * 1e9)
    }

    #[test]
    fn a_cell_past_the_floating_count_sets_the_result_against_every_usable_cpu() {
        // The device run: f32.vector 160.9 GFLOPS on 1 thread, 2000.37 on
        // 16 (152.9 % of 8 cores' peak).
        let cells = [
            cell("f32.vector strong threads=1", 1, 160.9),
            cell("f32.vector strong threads=16", 16, 2000.37),
        ];
        let p = emr(Some(16)).against(&cells, false);
        assert_eq!(p.cores, 16);
        assert_eq!(p.cores_source, "usable");
        assert_eq!(
            p.uncertain.as_deref(),
            Some(
                "effective cores: the probe's 8 of 16 CPUs (they float over the host's cores) is contradicted by f32.vector strong threads=16 at 2000.37 GFLOPS, 12.2 cores' worth at 2.555 GHz: the host gave more cores than at the probe's moment; this result's peak counts all 16 usable CPUs"
            )
        );
        // Every view's figure is now under 100 %, and no cell warns.
        let sixteen = p.cell_reference(16, false);
        assert!((100.0 * 2000.37e9 / sixteen.value - 76.5).abs() < 0.05);
        assert!(sixteen.name.ends_with("(uncertain)"), "{}", sixteen.name);
        assert_eq!(
            p.above_peak("f32.vector strong threads=16", 2000.37e9, 16, false),
            None
        );
        // One thread is still one core's peak.
        assert_eq!(
            p.cell_reference(1, false).value,
            emr(None).cell_reference(1, false).value
        );
        assert!(
            p.describe(false)
                .starts_with("theoretical peak: 16 usable cores x 2.555 GHz")
        );
    }

    #[test]
    fn the_probes_count_stays_where_no_cell_shows_more_cores() {
        // f64.vector at 102.3 % of 8 cores: within the clock's margin, so
        // the count stays and the implied-clock warning speaks.
        let cells = [
            cell("f64.vector strong threads=1", 1, 79.74),
            cell("f64.vector strong threads=16", 16, 669.29),
        ];
        let p = emr(Some(16));
        assert_eq!(p.against(&cells, true), p);
        assert!(
            p.above_peak("f64.vector strong threads=16", 669.29e9, 16, true)
                .unwrap()
                .contains("102.3 %")
        );
        // A single thread over its core's peak is the clock's doing (one
        // core turbo), never more cores.
        let one = [cell("f64.vector strong threads=1", 1, 120.0)];
        assert_eq!(p.against(&one, true), p);
    }

    #[test]
    fn fixed_siblings_or_physical_cores_are_never_raised() {
        // 152.9 % of the peak of fixed siblings or physical cores is the
        // clock's, not cores the topology missed.
        let cells = [cell("f32.vector strong threads=16", 16, 2000.37)];
        let p = emr(None);
        assert_eq!(p.against(&cells, false), p);
        let physical = Peak {
            cores_source: "physical",
            ..emr(None)
        };
        assert_eq!(physical.against(&cells, false), physical);
    }

    #[test]
    fn an_uncertain_clock_keeps_its_note_beside_the_cores_note() {
        let p = Peak {
            uncertain: Some("clock: all 10 rounds disturbed".into()),
            ..emr(Some(16))
        };
        let cells = [cell("f64.scalar strong threads=16", 16, 92.96)];
        let raised = p.against(&cells, true).scalar();
        // f64.scalar: 92.96 GFLOPS is 9.1 cores' worth of 4 FLOP/cycle, but
        // `against` ran on the vector peak here: no raise at 16 threads
        // against 8 x 81.76 GFLOPS.
        assert_eq!(raised.cores, 8);
        let scalar = p.scalar();
        let raised = scalar.against(&cells, true);
        assert_eq!(raised.cores, 16);
        let u = raised.uncertain.unwrap();
        assert!(
            u.starts_with("clock: all 10 rounds disturbed; effective cores: the probe's 8 of 16"),
            "{u}"
        );
        assert!(u.contains("9.1 cores' worth"), "{u}");
    }
}
