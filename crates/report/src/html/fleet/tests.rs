use std::collections::BTreeMap;
use std::time::Instant;

use nodebench_core::BenchResult;
use nodebench_core::inventory::Inventory;
use nodebench_core::model::{Better, Metric, Run, Unit};
use nodebench_core::names::{cpu, fleet, labels, memory};
use nodebench_core::rng::XorShift64;
use nodebench_fleet::analysis::{FleetReport, ReportConfig, analyse};

use super::heatmap::{self, Cell};
use super::*;

/// A generated fleet: `hosts` hosts named `h0000`..., `figures`
/// performance figures each (STREAM bandwidths, cpu ops rates and memory
/// latencies in turn) with about 1 % noise; `slow` hosts 10 % low on
/// every STREAM bandwidth; `odd` hosts with another microcode.
fn fleet_runs(hosts: usize, figures: usize, slow: &[usize], odd: &[usize]) -> Vec<Run> {
    (0..hosts)
        .map(|h| {
            let name = format!("h{h:04}");
            let mut run = Run::start(
                Vec::new(),
                BTreeMap::from([(fleet::HOST_TAG.to_string(), name.clone())]),
            );
            run.id = Some(h as i64 + 1);
            let mut rng = XorShift64::new(h as u64 * 31 + 7);
            // The sum of three uniform draws: bell-shaped, within +-3 %.
            let mut noisy = |v: f64| {
                let u: f64 = (0..3).map(|_| rng.below(2001) as f64 / 1000.0 - 1.0).sum();
                v * (1.0 + u * 0.01)
            };
            let (mut s, mut c, mut l) = (
                BenchResult::new(memory::STREAM),
                BenchResult::new(cpu::OPS),
                BenchResult::new(memory::LATENCY),
            );
            for i in 0..figures {
                match i % 3 {
                    0 => {
                        let f = if slow.contains(&h) { 0.9 } else { 1.0 };
                        s.metrics.push(
                            Metric::new(
                                memory::metric::BANDWIDTH,
                                noisy(2e10) * f,
                                Unit::BytesPerSecond,
                                Better::Higher,
                            )
                            .label(labels::KERNEL, memory::kernel::TRIAD)
                            .label(labels::THREADS, i),
                        )
                    }
                    1 => c.metrics.push(
                        Metric::new(cpu::RATE, noisy(1e9), Unit::OpsPerSecond, Better::Higher)
                            .label(labels::KERNEL, cpu::kernel::ALL[0])
                            .label(labels::THREADS, i),
                    ),
                    _ => l.metrics.push(
                        Metric::new(
                            memory::metric::LATENCY,
                            noisy(9e-8),
                            Unit::Seconds,
                            Better::Lower,
                        )
                        .label(labels::SIZE, i),
                    ),
                }
            }
            run.results = vec![s, c, l];
            let mut inv = Inventory {
                hostname: Some(name),
                ..Inventory::default()
            };
            inv.cpu.microcode = Some(if odd.contains(&h) { "0x71" } else { "0x90" }.into());
            run.inventory = Some(inv);
            run
        })
        .collect()
}

fn small() -> FleetReport {
    analyse(&fleet_runs(12, 9, &[5], &[3]), &ReportConfig::default())
}

