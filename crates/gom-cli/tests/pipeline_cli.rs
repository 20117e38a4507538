//! `gom convert`'s pipeline flags (docs/pipeline.md): each sets its import option, and
//! the steps run in their documented order (renames, ranges, filter).

mod common;
use common::{gom, s, shared_data};

#[test]
fn convert_merges_animation_files_and_controls_clips() {
    let Some(fbx) = shared_data("fbx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sausage.gom");
    let file = |kind: &str| fbx.join(format!("maya_game_sausage_7500_binary_{kind}.fbx"));
    let (deform, spin) = (file("deform"), file("spin"));
    let result = gom(&[
        "convert",
        s(&deform),
        s(&out),
        "--anim",
        s(&spin),
        "--rename-clip",
        "maya_game_sausage_7500_binary_spin=spin",
        "--clip-range",
        "spin:0-12:spin_start",
        "--clip",
        "spin*",
        "--scale",
        "0.01",
        "--report",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let model = gom::gomb::read(&std::fs::read(&out).unwrap())
        .unwrap()
        .model;
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["spin", "spin_start"]);
    // Frames count at the clip's 30 Hz sample rate.
    assert!((model.clips[1].duration - 12.0 / 30.0).abs() < 1e-6);
    // The JSON report is alone on stdout; the line naming the output is on stderr.
    let report: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(
        report["pipeline"]["clips"],
        serde_json::json!(["spin", "spin_start"])
    );
    assert_eq!(report["pipeline"]["space"]["scale"], 0.01f32 as f64);
}

#[test]
fn convert_refuses_malformed_pipeline_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.gom");
    for (flag, value, expected) in [
        ("--clip-range", "walk", "NAME:START-END"),
        ("--rename-clip", "walk", "OLD=NEW"),
        ("--up", "w", "x, -x, y, -y, z or -z"),
        ("--unit", "ft", "cm, m or in"),
    ] {
        let result = gom(&["convert", "in.gom", s(&out), flag, value]);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(!result.status.success());
        assert!(stderr.contains(expected), "{flag} {value}: {stderr}");
    }
}
