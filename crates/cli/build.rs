//! Records what the binary is built from for `--version` and every stored
//! run: the git commit (with `-dirty` when tracked files differ from it),
//! the build date (UTC, or `SOURCE_DATE_EPOCH` for a reproducible build)
//! and the target triple.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let git = root.join(".git");
    if git.is_dir() {
        for p in ["HEAD", "index", "refs"] {
            println!("cargo:rerun-if-changed={}", git.join(p).display());
        }
        // Tracked sources decide `-dirty`.
        if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
            for c in crates.flatten() {
                println!("cargo:rerun-if-changed={}", c.path().join("src").display());
                println!(
                    "cargo:rerun-if-changed={}",
                    c.path().join("Cargo.toml").display()
                );
            }
        }
    }
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let commit = git_commit(&root).unwrap_or_default();
    println!("cargo:rustc-env=NODEBENCH_COMMIT={commit}");
    println!("cargo:rustc-env=NODEBENCH_BUILD_DATE={}", build_date());
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=NODEBENCH_TARGET={target}");
}

/// `git rev-parse --short=12 HEAD`, plus `-dirty` when tracked files differ.
fn git_commit(root: &Path) -> Option<String> {
    let run = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let head = run(&["rev-parse", "--short=12", "HEAD"])?;
    let dirty = run(&["status", "--porcelain", "--untracked-files=no"])?;
    Some(if dirty.is_empty() {
        head
    } else {
        format!("{head}-dirty")
    })
}

/// Today (UTC) or `SOURCE_DATE_EPOCH`'s day, as YYYY-MM-DD.
fn build_date() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
