//! The peak's tests.
use super::*;
use nodebench_core::inventory::CpuInfo;

fn inv(uarch: &str, name: &str, flags: &[&str], cores: u32, max_hz: Option<f64>) -> Inventory {
    Inventory {
        cpu: CpuInfo {
            microarchitecture: Some(uarch.into()),
            model_name: Some(name.into()),
            flags: flags.iter().map(|f| f.to_string()).collect(),
            physical_cores: Some(cores),
            max_frequency_hz: max_hz,
            base_frequency_hz: Some(2.0e9),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn zen3_avx2_fma_is_16_dp_per_cycle() {
    let i = inv("Zen 3", "AMD EPYC 7763", &["avx2", "fma"], 2, Some(3.0e9));
    let p = theoretical_peak(&i, |load| {
        assert_eq!(load, Load::Fma256);
        None
    })
    .unwrap();
    assert_eq!(p.core.dp_per_cycle, 16);
    assert_eq!(p.dp_flops(), 2.0 * 3.0e9 * 16.0);
    assert_eq!(p.sp_flops(), 2.0 * p.dp_flops());
    assert!(
        p.describe(true)
            .contains("2 physical cores x 3.000 GHz (cpufreq max) x 16 DP")
    );
}

#[test]
fn avx512_two_units_unless_silver() {
    let gold = inv(
        "Sapphire Rapids",
        "Intel Xeon Gold 6430",
        &["avx2", "fma", "avx512f"],
        1,
        None,
    );
    assert_eq!(core_flops(&gold).unwrap().dp_per_cycle, 32);
    let silver = inv(
        "Cascade Lake",
        "Intel Xeon Silver 4216",
        &["avx2", "fma", "avx512f"],
        1,
        None,
    );
    assert_eq!(core_flops(&silver).unwrap().dp_per_cycle, 16);
    let zen4 = inv(
        "Zen 4",
        "AMD EPYC 9654",
        &["avx2", "fma", "avx512f"],
        1,
        None,
    );
    assert_eq!(core_flops(&zen4).unwrap().dp_per_cycle, 16);
}

#[test]
fn a_rate_above_the_peak_names_the_clock_it_implies() {
    let p = Peak {
        cores: 1,
        cores_source: "effective",
        clock_hz: 2.86e9,
        clock_source: "measured all-core".into(),
        core: CoreFlops {
            dp_per_cycle: 16,
            basis: "test".into(),
            scalar_fma_ports: 2,
            one_lane: false,
        },
        uncertain: None,
        floating_cpus: None,
    };
    // 1 core x 2.86 GHz x 16 = 45.76 GFLOPS DP.
    assert_eq!(p.above_peak("f64.vector threads=1", 45.0e9, 1, true), None);
    assert_eq!(
        p.above_peak("f64.vector threads=1", 47.68e9, 1, true)
            .unwrap(),
        "f64.vector threads=1: 47.68 GFLOPS is 104.2 % of the peak of the 1 core it can use; at 16 FLOP/cycle a core it implies a clock of 2.980 GHz, above the 2.860 GHz (measured all-core) the peak uses"
    );
    let sp = p.above_peak("f32.vector", 96.0e9, 1, false).unwrap();
    assert!(
        sp.contains("at 32 FLOP/cycle") && sp.contains("104.9 %"),
        "{sp}"
    );
}

#[test]
fn a_cell_is_set_against_the_peak_of_the_cores_its_threads_can_use() {
    let p = Peak {
        cores: 2,
        cores_source: "effective",
        clock_hz: 2.0e9,
        clock_source: "measured all-core".into(),
        core: CoreFlops {
            dp_per_cycle: 16,
            basis: "test".into(),
            scalar_fma_ports: 2,
            one_lane: false,
        },
        uncertain: None,
        floating_cpus: None,
    };
    // One thread: one core's 32 GFLOPS; four threads: both cores'.
    let one = p.cell_reference(1, true);
    assert_eq!(one.value, 32.0e9);
    assert_eq!(
        one.name,
        "theoretical peak of the 1 core 1 thread can use (of 2 effective cores): 1 x 2.000 GHz x 16 DP FLOP/cycle"
    );
    assert_eq!(p.cell_reference(4, true).value, p.dp_flops());
    assert_eq!(p.cell_reference(4, false).value, p.sp_flops());
    // A scalar kernel: one lane per FMA port, 2 cores x 2 GHz x 2 FLOP
    // x 2 ports = 16 GFLOPS, single precision the same.
    let scalar = p.scalar();
    assert_eq!(scalar.dp_flops(), 16.0e9);
    assert_eq!(scalar.sp_flops(), 16.0e9);
    assert_eq!(scalar.cell_reference(1, true).value, 8.0e9);
    assert_eq!(scalar.cell_reference(1, false).value, 8.0e9);
    assert!(
        scalar
            .cell_reference(1, true)
            .name
            .ends_with("1 x 2.000 GHz x 4 DP FLOP/cycle"),
        "{}",
        scalar.cell_reference(1, true).name
    );
    assert_eq!(
        scalar.describe(false),
        "theoretical peak: 2 effective cores x 2.000 GHz (measured all-core) x 4 SP FLOP/cycle [test; scalar: 2 FMA ports x 1 lane x 2 FLOP]"
    );
    // The warning's figure is the table's: 33.6 of 32 GFLOPS, 105 %.
    let m = nodebench_core::Metric::new(
        "rate",
        33.6e9,
        nodebench_core::Unit::FlopsPerSecond,
        nodebench_core::Better::Higher,
    )
    .with_reference(Some(one));
    let pct = m.percent_of_reference.unwrap();
    let w = p.above_peak("t=1", 33.6e9, 1, true).unwrap();
    assert!(
        w.contains(&format!("{pct:.1} % of the peak of the 1 core")),
        "{w}"
    );
}

fn round(hz: f64, on_cpu_hz: f64, share: f64) -> RoundSummary {
    RoundSummary {
        hz,
        on_cpu_hz: Some(on_cpu_hz),
        min_on_cpu: Some(share),
    }
}

#[test]
fn a_disturbed_clock_round_never_lowers_the_clock() {
    // Undisturbed rounds exist: the best of them, the disturbed one
    // (a hog took half of a thread's time) left out.
    let rounds = [
        round(2.80e9, 2.81e9, 0.99),
        round(1.45e9, 2.79e9, 0.52),
        round(2.82e9, 2.83e9, 0.97),
    ];
    assert_eq!(
        choose_clock(&rounds),
        Some(ClockProbe {
            hz: 2.82e9,
            uncertain: None
        })
    );
    // Every round disturbed: the on-CPU clock, marked uncertain.
    let rounds = [round(1.45e9, 2.79e9, 0.52), round(1.50e9, 2.80e9, 0.55)];
    let p = choose_clock(&rounds).unwrap();
    assert_eq!(p.hz, 2.80e9);
    assert_eq!(
        p.uncertain.as_deref(),
        Some(
            "all 2 rounds disturbed: a probe thread was on its CPU only 52-55 % of the wall time (another process, or steal); the clock is the adds over the threads' own CPU time (2.800 GHz against 1.500 GHz over wall time), not lowered"
        )
    );
    // Without schedstat nothing is known to be disturbed.
    let blind = RoundSummary {
        hz: 2.0e9,
        on_cpu_hz: None,
        min_on_cpu: None,
    };
    assert_eq!(choose_clock(&[blind]).unwrap().uncertain, None);
    assert_eq!(choose_clock(&[]), None);
}

#[test]
fn the_clock_is_the_measured_one_under_the_peaks_load_then_cpufreq_then_base() {
    let mut i = inv("Zen 3", "AMD EPYC", &["avx2", "fma"], 2, Some(3.5e9));
    let p = theoretical_peak(&i, |_| Some(3.1e9)).unwrap();
    assert_eq!(p.clock_hz, 3.1e9);
    assert_eq!(
        p.clock_source,
        "measured all-core under 256-bit FMA; cpufreq max 3.500 GHz"
    );
    // The run's recorded clock wins over a new measurement.
    i.cpu.peak_clock = Some(PeakClock {
        hz: 2.9e9,
        load: Load::Fma256.as_str().into(),
        method: "test".into(),
        uncertain: None,
    });
    let p = theoretical_peak(&i, |_| panic!("recorded")).unwrap();
    assert_eq!(p.clock_hz, 2.9e9);
    i.cpu.peak_clock = None;
    let p = theoretical_peak(&i, |_| None).unwrap();
    assert_eq!(
        (p.clock_hz, p.clock_source.as_str()),
        (3.5e9, "cpufreq max")
    );
    i.cpu.max_frequency_hz = None;
    let p = theoretical_peak(&i, |_| None).unwrap();
    assert_eq!((p.clock_hz, p.clock_source.as_str()), (2.0e9, "base"));
    let gold = inv(
        "Sapphire Rapids",
        "Intel Xeon Gold 6430",
        &["avx2", "fma", "avx512f"],
        1,
        None,
    );
    let core = core_flops(&gold).unwrap();
    assert_eq!(peak_load(&gold, &core), Load::Fma512);
}

#[test]
fn arm_cores_have_their_documented_flop_per_cycle() {
    let neon = ["fp", "asimd"];
    let sve = ["fp", "asimd", "sve"];
    for (uarch, flags, dp) in [
        ("Neoverse N1", &neon[..], 8),
        ("Neoverse N2", &sve[..], 8),
        ("Neoverse V1", &sve[..], 16),
        ("Neoverse V2", &sve[..], 16),
        ("A64FX", &sve[..], 32),
    ] {
        let i = inv(uarch, "", flags, 64, Some(2.6e9));
        let core = core_flops(&i).unwrap();
        assert_eq!(core.dp_per_cycle, dp, "{uarch}");
        assert!(core.basis.starts_with(uarch), "{}", core.basis);
        assert_eq!(peak_load(&i, &core), Load::Scalar, "{uarch}");
        let p = theoretical_peak(&i, |_| None).unwrap();
        assert_eq!(p.dp_flops(), 64.0 * 2.6e9 * dp as f64, "{uarch}");
    }
    // A64FX's peak is SVE's: without SVE exposed it is unknown.
    let a64fx = inv("A64FX", "", &neon, 48, Some(2.2e9));
    assert!(core_flops(&a64fx).unwrap_err().to_string().contains("SVE"));
    // A core outside the table is unknown, not guessed.
    let a72 = inv("Cortex-A72", "", &neon, 4, Some(1.5e9));
    assert!(
        core_flops(&a72)
            .unwrap_err()
            .to_string()
            .contains("Cortex-A72")
    );
}

#[test]
fn unknown_microarchitecture_or_hidden_isa_is_unknown() {
    let mut i = inv("Zen 3", "AMD EPYC", &["avx2", "fma"], 2, None);
    i.cpu.microarchitecture = None;
    assert!(
        theoretical_peak(&i, |_| None)
            .unwrap_err()
            .to_string()
            .contains("not recognised")
    );
    let hidden = inv("Zen 3", "AMD EPYC", &["sse2"], 2, None);
    assert!(
        core_flops(&hidden)
            .unwrap_err()
            .to_string()
            .contains("hidden")
    );
    let odd = inv("Itanium", "x", &[], 1, None);
    assert!(
        core_flops(&odd)
            .unwrap_err()
            .to_string()
            .contains("Itanium")
    );
}

#[test]
fn only_a_floating_effective_count_may_be_raised_by_a_results_cells() {
    let mut i = inv("Zen 3", "AMD EPYC", &["avx2", "fma"], 16, None);
    let effective = |count: u32, siblings: Vec<Vec<u32>>| {
        Some(nodebench_core::inventory::EffectiveCores {
            count,
            cpus: 16,
            siblings,
            method: "test".into(),
            uncertain: None,
        })
    };
    // All 16 ran 8.2x one, no fixed sets: floating over the host's cores.
    i.cpu.effective_cores = effective(8, Vec::new());
    let p = theoretical_peak(&i, |_| Some(3.0e9)).unwrap();
    assert_eq!((p.cores, p.floating_cpus), (8, Some(16)));
    // Fixed sibling pairs: SMT, a property of the hardware.
    i.cpu.effective_cores = effective(8, (0..8).map(|c| vec![c, c + 8]).collect());
    let p = theoretical_peak(&i, |_| Some(3.0e9)).unwrap();
    assert_eq!((p.cores, p.floating_cpus), (8, None));
    // No sharing, or no probe (physical cores).
    i.cpu.effective_cores = effective(16, Vec::new());
    assert_eq!(
        theoretical_peak(&i, |_| Some(3.0e9)).unwrap().floating_cpus,
        None
    );
    i.cpu.effective_cores = None;
    assert_eq!(
        theoretical_peak(&i, |_| Some(3.0e9)).unwrap().floating_cpus,
        None
    );
}
