//! Unit tests of suite reading, `--set` and the step-to-argv conversion.

use super::*;

fn suite(text: &str) -> Result<Suite, SuiteError> {
    parse(text, "s.toml")
}

fn setting(step: Option<&str>, key: &str, value: &str) -> Setting {
    Setting {
        step: step.map(str::to_string),
        key: key.into(),
        value: value.into(),
    }
}

#[test]
fn every_builtin_parses_under_its_name_and_builds_its_benchmarks() {
    for (name, text) in BUILTINS {
        let s = parse(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.name, name);
        assert!(!s.description.is_empty(), "{name}");
        let benches = benchmarks(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
        // One benchmark a step: a step's repeats are the runner's.
        assert_eq!(benches.len(), s.steps.len(), "{name}");
        for b in &benches {
            b.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn steps_become_the_arguments_of_their_runnable() {
    let s = suite(
        "name = \"x\"\n[[step]]\nbench = \"disk.iozone\"\nfile-size = \"64M\"\ntests = [\"write\", \"read\"]\nfsync = true\npurge = false\ndir = \"/d\"\n\
         [[step]]\nbench = \"http.load\"\nurl = \"http://127.0.0.1:1/\"\nheader = [\"A: 1\", \"B: 2\"]\nrequests = 10\n",
    )
    .unwrap();
    let a = tokens(&s, &s.steps[0], &step_command(s.steps[0].bench)).unwrap();
    assert_eq!(
        a,
        [
            "--dir=/d",
            "--file-size=64M",
            "--fsync",
            "--tests=write",
            "--tests=read"
        ]
    );
    let (client, _) = http_load_threads(affinity::allowed_cpus().len());
    let a = tokens(&s, &s.steps[1], &step_command(s.steps[1].bench)).unwrap();
    assert_eq!(
        a,
        [
            "--header=A: 1",
            "--header=B: 2",
            "--requests=10",
            &format!("--threads={client}"),
            "--",
            "http://127.0.0.1:1/"
        ]
    );
}

#[test]
fn http_load_threads_split_the_cpus_between_client_and_server() {
    assert_eq!(http_load_threads(1), (1, 1));
    assert_eq!(http_load_threads(2), (1, 1));
    assert_eq!(http_load_threads(3), (1, 2));
    assert_eq!(http_load_threads(16), (8, 8));
    assert_eq!(http_load_threads(128), (64, 64));
    assert_eq!(http_load_threads(512), (256, 256));
    assert_eq!(http_load_threads(4096), (1024, 1024));
}

#[test]
fn http_load_steps_get_client_and_server_threads_unless_given() {
    let (client, server) = http_load_threads(affinity::allowed_cpus().len());
    let s = suite(
        "name = \"x\"\n[[step]]\nbench = \"http.load\"\nurl = \"/3985\"\n\
         [[step]]\nbench = \"http.load\"\nurl = \"/3985\"\nthreads = 3\nserver-threads = 5\n",
    )
    .unwrap();
    let a = tokens(&s, &s.steps[0], &step_command(s.steps[0].bench)).unwrap();
    assert_eq!(
        a,
        [
            &format!("--threads={client}"),
            &format!("--server-threads={server}"),
            "--",
            "/3985"
        ]
    );
    let a = tokens(&s, &s.steps[1], &step_command(s.steps[1].bench)).unwrap();
    assert_eq!(a, ["--server-threads=5", "--threads=3", "--", "/3985"]);
}

#[test]
fn unnamed_steps_take_their_id_with_a_suffix_when_repeated() {
    let s = suite(
        "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\n[[step]]\nbench = \"cpu.ops\"\n[[step]]\nbench = \"cpu.ops\"\nname = \"cpu.ops-2\"\n",
    )
    .unwrap();
    let names: Vec<&str> = s.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["cpu.ops", "cpu.ops-3", "cpu.ops-2"]);
    let e = suite("name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nname = \"a\"\n[[step]]\nbench = \"cpu.ops\"\nname = \"a\"\n")
        .unwrap_err();
    assert!(e.0.starts_with("s.toml:4: step 'a', key 'name': "), "{e}");
}

#[test]
fn errors_name_the_line_the_step_and_the_key() {
    let e = suite("name = \"x\"\n\n[[step]]\nbench = \"cpu.flops\"\n").unwrap_err();
    assert!(
        e.0.starts_with("s.toml:4: key 'bench': unknown benchmark 'cpu.flops' (accepted: cpu.ops,"),
        "{e}"
    );
    for bad in ["0", "\"often\"", "1.5", "true"] {
        let e = suite(&format!(
            "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nrepeat = {bad}\n"
        ))
        .unwrap_err();
        assert!(
            e.0.starts_with(
                "s.toml:4: step 'cpu.ops', key 'repeat': expected a whole number of runs 1..=10000, or \"auto\""
            ),
            "{e}"
        );
    }
    // A count or auto: the step's benchmark says so to the runner.
    for (text, want) in [("3", Mode::Times(3)), ("\"auto\"", Mode::Auto)] {
        let s = suite(&format!(
            "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nrepeat = {text}\n"
        ))
        .unwrap();
        assert_eq!(s.steps[0].repeat, Some(want));
        assert_eq!(benchmarks(&s).unwrap()[0].repeat(), Some(want));
    }
    let s = suite("name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\n").unwrap();
    assert_eq!(benchmarks(&s).unwrap()[0].repeat(), None);
    let e = suite("name = \"x\"\n[[step]\n").unwrap_err();
    assert!(e.0.starts_with("s.toml:2: malformed TOML"), "{e}");
    let e = suite("name = \"x\"\nthresholds = [\"cpu.ops rate\"]\n[[step]]\nbench = \"cpu.ops\"\n")
        .unwrap_err();
    assert!(
        e.0.starts_with("s.toml:2: key 'thresholds': invalid threshold 'cpu.ops rate'"),
        "{e}"
    );
    let s = suite("name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\n\nthreads = \"1,2\"\nwarp = 9\n")
        .unwrap();
    let e = benchmarks(&s).err().unwrap();
    assert!(e.0.starts_with("s.toml:6: step 'cpu.ops', key 'warp': unknown parameter of cpu.ops (accepted: threads, duration,"), "{e}");
    let s = suite("name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nduration = \"fast\"\n").unwrap();
    let e = benchmarks(&s).err().unwrap();
    assert!(e.0.starts_with("s.toml:4: step 'cpu.ops', key 'duration': invalid value 'fast' for '--duration <DURATION>'"), "{e}");
    let s = suite("name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nno-pin = 3\n").unwrap();
    let e = benchmarks(&s).err().unwrap();
    assert!(
        e.0.contains("key 'no-pin': invalid value '3': a bare flag takes true or false"),
        "{e}"
    );
}

#[test]
fn settings_reach_the_steps_that_take_them() {
    let mut s = suite(
        "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nthreads = \"1\"\n[[step]]\nbench = \"memory.stream\"\n[[step]]\nbench = \"disk.dd\"\n",
    )
    .unwrap();
    apply(
        &mut s,
        &[
            setting(None, "threads", "2"),
            setting(Some("disk.dd"), "count", "4"),
        ],
    )
    .unwrap();
    let value = |i: usize, k: &str| {
        s.steps[i]
            .params
            .iter()
            .find(|p| p.key == k)
            .map(|p| p.value.clone())
    };
    assert_eq!(value(0, "threads"), Some(Value::Text("2".into())));
    assert_eq!(value(1, "threads"), Some(Value::Text("2".into())));
    assert_eq!(value(2, "threads"), None);
    assert_eq!(value(2, "count"), Some(Value::Text("4".into())));
    let e = apply(&mut s.clone(), &[setting(None, "warp", "1")]).unwrap_err();
    assert!(
        e.0.starts_with("--set warp: no step of suite 'x' takes 'warp'"),
        "{e}"
    );
    let e = apply(&mut s.clone(), &[setting(Some("nope"), "count", "1")]).unwrap_err();
    assert!(
        e.0.starts_with("--set nope.count: suite 'x' has no step 'nope'"),
        "{e}"
    );
    let e = apply(&mut s.clone(), &[setting(Some("cpu.ops"), "count", "1")]).unwrap_err();
    assert!(
        e.0.starts_with("--set cpu.ops.count: step 'cpu.ops' (cpu.ops) takes no 'count'"),
        "{e}"
    );
    apply(&mut s, &[setting(Some("memory.stream"), "ntimes", "x")]).unwrap();
    let e = benchmarks(&s).err().unwrap();
    assert!(
        e.0.starts_with("s.toml: --set: step 'memory.stream', key 'ntimes': invalid value 'x'"),
        "{e}"
    );
}

#[test]
fn step_thresholds_are_scoped_to_the_step() {
    let s = suite(
        "name = \"x\"\nthresholds = [\"cpu.ops rate >= 1\"]\n[[step]]\nbench = \"cpu.ops\"\nname = \"one\"\nthresholds = [\"cpu.ops rate >= 2\"]\n",
    )
    .unwrap();
    let t = thresholds(&s);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].scope, None);
    assert_eq!(t[1].scope, Some(("step".into(), "one".into())));
}
