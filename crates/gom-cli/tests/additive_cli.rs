//! `--additive` (and `additive` in `gom.toml`): clips stored as deltas, shown by
//! `gom info`, refused with the clips listed when the name is wrong.

mod common;
use common::{gom, s};

/// The demo model written into `dir`, its path.
fn demo(dir: &std::path::Path) -> std::path::PathBuf {
    let out = gom(&["demo", s(dir)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("demo.gom")
}

/// The demo converted with `curl` made additive on `swish` at 0.5 s and `swish` on the
/// bind pose: (the demo, the converted file).
fn additive_demo(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let src = demo(dir);
    let out = dir.join("add.gom");
    let r = gom(&[
        "convert",
        s(&src),
        s(&out),
        "--additive",
        "curl=swish@0.5",
        "--additive",
        "swish=@bind",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    (src, out)
}

/// `gom build` of a folder holding only the demo's GOMB and a `gom.toml` of `config`:
/// the output folder.
fn build_demo(dir: &std::path::Path, config: &str) -> std::path::PathBuf {
    let src_dir = dir.join("src");
    std::fs::create_dir(&src_dir).unwrap();
    demo(&src_dir);
    for f in ["demo.gomt", "demo.glb", "demo.png"] {
        std::fs::remove_file(src_dir.join(f)).unwrap();
    }
    std::fs::write(src_dir.join("gom.toml"), config).unwrap();
    let out = dir.join("out");
    let r = gom(&["build", s(&src_dir), s(&out), "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

#[test]
fn convert_makes_the_named_clips_additive_and_info_shows_their_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = additive_demo(dir.path());
    let source = gom::gomb::read(&std::fs::read(&src).unwrap())
        .unwrap()
        .model;
    let model = gom::gomb::read(&std::fs::read(&out).unwrap())
        .unwrap()
        .model;
    use gom::additive::Reference;
    let refs: Vec<_> = model
        .clips
        .iter()
        .map(|c| c.extras.additive.clone())
        .collect();
    assert_eq!(
        refs,
        [
            Some(Reference::BindPose),
            Some(Reference::ClipFrame {
                clip: "swish".into(),
                time: 0.5
            })
        ]
    );
    // The same deltas as the library makes from the source (the reference poses
    // taken before either clip changed).
    let pose = gom::additive::reference_pose(&source, refs[1].as_ref().unwrap()).unwrap();
    let expected =
        gom::additive::make_additive(&source, &source.clips[1], refs[1].clone().unwrap(), &pose)
            .unwrap();
    assert_eq!(model.clips[1].tracks, expected.tracks);
    let info = gom(&["info", "--json", s(&out)]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["clips"][0]["additive"], "the bind pose");
    assert_eq!(json["clips"][1]["additive"], "clip \"swish\" at 0.5 s");
    let text = String::from_utf8(gom(&["info", s(&out)]).stdout).unwrap();
    assert!(
        text.contains("additive: deltas from the bind pose"),
        "{text}"
    );
}

#[test]
fn a_build_config_sets_additive_clips() {
    let dir = tempfile::tempdir().unwrap();
    let out = build_demo(dir.path(), "additive = [\"curl\"]\n");
    let model = gom::gomb::read(&std::fs::read(out.join("demo.gom")).unwrap())
        .unwrap()
        .model;
    let curl = model.clips.iter().find(|c| c.name == "curl").unwrap();
    assert_eq!(
        curl.extras.additive,
        Some(gom::additive::Reference::ClipFrame {
            clip: "curl".into(),
            time: 0.0
        })
    );
}

#[test]
fn an_unknown_clip_is_refused_with_the_clips_listed() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo(dir.path());
    let out = dir.path().join("add.gom");
    let r = gom(&["convert", s(&src), s(&out), "--additive", "run"]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("--additive: no clip named \"run\""), "{err}");
    assert!(err.contains("\"swish\", \"curl\""), "{err}");
    assert!(!out.exists());
}

#[test]
fn events_are_added_in_time_order_and_shown_by_info() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo(dir.path());
    let out = dir.path().join("events.gom");
    let r = gom(&[
        "convert",
        s(&src),
        s(&out),
        "--event",
        "swish@1.5=footstep:right",
        "--event",
        "swish@0.5=footstep:left",
        "--event",
        "curl@0=start",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let model = gom::gomb::read(&std::fs::read(&out).unwrap())
        .unwrap()
        .model;
    let swish: Vec<(f32, Option<&str>)> = model.clips[0]
        .extras
        .events
        .iter()
        .map(|e| (e.time, e.payload.as_deref()))
        .collect();
    assert_eq!(swish, [(0.5, Some("left")), (1.5, Some("right"))]);
    let text = String::from_utf8(gom(&["info", s(&out)]).stdout).unwrap();
    assert!(text.contains("event at 0.5 s: footstep (left)"), "{text}");
    let info = gom(&["info", "--json", s(&out)]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["clips"][1]["events"][0]["name"], "start");
    // Past the clip's end: refused.
    let r = gom(&["convert", s(&src), s(&out), "--event", "curl@9=late"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("the clip lasts 1.5 s"));
}

/// The model-space matrices `gom pose --joints` writes for `clip` at `time`.
fn posed_joints(file: &std::path::Path, clip: &str, time: &str) -> Vec<[f32; 16]> {
    let out = file.with_extension(format!("{clip}.json"));
    let r = gom(&[
        "pose",
        s(file),
        "--clip",
        clip,
        "--time",
        time,
        "--joints",
        "-o",
        s(&out),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let bones = json["bones"].as_array().unwrap();
    bones
        .iter()
        .map(|b| {
            let m: Vec<f32> = serde_json::from_value(b["matrix"].clone()).unwrap();
            m.try_into().unwrap()
        })
        .collect()
}

/// Model-space matrices of `local`, by the runtime.
fn model_matrices(skeleton: &gom_runtime::Skeleton, local: &LocalPose) -> Vec<[f32; 16]> {
    let mut pose = gom_runtime::ModelPose::new();
    gom_runtime::local_to_model(skeleton, local, &mut pose).unwrap();
    (0..pose.bone_count())
        .map(|b| pose.row_major(b).unwrap())
        .collect()
}

fn assert_close(a: &[[f32; 16]], b: &[[f32; 16]], tolerance: f32) {
    assert_eq!(a.len(), b.len());
    for (bone, (x, y)) in a.iter().zip(b).enumerate() {
        for (u, v) in x.iter().zip(y) {
            assert!((u - v).abs() <= tolerance, "bone {bone}: {x:?} vs {y:?}");
        }
    }
}

use gom_runtime::{LocalPose, Playback, SamplingContext};

#[test]
fn pose_shows_an_additive_clip_added_to_its_reference_pose() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = additive_demo(dir.path());
    let bytes = std::fs::read(&out).unwrap();
    let asset = gom_runtime::Asset::parse(&bytes).unwrap();
    let skeleton = asset.skeleton();
    let sample = |clip: &str, time: f32| {
        let mut local = LocalPose::default();
        let c = asset.clip(clip).unwrap();
        let mut context = SamplingContext::new();
        gom_runtime::sample(c, skeleton, time, Playback::Once, &mut context, &mut local).unwrap();
        local
    };
    // swish is deltas from the bind pose: added to it, it gives the source clip back.
    let bind = LocalPose::bind(skeleton);
    let mut swish = LocalPose::default();
    gom_runtime::blend_additive(&bind, &sample("swish", 0.9), 1.0, None, &mut swish).unwrap();
    let shown = posed_joints(&out, "swish", "0.9");
    assert_close(&shown, &model_matrices(skeleton, &swish), 1e-6);
    assert_close(&shown, &posed_joints(&src, "swish", "0.9"), 1e-5);
    // curl is deltas from swish at 0.5 s, itself additive: its reference pose is
    // swish's deltas at 0.5 s on the bind pose.
    let mut reference = LocalPose::default();
    gom_runtime::blend_additive(&bind, &sample("swish", 0.5), 1.0, None, &mut reference).unwrap();
    let mut curl = LocalPose::default();
    gom_runtime::blend_additive(&reference, &sample("curl", 0.7), 1.0, None, &mut curl).unwrap();
    let curl_shown = posed_joints(&out, "curl", "0.7");
    assert_close(&curl_shown, &model_matrices(skeleton, &curl), 1e-6);
    assert_close(&curl_shown, &posed_joints(&src, "curl", "0.7"), 1e-5);
    // Not the raw deltas taken as a pose.
    let raw = model_matrices(skeleton, &sample("swish", 0.9));
    assert!(shown
        .iter()
        .zip(&raw)
        .any(|(a, b)| a.iter().zip(b).any(|(u, v)| (u - v).abs() > 1e-3)));
}

#[test]
fn info_shows_float_tracks_with_their_components_interpolation_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo(dir.path());
    let mut model = gom::gomb::read(&std::fs::read(&src).unwrap())
        .unwrap()
        .model;
    use gom::events::{FloatTrack, Interpolation};
    model.clips[0].extras.float_tracks = vec![
        FloatTrack {
            name: "blink".into(),
            components: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.25, 0.5],
            values: vec![0.0, 1.0, 0.0],
        },
        FloatTrack {
            name: "tint".into(),
            components: 3,
            interpolation: Interpolation::Step,
            times: vec![0.0],
            values: vec![1.0, 0.5, 0.25],
        },
    ];
    let file = dir.path().join("tracks.gom");
    std::fs::write(&file, gom::gomb::write(&model).unwrap()).unwrap();
    let text = String::from_utf8(gom(&["info", s(&file)]).stdout).unwrap();
    assert!(
        text.contains("float track blink: 1 component, linear, 3 keys"),
        "{text}"
    );
    assert!(
        text.contains("float track tint: 3 components, step, 1 key"),
        "{text}"
    );
    let info = gom(&["info", "--json", s(&file)]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let tracks = &json["clips"][0]["floatTracks"];
    assert_eq!(tracks[0]["name"], "blink");
    assert_eq!(tracks[0]["keys"], 3);
    assert_eq!(tracks[1]["components"], 3);
    assert_eq!(tracks[1]["interpolation"], "step");
    assert!(json["clips"][1].get("floatTracks").is_none());
}

#[test]
fn a_build_config_adds_events() {
    let dir = tempfile::tempdir().unwrap();
    let config = "event = [\"swish@1.25=land\", \"swish@0.5=footstep:left\"]\n";
    let out = build_demo(dir.path(), config);
    let model = gom::gomb::read(&std::fs::read(out.join("demo.gom")).unwrap())
        .unwrap()
        .model;
    let swish = model.clips.iter().find(|c| c.name == "swish").unwrap();
    let events: Vec<(f32, &str, Option<&str>)> = swish
        .extras
        .events
        .iter()
        .map(|e| (e.time, e.name.as_str(), e.payload.as_deref()))
        .collect();
    assert_eq!(
        events,
        [(0.5, "footstep", Some("left")), (1.25, "land", None)]
    );
}
