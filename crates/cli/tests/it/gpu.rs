//! `nodebench gpu ...` on a machine without an NVIDIA GPU (this one, and
//! any CI runner): bad flags exit 2 naming the flag, a valid command exits 3
//! with one line saying what is missing, and nothing is stored. With
//! `NODEBENCH_CUDA_LIB_DIRS` pointing at an empty directory the search
//! finds nothing even where a driver is installed.

use crate::common;

use common::bin;

fn gpu(args: &[&str]) -> (i32, String, String) {
    let empty = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("--store")
        .arg(store.path().join("r.db"))
        .arg("gpu")
        .args(args)
        .env("NODEBENCH_CUDA_LIB_DIRS", empty.path())
        .output()
        .unwrap();
    assert!(
        !store.path().join("r.db").exists(),
        "a refused gpu command stored a run"
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_a_gpu_every_command_exits_3_with_one_line() {
    for cmd in [
        &["stream"][..],
        &["gemm", "--sizes", "1024"],
        &["bandwidth"],
        &["burn", "--duration", "5s"],
    ] {
        let (code, stdout, stderr) = gpu(cmd);
        assert_eq!(code, 3, "{cmd:?}: {stderr}");
        assert_eq!(stdout, "", "{cmd:?}");
        assert_eq!(
            stderr, "error: no NVIDIA GPU: libcuda.so.1 not found\n",
            "{cmd:?}"
        );
    }
}

#[test]
fn bad_flags_are_refused_before_looking_for_a_gpu() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["stream", "--ntimes", "1"],
            "error: gpu.stream: --ntimes: expected 2 to 10000, got 1\n",
        ),
        (
            &["stream", "--array-size", "1000"],
            "error: gpu.stream: --array-size: expected a multiple of 1024 of at least 1048576 elements (e.g. 268435456), got 1000\n",
        ),
        (
            &["gemm", "--precisions", "fp4"],
            "error: gpu.gemm: --precisions: unknown precision \"fp4\" (expected fp64, fp32, tf32, fp16, bf16 or fp8)\n",
        ),
        (
            &["gemm", "--sizes", "100"],
            "error: gpu.gemm: --sizes: expected multiples of 64 from 64 to 65536 (e.g. 4096,8192), got [100]\n",
        ),
        (
            &["burn", "--precision", "int8"],
            "error: gpu.burn: --precision: unknown precision \"int8\" (expected fp64, fp32, tf32, fp16, bf16 or fp8)\n",
        ),
        (
            &["burn", "--duration", "1s"],
            "error: gpu.burn: --duration: expected 2s to 30d (e.g. 60s, 8h)\n",
        ),
        (
            &["bandwidth", "--size", "1KiB"],
            "error: gpu.bandwidth: --size: expected 1 MiB to 64 GiB per copy (e.g. 256MiB), got 1024 B\n",
        ),
    ];
    for (args, want) in cases {
        let (code, _, stderr) = gpu(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr, want, "{args:?}");
    }
}

#[test]
fn the_inventory_says_there_is_no_driver() {
    let empty = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["inventory", "--json"])
        .env("NODEBENCH_CUDA_LIB_DIRS", empty.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let inv: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        inv["gpus"]["unavailable"],
        "no NVIDIA driver: libnvidia-ml.so.1 not found"
    );
    assert_eq!(inv["gpus"]["devices"], serde_json::json!([]));
}

#[test]
fn the_gpu_node_suite_without_a_gpu_exits_3_before_running_anything() {
    let empty = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("--store")
        .arg(store.path().join("r.db"))
        .args(["suite", "run", "gpu-node"])
        .env("NODEBENCH_CUDA_LIB_DIRS", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: suite gpu-node: step gpu.stream needs an NVIDIA GPU: no NVIDIA GPU: libcuda.so.1 not found\n"
    );
    assert!(!store.path().join("r.db").exists(), "nothing ran");
}