#[test]
fn the_small_fleet_page_names_the_outlier_everywhere() {
    let r = small();
    let names: Vec<&str> = r.outlier_hosts().map(|h| h.host.as_str()).collect();
    assert_eq!(names, ["h0005"]);
    let page = page(&r, "fleet f12", None);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<h1>nodebench fleet report: fleet f12</h1>"));
    assert!(page.contains("12 host(s), 12 run(s), 9 performance figure(s)"));
    assert!(page.contains(
        "<b class=\"bad\">1 outlier host(s)</b>, 1 unlike the others in inventory or host state, 10 ok."
    ));
    // The verdict table: h0005 first, on a STREAM bandwidth, about -10 %.
    let row = page
        .lines()
        .find(|l| l.starts_with("<tr><td class=\"bad\">h0005</td>"))
        .expect("h0005's verdict row");
    assert!(
        row.contains("outlier on 3</td><td>memory.stream bandwidth{"),
        "{row}"
    );
    let dev = row.split("<td class=\"num\">").nth(3).unwrap();
    let dev: f64 = dev[..dev.find('<').unwrap()].parse().unwrap();
    assert!((-13.0..-7.0).contains(&dev), "{row}");
    assert!(page.contains("<tr><td>h0003</td><td>differs</td>"));
    // Three dot plots of STREAM bandwidth name h0005, first; six do not.
    let plots: Vec<&str> = page.split("<figure class=\"dotplot\"").skip(1).collect();
    assert_eq!(plots.len(), 9);
    for (i, p) in plots.iter().enumerate() {
        let named = p.contains("class=\"bad\">h0005</text>");
        assert_eq!(named, i < 3, "plot {i}: {p}");
        assert_eq!(p.contains("bandwidth{"), i < 3, "plot {i}");
        assert!(p.contains("class=\"median\""));
        assert!(p.contains("class=\"band\""));
        assert!(p.contains("class=\"limit\""));
    }
    // The heat map: every host labelled (rows of 14 px), h0005 in red.
    assert!(page.contains("<h2 id=\"heatmap\">"));
    assert!(page.contains("<image x=\"132\" y=\"170\" width=\"252\" height=\"168\""));
    assert!(page.contains("text-anchor=\"end\" class=\"bad\">h0005</text>"));
    assert!(page.contains("text-anchor=\"end\">h0011</text>"));
    // The consistency table: majority 0x90 on 11, h0003 with 0x71.
    assert!(page.contains(
        "<tr><td rowspan=\"1\">cpu.microcode</td><td rowspan=\"1\">0x90</td><td rowspan=\"1\" class=\"num\">11</td><td class=\"bad\">0x71</td><td>h0003 (1)</td></tr>"
    ));
    assert!(page.contains("No link matrix in this selection"));
    // Self-contained: no script, nothing fetched but the data: image.
    assert!(!page.contains("<script"));
    assert_eq!(page.matches("href=\"").count(), 1);
    assert_eq!(page.matches("href=\"data:image/png;base64,").count(), 1);
}

#[test]
fn the_heat_map_rows_are_the_hosts_worst_first_coloured_by_worse_direction() {
    let r = small();
    let cells = heatmap::cells(&r);
    assert_eq!(cells.len(), 12 * 9);
    assert_eq!(r.hosts[0].host, "h0005");
    // Columns by benchmark: STREAM's three first (the figures came
    // STREAM, cpu, latency in turn).
    let benchmarks: Vec<&str> = heatmap::columns(&r)
        .iter()
        .map(|f| f.benchmark.as_str())
        .collect();
    assert_eq!(
        benchmarks,
        [[memory::STREAM; 3], [cpu::OPS; 3], [memory::LATENCY; 3]].concat()
    );
    // Row 0 (h0005): the STREAM columns outliers.
    for (col, f) in heatmap::columns(&r).into_iter().enumerate() {
        let c = cells[col];
        if f.benchmark == memory::STREAM {
            assert_eq!(c, Cell::Outlier as u8, "{}", f.id);
        } else {
            assert_ne!(c, Cell::Outlier as u8, "{}", f.id);
        }
    }
    assert_eq!(
        cells.iter().filter(|&&c| c == Cell::Outlier as u8).count(),
        3
    );
    assert_eq!(
        heatmap::cell(Some(-3.0), Better::Higher, false, 5.0),
        Cell::WorseHalf
    );
    assert_eq!(
        heatmap::cell(Some(-3.0), Better::Lower, false, 5.0),
        Cell::BetterHalf
    );
    assert_eq!(
        heatmap::cell(Some(6.0), Better::Lower, false, 5.0),
        Cell::WorseBeyond
    );
    assert_eq!(
        heatmap::cell(Some(0.5), Better::Higher, false, 5.0),
        Cell::Near
    );
    assert_eq!(
        heatmap::cell(Some(-1.5), Better::Higher, false, 5.0),
        Cell::WorseFifth
    );
    assert_eq!(
        heatmap::cell(Some(-9.0), Better::Higher, true, 5.0),
        Cell::Outlier
    );
    assert_eq!(
        heatmap::cell(None, Better::Higher, false, 5.0),
        Cell::Missing
    );
    assert_eq!(heatmap::colour(Cell::Near), "#f7f7f7");
}

