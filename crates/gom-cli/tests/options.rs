//! Options as a user types them: names that do not exist are refused naming what
//! does, negative and huge numbers are read as given, outputs carry their format's
//! extension, and messages count and quote alike.

mod common;

use common::{gom, s};
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The demo model (`demo.gom`, `demo.gomt`, `demo.png`) in `dir`; its clips are
/// "swish" and "curl".
fn demo(dir: &Path) -> PathBuf {
    let out = gom(&["demo", s(dir)]);
    assert!(out.status.success(), "{out:?}");
    dir.join("demo.gom")
}

/// Checks that `args` failed (exit 2) with a message holding every one of `parts`.
fn refused(args: &[&str], parts: &[&str]) -> String {
    let out = gom(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for p in parts {
        assert!(err.contains(p), "{args:?}: {p:?} missing from {err}");
    }
    err
}

#[test]
fn a_clip_renamed_onto_a_taken_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let out = tmp.path().join("out.gom");
    refused(
        &["convert", s(&model), s(&out), "--rename-clip", "swish=curl"],
        &["--rename-clip swish=curl", "\"curl\" exists already"],
    );
    assert!(!out.exists());
}

#[test]
fn loop_naming_no_clip_is_refused_naming_the_clips() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let out = tmp.path().join("game/x.tmd");
    refused(
        &["convert", s(&model), s(&out), "--loop", "NOSUCHCLIP"],
        &["--loop", "\"NOSUCHCLIP\"", "\"swish\", \"curl\""],
    );
    assert!(!out.exists());
}

#[test]
fn a_bone_map_without_animation_files_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let map = tmp.path().join("map.txt");
    std::fs::write(&map, "a = b\n").unwrap();
    let out = tmp.path().join("out.gom");
    refused(
        &["convert", s(&model), s(&out), "--bone-map", s(&map)],
        &["--bone-map", "--anim"],
    );
    assert!(!out.exists());
}

#[test]
fn a_material_library_matching_no_material_is_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let tml = tmp.path().join("lib.tml");
    let spec = format!("Zed={}", s(&tmp.path().join("demo.png")));
    let packed = gom(&["tml", "pack", s(&tml), "--material", &spec, "--format", "0"]);
    assert!(packed.status.success(), "{packed:?}");
    let info = gom(&["info", "--json", s(&model)]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let first = format!("\"{}\"", v["materials"][0]["name"].as_str().unwrap());
    let png = tmp.path().join("x.png");
    refused(
        &["render", s(&model), "--tml", s(&tml), "-o", s(&png)],
        &["--tml", "\"Zed\"", &first],
    );
    assert!(!png.exists());
}

#[test]
fn every_missing_clip_is_named_alike_with_the_clips_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let said = "no clip named \"nope\" (the model has: \"swish\", \"curl\")";
    let out = |name: &str| s(&tmp.path().join(name)).to_string();
    let (obj, png, gom_out) = (out("x.obj"), out("x.png"), out("x.gom"));
    refused(&["pose", s(&model), "--clip", "nope", "-o", &obj], &[said]);
    refused(
        &["render", s(&model), "--clip", "nope", "-o", &png],
        &[said],
    );
    let range = ["convert", s(&model), &gom_out, "--clip-range", "nope:0-1"];
    refused(&range, &[said]);
    let rename = ["convert", s(&model), &gom_out, "--rename-clip", "nope=x"];
    refused(&rename, &[said]);
}

#[test]
fn negative_axes_and_numbers_are_values() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let (a, b) = (tmp.path().join("a.gom"), tmp.path().join("b.gom"));
    let spaced = gom(&["convert", s(&model), s(&a), "--up", "-y", "--forward", "-z"]);
    assert!(spaced.status.success(), "{}", stderr(&spaced));
    let joined = gom(&["convert", s(&model), s(&b), "--up=-y", "--forward=-z"]);
    assert!(joined.status.success(), "{}", stderr(&joined));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    // A frame before the clip is clamped to its start, as a time is.
    let (f, t) = (tmp.path().join("f.obj"), tmp.path().join("t.obj"));
    let frame = gom(&["pose", s(&model), "--clip", "swish", "--frame", "-3"]);
    assert_eq!(frame.status.code(), Some(2), "--fps is required: {frame:?}");
    let args = ["--clip", "swish", "--frame", "-3", "--fps", "30", "-o"];
    let frame = gom(&[&["pose", s(&model)], &args[..], &[s(&f)]].concat());
    assert!(frame.status.success(), "{}", stderr(&frame));
    assert!(stderr(&frame).contains("--frame -3"), "{}", stderr(&frame));
    let zero = gom(&[
        "pose",
        s(&model),
        "--clip",
        "swish",
        "--time",
        "0",
        "-o",
        s(&t),
    ]);
    assert!(zero.status.success(), "{}", stderr(&zero));
    assert_eq!(std::fs::read(&f).unwrap(), std::fs::read(&t).unwrap());

    let png = tmp.path().join("tiny.png");
    let args = ["--clip", "swish", "--time", "-1.3e-17", "-o", s(&png)];
    let tiny = gom(&[&["render", s(&model)], &args[..]].concat());
    assert!(tiny.status.success(), "{}", stderr(&tiny));
}

