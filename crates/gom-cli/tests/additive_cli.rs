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

#[test]
fn convert_makes_the_named_clips_additive_and_info_shows_their_reference() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo(dir.path());
    let out = dir.path().join("add.gom");
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
    let src_dir = dir.path().join("src");
    std::fs::create_dir(&src_dir).unwrap();
    demo(&src_dir);
    for f in ["demo.gomt", "demo.glb", "demo.png"] {
        std::fs::remove_file(src_dir.join(f)).unwrap();
    }
    std::fs::write(src_dir.join("gom.toml"), "additive = [\"curl\"]\n").unwrap();
    let out = dir.path().join("out");
    let r = gom(&["build", s(&src_dir), s(&out), "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
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
