//! `gom build`: a folder of mixed inputs, incremental rebuilds, thread-count
//! independence and failure isolation.

use std::path::Path;
use std::process::Command;

mod common;
use common::build_tree::{mixed_inputs, report, statuses, tree};
use common::{gom, s};

#[test]
fn incremental_builds_rebuild_only_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    let n = mixed_inputs(&src);

    let first = gom(&["build", s(&src), s(&out), "--report", "json", "-q"]);
    let r = report(&first);
    assert_eq!(first.status.code(), Some(0), "{r:#}");
    assert_eq!(r["converted"].as_u64(), Some(n as u64), "{r:#}");
    // Every output exists, in the same layout, and validates.
    for (source, _) in statuses(&r) {
        let output = out.join(Path::new(&source).with_extension("gom"));
        assert!(output.exists(), "{} missing", output.display());
        let v = gom(&["validate", s(&output)]);
        assert_eq!(v.status.code(), Some(0), "{v:?}");
    }

    let second = report(&gom(&["build", s(&src), s(&out), "--report", "json", "-q"]));
    assert_eq!(second["converted"].as_u64(), Some(0), "{second:#}");
    assert_eq!(second["upToDate"].as_u64(), Some(n as u64));

    // Change one source's bytes: only it is rebuilt.
    let touched = src.join("gen/set0/t0.gomt");
    let mut text = std::fs::read_to_string(&touched).unwrap();
    text.push_str("# edited\n");
    std::fs::write(&touched, text).unwrap();
    let third = report(&gom(&["build", s(&src), s(&out), "--report", "json", "-q"]));
    let st = statuses(&third);
    for (source, status) in &st {
        let expected = if source == "gen/set0/t0.gomt" {
            "converted"
        } else {
            "up-to-date"
        };
        assert_eq!(status, expected, "{source}");
    }

    // An output changed behind the build's back is rebuilt too.
    std::fs::write(out.join("gen/set1/m1.gom"), b"tampered").unwrap();
    let fourth = report(&gom(&["build", s(&src), s(&out), "--report", "json", "-q"]));
    assert_eq!(statuses(&fourth)["gen/set1/m1.gom"], "converted");
    assert_eq!(fourth["converted"].as_u64(), Some(1));

    // A different option rebuilds everything.
    let fifth = report(&gom(&[
        "build",
        s(&src),
        s(&out),
        "--sample-rate",
        "24",
        "--report",
        "json",
        "-q",
    ]));
    assert_eq!(fifth["converted"].as_u64(), Some(n as u64), "{fifth:#}");
}

/// Every import option, each with a value other than its default.
const EVERY_OPTION_CHANGED: &[&[&str]] = &[
    &["--sample-rate", "24"],
    &["--no-optimize"],
    &["--key-tolerance-mm", "2"],
    &["--lod", "1"],
    &["--tkl", "elsewhere.tkl"],
    &["--tml", "elsewhere.tml"],
    &["--handedness", "left"],
    &["--channel-flag3", "translation-only"],
];

#[test]
fn changing_any_one_import_option_rebuilds_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    let n = mixed_inputs(&src) as u64;
    let build = |extra: &[&str]| {
        let mut args = vec!["build", s(&src), s(&out), "--report", "json", "-q"];
        args.extend_from_slice(extra);
        report(&gom(&args))
    };
    let built =
        |r: &serde_json::Value| r["converted"].as_u64().unwrap() + r["failed"].as_u64().unwrap();
    build(&[]);
    for option in EVERY_OPTION_CHANGED {
        let changed = build(option);
        assert_eq!(
            built(&changed),
            n,
            "{option:?} left outputs as they were: {changed:#}"
        );
        let again = build(option);
        assert_eq!(
            again["upToDate"].as_u64().unwrap() + again["failed"].as_u64().unwrap(),
            n,
            "{option:?} twice: {again:#}"
        );
        let back = build(&[]);
        assert_eq!(built(&back), n, "{option:?} back to the default: {back:#}");
    }
}

#[test]
fn output_does_not_depend_on_the_number_of_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    mixed_inputs(&src);
    let one = tmp.path().join("one");
    let four = tmp.path().join("four");
    for (dir, jobs) in [(&one, "1"), (&four, "4")] {
        let o = gom(&["build", s(&src), s(dir), "--jobs", jobs, "-q"]);
        assert!(o.status.success(), "{o:?}");
    }
    let a = tree(&one);
    let b = tree(&four);
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same file names"
    );
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs between --jobs 1 and --jobs 4"
        );
    }
}