#[test]
fn numbers_out_of_range_are_named_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let png = tmp.path().join("x.png");
    let err = refused(
        &[
            "render",
            s(&model),
            "--clip",
            "swish",
            "--time",
            "1e40",
            "-o",
            s(&png),
        ],
        &["1e40"],
    );
    let words: Vec<&str> = err.split(|c: char| !c.is_alphanumeric()).collect();
    assert!(!words.contains(&"inf"), "{err}");
    let out = tmp.path().join("x.gom");
    for form in [
        &["--key-tolerance-mm=-1"][..],
        &["--key-tolerance-mm", "-1"],
    ] {
        let args = [&["convert", s(&model), s(&out)][..], form].concat();
        let err = refused(&args, &["'-1'", "negative"]);
        assert!(!err.contains('{'), "a value, not a structure: {err}");
    }
}

#[test]
fn outputs_must_carry_their_formats_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let at = |n: &str| tmp.path().join(n);
    let cases: [(Vec<&str>, PathBuf); 4] = [
        (vec!["render", s(&model), "-o"], at("x.jpg")),
        (vec!["pose", s(&model), "-o"], at("x.png")),
        (vec!["convert", s(&model), "--to", "gomt"], at("x.gom")),
        (vec!["convert", s(&model), "--to", "tmd"], at("y.gom")),
    ];
    for (args, out) in &cases {
        let all = [&args[..], &[s(out)]].concat();
        refused(&all, &[s(out)]);
        assert!(!out.exists(), "{all:?} wrote {}", out.display());
    }
    // A name without a format's extension is what --to is for.
    let text = at("model.txt");
    let ok = gom(&["convert", s(&model), s(&text), "--to", "gomt"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(std::fs::read(&text).unwrap().starts_with(b"GOMT0001"));
}

#[test]
fn convert_help_lists_every_output_format() {
    let help = gom(&["convert", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    let to = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--to "))
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    for f in ["gom", "gomt", "glb", "gltf", "tmd"] {
        assert!(to.contains(f), "--to lists {f}: {to}");
    }
}

#[test]
fn counts_of_one_take_the_singular() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    demo(&src);
    std::fs::remove_file(src.join("demo.gomt")).unwrap();
    std::fs::remove_file(src.join("demo.glb")).unwrap();
    let built = gom(&["build", s(&src), s(&tmp.path().join("out"))]);
    assert!(built.status.success(), "{}", stderr(&built));
    assert!(stderr(&built).contains("1 file,"), "{}", stderr(&built));
    let gif = tmp.path().join("one.gif");
    let args = [
        "--clip",
        "swish",
        "--animate",
        "--fps",
        "0.5",
        "-o",
        s(&gif),
    ];
    let one = gom(&[&["render", s(&src.join("demo.gom"))], &args[..]].concat());
    assert!(one.status.success(), "{}", stderr(&one));
    assert!(stderr(&one).contains(", 1 frame,"), "{}", stderr(&one));
}

#[test]
fn clip_ranges_say_the_rate_their_frames_count_at() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let out = tmp.path().join("cut.gom");
    let args = ["--clip-range", "swish:0-10", "--report", "json"];
    let cut = gom(&[&["convert", s(&model), s(&out)][..], &args[..]].concat());
    assert!(cut.status.success(), "{}", stderr(&cut));
    let v: serde_json::Value = serde_json::from_slice(&cut.stdout).unwrap();
    let range = &v["pipeline"]["ranges"][0];
    // The demo's clips are sampled at 30 Hz: frame 10 is a third of a second.
    assert_eq!(range["frameRate"], 30.0, "{v:#}");
    let end = range["end"].as_f64().unwrap();
    assert!((end - 10.0 / 30.0).abs() < 1e-6, "{v:#}");
    let text = gom(&[&["convert", s(&model), s(&out)][..], &args[..2]].concat());
    assert!(stderr(&text).contains("30 Hz"), "{}", stderr(&text));
    let help = String::from_utf8_lossy(&gom(&["convert", "--help"]).stdout).into_owned();
    assert!(help.contains("not the source's frame rate"), "{help}");
}

#[test]
fn a_game_models_keyframe_library_is_given_with_tkl_or_its_absence_is_said() {
    let Some(data) = gom_test_support::shared_data("jpog") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("creature.tmd");
    std::fs::copy(data.join("tmd_creature.tmd"), &model).unwrap();
    let tkl = data.join("Ddev.tkl");
    let obj = tmp.path().join("x.obj");
    let clip = "Synth_Walk_lp";
    let without = gom(&["pose", s(&model), "--clip", clip, "-o", s(&obj)]);
    assert_eq!(without.status.code(), Some(2));
    let err = stderr(&without);
    assert!(
        err.contains("\"Ddev.tkl\"") && err.contains("--tkl"),
        "{err}"
    );
    let posed = gom(&[
        "pose",
        s(&model),
        "--tkl",
        s(&tkl),
        "--clip",
        clip,
        "-o",
        s(&obj),
    ]);
    assert!(posed.status.success(), "{}", stderr(&posed));
    let png = tmp.path().join("x.png");
    let args = [
        "--tkl",
        s(&tkl),
        "--clip",
        clip,
        "--time",
        "0.5",
        "-o",
        s(&png),
    ];
    let drawn = gom(&[&["render", s(&model)][..], &args[..]].concat());
    assert!(drawn.status.success(), "{}", stderr(&drawn));
    let info = gom(&["info", "--json", s(&model), "--tkl", s(&tkl)]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["clips"][0]["name"], clip, "{v:#}");
}

#[test]
fn root_motion_on_no_bone_is_refused_naming_the_bones() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let info = gom(&["info", "--json", s(&model)]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let bone = format!(
        "\"{}\"",
        v["skeleton"]["bones"][0]["name"].as_str().unwrap()
    );
    let out = tmp.path().join("out.gom");
    refused(
        &["convert", s(&model), s(&out), "--root-motion", "nope"],
        &["--root-motion", "\"nope\"", &bone],
    );
}
