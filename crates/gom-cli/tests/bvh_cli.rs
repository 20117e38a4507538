//! BVH motion capture through the `gom` binary: every shared CMU clip converts,
//! validates and is described by `gom info`; one clip goes to every output, through
//! `gom build`, `gom view` and `gom render --skeleton`; `gom pose --joints`.

mod common;
use common::{gom, s};
use serde_json::Value;
use std::path::PathBuf;

/// The clips' frames and joints (`ROOT` and `JOINT` blocks), from the folder's README;
/// every clip has 41 End Sites and a frame time of 0.016667 s.
const CLIPS: [(&str, u64, usize); 13] = [
    ("002_01", 171, 101),
    ("002_03", 86, 101),
    ("002_04", 241, 100),
    ("002_09", 517, 100),
    ("003_02", 182, 100),
    ("005_03", 216, 100),
    ("005_16", 263, 100),
    ("006_05", 192, 100),
    ("006_08", 170, 100),
    ("006_09", 150, 100),
    ("006_14", 239, 100),
    ("007_09", 153, 100),
    ("007_12", 132, 100),
];

fn bvh_dir() -> Option<PathBuf> {
    gom_test_support::shared_data("bvh")
}

fn ok(args: &[&str]) -> std::process::Output {
    let out = gom(args);
    assert!(
        out.status.success(),
        "gom {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn every_shared_clip_converts_validates_and_info_shows_joints_and_duration() {
    let Some(dir) = bvh_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (name, frames, joints) in CLIPS {
        let src = dir.join(format!("{name}.bvh"));
        let out = tmp.path().join(format!("{name}.gom"));
        let converted = ok(&["convert", s(&src), s(&out)]);
        let report = String::from_utf8_lossy(&converted.stderr);
        assert!(report.contains("skeleton height"), "{report}");
        ok(&["validate", s(&out)]);
        for file in [&src, &out] {
            let info = ok(&["info", s(file), "--json"]);
            let doc: Value = serde_json::from_slice(&info.stdout).unwrap();
            assert_eq!(doc["skeleton"]["boneCount"], joints + 41, "{name}");
            let clip = &doc["clips"][0];
            assert_eq!(clip["name"], name);
            let want = (frames - 1) as f64 * 0.016667;
            let duration = clip["duration"].as_f64().unwrap();
            assert!(
                (duration - want).abs() < 1e-5,
                "{name}: {duration} s, want {want}"
            );
        }
        let text = ok(&["info", s(&src)]);
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains(&format!("{}", joints + 41)), "{text}");
    }
}

#[test]
fn a_clip_converts_to_every_output_and_builds_in_a_folder() {
    let Some(dir) = bvh_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = dir.join("007_12.bvh");
    for ext in ["gomt", "glb", "gltf", "tmd"] {
        let out = tmp.path().join(format!("walk.{ext}"));
        if ext == "tmd" {
            // The game's node names hold 15 bytes: --rename shortens CC_Base_* names.
            ok(&["convert", s(&src), s(&out), "--rename"]);
        } else {
            ok(&["convert", s(&src), s(&out)]);
        }
        let back = ok(&["info", s(&out), "--json"]);
        let doc: Value = serde_json::from_slice(&back.stdout).unwrap();
        let duration = doc["clips"][0]["duration"].as_f64().unwrap();
        assert!(
            (duration - 131.0 * 0.016667).abs() < 1e-4,
            "{ext}: {duration}"
        );
        if ext == "gomt" {
            assert_eq!(doc["skeleton"]["boneCount"], 141);
        }
        if ext == "gltf" {
            // One node a bone (reading glTF back keeps only the nodes that move or
            // carry moving ones, so the count is checked in the file itself).
            let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
            assert_eq!(json["nodes"].as_array().unwrap().len(), 141);
        }
    }
    // End Sites dropped on request.
    let out = tmp.path().join("joints.gom");
    ok(&["convert", s(&src), s(&out), "--drop-end-sites"]);
    let doc: Value = serde_json::from_slice(&ok(&["info", s(&out), "--json"]).stdout).unwrap();
    assert_eq!(doc["skeleton"]["boneCount"], 100);
    // A folder of clips.
    let folder = tmp.path().join("src");
    std::fs::create_dir(&folder).unwrap();
    for name in ["002_03", "007_12"] {
        std::fs::copy(
            dir.join(format!("{name}.bvh")),
            folder.join(format!("{name}.bvh")),
        )
        .unwrap();
    }
    let built = tmp.path().join("built");
    ok(&["build", s(&folder), s(&built), "--quiet"]);
    for name in ["002_03", "007_12"] {
        ok(&["validate", s(&built.join(format!("{name}.gom")))]);
    }
}

