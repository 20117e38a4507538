//! What a user runs into: no command writes over its own input, colliding sources are
//! reported, a closed pipe ends quietly, and every message names the real problem.

mod common;

use common::{gom, png_size, s, shared_data};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The demo model as `dir/demo.gom` (and `.gomt`, `.glb`).
fn demo(dir: &Path) -> PathBuf {
    let out = gom(&["demo", s(dir)]);
    assert!(out.status.success(), "{out:?}");
    dir.join("demo.gom")
}

/// A copy of the shared glTF samples `names` in a new folder `dir/name`.
fn copy_gltf(dir: &Path, name: &str, files: &[&str]) -> Option<PathBuf> {
    let data = shared_data("gltf")?;
    let to = dir.join(name);
    std::fs::create_dir_all(&to).unwrap();
    for f in files {
        std::fs::copy(data.join(f), to.join(f)).unwrap();
    }
    Some(to)
}

#[test]
fn convert_refuses_to_write_over_its_input_through_any_path() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let before = std::fs::read(&model).unwrap();
    let dotted = tmp.path().join("sub/../demo.gom");
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    let mut targets = vec![model.clone(), dotted];
    #[cfg(unix)]
    {
        let link = tmp.path().join("link.gom");
        std::os::unix::fs::symlink(&model, &link).unwrap();
        targets.push(link);
    }
    for target in &targets {
        let out = gom(&["convert", s(&model), s(target)]);
        assert_eq!(out.status.code(), Some(2), "{}: {out:?}", target.display());
        assert!(
            stderr(&out).contains("would replace the input"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read(&model).unwrap(), before);
}

#[test]
fn convert_refuses_to_write_over_a_companion_file() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(dir) = copy_gltf(
        tmp.path(),
        "c",
        &["InterpolationTest.gltf", "interpolation.bin"],
    ) else {
        return;
    };
    let bin = dir.join("interpolation.bin");
    let before = std::fs::read(&bin).unwrap();
    // `interpolation.gltf` writes its buffer to `interpolation.bin`: the source's own.
    let out = gom(&[
        "convert",
        s(&dir.join("InterpolationTest.gltf")),
        s(&dir.join("interpolation.gltf")),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("interpolation.bin"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&bin).unwrap(), before);
    assert!(!dir.join("interpolation.gltf").exists());
}

#[test]
fn build_in_place_is_refused_before_anything_is_converted() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(dir) = copy_gltf(tmp.path(), "inplace", &["SimpleSkin.gltf"]) else {
        return;
    };
    let source = dir.join("SimpleSkin.gltf");
    let before = std::fs::read(&source).unwrap();
    let out = gom(&["build", s(&dir), s(&dir), "--format", "gltf"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("source folder"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&source).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "nothing written"
    );
}

#[test]
fn build_refuses_an_output_that_is_a_source_of_another_folder_layout() {
    // The output folder holds, under the name an output gets, a link to a source.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out_dir = tmp.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    demo(&src);
    std::fs::remove_file(src.join("demo.glb")).unwrap();
    std::fs::remove_file(src.join("demo.gom")).unwrap();
    let before = std::fs::read(src.join("demo.gomt")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(src.join("demo.gomt"), out_dir.join("demo.gomt")).unwrap();
        let out = gom(&["build", s(&src), s(&out_dir), "--format", "gomt"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            stderr(&out).contains("would replace the input"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(src.join("demo.gomt")).unwrap(), before);
    }
}

#[test]
fn two_sources_for_one_output_are_both_reported_and_a_rerun_settles() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out_dir = tmp.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    demo(&src); // demo.gom, demo.gomt and demo.glb: all three map to demo.gom
    std::fs::create_dir(src.join("single")).unwrap();
    std::fs::copy(src.join("demo.gom"), src.join("single/alone.gom")).unwrap();
    let run = || gom(&["build", s(&src), s(&out_dir), "--report", "json"]);
    let mut reports = Vec::new();
    for _ in 0..2 {
        let out = run();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        reports.push(report);
    }
    let [first, second] = [&reports[0], &reports[1]];
    assert_eq!(first["failed"], 3, "{first:#}");
    assert_eq!(first["converted"], 1, "{first:#}");
    for f in first["files"].as_array().unwrap() {
        if f["source"].as_str().unwrap().starts_with("demo.") {
            let detail = f["detail"].as_str().unwrap();
            for name in ["demo.glb", "demo.gom", "demo.gomt"] {
                assert!(detail.contains(name), "{detail}");
            }
        }
    }
    assert!(!out_dir.join("demo.gom").exists());
    // The rerun converts nothing and fails the same way.
    assert_eq!(second["converted"], 0, "{second:#}");
    assert_eq!(second["upToDate"], 1, "{second:#}");
    assert_eq!(second["failed"], 3, "{second:#}");
}

/// Runs gom with its standard output a pipe whose reading end is already closed.
/// `std::io::pipe` opens both ends close-on-exec: tests run in parallel threads, and a
/// child another test spawns meanwhile must not inherit the reading end (it would keep
/// the pipe open, and the command would write without SIGPIPE and exit 0).
#[cfg(unix)]
fn gom_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_gom"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_ends_every_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let build_out = tmp.path().join("built");
    let commands: Vec<Vec<&str>> = vec![
        vec!["info", s(&model)],
        vec!["info", "--json", s(&model)],
        vec!["validate", s(&model)],
        vec!["build", s(tmp.path()), s(&build_out), "--report", "json"],
        vec!["pose", s(&model), "-o", "-"],
        vec!["render", s(&model), "-o", "-"],
    ];
    for args in &commands {
        let out = gom_into_closed_pipe(args);
        assert_ne!(out.status.code(), Some(101), "{args:?}: {out:?}");
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
        // Ended by SIGPIPE, as `head` expects of a Unix tool.
        assert_eq!(out.status.signal(), Some(13), "{args:?}: {out:?}");
    }
}

#[test]
fn empty_and_mislabelled_files_say_what_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["empty.gom", "empty.fbx", "empty.gltf", "empty.tmd"] {
        let path = tmp.path().join(name);
        std::fs::write(&path, b"").unwrap();
        let out = gom(&["info", s(&path)]);
        assert_eq!(out.status.code(), Some(2), "{name}: {out:?}");
        assert!(
            stderr(&out).contains("the file is empty"),
            "{name}: {}",
            stderr(&out)
        );
    }
    let json_glb = tmp.path().join("json.glb");
    std::fs::write(&json_glb, br#"{"asset":{"version":"2.0"}}"#).unwrap();
    let out = gom(&["info", s(&json_glb)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("not a GLB container"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn output_errors_name_the_users_path() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let file = tmp.path().join("out.gom");
    std::fs::write(&file, b"a file").unwrap();
    let inside = file.join("x.gom");
    let out = gom(&["convert", s(&model), s(&inside)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains(s(&inside)), "{err}");
    assert!(err.contains("is a file, not a folder"), "{err}");
    assert!(!err.contains(".x.gom."), "a temporary file named: {err}");
    // An unwritable folder: the message names the output, not a temporary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = tmp.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let target = ro.join("x.gomt");
        let out = gom(&["convert", s(&model), s(&target)]);
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
        if !out.status.success() {
            // (root may write anyway)
            assert!(stderr(&out).contains(s(&target)), "{}", stderr(&out));
            assert!(!stderr(&out).contains(".x.gomt."), "{}", stderr(&out));
        }
    }
}

#[test]
fn unknown_output_formats_list_the_accepted_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let by_flag = gom(&[
        "convert",
        s(&model),
        s(&tmp.path().join("x.gom")),
        "--to",
        "obj",
    ]);
    let by_ext = gom(&["convert", s(&model), s(&tmp.path().join("x.obj"))]);
    let build = gom(&[
        "build",
        s(tmp.path()),
        s(&tmp.path().join("b")),
        "--format",
        "obj",
    ]);
    for out in [by_flag, by_ext, build] {
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            stderr(&out).contains("gom, gomt, glb, gltf"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn convert_writes_a_model_with_findings_and_exits_1_with_them_as_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let mut model = gom_demo::build();
    let skinned = model
        .meshes
        .iter_mut()
        .find(|m| m.vertices.skin.is_some())
        .unwrap();
    skinned.vertices.skin.as_mut().unwrap()[0].weights = [0.5, 0.0, 0.0, 0.0];
    let bad = tmp.path().join("bad.gom");
    std::fs::write(&bad, gom::gomb::write(&model).unwrap()).unwrap();
    let text = tmp.path().join("bad.gomt");
    let out = gom(&["convert", s(&bad), s(&text)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains("warning: validation: weightsPass"),
        "{}",
        stderr(&out)
    );
    assert!(text.is_file());
}

#[test]
fn convert_to_gltf_names_the_buffer_it_writes_beside() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let out = gom(&["convert", s(&model), s(&tmp.path().join("x.gltf"))]);
    assert!(out.status.success(), "{out:?}");
    let bin = tmp.path().join("x.bin");
    assert!(bin.is_file());
    assert!(stderr(&out).contains(s(&bin)), "{}", stderr(&out));
}

#[test]
fn pose_clamps_times_outside_the_clip_with_a_note_and_wraps_with_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let clip = &gom_demo::build().clips[0];
    let (name, duration) = (clip.name.clone(), clip.duration);
    let pose = |time: &str, extra: &[&str], obj: &str| {
        let obj = tmp.path().join(obj);
        let mut args = vec![
            "pose",
            s(&model),
            "--clip",
            &name,
            "--time",
            time,
            "-o",
            s(&obj),
        ];
        args.extend_from_slice(extra);
        let out = gom(&args);
        assert!(out.status.success(), "{time}: {out:?}");
        (std::fs::read_to_string(obj).unwrap(), stderr(&out))
    };
    let (start, _) = pose("0", &[], "start.obj");
    let (before, note) = pose("-1", &[], "before.obj");
    assert_eq!(before, start);
    assert!(
        note.contains("note:") && note.contains("before the start"),
        "{note}"
    );
    let (end, _) = pose(&duration.to_string(), &[], "end.obj");
    let (after, note) = pose(&(duration + 5.0).to_string(), &[], "after.obj");
    assert_eq!(after, end);
    assert!(note.contains("past the end"), "{note}");
    let quarter = duration * 0.25;
    let (inside, _) = pose(&quarter.to_string(), &[], "quarter.obj");
    let (wrapped, note) = pose(
        &(duration + quarter).to_string(),
        &["--loop"],
        "wrapped.obj",
    );
    assert!(!note.contains("note:"), "{note}");
    // Same pose up to float rounding of the wrapped time: compare numerically.
    let nums = |t: &str| -> Vec<f32> {
        t.split_whitespace()
            .filter_map(|w| w.parse::<f32>().ok())
            .collect()
    };
    let (a, b) = (nums(&inside), nums(&wrapped));
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-3));
}

#[test]
fn render_filmstrips_honour_size_and_the_help_states_the_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let clip = gom_demo::build().clips[0].name.clone();
    let strip = |size: Option<&str>, name: &str| {
        let png = tmp.path().join(name);
        let mut args = vec![
            "render",
            s(&model),
            "--clip",
            &clip,
            "--frames",
            "2",
            "-o",
            s(&png),
        ];
        if let Some(size) = size {
            args.extend(["--size", size]);
        }
        let out = gom(&args);
        assert!(out.status.success(), "{out:?}");
        png_size(&png)
    };
    let default = strip(None, "default.png");
    let explicit_default = strip(Some("256x256"), "explicit.png");
    let large = strip(Some("512x512"), "large.png");
    assert_eq!(default, explicit_default);
    assert!(
        large.0 > default.0 && large.1 > default.1,
        "{large:?} vs {default:?}"
    );
    let help = stdout(&gom(&["render", "--help"]));
    assert!(
        help.contains("512x512") && help.contains("256x256"),
        "{help}"
    );
    // One picture without --size is 512x512.
    let png = tmp.path().join("one.png");
    assert!(gom(&["render", s(&model), "-o", s(&png)]).status.success());
    assert_eq!(png_size(&png), (512, 512));
}

#[test]
fn build_lists_warnings_under_their_file_also_when_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    // InterpolationTest names a texture (`l.jpg`) the data set lacks: a warning.
    let Some(src) = copy_gltf(
        tmp.path(),
        "src",
        &["InterpolationTest.gltf", "interpolation.bin"],
    ) else {
        return;
    };
    let out_dir = tmp.path().join("out");
    let mut texts = Vec::new();
    for _ in 0..2 {
        let out = gom(&["build", s(&src), s(&out_dir), "--format", "glb"]);
        assert!(out.status.success(), "{out:?}");
        texts.push((stderr(&out), stdout(&out)));
    }
    for (i, (err, summary)) in texts.iter().enumerate() {
        let lines: Vec<&str> = err.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("InterpolationTest.gltf"))
            .unwrap_or_else(|| panic!("run {i}: {err}"));
        assert!(
            lines[at + 1].trim_start().starts_with("warning:") && lines[at + 1].contains("l.jpg"),
            "run {i}: {err}"
        );
        assert!(summary.contains("warnings"), "{summary}");
    }
    assert!(texts[1].0.contains("up to date"), "{}", texts[1].0);
    let json = gom(&[
        "build",
        s(&src),
        s(&out_dir),
        "--format",
        "glb",
        "--report",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let file = &report["files"][0];
    let glb = std::fs::metadata(out_dir.join("InterpolationTest.glb"))
        .unwrap()
        .len();
    let source = std::fs::metadata(src.join("InterpolationTest.gltf"))
        .unwrap()
        .len();
    assert_eq!(file["outputBytes"], glb, "{report:#}");
    assert_eq!(file["sourceBytes"], source, "{report:#}");
    assert_eq!(report["warnings"], 1, "{report:#}");
}

#[test]
fn info_and_validate_take_several_files() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let text = tmp.path().join("demo.gomt");
    let out = gom(&["info", s(&model), s(&text)]);
    assert!(out.status.success(), "{out:?}");
    let printed = stdout(&out);
    assert!(
        printed.contains(s(&model)) && printed.contains(s(&text)),
        "{printed}"
    );
    let out = gom(&["validate", s(&model), s(&text)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out).matches(": valid").count(), 2);
}

#[test]
fn pose_and_render_refuse_to_write_over_their_input() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let before = std::fs::read(&model).unwrap();
    let runs: [&[&str]; 3] = [
        &["pose", s(&model), "-o", s(&model)],
        &["render", s(&model), "-o", s(&model)],
        &["render", "--sheet", s(tmp.path()), "-o", s(&model)],
    ];
    for args in runs {
        let out = gom(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            stderr(&out).contains("would replace the input"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read(&model).unwrap(), before);
}

#[test]
fn render_refuses_a_time_that_is_not_a_number() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let png = tmp.path().join("nan.png");
    let out = gom(&[
        "render",
        s(&model),
        "--clip",
        "swish",
        "--time=nan",
        "-o",
        s(&png),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("not a finite number"),
        "{}",
        stderr(&out)
    );
    assert!(!png.exists());
}