#[test]
fn a_thousand_hosts_by_two_hundred_figures_is_under_5_mb() {
    let runs = fleet_runs(1000, 200, &[17, 123], &[200, 201]);
    let r = analyse(&runs, &ReportConfig::default());
    assert_eq!(r.figures.len(), 200);
    let names: Vec<&str> = r.outlier_hosts().map(|h| h.host.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let start = Instant::now();
    let page = page(&r, "fleet f1000", None);
    let took = start.elapsed();
    eprintln!(
        "fleet page of 1000 hosts x 200 figures: {} bytes in {took:?}",
        page.len()
    );
    assert!(page.len() < 5_000_000, "{} bytes", page.len());
    // Pixel rows but the two outliers', 12 px tall and labelled, above
    // the line.
    assert!(page.contains("<image x=\"132\" y=\"8\" width=\"800\" height=\"1022\""));
    assert!(
        page.contains("<text x=\"108\" y=\"18\" text-anchor=\"end\" class=\"bad\">h0017</text>")
    );
    assert!(
        page.contains("<text x=\"108\" y=\"30\" text-anchor=\"end\" class=\"bad\">h0123</text>")
    );
    assert!(page.contains("<path d=\"M128 32h808\" class=\"split\"/>"));
    assert_eq!(page.matches("<figure class=\"dotplot\"").count(), 200);
    assert!(page.contains("cpu.microcode"));
}

#[test]
fn the_link_section_holds_the_matrix_given_or_says_how_to_get_one() {
    assert!(links_section(None).contains("<code>nodebench fleet pair --matrix</code>"));
    let s = links_section(Some("<svg id=\"m\"></svg>"));
    assert!(s.starts_with("<h2 id=\"links\">"));
    assert!(s.contains("<svg id=\"m\"></svg>"));
}

#[test]
fn past_forty_outliers_the_rest_are_counted_not_labelled() {
    // 200 hosts of 4 px rows, 50 slow: 40 rows of 12 px labelled, "+10 more".
    let slow: Vec<usize> = (0..50).map(|i| i * 4).collect();
    let r = analyse(&fleet_runs(200, 6, &slow, &[]), &ReportConfig::default());
    assert_eq!(r.outlier_hosts().count(), 50);
    let page = page(&r, "f200", None);
    let w = 6 * 28;
    let h = 40 * 12 + 160 * 4;
    assert!(
        page.contains(&format!(
            "<image x=\"132\" y=\"170\" width=\"{w}\" height=\"{h}\""
        )),
        "{}",
        &page[page.find("<image").unwrap()..][..80]
    );
    assert_eq!(
        page.matches("text-anchor=\"end\" class=\"bad\">h0").count(),
        40
    );
    assert!(page.contains("text-anchor=\"end\" class=\"bad\">+10 more</text>"));
    // The line under the 50 outlier rows: 40 of 12 px and 10 of 4.
    assert!(page.contains(&format!(
        "<path d=\"M128 {}h{}\" class=\"split\"/>",
        170 + 40 * 12 + 10 * 4,
        w + 8
    )));
}

#[test]
fn a_fleet_without_figures_or_hosts_still_makes_a_page() {
    for runs in [Vec::new(), fleet_runs(1, 3, &[], &[])] {
        let r = analyse(&runs, &ReportConfig::default());
        let page = page(&r, "none", None);
        assert!(page.contains("No performance figure on two hosts or more."));
        assert!(page.contains("0 of 0 figure(s) with outliers"));
        assert!(page.ends_with("</body></html>\n"));
    }
}

#[test]
fn a_figure_without_a_percentage_is_plotted_on_its_values() {
    // STREAM bandwidth 0 on every host: a median of 0 has no %.
    let mut runs = fleet_runs(10, 3, &[], &[]);
    for run in &mut runs {
        run.results[0].metrics[0].value = 0.0;
    }
    let r = analyse(&runs, &ReportConfig::default());
    let f = r
        .figures
        .iter()
        .find(|f| !f.judged)
        .expect("an unjudged figure");
    let plot = dotplot::plot(f, &r);
    assert!(!plot.contains("class=\"band\""), "{plot}");
    assert!(!plot.contains(" %</text>"), "{plot}");
    assert!(!plot.contains("MAD"), "{plot}");
    assert!(plot.contains("B/s</text>"), "{plot}");
    assert_eq!(heatmap::cells(&r)[0], Cell::Missing as u8);
}