#[test]
fn a_corrupt_file_fails_alone_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    let n = mixed_inputs(&src);
    // A GOM file cut in the middle, and an FBX that is not one.
    let good = std::fs::read(src.join("gen/set0/m0.gom")).unwrap();
    std::fs::write(src.join("gen/broken.gom"), &good[..good.len() / 2]).unwrap();
    std::fs::write(
        src.join("gen/not-really.fbx"),
        b"Kaydara FBX Binary  \0garbage",
    )
    .unwrap();

    let o = gom(&["build", s(&src), s(&out), "--report", "json", "-q"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a failure makes the exit code non-zero"
    );
    let r = report(&o);
    assert_eq!(r["failed"].as_u64(), Some(2), "{r:#}");
    assert_eq!(r["converted"].as_u64(), Some(n as u64), "{r:#}");
    let st = statuses(&r);
    assert_eq!(st["gen/broken.gom"], "failed");
    assert_eq!(st["gen/not-really.fbx"], "failed");
    let files = tree(&out);
    assert!(!files.contains_key("gen/broken.gom"));
    assert!(!files.contains_key("gen/not-really.gom"));
    assert!(
        files.keys().all(|k| !k.ends_with(".tmp")),
        "no temporary file left: {:?}",
        files.keys().collect::<Vec<_>>()
    );
    let failure = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["source"] == "gen/broken.gom")
        .unwrap();
    assert!(
        failure["detail"].as_str().unwrap().contains("broken.gom"),
        "the error names the file: {failure}"
    );
}

#[cfg(unix)]
#[test]
fn a_link_back_to_an_ancestor_does_not_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let sub = src.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("m.gom"),
        gom::gomb::write(&gom_demo::build()).unwrap(),
    )
    .unwrap();
    std::os::unix::fs::symlink(&src, sub.join("loop")).unwrap();
    let out = tmp.path().join("out");
    let o = gom(&["build", s(&src), s(&out), "--report", "json", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(report(&o)["converted"].as_u64(), Some(1));
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_and_the_next_run_finishes_the_job() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    let text = gom::gomt::write(&gom_demo::build()).unwrap();
    for i in 0..300 {
        std::fs::write(src.join(format!("m{i:03}.gomt")), &text).unwrap();
    }
    let child = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args(["build", s(&src), s(&out), "--jobs", "2", "-q"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt it once it has started writing outputs (or has finished).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline
        && std::fs::read_dir(&out).map_or(0, |d| d.count()) < 5
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let interrupted = child.wait_with_output().unwrap();
    // Cancelled (1) or, if it won the race, finished (0); never killed mid-write.
    assert!(
        matches!(interrupted.status.code(), Some(0) | Some(1)),
        "{interrupted:?}"
    );
    let files = tree(&out);
    assert!(
        files.keys().all(|k| !k.ends_with(".tmp")),
        "no temporary file is left behind"
    );
    for (name, bytes) in &files {
        if name.ends_with(".gom") {
            gom::gomb::read(bytes).unwrap_or_else(|e| panic!("{name} is whole: {e}"));
        }
    }
    let again = report(&gom(&["build", s(&src), s(&out), "--report", "json", "-q"]));
    assert_eq!(again["failed"].as_u64(), Some(0));
    assert_eq!(again["cancelled"].as_u64(), Some(0));
    let done = again["converted"].as_u64().unwrap() + again["upToDate"].as_u64().unwrap();
    assert_eq!(done, 300, "{again:#}");
}

/// `count` demo models under `dir`, some in a subfolder.
fn demo_sources(dir: &Path, count: usize) {
    let model = gom::gomb::write(&gom_demo::build()).unwrap();
    for i in 0..count {
        let sub = dir.join(if i % 2 == 0 { "a" } else { "b/c" });
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("m{i}.gom")), &model).unwrap();
    }
}

#[test]
fn an_output_folder_inside_the_sources_is_left_out_only_when_it_holds_no_sources() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    demo_sources(&src, 3);
    // `src/b` holds a source: building into it would skip that source silently.
    let inside = src.join("b");
    let before = tree(&src);
    let refused = gom(&["build", s(&src), s(&inside)]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("m1.gom") && err.contains("inside the source folder"),
        "{err}"
    );
    assert_eq!(tree(&src), before, "nothing written");

    // An output folder of its own inside the sources is left out, and said so; a
    // second build finds only its own outputs there.
    let out = src.join("built");
    for run in 0..2 {
        let o = gom(&["build", s(&src), s(&out), "--report", "json"]);
        let r = report(&o);
        assert_eq!(o.status.code(), Some(0), "run {run}: {r:#}");
        assert_eq!(statuses(&r).len(), 3, "run {run}: {r:#}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("left out of the sources"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn a_closed_output_does_not_stop_a_build() {
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    demo_sources(&src, 6);
    // Both outputs are pipes nobody reads (opened close-on-exec by std::io::pipe, so
    // no other test's child keeps them open).
    let (r1, w1) = std::io::pipe().unwrap();
    let (r2, w2) = std::io::pipe().unwrap();
    drop((r1, r2));
    let status = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args(["build", s(&src), s(&out), "-j", "1"])
        .stdout(Stdio::from(w1))
        .stderr(Stdio::from(w2))
        .status()
        .unwrap();
    assert_ne!(status.code(), Some(101), "{status:?}");
    let built = tree(&out);
    let outputs = built.keys().filter(|k| k.ends_with(".gom")).count();
    assert_eq!(outputs, 6, "{:?}", built.keys().collect::<Vec<_>>());
    let manifest = gom_import::build::MANIFEST_NAME;
    assert!(built.contains_key(manifest), "{:?}", built.keys());
}
