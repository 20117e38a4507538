//! Blend shapes in the tools: `gom info` lists each mesh's targets and each clip's
//! weight tracks; `gom pose` poses the morphed mesh; `gom render` draws it, still and
//! animated.

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

/// A grey backdrop quad (z = 0) and, in front of it (towards −Z, where the front view
/// looks from), a small red quad whose top edge the target "raise" lifts by 0.5; `weight` bakes the target into the positions instead
/// (`p + weight · dp`, no targets left). The morph stays inside the backdrop, so every
/// pose has the backdrop's bounds and every picture the same camera.
fn raise_model(weight: Option<f32>) -> gom::Model {
    use gom::morph::{MorphTarget, WeightInterpolation, WeightKey, WeightTrack};
    let mut positions = vec![
        [-1.0, -1.0, 0.0],
        [1.0, -1.0, 0.0],
        [1.0, 1.0, 0.0],
        [-1.0, 1.0, 0.0],
        [-0.4, -0.6, -0.25],
        [0.4, -0.6, -0.25],
        [0.4, 0.0, -0.25],
        [-0.4, 0.0, -0.25],
    ];
    let raise = MorphTarget {
        name: "raise".into(),
        indices: vec![6, 7],
        positions: vec![[0.0, 0.5, 0.0]; 2],
        ..Default::default()
    };
    let mut targets = vec![raise];
    if let Some(w) = weight {
        for (&i, d) in targets[0].indices.iter().zip(&targets[0].positions) {
            let p = &mut positions[i as usize];
            *p = [p[0] + w * d[0], p[1] + w * d[1], p[2] + w * d[2]];
        }
        targets.clear();
    }
    // Clockwise as the front view (from −Z) sees them.
    let indices = vec![0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6];
    let mesh = gom::MeshPart {
        name: "card".into(),
        vertices: gom::Vertices {
            normals: Some(vec![[0.0, 0.0, -1.0]; positions.len()]),
            skin: Some(vec![
                gom::SkinWeights {
                    bones: [0; 4],
                    weights: [1.0, 0.0, 0.0, 0.0],
                };
                positions.len()
            ]),
            positions,
            ..Default::default()
        },
        // A grey backdrop and a red card, so that the card's edge shows.
        submeshes: vec![
            gom::Submesh {
                material_index: 0,
                index_start: 0,
                index_count: 6,
            },
            gom::Submesh {
                material_index: 1,
                index_start: 6,
                index_count: 6,
            },
        ],
        indices,
        inverse_bind: vec![gom::IDENTITY],
        morph_targets: targets,
        ..Default::default()
    };
    let clip = gom::Clip {
        name: "raise".into(),
        duration: 1.0,
        sample_rate: 30.0,
        root_bone_index: -1,
        weight_tracks: match weight {
            Some(_) => Vec::new(),
            None => vec![WeightTrack {
                mesh: 0,
                target: 0,
                interpolation: WeightInterpolation::Linear,
                keys: vec![
                    WeightKey {
                        time: 0.0,
                        weight: 0.0,
                    },
                    WeightKey {
                        time: 1.0,
                        weight: 1.0,
                    },
                ],
            }],
        },
        ..Default::default()
    };
    gom::Model {
        skeleton: gom::Skeleton {
            bones: vec![gom::Bone {
                name: "root".into(),
                path: "root".into(),
                parent: -1,
                bind_local: gom::IDENTITY,
            }],
        },
        meshes: vec![mesh],
        materials: [
            ("backdrop", [0.5, 0.5, 0.5, 1.0]),
            ("card", [0.9, 0.1, 0.1, 1.0]),
        ]
        .map(|(name, color)| gom::Material {
            name: name.into(),
            base_color_texture: None,
            base_color_factor: color,
        })
        .to_vec(),
        clips: vec![clip],
        ..Default::default()
    }
}

/// The RGBA8 pixels of a one-frame PNG.
fn still_pixels(path: &std::path::Path) -> Vec<u8> {
    let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

/// The RGBA8 pixels of every frame of an animated PNG.
fn apng_frames(path: &std::path::Path) -> Vec<Vec<u8>> {
    let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let n = reader.info().animation_control.expect("an APNG").num_frames;
    (0..n)
        .map(|_| {
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).unwrap();
            buf.truncate(info.buffer_size());
            buf
        })
        .collect()
}

fn render(args: &[&str]) {
    let out = gom(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_animated_render_of_weight_tracks_shows_the_morph_baked_at_each_frame_s_weight() {
    let dir = tempfile::tempdir().unwrap();
    let save = |name: &str, model: &gom::Model| {
        let path = dir.path().join(name);
        std::fs::write(&path, gom::gomb::write(model).unwrap()).unwrap();
        path
    };
    let morphing = save("morph.gom", &raise_model(None));
    let apng = dir.path().join("raise.png");
    let size = ["--size", "64x64", "--view", "front"];
    let mut args = vec!["render", s(&morphing), "--clip", "raise", "--animate"];
    args.extend(["--fps", "4", "-o", s(&apng)]);
    args.extend(size);
    render(&args);
    // Frames at 0, 0.25, 0.5 and 0.75 s; the weight is the time (keys (0, 0), (1, 1)).
    let frames = apng_frames(&apng);
    assert_eq!(frames.len(), 4);
    for (k, frame) in frames.iter().enumerate() {
        let t = k as f32 * 0.25;
        // The target baked into the positions by hand, drawn as a still without
        // targets or clip.
        let baked = save(&format!("baked{k}.gom"), &raise_model(Some(t)));
        let want = dir.path().join(format!("baked{k}.png"));
        let mut args = vec!["render", s(&baked), "-o", s(&want)];
        args.extend(size);
        render(&args);
        assert!(*frame == still_pixels(&want), "frame {k} (t = {t} s)");
        // The still of the morphing model at that time is the same picture.
        let still = dir.path().join(format!("still{k}.png"));
        let time = t.to_string();
        let mut args = vec!["render", s(&morphing), "--clip", "raise"];
        args.extend(["--time", &time, "-o", s(&still)]);
        args.extend(size);
        render(&args);
        assert!(*frame == still_pixels(&still), "still at {t} s");
    }
    // The morph shows: the pictures change between frames, and only where the small
    // quad's top edge moves (the upper half of the picture; its bottom edge stays).
    let changed: Vec<usize> = (0..64 * 64)
        .filter(|&i| frames[0][4 * i..4 * i + 4] != frames[3][4 * i..4 * i + 4])
        .collect();
    assert!(!changed.is_empty(), "the morph moves nothing");
    assert!(changed.iter().all(|&i| i / 64 < 32), "{changed:?}");
}
