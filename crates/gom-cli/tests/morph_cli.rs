//! Blend shapes in the tools: `gom info` lists each mesh's targets and each clip's
//! weight tracks; `gom pose` poses the morphed mesh.

mod common;
use common::{gom, s};

fn write_morph(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("morph.gom");
    let model = gom_demo::with_morphs(gom_demo::build());
    std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
    path
}

#[test]
fn info_lists_targets_and_weight_tracks() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_morph(dir.path());
    let out = gom(&["info", s(&path), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let targets = &v["meshes"][0]["morphTargets"];
    assert_eq!(targets[0]["name"], "bulge");
    assert_eq!(targets[0]["defaultWeight"], 0.25);
    assert_eq!(targets[1]["name"], "flatten");
    assert!(
        v["meshes"][1].get("morphTargets").is_none(),
        "only where there are some"
    );
    let tracks = &v["clips"][1]["weightTracks"];
    assert_eq!(tracks[0]["name"], "flatten");
    assert_eq!(tracks[0]["interpolation"], "linear");
    assert_eq!(tracks[0]["keys"], 3);
    let text = String::from_utf8(gom(&["info", s(&path)]).stdout).unwrap();
    assert!(text.contains("morph targets: bulge ("), "{text}");
    assert!(
        text.contains("weight tracks: tentacle/flatten linear 3 keys"),
        "{text}"
    );
}

#[test]
fn pose_shows_the_clips_weights() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_morph(dir.path());
    let plain = dir.path().join("plain.gom");
    std::fs::write(&plain, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    let obj = |file: &std::path::Path, time: &str| {
        let out = gom(&["pose", s(file), "--clip", "curl", "--time", time, "-o", "-"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Half way through curl, flatten is at 1 and bulge at its default 0.25.
    let half = obj(&path, "0.75");
    assert_ne!(half, obj(&plain, "0.75"));
    // Through the runtime, the same pose.
    let model = gom_demo::with_morphs(gom_demo::build());
    let asset = gom_runtime::Asset::from_model(&model).unwrap();
    let posed = asset
        .posed_meshes(Some(1), 0.75, gom_runtime::Playback::Once)
        .unwrap();
    let v: Vec<[f32; 3]> = half
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let x: Vec<f32> = l.split(' ').map(|c| c.parse().unwrap()).collect();
            [x[0], x[1], x[2]]
        })
        .collect();
    assert_eq!(&v[..posed[0].positions.len()], &posed[0].positions[..]);
}
