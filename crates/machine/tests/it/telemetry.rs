//! The sampler against known load: a busy thread, 256 MiB of O_DIRECT
//! writes, and its own CPU cost.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use nodebench_core::TimeSeries;
use nodebench_core::buffer::Buffer;
use nodebench_core::names::telemetry::{label, series};
use nodebench_machine::telemetry::Sampler;

fn label_of<'a>(s: &'a TimeSeries, key: &str) -> &'a str {
    s.labels.get(key).map(String::as_str).unwrap_or("")
}

fn mean(s: &TimeSeries) -> f64 {
    s.points.iter().map(|p| p.1).sum::<f64>() / s.points.len() as f64
}

#[test]
fn a_busy_thread_shows_one_cpu_near_full_user_time() {
    let interval = Duration::from_millis(250);
    let sampler = Sampler::start(interval).unwrap();
    let cpu = *nodebench_core::affinity::allowed_cpus().first().unwrap();
    std::thread::sleep(interval);
    let from = Utc::now();
    std::thread::spawn(move || {
        nodebench_core::affinity::pin_current_thread(cpu);
        let end = Instant::now() + Duration::from_secs(2) + interval;
        let mut x = 0u64;
        while Instant::now() < end {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    })
    .join()
    .unwrap();
    let to = from + chrono::Duration::seconds(2);
    let window = sampler.window(from + chrono::Duration::milliseconds(250), to);
    let user: Vec<&TimeSeries> = window
        .iter()
        .filter(|s| s.name == series::CPU_USER)
        .collect();
    assert!(!user.is_empty(), "no {} series", series::CPU_USER);
    let busy = user
        .iter()
        .find(|s| label_of(s, label::CPU) == cpu.to_string())
        .unwrap_or_else(|| panic!("no {} series for cpu {cpu}", series::CPU_USER));
    assert!(
        busy.points.len() >= 5,
        "{} points in 1.75 s",
        busy.points.len()
    );
    eprintln!(
        "cpu {cpu}: {:.1} % user over {} points",
        mean(busy),
        busy.points.len()
    );
    assert!(mean(busy) > 80.0, "cpu {cpu} user {:.1} %", mean(busy));
}

/// The whole block device (in /sys/block) holding `dir`, or None on a
/// file system without one (tmpfs, overlay).
fn block_device_of(dir: &Path) -> Option<String> {
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return None;
    }
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let disk = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    let name = disk.file_name()?.to_string_lossy().into_owned();
    Path::new("/sys/block").join(&name).exists().then_some(name)
}

#[test]
fn writing_256_mib_with_o_direct_shows_on_its_device() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("nodebench-telemetry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(device) = block_device_of(&dir) else {
        eprintln!(
            "SKIPPED: {} is on no block device (tmpfs or overlay)",
            dir.display()
        );
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    };
    const CHUNK: usize = 1 << 20;
    const TOTAL: usize = 256 << 20;
    let buf: Buffer<u8> = Buffer::new(CHUNK, false, "the test's buffer").unwrap();
    // SAFETY: the buffer holds CHUNK bytes and nothing else uses it.
    let data = unsafe { std::slice::from_raw_parts_mut(buf.as_ptr(), CHUNK) };
    data.iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = (i * 7) as u8);

    let interval = Duration::from_millis(200);
    let sampler = Sampler::start(interval).unwrap();
    std::thread::sleep(interval);
    let from = Utc::now();
    let path = dir.join("direct");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .unwrap();
    for _ in 0..TOTAL / CHUNK {
        file.write_all(data).unwrap();
    }
    file.sync_all().unwrap();
    drop(file);
    std::thread::sleep(interval * 2);
    let to = Utc::now();
    std::fs::remove_dir_all(&dir).unwrap();

    let window = sampler.window(from, to);
    let written = window
        .iter()
        .find(|s| s.name == series::DISK_WRITE_BYTES && label_of(s, label::DEVICE) == device)
        .unwrap_or_else(|| panic!("no {} series for {device}", series::DISK_WRITE_BYTES));
    // Integrate the rate over each sample's interval (the first one is the
    // nominal interval; it began before `from`).
    let mut bytes = 0.0;
    let mut last = None;
    for &(t, v) in &written.points {
        let dt = last.map_or(interval.as_secs_f64(), |l| t - l);
        bytes += v * dt;
        last = Some(t);
    }
    let ratio = bytes / TOTAL as f64;
    eprintln!("{bytes:.0} bytes written on {device} for {TOTAL} ({ratio:.3})");
    assert!(
        (0.9..=1.1).contains(&ratio),
        "{bytes:.0} bytes written on {device} for {TOTAL} ({ratio:.3})"
    );
}

#[test]
#[ignore = "takes 30 s: run with --ignored to measure the sampler's own cost"]
fn the_sampler_costs_under_one_percent_of_a_core() {
    let run = Duration::from_secs(30);
    let sampler = Sampler::start(Duration::from_secs(1)).unwrap();
    std::thread::sleep(run + Duration::from_millis(100));
    let cost = sampler.own_cpu_time();
    let share = cost.as_secs_f64() * 100.0 / run.as_secs_f64();
    eprintln!("sampler CPU time over {run:?} at 1 s: {cost:?} ({share:.3} % of one core)");
    assert!(share < 1.0, "{share:.3} % of one core");
}

#[test]
fn sample_now_puts_the_end_of_a_short_result_in_its_window() {
    // An interval far longer than the "result": without sample_now its
    // window would be empty.
    let sampler = Sampler::start(Duration::from_secs(30)).unwrap();
    let from = Utc::now();
    std::thread::sleep(Duration::from_millis(100));
    let to = Utc::now();
    assert!(sampler.window(from, to).is_empty());
    let asked = Instant::now();
    sampler.sample_now();
    assert!(
        asked.elapsed() < Duration::from_millis(500),
        "sample_now waited"
    );
    let window = sampler.window(from, to);
    let user = window
        .iter()
        .find(|s| s.name == series::CPU_USER)
        .expect("the forced sample's CPU series");
    let span = (to - from).num_microseconds().unwrap() as f64 / 1e6;
    assert_eq!(user.points.len(), 1);
    assert_eq!(user.points[0].0, span, "stamped at the result's end");
}