#[test]
fn a_clip_views_and_renders_with_its_skeleton() {
    let Some(dir) = bvh_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = dir.join("002_01.bvh");
    let html = tmp.path().join("walk.html");
    ok(&["view", s(&src), "--html", s(&html)]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("\"name\":\"002_01\""));
    assert!(page.contains("CC_Base_Hip"));
    let png = tmp.path().join("walk.png");
    ok(&[
        "render",
        s(&src),
        "--clip",
        "002_01",
        "--time",
        "1",
        "--skeleton",
        "--size",
        "96x96",
        "-o",
        s(&png),
    ]);
    assert_eq!(common::png_size(&png), (96, 96));
}

#[test]
fn pose_joints_writes_every_bone_in_model_space_as_json() {
    let Some(dir) = bvh_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = dir.join("002_04.bvh");
    let gomb = tmp.path().join("jump.gom");
    ok(&["convert", s(&src), s(&gomb)]);
    let model = gom::gomb::read(&std::fs::read(&gomb).unwrap())
        .unwrap()
        .model;
    // The bind pose: each bone's matrix is its bind-world matrix.
    let bind = gom::math::bind_world(&model.skeleton.bones);
    let json = tmp.path().join("bind.json");
    ok(&["pose", s(&gomb), "--joints", "-o", s(&json)]);
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let bones = doc["bones"].as_array().unwrap();
    assert_eq!(bones.len(), model.skeleton.bones.len());
    for (b, (bone, want)) in bones.iter().zip(&bind).enumerate() {
        assert_eq!(bone["name"], model.skeleton.bones[b].name);
        assert_eq!(bone["parent"], model.skeleton.bones[b].parent);
        let m: Vec<f64> = bone["matrix"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        for (got, want) in m.iter().zip(want) {
            assert!((got - f64::from(*want)).abs() < 1e-5);
        }
        let p: Vec<f64> = bone["position"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(p, m[12..15]);
    }
    // At frame 60 the root (the hips) stands where the text puts it: OFFSET plus the
    // position channels, in metres, Z mirrored (within the key reduction's 1 mm).
    let json = tmp.path().join("f60.json");
    ok(&[
        "pose",
        s(&gomb),
        "--clip",
        "002_04",
        "--frame",
        "60",
        "--fps",
        "59.9988",
        "--joints",
        "-o",
        s(&json),
    ]);
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let text = std::fs::read_to_string(&src).unwrap();
    let motion = text.lines().position(|l| l == "MOTION").unwrap();
    let frame: Vec<f64> = text
        .lines()
        .nth(motion + 3 + 60)
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|v| v.parse().unwrap())
        .collect();
    let offset = [0.0, 105.214226, 0.000021];
    let want: Vec<f64> = (0..3)
        .map(|a| (offset[a] + frame[a]) * if a == 2 { -0.01 } else { 0.01 })
        .collect();
    let p = &doc["bones"][0]["position"];
    for a in 0..3 {
        let got = p[a].as_f64().unwrap();
        assert!((got - want[a]).abs() < 2e-3, "{got} vs {}", want[a]);
    }
}

#[test]
fn a_broken_clip_is_refused_with_its_line_and_column() {
    let Some(dir) = bvh_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(dir.join("006_09.bvh")).unwrap();
    let bad = tmp.path().join("bad.bvh");
    std::fs::write(&bad, text.replacen("Zrotation", "Qrotation", 1)).unwrap();
    let out = gom(&["convert", s(&bad), s(&tmp.path().join("bad.gom"))]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let line = text.lines().position(|l| l.contains("Zrotation")).unwrap() + 1;
    assert!(
        err.contains(&format!("bad.bvh: line {line}, column ")),
        "{err}"
    );
    assert!(err.contains("unknown channel 'Qrotation'"), "{err}");
}
